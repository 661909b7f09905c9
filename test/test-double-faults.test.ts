/**
 * A test double's faults (src/testing/faults.ts, docs/testing.md): the next matching calls answer 429 with Retry-After (or
 * 500, 502, 503), wait, or lose their connection, over HTTP and in process, for git over HTTP and for hook deliveries
 * too; matched by method, path, route and caller, after some calls and for some times; `hosting.faults` and
 * `/-/forgekit/faults` for administrators only, and neither outside the test-double mode.
 */
import { environmentOf } from '../src/hosting.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, ConnectionDroppedError, TooManyRequestsError } from '../src/index.js';
import { createUser, ROOT_TOKEN, sharedHosting, type SharedHosting, startHosting } from './helpers.js';

type TestUser = Awaited<ReturnType<typeof createUser>>;

const GET_PROJECT = 'GET /projects/:id';

let t: SharedHosting;
let user: TestUser;
let other: TestUser;
let project: { id: number; path_with_namespace: string };
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  // Local receivers for the hook deliveries.
  t = await sharedHosting({ allowLocalRequests: true });
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(String(request.headers['x-gitlab-event']));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/receiver`;
  user = await createUser(t.hosting);
  other = await createUser(t.hosting);
  project = await t.hosting.as(user.id).projects.create({ name: 'Faulted', visibility: 'public' });
  await t.hosting
    .as(user.id)
    .repositoryFiles.create(project.id, 'README.md', { branch: 'master', content: '# Hi', commit_message: 'Start' });
});

beforeEach(() => {
  t.hosting.faults.clear();
  t.hosting.requests.clear();
});

afterAll(async () => {
  receiver?.close();
  await t?.close();
});

const getProject = (token = user.token) => t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', token);

describe('faults of the API', () => {
  it('answer 429 with Retry-After and the original body over HTTP, the call not made, then let calls through', async () => {
    const fault = t.hosting.faults.add({ route: GET_PROJECT, status: 429, times: 1 });
    expect(fault).toMatchObject({ id: expect.any(Number), target: 'api', route: GET_PROJECT, status: 429, times: 1, applied: 0 });
    const limited = await getProject();
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['content-type']).toBe('application/json');
    expect(limited.body).toEqual({ message: '429 Too Many Requests' });
    expect((await getProject()).status).toBe(200);
    expect(t.hosting.faults.list()).toMatchObject([{ id: fault.id, matched: 1, applied: 1 }]);
    expect(t.hosting.requests.list().map((entry) => [entry.status, entry.fault])).toEqual([
      [429, fault.id],
      [200, null],
    ]);
  });

  it('throw in process what forgekit throws for the status: a TooManyRequestsError with its retryAfter', async () => {
    t.hosting.faults.add({ route: 'POST /projects/:id/issues', status: 429, retryAfter: 30, times: 1 });
    const api = t.hosting.as(user.id);
    const failure = await api.issues.create(project.id, { title: 'Limited' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TooManyRequestsError);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 429, retryAfter: 30 });
    // Not made: the issue that follows is the first.
    expect((await api.issues.create(project.id, { title: 'Made' })).title).toBe('Made');
    expect((await api.issues.list(project.id)).map((issue) => issue.title)).toEqual(['Made']);
  });

  it('apply after `after` matching calls, `times` times, to the caller, method and path they name', async () => {
    t.hosting.faults.add({ method: 'GET', path: `/api/v4/projects/${project.id}`, caller: user.username, status: 503, after: 1, times: 2 });
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) {
      statuses.push((await getProject()).status);
      statuses.push((await getProject(other.token)).status);
    }
    expect(statuses).toEqual([200, 200, 503, 200, 503, 200, 200, 200]);
    const unavailable = await t.hosting
      .as(user.id)
      .projects.get(project.id)
      .then(
        () => 200,
        (error: ApiError) => error.status,
      );
    expect(unavailable).toBe(200);
    expect(t.hosting.faults.list()).toMatchObject([{ matched: 3, applied: 2, after: 1, times: 2 }]);
    // A path pattern, and `@anonymous` for calls without a user.
    t.hosting.faults.add({ path: '/api/v4/projects/*/repository/**', caller: '@anonymous', status: 502 });
    const anonymous = await t.http.get(`/api/v4/projects/${project.id}/repository/files/README.md?ref=master`);
    expect(anonymous.status).toBe(502);
    expect(anonymous.body).toEqual({ message: '502 Bad Gateway' });
    expect(anonymous.headers['retry-after']).toBeUndefined();
    const signedIn = await t.http
      .get(`/api/v4/projects/${project.id}/repository/files/README.md?ref=master`)
      .set('PRIVATE-TOKEN', user.token);
    expect(signedIn.status).toBe(200);
  });

  it('answer the body given, with the Retry-After given', async () => {
    t.hosting.faults.add({ route: GET_PROJECT, status: 500, body: { message: 'boom', hint: 'retry' }, retryAfter: 7 });
    const failed = await getProject();
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ message: 'boom', hint: 'retry' });
    expect(failed.headers['retry-after']).toBe('7');
    t.hosting.faults.clear();
    t.hosting.faults.add({ route: GET_PROJECT, status: 503, body: 'Down for maintenance' });
    expect((await getProject()).body).toEqual({ message: 'Down for maintenance' });
  });

  it('delay calls, which then answer as usual (over HTTP and in process)', async () => {
    const fault = t.hosting.faults.add({ route: GET_PROJECT, delayMs: 300, times: 2 });
    expect((await getProject()).status).toBe(200);
    expect((await t.hosting.as(user.id).projects.get(project.id)).id).toBe(project.id);
    // Both met it, as the journal and the plan say (a delay answers as usual after it: no status of its own).
    expect(t.hosting.requests.list().map((entry) => [entry.status, entry.fault])).toEqual([
      [200, fault.id],
      [200, fault.id],
    ]);
    expect(t.hosting.faults.list()).toMatchObject([{ id: fault.id, delayMs: 300, applied: 2 }]);
    // Delayed, then faulted.
    const both = t.hosting.faults.add({ route: GET_PROJECT, delayMs: 200, status: 502, times: 1 });
    expect((await getProject()).status).toBe(502);
    expect(t.hosting.faults.list().find((each) => each.id === both.id)).toMatchObject({ delayMs: 200, status: 502, applied: 1 });
  });

  it('drop the connection without an answer: a socket hang up over HTTP, a ConnectionDroppedError in process', async () => {
    const fault = t.hosting.faults.add({ route: GET_PROJECT, drop: true, times: 2 });
    const dropped = await getProject().then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error,
    );
    expect(dropped?.code ?? dropped?.message).toMatch(/ECONNRESET|socket hang up/);
    await expect(t.hosting.as(user.id).projects.get(project.id)).rejects.toBeInstanceOf(ConnectionDroppedError);
    expect((await getProject()).status).toBe(200);
    expect(t.hosting.requests.list({ route: GET_PROJECT }).map((entry) => [entry.via, entry.status, entry.fault])).toEqual([
      ['http', null, fault.id],
      ['in-process', null, fault.id],
      ['http', 200, null],
    ]);
  });

  it('refuse an invalid rule with 400 naming the attribute', () => {
    const refusal = (rule: object) => {
      try {
        t.hosting.faults.add(rule as never);
      } catch (error) {
        return (error as ApiError & { messages: unknown }).messages;
      }
      return undefined;
    };
    expect(refusal({ route: GET_PROJECT, status: 404 })).toHaveProperty('status');
    expect(refusal({ route: GET_PROJECT })).toHaveProperty('status');
    expect(refusal({ status: 429, delayMs: 10 ** 9 })).toHaveProperty('delayMs');
    expect(refusal({ status: 429, times: 0 })).toHaveProperty('times');
    expect(refusal({ status: 429, drop: true })).toHaveProperty('drop');
    expect(refusal({ drop: true, retryAfter: 3 })).toHaveProperty('retryAfter');
    expect(refusal({ status: 429, tims: 1 })).toHaveProperty('tims');
    expect(refusal({ target: 'ftp', status: 429 })).toHaveProperty('target');
    expect(refusal({ target: 'hooks', caller: 'root', status: 500 })).toHaveProperty('caller');
    expect(refusal({ status: 500, body: 'x'.repeat(70_000) })).toHaveProperty('body');
    expect(t.hosting.faults.list()).toEqual([]);
  });
});

describe('faults of git over HTTP', () => {
  it('answer the status as git shows it, and are journaled with the git request', async () => {
    const infoRefs = `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
    const fault = t.hosting.faults.add({
      target: 'git',
      route: 'GET /:project.git/info/refs?service=git-upload-pack',
      status: 503,
      times: 1,
    });
    // An API fault does not apply to git, nor a git fault to the API.
    t.hosting.faults.add({ route: 'GET /:project.git/info/refs?service=git-upload-pack', status: 500 });
    expect((await getProject()).status).toBe(200);
    const unavailable = await t.http.get(infoRefs);
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers['retry-after']).toBe('1');
    expect(unavailable.text).toBe('503 Service Unavailable\n');
    const advertised = await t.http.get(infoRefs);
    expect(advertised.status).toBe(200);
    expect(advertised.headers['content-type']).toBe('application/x-git-upload-pack-advertisement');
    expect(t.hosting.requests.list({ via: 'git' })).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: `/${project.path_with_namespace}.git/info/refs`,
        route: 'GET /:project.git/info/refs?service=git-upload-pack',
        caller: null,
        query: { service: 'git-upload-pack' },
        body: null,
        status: 503,
        fault: fault.id,
      }),
      expect.objectContaining({ status: 200, fault: null }),
    ]);
  });

  it('drop the connection of a git request, and name the caller', async () => {
    t.hosting.faults.add({ target: 'git', caller: user.username, drop: true });
    const basic = `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`;
    const infoRefs = `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
    const dropped = await t.http
      .get(infoRefs)
      .set('Authorization', basic)
      .then(
        () => undefined,
        (error: NodeJS.ErrnoException) => error,
      );
    expect(dropped?.code ?? dropped?.message).toMatch(/ECONNRESET|socket hang up/);
    expect((await t.http.get(infoRefs)).status).toBe(200);
    expect(t.hosting.requests.list({ via: 'git' }).map((entry) => [entry.caller, entry.status])).toEqual([
      [user.username, null],
      [null, 200],
    ]);
  });
});

describe('faults of hook deliveries', () => {
  it("make a delivery's try fail with the status, unsent, as a receiver answering it would; the retry delivers", async () => {
    const api = t.hosting.as(user.id);
    const hook = await api.projectHooks.create(project.id, { url: receiverUrl, issues_events: true, push_events: false });
    const fault = t.hosting.faults.add({ target: 'hooks', route: 'Issue Hook', path: '/receiver', status: 502, times: 1 });
    received.length = 0;
    await api.issues.create(project.id, { title: 'Announced' });
    // Every delivery made and every try of it run, the retry after its back-off too.
    await t.hosting.hooks.deliveries();
    await environmentOf(t.hosting).jobs.drain({ everyKind: true });
    expect(await t.hosting.hooks.deliveries({ hook_id: hook.id })).toMatchObject([
      { trigger: 'issue_hooks', status: 'delivered', attempts: 2, response_status: '200' },
    ]);
    // Two tries, one sent: the faulted one was answered as the receiver's 502 would be, and not sent.
    expect(received).toEqual(['Issue Hook']);
    expect(t.hosting.faults.list()).toMatchObject([{ id: fault.id, applied: 1 }]);
  });

  it("meet a hook's test delivery too, which answers the receiver's status as it would have", async () => {
    const hook = await t.hosting.as(user.id).projectHooks.create(project.id, { url: receiverUrl, push_events: true });
    t.hosting.faults.add({ target: 'hooks', route: 'Push Hook', status: 503, times: 1 });
    received.length = 0;
    const test = () => t.http.post(`/api/v4/projects/${project.id}/hooks/${hook.id}/test/push_events`).set('PRIVATE-TOKEN', user.token);
    const refused = await test();
    expect([refused.status, refused.body]).toEqual([422, { message: 'Response status: 503' }]);
    expect(received).toEqual([]);
    const passed = await test();
    expect([passed.status, passed.body]).toEqual([201, { message: '201 Created' }]);
    expect(received).toEqual(['Push Hook']);
  });
});

describe('/-/forgekit/faults', () => {
  it('adds (201 with the ID), lists and removes faults, for administrators', async () => {
    const added = await t.http
      .post('/-/forgekit/faults')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ route: GET_PROJECT, status: 429, retryAfter: 2, times: 1 });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      id: expect.any(Number),
      target: 'api',
      route: GET_PROJECT,
      status: 429,
      retryAfter: 2,
      times: 1,
      matched: 0,
      applied: 0,
    });
    const limited = await getProject();
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    const listed = await t.http.get('/-/forgekit/faults').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([{ ...added.body, matched: 1, applied: 1 }]);
    expect((await t.http.delete(`/-/forgekit/faults/${added.body.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(204);
    const gone = await t.http.delete(`/-/forgekit/faults/${added.body.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Fault Not Found' });
    await t.http.post('/-/forgekit/faults').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ route: GET_PROJECT, drop: true });
    expect((await t.http.delete('/-/forgekit/faults').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(204);
    expect((await t.http.get('/-/forgekit/faults').set('PRIVATE-TOKEN', ROOT_TOKEN)).body).toEqual([]);
    expect((await getProject()).status).toBe(200);
  });

  it('refuses an invalid rule with 400 naming the attribute', async () => {
    const refused = await t.http.post('/-/forgekit/faults').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ status: 418 });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toHaveProperty('status');
  });

  it('answers 401 without a token and 403 to anyone but an administrator', async () => {
    expect((await t.http.post('/-/forgekit/faults').send({ status: 500 })).status).toBe(401);
    expect((await t.http.get('/-/forgekit/faults')).status).toBe(401);
    expect((await t.http.post('/-/forgekit/faults').set('PRIVATE-TOKEN', user.token).send({ status: 500 })).status).toBe(403);
    expect((await t.http.delete('/-/forgekit/faults').set('PRIVATE-TOKEN', user.token)).status).toBe(403);
    expect(t.hosting.faults.list()).toEqual([]);
  });
});

describe('outside the test-double mode', () => {
  it('faults are refused: `hosting.faults` throws and `/-/forgekit/faults` is not served', async () => {
    const plain = await startHosting({ testDouble: false });
    try {
      expect(() => plain.hosting.faults.add({ status: 500 })).toThrow(/not a test double/);
      expect(() => plain.hosting.faults.list()).toThrow(/not a test double/);
      const answer = await plain.http.post('/-/forgekit/faults').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ status: 500 });
      expect(answer.status).toBe(404);
      expect((await plain.http.get('/api/v4/projects').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
