/**
 * A test double's journal of requests (src/testing/journal.ts, docs/testing.md): every call of the API over HTTP and in
 * process, with its route's name, caller, parameters without credentials, status and duration; filtered, cleared, bounded;
 * `hosting.requests` and `/-/forgekit/requests` for administrators only, and neither outside the test-double mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestJournal } from '../src/testing/journal.js';
import { createUser, ROOT_TOKEN, sharedHosting, type SharedHosting, startHosting } from './helpers.js';

type TestUser = Awaited<ReturnType<typeof createUser>>;

const NOTES = 'POST /projects/:id/issues/:issue_iid/notes';

let t: SharedHosting;
let bot: TestUser;
let projectId: number;

beforeAll(async () => {
  t = await sharedHosting();
  bot = await createUser(t.hosting);
  projectId = (await t.hosting.as(bot.id).projects.create({ name: 'Journaled' })).id;
});

afterAll(async () => {
  await t?.close();
});

describe('the request journal', () => {
  it('records a call over HTTP: its route, caller, parameters without credentials, status and time', async () => {
    t.hosting.requests.clear();
    const before = t.hosting.clock.now();
    const created = await t.http
      .post(`/api/v4/projects/${projectId}/issues?private_token=${bot.token}`)
      .send({ title: 'Broken', description: 'It fails', labels: 'bug' });
    expect(created.status).toBe(201);
    const [entry, ...others] = t.hosting.requests.list();
    expect(others).toEqual([]);
    expect(entry).toEqual({
      id: expect.any(Number),
      time: expect.any(String),
      method: 'POST',
      path: `/api/v4/projects/${projectId}/issues`,
      route: 'POST /projects/:id/issues',
      caller: bot.username,
      query: {},
      body: { title: 'Broken', description: 'It fails', labels: 'bug' },
      status: 201,
      duration_ms: expect.any(Number),
      via: 'http',
      fault: null,
    });
    // Its time is the instance clock's, while it was answered.
    expect(Date.parse(entry.time)).toBeGreaterThanOrEqual(before.getTime());
    expect(Date.parse(entry.time)).toBeLessThanOrEqual(t.hosting.clock.now().getTime());
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('records in-process calls as the HTTP request they stand for, and failed calls with their status', async () => {
    t.hosting.requests.clear();
    const api = t.hosting.as(bot.id);
    await api.issues.create(projectId, { title: 'In process' });
    await api.issues.list(projectId, { state: 'opened', per_page: 5 });
    await expect(api.issues.get(projectId, 999)).rejects.toMatchObject({ status: 404 });
    const missing = await t.http.get('/api/v4/projects/does%2Fnot-exist').set('PRIVATE-TOKEN', bot.token);
    expect(missing.status).toBe(404);
    const refused = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', 'not-a-token');
    expect(refused.status).toBe(401);
    expect(
      t.hosting.requests.list().map(({ method, path, route, caller, query, body, status, via }) => ({
        method,
        path,
        route,
        caller,
        query,
        body,
        status,
        via,
      })),
    ).toEqual([
      {
        method: 'POST',
        path: `/api/v4/projects/${projectId}/issues`,
        route: 'POST /projects/:id/issues',
        caller: bot.username,
        query: {},
        body: { title: 'In process' },
        status: 201,
        via: 'in-process',
      },
      {
        method: 'GET',
        path: `/api/v4/projects/${projectId}/issues`,
        route: 'GET /projects/:id/issues',
        caller: bot.username,
        query: { state: 'opened', per_page: 5 },
        body: null,
        status: 200,
        via: 'in-process',
      },
      {
        method: 'GET',
        path: `/api/v4/projects/${projectId}/issues/999`,
        route: 'GET /projects/:id/issues/:issue_iid',
        caller: bot.username,
        query: {},
        body: null,
        status: 404,
        via: 'in-process',
      },
      {
        method: 'GET',
        path: '/api/v4/projects/does%2Fnot-exist',
        route: 'GET /projects/:id',
        caller: bot.username,
        query: {},
        body: null,
        status: 404,
        via: 'http',
      },
      { method: 'GET', path: '/api/v4/user', route: 'GET /user', caller: null, query: {}, body: null, status: 401, via: 'http' },
    ]);
  });

  it('keeps no credential: tokens taken out, passwords and secrets filtered', async () => {
    t.hosting.requests.clear();
    await t.hosting.users.create({
      email: 'filtered@example.com',
      username: 'filtered',
      name: 'Filtered',
      password: 'very-secret-password',
      skip_confirmation: true,
    });
    const hook = await t.http
      .post(`/api/v4/projects/${projectId}/hooks`)
      .send({ private_token: bot.token, url: 'https://hooks.example.com/a', token: 'hook-secret' });
    expect(hook.status).toBe(201);
    const signIn = await t.http.post('/oauth/token').send({ grant_type: 'password', username: bot.username, password: bot.password });
    expect(signIn.status).toBe(200);
    const [user, hookCall, oauth] = t.hosting.requests.list();
    expect(user.body).toMatchObject({ username: 'filtered', password: '[FILTERED]' });
    expect(hookCall).toMatchObject({ caller: bot.username, body: { url: 'https://hooks.example.com/a', token: '[FILTERED]' } });
    expect(hookCall.body).not.toHaveProperty('private_token');
    expect(oauth).toMatchObject({ route: 'POST /oauth/token', path: '/oauth/token', status: 200 });
    expect(oauth.body).toMatchObject({ grant_type: 'password', password: '[FILTERED]' });
    expect(JSON.stringify(t.hosting.requests.list())).not.toMatch(/very-secret-password|hook-secret|secret-password-1/);
    expect(JSON.stringify(t.hosting.requests.list())).not.toContain(bot.token);
  });

  it('answers "my bot created exactly one note with this body" by route and caller, and clears', async () => {
    const api = t.hosting.as(bot.id);
    const issue = await api.issues.create(projectId, { title: 'Discussed' });
    t.hosting.requests.clear();
    const other = await createUser(t.hosting);
    await t.hosting.projectMembers.add(projectId, { user_id: other.id, access_level: 30 });
    await t.http
      .post(`/api/v4/projects/${projectId}/issues/${issue.iid}/notes`)
      .set('PRIVATE-TOKEN', bot.token)
      .send({ body: 'Looking into it' });
    await t.hosting.as(other.id).issueNotes.create(projectId, issue.iid, { body: 'Thanks' });
    await t.http.get(`/api/v4/projects/${projectId}/issues/${issue.iid}/notes`).set('PRIVATE-TOKEN', bot.token);
    const notes = t.hosting.requests.list({ route: NOTES, caller: bot.username });
    expect(notes).toHaveLength(1);
    expect(notes[0].body).toEqual({ body: 'Looking into it' });
    expect(t.hosting.requests.list({ route: NOTES }).map((entry) => entry.caller)).toEqual([bot.username, other.username]);
    expect(t.hosting.requests.list({ method: 'get', via: 'http' }).map((entry) => entry.route)).toEqual([
      'GET /projects/:id/issues/:issue_iid/notes',
    ]);
    expect(t.hosting.requests.list({ path: `/api/v4/projects/${projectId}/issues/*/notes`, status: 201 })).toHaveLength(2);
    expect(t.hosting.requests.list({ path: '/api/v4/projects/**' })).toHaveLength(4);
    expect(t.hosting.requests.list({ path: '/api/v4/projects/*' })).toHaveLength(0);
    expect(t.hosting.requests.list({ caller: '@anonymous' })).toHaveLength(0);
    const later = new Date(Date.now() + 60_000);
    expect(t.hosting.requests.list({ since: later })).toEqual([]);
    expect(t.hosting.requests.list({ since: new Date(0).toISOString() })).toHaveLength(6);
    expect(() => t.hosting.requests.list({ status: 'often' as never })).toThrow(expect.objectContaining({ status: 400 }));
    t.hosting.requests.clear();
    expect(t.hosting.requests.list()).toEqual([]);
  });

  it('is cleared by a reset, its IDs going on', async () => {
    await t.hosting.users.get(1);
    const [{ id }] = t.hosting.requests.list();
    await t.reset();
    bot = await createUser(t.hosting);
    projectId = (await t.hosting.as(bot.id).projects.create({ name: 'Journaled' })).id;
    const entries = t.hosting.requests.list();
    expect(entries.map((entry) => entry.route)).toEqual(['POST /users', 'POST /users/:user_id/personal_access_tokens', 'POST /projects']);
    expect(entries[0].id).toBeGreaterThan(id);
  });

  it('keeps the last requests up to its bound, and cuts long texts and bytes short', () => {
    const journal = new RequestJournal(true, 3);
    const request = { time: new Date().toISOString(), method: 'GET', path: '/', route: 'GET /', caller: null, status: 200 };
    for (let n = 0; n < 5; n++) journal.record({ ...request, duration_ms: n, via: 'in-process', fault: null }, { n }, undefined);
    expect(journal.list().map((entry) => entry.query)).toEqual([{ n: 2 }, { n: 3 }, { n: 4 }]);
    expect(journal.list().map((entry) => entry.id)).toEqual([3, 4, 5]);
    journal.record({ ...request, duration_ms: 0, via: 'http', fault: null }, {}, { file: Buffer.alloc(10), text: 'x'.repeat(100_000) });
    const [{ body }] = journal.list({ via: 'http' });
    expect((body as { file: string }).file).toBe('[10 bytes]');
    expect((body as { text: string }).text).toHaveLength(64 * 1024 + 1);
    // What a list gives is a copy.
    (journal.list()[0].query as { n: number }).n = 99;
    expect(journal.list()[0].query).toEqual({ n: 3 });
  });
});

describe('/-/forgekit/requests', () => {
  it('lists the requests a filter takes, and DELETE clears them, for administrators', async () => {
    t.hosting.requests.clear();
    await t.http.get(`/api/v4/projects/${projectId}`).set('PRIVATE-TOKEN', bot.token);
    await t.http.get(`/api/v4/projects/${projectId}/issues`).set('PRIVATE-TOKEN', bot.token);
    await t.hosting.as(bot.id).projects.get(projectId);
    const listed = await t.http
      .get('/-/forgekit/requests')
      .query({ route: 'GET /projects/:id', caller: bot.username, status: 200 })
      .set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(listed.status).toBe(200);
    expect(listed.body.map((entry: { via: string; path: string }) => [entry.via, entry.path])).toEqual([
      ['http', `/api/v4/projects/${projectId}`],
      ['in-process', `/api/v4/projects/${projectId}`],
    ]);
    const byToken = await t.http.get(`/-/forgekit/requests?private_token=${ROOT_TOKEN}&via=http`);
    expect(byToken.body).toHaveLength(2);
    // The control surface's own requests are not journaled.
    expect(t.hosting.requests.list()).toHaveLength(3);
    const bad = await t.http.get('/-/forgekit/requests?status=often').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toHaveProperty('status');
    expect((await t.http.delete('/-/forgekit/requests').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(204);
    expect(t.hosting.requests.list()).toEqual([]);
  });

  it('answers 401 without a token and 403 to anyone but an administrator', async () => {
    expect((await t.http.get('/-/forgekit/requests')).status).toBe(401);
    expect((await t.http.get('/-/forgekit/requests').set('PRIVATE-TOKEN', 'not-a-token')).status).toBe(401);
    expect((await t.http.get('/-/forgekit/requests').set('PRIVATE-TOKEN', bot.token)).status).toBe(403);
    expect((await t.http.delete('/-/forgekit/requests').set('PRIVATE-TOKEN', bot.token)).status).toBe(403);
  });
});

describe('outside the test-double mode', () => {
  it('keeps no journal: `hosting.requests` throws and `/-/forgekit/requests` is not served', async () => {
    const plain = await startHosting({ testDouble: false });
    try {
      await plain.hosting.users.get(1);
      expect(() => plain.hosting.requests.list()).toThrow(/not a test double/);
      expect(() => plain.hosting.requests.clear()).toThrow(/not a test double/);
      const answer = await plain.http.get('/-/forgekit/requests').set('PRIVATE-TOKEN', ROOT_TOKEN);
      expect(answer.status).toBe(404);
      expect((await plain.http.delete('/-/forgekit/requests').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
