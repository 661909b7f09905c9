import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { createUser, hasGit, pageHeaders, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let reporter: User;
let storage: string;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
  [owner, reporter] = await Promise.all([1, 2].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['--git-dir', join(storage, RepositoryStore.relativePath(projectId)), ...args], { encoding: 'utf8' });
const commitsUrl = (id: number) => `/api/v4/projects/${id}/repository/commits`;

async function emptyProject(visibility: 'private' | 'public' = 'private'): Promise<{ id: number; path: string }> {
  const created = await t.hosting.as(owner.id).projects.create({ name: `Commits ${Math.random().toString(36).slice(2)}`, visibility });
  await t.hosting.as(owner.id).projectMembers.add(created.id, { user_id: reporter.id, access_level: 20 });
  return { id: created.id, path: created.path_with_namespace };
}

describe('POST /projects/:id/repository/commits', () => {
  it('applies every action in one commit: create, update, move, delete, chmod, Base64 content', async () => {
    const { id, path } = await emptyProject();
    const first = await t.http
      .post(commitsUrl(id))
      .set('PRIVATE-TOKEN', owner.token)
      .send({
        branch: 'master',
        commit_message: 'Start\n\nWith a body.',
        actions: [
          { action: 'create', file_path: 'README.md', content: 'one\ntwo\n' },
          { action: 'create', file_path: 'old/name.txt', content: 'moving\n' },
          { action: 'create', file_path: 'gone.txt', content: 'bye\n' },
          { action: 'create', file_path: 'run.sh', content: Buffer.from('#!/bin/sh\necho hi\n').toString('base64'), encoding: 'base64' },
        ],
        author_name: 'Grace Hopper',
        author_email: 'grace@example.com',
      });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: first.body.id,
      short_id: first.body.id.slice(0, 8),
      title: 'Start',
      message: 'Start\n\nWith a body.\n',
      author_name: 'Grace Hopper',
      author_email: 'grace@example.com',
      authored_date: first.body.authored_date,
      committer_name: `User ${owner.username.slice(4)}`,
      committer_email: owner.email,
      committed_date: first.body.committed_date,
      created_at: first.body.committed_date,
      parent_ids: [],
      web_url: `http://forge.test/${path}/commit/${first.body.id}`,
      stats: { additions: 6, deletions: 0, total: 6 },
      status: null,
    });
    expect(first.body.committed_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/);
    const second = await t.hosting.as(owner.id).commits.create(id, {
      branch: 'master',
      commit_message: 'Rework',
      actions: [
        { action: 'update', file_path: 'README.md', content: 'one\nthree\n' },
        { action: 'move', file_path: 'new/name.txt', previous_path: 'old/name.txt' },
        { action: 'delete', file_path: 'gone.txt' },
        { action: 'chmod', file_path: 'run.sh', execute_filemode: true },
      ],
    });
    expect([second.parent_ids, second.stats]).toEqual([[first.body.id], { additions: 1, deletions: 2, total: 3 }]);
    const files = await t.hosting.repositoryFiles.get(id, 'run.sh', { ref: 'master' });
    expect(files.execute_filemode).toBe(true);
    if (hasGit) {
      expect(git(id, 'ls-tree', '-r', 'master')).toMatch(
        /^100644 blob \w+\tREADME.md\n100644 blob \w+\tnew\/name.txt\n100755 blob \w+\trun.sh\n$/,
      );
      expect(git(id, 'fsck', '--full', '--strict')).toBe('');
    }
  });

  it('makes a branch from start_branch or start_sha', async () => {
    const { id } = await emptyProject();
    const api = t.hosting.as(owner.id);
    const base = await api.commits.create(id, {
      branch: 'master',
      commit_message: 'Base',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
    });
    const later = await api.commits.create(id, {
      branch: 'master',
      commit_message: 'Later',
      actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }],
    });
    const fromBranch = await api.commits.create(id, {
      branch: 'from-branch',
      start_branch: 'master',
      commit_message: 'F',
      actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }],
    });
    const fromSha = await api.commits.create(id, {
      branch: 'from-sha',
      start_sha: base.id,
      commit_message: 'S',
      actions: [{ action: 'create', file_path: 's.txt', content: 's' }],
    });
    expect(fromBranch.parent_ids).toEqual([later.id]);
    expect(fromSha.parent_ids).toEqual([base.id]);
    const badSha = await t.http
      .post(commitsUrl(id))
      .set('PRIVATE-TOKEN', owner.token)
      .send({ branch: 'x', start_sha: '0'.repeat(40), commit_message: 'm', actions: [{ action: 'create', file_path: 'x', content: 'x' }] });
    expect([badSha.status, badSha.body]).toEqual([400, { message: REFUSALS.invalidStartSha }]);
  });

  it('writes author names and addresses as git does: a line end or angle bracket cannot forge a header', async () => {
    const { id } = await emptyProject();
    const res = await t.http
      .post(commitsUrl(id))
      .set('PRIVATE-TOKEN', owner.token)
      .send({
        branch: 'master',
        commit_message: 'Forged?',
        actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
        author_name: ' "Eve>\ncommitter Mallory <m@example.com> 0 +0000\n. ',
        author_email: '<eve@example.com>\n',
      });
    expect(res.status).toBe(201);
    expect([res.body.author_name, res.body.author_email]).toEqual(['Evecommitter Mallory m@example.com 0 +0000', 'eve@example.com']);
    const read = await t.hosting.commits.get(id, res.body.id);
    expect([read.author_name, read.author_email, read.committer_email]).toEqual([res.body.author_name, res.body.author_email, owner.email]);
    if (hasGit) {
      expect(
        git(id, 'cat-file', '-p', res.body.id)
          .split('\n')
          .filter((line) => /^(author|committer) /.test(line)),
      ).toEqual([
        expect.stringMatching(/^author Evecommitter Mallory m@example.com 0 \+0000 <eve@example.com> \d+ \+0000$/),
        expect.stringMatching(/^committer /),
      ]);
      expect(git(id, 'fsck', '--full', '--strict')).toBe('');
    }
  });

  it('takes a message of a mebibyte of line ends (trimmed in linear time: a quadratic trim outlasts the test)', async () => {
    const { id } = await emptyProject();
    const message = `x${'\n'.repeat(1024 * 1024 - 2)}y`;
    const made = await t.hosting
      .as(owner.id)
      .commits.create(id, { branch: 'master', commit_message: message, actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    expect([made.title, made.message === `${message}\n`]).toEqual(['x', true]);
  });

  it('answers 400 for what cannot be committed, and changes nothing', async () => {
    const { id } = await emptyProject();
    await t.hosting
      .as(owner.id)
      .commits.create(id, { branch: 'master', commit_message: 'Base', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
    const post = (body: Record<string, unknown>) =>
      t.http
        .post(commitsUrl(id))
        .set('PRIVATE-TOKEN', owner.token)
        .send({ branch: 'master', commit_message: 'm', ...body });
    const cases: [Record<string, unknown>, unknown][] = [
      [{ actions: [] }, '400 (Bad request) "actions" not given'],
      [{ actions: [{ action: 'create', file_path: 'c.txt' }] }, '400 (Bad request) "actions[0][content]" not given'],
      [{ actions: [{ action: 'rename', file_path: 'a.txt' }] }, { 'actions[0][action]': ['does not have a valid value'] }],
      [{ actions: [{ action: 'create', file_path: 'a.txt', content: 'x' }] }, REFUSALS.fileExists],
      [{ actions: [{ action: 'update', file_path: 'a.txt', content: 'a' }] }, REFUSALS.unchanged],
      [{ actions: [{ action: 'move', file_path: 'b.txt', previous_path: 'nope.txt' }] }, REFUSALS.fileMissing],
      [
        { actions: [{ action: 'update', file_path: 'a.txt', content: 'z', last_commit_id: '0'.repeat(40) }] },
        REFUSALS.actionFileChanged('a.txt'),
      ],
      [{ actions: [{ action: 'create', file_path: '../x', content: 'x' }] }, REFUSALS.pathTraversal],
      [{ actions: [{ action: 'create', file_path: 'a/./x', content: 'x' }] }, REFUSALS.invalidPath],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect([JSON.stringify(body), res.status, res.body]).toEqual([JSON.stringify(body), 400, { message }]);
    }
    expect(await t.hosting.commits.list(id)).toHaveLength(1);
  });
});

describe('GET /projects/:id/repository/commits', () => {
  it('lists the default branch’s history newest first, by ref, path and date, paginated with X-Total', async () => {
    const { id } = await emptyProject();
    const api = t.hosting.as(owner.id);
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      const path = index % 2 ? 'odd.txt' : 'even.txt';
      made.push(
        (
          await api.commits.create(id, {
            branch: 'master',
            commit_message: `C${index}`,
            actions: [{ action: index < 2 ? 'create' : 'update', file_path: path, content: `${index}` }],
          })
        ).id,
      );
    }
    await api.commits.create(id, {
      branch: 'side',
      start_branch: 'master',
      commit_message: 'Side',
      actions: [{ action: 'create', file_path: 'side.txt', content: 's' }],
    });
    const list = await t.http.get(commitsUrl(id)).query({ per_page: 2 }).set('PRIVATE-TOKEN', reporter.token);
    expect(list.status).toBe(200);
    expect(list.body.map((commit: { title: string }) => commit.title)).toEqual(['C4', 'C3']);
    expect(pageHeaders(list.headers)).toEqual({ total: 5, totalPages: 3, perPage: 2, page: 1, nextPage: 2, prevPage: null });
    expect(list.body[0]).not.toHaveProperty('stats');
    const titles = async (query: Record<string, unknown>) =>
      (await t.http.get(commitsUrl(id)).query(query).set('PRIVATE-TOKEN', reporter.token)).body.map(
        (commit: { title: string }) => commit.title,
      );
    expect(await titles({ ref_name: 'side' })).toEqual(['Side', 'C4', 'C3', 'C2', 'C1', 'C0']);
    expect(await titles({ path: 'odd.txt' })).toEqual(['C3', 'C1']);
    // Every branch's commits, each once, newest first (commits of one second in the order git's walk meets them).
    expect((await titles({ all: true })).sort()).toEqual(['C0', 'C1', 'C2', 'C3', 'C4', 'Side']);
    expect(await titles({ ref_name: 'nowhere' })).toEqual([]);
    // Dates are inclusive: the second a commit was made selects it (the walk's own date filter is checked in test/git.test.ts).
    const third = await api.commits.get(id, made[2]);
    expect(await titles({ since: third.committed_date, until: third.committed_date })).toContain('C2');
    expect(await titles({ since: '2999-01-01T00:00:00Z' })).toEqual([]);
    expect(await titles({ until: '2000-01-01T00:00:00Z' })).toEqual([]);
    expect(await titles({ since: '2000-01-01T00:00:00Z', path: 'even.txt' })).toEqual(['C4', 'C2', 'C0']);
    const withStats = await t.http.get(commitsUrl(id)).query({ per_page: 1, with_stats: true }).set('PRIVATE-TOKEN', reporter.token);
    expect(withStats.body[0].stats).toEqual({ additions: 1, deletions: 1, total: 2 });
    if (hasGit) expect(git(id, 'log', '--format=%s', 'master')).toBe('C4\nC3\nC2\nC1\nC0\n');
  });

  it('is empty for an empty repository, read by anyone for a public project and 404 to a stranger for a private one', async () => {
    const open = await emptyProject('public');
    expect([(await t.http.get(commitsUrl(open.id))).status, (await t.http.get(commitsUrl(open.id))).body]).toEqual([200, []]);
    const closed = await emptyProject('private');
    expect((await t.http.get(commitsUrl(closed.id))).body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('GET /projects/:id/repository/commits/:sha', () => {
  it('answers a commit by hash, abbreviated hash, branch or tag, with stats, status and last pipeline', async () => {
    const { id } = await emptyProject();
    const made = await t.hosting.as(owner.id).commits.create(id, {
      branch: 'master',
      commit_message: 'Only',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a\nb\n' }],
    });
    for (const revision of [made.id, made.id.slice(0, 7), 'master']) {
      const res = await t.http.get(`${commitsUrl(id)}/${revision}`).set('PRIVATE-TOKEN', reporter.token);
      expect([revision, res.status, res.body.id, res.body.stats, res.body.status, res.body.last_pipeline, res.body.project_id]).toEqual([
        revision,
        200,
        made.id,
        { additions: 2, deletions: 0, total: 2 },
        null,
        null,
        id,
      ]);
    }
    const missing = await t.http.get(`${commitsUrl(id)}/${'f'.repeat(40)}`).set('PRIVATE-TOKEN', reporter.token);
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Commit Not Found' }]);
  });

  it('titles a long first line as the original does', async () => {
    const { id } = await emptyProject();
    const line = 'x'.repeat(120);
    const made = await t.hosting.as(owner.id).commits.create(id, {
      branch: 'master',
      commit_message: `${line}\nbody`,
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
    });
    expect(made.title).toBe(`${'x'.repeat(80)}…`);
  });
});
