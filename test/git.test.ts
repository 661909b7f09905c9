/**
 * The repository layer on its own (src/git/): references moved by compare-and-swap, tree edits, history walks
 * and diffs, each checked against what native git makes of the same repository where git is installed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { changesBetween, diffOf, statsOf } from '../src/git/diff.js';
import { applyActions, isValidFilePath, type FileAction } from '../src/git/edit.js';
import { EditError, ReferenceChangedError, ReferenceConflictError } from '../src/git/errors.js';
import { historyOf, lastCommitChanging } from '../src/git/history.js';
import { CorruptObjectError, ObjectReader, PackCache } from '../src/git/object-reader.js';
import { isValidReferenceName } from '../src/git/refs.js';
import { BRANCH_PREFIX, type Repository, type Signature } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import { hasGit } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-git-test-'));
const store = new RepositoryStore({ default: root });
afterAll(() => rmSync(root, { recursive: true, force: true }));

let nextId = 0;
let repo: Repository;
beforeEach(async () => {
  nextId += 1;
  await store.create('default', nextId, 'main');
  repo = store.open('default', nextId);
});

const git = (...args: string[]) => execFileSync('git', ['--git-dir', repo.gitdir, ...args], { encoding: 'utf8' });
const text = (value: string) => new TextEncoder().encode(value);
let clock = 1_700_000_000;
const person = (offsetMinutes = 0): Signature => ({ name: 'Ada', email: 'ada@example.com', timestamp: (clock += 60), offsetMinutes });

/** A commit of `actions` on top of `parent` (none: a first commit), moved onto `branch`. */
async function commit(branch: string, actions: FileAction[], message = 'change'): Promise<string> {
  const parent = await repo.branch(branch);
  const base = parent ? await repo.readCommit(parent) : null;
  const tree = await applyActions(repo, base?.tree ?? null, actions);
  const signature = person();
  const oid = await repo.writeCommit({
    tree,
    parents: base ? [base.oid] : [],
    message: `${message}\n`,
    author: signature,
    committer: signature,
  });
  await repo.updateReference(BRANCH_PREFIX + branch, parent, oid);
  return oid;
}

const create = (path: string, content: string): FileAction => ({ action: 'create', path, content: text(content) });
const update = (path: string, content: string): FileAction => ({ action: 'update', path, content: text(content) });

describe('references', () => {
  it('move only from the value the writer expects', async () => {
    const first = await commit('main', [create('a.txt', 'a\n')]);
    const second = await commit('main', [update('a.txt', 'b\n')]);
    await expect(repo.updateReference('refs/heads/main', first, first)).rejects.toBeInstanceOf(ReferenceChangedError);
    await expect(repo.updateReference('refs/heads/other', second, first)).rejects.toBeInstanceOf(ReferenceChangedError);
    await expect(repo.updateReference('refs/heads/main', null, first)).rejects.toBeInstanceOf(ReferenceChangedError);
    expect(await repo.branch('main')).toBe(second);
    await repo.updateReference('refs/heads/topic', null, first);
    await repo.updateReference('refs/heads/topic', first, null);
    expect(await repo.branch('topic')).toBeNull();
    if (hasGit) expect(git('for-each-ref', '--format=%(refname) %(objectname)')).toBe(`refs/heads/main ${second}\n`);
  });

  it('are refused where another reference is in the way, and left by a writer that holds the lock', async () => {
    const oid = await commit('main', [create('a.txt', 'a\n')]);
    await repo.updateReference('refs/heads/feature/one', null, oid);
    await expect(repo.updateReference('refs/heads/feature', null, oid)).rejects.toBeInstanceOf(ReferenceConflictError);
    await expect(repo.updateReference('refs/heads/main/sub', null, oid)).rejects.toBeInstanceOf(ReferenceConflictError);
    // Deleted, its directory goes with it: the name is free again.
    await repo.updateReference('refs/heads/feature/one', oid, null);
    await repo.updateReference('refs/heads/feature', null, oid);
    // The caller holds the repository's lock: a lock file left by a crash a moment ago is taken over at once.
    writeFileSync(join(repo.gitdir, 'refs/heads/main.lock'), 'half-written');
    await repo.updateReference('refs/heads/main', oid, null);
    expect(await repo.branch('main')).toBeNull();
    expect(existsSync(join(repo.gitdir, 'refs/heads/main.lock'))).toBe(false);
  });

  it.runIf(hasGit)('read and delete what native git packed', async () => {
    const oid = await commit('main', [create('a.txt', 'a\n')]);
    git('update-ref', 'refs/heads/packed', oid);
    git('tag', '-a', '-m', 'Annotated', 'v1', oid);
    git('pack-refs', '--all');
    expect(await repo.branch('packed')).toBe(oid);
    expect(await repo.resolveCommit('v1')).toBe(oid);
    expect((await repo.branches()).map((branch) => branch.name).sort()).toEqual(['main', 'packed']);
    await repo.updateReference('refs/heads/packed', oid, null);
    expect(await repo.branch('packed')).toBeNull();
    expect(git('for-each-ref', '--format=%(refname)')).toBe('refs/heads/main\nrefs/tags/v1\n');
    expect(git('fsck', '--full', '--strict')).toBe('');
  });

  it('names follow git check-ref-format', () => {
    for (const name of ['main', 'feature/one', 'v1.0', 'a-b_c', 'ünï']) expect(isValidReferenceName(name), name).toBe(true);
    for (const name of [
      '',
      '@',
      'a..b',
      'a b',
      'a~1',
      'a^',
      'a:b',
      'a?',
      'a*',
      'a[',
      'a\\b',
      '/a',
      'a/',
      'a//b',
      'a.',
      '.a',
      'a/.b',
      'a.lock',
      'a@{1}',
      'x'.repeat(251),
    ]) {
      expect(isValidReferenceName(name), name).toBe(false);
    }
  });
});

describe('resolving a revision', () => {
  it('reads full and abbreviated object IDs, HEAD, tags before branches, and follows annotated tags', async () => {
    const first = await commit('main', [create('a.txt', 'a\n')]);
    const second = await commit('main', [update('a.txt', 'b\n')]);
    await repo.updateReference('refs/heads/v2', null, first);
    const tag = await repo.writeAnnotatedTag({ name: 'v2', commit: second, message: 'Second\n', tagger: person() });
    await repo.updateReference('refs/tags/v2', null, tag);
    expect(await repo.resolveCommit(second)).toBe(second);
    expect(await repo.resolveCommit(second.slice(0, 8))).toBe(second);
    expect(await repo.resolveCommit('HEAD')).toBe(second);
    expect(await repo.resolveCommit('main')).toBe(second);
    expect(await repo.resolveCommit('v2')).toBe(second);
    expect(await repo.resolveCommit('refs/heads/v2')).toBe(first);
    expect(await repo.resolveCommit('heads/v2')).toBe(first);
    expect(await repo.readAnnotatedTag(tag)).toMatchObject({ name: 'v2', object: second, message: 'Second\n' });
    for (const missing of ['nope', '0'.repeat(40), 'abcd', 'a..b', (await repo.readCommit(second)).tree])
      expect(await repo.resolveCommit(missing), missing).toBeNull();
  });
});

describe('tree edits', () => {
  it('apply actions in order, make and remove directories, and keep modes', async () => {
    await commit('main', [
      create('a.txt', 'a\n'),
      create('dir/sub/b.txt', 'b\n'),
      create('dir/c.txt', 'c\n'),
      { action: 'chmod', path: 'dir/c.txt', executable: true },
    ]);
    await commit('main', [
      { action: 'move', path: 'moved/b.txt', previousPath: 'dir/sub/b.txt' },
      { action: 'delete', path: 'dir/c.txt' },
      update('a.txt', 'A\n'),
      create('dir/new.txt', 'new\n'),
    ]);
    const head = await repo.readCommit((await repo.branch('main'))!);
    const paths = async (tree: string, prefix = ''): Promise<string[]> =>
      (
        await Promise.all(
          (
            await repo.readTree(tree)
          ).map(async (entry) =>
            entry.type === 'tree' ? paths(entry.oid, `${prefix}${entry.name}/`) : [`${prefix}${entry.name} ${entry.mode}`],
          ),
        )
      ).flat();
    expect(await paths(head.tree)).toEqual(['a.txt 100644', 'dir/new.txt 100644', 'moved/b.txt 100644']);
    if (hasGit) {
      expect(git('fsck', '--full', '--strict')).toBe('');
      expect(git('ls-tree', '-r', '--name-only', 'main')).toBe('a.txt\ndir/new.txt\nmoved/b.txt\n');
    }
  });

  it('refuse what cannot apply, naming the problem and the path', async () => {
    await commit('main', [create('a.txt', 'a\n'), create('dir/b.txt', 'b\n')]);
    const tree = (await repo.readCommit((await repo.branch('main'))!)).tree;
    const refusals: [FileAction[], EditError['problem'], string][] = [
      [[create('a.txt', 'x')], 'exists', 'a.txt'],
      [[create('dir', 'x')], 'exists', 'dir'],
      [[update('missing.txt', 'x')], 'missing', 'missing.txt'],
      [[{ action: 'delete', path: 'dir' }], 'missing', 'dir'],
      [[create('a.txt/inside', 'x')], 'directory_conflict', 'a.txt/inside'],
      [[{ action: 'move', path: 'a.txt', previousPath: 'dir/b.txt' }], 'exists', 'a.txt'],
      [[create('../escape', 'x')], 'traversal', '../escape'],
      [[create('dir/./x', 'x')], 'invalid_path', 'dir/./x'],
      [[create('.git/config', 'x')], 'invalid_path', '.git/config'],
      [[create('a//b', 'x')], 'invalid_path', 'a//b'],
      [
        [
          { action: 'delete', path: 'a.txt' },
          { action: 'delete', path: 'a.txt' },
        ],
        'missing',
        'a.txt',
      ],
    ];
    for (const [actions, problem, path] of refusals) {
      const error = await applyActions(repo, tree, actions).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(actions)).toBeInstanceOf(EditError);
      expect([(error as EditError).problem, (error as EditError).path]).toEqual([problem, path]);
    }
    expect(isValidFilePath('a/b.txt')).toBe(true);
  });

  it('gives back the same tree when nothing changes', async () => {
    await commit('main', [create('a.txt', 'a\n')]);
    const tree = (await repo.readCommit((await repo.branch('main'))!)).tree;
    expect(await applyActions(repo, tree, [update('a.txt', 'a\n')])).toBe(tree);
  });
});

describe('history', () => {
  it('walks newest first, filters by path and dates, and keeps a merge that took the path from one side out', async () => {
    const a = await commit('main', [create('a.txt', '1\n'), create('b.txt', '1\n')], 'a');
    const b = await commit('main', [update('a.txt', '2\n')], 'b');
    const c = await commit('main', [update('b.txt', '2\n')], 'c');
    // A side branch from b that changes a.txt, merged into main after c.
    await repo.updateReference('refs/heads/side', null, b);
    const d = await commit('side', [create('side.txt', 'x\n'), update('a.txt', '3\n')], 'd');
    const mainHead = await repo.readCommit(c);
    const sideHead = await repo.readCommit(d);
    const mergedTree = await applyActions(repo, mainHead.tree, [update('a.txt', '3\n'), create('side.txt', 'x\n')]);
    const signature = person();
    const merge = await repo.writeCommit({
      tree: mergedTree,
      parents: [c, d],
      message: 'merge\n',
      author: signature,
      committer: signature,
    });
    await repo.updateReference('refs/heads/main', c, merge);
    expect(sideHead.parents).toEqual([b]);

    expect(await historyOf(repo, merge)).toEqual([merge, d, c, b, a]);
    expect(await historyOf(repo, merge, { path: 'b.txt' })).toEqual([c, a]);
    expect(await historyOf(repo, merge, { path: 'a.txt' })).toEqual([d, b, a]);
    expect(await historyOf(repo, merge, { firstParent: true })).toEqual([merge, c, b, a]);
    const time = async (oid: string) => (await repo.readCommit(oid)).committer.timestamp;
    expect(await historyOf(repo, merge, { since: await time(c), until: await time(d) })).toEqual([d, c]);
    expect(await lastCommitChanging(repo, merge, 'b.txt')).toBe(c);
    expect(await lastCommitChanging(repo, merge, 'missing')).toBeNull();
    if (hasGit) {
      expect(git('log', '--format=%H', 'main').trim().split('\n')).toEqual(await historyOf(repo, merge));
      expect(git('log', '--format=%H', 'main', '--', 'a.txt').trim().split('\n')).toEqual(await historyOf(repo, merge, { path: 'a.txt' }));
      expect(git('log', '--format=%H', 'main', '--', 'b.txt').trim().split('\n')).toEqual(await historyOf(repo, merge, { path: 'b.txt' }));
    }
  });
  it('walks only the new commits of a branch that moved on, with the answers of a walk from scratch', async () => {
    const a = await commit('main', [create('a.txt', '1\n'), create('b.txt', '1\n')], 'a');
    const b = await commit('main', [update('a.txt', '2\n')], 'b');
    // Kept for where main was: the whole history, a.txt's and b.txt's.
    expect(await historyOf(repo, b)).toEqual([b, a]);
    expect(await historyOf(repo, b, { path: 'b.txt' })).toEqual([a]);
    expect(await lastCommitChanging(repo, b, 'a.txt')).toBe(b);
    expect(await lastCommitChanging(repo, b, 'b.txt')).toBe(a);
    const c = await commit('main', [update('b.txt', '2\n')], 'c');
    const d = await commit('main', [create('c.txt', '1\n')], 'd');
    // From the new head: the kept walks give the rest.
    expect(await historyOf(repo, d)).toEqual([d, c, b, a]);
    expect(await historyOf(repo, d, { path: 'b.txt' })).toEqual([c, a]);
    expect(await historyOf(repo, d, { path: 'a.txt' })).toEqual([b, a]);
    expect(await lastCommitChanging(repo, d, 'a.txt')).toBe(b);
    expect(await lastCommitChanging(repo, d, 'b.txt')).toBe(c);
    expect(await lastCommitChanging(repo, d, 'c.txt')).toBe(d);
    // A merge whose side line started before the kept head: the walk is not one line, so nothing kept is taken.
    await repo.updateReference('refs/heads/side', null, a);
    const side = await commit('side', [create('side.txt', 'x\n')], 'side');
    const signature = person();
    const mergedTree = await applyActions(repo, (await repo.readCommit(d)).tree, [create('side.txt', 'x\n')]);
    const merge = await repo.writeCommit({
      tree: mergedTree,
      parents: [d, side],
      message: 'merge\n',
      author: signature,
      committer: signature,
    });
    expect(await historyOf(repo, merge)).toEqual([merge, side, d, c, b, a]);
    if (hasGit) {
      await repo.updateReference('refs/heads/main', d, merge);
      expect(git('log', '--format=%H', 'main').trim().split('\n')).toEqual(await historyOf(repo, merge));
      expect(git('log', '--format=%H', 'main', '--', 'b.txt').trim().split('\n')).toEqual(await historyOf(repo, merge, { path: 'b.txt' }));
    }
  });
});

describe('objects', () => {
  it('are written as git writes them, and a commit kept as written reads back the same from disk', async () => {
    const tree = await applyActions(repo, null, [
      create('b.txt', 'b\n'),
      create('a-dir/x.txt', 'x\n'),
      create('a.txt', 'a\n'),
      create('a-dir.txt', 'y\n'),
    ]);
    const author = { name: ' Ada . ', email: 'ada@example.com', timestamp: 1_700_000_000, offsetMinutes: -90 };
    const committer = { name: 'Grace', email: 'grace@example.com', timestamp: 1_700_000_060, offsetMinutes: 330 };
    const oid = await repo.writeCommit({ tree, parents: [], message: '\nSubject\r\n\nBody\n\n\n', author, committer });
    const kept = await repo.readCommit(oid);
    const fresh = await new RepositoryStore({ default: root }).open('default', nextId).readCommit(oid);
    expect(fresh).toEqual(kept);
    expect(kept).toMatchObject({ message: 'Subject\n\nBody\n', author: { ...author, name: 'Ada' }, committer });
    expect(await new RepositoryStore({ default: root }).open('default', nextId).readTree(tree)).toEqual(await repo.readTree(tree));
    if (hasGit) {
      expect(git('cat-file', '-p', oid)).toBe(
        `tree ${tree}\nauthor Ada <ada@example.com> 1700000000 -0130\n` +
          'committer Grace <grace@example.com> 1700000060 +0530\n\nSubject\n\nBody\n',
      );
      // git's order: a directory's name as if it ended in a slash.
      expect(git('ls-tree', '--name-only', tree)).toBe('a-dir.txt\na-dir\na.txt\nb.txt\n');
      expect(git('fsck', '--full', '--strict', '--no-dangling')).toBe('');
    }
  });
});

describe('the pack cache', () => {
  it('forgets everything and numbers packs anew past the packs its keys can tell apart, never mixing two packs up', () => {
    const cache = new PackCache(1024 * 1024);
    cache.keepWindow('/first.pack', 0, Buffer.from('first'));
    expect(cache.window('/first.pack', 0)?.toString()).toBe('first');
    for (let pack = 0; pack < 2 ** 17; pack++) cache.window(`/pack-${pack}.pack`, 0);
    // The 2^17 + 1st pack: the numbering starts again, and what was kept is gone rather than read as another's.
    cache.keepWindow('/last.pack', 0, Buffer.from('last'));
    expect(cache.window('/first.pack', 0)).toBeUndefined();
    expect(cache.window('/last.pack', 0)?.toString()).toBe('last');
  });
});

describe('diffs', () => {
  it.runIf(hasGit)('are the hunks native git writes, with exact renames and binary files told apart', async () => {
    const lines = (count: number, changed: number[] = []) =>
      `${Array.from({ length: count }, (_, index) => (changed.includes(index) ? `changed ${index}` : `line ${index}`)).join('\n')}\n`;
    // Blocks whose first and last lines repeat: git slides an added or deleted block to its last possible place.
    const blocks = (names: string[]) => names.map((name) => `function ${name}() {\n  return ${name === 'b' ? 1 : 0};\n}\n\n`).join('');
    const first = await commit('main', [
      create('long.txt', lines(40)),
      create('gone.txt', 'bye\n'),
      create('same.txt', 'moves\n'),
      create('tail.txt', 'no newline'),
      create('bin.dat', 'a\u0000b'),
      create('blocks.js', blocks(['a', 'b', 'c', 'd'])),
      create('methods.ts', 'class A {\n  set() {\n    if (a) one();\n  }\n}\n'),
    ]);
    const second = await commit('main', [
      update('long.txt', lines(40, [2, 20, 21, 39])),
      update('blocks.js', `${blocks(['a', 'x', 'c'])}\n${blocks(['d'])}`),
      // A method added after one that changed: git ends the added lines with the class's last `}`.
      update('methods.ts', 'class A {\n  set() {\n    if (a) {\n      one();\n    }\n  }\n\n  delete() {\n    two();\n  }\n}\n'),
      { action: 'delete', path: 'gone.txt' },
      { action: 'move', path: 'renamed/same.txt', previousPath: 'same.txt' },
      update('tail.txt', 'still none'),
      update('bin.dat', 'a\u0000c'),
      create('empty.txt', ''),
    ]);
    const [before, after] = [await repo.readCommit(first), await repo.readCommit(second)];
    const changes = await changesBetween(repo, before.tree, after.tree);
    expect(changes.map((change) => [change.status, change.oldPath, change.newPath])).toEqual([
      ['modified', 'bin.dat', 'bin.dat'],
      ['modified', 'blocks.js', 'blocks.js'],
      ['added', 'empty.txt', 'empty.txt'],
      ['deleted', 'gone.txt', 'gone.txt'],
      ['modified', 'long.txt', 'long.txt'],
      ['modified', 'methods.ts', 'methods.ts'],
      ['renamed', 'same.txt', 'renamed/same.txt'],
      ['modified', 'tail.txt', 'tail.txt'],
    ]);
    for (const change of changes) {
      const diff = await diffOf(repo, change);
      if (change.status === 'renamed') expect(diff.diff).toBe('');
      else if (change.newPath === 'bin.dat') expect(diff.binary).toBe(true);
      else {
        // git's own patch, from its first hunk on.
        const native = git('diff', '--no-renames', first, second, '--', change.newPath);
        expect(diff.diff, change.newPath).toBe(native.includes('@@') ? native.slice(native.indexOf('@@')) : '');
      }
    }
    const numstat = git('diff', '--numstat', '--no-renames', first, second)
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    const additions = numstat.reduce((sum, [added]) => sum + (added === '-' ? 0 : Number(added)), 0);
    const deletions = numstat.reduce((sum, [, deleted]) => sum + (deleted === '-' ? 0 : Number(deleted)), 0);
    // The rename moved a file unchanged: git counts its lines without rename detection, forgekit does not.
    expect(await statsOf(repo, after.tree, before.tree)).toEqual({
      additions: additions - 1,
      deletions: deletions - 1,
      total: additions + deletions - 2,
    });
  });
});

describe.runIf(hasGit)('a damaged pack', () => {
  it('is refused with CorruptObjectError, whether an entry does not inflate or runs past the pack’s end', async () => {
    const gitdir = join(root, 'damaged.git');
    execFileSync('git', ['init', '--bare', '--quiet', gitdir]);
    const run = (args: string[], input?: string) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', input });
    const oids = ['a', 'b'].map((letter) => run(['hash-object', '-w', '--stdin'], `${letter.repeat(5000)}\n`).trim());
    const name = run(['pack-objects', '--quiet', join(gitdir, 'objects', 'pack', 'pack')], `${oids.join('\n')}\n`).trim();
    run(['prune-packed']);
    const packPath = join(gitdir, 'objects', 'pack', `pack-${name}.pack`);
    // Each blob's offset in the pack, from git verify-pack.
    const offsets = new Map(
      run(['verify-pack', '-v', packPath.replace(/\.pack$/, '.idx')])
        .split('\n')
        .filter((line) => / blob /.test(line))
        .map((line) => [line.split(/\s+/)[0], Number(line.split(/\s+/)[4])] as const),
    );
    const [earlier, later] = [...oids].sort((x, y) => offsets.get(x)! - offsets.get(y)!);
    const whole = readFileSync(packPath);
    const readWith = async (bytes: Buffer, oid: string) => {
      writeFileSync(packPath, bytes);
      const reader = new ObjectReader(gitdir);
      try {
        return await reader.read(oid).then(
          (object) => object.content.length,
          (error: unknown) => error,
        );
      } finally {
        await reader.close();
      }
    };
    expect(await readWith(whole, later)).toBe(5001);
    const damaged = Buffer.from(whole);
    damaged.fill(0x55, offsets.get(earlier)! + 8, offsets.get(earlier)! + 24);
    expect(await readWith(damaged, earlier)).toBeInstanceOf(CorruptObjectError);
    expect(await readWith(whole.subarray(0, offsets.get(later)! + 10), later)).toBeInstanceOf(CorruptObjectError);
    // The entry before the cut reads whole: past the bound its size gives, it ends where the next entry starts.
    expect(await readWith(whole.subarray(0, offsets.get(later)! + 10), earlier)).toBe(5001);
  });
});
