/**
 * Groups shared with groups (POST/DELETE /groups/:id/share, and the access it gives), a group's descendant groups,
 * the projects shared with a group, a project's groups, and whether a namespace path is taken
 * (GET /namespaces/:namespace/exists): the routes later clients call beside the specification's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/errors.js';
import { cleanPath } from '../src/services/projects/namespaces.js';
import { createUser, pageHeaders, queriesOf, ROOT_TOKEN, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
/** A path no other test takes. */
const unique = (stem: string) => `${stem}-${process.pid}-${(counter += 1)}`;

type User = Awaited<ReturnType<typeof createUser>>;

async function createGroup(owner: User, input: { path?: string; visibility?: 'private' | 'internal' | 'public'; parent_id?: number } = {}) {
  const path = input.path ?? unique('g');
  return t.hosting.as(owner.id).groups.create({
    name: path,
    path,
    visibility: input.visibility ?? 'private',
    ...(input.parent_id ? { parent_id: input.parent_id } : {}),
  });
}

const get = (url: string, user?: User) => {
  const request = t.http.get(`/api/v4${url}`);
  return user ? request.set('PRIVATE-TOKEN', user.token) : request;
};

describe('POST /groups/:id/share', () => {
  it("gives the other group's members the shared group, its subgroups and their projects, up to group_access", async () => {
    const owner = await createUser(t.hosting);
    const member = await createUser(t.hosting);
    const shared = await createGroup(owner);
    const inner = await createGroup(owner, { parent_id: shared.id });
    // The group shared with: one the sharing owner may see.
    const other = await createGroup(member, { visibility: 'internal' });
    const project = await t.hosting
      .as(owner.id)
      .projects.create({ name: unique('p'), namespace_id: shared.id, initialize_with_readme: true });
    const deep = await t.hosting.as(owner.id).projects.create({ name: unique('deep'), namespace_id: inner.id });
    // Before the share the member sees none of it.
    expect((await get(`/projects/${project.id}`, member)).status).toBe(404);
    expect((await get(`/groups/${shared.id}`, member)).status).toBe(404);

    const res = await t.http
      .post(`/api/v4/groups/${shared.id}/share`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ group_id: other.id, group_access: 30, expires_at: '2099-12-31' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: shared.id, full_path: shared.full_path, projects: [expect.objectContaining({ id: project.id })] });
    expect(res.body.shared_with_groups).toEqual([
      { group_id: other.id, group_name: other.name, group_full_path: other.full_path, group_access_level: 30, expires_at: '2099-12-31' },
    ]);
    expect((await get(`/groups/${shared.id}`, owner)).body.shared_with_groups).toEqual(res.body.shared_with_groups);

    // The member (an owner of its own group) reaches it all as a developer: the share's level caps its own.
    for (const id of [project.id, deep.id]) {
      const seen = await get(`/projects/${id}`, member);
      expect([seen.status, seen.body.permissions]).toEqual([200, { project_access: null, group_access: null }]);
    }
    expect((await get(`/groups/${shared.id}`, member)).status).toBe(200);
    expect((await get(`/groups/${inner.id}`, member)).status).toBe(200);
    const listed = await get('/projects?membership=true&per_page=100', member);
    expect(listed.body.map((p: { id: number }) => p.id).sort()).toEqual([project.id, deep.id].sort());
    const groups = await get('/groups?per_page=100', member);
    expect(groups.body.map((g: { id: number }) => g.id).sort()).toEqual([shared.id, inner.id, other.id].sort());
    // A developer pushes a branch of its own (master is protected); only maintainers change the project.
    const body = {
      branch: 'topic',
      start_branch: 'master',
      commit_message: 'Shared',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
    };
    expect(
      (await t.http.post(`/api/v4/projects/${project.id}/repository/commits`).set('PRIVATE-TOKEN', member.token).send(body)).status,
    ).toBe(201);
    const master = await t.http
      .post(`/api/v4/projects/${project.id}/repository/commits`)
      .set('PRIVATE-TOKEN', member.token)
      .send({ ...body, branch: 'master', start_branch: undefined });
    expect([master.status, master.body]).toEqual([400, { message: 'You are not allowed to push into this branch' }]);
    expect((await t.http.put(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', member.token).send({ description: 'no' })).status).toBe(
      403,
    );
    // The users with access to the project count it too.
    const users = await get(`/projects/${project.id}/users?per_page=100`, owner);
    expect(users.body.map((user: { id: number }) => user.id)).toContain(member.id);

    // In process, the same call and errors.
    const again = t.hosting.as(owner.id).groups.share(shared.id, { group_id: other.id, group_access: 20 });
    await expect(again).rejects.toMatchObject({ status: 409, message: 'Shared group The group has already been shared with this group' });
  });

  it(
    'answers 400 for a level or a day it does not take, 404 for a group the caller may not see or whose members it may not administer, ' +
      '409 for a share that exists',
    async () => {
      const owner = await createUser(t.hosting);
      const developer = await createUser(t.hosting);
      const stranger = await createUser(t.hosting);
      const shared = await createGroup(owner);
      const other = await createGroup(owner, { visibility: 'internal' });
      const hidden = await createGroup(stranger);
      await t.hosting.groupMembers.add(shared.id, { user_id: developer.id, access_level: 30 });
      const share = (user: User, body: Record<string, unknown>, id: number = shared.id) =>
        t.http.post(`/api/v4/groups/${id}/share`).set('PRIVATE-TOKEN', user.token).send(body);

      expect([
        (await share(owner, { group_id: other.id, group_access: 35 })).status,
        (await share(owner, { group_id: other.id, group_access: 35 })).body,
      ]).toEqual([400, { message: { group_access: ['does not have a valid value'] } }]);
      expect((await share(owner, { group_id: other.id, group_access: 30, expires_at: '2001-01-01' })).body).toEqual({
        message: { expires_at: ['cannot be a date in the past'] },
      });
      expect((await share(owner, { group_access: 30 })).body).toEqual({ message: '400 (Bad request) "group_id" not given' });
      const invisible = await share(owner, { group_id: hidden.id, group_access: 30 });
      expect([invisible.status, invisible.body]).toEqual([404, { message: '404 Group Not Found' }]);
      const notOwner = await share(developer, { group_id: other.id, group_access: 30 });
      expect([notOwner.status, notOwner.body]).toEqual([404, { message: 'Not Found' }]);
      const ofStranger = await share(stranger, { group_id: hidden.id, group_access: 30 });
      expect([ofStranger.status, ofStranger.body]).toEqual([404, { message: '404 Group Not Found' }]);
      expect((await share(owner, { group_id: other.id, group_access: 50 })).status).toBe(201);
      const twice = await share(owner, { group_id: other.id, group_access: 10 });
      expect([twice.status, twice.body]).toEqual([409, { message: 'Shared group The group has already been shared with this group' }]);
      await expect(t.hosting.as(developer.id).groups.share(shared.id, { group_id: other.id, group_access: 30 })).rejects.toThrow(
        NotFoundError,
      );
    },
  );

  it('stops counting once expired, and is taken back by DELETE (204; 404 when not shared)', async () => {
    const owner = await createUser(t.hosting);
    const member = await createUser(t.hosting);
    const shared = await createGroup(owner);
    const other = await createGroup(member, { visibility: 'internal' });
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('p'), namespace_id: shared.id });
    await t.hosting.as(owner.id).groups.share(shared.id, { group_id: other.id, group_access: 40 });
    expect((await get(`/projects/${project.id}`, member)).status).toBe(200);
    // A share whose last day has passed gives nothing (written as a day past, as time would leave it).
    await t.db.orm.em
      .fork()
      .getConnection()
      .execute(`update "group_group_links" set "expires_at" = '2001-01-01' where "shared_group_id" = ${shared.id}`);
    expect((await get(`/projects/${project.id}`, member)).status).toBe(404);
    expect((await get(`/groups/${shared.id}`, owner)).body.shared_with_groups).toEqual([]);
    await t.db.orm.em
      .fork()
      .getConnection()
      .execute(`update "group_group_links" set "expires_at" = null where "shared_group_id" = ${shared.id}`);
    expect((await get(`/projects/${project.id}`, member)).status).toBe(200);

    expect((await t.http.delete(`/api/v4/groups/${shared.id}/share/${other.id}`).set('PRIVATE-TOKEN', member.token)).status).toBe(403);
    const removed = await t.http.delete(`/api/v4/groups/${shared.id}/share/${other.id}`).set('PRIVATE-TOKEN', owner.token);
    expect([removed.status, removed.body]).toEqual([204, {}]);
    expect((await get(`/projects/${project.id}`, member)).status).toBe(404);
    const again = await t.http.delete(`/api/v4/groups/${shared.id}/share/${other.id}`).set('PRIVATE-TOKEN', owner.token);
    expect([again.status, again.body]).toEqual([404, { message: '404 Not Found' }]);
    // A group deleted takes its shares with it.
    await t.hosting.as(owner.id).groups.share(shared.id, { group_id: other.id, group_access: 30 });
    await t.hosting.as(member.id).groups.delete(other.id);
    expect((await get(`/groups/${shared.id}`, owner)).body.shared_with_groups).toEqual([]);
  });

  it('lists in GET /groups/:id only the groups shared with that the caller may see', async () => {
    const owner = await createUser(t.hosting);
    const viewer = await createUser(t.hosting);
    const shared = await createGroup(owner, { visibility: 'public' });
    const open = await createGroup(owner, { visibility: 'public' });
    const closed = await createGroup(owner);
    await t.hosting.as(owner.id).groups.share(shared.id, { group_id: open.id, group_access: 20 });
    await t.hosting.as(owner.id).groups.share(shared.id, { group_id: closed.id, group_access: 30 });
    expect(
      (await get(`/groups/${shared.id}`, viewer)).body.shared_with_groups.map((share: { group_id: number }) => share.group_id),
    ).toEqual([open.id]);
    expect((await get(`/groups/${shared.id}`, owner)).body.shared_with_groups.map((share: { group_id: number }) => share.group_id)).toEqual(
      [open.id, closed.id],
    );
  });
});

describe('GET /groups/:id/descendant_groups', () => {
  it('lists every group below that the caller may see, with the group list filters, paginated', async () => {
    const owner = await createUser(t.hosting);
    const viewer = await createUser(t.hosting);
    const top = await createGroup(owner, { visibility: 'public' });
    const child = await createGroup(owner, { visibility: 'public', parent_id: top.id, path: unique('child') });
    const grandchild = await createGroup(owner, { visibility: 'public', parent_id: child.id, path: unique('grand') });
    const hidden = await createGroup(owner, { parent_id: child.id, path: unique('hidden') });
    const res = await get(`/groups/${top.id}/descendant_groups?per_page=2`, owner);
    expect(res.status).toBe(200);
    expect(pageHeaders(res.headers)).toMatchObject({ total: 3, totalPages: 2, perPage: 2, page: 1, nextPage: 2 });
    const all = await get(`/groups/${top.id}/descendant_groups?order_by=id`, owner);
    expect(all.body.map((group: { id: number }) => group.id)).toEqual([child.id, grandchild.id, hidden.id]);
    expect(all.body[1]).toEqual({
      id: grandchild.id,
      name: grandchild.name,
      path: grandchild.path,
      description: '',
      visibility: 'public',
      lfs_enabled: true,
      avatar_url: null,
      web_url: `http://forge.test/groups/${grandchild.full_path}`,
      request_access_enabled: false,
      full_name: grandchild.full_name,
      full_path: grandchild.full_path,
      parent_id: child.id,
    });
    // Another user sees the public ones; anyone may ask of a public group.
    expect((await get(`/groups/${top.id}/descendant_groups?order_by=id`, viewer)).body.map((group: { id: number }) => group.id)).toEqual([
      child.id,
      grandchild.id,
    ]);
    expect((await get(`/groups/${top.id}/descendant_groups?order_by=id`)).body.map((group: { id: number }) => group.id)).toEqual([
      child.id,
      grandchild.id,
    ]);
    expect((await get(`/groups/${top.id}/descendant_groups?search=grand`, owner)).body.map((group: { id: number }) => group.id)).toEqual([
      grandchild.id,
    ]);
    expect(
      (await get(`/groups/${top.id}/descendant_groups?skip_groups[]=${child.id}&order_by=id`, owner)).body.map(
        (group: { id: number }) => group.id,
      ),
    ).toEqual([grandchild.id, hidden.id]);
    expect((await get(`/groups/${hidden.id}/descendant_groups`, viewer)).body).toEqual({ message: '404 Group Not Found' });
    expect(await t.hosting.as(viewer.id).groups.descendantGroups(child.id)).toEqual([expect.objectContaining({ id: grandchild.id })]);
  });

  it('runs as many queries for a page of 3 groups as for 12', async () => {
    const owner = await createUser(t.hosting);
    const top = await createGroup(owner);
    const page = () => get(`/groups/${top.id}/descendant_groups?per_page=100`, owner);
    let parent = top.id;
    for (let index = 0; index < 3; index++) parent = (await createGroup(owner, { parent_id: parent })).id;
    await page();
    const few = await queriesOf(t.db, page);
    for (let index = 3; index < 12; index++) await createGroup(owner, { parent_id: top.id });
    await page();
    const many = await queriesOf(t.db, page);
    expect((await page()).body).toHaveLength(12);
    expect(many.length).toBe(few.length);
  });
});

describe('GET /groups/:id/projects/shared', () => {
  it('lists the projects shared with the group that the caller may see, with the project filters', async () => {
    const owner = await createUser(t.hosting);
    const viewer = await createUser(t.hosting);
    const group = await createGroup(owner, { visibility: 'public' });
    const own = await t.hosting.as(owner.id).projects.create({ name: unique('own'), namespace_id: group.id, visibility: 'public' });
    const sharedPublic = await t.hosting.as(owner.id).projects.create({ name: unique('alpha'), visibility: 'public' });
    const sharedPrivate = await t.hosting.as(owner.id).projects.create({ name: unique('beta'), visibility: 'private' });
    for (const project of [sharedPublic, sharedPrivate])
      await t.hosting.as(owner.id).projects.share(project.id, { group_id: group.id, group_access: 30 });
    const res = await get(`/groups/${group.id}/projects/shared?order_by=id&sort=asc`, owner);
    expect(res.status).toBe(200);
    expect(res.body.map((project: { id: number }) => project.id)).toEqual([sharedPublic.id, sharedPrivate.id]);
    expect(res.body[0].shared_with_groups).toEqual([{ group_id: group.id, group_name: group.full_name, group_access_level: 30 }]);
    expect(pageHeaders(res.headers)).toMatchObject({ total: 2 });
    expect(res.body.map((project: { id: number }) => project.id)).not.toContain(own.id);
    expect((await get(`/groups/${group.id}/projects/shared`, viewer)).body.map((project: { id: number }) => project.id)).toEqual([
      sharedPublic.id,
    ]);
    expect((await get(`/groups/${group.id}/projects/shared?visibility=private&simple=true`, owner)).body).toEqual([
      expect.objectContaining({ id: sharedPrivate.id }),
    ]);
    expect(Object.keys((await get(`/groups/${group.id}/projects/shared?simple=true&search=alpha`, owner)).body[0])).not.toContain(
      'permissions',
    );
    expect((await t.hosting.groups.sharedProjects(group.id, { search: 'beta' })).map((project) => project.id)).toEqual([sharedPrivate.id]);
  });
});

describe('GET /projects/:id/groups', () => {
  it("lists the project's group and those above it, newest first; with_shared adds the groups it is shared with", async () => {
    const owner = await createUser(t.hosting);
    const top = await createGroup(owner);
    const middle = await createGroup(owner, { parent_id: top.id, path: unique('middle') });
    const viewerGroup = await createGroup(owner);
    const reader = await createGroup(owner);
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('p'), namespace_id: middle.id });
    await t.hosting.as(owner.id).projects.share(project.id, { group_id: viewerGroup.id, group_access: 20 });
    await t.hosting.as(owner.id).projects.share(project.id, { group_id: reader.id, group_access: 40 });
    const res = await get(`/projects/${project.id}/groups`, owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: middle.id,
        web_url: `http://forge.test/groups/${middle.full_path}`,
        name: middle.name,
        avatar_url: null,
        full_name: middle.full_name,
        full_path: middle.full_path,
      },
      {
        id: top.id,
        web_url: `http://forge.test/groups/${top.full_path}`,
        name: top.name,
        avatar_url: null,
        full_name: top.full_name,
        full_path: top.full_path,
      },
    ]);
    const ids = async (query: string) =>
      (await get(`/projects/${project.id}/groups?${query}`, owner)).body.map((group: { id: number }) => group.id);
    expect(await ids('with_shared=true')).toEqual([reader.id, viewerGroup.id, middle.id, top.id]);
    expect(await ids('with_shared=true&shared_min_access_level=30')).toEqual([reader.id, middle.id, top.id]);
    expect(await ids(`with_shared=true&skip_groups[]=${top.id}&skip_groups[]=${reader.id}`)).toEqual([viewerGroup.id, middle.id]);
    expect(await ids(`search=${middle.path}`)).toEqual([middle.id]);
    expect(pageHeaders((await get(`/projects/${project.id}/groups?with_shared=true&per_page=1`, owner)).headers)).toMatchObject({
      total: 4,
      totalPages: 4,
    });
    // A project in a user's namespace has no group of its own.
    const mine = await t.hosting.as(owner.id).projects.create({ name: unique('mine') });
    expect((await get(`/projects/${mine.id}/groups`, owner)).body).toEqual([]);
    expect((await get(`/projects/${project.id}/groups`)).body).toEqual({ message: '404 Project Not Found' });
    expect(
      (await t.hosting.as(owner.id).projects.groups(project.id, { with_shared: true, shared_visible_only: true })).map((group) => group.id),
    ).toEqual([reader.id, viewerGroup.id, middle.id, top.id]);
  });

  it("shows its project's namespace with parent_id: the group above, null at the top and in a user's namespace", async () => {
    const owner = await createUser(t.hosting);
    const top = await createGroup(owner);
    const inner = await createGroup(owner, { parent_id: top.id });
    const inside = await t.hosting.as(owner.id).projects.create({ name: unique('in'), namespace_id: inner.id });
    const atTop = await t.hosting.as(owner.id).projects.create({ name: unique('top'), namespace_id: top.id });
    expect(inside.namespace).toEqual({
      id: inner.id,
      name: inner.name,
      path: inner.path,
      kind: 'group',
      full_path: inner.full_path,
      parent_id: top.id,
    });
    expect((await get(`/projects/${atTop.id}`, owner)).body.namespace).toEqual({
      id: top.id,
      name: top.name,
      path: top.path,
      kind: 'group',
      full_path: top.full_path,
      parent_id: null,
    });
  });
});

describe('GET /namespaces/:namespace/exists', () => {
  it('says whether the path is taken (any case) at the top level or among a group’s subgroups, and suggests a free one', async () => {
    const owner = await createUser(t.hosting);
    const path = unique('taken');
    const group = await createGroup(owner, { path });
    const ask = (name: string, query: Record<string, unknown> = {}) =>
      get(`/namespaces/${encodeURIComponent(name)}/exists`, owner).query(query);
    const res = await ask(path);
    expect([res.status, res.body]).toEqual([200, { exists: true, suggests: [`${path}1`] }]);
    expect((await ask(path.toUpperCase())).body).toEqual({ exists: true, suggests: [`${path.toUpperCase()}1`] });
    // The next free number.
    await createGroup(owner, { path: `${path}1` });
    await createGroup(owner, { path: `${path}2` });
    expect((await ask(path)).body).toEqual({ exists: true, suggests: [`${path}3`] });
    expect((await ask(unique('free'))).body).toEqual({ exists: false, suggests: [] });
    // A user's namespace is at the top level too.
    expect((await ask(owner.username)).body).toEqual({ exists: true, suggests: [`${owner.username}1`] });
    // Among a group's subgroups.
    await createGroup(owner, { parent_id: group.id, path: 'docs' });
    expect((await ask('docs', { parent_id: group.id })).body).toEqual({ exists: true, suggests: ['docs1'] });
    expect((await ask(path, { parent_id: group.id })).body).toEqual({ exists: false, suggests: [] });
    // The suggestion is a clean path.
    await createGroup(owner, { path: `${path}.x` });
    expect((await ask(`${path}.x`)).body).toEqual({ exists: true, suggests: [`${path}.x1`] });
    expect((await get(`/namespaces/${path}/exists`)).status).toBe(401);
    expect(await t.hosting.as(owner.id).namespaces.exists(path)).toEqual({ exists: true, suggests: [`${path}3`] });
  });
});

describe('cleanPath', () => {
  it('makes a path of any text as the original does', () => {
    expect(['my name@example.com', '--foo.git.atom.', '...', 'ok_path-1.x', 'ünï cödé'].map(cleanPath)).toEqual([
      'myname',
      'foo',
      'blank',
      'ok_path-1.x',
      'ncd',
    ]);
  });
});

describe('the administrator', () => {
  it('shares any group, as root', async () => {
    const owner = await createUser(t.hosting);
    const shared = await createGroup(owner);
    const other = await createGroup(owner);
    const res = await t.http
      .post(`/api/v4/groups/${shared.id}/share`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ group_id: other.id, group_access: 10 });
    expect([res.status, res.body.shared_with_groups]).toEqual([
      201,
      [expect.objectContaining({ group_id: other.id, group_access_level: 10, expires_at: null })],
    ]);
  });
});
