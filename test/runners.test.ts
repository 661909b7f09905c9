import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/rows.js';
import { sql } from '../src/db/sql.js';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../src/errors.js';
import { createUser, pageHeaders, queriesOf, ROOT_TOKEN, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;

const BASE = 'http://forge.test';

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: BASE });
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const unique = (stem: string) => `${stem}-${process.pid}-${(counter += 1)}`;
const as = (user: User) => ({ 'PRIVATE-TOKEN': user.token });
const ROOT = { 'PRIVATE-TOKEN': ROOT_TOKEN };
const TOKEN = /^[A-Za-z0-9]{20}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NO_ACCESS = { message: '403 Forbidden - No access granted' };
const FORBIDDEN = { message: '403 Forbidden' };
const RUNNER_NOT_FOUND = { message: '404 Runner Not Found' };

const registrationToken = async () => (await t.hosting.applicationSettings.get()).runners_registration_token;

/** A private project of `user`'s (in its namespace, or in a group), with its runners token as its maintainers see it. */
async function project(user: User, options: { namespaceId?: number; sharedRunnersEnabled?: boolean } = {}) {
  const name = unique('ci');
  const created = await t.hosting.as(user.id).projects.create({
    name,
    path: name,
    namespace_id: options.namespaceId,
    shared_runners_enabled: options.sharedRunnersEnabled,
  });
  return {
    id: created.id,
    name: created.name,
    path: created.path,
    pathWithNamespace: created.path_with_namespace,
    nameWithNamespace: created.name_with_namespace,
    token: created.runners_token!,
  };
}

/** A group of `user`'s (its owner), with its runners token. */
async function group(user: User, parentId?: number) {
  const path = unique('ci-group');
  const created = await t.hosting.as(user.id).groups.create({ name: path, path, parent_id: parentId });
  return { id: created.id, name: created.name, fullPath: created.full_path, token: created.runners_token! };
}

/** A runner registered over HTTP, as gitlab-runner registers: its ID and its token. */
async function register(token: string, extra: Record<string, unknown> = {}): Promise<{ id: number; token: string }> {
  const res = await t.http.post('/api/v4/runners').send({ token, description: unique('runner'), ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Sets a runner's last contact `minutes` ago (null: never), as time passing would. */
const contacted = (id: number, minutes: number | null) =>
  queryRows(
    t.db.rows,
    sql`update "runners" set "contacted_at" = ${minutes === null ? null : new Date(Date.now() - minutes * 60_000)} where "id" = ${id}`,
  );

const ids = (body: { id: number }[]) => body.map((runner) => runner.id);

describe('POST /runners: registration', () => {
  it('registers a shared runner with the instance token: 201 {id, token}, everything it said of itself kept', async () => {
    const token = await registrationToken();
    expect(token).toMatch(TOKEN);
    const res = await t.http.post('/api/v4/runners').send({
      token,
      description: 'Shared one',
      info: { name: 'gitlab-runner', version: '11.4.2', revision: 'cf91d5e1', platform: 'linux', architecture: 'amd64' },
      tag_list: ['docker', ' linux ', 'docker', ''],
      run_untagged: false,
      locked: true,
      active: false,
      access_level: 'ref_protected',
      maximum_timeout: 3600,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), token: expect.stringMatching(TOKEN) });
    const detail = await t.http.get(`/api/v4/runners/${res.body.id}`).set(ROOT);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      id: res.body.id,
      description: 'Shared one',
      ip_address: expect.stringMatching(/127\.0\.0\.1$/),
      active: false,
      paused: true,
      is_shared: true,
      name: 'gitlab-runner',
      online: false,
      status: 'not_connected',
      runner_type: 'instance_type',
      tag_list: ['docker', 'linux'],
      run_untagged: false,
      locked: true,
      maximum_timeout: 3600,
      access_level: 'ref_protected',
      version: '11.4.2',
      revision: 'cf91d5e1',
      platform: 'linux',
      architecture: 'amd64',
      contacted_at: null,
      token: res.body.token,
      projects: [],
      groups: [],
    });
  });

  it('takes the defaults the original gives, and answers the same in process (without an address)', async () => {
    const runner = await t.hosting.as(null).runners.register({ token: await registrationToken() });
    expect(runner).toEqual({ id: expect.any(Number), token: expect.stringMatching(TOKEN) });
    expect(await t.hosting.runners.get(runner.id)).toMatchObject({
      description: '',
      ip_address: null,
      active: true,
      name: null,
      tag_list: [],
      run_untagged: true,
      locked: false,
      maximum_timeout: null,
      access_level: 'not_protected',
      version: null,
    });
  });

  it("registers a project's specific runner with its runners token, and a group runner with the group's", async () => {
    const owner = await createUser(t.hosting);
    const p = await project(owner);
    const specific = await register(p.token);
    const detail = await t.hosting.runners.get(specific.id);
    expect([detail.runner_type, detail.is_shared]).toEqual(['project_type', false]);
    expect(detail.projects).toEqual([
      { id: p.id, name: p.name, name_with_namespace: p.nameWithNamespace, path: p.path, path_with_namespace: p.pathWithNamespace },
    ]);
    expect(detail.groups).toEqual([]);

    const g = await group(owner);
    const grouped = await register(g.token);
    const groupDetail = await t.hosting.runners.get(grouped.id);
    expect([groupDetail.runner_type, groupDetail.is_shared, groupDetail.projects]).toEqual(['group_type', false, []]);
    expect(groupDetail.groups).toEqual([{ id: g.id, name: g.name, web_url: `${BASE}/groups/${g.fullPath}` }]);
  });

  it('answers 403 for an unknown token, and 400 naming what is missing or invalid (HTTP and in process)', async () => {
    const token = await registrationToken();
    expect(await t.http.post('/api/v4/runners').send({ token: 'not-a-registration-token' })).toMatchObject({
      status: 403,
      body: FORBIDDEN,
    });
    // A runner's own token registers nothing.
    const runner = await register(token);
    expect(await t.http.post('/api/v4/runners').send({ token: runner.token })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.http.post('/api/v4/runners').send({ description: 'no token' })).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "token" not given' },
    });
    expect(await t.http.post('/api/v4/runners').send({ token, access_level: 'everything' })).toMatchObject({
      status: 400,
      body: { message: { access_level: ['does not have a valid value'] } },
    });
    expect(await t.http.post('/api/v4/runners').send({ token, run_untagged: false })).toMatchObject({
      status: 400,
      body: { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } },
    });
    expect(await t.http.post('/api/v4/runners').send({ token, maximum_timeout: 599 })).toMatchObject({
      status: 400,
      body: { message: { maximum_timeout: ['needs to be at least 10 minutes'] } },
    });
    expect(await t.http.post('/api/v4/runners').send({ token, description: 'x'.repeat(256) })).toMatchObject({ status: 400 });
    await expect(t.hosting.as(null).runners.register({ token: 'unknown' })).rejects.toThrow(ForbiddenError);
    await expect(t.hosting.runners.register({ token, run_untagged: false, tag_list: [] })).rejects.toMatchObject({
      constructor: BadRequestError,
      messages: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] },
    });
  });

  it("keeps the runner's token only as a digest to find it by and sealed to show it again", async () => {
    const runner = await register(await registrationToken());
    const [row] = await queryRows(
      t.db.rows,
      sql`select to_jsonb(r)::text as "row", r."token_digest", r."token_sealed" from "runners" r where r."id" = ${runner.id}`,
    );
    expect(row.token_digest).toBe(createHash('sha256').update(runner.token).digest('hex'));
    expect(String(row.token_sealed)).toMatch(/^v1:/);
    expect(String(row.row)).not.toContain(runner.token);
    // The instance's registration token likewise.
    const token = await registrationToken();
    const [settings] = await queryRows(
      t.db.rows,
      sql`select to_jsonb(s)::text as "row", s."runners_registration_token_digest" as "digest" from "application_settings" s`,
    );
    expect(settings.digest).toBe(createHash('sha256').update(token).digest('hex'));
    expect(String(settings.row)).not.toContain(token);
  });
});

describe('POST /runners/verify and DELETE /runners: what runners call with their own token', () => {
  it('verifies a token: 200, the runner contacted now (online), what it says of itself kept', async () => {
    const runner = await register(await registrationToken());
    const before = await t.hosting.runners.get(runner.id);
    expect([before.contacted_at, before.online, before.status]).toEqual([null, false, 'not_connected']);
    const res = await t.http.post('/api/v4/runners/verify').send({ token: runner.token, info: { version: '11.5.0' } });
    expect([res.status, res.body]).toEqual([200, 200]);
    const after = await t.hosting.runners.get(runner.id);
    expect(after.contacted_at).toMatch(ISO);
    expect(Date.now() - Date.parse(after.contacted_at!)).toBeLessThan(60_000);
    expect([after.online, after.status, after.version]).toEqual([true, 'online', '11.5.0']);
    // In process too; contacted_at moves.
    await contacted(runner.id, 30);
    expect(await t.hosting.as(null).runners.verify({ token: runner.token })).toBe(200);
    expect(Date.parse((await t.hosting.runners.get(runner.id)).contacted_at!)).toBeGreaterThan(Date.parse(after.contacted_at!) - 1000);
  });

  it('answers 403 for an unknown token, 400 without one', async () => {
    expect(await t.http.post('/api/v4/runners/verify').send({ token: 'unknown' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.http.post('/api/v4/runners/verify').send({})).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "token" not given' },
    });
    await expect(t.hosting.runners.verify({ token: 'unknown' })).rejects.toThrow(ForbiddenError);
  });

  it('lets a runner remove itself (204), and no more once it is gone (403)', async () => {
    const runner = await register(await registrationToken());
    // gitlab-runner (and go-gitlab) send the token in the query string of a DELETE.
    const res = await t.http.delete(`/api/v4/runners?token=${runner.token}`);
    expect(res.status).toBe(204);
    expect(await t.http.get(`/api/v4/runners/${runner.id}`).set(ROOT)).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    expect(await t.http.delete('/api/v4/runners').send({ token: runner.token })).toMatchObject({ status: 403, body: FORBIDDEN });
    const other = await register(await registrationToken());
    await t.hosting.as(null).runners.unregister({ token: other.token });
    await expect(t.hosting.runners.get(other.id)).rejects.toThrow(NotFoundError);
  });

  it('tells online, offline, paused and never contacted apart: online means contacted within the last hour', async () => {
    const runner = await register(await registrationToken());
    await contacted(runner.id, 59);
    expect(await t.hosting.runners.get(runner.id)).toMatchObject({ online: true, status: 'online' });
    await contacted(runner.id, 61);
    expect(await t.hosting.runners.get(runner.id)).toMatchObject({ online: false, status: 'offline' });
    await t.hosting.runners.update(runner.id, { active: false });
    expect(await t.hosting.runners.get(runner.id)).toMatchObject({ online: false, status: 'paused' });
    await contacted(runner.id, 1);
    expect(await t.hosting.runners.get(runner.id)).toMatchObject({ online: true, status: 'paused' });
  });
});

describe('the registration tokens', () => {
  it(
    'POST /runners/reset_registration_token (administrators): a new instance token, which application settings show; ' +
      'the old one registers nothing',
    async () => {
      const old = await registrationToken();
      const res = await t.http.post('/api/v4/runners/reset_registration_token').set(ROOT);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ token: expect.stringMatching(TOKEN), token_expires_at: null });
      expect(res.body.token).not.toBe(old);
      expect((await t.http.get('/api/v4/application/settings').set(ROOT)).body.runners_registration_token).toBe(res.body.token);
      expect(await t.http.post('/api/v4/runners').send({ token: old })).toMatchObject({ status: 403 });
      await register(res.body.token);
      const again = await t.hosting.runners.resetRegistrationToken();
      expect(again.token).not.toBe(res.body.token);
      expect(await registrationToken()).toBe(again.token);
    },
  );

  it('refuses the reset to others, and PUT /application/settings does not change the token', async () => {
    const user = await createUser(t.hosting);
    expect(await t.http.post('/api/v4/runners/reset_registration_token').set(as(user))).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.http.post('/api/v4/runners/reset_registration_token')).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    await expect(t.hosting.as(user.id).runners.resetRegistrationToken()).rejects.toThrow(ForbiddenError);
    const token = await registrationToken();
    const put = await t.http
      .put('/api/v4/application/settings')
      .set(ROOT)
      .send({ runners_registration_token: 'chosen-by-the-caller', signup_enabled: true });
    expect([put.status, put.body.runners_registration_token]).toEqual([200, token]);
  });

  it("shows a group's runners token to its owners (GET /groups/:id) and to administrators, to no one else", async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const g = await group(owner);
    await t.hosting.groupMembers.add(g.id, { user_id: developer.id, access_level: 40 });
    expect(g.token).toMatch(TOKEN);
    expect((await t.http.get(`/api/v4/groups/${g.id}`).set(as(owner))).body.runners_token).toBe(g.token);
    expect((await t.http.get(`/api/v4/groups/${g.id}`).set(ROOT)).body.runners_token).toBe(g.token);
    const maintainer = await t.http.get(`/api/v4/groups/${g.id}`).set(as(developer));
    expect([maintainer.status, 'runners_token' in maintainer.body]).toEqual([200, false]);
    // Every group has its own.
    expect((await group(owner)).token).not.toBe(g.token);
  });
});

describe('GET /runners: the runners the caller owns', () => {
  it('lists the runners of the projects the caller maintains and of the groups it maintains (and those below), newest first', async () => {
    const owner = await createUser(t.hosting);
    const maintainer = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const p = await project(owner);
    await t.hosting.projectMembers.add(p.id, { user_id: maintainer.id, access_level: 40 });
    await t.hosting.projectMembers.add(p.id, { user_id: developer.id, access_level: 30 });
    const first = await register(p.token);
    const second = await register(p.token);
    const g = await group(owner);
    const sub = await group(owner, g.id);
    const grouped = await register(sub.token);
    await register(await registrationToken());

    const res = await t.http.get('/api/v4/runners').set(as(owner));
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([grouped.id, second.id, first.id]);
    expect(res.body[2]).toEqual({
      id: first.id,
      description: expect.any(String),
      ip_address: expect.stringMatching(/127\.0\.0\.1$/),
      active: true,
      paused: false,
      is_shared: false,
      name: null,
      online: false,
      status: 'not_connected',
    });
    expect(pageHeaders(res.headers)).toMatchObject({ total: 3, totalPages: 1, page: 1 });
    expect(ids((await t.http.get('/api/v4/runners').set(as(maintainer))).body)).toEqual([second.id, first.id]);
    expect((await t.http.get('/api/v4/runners').set(as(developer))).body).toEqual([]);
    // A maintainer of the group above owns its subgroups' runners; administrators own none they do not maintain.
    const groupMaintainer = await createUser(t.hosting);
    await t.hosting.groupMembers.add(g.id, { user_id: groupMaintainer.id, access_level: 40 });
    expect(ids(await t.hosting.as(groupMaintainer.id).runners.list())).toEqual([grouped.id]);
    expect(ids(await t.hosting.runners.list({ per_page: 100 }))).not.toContain(first.id);
    expect(await t.http.get('/api/v4/runners')).toMatchObject({ status: 401 });
  });

  it(
    "filters by scope (active, paused, online), type, status (later clients' never_contacted and stale too) and tags; " +
      '400 for another scope',
    async () => {
      const owner = await createUser(t.hosting);
      const p = await project(owner);
      const g = await group(owner);
      const online = await register(p.token, { tag_list: ['docker', 'linux'] });
      const paused = await register(p.token, { active: false, tag_list: ['docker'] });
      const offline = await register(g.token);
      await contacted(online.id, 5);
      await contacted(paused.id, 5);
      await contacted(offline.id, 120);
      const list = async (query: Record<string, string>) => ids((await t.http.get('/api/v4/runners').query(query).set(as(owner))).body);
      expect(await list({ scope: 'active' })).toEqual([offline.id, online.id]);
      expect(await list({ scope: 'paused' })).toEqual([paused.id]);
      expect(await list({ scope: 'online' })).toEqual([paused.id, online.id]);
      expect(await list({ type: 'group_type' })).toEqual([offline.id]);
      expect(await list({ type: 'project_type' })).toEqual([paused.id, online.id]);
      expect(await list({ type: 'instance_type' })).toEqual([]);
      expect(await list({ status: 'offline' })).toEqual([offline.id]);
      expect(await list({ status: 'online', scope: 'active' })).toEqual([online.id]);
      expect(await list({ status: 'paused', scope: 'active' })).toEqual([]);
      expect(await list({ tag_list: 'docker' })).toEqual([paused.id, online.id]);
      expect(await list({ tag_list: 'docker,linux' })).toEqual([online.id]);
      expect(ids(await t.hosting.as(owner.id).runners.list({ tag_list: ['linux'], scope: 'online' }))).toEqual([online.id]);
      // Later clients' statuses: never contacted; stale, made and not contacted for three months.
      const silent = await register(p.token);
      expect(await list({ status: 'never_contacted' })).toEqual([silent.id]);
      expect(await list({ status: 'stale' })).toEqual([]);
      const months = (count: number) => new Date(Date.now() - count * 31 * 24 * 60 * 60 * 1000);
      await queryRows(
        t.db.rows,
        sql`update "runners" set "created_at" = ${months(4)} where "id" = any(${[silent.id, offline.id, online.id]}::int[])`,
      );
      await queryRows(t.db.rows, sql`update "runners" set "contacted_at" = ${months(3.5)} where "id" = ${offline.id}`);
      expect(await list({ status: 'stale' })).toEqual([silent.id, offline.id]);
      for (const [name, value] of [
        ['scope', 'specific'],
        ['scope', 'shared'],
        ['scope', 'offline'],
        ['type', 'shared'],
        ['status', 'lost'],
      ]) {
        const res = await t.http
          .get('/api/v4/runners')
          .query({ [name]: value })
          .set(as(owner));
        expect([res.status, res.body], `${name}=${value}`).toEqual([400, { message: { [name]: ['does not have a valid value'] } }]);
      }
    },
  );
});

describe('GET /runners/all (administrators)', () => {
  it('lists every runner, specific and shared, by scope and filters; 403 for anyone else', async () => {
    const owner = await createUser(t.hosting);
    const p = await project(owner);
    const specific = await register(p.token);
    const shared = await register(await registrationToken());
    const all = await t.http.get('/api/v4/runners/all').query({ per_page: 100 }).set(ROOT);
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual(expect.arrayContaining([specific.id, shared.id]));
    expect(ids(all.body)).toEqual([...ids(all.body)].sort((a, b) => b - a));
    const sharedOnly = await t.http.get('/api/v4/runners/all').query({ scope: 'shared', per_page: 100 }).set(ROOT);
    expect(sharedOnly.body.every((runner: { is_shared: boolean }) => runner.is_shared)).toBe(true);
    expect(ids(sharedOnly.body)).toContain(shared.id);
    const specificOnly = await t.hosting.runners.all({ scope: 'specific', per_page: 100 });
    expect(specificOnly.every((runner) => !runner.is_shared)).toBe(true);
    expect(ids(specificOnly)).toContain(specific.id);
    expect(ids(await t.hosting.runners.all({ scope: 'shared', type: 'project_type' }))).toEqual([]);
    expect(await t.http.get('/api/v4/runners/all').query({ scope: 'everything' }).set(ROOT)).toMatchObject({
      status: 400,
      body: { message: { scope: ['does not have a valid value'] } },
    });
    expect(await t.http.get('/api/v4/runners/all').set(as(owner))).toMatchObject({ status: 403, body: FORBIDDEN });
    await expect(t.hosting.as(owner.id).runners.all()).rejects.toThrow(ForbiddenError);
  });
});

describe('GET /runners/:id', () => {
  it(
    'shows its owners the runner with its token; a maintainer of only one of its projects without the token, ' +
      'and only the projects it is a member of',
    async () => {
      const owner = await createUser(t.hosting);
      const other = await createUser(t.hosting);
      const mine = await project(owner);
      const theirs = await project(other);
      await t.hosting.projectMembers.add(theirs.id, { user_id: owner.id, access_level: 40 });
      const runner = await register(mine.token);
      await t.hosting.as(owner.id).projectRunners.enable(theirs.id, { runner_id: runner.id });
      const shown = await t.http.get(`/api/v4/runners/${runner.id}`).set(as(owner));
      expect(shown.status).toBe(200);
      expect(shown.body.token).toBe(runner.token);
      expect(shown.body.projects.map((project: { id: number }) => project.id)).toEqual([mine.id, theirs.id]);
      // `other` maintains `theirs` only: it owns the runner, but not everything it belongs to.
      const partly = await t.http.get(`/api/v4/runners/${runner.id}`).set(as(other));
      expect(partly.status).toBe(200);
      expect('token' in partly.body).toBe(false);
      expect(partly.body.projects.map((project: { id: number }) => project.id)).toEqual([theirs.id]);
      expect((await t.hosting.runners.get(runner.id)).token).toBe(runner.token);
    },
  );

  it('is not there (404) for whoever does not own it; a shared runner is read by any signed-in user (without its token)', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const stranger = await createUser(t.hosting);
    const p = await project(owner);
    await t.hosting.projectMembers.add(p.id, { user_id: developer.id, access_level: 30 });
    const runner = await register(p.token);
    expect(await t.http.get(`/api/v4/runners/${runner.id}`).set(as(developer))).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    expect(await t.http.get(`/api/v4/runners/${runner.id}`).set(as(stranger))).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    await expect(t.hosting.as(stranger.id).runners.get(runner.id)).rejects.toMatchObject({
      constructor: NotFoundError,
      message: '404 Runner Not Found',
    });
    const shared = await register(await registrationToken());
    const read = await t.http.get(`/api/v4/runners/${shared.id}`).set(as(stranger));
    expect([read.status, read.body.is_shared, 'token' in read.body]).toEqual([200, true, false]);
    expect(await t.http.get('/api/v4/runners/2147483647').set(as(stranger))).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    expect(await t.http.get(`/api/v4/runners/${shared.id}`)).toMatchObject({ status: 401 });
    await expect(t.hosting.as(null).runners.get(shared.id)).rejects.toThrow(UnauthorizedError);
  });
});

describe('PUT /runners/:id', () => {
  it('changes what is given; tag_list is the full set of its tags', async () => {
    const owner = await createUser(t.hosting);
    const p = await project(owner);
    const runner = await register(p.token, { tag_list: ['docker', 'linux'] });
    const res = await t.http
      .put(`/api/v4/runners/${runner.id}`)
      .set(as(owner))
      .send({
        description: 'Renamed',
        active: false,
        tag_list: ['ruby', 'linux'],
        run_untagged: false,
        locked: true,
        access_level: 'ref_protected',
        maximum_timeout: 7200,
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: runner.id,
      description: 'Renamed',
      active: false,
      status: 'not_connected',
      tag_list: ['ruby', 'linux'],
      run_untagged: false,
      locked: true,
      access_level: 'ref_protected',
      maximum_timeout: 7200,
      token: runner.token,
    });
    // Comma-separated, as a form sends it; only what is given changes.
    const form = await t.http.put(`/api/v4/runners/${runner.id}`).set(as(owner)).type('form').send('tag_list=a,b&active=true');
    expect(form.body).toMatchObject({ tag_list: ['a', 'b'], active: true, description: 'Renamed', locked: true });
    const inProcess = await t.hosting
      .as(owner.id)
      .runners.update(runner.id, { description: 'In process', run_untagged: true, tag_list: [] });
    expect(inProcess).toMatchObject({ description: 'In process', run_untagged: true, tag_list: [] });
  });

  it(
    "takes later clients' `paused` (the opposite of `active`, " + 'not both) in registration, update and the lists, and answers it',
    async () => {
      const owner = await createUser(t.hosting);
      const p = await project(owner);
      const runner = await register(p.token, { paused: true });
      const shown = await t.http.get(`/api/v4/runners/${runner.id}`).set(as(owner));
      expect([shown.body.active, shown.body.paused]).toEqual([false, true]);
      const other = await register(p.token);
      const listed = async (query: string) =>
        (await t.http.get(`/api/v4/projects/${p.id}/runners?type=project_type&${query}`).set(as(owner))).body.map(
          (item: { id: number; paused: boolean }) => [item.id, item.paused],
        );
      expect(await listed('paused=true')).toEqual([[runner.id, true]]);
      expect(await listed('paused=false')).toEqual([[other.id, false]]);
      expect(await listed('paused=true&scope=active')).toEqual([]);
      const resumed = await t.http.put(`/api/v4/runners/${runner.id}`).set(as(owner)).send({ paused: false });
      expect([resumed.status, resumed.body.active, resumed.body.paused]).toEqual([200, true, false]);
      expect((await t.hosting.as(owner.id).runners.update(runner.id, { paused: true })).active).toBe(false);
      const both = await t.http.put(`/api/v4/runners/${runner.id}`).set(as(owner)).send({ paused: true, active: true });
      expect([both.status, both.body]).toEqual([400, { message: '400 (Bad request) "active, paused" are mutually exclusive' }]);
      const refused = await t.http.post('/api/v4/runners').send({ token: p.token, paused: false, active: false });
      expect(refused.status).toBe(400);
      expect((await t.http.get(`/api/v4/runners/${runner.id}`).set(as(owner))).body.active).toBe(false);
    },
  );

  it('answers 400 without an attribute or with an invalid one, 403 to whoever does not own it, 404 for none', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const p = await project(owner);
    await t.hosting.projectMembers.add(p.id, { user_id: developer.id, access_level: 30 });
    const runner = await register(p.token);
    const put = (body: Record<string, unknown>, user = owner) => t.http.put(`/api/v4/runners/${runner.id}`).set(as(user)).send(body);
    expect(await put({})).toMatchObject({
      status: 400,
      body: {
        message:
          '400 (Bad request) "description, active, paused, tag_list, run_untagged, locked, access_level, maximum_timeout" are missing, ' +
          'at least one parameter must be provided',
      },
    });
    expect(await put({ access_level: 'protected' })).toMatchObject({
      status: 400,
      body: { message: { access_level: ['does not have a valid value'] } },
    });
    expect(await put({ run_untagged: false })).toMatchObject({
      status: 400,
      body: { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } },
    });
    expect(await put({ maximum_timeout: 60 })).toMatchObject({
      status: 400,
      body: { message: { maximum_timeout: ['needs to be at least 10 minutes'] } },
    });
    expect(await put({ active: 'maybe' })).toMatchObject({ status: 400, body: { message: { active: expect.any(Array) } } });
    expect(await put({ description: 'Mine now' }, developer)).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    expect(await t.http.put('/api/v4/runners/2147483647').set(ROOT).send({ active: false })).toMatchObject({
      status: 404,
      body: RUNNER_NOT_FOUND,
    });
    // A shared runner is changed by administrators only.
    const shared = await register(await registrationToken());
    expect(await t.http.put(`/api/v4/runners/${shared.id}`).set(as(owner)).send({ active: false })).toMatchObject({
      status: 403,
      body: NO_ACCESS,
    });
    expect((await t.http.put(`/api/v4/runners/${shared.id}`).set(ROOT).send({ active: false })).body.active).toBe(false);
    expect((await t.hosting.runners.get(runner.id)).description).not.toBe('Mine now');
  });
});

describe('DELETE /runners/:id', () => {
  it('lets its owner remove a runner of one project, and refuses one of several (administrators may)', async () => {
    const owner = await createUser(t.hosting);
    const p = await project(owner);
    const q = await project(owner);
    const single = await register(p.token);
    expect((await t.http.delete(`/api/v4/runners/${single.id}`).set(as(owner))).status).toBe(204);
    expect(await t.http.get(`/api/v4/runners/${single.id}`).set(ROOT)).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    const several = await register(p.token);
    await t.hosting.as(owner.id).projectRunners.enable(q.id, { runner_id: several.id });
    expect(await t.http.delete(`/api/v4/runners/${several.id}`).set(as(owner))).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Runner associated with more than one project' },
    });
    await t.hosting.runners.delete(several.id);
    await expect(t.hosting.runners.get(several.id)).rejects.toThrow(NotFoundError);
    // Its group's owner removes a group runner.
    const g = await group(owner);
    const grouped = await register(g.token);
    await t.hosting.as(owner.id).runners.delete(grouped.id);
    await expect(t.hosting.runners.get(grouped.id)).rejects.toThrow(NotFoundError);
  });

  it('refuses whoever does not own it (a shared runner: all but administrators); 404 for none', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const p = await project(owner);
    await t.hosting.projectMembers.add(p.id, { user_id: developer.id, access_level: 30 });
    const runner = await register(p.token);
    expect(await t.http.delete(`/api/v4/runners/${runner.id}`).set(as(developer))).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    const shared = await register(await registrationToken());
    expect(await t.http.delete(`/api/v4/runners/${shared.id}`).set(as(owner))).toMatchObject({ status: 403, body: NO_ACCESS });
    expect((await t.http.delete(`/api/v4/runners/${shared.id}`).set(ROOT)).status).toBe(204);
    expect(await t.http.delete('/api/v4/runners/2147483647').set(ROOT)).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    expect((await t.hosting.runners.get(runner.id)).id).toBe(runner.id);
  });
});

describe('the runners of a project', () => {
  it('GET lists its own, its groups’ (and those above) and the shared ones while it lets shared runners take its jobs', async () => {
    const owner = await createUser(t.hosting);
    const g = await group(owner);
    const sub = await group(owner, g.id);
    const p = await project(owner, { namespaceId: sub.id });
    const own = await register(p.token);
    const above = await register(g.token);
    const below = await register(sub.token);
    const elsewhere = await register((await project(owner)).token);
    const res = await t.http.get(`/api/v4/projects/${p.id}/runners`).query({ per_page: 100 }).set(as(owner));
    expect(res.status).toBe(200);
    const listed = ids(res.body);
    expect(listed).toEqual(expect.arrayContaining([own.id, above.id, below.id]));
    expect(listed).not.toContain(elsewhere.id);
    expect(res.body.some((runner: { is_shared: boolean }) => runner.is_shared)).toBe(true);
    expect(ids(await t.hosting.as(owner.id).projectRunners.list(p.id, { scope: 'specific' }))).toEqual([below.id, above.id, own.id]);
    expect(ids((await t.http.get(`/api/v4/projects/${p.id}/runners`).query({ type: 'group_type' }).set(as(owner))).body)).toEqual([
      below.id,
      above.id,
    ]);
    expect((await t.hosting.projectRunners.list(p.id, { scope: 'shared' })).every((runner) => runner.is_shared)).toBe(true);
    // Without shared runners, none is listed.
    await t.hosting.as(owner.id).projects.update(p.id, { shared_runners_enabled: false });
    expect(await t.hosting.projectRunners.list(p.id, { scope: 'shared' })).toEqual([]);
    expect(ids(await t.hosting.projectRunners.list(p.id, { per_page: 100 }))).toEqual([below.id, above.id, own.id]);
  });

  it('GET is its maintainers’: 403 for a developer, 404 for whoever may not see the project', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const stranger = await createUser(t.hosting);
    const p = await project(owner);
    await t.hosting.projectMembers.add(p.id, { user_id: developer.id, access_level: 30 });
    expect(await t.http.get(`/api/v4/projects/${p.id}/runners`).set(as(developer))).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.http.get(`/api/v4/projects/${p.id}/runners`).set(as(stranger))).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect(await t.http.get(`/api/v4/projects/${p.id}/runners`).query({ scope: 'all' }).set(as(owner))).toMatchObject({
      status: 400,
      body: { message: { scope: ['does not have a valid value'] } },
    });
    await expect(t.hosting.as(developer.id).projectRunners.list(p.id)).rejects.toThrow(ForbiddenError);
  });

  it('POST enables a runner its owner has in another project: 201 with the runner; 400 when it is enabled already', async () => {
    const owner = await createUser(t.hosting);
    const p = await project(owner);
    const q = await project(owner);
    const runner = await register(p.token);
    const res = await t.http.post(`/api/v4/projects/${q.id}/runners`).set(as(owner)).send({ runner_id: runner.id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: runner.id,
      description: expect.any(String),
      ip_address: expect.stringMatching(/127\.0\.0\.1$/),
      active: true,
      paused: false,
      is_shared: false,
      name: null,
      online: false,
      status: 'not_connected',
    });
    expect((await t.hosting.runners.get(runner.id)).projects.map((project) => project.id)).toEqual([p.id, q.id]);
    expect(ids(await t.hosting.projectRunners.list(q.id, { scope: 'specific' }))).toEqual([runner.id]);
    expect(await t.http.post(`/api/v4/projects/${q.id}/runners`).set(as(owner)).send({ runner_id: runner.id })).toMatchObject({
      status: 400,
      body: { message: { assign_to: ['Validation failed: Runner has already been taken'] } },
    });
    await expect(t.hosting.as(owner.id).projectRunners.enable(p.id, { runner_id: runner.id })).rejects.toThrow(BadRequestError);
    expect(await t.http.post(`/api/v4/projects/${q.id}/runners`).set(as(owner)).send({})).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "runner_id" not given' },
    });
  });

  it('POST refuses a locked runner, a shared one, a group one and one the caller does not own (403); 404 for none', async () => {
    const owner = await createUser(t.hosting);
    const other = await createUser(t.hosting);
    const p = await project(owner);
    const q = await project(owner);
    const enable = (runnerId: number, user: User = owner) =>
      t.http.post(`/api/v4/projects/${q.id}/runners`).set(as(user)).send({ runner_id: runnerId });
    const locked = await register(p.token, { locked: true });
    expect(await enable(locked.id)).toMatchObject({ status: 403, body: { message: '403 Forbidden - Runner is locked' } });
    const shared = await register(await registrationToken());
    expect(await enable(shared.id)).toMatchObject({ status: 403, body: NO_ACCESS });
    const grouped = await register((await group(owner)).token);
    expect(await enable(grouped.id)).toMatchObject({ status: 403, body: { message: '403 Forbidden - Runner is a group runner' } });
    expect(await t.http.post(`/api/v4/projects/${q.id}/runners`).set(ROOT).send({ runner_id: grouped.id })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Runner is a group runner' },
    });
    const foreign = await register((await project(other)).token);
    expect(await enable(foreign.id)).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    expect(await enable(2147483647)).toMatchObject({ status: 404, body: RUNNER_NOT_FOUND });
    // Its maintainers only: `other` may not touch the project at all.
    expect(await enable(locked.id, other)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await t.hosting.projectRunners.list(q.id, { scope: 'specific' })).length).toBe(0);
  });

  it('POST by an administrator enables a locked runner, and a shared one, which becomes the project’s, as in the original', async () => {
    const owner = await createUser(t.hosting);
    const p = await project(owner);
    const q = await project(owner);
    const locked = await register(p.token, { locked: true });
    expect((await t.http.post(`/api/v4/projects/${q.id}/runners`).set(ROOT).send({ runner_id: locked.id })).status).toBe(201);
    const shared = await register(await registrationToken());
    const res = await t.http.post(`/api/v4/projects/${q.id}/runners`).set(ROOT).send({ runner_id: shared.id });
    expect([res.status, res.body.is_shared]).toEqual([201, false]);
    expect(await t.hosting.runners.get(shared.id)).toMatchObject({
      runner_type: 'project_type',
      projects: [expect.objectContaining({ id: q.id })],
    });
  });

  it(
    'DELETE disables a runner in the project while it has another one (204); its only project is refused (403); ' +
      '404 when it is not enabled there',
    async () => {
      const owner = await createUser(t.hosting);
      const developer = await createUser(t.hosting);
      const p = await project(owner);
      const q = await project(owner);
      await t.hosting.projectMembers.add(q.id, { user_id: developer.id, access_level: 30 });
      const runner = await register(p.token);
      await t.hosting.as(owner.id).projectRunners.enable(q.id, { runner_id: runner.id });
      expect(await t.http.delete(`/api/v4/projects/${q.id}/runners/${runner.id}`).set(as(developer))).toMatchObject({
        status: 403,
        body: FORBIDDEN,
      });
      expect((await t.http.delete(`/api/v4/projects/${q.id}/runners/${runner.id}`).set(as(owner))).status).toBe(204);
      expect((await t.hosting.runners.get(runner.id)).projects.map((project) => project.id)).toEqual([p.id]);
      expect(await t.http.delete(`/api/v4/projects/${q.id}/runners/${runner.id}`).set(as(owner))).toMatchObject({
        status: 404,
        body: RUNNER_NOT_FOUND,
      });
      expect(await t.http.delete(`/api/v4/projects/${p.id}/runners/${runner.id}`).set(as(owner))).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden - Only one project associated with the runner. Please remove the runner instead' },
      });
      await expect(t.hosting.projectRunners.disable(p.id, runner.id)).rejects.toThrow(ForbiddenError);
      await t.hosting.as(owner.id).projectRunners.enable(q.id, { runner_id: runner.id });
      await t.hosting.as(owner.id).projectRunners.disable(p.id, runner.id);
      expect((await t.hosting.runners.get(runner.id)).projects.map((project) => project.id)).toEqual([q.id]);
      expect(await t.http.delete(`/api/v4/projects/${q.id}/runners/2147483647`).set(as(owner))).toMatchObject({
        status: 404,
        body: RUNNER_NOT_FOUND,
      });
    },
  );
});

describe('statements', () => {
  /** `count` runners of the project (inserted directly: registering each would only be slower). */
  async function manyRunners(projectId: number, count: number): Promise<void> {
    const stem = unique('bulk');
    await queryRows(
      t.db.rows,
      sql`with made as (insert into "runners" ("token_digest", "token_sealed", "runner_type", "tag_list", "contacted_at", "created_at",
        "updated_at")
          select md5(${stem} || i) || md5(i || ${stem}), 'v1:unused', 'project_type', '{docker}', now(), now(), now()
            from generate_series(1, ${count}) i returning "id")
        insert into "runner_projects" ("runner_id", "project_id", "created_at") select "id", ${projectId}, now() from made`,
    );
  }

  it('a page of 100 costs what a page of 2 does, for the caller’s, every and a project’s runners', async () => {
    const owner = await createUser(t.hosting);
    const p = await project(owner);
    await manyRunners(p.id, 105);
    const pages = [
      ['/api/v4/runners', as(owner)],
      ['/api/v4/runners/all', ROOT],
      [`/api/v4/projects/${p.id}/runners`, as(owner)],
    ] as const;
    for (const [url, headers] of pages) {
      // Once first: the caller's token is then kept (src/auth/caller.ts), as for every call after a client's first.
      await t.http.get(url).set(headers);
      const few = await queriesOf(t.db, () => t.http.get(url).query({ per_page: 2, scope: 'online', tag_list: 'docker' }).set(headers));
      let page: { body: unknown[]; headers: Record<string, string> } | undefined;
      const many = await queriesOf(t.db, async () => {
        page = await t.http.get(url).query({ per_page: 100, scope: 'online', tag_list: 'docker' }).set(headers);
      });
      expect(page!.body.length, url).toBe(100);
      expect(Number(page!.headers['x-total']), url).toBeGreaterThanOrEqual(105);
      expect(many.length, url).toBe(few.length);
    }
  });
});
