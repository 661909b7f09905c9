/**
 * Writes racing for one branch: under the repository's lock each reads the branch, writes its objects and moves
 * the branch from what it read, so that none is lost and a stale `last_commit_id` is refused; a write that fails
 * leaves the branch where it was. Checked with native git where it is installed.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { createUser, hasGit, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
let owner: Awaited<ReturnType<typeof createUser>>;
let storage: string;
beforeAll(async () => {
  t = await sharedHosting();
  storage = t.storage;
  owner = await createUser(t.hosting);
});
afterAll(async () => {
  await t.close();
});

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['--git-dir', join(storage, RepositoryStore.relativePath(projectId)), ...args], { encoding: 'utf8' });

/** A project of the owner's with `README.md` committed to `main`. */
async function projectWithFile(): Promise<{ id: number; first: string }> {
  const api = t.hosting.as(owner.id);
  const { id } = await api.projects.create({ name: `Race ${Math.random().toString(36).slice(2)}` });
  const first = await api.commits.create(id, {
    branch: 'main',
    commit_message: 'First',
    actions: [{ action: 'create', file_path: 'README.md', content: 'first\n' }],
  });
  return { id, first: first.id };
}

describe('concurrent writes to one branch', () => {
  it('20 updates of one file from the same last_commit_id: exactly one lands, the others get 400', async () => {
    const { id, first } = await projectWithFile();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        t.http
          .put(`/api/v4/projects/${id}/repository/files/README.md`)
          .set('PRIVATE-TOKEN', owner.token)
          .send({ branch: 'main', content: `edit ${index}\n`, commit_message: `Edit ${index}`, last_commit_id: first }),
      ),
    );
    const won = answers.filter((res) => res.status === 200);
    const lost = answers.filter((res) => res.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost.map((res) => [res.status, res.body])).toEqual(Array.from({ length: 19 }, () => [400, { message: REFUSALS.fileChanged }]));
    const winner = answers.indexOf(won[0]);
    const history = await t.hosting.commits.list(id, { ref_name: 'main' });
    expect(history.map((commit) => commit.title)).toEqual([`Edit ${winner}`, 'First']);
    const file = await t.hosting.repositoryFiles.get(id, 'README.md', { ref: 'main' });
    expect(Buffer.from(file.content, 'base64').toString()).toBe(`edit ${winner}\n`);
    if (hasGit) {
      expect(git(id, 'log', '--format=%s', 'main')).toBe(`Edit ${winner}\nFirst\n`);
      expect(git(id, 'fsck', '--full', '--strict')).toBe('');
    }
  });

  it('20 batch commits without last_commit_id: all land, one after another, none lost', async () => {
    const { id } = await projectWithFile();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        t.http
          .post(`/api/v4/projects/${id}/repository/commits`)
          .set('PRIVATE-TOKEN', owner.token)
          .send({
            branch: 'main',
            commit_message: `Batch ${index}`,
            actions: [
              { action: 'create', file_path: `files/${index}.txt`, content: `${index}\n` },
              { action: 'update', file_path: 'README.md', content: `batch ${index}\n` },
            ],
          }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array.from({ length: 20 }, () => 201));
    const history = await t.hosting.commits.list(id, { ref_name: 'main', per_page: 100 });
    expect(history).toHaveLength(21);
    // A line: each commit's parent is the one before it.
    for (let index = 0; index < 20; index++) expect(history[index].parent_ids).toEqual([history[index + 1].id]);
    expect(
      history
        .slice(0, 20)
        .map((commit) => commit.title)
        .sort(),
    ).toEqual(Array.from({ length: 20 }, (_, index) => `Batch ${index}`).sort());
    const tree = await Promise.all(
      Array.from({ length: 20 }, (_, index) => t.hosting.repositoryFiles.get(id, `files/${index}.txt`, { ref: 'main' })),
    );
    expect(tree.map((file) => Buffer.from(file.content, 'base64').toString())).toEqual(
      Array.from({ length: 20 }, (_, index) => `${index}\n`),
    );
    if (hasGit) {
      expect(git(id, 'rev-list', '--count', 'main')).toBe('21\n');
      expect(git(id, 'fsck', '--full', '--strict')).toBe('');
    }
  });
});

describe('a failed write', () => {
  it('leaves the branch where it was: a batch commit whose last action deletes a missing file', async () => {
    const { id, first } = await projectWithFile();
    const res = await t.http
      .post(`/api/v4/projects/${id}/repository/commits`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({
        branch: 'main',
        commit_message: 'Half',
        actions: [
          { action: 'create', file_path: 'new.txt', content: 'new\n' },
          { action: 'update', file_path: 'README.md', content: 'changed\n' },
          { action: 'delete', file_path: 'missing.txt' },
        ],
      });
    expect([res.status, res.body]).toEqual([400, { message: REFUSALS.fileMissing }]);
    expect((await t.hosting.branches.get(id, 'main')).commit.id).toBe(first);
    await expect(t.hosting.repositoryFiles.get(id, 'new.txt', { ref: 'main' })).rejects.toMatchObject({ status: 404 });
    if (hasGit) {
      expect(git(id, 'rev-parse', 'main')).toBe(`${first}\n`);
      // The blobs written before the failing action stay, unreferenced: harmless, and what `git gc` removes.
      expect(git(id, 'fsck', '--full', '--strict', '--no-dangling')).toBe('');
      expect(git(id, 'fsck', '--full', '--strict')).toMatch(/^(dangling blob [0-9a-f]{40}\n)+$/);
    }
  });

  it('leaves a new branch unmade, and the project without a default branch when the repository was empty', async () => {
    const api = t.hosting.as(owner.id);
    const { id } = await api.projects.create({ name: `Empty ${Math.random().toString(36).slice(2)}` });
    const res = await t.http
      .post(`/api/v4/projects/${id}/repository/commits`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ branch: 'main', commit_message: 'Nothing', actions: [{ action: 'update', file_path: 'missing.txt', content: 'x' }] });
    expect([res.status, res.body]).toEqual([400, { message: REFUSALS.fileMissing }]);
    expect(await api.branches.list(id)).toEqual([]);
    expect((await api.projects.get(id)).default_branch).toBeNull();
  });
});
