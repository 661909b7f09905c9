import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { createUser, linkHeader, pageHeaders, queriesOf, ROOT_TOKEN, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
let storage: string;
beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
/** A path no other test takes. */
const unique = (stem: string) => `${stem}-${process.pid}-${(counter += 1)}`;

type User = Awaited<ReturnType<typeof createUser>>;

async function createGroup(owner: User | null, input: { name?: string; path?: string; visibility?: string; parent_id?: number } = {}) {
  const path = input.path ?? unique('group');
  const as = owner ? t.hosting.as(owner.id) : t.hosting;
  return as.groups.create({
    name: input.name ?? path,
    path,
    visibility: (input.visibility ?? 'private') as 'private',
    ...(input.parent_id ? { parent_id: input.parent_id } : {}),
  });
}

describe('POST /groups', () => {
  it('creates a group whose creator is its owner, with the default visibility of the settings', async () => {
    const alice = await createUser(t.hosting);
    await t.hosting.applicationSettings.update({ default_group_visibility: 'internal' });
    const path = unique('Team');
    const res = await t.http.post('/api/v4/groups').set('PRIVATE-TOKEN', alice.token).send({ name: 'The Team', path, description: 'We' });
    await t.hosting.applicationSettings.update({ default_group_visibility: 'private' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'The Team',
      path,
      description: 'We',
      visibility: 'internal',
      lfs_enabled: true,
      avatar_url: null,
      web_url: `http://forge.test/groups/${path}`,
      request_access_enabled: false,
      full_name: 'The Team',
      full_path: path,
      parent_id: null,
      // Its owner sees the token that registers its runners (test/runners.test.ts).
      runners_token: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
      projects: [],
      shared_projects: [],
      shared_with_groups: [],
    });
    const members = await t.http.get(`/api/v4/groups/${res.body.id}/members`).set('PRIVATE-TOKEN', alice.token);
    expect(members.body).toEqual([expect.objectContaining({ id: alice.id, username: alice.username, access_level: 50, expires_at: null })]);
  });

  it('makes subgroups for owners of the parent, with full names and paths, no more open than the parent', async () => {
    const owner = await createUser(t.hosting);
    const outsider = await createUser(t.hosting);
    const parent = await createGroup(owner, { name: 'Parent', visibility: 'internal' });
    const res = await t.http
      .post('/api/v4/groups')
      .set('PRIVATE-TOKEN', owner.token)
      .send({ name: 'Child', path: 'child', parent_id: parent.id, visibility: 'internal' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      parent_id: parent.id,
      full_path: `${parent.path}/child`,
      full_name: 'Parent / Child',
      web_url: `http://forge.test/groups/${parent.path}/child`,
    });
    // A subgroup's path may be what is reserved at the top level.
    const api = await t.hosting.as(owner.id).groups.create({ name: 'Api', path: 'api', parent_id: parent.id, visibility: 'private' });
    expect(api.full_path).toBe(`${parent.path}/api`);

    const open = await t.http
      .post('/api/v4/groups')
      .set('PRIVATE-TOKEN', owner.token)
      .send({ name: 'Open', path: 'open', parent_id: parent.id, visibility: 'public' });
    expect([open.status, open.body]).toEqual([
      400,
      { message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] } },
    ]);
    // The parent is internal, so the outsider sees it, but does not own it.
    const refused = await t.http
      .post('/api/v4/groups')
      .set('PRIVATE-TOKEN', outsider.token)
      .send({ name: 'Mine', path: 'mine', parent_id: parent.id });
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }]);
    const hidden = await createGroup(owner);
    const notFound = await t.http
      .post('/api/v4/groups')
      .set('PRIVATE-TOKEN', outsider.token)
      .send({ name: 'Mine', path: 'mine', parent_id: hidden.id });
    expect([notFound.status, notFound.body]).toEqual([404, { message: '404 Group Not Found' }]);
  });

  it('answers 400 for invalid, reserved and taken names and paths (paths in any case, users’ included)', async () => {
    const owner = await createUser(t.hosting);
    const post = (body: object) => t.http.post('/api/v4/groups').set('PRIVATE-TOKEN', owner.token).send(body);
    const taken = await createGroup(owner, { name: unique('Taken') });
    expect((await post({ name: 'x', path: 'bad path' })).body).toEqual({
      message: { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."] },
    });
    expect((await post({ name: 'x', path: 'Admin' })).body).toEqual({ message: { path: ['Admin is a reserved name'] } });
    expect((await post({ name: '-x', path: unique('ok') })).body).toEqual({
      message: {
        name: [
          "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.",
        ],
      },
    });
    const clash = await post({ name: taken.name, path: taken.path.toUpperCase() });
    expect([clash.status, clash.body]).toEqual([400, { message: { name: ['has already been taken'], path: ['has already been taken'] } }]);
    expect((await post({ name: 'Someone', path: owner.username })).body).toEqual({ message: { path: ['has already been taken'] } });
    expect((await post({ path: 'x' })).body).toEqual({ message: '400 (Bad request) "name" not given' });
  });

  it('is refused (403) to users who may not create groups, and restricted levels to all but administrators', async () => {
    const cannot = await createUser(t.hosting, { can_create_group: false });
    const res = await t.http
      .post('/api/v4/groups')
      .set('PRIVATE-TOKEN', cannot.token)
      .send({ name: 'No', path: unique('no') });
    expect([res.status, res.body]).toEqual([403, { message: '403 Forbidden' }]);
    const can = await createUser(t.hosting);
    await t.hosting.applicationSettings.update({ restricted_visibility_levels: ['public'] });
    try {
      const restricted = await t.http
        .post('/api/v4/groups')
        .set('PRIVATE-TOKEN', can.token)
        .send({ name: 'Pub', path: unique('pub'), visibility: 'public' });
      expect([restricted.status, restricted.body]).toEqual([
        400,
        { message: { visibility_level: ['public has been restricted by your GitLab administrator'] } },
      ]);
      const admin = await t.http
        .post('/api/v4/groups')
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({ name: 'Pub', path: unique('pub'), visibility: 'public' });
      expect(admin.status).toBe(201);
    } finally {
      await t.hosting.applicationSettings.update({ restricted_visibility_levels: [] });
    }
  });
});

describe('GET /groups', () => {
  const ids = (body: { id: number }[]) => body.map((group) => group.id);

  it('lists the groups a user reaches by membership; all_available adds the public and internal ones', async () => {
    const owner = await createUser(t.hosting);
    const member = await createUser(t.hosting);
    const word = unique('reach');
    const top = await createGroup(owner, { path: `${word}-top` });
    const middle = await createGroup(owner, { path: `${word}-middle`, parent_id: top.id });
    const bottom = await createGroup(owner, { path: `${word}-bottom`, parent_id: middle.id });
    const beside = await createGroup(owner, { path: `${word}-beside` });
    const open = await createGroup(owner, { path: `${word}-open`, visibility: 'internal' });
    const withProject = await createGroup(owner, { path: `${word}-project` });
    await t.hosting.groupMembers.add(middle.id, { user_id: member.id, access_level: 10 });
    const project = await t.hosting.as(owner.id).projects.create({ name: 'inside', namespace_id: withProject.id });
    await t.hosting.projectMembers.add(project.id, { user_id: member.id, access_level: 20 });

    const get = (query: object, token = member.token) =>
      t.http
        .get('/api/v4/groups')
        .query({ search: word, order_by: 'id', ...query })
        .set('PRIVATE-TOKEN', token);
    // The group above its group, its group, the one below, and the group of a project it is a member of.
    expect(ids((await get({})).body)).toEqual([top.id, middle.id, bottom.id, withProject.id]);
    expect(ids((await get({ all_available: true })).body)).toEqual([top.id, middle.id, bottom.id, open.id, withProject.id]);
    expect(ids((await get({ owned: true })).body)).toEqual([]);
    expect(ids((await get({ owned: true }, owner.token)).body)).toEqual([top.id, middle.id, bottom.id, beside.id, open.id, withProject.id]);
    expect(ids((await get({ skip_groups: [middle.id, bottom.id] })).body)).toEqual([top.id, withProject.id]);
    // Administrators see every group unless they ask for their own only.
    expect(ids((await get({}, ROOT_TOKEN)).body)).toEqual([top.id, middle.id, bottom.id, beside.id, open.id, withProject.id]);
    expect(ids((await get({ all_available: false }, ROOT_TOKEN)).body)).toEqual([]);
    const external = await createUser(t.hosting, { external: true });
    expect(ids((await get({ all_available: true }, external.token)).body)).toEqual([]);
  });

  it('shows anonymous callers the public groups only', async () => {
    const owner = await createUser(t.hosting);
    const word = unique('anon');
    const open = await createGroup(owner, { path: `${word}-public`, visibility: 'public' });
    await createGroup(owner, { path: `${word}-internal`, visibility: 'internal' });
    const res = await t.http.get('/api/v4/groups').query({ search: word });
    expect([res.status, ids(res.body)]).toEqual([200, [open.id]]);
  });

  it('orders by name (default), path or ID, either way, searches names and paths, and pages with headers', async () => {
    const owner = await createUser(t.hosting);
    const word = unique('order');
    const b = await createGroup(owner, { path: `${word}-a`, name: `${word} B` });
    const a = await createGroup(owner, { path: `${word}-b`, name: `${word} A` });
    const c = await createGroup(owner, { path: `${word}-c`, name: `${word} C` });
    const get = (query: object) =>
      t.http
        .get('/api/v4/groups')
        .query({ search: word, ...query })
        .set('PRIVATE-TOKEN', owner.token);
    expect(ids((await get({})).body)).toEqual([a.id, b.id, c.id]);
    expect(ids((await get({ order_by: 'path' })).body)).toEqual([b.id, a.id, c.id]);
    expect(ids((await get({ order_by: 'id', sort: 'desc' })).body)).toEqual([c.id, a.id, b.id]);
    expect(ids((await get({ search: `${word}-c` })).body)).toEqual([c.id]);
    const page = await get({ per_page: 1, page: 2 });
    expect(ids(page.body)).toEqual([b.id]);
    expect(pageHeaders(page.headers)).toEqual({ total: 3, totalPages: 3, perPage: 1, page: 2, nextPage: 3, prevPage: 1 });
    expect(Object.keys(linkHeader(page.headers.link)).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect((await get({ order_by: 'size' })).status).toBe(400);
  });

  it("gives administrators each group's statistics when asked, and no one else", async () => {
    const owner = await createUser(t.hosting);
    const group = await createGroup(owner);
    await t.hosting.as(owner.id).projects.create({ name: 'measured', namespace_id: group.id });
    const admin = await t.http.get('/api/v4/groups').query({ search: group.path, statistics: true }).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(admin.body[0].statistics).toEqual({
      storage_size: expect.any(Number),
      repository_size: expect.any(Number),
      lfs_objects_size: 0,
      job_artifacts_size: 0,
    });
    expect(admin.body[0].statistics.repository_size).toBeGreaterThan(0);
    const user = await t.http.get('/api/v4/groups').query({ search: group.path, statistics: true }).set('PRIVATE-TOKEN', owner.token);
    expect(user.body[0]).not.toHaveProperty('statistics');
  });

  it('runs as many queries for a page of 3 groups as for 30', async () => {
    const owner = await createUser(t.hosting);
    const page = () => t.http.get('/api/v4/groups').query({ owned: true, per_page: 100 }).set('PRIVATE-TOKEN', owner.token);
    for (let index = 0; index < 3; index++) await createGroup(owner);
    await page();
    const few = await queriesOf(t.db, page);
    for (let index = 3; index < 30; index++) await createGroup(owner);
    await page();
    const many = await queriesOf(t.db, page);
    expect((await page()).body).toHaveLength(30);
    expect(many.length).toBe(few.length);
  });
});

describe('GET /groups/:id/subgroups', () => {
  it('lists the subgroups the caller may see, with the list filters', async () => {
    const owner = await createUser(t.hosting);
    const other = await createUser(t.hosting);
    const parent = await createGroup(owner, { visibility: 'public' });
    const open = await createGroup(owner, { path: 'b-open', parent_id: parent.id, visibility: 'public' });
    const closed = await createGroup(owner, { path: 'a-closed', parent_id: parent.id, visibility: 'private' });
    await createGroup(owner, { parent_id: open.id, visibility: 'public' });
    const get = (query: object, token?: string) => {
      const request = t.http.get(`/api/v4/groups/${parent.id}/subgroups`).query(query);
      return token ? request.set('PRIVATE-TOKEN', token) : request;
    };
    const ids = (res: { body: { id: number }[] }) => res.body.map((group) => group.id);
    expect(ids(await get({ order_by: 'path' }, owner.token))).toEqual([closed.id, open.id]);
    expect(ids(await get({}, other.token))).toEqual([open.id]);
    expect(ids(await get({}))).toEqual([open.id]);
    expect(ids(await get({ search: 'closed' }, owner.token))).toEqual([closed.id]);
    expect((await t.http.get(`/api/v4/groups/${closed.id}/subgroups`).set('PRIVATE-TOKEN', other.token)).status).toBe(404);
  });
});

describe('GET /groups/:id', () => {
  it('answers by ID or full path, with its projects and those shared with it, each with shared_with_groups', async () => {
    const owner = await createUser(t.hosting);
    const parent = await createGroup(owner, { visibility: 'public' });
    const group = await createGroup(owner, { path: 'inner', name: 'Inner', parent_id: parent.id, visibility: 'public' });
    const own = await t.hosting.as(owner.id).projects.create({ name: 'own', namespace_id: group.id, visibility: 'public' });
    const elsewhere = await t.hosting.as(owner.id).projects.create({ name: unique('elsewhere'), visibility: 'public' });
    await t.hosting.projects.share(elsewhere.id, { group_id: group.id, group_access: 20 });
    const hidden = await t.hosting.as(owner.id).projects.create({ name: unique('hidden'), visibility: 'private' });
    await t.hosting.projects.share(hidden.id, { group_id: group.id, group_access: 20 });

    const byPath = await t.http.get(`/api/v4/groups/${encodeURIComponent(`${parent.path}/inner`)}`);
    expect(byPath.status).toBe(200);
    expect(byPath.body).toMatchObject({ id: group.id, full_path: `${parent.path}/inner`, full_name: `${parent.name} / Inner` });
    // Anonymous: the private project shared with it is not there.
    expect(byPath.body.projects.map((project: { id: number }) => project.id)).toEqual([own.id]);
    expect(byPath.body.shared_projects.map((project: { id: number }) => project.id)).toEqual([elsewhere.id]);
    expect(byPath.body.shared_projects[0].shared_with_groups).toEqual([
      { group_id: group.id, group_name: `${parent.name} / Inner`, group_access_level: 20 },
    ]);
    const member = await t.http.get(`/api/v4/groups/${group.id}`).set('PRIVATE-TOKEN', owner.token);
    expect(member.body.shared_projects.map((project: { id: number }) => project.id).sort()).toEqual([elsewhere.id, hidden.id].sort());
  });

  it('answers 404 for a private group to anyone but its members and administrators', async () => {
    const owner = await createUser(t.hosting);
    const other = await createUser(t.hosting);
    const group = await createGroup(owner);
    for (const token of [undefined, other.token]) {
      const request = t.http.get(`/api/v4/groups/${group.id}`);
      const res = await (token ? request.set('PRIVATE-TOKEN', token) : request);
      expect([res.status, res.body]).toEqual([404, { message: '404 Group Not Found' }]);
    }
    expect((await t.http.get(`/api/v4/groups/${group.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(200);
    expect((await t.http.get('/api/v4/groups/2147483647').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
  });
});

describe('GET /groups/:id/projects', () => {
  it("lists its projects and those shared with it that the caller may see, with the project list's filters", async () => {
    const owner = await createUser(t.hosting);
    const group = await createGroup(owner, { visibility: 'public' });
    const sub = await createGroup(owner, { parent_id: group.id, visibility: 'public' });
    const as = t.hosting.as(owner.id);
    const alpha = await as.projects.create({ name: 'alpha', namespace_id: group.id, visibility: 'public' });
    const beta = await as.projects.create({ name: 'beta', namespace_id: group.id, visibility: 'private' });
    const deep = await as.projects.create({ name: 'deep', namespace_id: sub.id, visibility: 'public' });
    const shared = await as.projects.create({ name: unique('shared'), visibility: 'public' });
    await t.hosting.projects.share(shared.id, { group_id: group.id, group_access: 30 });

    const get = (query: object, token?: string) => {
      const request = t.http.get(`/api/v4/groups/${group.id}/projects`).query({ order_by: 'id', sort: 'asc', ...query });
      return token ? request.set('PRIVATE-TOKEN', token) : request;
    };
    const ids = (res: { body: { id: number }[] }) => res.body.map((project) => project.id);
    expect(ids(await get({}, owner.token))).toEqual([alpha.id, beta.id, shared.id]);
    expect(ids(await get({}))).toEqual([alpha.id, shared.id]);
    expect(ids(await get({ with_shared: false }, owner.token))).toEqual([alpha.id, beta.id]);
    expect(ids(await get({ include_subgroups: true, with_shared: false }, owner.token))).toEqual([alpha.id, beta.id, deep.id]);
    expect(ids(await get({ visibility: 'private' }, owner.token))).toEqual([beta.id]);
    expect(ids(await get({ search: 'alp' }, owner.token))).toEqual([alpha.id]);
    const simple = await get({ simple: true, search: 'alpha' });
    expect(Object.keys(simple.body[0])).not.toContain('permissions');
    const page = await get({ per_page: 2 }, owner.token);
    expect(pageHeaders(page.headers)).toMatchObject({ total: 3, totalPages: 2, nextPage: 2 });
  });
});

describe('PUT /groups/:id', () => {
  it('renames a group for its owners: its subgroups and projects follow', async () => {
    const owner = await createUser(t.hosting);
    const group = await createGroup(owner, { name: 'Old' });
    const sub = await createGroup(owner, { path: 'sub', name: 'Sub', parent_id: group.id });
    const project = await t.hosting.as(owner.id).projects.create({ name: 'proj', namespace_id: sub.id });
    const path = unique('renamed');
    const res = await t.http
      .put(`/api/v4/groups/${group.id}`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ name: 'New', path, description: 'Changed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New', path, full_path: path, full_name: 'New', description: 'Changed', projects: [] });
    expect(await t.hosting.groups.get(sub.id)).toMatchObject({ full_path: `${path}/sub`, full_name: 'New / Sub' });
    expect(await t.hosting.projects.get(project.id)).toMatchObject({
      path_with_namespace: `${path}/sub/proj`,
      name_with_namespace: 'New / Sub / proj',
    });
    expect((await t.http.get(`/api/v4/groups/${encodeURIComponent(`${path}/sub`)}`).set('PRIVATE-TOKEN', owner.token)).body.id).toBe(
      sub.id,
    );
  });

  it(
    'is 403 to maintainers, 404 to those who may not see it, ' + 'and 400 with nothing to change or a visibility its contents exceed',
    async () => {
      const owner = await createUser(t.hosting);
      const maintainer = await createUser(t.hosting);
      const stranger = await createUser(t.hosting);
      const group = await createGroup(owner, { visibility: 'public' });
      await t.hosting.groupMembers.add(group.id, { user_id: maintainer.id, access_level: 40 });
      await t.hosting.as(owner.id).projects.create({ name: 'open', namespace_id: group.id, visibility: 'internal' });
      const put = (token: string, body: object) => t.http.put(`/api/v4/groups/${group.id}`).set('PRIVATE-TOKEN', token).send(body);
      expect((await put(maintainer.token, { description: 'x' })).status).toBe(403);
      const privateGroup = await createGroup(owner);
      const hidden = await t.http.put(`/api/v4/groups/${privateGroup.id}`).set('PRIVATE-TOKEN', stranger.token).send({ description: 'x' });
      expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Group Not Found' }]);
      expect((await put(owner.token, {})).body).toEqual({ message: '400 (Bad request) at least one parameter must be provided' });
      const closed = await put(owner.token, { visibility: 'private' });
      expect([closed.status, closed.body]).toEqual([
        400,
        { message: { visibility_level: ['private is not allowed since this group contains projects with higher visibility.'] } },
      ]);
    },
  );
});

describe('DELETE /groups/:id', () => {
  it('removes the group, its subgroups and their projects with their repositories (owners only)', async () => {
    const owner = await createUser(t.hosting);
    const maintainer = await createUser(t.hosting);
    const group = await createGroup(owner);
    const sub = await createGroup(owner, { parent_id: group.id });
    const project = await t.hosting.as(owner.id).projects.create({ name: 'gone', namespace_id: sub.id });
    await t.hosting.groupMembers.add(group.id, { user_id: maintainer.id, access_level: 40 });
    const repository = join(storage, RepositoryStore.relativePath(project.id));
    expect(existsSync(repository)).toBe(true);
    expect((await t.http.delete(`/api/v4/groups/${group.id}`).set('PRIVATE-TOKEN', maintainer.token)).status).toBe(403);
    const res = await t.http.delete(`/api/v4/groups/${group.id}`).set('PRIVATE-TOKEN', owner.token);
    expect([res.status, res.body]).toEqual([202, { message: '202 Accepted' }]);
    for (const path of [`/api/v4/groups/${group.id}`, `/api/v4/groups/${sub.id}`, `/api/v4/projects/${project.id}`]) {
      expect((await t.http.get(path).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
    }
    expect(existsSync(repository)).toBe(false);
  });
});

describe('moving projects', () => {
  it('POST /groups/:id/projects/:project_id moves a project into a group (administrators)', async () => {
    const owner = await createUser(t.hosting);
    const group = await createGroup(owner, { visibility: 'internal' });
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('moving'), visibility: 'public' });
    expect((await t.http.post(`/api/v4/groups/${group.id}/projects/${project.id}`).set('PRIVATE-TOKEN', owner.token)).status).toBe(403);
    const res = await t.http.post(`/api/v4/groups/${group.id}/projects/${project.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(201);
    expect(res.body.projects.map((moved: { id: number }) => moved.id)).toEqual([project.id]);
    // No more open than the group it moved into.
    expect(await t.hosting.projects.get(project.id)).toMatchObject({
      path_with_namespace: `${group.path}/${project.path}`,
      visibility: 'internal',
      namespace: { id: group.id, kind: 'group' },
    });
    const again = await t.http.post(`/api/v4/groups/${group.id}/projects/${project.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([again.status, again.body]).toEqual([
      400,
      { message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}' },
    ]);
    expect((await t.http.post(`/api/v4/groups/${group.id}/projects/2147483647`).set('PRIVATE-TOKEN', ROOT_TOKEN)).body).toEqual({
      message: '404 Project Not Found',
    });
  });

  it('PUT /projects/:id/transfer moves a project to a namespace its owner may create projects in', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const mine = await createGroup(owner);
    const foreign = await createGroup(null, { visibility: 'internal' });
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('travel') });
    await t.hosting.projectMembers.add(project.id, { user_id: developer.id, access_level: 40 });
    const transfer = (token: string, namespace: number | string) =>
      t.http.put(`/api/v4/projects/${project.id}/transfer`).set('PRIVATE-TOKEN', token).send({ namespace });

    expect((await transfer(developer.token, mine.id)).status).toBe(403);
    const res = await transfer(owner.token, mine.path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: project.id,
      namespace: { id: mine.id, kind: 'group' },
      path_with_namespace: `${mine.path}/${project.path}`,
      owner: null,
    });
    expect((await transfer(owner.token, foreign.id)).body).toEqual({
      message: 'Failed to transfer project {:new_namespace=>["Transfer failed, please contact an admin."]}',
    });
    expect((await transfer(owner.token, 2147483647)).body).toEqual({ message: '404 Namespace Not Found' });
    // Back home, where a project of the same path now stands in the way.
    const back = await transfer(owner.token, owner.username);
    expect(back.status).toBe(200);
    await t.hosting.as(owner.id).projects.create({ name: project.name, namespace_id: mine.id });
    const blocked = await t.http
      .put(`/api/v4/projects/${project.id}/transfer`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ namespace: mine.id });
    expect(blocked.body).toEqual({
      message: 'Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}',
    });
  });
});

describe('sharing projects with groups', () => {
  it("POST /projects/:id/share gives the group's members up to group_access; DELETE takes it back", async () => {
    const owner = await createUser(t.hosting);
    const reader = await createUser(t.hosting);
    // Groups the project's owner sees without being a member.
    const group = await createGroup(null, { visibility: 'internal' });
    const sub = await createGroup(null, { parent_id: group.id, visibility: 'internal' });
    await t.hosting.groupMembers.add(group.id, { user_id: reader.id, access_level: 50 });
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('shared') });
    expect((await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', reader.token)).status).toBe(404);

    const res = await t.http
      .post(`/api/v4/projects/${project.id}/share`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ group_id: group.id, group_access: 20, expires_at: '2099-01-31' });
    expect([res.status, res.body]).toEqual([
      201,
      { id: expect.any(Number), project_id: project.id, group_id: group.id, group_access: 20, expires_at: '2099-01-31' },
    ]);
    const seen = await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', reader.token);
    expect(seen.status).toBe(200);
    expect(seen.body.shared_with_groups).toEqual([{ group_id: group.id, group_name: group.name, group_access_level: 20 }]);
    // An owner of the group gets no more than the share gives: reporters may not change the project.
    expect((await t.http.put(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', reader.token).send({ description: 'x' })).status).toBe(
      403,
    );

    const share = (body: object) => t.http.post(`/api/v4/projects/${project.id}/share`).set('PRIVATE-TOKEN', owner.token).send(body);
    expect((await share({ group_id: group.id, group_access: 30 })).body).toEqual({ message: 'Group already shared with this group' });
    expect((await share({ group_id: sub.id, group_access: 50 })).body).toEqual({
      message: { group_access: ['does not have a valid value'] },
    });
    expect((await share({ group_id: 2147483647, group_access: 30 })).body).toEqual({ message: '404 Group Not Found' });
    expect((await share({ group_id: sub.id, group_access: 30, expires_at: '2001-01-01' })).body).toEqual({
      message: { expires_at: ['cannot be a date in the past'] },
    });
    expect((await share({ group_access: 30 })).body).toEqual({ message: '400 (Bad request) "group_id" not given' });

    const removed = await t.http.delete(`/api/v4/projects/${project.id}/share/${group.id}`).set('PRIVATE-TOKEN', owner.token);
    expect(removed.status).toBe(204);
    expect((await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', reader.token)).status).toBe(404);
    const again = await t.http.delete(`/api/v4/projects/${project.id}/share/${group.id}`).set('PRIVATE-TOKEN', owner.token);
    expect([again.status, again.body]).toEqual([404, { message: '404 Group Link Not Found' }]);
  });

  it('refuses (409) to share a project with its own group or a group above it', async () => {
    const owner = await createUser(t.hosting);
    const top = await createGroup(owner);
    const group = await createGroup(owner, { parent_id: top.id });
    const project = await t.hosting.as(owner.id).projects.create({ name: 'inside', namespace_id: group.id });
    for (const target of [group.id, top.id]) {
      const res = await t.http
        .post(`/api/v4/projects/${project.id}/share`)
        .set('PRIVATE-TOKEN', owner.token)
        .send({ group_id: target, group_access: 30 });
      expect([res.status, res.body]).toEqual([
        409,
        { message: 'Project cannot be shared with the group it is in or one of its ancestors.' },
      ]);
    }
  });
});

describe('projects in groups', () => {
  it('are no more open than their group, and made by its maintainers', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const group = await createGroup(owner, { visibility: 'internal' });
    await t.hosting.groupMembers.add(group.id, { user_id: developer.id, access_level: 30 });
    const open = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', owner.token)
      .send({ name: 'open', namespace_id: group.id, visibility: 'public' });
    expect([open.status, open.body]).toEqual([400, { message: { visibility_level: ['public is not allowed in a internal group.'] } }]);
    const byDeveloper = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', developer.token)
      .send({ name: 'mine', namespace_id: group.id });
    expect([byDeveloper.status, byDeveloper.body]).toEqual([400, { message: { namespace: ['is not valid'] } }]);
  });
});
