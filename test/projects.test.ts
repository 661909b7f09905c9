import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { createUser, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
const storage = mkdtempSync(join(tmpdir(), 'forgekit-projects-test-'));
beforeAll(async () => {
  t = await startHosting({ storage, baseUrl: 'http://forge.test' });
});
afterAll(async () => {
  await t.close();
  rmSync(storage, { recursive: true, force: true });
});

const repositoryOf = (id: number) => join(storage, RepositoryStore.relativePath(id));
const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

describe('POST /projects', () => {
  it("creates a project in the caller's namespace, path from the name, with an empty bare repository", async () => {
    const alice = await createUser(t.hosting);
    const res = await t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', alice.token).send({ name: 'My Project.One', description: 'First', tag_list: ['a', 'b', 'a'] });
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
      namespace: { name: alice.username, path: alice.username, kind: 'user', full_path: alice.username },
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
    if (hasGit) expect(execFileSync('git', ['--git-dir', repositoryOf(id), 'rev-parse', '--is-bare-repository']).toString().trim()).toBe('true');
  });

  it('takes the settings given, and the request spelling of printing_merge_request_link_enabled', async () => {
    const bob = await createUser(t.hosting);
    const res = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', bob.token)
      .send({ path: 'settings', visibility: 'public', issues_enabled: false, printing_merge_request_link_enabled: false, lfs_enabled: false, ci_config_path: 'ci/pipeline.yml' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'settings', path: 'settings', visibility: 'public', issues_enabled: false, printing_merge_requests_link_enabled: false, lfs_enabled: false, ci_config_path: 'ci/pipeline.yml' });
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

  it("holds a user to its projects_limit in its own namespace, and refuses a namespace it may not create in", async () => {
    const dave = await createUser(t.hosting, { projects_limit: 1 });
    const post = (body: object) => t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', dave.token).send(body);
    expect((await post({ name: 'one' })).status).toBe(201);
    const second = await post({ name: 'two' });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ message: { limit_reached: ['Your project limit is 1 projects! Please contact your administrator to increase it'] } });
    const [root] = (await t.hosting.namespaces.list({ search: 'root' })).filter((namespace) => namespace.path === 'root');
    const elsewhere = await post({ name: 'elsewhere', namespace_id: root.id });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toEqual({ message: { namespace: ['is not valid'] } });
  });
});

describe('GET /projects/:id', () => {
  it('answers by ID and by URL-encoded full path in any case; a private project is 404 to others, a public one open to anyone', async () => {
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
