import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../src/auth/secrets.js';
import { RepositoryStore } from '../src/git/store.js';
import { createUser, hasGit, migratedDataDir, queriesOf, ROOT_TOKEN, sharedHosting, startHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
let storage: string;
beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
});
afterAll(async () => {
  await t.close();
});

const repositoryOf = (id: number) => join(storage, RepositoryStore.relativePath(id));

describe('POST /projects', () => {
  it("creates a project in the caller's namespace, path from the name, with an empty bare repository", async () => {
    const alice = await createUser(t.hosting);
    const res = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', alice.token)
      .send({ name: 'My Project.One', description: 'First', tag_list: ['a', 'b', 'a'] });
    expect(res.status).toBe(201);
    const { id } = res.body;
    expect(res.body).toMatchObject({
      name: 'My Project.One',
      path: 'my-project.one',
      path_with_namespace: `${alice.username}/my-project.one`,
      name_with_namespace: `User ${alice.username.slice(4)} / My Project.One`,
      description: 'First',
      visibility: 'private',
      default_branch: null,
      tag_list: ['a', 'b'],
      namespace: { name: alice.username, path: alice.username, kind: 'user', full_path: alice.username, parent_id: null },
      owner: { id: alice.id },
      creator_id: alice.id,
      web_url: `http://forge.test/${alice.username}/my-project.one`,
      http_url_to_repo: `http://forge.test/${alice.username}/my-project.one.git`,
      ssh_url_to_repo: `git@forge.test:${alice.username}/my-project.one.git`,
      import_status: 'none',
      import_error: null,
      forks_count: 0,
      star_count: 0,
      open_issues_count: 0,
      shared_with_groups: [],
      permissions: { project_access: { access_level: 40, notification_level: 3 }, group_access: null },
      printing_merge_requests_link_enabled: true,
      issues_enabled: true,
      archived: false,
      _links: { self: `http://forge.test/api/v4/projects/${id}`, members: `http://forge.test/api/v4/projects/${id}/members` },
    });
    expect(res.body).not.toHaveProperty('forked_from_project');
    expect(existsSync(join(repositoryOf(id), 'HEAD'))).toBe(true);
    if (hasGit)
      expect(
        execFileSync('git', ['--git-dir', repositoryOf(id), 'rev-parse', '--is-bare-repository'])
          .toString()
          .trim(),
      ).toBe('true');
  });

  it('takes the settings given, and the request spelling of printing_merge_request_link_enabled', async () => {
    const bob = await createUser(t.hosting);
    const res = await t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', bob.token).send({
      path: 'settings',
      visibility: 'public',
      issues_enabled: false,
      printing_merge_request_link_enabled: false,
      lfs_enabled: false,
      ci_config_path: 'ci/pipeline.yml',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'settings',
      path: 'settings',
      visibility: 'public',
      issues_enabled: false,
      printing_merge_requests_link_enabled: false,
      lfs_enabled: false,
      ci_config_path: 'ci/pipeline.yml',
    });
  });

  it('answers 400 for a missing name and path, invalid ones, and taken ones (any case)', async () => {
    const carol = await createUser(t.hosting);
    const post = (body: object) => t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', carol.token).send(body);
    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: '400 (Bad request) "name, path" are missing, at least one parameter must be provided' });
    const invalid = await post({ name: '-bad name!', path: '-bad.git' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toEqual({
      name: ["can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'."],
      path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"],
    });
    expect((await post({ name: 'Taken' })).status).toBe(201);
    const taken = await post({ name: 'TAKEN', path: 'TaKeN' });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
  });

  it('holds a user to its projects_limit in its own namespace, and refuses a namespace it may not create in', async () => {
    const dave = await createUser(t.hosting, { projects_limit: 1 });
    const post = (body: object) => t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', dave.token).send(body);
    expect((await post({ name: 'one' })).status).toBe(201);
    const second = await post({ name: 'two' });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      message: { limit_reached: ['Your project limit is 1 projects! Please contact your administrator to increase it'] },
    });
    const [root] = (await t.hosting.namespaces.list({ search: 'root' })).filter((namespace) => namespace.path === 'root');
    const elsewhere = await post({ name: 'elsewhere', namespace_id: root.id });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toEqual({ message: { namespace: ['is not valid'] } });
  });
});

describe('GET /projects/:id', () => {
  it(
    'answers by ID and by URL-encoded full path in any case; ' + 'a private project is 404 to others, a public one open to anyone',
    async () => {
      const erin = await createUser(t.hosting);
      const stranger = await createUser(t.hosting);
      const created = await t.hosting.as(erin.id).projects.create({ name: 'Secret' });
      const byId = await t.http.get(`/api/v4/projects/${created.id}`).set('PRIVATE-TOKEN', erin.token);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(created);
      const byPath = await t.http.get(`/api/v4/projects/${encodeURIComponent(`${erin.username}/SECRET`)}`).set('PRIVATE-TOKEN', erin.token);
      expect(byPath.body).toEqual(created);
      for (const res of [
        await t.http.get(`/api/v4/projects/${created.id}`).set('PRIVATE-TOKEN', stranger.token),
        await t.http.get(`/api/v4/projects/${created.id}`),
        await t.http.get(`/api/v4/projects/${encodeURIComponent(`${erin.username}/nothing`)}`).set('PRIVATE-TOKEN', erin.token),
        await t.http.get('/api/v4/projects/no-slash').set('PRIVATE-TOKEN', erin.token),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: '404 Project Not Found' });
      }
      // Administrators see everything; the caller's permissions are its own.
      const asRoot = await t.http.get(`/api/v4/projects/${created.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
      expect(asRoot.status).toBe(200);
      expect(asRoot.body.permissions).toEqual({ project_access: null, group_access: null });

      const open = await t.hosting.as(erin.id).projects.create({ name: 'Open', visibility: 'public' });
      expect((await t.http.get(`/api/v4/projects/${open.id}`)).status).toBe(200);
      const internal = await t.hosting.as(erin.id).projects.create({ name: 'Inside', visibility: 'internal' });
      expect((await t.http.get(`/api/v4/projects/${internal.id}`)).status).toBe(404);
      expect((await t.http.get(`/api/v4/projects/${internal.id}`).set('PRIVATE-TOKEN', stranger.token)).status).toBe(200);
    },
  );

  it('reads the namespace once, with the project, and answers with it and its user as the list does', async () => {
    const frank = await createUser(t.hosting);
    const created = await t.hosting.as(frank.id).projects.create({ name: 'Once' });
    const get = () => t.http.get(`/api/v4/projects/${created.id}`).set('PRIVATE-TOKEN', frank.token);
    await get();
    const queries = await queriesOf(t.db, get);
    // The project with its namespace and the caller's levels; the namespace's user, the counts, the shares.
    expect(queries.filter((query) => /to_jsonb\(n\)/.test(query))).toHaveLength(1);
    expect(queries).toHaveLength(2);
    const one = (await get()).body;
    expect(one.namespace).toEqual({
      id: expect.any(Number),
      name: frank.username,
      path: frank.username,
      kind: 'user',
      full_path: frank.username,
      parent_id: null,
    });
    expect(one.owner).toEqual({ id: frank.id, name: expect.stringMatching(/^User /), created_at: expect.any(String) });
    const listed = await t.http.get('/api/v4/projects').query({ owned: true }).set('PRIVATE-TOKEN', frank.token);
    expect(listed.body).toEqual([one]);
  });
});

describe('DELETE /projects/:id', () => {
  it('deletes a project and its repository for its owner (202), refuses other readers (403) and hides it from the rest (404)', async () => {
    const frank = await createUser(t.hosting);
    const reader = await createUser(t.hosting);
    const project = await t.hosting.as(frank.id).projects.create({ name: 'Doomed', visibility: 'internal' });
    expect(existsSync(repositoryOf(project.id))).toBe(true);
    const refused = await t.http.delete(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', reader.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: '403 Forbidden' });
    const res = await t.http.delete(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', frank.token);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: '202 Accepted' });
    expect(existsSync(repositoryOf(project.id))).toBe(false);
    const gone = await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', frank.token);
    expect(gone.status).toBe(404);
    const secret = await t.hosting.as(frank.id).projects.create({ name: 'Hidden' });
    expect((await t.http.delete(`/api/v4/projects/${secret.id}`).set('PRIVATE-TOKEN', reader.token)).status).toBe(404);
    await expect(t.hosting.as(frank.id).projects.delete(secret.id)).resolves.toEqual({ message: '202 Accepted' });
  });

  it('happens to every project of a user that is deleted, repositories included', async () => {
    const grace = await createUser(t.hosting);
    const project = await t.hosting.as(grace.id).projects.create({ name: 'Leaves with its user' });
    expect((await t.http.delete(`/api/v4/users/${grace.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(204);
    expect((await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
    expect(existsSync(repositoryOf(project.id))).toBe(false);
  });
});

describe('GET /projects', () => {
  let owner: Awaited<ReturnType<typeof createUser>>;
  let other: Awaited<ReturnType<typeof createUser>>;
  const ids: Record<string, number> = {};
  const word = `listed${Date.now()}`;

  beforeAll(async () => {
    owner = await createUser(t.hosting);
    other = await createUser(t.hosting);
    for (const visibility of ['private', 'internal', 'public'] as const) {
      ids[visibility] = (
        await t.hosting.as(owner.id).projects.create({ name: `${word} ${visibility}`, visibility, description: `about ${visibility}` })
      ).id;
    }
    ids.othersPublic = (
      await t.hosting.as(other.id).projects.create({ name: `${word} b other`, visibility: 'public', issues_enabled: false })
    ).id;
    await t.db.rows.execute('update "projects" set "archived" = true where "id" = ?', [ids.public]);
    await t.db.rows.execute(`insert into "project_stars" ("project_id", "user_id", "created_at") values (?, ?, now())`, [
      ids.othersPublic,
      owner.id,
    ]);
  });

  const list = (token: string | null, query: Record<string, unknown> = {}) => {
    const request = t.http.get('/api/v4/projects').query({ search: word, per_page: 100, ...query });
    return token ? request.set('PRIVATE-TOKEN', token) : request;
  };
  const idsOf = (body: { id: number }[]) => body.map((project) => project.id).sort((a, b) => a - b);

  it(
    'shows each caller what it may see: anonymous public, ' + 'signed-in also internal, members their private ones, administrators all',
    async () => {
      expect(idsOf((await list(null)).body)).toEqual([ids.public, ids.othersPublic].sort((a, b) => a - b));
      expect(idsOf((await list(other.token)).body)).toEqual([ids.internal, ids.public, ids.othersPublic].sort((a, b) => a - b));
      expect(idsOf((await list(owner.token)).body)).toEqual(Object.values(ids).sort((a, b) => a - b));
      expect(idsOf((await list(ROOT_TOKEN)).body)).toEqual(Object.values(ids).sort((a, b) => a - b));
      const res = await list(other.token, { per_page: 1 });
      expect(res.headers['x-total']).toBe('3');
      expect(res.headers['x-total-pages']).toBe('3');
    },
  );

  it('filters by visibility, archived, search, owned, membership, starred and enabled features', async () => {
    expect(idsOf((await list(owner.token, { visibility: 'internal' })).body)).toEqual([ids.internal]);
    expect(idsOf((await list(owner.token, { archived: true })).body)).toEqual([ids.public]);
    expect(idsOf((await list(owner.token, { archived: false })).body)).toEqual(
      [ids.private, ids.internal, ids.othersPublic].sort((a, b) => a - b),
    );
    expect(idsOf((await list(owner.token, { search: 'ABOUT PRIV' })).body)).toEqual([ids.private]);
    expect(idsOf((await list(owner.token, { owned: true })).body)).toEqual([ids.private, ids.internal, ids.public]);
    expect(idsOf((await list(other.token, { membership: true })).body)).toEqual([ids.othersPublic]);
    expect(idsOf((await list(owner.token, { starred: true })).body)).toEqual([ids.othersPublic]);
    expect(idsOf((await list(owner.token, { with_issues_enabled: true })).body)).toEqual([ids.private, ids.internal, ids.public]);
  });

  it('orders by created_at descending by default, and by the field and direction asked', async () => {
    expect((await list(owner.token)).body.map((project: { id: number }) => project.id)).toEqual(Object.values(ids).sort((a, b) => b - a));
    const byName = (await list(owner.token, { order_by: 'name', sort: 'asc' })).body.map((project: { name: string }) => project.name);
    expect(byName).toEqual([...byName].sort());
  });

  it('answers the short shape with simple=true, and works in process', async () => {
    const [simple] = (await list(owner.token, { simple: true, visibility: 'private' })).body;
    expect(Object.keys(simple).sort()).toEqual(
      [
        'created_at',
        'default_branch',
        'description',
        'forks_count',
        'http_url_to_repo',
        'id',
        'last_activity_at',
        'name',
        'name_with_namespace',
        'path',
        'path_with_namespace',
        'ssh_url_to_repo',
        'star_count',
        'tag_list',
        'web_url',
      ].sort(),
    );
    const inProcess = await t.hosting.as(owner.id).projects.list({ search: word, visibility: 'private' });
    expect(inProcess.map((project) => project.id)).toEqual([ids.private]);
    expect(inProcess.total).toBe(1);
  });

  it('runs as many queries for a page of 3 projects as for 30', async () => {
    const crowd = await createUser(t.hosting);
    const page = () => t.http.get('/api/v4/projects').query({ owned: true, per_page: 100 }).set('PRIVATE-TOKEN', crowd.token);
    for (let index = 0; index < 3; index++) await t.hosting.as(crowd.id).projects.create({ name: `crowd ${index}` });
    await page();
    const few = await queriesOf(t.db, page);
    for (let index = 3; index < 30; index++) await t.hosting.as(crowd.id).projects.create({ name: `crowd ${index}` });
    await page();
    const many = await queriesOf(t.db, page);
    expect((await page()).body).toHaveLength(30);
    expect(many.length).toBe(few.length);
  });
});

describe('PUT /projects/:id', () => {
  it('changes settings for maintainers, and renames or changes visibility for owners only', async () => {
    const hank = await createUser(t.hosting);
    const maintainer = await createUser(t.hosting);
    const project = await t.hosting.as(hank.id).projects.create({ name: 'Tuned', visibility: 'internal' });
    await t.db.rows.execute(
      `insert into "project_members" ("project_id", "user_id", "access_level", "created_at") values (?, ?, 40, now())`,
      [project.id, maintainer.id],
    );
    const put = (token: string, body: object) => t.http.put(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', token).send(body);
    // The default branch is a branch the repository has (test/branches.test.ts has the rest).
    await t.hosting.commits.create(project.id, {
      branch: 'master',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'a', content: 'a' }],
    });
    await t.hosting.branches.create(project.id, { branch: 'main', ref: 'master' });

    const changed = await put(maintainer.token, {
      description: 'Now described',
      issues_enabled: false,
      tag_list: ['x'],
      default_branch: 'main',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      description: 'Now described',
      issues_enabled: false,
      tag_list: ['x'],
      default_branch: 'main',
      name: 'Tuned',
    });
    for (const body of [{ name: 'Renamed' }, { path: 'renamed' }, { visibility: 'public' }]) {
      const refused = await put(maintainer.token, body);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ message: '403 Forbidden' });
    }
    const renamed = await put(hank.token, { name: 'Renamed', path: 'renamed', visibility: 'public' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      path: 'renamed',
      path_with_namespace: `${hank.username}/renamed`,
      visibility: 'public',
    });
    expect((await t.http.get(`/api/v4/projects/${encodeURIComponent(`${hank.username}/renamed`)}`)).status).toBe(200);

    const reader = await createUser(t.hosting);
    expect((await put(reader.token, { description: 'no' })).status).toBe(403);
    const empty = await put(hank.token, {});
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ message: '400 (Bad request) at least one parameter must be provided' });
    await t.hosting.as(hank.id).projects.create({ name: 'Other' });
    const taken = await put(hank.token, { name: 'OTHER', path: 'other' });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
    expect(await t.hosting.as(hank.id).projects.update(project.id, { description: 'in process' })).toMatchObject({
      description: 'in process',
    });
  });
});

describe('POST /projects/:id/star and /unstar', () => {
  it(
    'star and take back a star (201 with the project), ' + '304 when there is nothing to do, 404 for a project the caller may not see',
    async () => {
      const ivy = await createUser(t.hosting);
      const fan = await createUser(t.hosting);
      const project = await t.hosting.as(ivy.id).projects.create({ name: 'Starry', visibility: 'internal' });
      const post = (action: string, token = fan.token) =>
        t.http.post(`/api/v4/projects/${project.id}/${action}`).set('PRIVATE-TOKEN', token);
      const starred = await post('star');
      expect(starred.status).toBe(201);
      expect(starred.body).toMatchObject({ id: project.id, star_count: 1 });
      const again = await post('star');
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(idsOfStarred(await t.hosting.as(fan.id).projects.list({ starred: true }))).toEqual([project.id]);
      const unstarred = await post('unstar');
      expect(unstarred.status).toBe(201);
      expect(unstarred.body).toMatchObject({ star_count: 0 });
      expect((await post('unstar')).status).toBe(304);
      await expect(t.hosting.as(fan.id).projects.unstar(project.id)).rejects.toMatchObject({ status: 304 });
      const hidden = await t.hosting.as(ivy.id).projects.create({ name: 'Unseen' });
      const refused = await t.http.post(`/api/v4/projects/${hidden.id}/star`).set('PRIVATE-TOKEN', fan.token);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ message: '404 Project Not Found' });
    },
  );
});

const idsOfStarred = (projects: { id: number }[]) => projects.map((project) => project.id);

describe('GET /users/:user_id/projects', () => {
  it("lists the projects in a user's namespace that the caller may see, by ID or username, with the filters", async () => {
    const jay = await createUser(t.hosting);
    const viewer = await createUser(t.hosting);
    const secret = await t.hosting.as(jay.id).projects.create({ name: 'Jay secret' });
    const open = await t.hosting.as(jay.id).projects.create({ name: 'Jay open', visibility: 'public' });
    const inside = await t.hosting.as(jay.id).projects.create({ name: 'Jay inside', visibility: 'internal' });
    await t.hosting.as(viewer.id).projects.create({ name: 'Not Jay', visibility: 'public' });
    const ids = (res: { body: { id: number }[] }) => res.body.map((project) => project.id);
    expect(ids(await t.http.get(`/api/v4/users/${jay.id}/projects`))).toEqual([open.id]);
    expect(ids(await t.http.get(`/api/v4/users/${jay.username}/projects`).set('PRIVATE-TOKEN', viewer.token))).toEqual([
      inside.id,
      open.id,
    ]);
    expect(ids(await t.http.get(`/api/v4/users/${jay.id}/projects`).set('PRIVATE-TOKEN', jay.token))).toEqual([
      inside.id,
      open.id,
      secret.id,
    ]);
    expect(
      ids(await t.http.get(`/api/v4/users/${jay.id}/projects`).query({ visibility: 'public' }).set('PRIVATE-TOKEN', jay.token)),
    ).toEqual([open.id]);
    const missing = await t.http.get('/api/v4/users/no-such-user-here/projects');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
    expect(
      (await t.hosting.as(viewer.id).projects.listOfUser(jay.username, { order_by: 'id', sort: 'asc' })).map((project) => project.id),
    ).toEqual([open.id, inside.id]);
  });
});

describe('GET /projects/:id/users', () => {
  it(
    'lists who has access: members, its group’s members and the members of groups it is shared with; ' +
      'search; 404 for who may not see it',
    async () => {
      const [maintainer, developer, shareMember, direct, stranger] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t.hosting)));
      const group = async (path: string, members: [number, number][]) => {
        const [{ id }] = await t.db.rows.execute<{ id: number }[]>(
          `insert into "namespaces" ("kind", "name", "path", "full_path", "full_name", "traversal_ids", "created_at", "updated_at") ` +
            `values ('group', ?, ?, ?, ?, '{}', now(), now()) returning "id"`,
          [path, path, path, path],
        );
        await t.db.rows.execute(`update "namespaces" set "traversal_ids" = array["id"] where "id" = ?`, [id]);
        for (const [userId, level] of members)
          await t.db.rows.execute(
            `insert into "group_members" ("group_id", "user_id", "access_level", "created_at") values (?, ?, ?, now())`,
            [id, userId, level],
          );
        return id;
      };
      const team = await group(`team-${Date.now()}`, [
        [maintainer.id, 40],
        [developer.id, 30],
      ]);
      const partners = await group(`partners-${Date.now()}`, [[shareMember.id, 30]]);
      const project = await t.hosting.as(maintainer.id).projects.create({ name: 'Shared work', namespace_id: team });
      expect(project.namespace).toMatchObject({ id: team, kind: 'group' });
      expect(project.owner).toBeNull();
      await t.db.rows.execute(
        `insert into "project_group_links" ("project_id", "group_id", "group_access", "created_at") values (?, ?, 20, now())`,
        [project.id, partners],
      );
      await t.db.rows.execute(
        `insert into "project_members" ("project_id", "user_id", "access_level", "created_at") values (?, ?, 10, now())`,
        [project.id, direct.id],
      );

      const res = await t.http.get(`/api/v4/projects/${project.id}/users`).set('PRIVATE-TOKEN', developer.token);
      expect(res.status).toBe(200);
      expect(res.body.map((user: { id: number }) => user.id).sort((a: number, b: number) => a - b)).toEqual(
        [maintainer.id, developer.id, shareMember.id, direct.id].sort((a, b) => a - b),
      );
      expect(Object.keys(res.body[0]).sort()).toEqual(['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
      expect(res.headers['x-total']).toBe('4');
      const found = await t.http
        .get(`/api/v4/projects/${project.id}/users`)
        .query({ search: direct.username.toUpperCase() })
        .set('PRIVATE-TOKEN', developer.token);
      expect(found.body.map((user: { id: number }) => user.id)).toEqual([direct.id]);
      const refused = await t.http.get(`/api/v4/projects/${project.id}/users`).set('PRIVATE-TOKEN', stranger.token);
      expect(refused.status).toBe(404);
      expect((await t.hosting.as(shareMember.id).projects.users(project.id)).total).toBe(4);
    },
  );
});

describe('POST /projects/user/:user_id', () => {
  it("lets administrators create a project in a user's namespace, as the user, with its default branch; 403 to others", async () => {
    const kim = await createUser(t.hosting, { projects_limit: 1 });
    const res = await t.http
      .post(`/api/v4/projects/user/${kim.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ name: 'Given', default_branch: 'main' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Given',
      path: 'given',
      default_branch: 'main',
      creator_id: kim.id,
      owner: { id: kim.id },
      namespace: { path: kim.username },
    });
    if (hasGit)
      expect(
        execFileSync('git', ['--git-dir', repositoryOf(res.body.id), 'symbolic-ref', 'HEAD'])
          .toString()
          .trim(),
      ).toBe('refs/heads/main');
    // The user's own limit counts the projects made for it.
    const over = await t.http.post(`/api/v4/projects/user/${kim.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ name: 'Second' });
    expect(over.status).toBe(400);
    expect(over.body.message).toHaveProperty('limit_reached');
    const missing = await t.http.post(`/api/v4/projects/user/${kim.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: '400 (Bad request) "name" not given' });
    expect((await t.http.post(`/api/v4/projects/user/${kim.id}`).set('PRIVATE-TOKEN', kim.token).send({ name: 'Self' })).status).toBe(403);
    expect((await t.http.post('/api/v4/projects/user/99999999').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ name: 'Nobody' })).status).toBe(
      404,
    );
  });
});

describe('initialize_with_readme', () => {
  it(
    'makes the default branch\'s first commit, "Initial commit" by the creator, ' + 'adding README.md with its name and description',
    async () => {
      const lee = await createUser(t.hosting);
      const res = await t.http
        .post('/api/v4/projects')
        .set('PRIVATE-TOKEN', lee.token)
        .send({ name: 'Read Me', description: 'What it is.', initialize_with_readme: true });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'Read Me', default_branch: 'master', description: 'What it is.' });
      const { id } = res.body;
      const readme = await t.http
        .get(`/api/v4/projects/${id}/repository/files/README.md/raw`)
        .query({ ref: 'master' })
        .set('PRIVATE-TOKEN', lee.token);
      expect([readme.status, readme.text]).toEqual([200, '# Read Me\n\nWhat it is.']);
      const commits = await t.hosting.as(lee.id).commits.list(id);
      expect(
        commits.map((commit) => [commit.title, commit.author_name, commit.author_email, commit.committer_email, commit.parent_ids]),
      ).toEqual([['Initial commit', `User ${lee.username.slice(4)}`, lee.email, lee.email, []]]);
      // Protected as default_branch_protection says, as any first branch.
      expect((await t.hosting.branches.get(id, 'master')).protected).toBe(true);
      // Without a description, the heading and a blank line; false or absent, an empty repository.
      const bare = await t.hosting.as(lee.id).projects.create({ name: 'Bare Readme', initialize_with_readme: true });
      const raw = await t.hosting.as(lee.id).repositoryFiles.raw(bare.id, 'README.md', { ref: 'master' });
      expect(Buffer.concat(await raw.data.toArray()).toString()).toBe('# Bare Readme\n\n');
      for (const initialize_with_readme of [false, undefined]) {
        const empty = await t.hosting
          .as(lee.id)
          .projects.create({ name: `Empty ${String(initialize_with_readme)}`, initialize_with_readme });
        expect([empty.default_branch, await t.hosting.branches.list(empty.id)]).toEqual([null, []]);
      }
    },
  );

  it("is the user's on POST /projects/user/:user_id, on the default branch asked for", async () => {
    const kim = await createUser(t.hosting);
    const res = await t.http
      .post(`/api/v4/projects/user/${kim.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ name: 'For Kim', default_branch: 'main', initialize_with_readme: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ default_branch: 'main', creator_id: kim.id });
    const [first] = await t.hosting.commits.list(res.body.id, { ref_name: 'main' });
    expect([first.title, first.author_email, first.committer_email]).toEqual(['Initial commit', kim.email, kim.email]);
  });
});

describe('statistics', () => {
  it('come with statistics=true, measured from the repository, for its reporters and above and administrators', async () => {
    const lee = await createUser(t.hosting);
    const reader = await createUser(t.hosting);
    const project = await t.hosting.as(lee.id).projects.create({ name: 'Measured', visibility: 'internal' });
    expect(project).not.toHaveProperty('statistics');
    const res = await t.http.get(`/api/v4/projects/${project.id}`).query({ statistics: true }).set('PRIVATE-TOKEN', lee.token);
    expect(res.status).toBe(200);
    expect(res.body.statistics).toEqual({
      commit_count: 0,
      storage_size: res.body.statistics.repository_size,
      repository_size: expect.any(Number),
      lfs_objects_size: 0,
      job_artifacts_size: 0,
    });
    expect(res.body.statistics.repository_size).toBeGreaterThan(0);
    expect(
      (await t.http.get(`/api/v4/projects/${project.id}`).query({ statistics: true }).set('PRIVATE-TOKEN', ROOT_TOKEN)).body,
    ).toHaveProperty('statistics');
    // A signed-in user who is no member sees the internal project, not its statistics.
    expect(
      (await t.http.get(`/api/v4/projects/${project.id}`).query({ statistics: true }).set('PRIVATE-TOKEN', reader.token)).body,
    ).not.toHaveProperty('statistics');
    const listed = await t.http
      .get('/api/v4/projects')
      .query({ statistics: true, search: 'Measured', owned: true })
      .set('PRIVATE-TOKEN', lee.token);
    expect(listed.body[0].statistics).toEqual(res.body.statistics);
  });
});

describe('runners_token', () => {
  it('is shown to maintainers, owners and administrators, stored sealed with its digest', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const maintainer = await createUser(t.hosting);
    const project = await t.hosting.as(owner.id).projects.create({ name: 'runners', visibility: 'internal' });
    await t.hosting.projectMembers.add(project.id, { user_id: developer.id, access_level: 30 });
    await t.hosting.projectMembers.add(project.id, { user_id: maintainer.id, access_level: 40 });
    const tokenFor = async (token: string) =>
      (await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', token)).body.runners_token;

    const shown = await tokenFor(owner.token);
    expect(shown).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(await tokenFor(maintainer.token)).toBe(shown);
    expect(await tokenFor(ROOT_TOKEN)).toBe(shown);
    expect(await tokenFor(developer.token)).toBeUndefined();
    const listed = await t.http
      .get('/api/v4/projects')
      .query({ search: 'runners', membership: true })
      .set('PRIVATE-TOKEN', developer.token);
    expect(listed.body.find((item: { id: number }) => item.id === project.id)).not.toHaveProperty('runners_token');
    const owned = await t.http.get('/api/v4/projects').query({ owned: true }).set('PRIVATE-TOKEN', owner.token);
    expect(owned.body.find((item: { id: number }) => item.id === project.id).runners_token).toBe(shown);

    const [stored] = await t.db.rows.execute<{ runners_token_sealed: string; runners_token_digest: string }[]>(
      'select "runners_token_sealed", "runners_token_digest" from "projects" where "id" = ?',
      [project.id],
    );
    expect(stored.runners_token_sealed).not.toContain(shown);
    expect(stored.runners_token_digest).toBe(tokenDigest(shown));
    const other = await t.hosting.as(owner.id).projects.create({ name: 'runners two' });
    expect((await t.hosting.as(owner.id).projects.get(other.id)).runners_token).not.toBe(shown);
  });

  it('stays the same across restarts of a data directory, which keeps its secret key to itself; another key hides it', async () => {
    const dataDir = migratedDataDir();
    try {
      const first = await startHosting({ database: { dataDir } });
      const { id } = await first.hosting.projects.create({ name: 'kept' });
      const token = (await first.hosting.projects.get(id)).runners_token;
      await first.close();
      expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
      const second = await startHosting({ database: { dataDir } });
      expect((await second.hosting.projects.get(id)).runners_token).toBe(token);
      await second.close();
      // Another key: the token sealed under the old one is no longer shown, and that is logged; nothing fails.
      const logged: string[] = [];
      const logger = { info() {}, warn() {}, error: (message: string) => void logged.push(message) };
      const third = await startHosting({ database: { dataDir }, secretKey: 'another secret key, of thirty-two characters', logger });
      expect(await third.hosting.projects.get(id)).not.toHaveProperty('runners_token');
      expect(logged).toEqual(['forgekit: a runners token could not be opened: is the secret key the one it was sealed with?']);
      await third.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('project avatars', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  it('are uploaded on create and update, and served at avatar_url to whoever may see the project', async () => {
    const owner = await createUser(t.hosting);
    const created = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', owner.token)
      .field('name', 'pictured')
      .attach('avatar', PNG, { filename: 'logo.png', contentType: 'image/png' });
    expect(created.status).toBe(201);
    const url = `http://forge.test/uploads/-/system/project/avatar/${created.body.id}/logo.png`;
    expect(created.body.avatar_url).toBe(url);
    const path = new URL(url).pathname;
    const served = await t.http.get(path).set('PRIVATE-TOKEN', owner.token).buffer(true);
    expect([served.status, served.headers['content-type'], Buffer.compare(served.body, PNG)]).toEqual([200, 'image/png', 0]);
    // A private project's avatar is as hidden as the project.
    expect((await t.http.get(path)).status).toBe(404);

    const changed = await t.http
      .put(`/api/v4/projects/${created.body.id}`)
      .set('PRIVATE-TOKEN', owner.token)
      .attach('avatar', PNG, { filename: 'new.gif', contentType: 'image/gif' });
    expect(changed.body.avatar_url).toBe(`http://forge.test/uploads/-/system/project/avatar/${created.body.id}/new.gif`);
    expect((await t.http.get(path).set('PRIVATE-TOKEN', owner.token)).status).toBe(404);

    const text = await t.http
      .put(`/api/v4/projects/${created.body.id}`)
      .set('PRIVATE-TOKEN', owner.token)
      .attach('avatar', Buffer.from('hi'), { filename: 'notes.txt', contentType: 'text/plain' });
    expect([text.status, text.body]).toEqual([400, { message: { avatar: ['only images allowed'] } }]);
  });
});

describe('what later clients send and read', () => {
  it('takes topics and public_builds for tag_list and public_jobs, and answers both spellings', async () => {
    const owner = await createUser(t.hosting);
    const res = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', owner.token)
      .send({ name: 'spellings', topics: ['a', 'b'], public_builds: false, printing_merge_request_link_enabled: false });
    expect(res.body).toMatchObject({
      tag_list: ['a', 'b'],
      topics: ['a', 'b'],
      public_jobs: false,
      public_builds: false,
      printing_merge_requests_link_enabled: false,
      printing_merge_request_link_enabled: false,
    });
    // Given both, the specification's spelling wins.
    const both = await t.http
      .put(`/api/v4/projects/${res.body.id}`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ tag_list: ['spec'], topics: ['later'], public_jobs: true, public_builds: false });
    expect(both.body).toMatchObject({ tag_list: ['spec'], topics: ['spec'], public_jobs: true, public_builds: true });
  });

  it('archives and unarchives a project for its maintainers (201 with the project), which the archived filter follows', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const project = await t.hosting.as(owner.id).projects.create({ name: 'shelved' });
    await t.hosting.projectMembers.add(project.id, { user_id: developer.id, access_level: 30 });
    expect((await t.http.post(`/api/v4/projects/${project.id}/archive`).set('PRIVATE-TOKEN', developer.token)).status).toBe(403);
    const archived = await t.http.post(`/api/v4/projects/${project.id}/archive`).set('PRIVATE-TOKEN', owner.token);
    expect([archived.status, archived.body.archived]).toEqual([201, true]);
    const listed = async (value: boolean) =>
      (await t.http.get('/api/v4/projects').query({ owned: true, archived: value }).set('PRIVATE-TOKEN', owner.token)).body.map(
        (item: { id: number }) => item.id,
      );
    expect(await listed(true)).toEqual([project.id]);
    expect(await listed(false)).toEqual([]);
    const back = await t.http.post(`/api/v4/projects/${project.id}/unarchive`).set('PRIVATE-TOKEN', owner.token);
    expect([back.status, back.body.archived]).toEqual([201, false]);
    expect(await listed(false)).toEqual([project.id]);
  });
});
