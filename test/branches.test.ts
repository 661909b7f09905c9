import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { createUser, hasGit, linkHeader, pageHeaders, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let developer: User;
let reporter: User;
let storage: string;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
  [owner, developer, reporter] = await Promise.all([1, 2, 3].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['--git-dir', join(storage, RepositoryStore.relativePath(projectId)), ...args], { encoding: 'utf8' });
const base = (id: number) => `/api/v4/projects/${id}/repository/branches`;

/** A project of the owner's with a developer and a reporter, README.md on master. */
async function project(visibility: 'private' | 'public' = 'private'): Promise<{ id: number; path: string; head: string }> {
  const api = t.hosting.as(owner.id);
  const created = await api.projects.create({ name: `Branches ${Math.random().toString(36).slice(2)}`, visibility });
  await api.projectMembers.add(created.id, { user_id: developer.id, access_level: 30 });
  await api.projectMembers.add(created.id, { user_id: reporter.id, access_level: 20 });
  const head = await api.commits.create(created.id, {
    branch: 'master',
    commit_message: 'Initial',
    actions: [{ action: 'create', file_path: 'README.md', content: 'x\n' }],
  });
  return { id: created.id, path: created.path_with_namespace, head: head.id };
}

describe('branches', () => {
  it('are made at a ref, read one by one and listed by name with their commit, protection and merge state', async () => {
    const { id, path, head } = await project();
    const created = await t.http.post(base(id)).set('PRIVATE-TOKEN', developer.token).send({ branch: 'feature/one', ref: 'master' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'feature/one',
      commit: expect.objectContaining({ id: head, short_id: head.slice(0, 8), title: 'Initial', parent_ids: [] }),
      // At the default branch's very commit: not merged, as the original counts it.
      merged: false,
      protected: false,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      default: false,
      web_url: `http://forge.test/${path}/tree/feature/one`,
    });
    await t.hosting
      .as(developer.id)
      .repositoryFiles.create(id, 'one.txt', { branch: 'feature/one', content: 'one\n', commit_message: 'One' });
    await t.hosting.branches.create(id, { branch: 'alpha', ref: head.slice(0, 8) });
    // master moves on: alpha is now behind it, merged.
    await t.hosting.repositoryFiles.create(id, 'two.txt', { branch: 'master', content: 'two\n', commit_message: 'Two' });
    const list = await t.http.get(base(id)).set('PRIVATE-TOKEN', reporter.token);
    expect(list.status).toBe(200);
    expect(
      list.body.map((branch: { name: string; merged: boolean; default: boolean; protected: boolean; can_push: boolean }) => [
        branch.name,
        branch.merged,
        branch.default,
        branch.protected,
        branch.can_push,
      ]),
    ).toEqual([
      ['alpha', true, false, false, false],
      ['feature/one', false, false, false, false],
      ['master', false, true, true, false],
    ]);
    const one = await t.http.get(`${base(id)}/${encodeURIComponent('feature/one')}`).set('PRIVATE-TOKEN', reporter.token);
    expect(one.body.merged).toBe(false);
    expect([one.status, one.body.commit.title]).toEqual([200, 'One']);
    expect(
      (await t.http.get(base(id)).query({ search: 'ALP' }).set('PRIVATE-TOKEN', reporter.token)).body.map(
        (branch: { name: string }) => branch.name,
      ),
    ).toEqual(['alpha']);
    expect(
      (await t.http.get(base(id)).query({ search: '^feat' }).set('PRIVATE-TOKEN', reporter.token)).body.map(
        (branch: { name: string }) => branch.name,
      ),
    ).toEqual(['feature/one']);
    expect(
      (await t.http.get(base(id)).query({ search: 'er$' }).set('PRIVATE-TOKEN', reporter.token)).body.map(
        (branch: { name: string }) => branch.name,
      ),
    ).toEqual(['master']);
    if (hasGit) expect(git(id, 'for-each-ref', '--format=%(refname:short)', 'refs/heads')).toBe('alpha\nfeature/one\nmaster\n');
  });

  it('are paginated with the Link and X-* headers', async () => {
    const { id } = await project();
    for (const name of ['b1', 'b2', 'b3', 'b4']) await t.hosting.branches.create(id, { branch: name, ref: 'master' });
    const res = await t.http.get(base(id)).query({ per_page: 2, page: 2 }).set('PRIVATE-TOKEN', owner.token);
    expect(res.body.map((branch: { name: string }) => branch.name)).toEqual(['b3', 'b4']);
    expect(pageHeaders(res.headers)).toEqual({ total: 5, totalPages: 3, perPage: 2, page: 2, nextPage: 3, prevPage: 1 });
    expect(Object.keys(linkHeader(res.headers.link)).sort()).toEqual(['first', 'last', 'next', 'prev']);
  });

  it('answer 400 for a branch that exists, a name git refuses, a ref that names nothing; 404 for a missing branch', async () => {
    const { id } = await project();
    const post = (body: object) => t.http.post(base(id)).set('PRIVATE-TOKEN', owner.token).send(body);
    for (const [body, message] of [
      [{ branch: 'master', ref: 'master' }, REFUSALS.branchExists],
      [{ branch: 'a..b', ref: 'master' }, REFUSALS.branchNameInvalid],
      [{ branch: '-dash', ref: 'master' }, REFUSALS.branchNameInvalid],
      [{ branch: 'HEAD', ref: 'master' }, REFUSALS.branchNameInvalid],
      [{ branch: 'new', ref: 'nowhere' }, REFUSALS.invalidReference],
      [{ branch: 'master/sub', ref: 'master' }, REFUSALS.referenceInTheWay('master/sub')],
    ] as const) {
      const res = await post(body);
      expect([res.status, res.body]).toEqual([400, { message }]);
    }
    const missing = await post({ ref: 'master' });
    expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "branch" not given' }]);
    for (const request of [
      t.http.get(`${base(id)}/nowhere`),
      t.http.delete(`${base(id)}/nowhere`),
      t.http.put(`${base(id)}/nowhere/protect`),
    ]) {
      const res = await request.set('PRIVATE-TOKEN', owner.token);
      expect([res.status, res.body]).toEqual([404, { message: '404 Branch Not Found' }]);
    }
  });

  it('are deleted by those who may push to them, never the default branch', async () => {
    const { id } = await project();
    await t.hosting.branches.create(id, { branch: 'topic', ref: 'master' });
    await t.hosting.branches.create(id, { branch: 'guarded', ref: 'master' });
    await t.hosting.branches.protect(id, 'guarded', {});
    const del = (name: string, user: User) => t.http.delete(`${base(id)}/${name}`).set('PRIVATE-TOKEN', user.token);
    expect([(await del('topic', reporter)).status, (await del('topic', reporter)).body]).toEqual([403, { message: '403 Forbidden' }]);
    // Even a protection that lets developers push keeps them from deleting the branch: maintainers only.
    await t.hosting.branches.protect(id, 'guarded', { developers_can_push: true });
    expect([(await del('guarded', developer)).status, (await del('guarded', developer)).body]).toEqual([
      400,
      { message: REFUSALS.deleteProtectedBranch },
    ]);
    expect([(await del('master', owner)).status, (await del('master', owner)).body]).toEqual([
      400,
      { message: REFUSALS.removeDefaultBranch },
    ]);
    const deleted = await del('topic', developer);
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect((await del('guarded', owner)).status).toBe(204);
    expect((await t.hosting.branches.list(id)).map((branch) => branch.name)).toEqual(['master']);
  });

  it('are protected and unprotected by maintainers, developers let push or merge as asked', async () => {
    const { id } = await project();
    await t.hosting.branches.create(id, { branch: 'release', ref: 'master' });
    const protect = (user: User, body: object = {}) =>
      t.http
        .put(`${base(id)}/release/protect`)
        .set('PRIVATE-TOKEN', user.token)
        .send(body);
    expect([(await protect(developer)).status, (await protect(developer)).body]).toEqual([403, { message: '403 Forbidden' }]);
    const strict = await protect(owner);
    expect([
      strict.status,
      strict.body.protected,
      strict.body.developers_can_push,
      strict.body.developers_can_merge,
      strict.body.can_push,
    ]).toEqual([200, true, false, false, true]);
    const asDeveloper = await t.http.get(`${base(id)}/release`).set('PRIVATE-TOKEN', developer.token);
    expect(asDeveloper.body.can_push).toBe(false);
    const loose = await protect(owner, { developers_can_push: true, developers_can_merge: true });
    expect([loose.body.developers_can_push, loose.body.developers_can_merge]).toEqual([true, true]);
    // A level not given stays as it is.
    const half = await protect(owner, { developers_can_merge: false });
    expect([half.body.developers_can_push, half.body.developers_can_merge]).toEqual([true, false]);
    await protect(owner, { developers_can_merge: true });
    expect((await t.http.get(`${base(id)}/release`).set('PRIVATE-TOKEN', developer.token)).body.can_push).toBe(true);
    const unprotected = await t.http.put(`${base(id)}/release/unprotect`).set('PRIVATE-TOKEN', owner.token);
    expect([unprotected.status, unprotected.body.protected, unprotected.body.developers_can_push]).toEqual([200, false, false]);
  });

  it('protect the first branch as default_branch_protection says', async () => {
    const firstBranch = async () => {
      const api = t.hosting.as(owner.id);
      const { id } = await api.projects.create({ name: `First ${Math.random().toString(36).slice(2)}` });
      await api.repositoryFiles.create(id, 'a.txt', { branch: 'main', content: 'a', commit_message: 'First' });
      const branch = await api.branches.get(id, 'main');
      return [branch.protected, branch.developers_can_push, branch.developers_can_merge, branch.default];
    };
    try {
      expect(await firstBranch()).toEqual([true, false, false, true]);
      await t.hosting.applicationSettings.update({ default_branch_protection: 1 });
      expect(await firstBranch()).toEqual([true, true, false, true]);
      await t.hosting.applicationSettings.update({ default_branch_protection: 0 });
      expect(await firstBranch()).toEqual([false, false, false, true]);
    } finally {
      await t.hosting.applicationSettings.update({ default_branch_protection: 2 });
    }
  });

  it('of a public project are read by anyone; of a private one, 404 to a stranger', async () => {
    const open = await project('public');
    expect((await t.http.get(base(open.id))).status).toBe(200);
    const closed = await project('private');
    expect([(await t.http.get(base(closed.id))).status, (await t.http.get(base(closed.id))).body]).toEqual([
      404,
      { message: '404 Project Not Found' },
    ]);
  });
});

describe('a branch made in an empty repository', () => {
  /** A project of the owner's without a commit, with a developer. */
  async function empty(): Promise<{ id: number; path: string }> {
    const api = t.hosting.as(owner.id);
    const created = await api.projects.create({ name: `Empty ${Math.random().toString(36).slice(2)}` });
    await api.projectMembers.add(created.id, { user_id: developer.id, access_level: 30 });
    return { id: created.id, path: created.path_with_namespace };
  }

  it('first makes the default branch with an empty README.md, "Add README.md" by the caller, then the branch from it', async () => {
    const { id, path } = await empty();
    const res = await t.http.post(base(id)).set('PRIVATE-TOKEN', owner.token).send({ branch: 'feature', ref: 'master' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      name: 'feature',
      commit: expect.objectContaining({
        title: 'Add README.md',
        message: 'Add README.md\n',
        author_email: owner.email,
        committer_email: owner.email,
        parent_ids: [],
      }),
      merged: false,
      protected: false,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      default: false,
      web_url: `http://forge.test/${path}/tree/feature`,
    });
    const branches = await t.hosting.as(owner.id).branches.list(id);
    expect(branches.map((branch) => [branch.name, branch.commit.id, branch.default, branch.protected])).toEqual([
      ['feature', res.body.commit.id, false, false],
      ['master', res.body.commit.id, true, true],
    ]);
    expect((await t.hosting.repository.tree(id, { ref: 'master' })).map((entry) => [entry.mode, entry.type, entry.id, entry.path])).toEqual(
      [['100644', 'blob', 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', 'README.md']],
    );
    expect((await t.hosting.projects.get(id)).default_branch).toBe('master');
  });

  it(
    'changes nothing when the ref still names nothing (400 Invalid reference name), ' + 'and names the default branch as HEAD does',
    async () => {
      const { id } = await empty();
      const res = await t.http.post(base(id)).set('PRIVATE-TOKEN', owner.token).send({ branch: 'feature', ref: 'nope' });
      expect([res.status, res.body]).toEqual([400, { message: REFUSALS.invalidReference }]);
      // The refused call is undone whole, README and all.
      expect(await t.hosting.branches.list(id)).toEqual([]);
      expect((await t.hosting.projects.get(id)).default_branch).toBeNull();
      // A project whose default branch is another: its README goes there.
      const other = await t.hosting.projects.createForUser(owner.id, {
        name: `Main ${Math.random().toString(36).slice(2)}`,
        default_branch: 'main',
      });
      const made = await t.hosting.as(owner.id).branches.create(other.id, { branch: 'topic', ref: 'main' });
      expect(made.commit.title).toBe('Add README.md');
      expect((await t.hosting.branches.list(other.id)).map((branch) => branch.name)).toEqual(['main', 'topic']);
    },
  );

  it('is refused to a developer as a push to the protected default branch would be, leaving the repository empty', async () => {
    const { id } = await empty();
    const res = await t.http.post(base(id)).set('PRIVATE-TOKEN', developer.token).send({ branch: 'feature', ref: 'master' });
    expect([res.status, res.body]).toEqual([400, { message: REFUSALS.pushNotAllowed }]);
    expect(await t.hosting.branches.list(id)).toEqual([]);
    // Two at once: one README, two branches.
    const [a, b] = await Promise.all(
      ['one', 'two'].map((branch) => t.http.post(base(id)).set('PRIVATE-TOKEN', owner.token).send({ branch, ref: 'master' })),
    );
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.commit.id).toBe(b.body.commit.id);
    expect(await t.hosting.commits.list(id, { ref_name: 'master' })).toHaveLength(1);
  });
});

describe('protected branches, as today’s clients protect them', () => {
  it('protect names and patterns with push and merge levels, answer 409 for one protected already, and are removed', async () => {
    const { id } = await project();
    const url = `/api/v4/projects/${id}/protected_branches`;
    const created = await t.http
      .post(url)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ name: 'release/*', push_access_level: 30, merge_access_level: 40 });
    expect([created.status, created.body]).toEqual([
      201,
      {
        id: created.body.id,
        name: 'release/*',
        push_access_levels: [{ access_level: 30, access_level_description: 'Developers + Maintainers' }],
        merge_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
        allow_force_push: false,
        code_owner_approval_required: false,
      },
    ]);
    const again = await t.http.post(url).set('PRIVATE-TOKEN', owner.token).send({ name: 'release/*' });
    expect([again.status, again.body]).toEqual([409, { message: REFUSALS.protectionExists('release/*') }]);
    const frozen = await t.http.post(url).set('PRIVATE-TOKEN', owner.token).send({ name: 'frozen', push_access_level: 0 });
    expect(frozen.body.push_access_levels).toEqual([{ access_level: 0, access_level_description: 'No one' }]);
    const list = await t.http.get(url).set('PRIVATE-TOKEN', owner.token);
    expect([list.status, list.body.map((protection: { name: string }) => protection.name), list.headers['x-total']]).toEqual([
      200,
      ['frozen', 'master', 'release/*'],
      '3',
    ]);
    expect((await t.http.get(`${url}/${encodeURIComponent('release/*')}`).set('PRIVATE-TOKEN', owner.token)).body.name).toBe('release/*');
    // The pattern protects the branches it matches; "no one" leaves only administrators.
    await t.hosting.branches.create(id, { branch: 'release/1.0', ref: 'master' });
    await t.hosting.branches.create(id, { branch: 'frozen', ref: 'master' });
    const asDeveloper = t.hosting.as(developer.id);
    expect((await asDeveloper.branches.get(id, 'release/1.0')).protected).toBe(true);
    await asDeveloper.repositoryFiles.create(id, 'r.txt', { branch: 'release/1.0', content: 'r', commit_message: 'Release' });
    await expect(
      t.hosting.as(owner.id).repositoryFiles.create(id, 'f.txt', { branch: 'frozen', content: 'f', commit_message: 'Frozen' }),
    ).rejects.toMatchObject({ status: 400, messages: REFUSALS.pushNotAllowed });
    await t.hosting.repositoryFiles.create(id, 'f.txt', { branch: 'frozen', content: 'f', commit_message: 'Frozen, by an administrator' });
    expect((await t.http.delete(`${url}/frozen`).set('PRIVATE-TOKEN', owner.token)).status).toBe(204);
    expect((await t.http.delete(`${url}/frozen`).set('PRIVATE-TOKEN', owner.token)).body).toEqual({ message: '404 Not found' });
    expect((await t.http.get(url).set('PRIVATE-TOKEN', developer.token)).status).toBe(403);
  });

  it('DELETE /repository/merged_branches deletes the merged branches, not the default, unmerged or protected ones', async () => {
    const { id } = await project();
    for (const branch of ['merged-one', 'merged-two', 'kept-protected', 'unmerged'])
      await t.hosting.branches.create(id, { branch, ref: 'master' });
    await t.hosting.branches.protect(id, 'kept-protected', {});
    await t.hosting.repositoryFiles.create(id, 'u.txt', { branch: 'unmerged', content: 'u', commit_message: 'Unmerged' });
    const res = await t.http.delete(`/api/v4/projects/${id}/repository/merged_branches`).set('PRIVATE-TOKEN', owner.token);
    expect([res.status, res.body]).toEqual([202, { message: '202 Accepted' }]);
    expect((await t.hosting.branches.list(id)).map((branch) => branch.name)).toEqual(['kept-protected', 'master', 'unmerged']);
  });
});

describe('the default branch', () => {
  it('is changed with PUT /projects/:id to a branch that exists, and HEAD names it', async () => {
    const { id } = await project();
    await t.hosting.branches.create(id, { branch: 'develop', ref: 'master' });
    const missing = await t.http.put(`/api/v4/projects/${id}`).set('PRIVATE-TOKEN', owner.token).send({ default_branch: 'nowhere' });
    expect([missing.status, missing.body]).toEqual([
      400,
      { message: { base: ["Could not change HEAD: branch 'nowhere' does not exist"] } },
    ]);
    const changed = await t.http.put(`/api/v4/projects/${id}`).set('PRIVATE-TOKEN', owner.token).send({ default_branch: 'develop' });
    expect([changed.status, changed.body.default_branch]).toEqual([200, 'develop']);
    expect((await t.hosting.branches.get(id, 'develop')).default).toBe(true);
    expect((await t.hosting.commits.list(id)).map((commit) => commit.title)).toEqual(['Initial']);
    if (hasGit) expect(git(id, 'symbolic-ref', 'HEAD')).toBe('refs/heads/develop\n');
    // Now master may go.
    expect((await t.http.delete(`${base(id)}/master`).set('PRIVATE-TOKEN', owner.token)).status).toBe(204);
  });
});
