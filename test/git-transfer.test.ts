/** A fork's commits copied into its upstream (src/git/transfer.ts), checked by native git. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeHistoryRepository } from '../bench/lib/history-repository.ts';
import type { Repository } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import { copyMissingObjects, MissingTipError } from '../src/git/transfer.js';
import { hasGit } from './helpers.js';
import { GIT_ENV } from './git-http.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-transfer-'));
const store = new RepositoryStore({ default: root });
let projects = 0;
afterAll(() => {
  store.forgetAll();
  rmSync(root, { recursive: true, force: true });
});

const env = GIT_ENV;
const run = (args: string[], cwd?: string) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();
/** git on a bare repository. */
const git = (gitdir: string, ...args: string[]) => run(['--git-dir', gitdir, ...args]);

/** A new project's repository, empty. */
async function newRepository() {
  const id = ++projects;
  await store.create('default', id, 'main');
  return { id, repository: store.open('default', id) };
}

/** A working copy whose commits are pushed to `gitdir`: files written (null deletes), committed, pushed; the commit. */
function committer(gitdir: string) {
  const work = join(root, `work-${++projects}`);
  run(['init', '--quiet', '--initial-branch=main', work]);
  return (files: Record<string, string | null>, message: string, push = true): string => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) unlinkSync(join(work, path));
      else {
        mkdirSync(join(work, path, '..'), { recursive: true });
        writeFileSync(join(work, path), content);
      }
    }
    run(['add', '--all'], work);
    run(['commit', '--quiet', '--allow-empty', '-m', message], work);
    if (push) run(['push', '--quiet', gitdir, 'main'], work);
    return run(['rev-parse', 'HEAD'], work);
  };
}

/** `to` checked by git: every object reachable from `tip` there and sound, once a branch names it. */
function expectComplete(to: string, tip: string) {
  git(to, 'update-ref', 'refs/heads/copied', tip);
  const fsck = spawnSync('git', ['--git-dir', to, 'fsck', '--full', '--strict', '--no-dangling'], { env, encoding: 'utf8' });
  expect((fsck.stderr + fsck.stdout).replace(/^notice: .*\n/gm, '')).toBe('');
  expect(fsck.status).toBe(0);
  git(to, 'rev-list', '--objects', tip);
}

/** How many objects `tip` reaches in `gitdir` that `not` do not. */
const newObjects = (gitdir: string, tip: string, ...not: string[]) =>
  git(gitdir, 'rev-list', '--objects', tip, ...(not.length ? ['--not', ...not] : [])).split('\n').length;

/** A project with a little history, its fork, and the project's new commits since: a changed nested file, a new one, a deleted one. */
async function forkedPair(options: { pack?: 'source' | 'both' } = {}) {
  const upstream = await newRepository();
  const commit = committer(upstream.repository.gitdir);
  commit(
    { 'README.md': '# Project\n', 'src/lib/deep/nested.txt': 'one\n', 'src/lib/other.txt': 'other\n', 'docs/old.md': 'old\n' },
    'first',
  );
  const forkedAt = commit({ 'src/lib/deep/nested.txt': 'one\ntwo\n', 'src/main.ts': 'main();\n' }, 'second');
  const fork = await newRepository();
  await store.copy('default', upstream.id, 'default', fork.id);
  const to = store.open('default', fork.id);
  commit({ 'src/lib/deep/nested.txt': 'one\ntwo\nthree\n' }, 'nested changed', false);
  commit({ 'docs/new.md': 'new\n' }, 'file added', false);
  const tip = commit({ 'docs/old.md': null }, 'file deleted');
  if (options.pack) git(upstream.repository.gitdir, 'gc', '--quiet', '--aggressive', '--prune=now');
  if (options.pack === 'both') git(to.gitdir, 'gc', '--quiet', '--prune=now');
  return { from: upstream.repository, to, forkedAt, tip };
}

describe.runIf(hasGit)('copyMissingObjects', () => {
  it('copies a fork’s new commits (a nested file changed, one added, one deleted) and only what is new, then nothing', async () => {
    const { from, to, forkedAt, tip } = await forkedPair();
    expect(git(to.gitdir, 'cat-file', '-t', forkedAt)).toBe('commit');
    const written = await copyMissingObjects(from, to, tip);
    expect(written).toBe(newObjects(from.gitdir, tip, forkedAt));
    // Three commits; the trees on the changed paths (the root thrice, src, src/lib, src/lib/deep, docs twice); two blobs.
    expect(written).toBe(3 + 6 + 2 + 2);
    expectComplete(to.gitdir, tip);
    expect(git(to.gitdir, 'cat-file', '-p', tip)).toBe(git(from.gitdir, 'cat-file', '-p', tip));
    expect(git(to.gitdir, 'show', `${tip}:docs/new.md`)).toBe('new');
    expect(git(to.gitdir, 'show', `${tip}:src/lib/deep/nested.txt`)).toBe('one\ntwo\nthree');
    expect(git(to.gitdir, 'ls-tree', '-r', '--name-only', tip)).toBe(git(from.gitdir, 'ls-tree', '-r', '--name-only', tip));
    expect(await to.readCommit(tip)).toEqual(await from.readCommit(tip));

    // One lookup in the target, nothing of the source.
    const lookup = vi.spyOn(to, 'objectType');
    expect(await copyMissingObjects({} as Repository, to, tip)).toBe(0);
    expect(lookup).toHaveBeenCalledTimes(1);
    lookup.mockRestore();
    // Its parents too: they are there now.
    expect(await copyMissingObjects(from, to, git(from.gitdir, 'rev-parse', `${tip}~1`))).toBe(0);
  });

  it('reads a source packed by git gc --aggressive (deltas), into a target packed too', async () => {
    for (const pack of ['source', 'both'] as const) {
      const { from, to, forkedAt, tip } = await forkedPair({ pack });
      expect(git(from.gitdir, 'count-objects', '-v')).toMatch(/^count: 0$/m);
      expect(await copyMissingObjects(from, to, tip)).toBe(newObjects(from.gitdir, tip, forkedAt));
      expectComplete(to.gitdir, tip);
      expect(git(to.gitdir, 'cat-file', '-p', tip)).toBe(git(from.gitdir, 'cat-file', '-p', tip));
      expect(await copyMissingObjects(from, to, tip)).toBe(0);
    }
  });

  it('copies a whole unrelated history, merges and a submodule entry included, and a large blob streamed', async () => {
    const source = await newRepository();
    const target = await newRepository();
    committer(target.repository.gitdir)({ 'README.md': 'the target’s own\n' }, 'unrelated');
    const work = join(root, `work-${++projects}`);
    run(['init', '--quiet', '--initial-branch=main', work]);
    const commit = (files: Record<string, string>, message: string, gitlink?: string) => {
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(join(work, path, '..'), { recursive: true });
        writeFileSync(join(work, path), content);
      }
      run(['add', '--all'], work);
      if (gitlink) run(['update-index', '--add', '--cacheinfo', `160000,${gitlink},vendor/lib`], work);
      run(['commit', '--quiet', '-m', message], work);
    };
    commit({ 'a.txt': 'a\n', 'dir/b.txt': 'b\n', 'same/b.txt': 'b\n' }, 'one');
    // A submodule's commit: an object of another repository, named by the tree only.
    commit({ 'big.bin': `${Buffer.alloc(3 * 1024 * 1024, 'x').toString()}end\n` }, 'two', 'ab'.repeat(20));
    run(['checkout', '--quiet', '-b', 'topic', 'HEAD~1'], work);
    commit({ 'dir/c.txt': 'c\n' }, 'topic');
    run(['checkout', '--quiet', 'main'], work);
    run(['merge', '--quiet', '--no-edit', 'topic'], work);
    run(['push', '--quiet', source.repository.gitdir, 'main'], work);
    const tip = run(['rev-parse', 'HEAD'], work);

    const written = await copyMissingObjects(source.repository, target.repository, tip);
    expect(written).toBe(newObjects(source.repository.gitdir, tip));
    expect(git(target.repository.gitdir, 'rev-list', '--objects', tip).split('\n')).toHaveLength(written);
    expectComplete(target.repository.gitdir, tip);
    expect(git(target.repository.gitdir, 'cat-file', '-s', `${tip}:big.bin`)).toBe(String(3 * 1024 * 1024 + 4));
    expect(git(target.repository.gitdir, 'ls-tree', tip, 'vendor/lib')).toBe(`160000 commit ${'ab'.repeat(20)}\tvendor/lib`);
    expect(await copyMissingObjects(source.repository, target.repository, tip)).toBe(0);
  });

  it('copies a handful of objects for a one-file change on a deep history', async () => {
    const upstream = await newRepository();
    rmSync(upstream.repository.gitdir, { recursive: true, force: true });
    await writeHistoryRepository(upstream.repository.gitdir, 300);
    const fork = await newRepository();
    await store.copy('default', upstream.id, 'default', fork.id);
    const from = upstream.repository;
    // A one-file change three directories deep, written by forgekit itself.
    const head = (await from.branch('main'))!;
    const parent = await from.readCommit(head);
    const blob = await from.writeBlob(Buffer.from('changed\n'));
    const src = (await from.entryAt(parent.tree, 'src'))!.oid;
    const core = (await from.entryAt(parent.tree, 'src/core'))!.oid;
    const replace = async (tree: string, name: string, oid: string) =>
      from.writeTree((await from.readTree(tree)).map((entry) => (entry.name === name ? { ...entry, oid } : entry)));
    const tree = await replace(parent.tree, 'src', await replace(src, 'core', await replace(core, 'engine.ts', blob)));
    const signature = { name: 'A', email: 'a@example.com', timestamp: 1_700_000_000, offsetMinutes: 0 };
    const tip = await from.writeCommit({ tree, parents: [head], message: 'one file\n', author: signature, committer: signature });

    expect(await copyMissingObjects(from, store.open('default', fork.id), tip)).toBe(5);
    expectComplete(store.open('default', fork.id).gitdir, tip);
  });

  it('leaves, when cut short anywhere, only objects whose own objects are there: the next copy completes it', async () => {
    const { from, forkedAt, tip } = await forkedPair();
    const total = newObjects(from.gitdir, tip, forkedAt);
    for (let reads = 0; reads < total; reads++) {
      const target = await newRepository();
      git(from.gitdir, 'push', '--quiet', target.repository.gitdir, `${forkedAt}:refs/heads/main`);
      // The source as a crash would leave the copy: its reads fail after `reads` of them.
      let left = reads;
      const failing = Object.create(from) as typeof from;
      const crash = () => {
        if (left-- <= 0) throw new Error('crash');
      };
      failing.readRawObject = async (oid) => {
        crash();
        return from.readRawObject(oid);
      };
      failing.openBlob = async (oid) => {
        crash();
        return from.openBlob(oid);
      };
      await expect(copyMissingObjects(failing, target.repository, tip)).rejects.toThrow('crash');
      const written = git(target.repository.gitdir, 'count-objects').match(/^(\d+) objects/)![1];
      expect(Number(written)).toBeLessThanOrEqual(newObjects(from.gitdir, forkedAt) + reads);
      const rest = await copyMissingObjects(from, target.repository, tip);
      expect(rest).toBeGreaterThan(0);
      expectComplete(target.repository.gitdir, tip);
    }
  });

  it('rejects a tip that is not a commit of the source, and a stopped copy', async () => {
    const { from, to, tip } = await forkedPair();
    const absent = 'fe'.repeat(20);
    await expect(copyMissingObjects(from, to, absent)).rejects.toThrow(new MissingTipError(absent, from.gitdir, null));
    await expect(copyMissingObjects(from, to, absent)).rejects.toThrow(/the commit fefe.* is not in /);
    const blob = git(from.gitdir, 'rev-parse', `${tip}:README.md`);
    await expect(copyMissingObjects(from, to, blob)).rejects.toThrow(/is a blob in .*, not a commit/);
    await expect(copyMissingObjects(from, to, 'HEAD')).rejects.toBeInstanceOf(MissingTipError);

    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(copyMissingObjects(from, to, tip, { signal: controller.signal })).rejects.toThrow('stopped');
    expect(spawnSync('git', ['--git-dir', to.gitdir, 'cat-file', '-e', tip]).status).toBe(1);
  });
});
