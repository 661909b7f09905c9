/**
 * The repository read whole (src/api/repository.ts): a commit's diff, cherry-picks, trees, blobs, archives and
 * comparisons, over HTTP and in process, checked against native git, tar and unzip where they are installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import type { Response } from 'supertest';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveLimitError, checkArchiveSize } from '../src/git/archive.js';
import { ArchiveTooLargeError, makeArchive } from '../src/git/archive-pool.js';
import { authorsOf } from '../src/git/history.js';
import { ObjectReader } from '../src/git/object-reader.js';
import { BRANCH_PREFIX } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { CONTRIBUTOR_COMMITS } from '../src/services/repository/repository.js';
import { createUser, hasGit, pageHeaders, sharedHosting, type SharedHosting, type TestHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let developer: User;
let reporter: User;
let guest: User;
let stranger: User;
let storage: string;
let store: RepositoryStore;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
  store = new RepositoryStore({ default: storage });
  [owner, developer, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

/** A streamed answer's bytes, read to the end. */
const bytesOf = async (stream: Readable) => Buffer.concat(await stream.toArray());

const installed = (command: string, ...args: string[]) => spawnSync(command, args).status === 0;
const hasTar = installed('tar', '--version');
const hasUnzip = installed('unzip', '-v');
const hasBzip2 = installed('bzip2', '--help');
/** A bzip2 stream decompressed by the bzip2 program. */
const bunzip2 = (data: Buffer) => execFileSync('bzip2', ['-dc'], { input: data, maxBuffer: 256 * 1024 * 1024 });

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['--git-dir', join(storage, RepositoryStore.relativePath(projectId)), ...args], { encoding: 'utf8' });
const api = (path: string) => `/api/v4/projects/${path}`;
const nameOf = (user: User) => `User ${user.username.slice(4)}`;
const base64 = (value: string | Buffer) => Buffer.from(value).toString('base64');

/** A PNG's first bytes, with NUL in them: binary content. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

interface Project {
  id: number;
  path: string;
  fullPath: string;
}

/** A project of the owner's with members at every level below it, and a first commit on master. */
async function project(
  visibility: 'private' | 'public' = 'private',
  files: Record<string, string> = { 'README.md': '# Hello\n' },
): Promise<Project> {
  const made = await t.hosting.as(owner.id).projects.create({ name: `Repository ${Math.random().toString(36).slice(2)}`, visibility });
  for (const [user, access_level] of [
    [developer, 30],
    [reporter, 20],
    [guest, 10],
  ] as const) {
    await t.hosting.as(owner.id).projectMembers.add(made.id, { user_id: user.id, access_level });
  }
  await t.hosting.as(owner.id).commits.create(made.id, {
    branch: 'master',
    commit_message: 'First',
    actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create' as const, file_path, content })),
  });
  return { id: made.id, path: made.path, fullPath: made.path_with_namespace };
}

const commit = (
  id: number,
  branch: string,
  message: string,
  actions: Parameters<TestHosting['hosting']['commits']['create']>[1]['actions'],
  extra: Record<string, string> = {},
) => t.hosting.as(owner.id).commits.create(id, { branch, commit_message: message, actions, ...extra });

/** The hunks git writes for a file between two commits: its unified diff without the header lines. */
const gitHunks = (id: number, from: string, to: string, path: string) =>
  git(id, 'diff', '--no-renames', from, to, '--', path).replace(/^(?:.*\n)*?(?=@@ )/, '');

describe('GET /projects/:id/repository/commits/:sha/diff', () => {
  it('shows each file a commit adds, modifies, renames, deletes, chmods and changes as binary, against its first parent', async () => {
    const { id } = await project('private', {
      'keep.txt': 'one\ntwo\n',
      'old.txt': 'moving\n',
      'gone.txt': 'bye\n',
      'run.sh': 'echo hi\n',
    });
    const first = await commit(id, 'master', 'Binary', [
      { action: 'create', file_path: 'image.png', content: base64(PNG), encoding: 'base64' },
    ]);
    const second = await commit(id, 'master', 'Everything', [
      { action: 'create', file_path: 'added.txt', content: 'hello\n' },
      { action: 'update', file_path: 'keep.txt', content: 'one\nthree\n' },
      { action: 'move', file_path: 'docs/new.txt', previous_path: 'old.txt' },
      { action: 'delete', file_path: 'gone.txt' },
      { action: 'chmod', file_path: 'run.sh', execute_filemode: true },
      { action: 'update', file_path: 'image.png', content: base64(Buffer.concat([PNG, Buffer.from([0, 1])])), encoding: 'base64' },
      // A directory and a file of the same stem: git orders `x.txt` before what is in `x/`.
      { action: 'create', file_path: 'x/y.txt', content: 'y\n' },
      { action: 'create', file_path: 'x.txt', content: 'x\n' },
    ]);
    const res = await t.http.get(api(`${id}/repository/commits/${second.id}/diff`)).set('PRIVATE-TOKEN', reporter.token);
    expect(res.status).toBe(200);
    const entry = (path: string, fields: Record<string, unknown>) => ({
      old_path: path,
      new_path: path,
      new_file: false,
      renamed_file: false,
      deleted_file: false,
      ...fields,
    });
    expect(res.body).toEqual([
      entry('added.txt', { diff: '@@ -0,0 +1 @@\n+hello\n', a_mode: '0', b_mode: '100644', new_file: true }),
      entry('docs/new.txt', { old_path: 'old.txt', diff: '', a_mode: '100644', b_mode: '100644', renamed_file: true }),
      entry('gone.txt', { diff: '@@ -1 +0,0 @@\n-bye\n', a_mode: '100644', b_mode: '0', deleted_file: true }),
      entry('image.png', { diff: 'Binary files a/image.png and b/image.png differ\n', a_mode: '100644', b_mode: '100644' }),
      entry('keep.txt', { diff: '@@ -1,2 +1,2 @@\n one\n-two\n+three\n', a_mode: '100644', b_mode: '100644' }),
      entry('run.sh', { diff: '', a_mode: '100644', b_mode: '100755' }),
      entry('x.txt', { diff: '@@ -0,0 +1 @@\n+x\n', a_mode: '0', b_mode: '100644', new_file: true }),
      entry('x/y.txt', { diff: '@@ -0,0 +1 @@\n+y\n', a_mode: '0', b_mode: '100644', new_file: true }),
    ]);
    if (hasGit) {
      for (const path of ['added.txt', 'gone.txt', 'keep.txt']) {
        expect(res.body.find((diff: { new_path: string }) => diff.new_path === path).diff).toBe(gitHunks(id, first.id, second.id, path));
      }
      expect(git(id, 'diff', '--name-status', '-M', first.id, second.id)).toBe(
        'A\tadded.txt\nR100\told.txt\tdocs/new.txt\nD\tgone.txt\nM\timage.png\nM\tkeep.txt\nM\trun.sh\nA\tx.txt\nA\tx/y.txt\n',
      );
    }
    // A new binary file, against the missing side.
    const binary = await t.http.get(api(`${id}/repository/commits/${first.id}/diff`)).set('PRIVATE-TOKEN', reporter.token);
    expect(binary.body).toEqual([
      entry('image.png', { diff: 'Binary files /dev/null and b/image.png differ\n', a_mode: '0', b_mode: '100644', new_file: true }),
    ]);
  });

  it('shows everything as added for a first commit, a page at a time; by branch name too, and in process', async () => {
    const { id } = await project('private', { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c/d.txt': 'd\n' });
    const page = await t.http
      .get(api(`${id}/repository/commits/master/diff`))
      .query({ per_page: 2, page: 2 })
      .set('PRIVATE-TOKEN', owner.token);
    expect(page.status).toBe(200);
    expect(pageHeaders(page.headers)).toEqual({ total: 3, totalPages: 2, perPage: 2, page: 2, nextPage: null, prevPage: 1 });
    expect(page.body).toEqual([
      {
        diff: '@@ -0,0 +1 @@\n+d\n',
        old_path: 'c/d.txt',
        new_path: 'c/d.txt',
        a_mode: '0',
        b_mode: '100644',
        new_file: true,
        renamed_file: false,
        deleted_file: false,
      },
    ]);
    const inProcess = await t.hosting.as(reporter.id).repository.commitDiff(id, 'master');
    expect(inProcess.map((diff) => diff.new_path)).toEqual(['a.txt', 'b.txt', 'c/d.txt']);
  });

  it('answers 404 Commit Not Found for a commit that is not there, and hides a private project', async () => {
    const { id } = await project();
    for (const sha of ['0'.repeat(40), 'no-such-branch']) {
      const res = await t.http.get(api(`${id}/repository/commits/${sha}/diff`)).set('PRIVATE-TOKEN', owner.token);
      expect([res.status, res.body]).toEqual([404, { message: '404 Commit Not Found' }]);
    }
    const hidden = await t.http.get(api(`${id}/repository/commits/master/diff`)).set('PRIVATE-TOKEN', stranger.token);
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
  });
});

describe('POST /projects/:id/repository/commits/:sha/cherry_pick', () => {
  /** master with a ten-line file, and a feature branch that changes its last line in one commit. */
  async function withFeature() {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}\n`).join('');
    const made = await project('private', { 'file.txt': lines });
    const picked = await commit(
      made.id,
      'feature',
      'Change the end\n\nWith a body.',
      [{ action: 'update', file_path: 'file.txt', content: lines.replace('line 10', 'line ten') }],
      {
        start_branch: 'master',
        author_name: 'Grace Hopper',
        author_email: 'grace@example.com',
      },
    );
    return { ...made, lines, picked };
  }
  const pick = (id: number, sha: string, user: User, body: Record<string, unknown> = { branch: 'master' }) =>
    t.http
      .post(api(`${id}/repository/commits/${sha}/cherry_pick`))
      .set('PRIVATE-TOKEN', user.token)
      .send(body);

  it('applies the commit’s change to a branch that moved on: its author and message kept, the caller the committer', async () => {
    const { id, fullPath, lines, picked } = await withFeature();
    const head = await commit(id, 'master', 'Change the start', [
      { action: 'update', file_path: 'file.txt', content: lines.replace('line 1\n', 'line one\n') },
    ]);
    const res = await pick(id, picked.id, owner);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      short_id: res.body.id.slice(0, 8),
      title: 'Change the end',
      message: `Change the end\n\nWith a body.\n\n(cherry picked from commit ${picked.id})\n`,
      author_name: 'Grace Hopper',
      author_email: 'grace@example.com',
      authored_date: picked.authored_date,
      committer_name: nameOf(owner),
      committer_email: owner.email,
      committed_date: res.body.committed_date,
      created_at: res.body.committed_date,
      parent_ids: [head.id],
      web_url: `http://forge.test/${fullPath}/commit/${res.body.id}`,
    });
    const file = await t.hosting.repositoryFiles.raw(id, 'file.txt', { ref: 'master' });
    expect((await bytesOf(file.data)).toString()).toBe(lines.replace('line 1\n', 'line one\n').replace('line 10', 'line ten'));
    if (hasGit) {
      expect(git(id, 'fsck', '--full', '--strict')).toBe('');
      expect(git(id, 'log', '--format=%H %P|%an <%ae>|%cn|%s', 'master')).toBe(
        [
          `${res.body.id} ${head.id}|Grace Hopper <grace@example.com>|${nameOf(owner)}|Change the end`,
          `${head.id} ${head.parent_ids[0]}|${nameOf(owner)} <${owner.email}>|${nameOf(owner)}|Change the start`,
          `${head.parent_ids[0]} |${nameOf(owner)} <${owner.email}>|${nameOf(owner)}|First`,
          '',
        ].join('\n'),
      );
      // The same change as git shows it, but for the blobs it goes between.
      const change = (from: string, to: string) => git(id, 'diff', from, to).replace(/^index .*\n/m, '');
      expect(change(head.id, res.body.id)).toBe(change(picked.parent_ids[0], picked.id));
    }
    // The branch moved, through the one path every commit takes: the answer is its new head.
    expect((await t.hosting.branches.get(id, 'master')).commit.id).toBe(res.body.id);
  });

  it('answers 400 for a pick that conflicts and for one that changes nothing, and leaves the branch where it was', async () => {
    const { id, lines, picked } = await withFeature();
    const conflicting = await commit(id, 'master', 'Also change the end', [
      { action: 'update', file_path: 'file.txt', content: lines.replace('line 10', 'line X') },
    ]);
    const res = await pick(id, picked.id, owner);
    expect([res.status, res.body]).toEqual([400, { message: REFUSALS.cherryPickFailed }]);
    expect(res.body.message).toBe(
      'Sorry, we cannot cherry-pick this commit automatically.\n                   This commit may already have been cherry-picked, ' +
        'or a more recent commit may have updated some of its content.',
    );
    expect((await t.hosting.branches.get(id, 'master')).commit.id).toBe(conflicting.id);

    // Picked once onto another branch, a second pick of it changes nothing.
    await t.hosting.as(owner.id).branches.create(id, { branch: 'stable', ref: picked.parent_ids[0] });
    expect((await pick(id, picked.id, owner, { branch: 'stable' })).status).toBe(201);
    const again = await pick(id, picked.id, owner, { branch: 'stable' });
    expect([again.status, again.body]).toEqual([400, { message: REFUSALS.cherryPickFailed }]);
    // A commit the branch holds already changes nothing either.
    const own = await pick(id, conflicting.id, owner);
    expect([own.status, own.body]).toEqual([400, { message: REFUSALS.cherryPickFailed }]);
    if (hasGit) expect(git(id, 'fsck', '--full', '--strict')).toBe('');
  });

  it('picks a merge commit against its first parent, and a first commit onto an unrelated branch', async () => {
    const { id, lines, picked } = await withFeature();
    // A merge of feature into a side branch, made beside forgekit as a push would: it brings feature's change.
    const repo = store.open('default', id);
    const side = await commit(id, 'side', 'Side work', [{ action: 'create', file_path: 'side.txt', content: 'side\n' }], {
      start_branch: 'master',
    });
    const signature = { name: 'Ada', email: 'ada@example.com', timestamp: 1_700_000_000, offsetMinutes: 60 };
    // Its tree is feature's: against side, its first parent, it changes file.txt's end and takes side.txt away.
    const merge = await repo.writeCommit({
      tree: (await repo.readCommit(picked.id)).tree,
      parents: [side.id, picked.id],
      message: 'Merge feature\n',
      author: signature,
      committer: signature,
    });
    await repo.updateReference(`${BRANCH_PREFIX}merged`, null, merge);
    const res = await pick(id, merge, owner);
    expect(res.status).toBe(201);
    expect([res.body.author_name, res.body.authored_date, res.body.title]).toEqual([
      'Ada',
      '2023-11-14T23:13:20.000+01:00',
      'Merge feature',
    ]);
    // master never had side.txt; the change to the end lands.
    expect((await t.hosting.repository.tree(id, { ref: 'master' })).map((entry) => entry.path)).toEqual(['file.txt']);
    expect((await bytesOf((await t.hosting.repositoryFiles.raw(id, 'file.txt', { ref: 'master' })).data)).toString()).toBe(
      lines.replace('line 10', 'line ten'),
    );

    // The first commit, against nothing: everything it adds lands on a branch with a history of its own.
    const orphanTree = await repo.writeTree([
      { name: 'other.txt', mode: '100644', oid: await repo.writeBlob(Buffer.from('other\n')), type: 'blob' },
    ]);
    const orphan = await repo.writeCommit({ tree: orphanTree, parents: [], message: 'Orphan\n', author: signature, committer: signature });
    await repo.updateReference(`${BRANCH_PREFIX}orphan`, null, orphan);
    const first = picked.parent_ids[0];
    const root = await pick(id, first, owner, { branch: 'orphan' });
    expect([root.status, root.body.parent_ids, root.body.title]).toEqual([201, [orphan], 'First']);
    expect((await t.hosting.repository.tree(id, { ref: 'orphan' })).map((entry) => entry.path)).toEqual(['file.txt', 'other.txt']);
    if (hasGit) expect(git(id, 'fsck', '--full', '--strict')).toBe('');
  });

  it(
    'refuses a developer on a protected branch (400), a reporter (403), ' + 'a stranger (404); 404 for a missing branch or commit',
    async () => {
      const { id, picked } = await withFeature();
      const protectedBranch = await pick(id, picked.id, developer);
      expect([protectedBranch.status, protectedBranch.body]).toEqual([400, { message: REFUSALS.pushNotAllowed }]);
      const asReporter = await pick(id, picked.id, reporter);
      expect([asReporter.status, asReporter.body]).toEqual([403, { message: '403 Forbidden' }]);
      const hidden = await pick(id, picked.id, stranger);
      expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
      const noBranch = await pick(id, picked.id, owner, { branch: 'nope' });
      expect([noBranch.status, noBranch.body]).toEqual([404, { message: '404 Branch Not Found' }]);
      const noCommit = await pick(id, 'f'.repeat(40), owner);
      expect([noCommit.status, noCommit.body]).toEqual([404, { message: '404 Commit Not Found' }]);
      const noParameter = await pick(id, picked.id, owner, {});
      expect([noParameter.status, noParameter.body]).toEqual([400, { message: '400 (Bad request) "branch" not given' }]);
      const dryRun = await pick(id, picked.id, owner, { branch: 'master', dry_run: true });
      expect([dryRun.status, dryRun.body]).toEqual([400, { message: { dry_run: ['is not supported'] } }]);
      expect((await t.hosting.branches.get(id, 'master')).commit.id).toBe(picked.parent_ids[0]);
      // A developer may pick onto an unprotected branch, in process too.
      await t.hosting.as(owner.id).branches.create(id, { branch: 'work', ref: 'master' });
      const made = await t.hosting
        .as(developer.id)
        .repository.cherryPick(id, picked.id, { branch: 'work', message: 'Backport the end', dry_run: false });
      expect([made.committer_name, made.author_name, made.message]).toEqual([nameOf(developer), 'Grace Hopper', 'Backport the end\n']);
    },
  );
});

describe('GET /projects/:id/repository/tree', () => {
  async function withTree() {
    const made = await project('private', {
      'README.md': '# Tree\n',
      'b.txt': 'b\n',
      'lib/z.rb': 'z\n',
      'lib/a/one.rb': '1\n',
      'docs/guide.md': 'g\n',
      'run.sh': '#!/bin/sh\n',
    });
    await commit(made.id, 'master', 'Executable', [{ action: 'chmod', file_path: 'run.sh', execute_filemode: true }]);
    return made;
  }
  const tree = (id: number, user: User | null, query: Record<string, unknown> = {}) => {
    const request = t.http.get(api(`${id}/repository/tree`)).query(query);
    return user ? request.set('PRIVATE-TOKEN', user.token) : request;
  };
  const summary = (res: Response) =>
    res.body.map((entry: { type: string; path: string; mode: string }) => `${entry.type} ${entry.mode} ${entry.path}`);

  it('lists a directory: directories first, then files, each in git’s order, with their object IDs and modes', async () => {
    const { id } = await withTree();
    const res = await tree(id, reporter);
    expect(res.status).toBe(200);
    expect(summary(res)).toEqual([
      'tree 040000 docs',
      'tree 040000 lib',
      'blob 100644 README.md',
      'blob 100644 b.txt',
      'blob 100755 run.sh',
    ]);
    const readme = res.body.find((entry: { name: string }) => entry.name === 'README.md');
    expect(readme).toEqual({
      id: (await t.hosting.repositoryFiles.get(id, 'README.md', { ref: 'master' })).blob_id,
      name: 'README.md',
      type: 'blob',
      path: 'README.md',
      mode: '100644',
    });
    if (hasGit) {
      const native = git(id, 'ls-tree', 'master')
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[2]);
      expect(res.body.map((entry: { id: string }) => entry.id).sort()).toEqual(native.sort());
    }
  });

  it('lists everything below a directory with `recursive`, by `path` and `ref`, a page at a time', async () => {
    const { id } = await withTree();
    const all = await tree(id, owner, { recursive: true });
    expect(summary(all)).toEqual([
      'tree 040000 docs',
      'tree 040000 lib',
      'tree 040000 lib/a',
      'blob 100644 README.md',
      'blob 100644 b.txt',
      'blob 100644 docs/guide.md',
      'blob 100644 lib/a/one.rb',
      'blob 100644 lib/z.rb',
      'blob 100755 run.sh',
    ]);
    const lib = await tree(id, owner, { path: 'lib', recursive: 'True' });
    expect(summary(lib)).toEqual(['tree 040000 lib/a', 'blob 100644 lib/a/one.rb', 'blob 100644 lib/z.rb']);
    expect(lib.body[2]).toMatchObject({ name: 'z.rb', path: 'lib/z.rb' });
    expect(summary(await tree(id, owner, { path: 'lib/a/' }))).toEqual(['blob 100644 lib/a/one.rb']);
    const first = (await t.hosting.commits.list(id, { ref_name: 'master' })).at(-1)!;
    expect(summary(await tree(id, owner, { ref: first.id, path: 'lib' }))).toEqual(['tree 040000 lib/a', 'blob 100644 lib/z.rb']);
    const page = await tree(id, owner, { recursive: true, per_page: 4, page: 3 });
    expect(pageHeaders(page.headers)).toEqual({ total: 9, totalPages: 3, perPage: 4, page: 3, nextPage: null, prevPage: 2 });
    expect(summary(page)).toEqual(['blob 100755 run.sh']);
    if (hasGit)
      expect(git(id, 'ls-tree', '-r', '-t', '--name-only', 'master').trim().split('\n').sort()).toEqual(
        all.body.map((entry: { path: string }) => entry.path).sort(),
      );
  });

  it('answers 404 Tree Not Found for a ref, a directory or a file that is not a tree, and for an empty repository', async () => {
    const { id } = await withTree();
    for (const query of [{ ref: 'nope' }, { path: 'missing' }, { path: 'README.md' }, { ref: 'master', path: 'lib/z.rb' }]) {
      const res = await tree(id, owner, query);
      expect([JSON.stringify(query), res.status, res.body]).toEqual([JSON.stringify(query), 404, { message: '404 Tree Not Found' }]);
    }
    const empty = await t.hosting.as(owner.id).projects.create({ name: `Empty ${Math.random().toString(36).slice(2)}` });
    const res = await tree(empty.id, owner);
    expect([res.status, res.body]).toEqual([404, { message: '404 Tree Not Found' }]);
  });

  it('is read by a reporter of a private project, not by a guest (403) nor a stranger (404); by anyone on a public one', async () => {
    const { id } = await withTree();
    expect((await tree(id, reporter)).status).toBe(200);
    const asGuest = await tree(id, guest);
    expect([asGuest.status, asGuest.body]).toEqual([403, { message: '403 Forbidden' }]);
    const asStranger = await tree(id, stranger);
    expect([asStranger.status, asStranger.body]).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await tree(id, null)).status).toBe(404);
    const open = await project('public');
    const anonymous = await tree(open.id, null);
    expect([anonymous.status, summary(anonymous)]).toEqual([200, ['blob 100644 README.md']]);
  });
});

describe('GET /projects/:id/repository/blobs/:sha and /raw', () => {
  it('answers a blob in Base64, and its bytes unchanged: text as text/plain, binary as application/octet-stream', async () => {
    const { id } = await project('private', { 'README.md': '# Hello\n' });
    await commit(id, 'master', 'Binary', [{ action: 'create', file_path: 'image.png', content: base64(PNG), encoding: 'base64' }]);
    const readme = await t.hosting.repositoryFiles.get(id, 'README.md', { ref: 'master' });
    const image = await t.hosting.repositoryFiles.get(id, 'image.png', { ref: 'master' });
    const blob = await t.http.get(api(`${id}/repository/blobs/${readme.blob_id}`)).set('PRIVATE-TOKEN', reporter.token);
    expect([blob.status, blob.body]).toEqual([200, { size: 8, encoding: 'base64', content: base64('# Hello\n'), sha: readme.blob_id }]);
    const text = await t.http.get(api(`${id}/repository/blobs/${readme.blob_id}/raw`)).set('PRIVATE-TOKEN', reporter.token);
    expect([text.status, text.headers['content-type'], text.text]).toEqual([200, 'text/plain; charset=utf-8', '# Hello\n']);
    const raw = await t.http
      .get(api(`${id}/repository/blobs/${image.blob_id.toUpperCase()}/raw`))
      .set('PRIVATE-TOKEN', reporter.token)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect([raw.status, raw.headers['content-type'], Buffer.compare(raw.body as Buffer, PNG)]).toEqual([
      200,
      'application/octet-stream',
      0,
    ]);
    const inProcess = await t.hosting.as(reporter.id).repository.rawBlob(id, image.blob_id);
    expect([inProcess.size, (await bytesOf(inProcess.data)).equals(PNG)]).toEqual([PNG.byteLength, true]);
    if (hasGit) expect(git(id, 'cat-file', '-s', image.blob_id)).toBe(`${PNG.byteLength}\n`);
  });

  it('answers 404 Blob Not Found for a missing object, a tree, a commit, or what is no object ID', async () => {
    const { id } = await project();
    const head = await t.hosting.commits.get(id, 'master');
    const treeOid = (await store.open('default', id).readCommit(head.id)).tree;
    for (const sha of ['0'.repeat(40), treeOid, head.id, head.id.slice(0, 8), 'master']) {
      for (const suffix of ['', '/raw']) {
        const res = await t.http.get(api(`${id}/repository/blobs/${sha}${suffix}`)).set('PRIVATE-TOKEN', owner.token);
        expect([sha, suffix, res.status, res.body]).toEqual([sha, suffix, 404, { message: '404 Blob Not Found' }]);
      }
    }
  });
});

/** An HTTP answer's bytes. */
const binary = (request: ReturnType<TestHosting['http']['get']>) =>
  request.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

/** A tar archive's entries as `<type> <mode> <name>` (and `-> target` for a link), with each file's content. */
async function readTar(data: Buffer): Promise<{ entries: string[]; files: Record<string, string> }> {
  const entries: string[] = [];
  const files: Record<string, string> = {};
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const { type, mode, name, linkname } = entry.header;
      entries.push(`${type} ${mode.toString(8)} ${name}${linkname ? ` -> ${linkname}` : ''}`);
      if (type === 'file') files[name] = Buffer.concat(chunks).toString();
    }
  })();
  reader.end(data);
  await done;
  return { entries, files };
}

describe('GET /projects/:id/repository/archive[.format]', () => {
  async function withFiles() {
    const made = await project('private', { 'README.md': '# Archive\n', 'bin/run': '#!/bin/sh\necho run\n', 'lib/deep/x.txt': 'x\n' });
    await commit(made.id, 'master', 'Executable and link', [{ action: 'chmod', file_path: 'bin/run', execute_filemode: true }]);
    // A symbolic link, as a push would bring it.
    const repo = store.open('default', made.id);
    const head = await repo.readCommit((await repo.branch('master'))!);
    const link = await repo.writeBlob(Buffer.from('README.md'));
    const tree = await repo.writeTree([...(await repo.readTree(head.tree)), { name: 'link', mode: '120000', oid: link, type: 'blob' }]);
    const signature = { name: 'Ada', email: 'ada@example.com', timestamp: 1_700_000_000, offsetMinutes: 0 };
    const withLink = await repo.writeCommit({ tree, parents: [head.oid], message: 'Link\n', author: signature, committer: signature });
    await repo.updateReference(`${BRANCH_PREFIX}release/1.0`, null, withLink);
    return { ...made, sha: withLink };
  }
  const archive = (id: number, suffix: string, query: Record<string, string>, user: User = reporter) =>
    binary(
      t.http
        .get(api(`${id}/repository/archive${suffix}`))
        .query(query)
        .set('PRIVATE-TOKEN', user.token),
    );

  it('answers a tar.gz of a ref under <project>-<ref>-<sha>/, executable files and links kept, as the original names it', async () => {
    const { id, path, sha } = await withFiles();
    for (const [suffix, query] of [
      ['', { sha: 'release/1.0' }],
      ['.tar.gz', { sha: 'release/1.0' }],
      ['.tgz', { sha: 'release/1.0' }],
    ] as const) {
      const res = await archive(id, suffix, query);
      const prefix = `${path}-release-1.0-${sha}`;
      expect([
        suffix,
        res.status,
        res.headers['content-type'],
        res.headers['content-disposition'],
        res.headers['content-transfer-encoding'],
      ]).toEqual([suffix, 200, 'application/octet-stream', `attachment; filename="${prefix}.tar.gz"`, 'binary']);
      const { entries, files } = await readTar(gunzipSync(res.body as Buffer));
      expect(entries).toEqual([
        `directory 775 ${prefix}/`,
        `file 664 ${prefix}/README.md`,
        `directory 775 ${prefix}/bin/`,
        `file 775 ${prefix}/bin/run`,
        `directory 775 ${prefix}/lib/`,
        `directory 775 ${prefix}/lib/deep/`,
        `file 664 ${prefix}/lib/deep/x.txt`,
        `symlink 777 ${prefix}/link -> README.md`,
      ]);
      expect(files[`${prefix}/bin/run`]).toBe('#!/bin/sh\necho run\n');
    }
    if (hasTar) {
      const res = await archive(id, '.tar.gz', { sha: 'release/1.0' });
      const directory = mkdtempSync(join(tmpdir(), 'forgekit-archive-'));
      try {
        const file = join(directory, 'a.tar.gz');
        execFileSync('sh', ['-c', `cat > ${file}`], { input: res.body as Buffer });
        const listing = execFileSync('tar', ['-tvzf', file], { encoding: 'utf8' });
        expect(listing).toMatch(new RegExp(`^-rwxrwxr-x root/root +\\d+ \\S+ \\S+ ${path}-release-1.0-${sha}/bin/run$`, 'm'));
        expect(listing).toMatch(/^lrwxrwxrwx .* -> README\.md$/m);
        execFileSync('tar', ['-xzf', file, '-C', directory]);
        expect(execFileSync(join(directory, `${path}-release-1.0-${sha}`, 'bin', 'run'), { encoding: 'utf8' })).toBe('run\n');
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    }
  });

  it('answers a zip (archive.zip, or format=zip) and a plain tar, the default branch when no sha is given', async () => {
    const { id, path } = await withFiles();
    const master = (await t.hosting.commits.get(id, 'master')).id;
    const prefix = `${path}-master-${master}`;
    for (const [suffix, query] of [
      ['.zip', {}],
      ['', { format: 'zip' }],
    ] as const) {
      const res = await archive(id, suffix, query);
      expect([res.status, res.headers['content-type'], res.headers['content-disposition']]).toEqual([
        200,
        'application/zip',
        `attachment; filename="${prefix}.zip"`,
      ]);
      const unzipped = unzipSync(new Uint8Array(res.body as Buffer));
      expect(Object.keys(unzipped)).toEqual([
        `${prefix}/`,
        `${prefix}/README.md`,
        `${prefix}/bin/`,
        `${prefix}/bin/run`,
        `${prefix}/lib/`,
        `${prefix}/lib/deep/`,
        `${prefix}/lib/deep/x.txt`,
      ]);
      expect(Buffer.from(unzipped[`${prefix}/README.md`]).toString()).toBe('# Archive\n');
      if (hasUnzip) {
        const directory = mkdtempSync(join(tmpdir(), 'forgekit-archive-'));
        try {
          const file = join(directory, 'a.zip');
          execFileSync('sh', ['-c', `cat > ${file}`], { input: res.body as Buffer });
          const info = execFileSync('zipinfo', [file], { encoding: 'utf8' });
          expect(info).toMatch(new RegExp(`^-rwxr-xr-x .* ${prefix}/bin/run$`, 'm'));
          expect(info).toMatch(new RegExp(`^-rw-r--r-- .* ${prefix}/README.md$`, 'm'));
          execFileSync('unzip', ['-q', file, '-d', directory]);
          expect(execFileSync(join(directory, prefix, 'bin', 'run'), { encoding: 'utf8' })).toBe('run\n');
        } finally {
          rmSync(directory, { recursive: true, force: true });
        }
      }
    }
    const tar = await archive(id, '.tar', {});
    expect([tar.status, tar.headers['content-disposition']]).toEqual([200, `attachment; filename="${prefix}.tar"`]);
    expect((await readTar(tar.body as Buffer)).entries[0]).toBe(`directory 775 ${prefix}/`);
    const inProcess = await t.hosting.as(reporter.id).repository.archiveAs(id, 'zip', { sha: master });
    expect([inProcess.content_type, inProcess.file_name]).toEqual(['application/zip', `${path}-${master}-${master}.zip`]);
    // Not read: stopped, rather than given up with an error a minute later, while another file runs in this process.
    inProcess.data.destroy();
  });

  it('answers 404 File Not Found for a ref that names no commit, a tar.gz for a format it does not know, 403 to a guest', async () => {
    const { id, path } = await withFiles();
    const missing = await t.http
      .get(api(`${id}/repository/archive.zip`))
      .query({ sha: 'nope' })
      .set('PRIVATE-TOKEN', owner.token);
    expect([missing.status, missing.body]).toEqual([404, { message: '404 File Not Found' }]);
    // As the original: an unknown format is a tar.gz.
    for (const [suffix, query] of [
      ['.rar', {}],
      ['', { format: 'xyz' }],
      ['', { format: 'TAR' }],
    ] as const) {
      const res = await archive(id, suffix, query, owner);
      expect([
        res.status,
        res.headers['content-disposition']?.endsWith('.tar.gz"'),
        (await readTar(gunzipSync(res.body as Buffer))).entries[0],
      ]).toEqual([200, true, expect.stringMatching(new RegExp(`^directory 775 ${path}-master-`))]);
    }
    const tooLong = await t.http
      .get(api(`${id}/repository/archive`))
      .query({ format: 'x'.repeat(17) })
      .set('PRIVATE-TOKEN', owner.token);
    expect([tooLong.status, tooLong.body]).toEqual([400, { message: { format: ['is too long (maximum is 16 characters)'] } }]);
    const asGuest = await t.http.get(api(`${id}/repository/archive.zip`)).set('PRIVATE-TOKEN', guest.token);
    expect([asGuest.status, asGuest.body]).toEqual([403, { message: '403 Forbidden' }]);
  });

  it("refuses to build an archive past its size limit, from the objects' headers", async () => {
    const { id, sha } = await withFiles();
    const repo = store.open('default', id);
    const reader = new ObjectReader(repo.gitdir);
    try {
      const { tree } = await repo.readCommit(sha);
      await expect(checkArchiveSize(reader, tree, 2048)).rejects.toBeInstanceOf(ArchiveLimitError);
      // Eight entries of 512 bytes each, and the content of the four files (a link's target is its content).
      expect(await checkArchiveSize(reader, tree, 1024 * 1024)).toBe(8 * 512 + 10 + 19 + 2 + 9);
    } finally {
      await reader.close();
    }
    // A worker refuses it before it makes a byte, and takes the next archive.
    const spec = { commit: sha, tree: (await repo.readCommit(sha)).tree, time: 0, prefix: 'p', format: 'zip' as const };
    await expect(makeArchive(repo.gitdir, { ...spec, limit: 2048 })).rejects.toBeInstanceOf(ArchiveTooLargeError);
    expect((await bytesOf(await makeArchive(repo.gitdir, spec))).byteLength).toBeGreaterThan(0);
  });

  it('answers a tar.bz2 by any of its names, in the path or the query', async () => {
    const { id, path } = await withFiles();
    const sha = (await t.hosting.commits.get(id, 'master')).id;
    const tar = await archive(id, '.tar', {});
    for (const [suffix, query] of [
      ['.tar.bz2', {}],
      ['.tbz', {}],
      ['.tbz2', {}],
      ['.tb2', {}],
      ['.bz2', {}],
      ['', { format: 'tar.bz2' }],
      ['', { format: 'tbz2' }],
    ] as const) {
      const tbz = await archive(id, suffix, query);
      expect([suffix, tbz.status, tbz.headers['content-disposition'], (tbz.body as Buffer).subarray(0, 4).toString()]).toEqual([
        suffix,
        200,
        `attachment; filename="${path}-master-${sha}.tar.bz2"`,
        'BZh9',
      ]);
      if (hasBzip2) expect([suffix, Buffer.compare(bunzip2(tbz.body as Buffer), tar.body as Buffer)]).toEqual([suffix, 0]);
    }
  });

  it.runIf(hasGit)(
    'writes a tar byte for byte as git archive does (long paths and links too, loose or packed), and a tar.gz and a zip of the same files',
    async () => {
      const { id, path } = await withFiles();
      const longName = `${'n'.repeat(110)}.txt`;
      const deepPath = `${'d'.repeat(60)}/${'e'.repeat(60)}/file.txt`;
      await commit(id, 'master', 'Long paths', [
        { action: 'create', file_path: longName, content: 'long name\n' },
        { action: 'create', file_path: deepPath, content: 'deep\n' },
        { action: 'create', file_path: 'docs/ünïcode.md', content: 'ü\n' },
        { action: 'create', file_path: 'big.bin', content: randomBytes(3 * 1024 * 1024 + 17).toString('base64'), encoding: 'base64' },
      ]);
      // A link whose target is longer than a tar header holds.
      const repo = store.open('default', id);
      const head = await repo.readCommit((await repo.branch('master'))!);
      const target = await repo.writeBlob(Buffer.from(`${'t/'.repeat(70)}README.md`));
      const tree = await repo.writeTree([
        ...(await repo.readTree(head.tree)),
        { name: 'far-link', mode: '120000', oid: target, type: 'blob' },
      ]);
      const signature = { name: 'Ada', email: 'ada@example.com', timestamp: 1_700_000_100, offsetMinutes: 60 };
      const sha = await repo.writeCommit({ tree, parents: [head.oid], message: 'Far link\n', author: signature, committer: signature });
      await repo.updateReference(`${BRANCH_PREFIX}master`, head.oid, sha);
      const prefix = `${path}-master-${sha}`;
      const gitArchive = (format: string) =>
        execFileSync(
          'git',
          ['--git-dir', join(storage, RepositoryStore.relativePath(id)), 'archive', `--format=${format}`, `--prefix=${prefix}/`, sha],
          { maxBuffer: 64 * 1024 * 1024 },
        );
      const expected = gitArchive('tar');
      const unzipped = (data: Uint8Array) =>
        Object.entries(unzipSync(data)).map(([name, content]) => `${name} ${Buffer.from(content).toString('base64')}`);
      for (const stored of ['loose', 'packed']) {
        if (stored === 'packed') git(id, 'repack', '-a', '-d', '-f', '--depth=50', '--window=250', '-q');
        const tar = await archive(id, '.tar', {});
        expect([stored, tar.status, Buffer.compare(tar.body as Buffer, expected)]).toEqual([stored, 200, 0]);
        const tgz = await archive(id, '.tar.gz', {});
        expect([stored, Buffer.compare(gunzipSync(tgz.body as Buffer), expected)]).toEqual([stored, 0]);
        const zip = await archive(id, '.zip', {});
        expect(unzipped(new Uint8Array(zip.body as Buffer))).toEqual(unzipped(new Uint8Array(gitArchive('zip'))));
        const tbz = await archive(id, '.tar.bz2', {});
        expect([stored, tbz.status, (tbz.body as Buffer).subarray(0, 4).toString()]).toEqual([stored, 200, 'BZh9']);
        if (hasBzip2) expect([stored, Buffer.compare(bunzip2(tbz.body as Buffer), expected)]).toEqual([stored, 0]);
        const inProcess = await t.hosting.as(reporter.id).repository.archiveAs(id, 'tar', {});
        expect(Buffer.compare(await bytesOf(inProcess.data), expected)).toBe(0);
      }
    },
  );
});

describe('GET /projects/:id/repository/compare', () => {
  /** master and feature apart from a common commit: feature adds two commits, master one. */
  async function forked() {
    const made = await project('private', { 'shared.txt': 'shared\n' });
    const base = (await t.hosting.commits.get(made.id, 'master')).id;
    const f1 = await commit(made.id, 'feature', 'F1', [{ action: 'create', file_path: 'feature.txt', content: 'f1\n' }], {
      start_branch: 'master',
    });
    const f2 = await commit(made.id, 'feature', 'F2', [{ action: 'update', file_path: 'feature.txt', content: 'f2\n' }]);
    const m2 = await commit(made.id, 'master', 'M2', [{ action: 'create', file_path: 'master.txt', content: 'm\n' }]);
    return { ...made, base, f1, f2, m2 };
  }
  const compare = (id: number, query: Record<string, unknown>, user: User = reporter) =>
    t.http
      .get(api(`${id}/repository/compare`))
      .query(query)
      .set('PRIVATE-TOKEN', user.token);
  const titles = (res: Response) => res.body.commits.map((commit: { title: string }) => commit.title);
  const files = (res: Response) =>
    res.body.diffs.map(
      (diff: { new_path: string; new_file: boolean; deleted_file: boolean }) =>
        `${diff.new_file ? 'A' : diff.deleted_file ? 'D' : 'M'} ${diff.new_path}`,
    );

  it('shows the commits `to` has and `from` has not, oldest first, and the changes since the merge base', async () => {
    const { id, f2, m2 } = await forked();
    const res = await compare(id, { from: 'master', to: 'feature' });
    expect(res.status).toBe(200);
    expect(titles(res)).toEqual(['F1', 'F2']);
    expect(res.body.commit).toEqual(res.body.commits[1]);
    expect(res.body.commit).toEqual(await t.hosting.commits.list(id, { ref_name: 'feature', per_page: 1 }).then(([latest]) => latest));
    expect(res.body.diffs).toEqual([
      {
        diff: '@@ -0,0 +1 @@\n+f2\n',
        old_path: 'feature.txt',
        new_path: 'feature.txt',
        a_mode: '0',
        b_mode: '100644',
        new_file: true,
        renamed_file: false,
        deleted_file: false,
      },
    ]);
    expect([res.body.compare_timeout, res.body.compare_same_ref]).toEqual([false, false]);
    const back = await compare(id, { from: 'feature', to: m2.id });
    expect([titles(back), files(back), back.body.commit.id]).toEqual([['M2'], ['A master.txt'], m2.id]);
    if (hasGit) {
      expect(git(id, 'rev-list', '--reverse', 'master..feature').trim().split('\n')).toEqual(
        res.body.commits.map((commit: { id: string }) => commit.id),
      );
      expect(git(id, 'diff', '--name-status', 'master...feature')).toBe('A\tfeature.txt\n');
      expect(git(id, 'rev-parse', 'feature').trim()).toBe(f2.id);
    }
  });

  it(
    'answers a comparison again as it first made it, ' + 'whatever a caller did to what it was given, and anew once a branch moved',
    async () => {
      const { id } = await forked();
      const api = t.hosting.as(reporter.id);
      const first = await api.repository.compare(id, { from: 'master', to: 'feature' });
      const copy = structuredClone(first);
      first.commits.length = 0;
      first.diffs[0].diff = 'changed by its caller';
      expect(await api.repository.compare(id, { from: 'master', to: 'feature' })).toEqual(copy);
      await commit(id, 'feature', 'F3', [{ action: 'create', file_path: 'third.txt', content: '3\n' }]);
      const moved = await api.repository.compare(id, { from: 'master', to: 'feature' });
      expect([moved.commits.map((commit) => commit.title), moved.diffs.map((diff) => diff.new_path)]).toEqual([
        ['F1', 'F2', 'F3'],
        ['feature.txt', 'third.txt'],
      ]);
    },
  );

  it('with `straight`, diffs `from` against `to` directly: what master has and feature not shows as deleted', async () => {
    const { id } = await forked();
    const res = await compare(id, { from: 'master', to: 'feature', straight: 'true' });
    expect([titles(res), files(res)]).toEqual([
      ['F1', 'F2'],
      ['A feature.txt', 'D master.txt'],
    ]);
    const inProcess = await t.hosting.as(reporter.id).repository.compare(id, { from: 'master', to: 'feature', straight: false });
    expect(inProcess.diffs.map((diff) => diff.new_path)).toEqual(['feature.txt']);
    if (hasGit) expect(git(id, 'diff', '--name-status', 'master', 'feature')).toBe('A\tfeature.txt\nD\tmaster.txt\n');
  });

  it(
    'cuts the diffs short as the original does: past 100 files, ' +
      'or the diff that reaches 5,000 lines; a diff past 100 KB is left empty',
    async () => {
      const { id } = await forked();
      const many = Array.from({ length: 101 }, (_, index) => ({
        action: 'create' as const,
        file_path: `many/${String(index).padStart(3, '0')}.txt`,
        content: `${index}\n`,
      }));
      await commit(id, 'many', 'Many', many, { start_branch: 'master' });
      const wide = await compare(id, { from: 'master', to: 'many' });
      expect([wide.status, wide.body.diffs.length, wide.body.diffs.at(-1).new_path, wide.body.compare_timeout]).toEqual([
        200,
        100,
        'many/099.txt',
        true,
      ]);

      const line = (index: number) => `line ${index}\n`;
      const long = Array.from({ length: 4000 }, (_, index) => line(index)).join('');
      const longer = Array.from({ length: 1100 }, (_, index) => line(index)).join('');
      await commit(
        id,
        'long',
        'Long',
        [
          { action: 'create', file_path: 'a.txt', content: long },
          { action: 'create', file_path: 'b.txt', content: longer },
          { action: 'create', file_path: 'c.txt', content: 'c\n' },
        ],
        { start_branch: 'master' },
      );
      const tall = await compare(id, { from: 'master', to: 'long' });
      // a.txt's 4,001 lines fit; b.txt's would reach 5,000, so it and what follows are left out.
      expect([tall.body.diffs.map((diff: { new_path: string }) => diff.new_path), tall.body.compare_timeout]).toEqual([['a.txt'], true]);

      const wideLines = Array.from({ length: 1000 }, (_, index) => `${'x'.repeat(120)} ${index}\n`).join('');
      await commit(
        id,
        'large',
        'Large',
        [
          { action: 'create', file_path: 'large.txt', content: wideLines },
          { action: 'create', file_path: 'small.txt', content: 's\n' },
        ],
        { start_branch: 'master' },
      );
      const large = await compare(id, { from: 'master', to: 'large' });
      expect([
        large.body.diffs.map((diff: { new_path: string; diff: string }) => [diff.new_path, diff.diff]),
        large.body.compare_timeout,
      ]).toEqual([
        [
          ['large.txt', ''],
          ['small.txt', '@@ -0,0 +1 @@\n+s\n'],
        ],
        false,
      ]);
    },
  );

  it('answers the same ref with nothing to show, and 404 Ref Not Found for a ref that names no commit', async () => {
    const { id, base, f1 } = await forked();
    const same = await compare(id, { from: 'master', to: 'master' });
    expect([same.status, same.body]).toEqual([
      200,
      { commit: null, commits: [], diffs: [], compare_timeout: false, compare_same_ref: true },
    ]);
    const behind = await compare(id, { from: 'feature', to: f1.id });
    expect([behind.body.commits, behind.body.commit, behind.body.diffs, behind.body.compare_same_ref]).toEqual([[], null, [], false]);
    const ancestor = await compare(id, { from: base, to: 'master' });
    expect(titles(ancestor)).toEqual(['M2']);
    for (const query of [
      { from: 'nope', to: 'master' },
      { from: 'master', to: '0'.repeat(40) },
    ]) {
      const res = await compare(id, query);
      expect([res.status, res.body]).toEqual([404, { message: '404 Ref Not Found' }]);
    }
    const missing = await compare(id, { from: 'master' });
    expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "to" not given' }]);
  });
});

describe('GET /projects/:id/repository/contributors', () => {
  /**
   * A project whose master has: the owner's first commit, two of Ada's (named differently), one of Bob's, and a
   * merge (by Merger, left out) of a side commit of Side's that is the newest of all.
   */
  async function withAuthors(): Promise<Project> {
    const made = await project();
    const write = (name: string, email: string, file: string) =>
      t.hosting.as(owner.id).commits.create(made.id, {
        branch: 'master',
        commit_message: file,
        author_name: name,
        author_email: email,
        actions: [{ action: 'create', file_path: file, content: `${file}\n` }],
      });
    await write('Ada', 'ada@example.com', 'a1');
    await write('Ada Lovelace', 'ada@example.com', 'a2');
    await write('bob', 'Bob@example.com', 'b1');
    const repo = store.open('default', made.id);
    const head = await repo.readCommit((await repo.branch('master'))!);
    const at = (name: string, email: string, offset: number) => ({
      name,
      email,
      timestamp: head.committer.timestamp + offset,
      offsetMinutes: 0,
    });
    const side = await repo.writeCommit({
      tree: head.tree,
      parents: [head.oid],
      message: 'Side\n',
      author: at('Side', 'side@example.com', 100),
      committer: at('Side', 'side@example.com', 100),
    });
    const merge = await repo.writeCommit({
      tree: head.tree,
      parents: [head.oid, side],
      message: 'Merge\n',
      author: at('Merger', 'merger@example.com', 200),
      committer: at('Merger', 'merger@example.com', 200),
    });
    await repo.updateReference(`${BRANCH_PREFIX}master`, head.oid, merge);
    return made;
  }
  const contributor = (name: string, email: string, commits: number) => ({ name, email, commits, additions: 0, deletions: 0 });

  it(
    'counts the default branch’s authors by e-mail (merges left out), ' + 'by commits ascending, then as their newest commits come',
    async () => {
      const { id } = await withAuthors();
      const ownerOf = contributor(nameOf(owner), owner.email, 1);
      const res = await t.http.get(api(`${id}/repository/contributors`)).set('PRIVATE-TOKEN', reporter.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        contributor('Side', 'side@example.com', 1),
        contributor('bob', 'Bob@example.com', 1),
        ownerOf,
        contributor('Ada Lovelace', 'ada@example.com', 2),
      ]);
      expect(pageHeaders(res.headers)).toMatchObject({ total: 4, page: 1 });
      const ordered = async (query: Record<string, string>) =>
        (
          await t.http
            .get(api(`${id}/repository/contributors`))
            .query(query)
            .set('PRIVATE-TOKEN', reporter.token)
        ).body.map((one: { email: string }) => one.email);
      expect(await ordered({ sort: 'desc' })).toEqual(['ada@example.com', 'side@example.com', 'Bob@example.com', owner.email]);
      // Names and e-mail addresses compare regardless of case.
      expect(await ordered({ order_by: 'email' })).toEqual(['ada@example.com', 'Bob@example.com', 'side@example.com', owner.email]);
      expect(await ordered({ order_by: 'name', sort: 'desc' })).toEqual([
        owner.email,
        'side@example.com',
        'Bob@example.com',
        'ada@example.com',
      ]);
      const page = await t.http
        .get(api(`${id}/repository/contributors`))
        .query({ order_by: 'email', per_page: 3, page: 2 })
        .set('PRIVATE-TOKEN', reporter.token);
      expect([page.body, pageHeaders(page.headers)]).toEqual([
        [ownerOf],
        expect.objectContaining({ total: 4, totalPages: 2, page: 2, prevPage: 1 }),
      ]);
      expect(await t.hosting.as(reporter.id).repository.contributors(id, { order_by: 'commits', sort: 'desc', per_page: 1 })).toEqual([
        contributor('Ada Lovelace', 'ada@example.com', 2),
      ]);
      const invalid = await t.http
        .get(api(`${id}/repository/contributors`))
        .query({ order_by: 'additions' })
        .set('PRIVATE-TOKEN', reporter.token);
      expect([invalid.status, invalid.body]).toEqual([400, { message: { order_by: ['does not have a valid value'] } }]);
    },
  );

  it('counts the newest 2,000 commits that are not merges, as the original; kept per head', async () => {
    const { id } = await withAuthors();
    const repo = store.open('default', id);
    const head = (await repo.branch('master'))!;
    expect(await authorsOf(repo, head, 2)).toEqual([
      { name: 'Side', email: 'side@example.com', commits: 1 },
      { name: 'bob', email: 'Bob@example.com', commits: 1 },
    ]);
    expect(await authorsOf(repo, head, 2)).toBe(await authorsOf(repo, head, 2));
    expect(CONTRIBUTOR_COMMITS).toBe(2000);
  });

  it(
    'answers [] for an empty repository, ' + '403 to a guest of a private project and 404 to a stranger; anyone reads a public one',
    async () => {
      const empty = await t.hosting.as(owner.id).projects.create({ name: `Empty ${Math.random().toString(36).slice(2)}` });
      const none = await t.http.get(api(`${empty.id}/repository/contributors`)).set('PRIVATE-TOKEN', owner.token);
      expect([none.status, none.body, pageHeaders(none.headers).total]).toEqual([200, [], 0]);
      const { id } = await project();
      expect([(await t.http.get(api(`${id}/repository/contributors`)).set('PRIVATE-TOKEN', guest.token)).status]).toEqual([403]);
      const hidden = await t.http.get(api(`${id}/repository/contributors`)).set('PRIVATE-TOKEN', stranger.token);
      expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
      const open = await project('public');
      expect((await t.http.get(api(`${open.id}/repository/contributors`))).body).toEqual([contributor(nameOf(owner), owner.email, 1)]);
    },
  );
});
