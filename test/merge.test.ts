/**
 * The three-way merge on its own (src/git/merge.ts): file contents line by line, whole trees, merge bases and
 * the commits between two refs, each checked against what native git makes of the same input where git is
 * installed (`git merge-file`, `git merge-tree`, `git merge-base`, `git rev-list`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { applyActions, type FileAction } from '../src/git/edit.js';
import { MergeConflictError } from '../src/git/errors.js';
import { writeHistoryRepository } from '../bench/lib/history-repository.ts';
import { commitsBetween, mergeBase } from '../src/git/ancestry.js';
import { mergeText, mergeTrees } from '../src/git/merge.js';
import { BRANCH_PREFIX, Repository, type Signature } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import { hasGit } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-merge-test-'));
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
/** `git merge-tree --write-tree` (git 2.38 and later): the tree git's own merge makes of two commits. */
const hasMergeTree = hasGit && spawnSync('git', ['merge-tree', '-h'], { encoding: 'utf8' }).stdout.includes('--write-tree');
const bytes = (value: string) => new TextEncoder().encode(value);
const textOf = (value: Uint8Array | null) => (value === null ? null : Buffer.from(value).toString('latin1'));
let clock = 1_700_000_000;
const person = (): Signature => ({ name: 'Ada', email: 'ada@example.com', timestamp: (clock += 60), offsetMinutes: 0 });

/** A commit of `actions` on top of `parent` (null: a first commit); `branch` is moved to it when given. */
async function commitOn(parent: string | null, actions: FileAction[], branch?: string): Promise<string> {
  const base = parent ? await repo.readCommit(parent) : null;
  const tree = await applyActions(repo, base?.tree ?? null, actions);
  const signature = person();
  const oid = await repo.writeCommit({
    tree,
    parents: base ? [base.oid] : [],
    message: 'change\n',
    author: signature,
    committer: signature,
  });
  if (branch) await repo.updateReference(BRANCH_PREFIX + branch, await repo.branch(branch), oid);
  return oid;
}

const create = (path: string, content: string): FileAction => ({ action: 'create', path, content: bytes(content) });
const update = (path: string, content: string): FileAction => ({ action: 'update', path, content: bytes(content) });
const remove = (path: string): FileAction => ({ action: 'delete', path });
const chmod = (path: string, executable: boolean): FileAction => ({ action: 'chmod', path, executable });
const treeOf = async (commit: string) => (await repo.readCommit(commit)).tree;

/** What `git merge-file -p` makes of the three texts: its output, or null when it reports conflicts. */
function gitMergeFile(base: string, ours: string, theirs: string): string | null {
  const directory = mkdtempSync(join(root, 'merge-file-'));
  const [o, a, b] = ['base', 'ours', 'theirs'].map((name) => join(directory, name));
  writeFileSync(o, base, 'latin1');
  writeFileSync(a, ours, 'latin1');
  writeFileSync(b, theirs, 'latin1');
  const result = spawnSync('git', ['merge-file', '-p', a, o, b], { encoding: 'latin1' });
  rmSync(directory, { recursive: true, force: true });
  return result.status === 0 ? result.stdout : null;
}

const lines = (...values: string[]) => values.map((value) => `${value}\n`).join('');

describe('mergeText', () => {
  const base = lines('one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten');
  const noNewline = base.slice(0, -1);
  const cases: [string, string, string, string | null][] = [
    ['changes far apart', base.replace('two', 'TWO'), base.replace('nine', 'NINE'), base.replace('two', 'TWO').replace('nine', 'NINE')],
    ['one side only', base.replace('five', 'FIVE'), base, base.replace('five', 'FIVE')],
    ['the same change on both sides', base.replace('five', 'FIVE'), base.replace('five', 'FIVE'), base.replace('five', 'FIVE')],
    ['lines added at the start and the end', `zero\n${base}`, `${base}eleven\n`, `zero\n${base}eleven\n`],
    [
      'a line deleted and another changed',
      base.replace('three\n', ''),
      base.replace('eight', 'EIGHT'),
      base.replace('three\n', '').replace('eight', 'EIGHT'),
    ],
    ['the same line changed two ways', base.replace('five', 'FIVE'), base.replace('five', 'Five'), null],
    ['adjacent lines changed', base.replace('five', 'FIVE'), base.replace('six', 'SIX'), null],
    ['a line changed where the other side deleted it', base.replace('five', 'FIVE'), base.replace('five\n', ''), null],
    ['everything deleted on one side, a line changed on the other', '', base.replace('one', 'ONE'), null],
    ['two different insertions at one place', base.replace('five\n', 'five\nA\n'), base.replace('five\n', 'five\nB\n'), null],
    [
      'no newline at the end',
      noNewline.replace('eight', 'EIGHT'),
      noNewline.replace('one', 'ONE'),
      noNewline.replace('one', 'ONE').replace('eight', 'EIGHT'),
    ],
    [
      'CRLF line ends',
      base.replace(/\n/g, '\r\n').replace('two', 'TWO'),
      base.replace(/\n/g, '\r\n').replace('nine', 'NINE'),
      base.replace(/\n/g, '\r\n').replace('two', 'TWO').replace('nine', 'NINE'),
    ],
    [
      'bytes that are not UTF-8',
      base.replace('two', 'tw\xe9'),
      base.replace('nine', 'n\xefne'),
      base.replace('two', 'tw\xe9').replace('nine', 'n\xefne'),
    ],
  ];

  for (const [name, ours, theirs, expected] of cases) {
    const baseText = name.startsWith('no newline') ? noNewline : name.startsWith('CRLF') ? base.replace(/\n/g, '\r\n') : base;
    it(`${name}: ${expected === null ? 'conflicts' : 'merges'}, as git merge-file does`, () => {
      const merged = textOf(mergeText(Buffer.from(baseText, 'latin1'), Buffer.from(ours, 'latin1'), Buffer.from(theirs, 'latin1')));
      expect(merged).toBe(expected);
      if (hasGit) expect(gitMergeFile(baseText, ours, theirs)).toBe(expected);
    });
  }

  it('does not merge binary content, nor content past its bounds', () => {
    const binary = Buffer.from([0, 1, 2, 10]);
    expect(mergeText(binary, Buffer.from([0, 1, 3, 10]), binary)).toBeNull();
    const large = Buffer.alloc(1024 * 1024 + 1, 'a');
    expect(mergeText(large, Buffer.concat([large, Buffer.from('b')]), large)).toBeNull();
    // A side that rewrote more than a thousand lines.
    const numbered = (prefix: string, count: number) => lines(...Array.from({ length: count }, (_, index) => `${prefix} ${index}`));
    expect(
      mergeText(Buffer.from(numbered('line', 2000)), Buffer.from(numbered('other', 2000)), Buffer.from(`${numbered('line', 2000)}y\n`)),
    ).toBeNull();
  });

  it('merges a long file full of alike lines in little time, as git merge-file does', () => {
    // 20,000 lines, a fifth of them blank or a closing brace: both sides change it at its start, middle and end.
    const base = Array.from({ length: 20_000 }, (_, index) =>
      index % 7 === 0 ? '\n' : index % 11 === 0 ? '}\n' : `statement ${index};\n`,
    );
    const ours = ['// ours\n', ...base.slice(0, 10_000), 'inserted();\n', ...base.slice(10_000, 19_990), ...base.slice(19_992)];
    const theirs = [...base.slice(0, 5_000), ...base.slice(5_003), '// theirs\n'].map((line, index) =>
      index === 15_000 ? 'changed();\n' : line,
    );
    const started = performance.now();
    const merged = textOf(mergeText(Buffer.from(base.join('')), Buffer.from(ours.join('')), Buffer.from(theirs.join(''))));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(merged).not.toBeNull();
    expect(merged!.startsWith('// ours\n')).toBe(true);
    expect(merged!.endsWith('// theirs\n')).toBe(true);
    if (hasGit) expect(gitMergeFile(base.join(''), ours.join(''), theirs.join(''))).toBe(merged);
  });
});

describe('mergeTrees', () => {
  /** Two commits on `base`, each with its own actions: the merge of their trees, beside git's own where it has merge-tree. */
  async function merge(baseActions: FileAction[], ours: FileAction[], theirs: FileAction[]) {
    const base = await commitOn(null, baseActions);
    const [mine, other] = [await commitOn(base, ours), await commitOn(base, theirs)];
    const outcome = await mergeTrees(repo, await treeOf(base), await treeOf(mine), await treeOf(other)).then(
      (tree) => ({ tree }),
      (error: unknown) => {
        if (error instanceof MergeConflictError) return { conflicts: error.paths };
        throw error;
      },
    );
    if (hasMergeTree) {
      const native = spawnSync('git', ['--git-dir', repo.gitdir, 'merge-tree', '--write-tree', '--no-messages', mine, other], {
        encoding: 'utf8',
      });
      if ('tree' in outcome) expect([native.status, native.stdout.trim()]).toEqual([0, outcome.tree]);
      else expect(native.status).toBe(1);
    }
    return outcome;
  }

  const listing = (tree: string) => git('ls-tree', '-r', tree);

  it('takes each side’s changes to different files and directories', async () => {
    const outcome = await merge(
      [
        create('a.txt', 'a\n'),
        create('dir/b.txt', 'b\n'),
        create('dir/sub/c.txt', 'c\n'),
        create('gone.txt', 'bye\n'),
        create('run.sh', 'echo\n'),
      ],
      [update('a.txt', 'A\n'), create('dir/new.txt', 'new\n'), remove('gone.txt')],
      [update('dir/sub/c.txt', 'C\n'), create('other/d.txt', 'd\n'), chmod('run.sh', true)],
    );
    expect('tree' in outcome).toBe(true);
    if (!('tree' in outcome) || !hasGit) return;
    expect(listing(outcome.tree).replace(/ [0-9a-f]{40}\t/g, ' \t')).toBe(
      [
        '100644 blob \ta.txt',
        '100644 blob \tdir/b.txt',
        '100644 blob \tdir/new.txt',
        '100644 blob \tdir/sub/c.txt',
        '100644 blob \tother/d.txt',
        '100755 blob \trun.sh',
        '',
      ].join('\n'),
    );
  });

  it('merges one file that both sides changed in different places, and the same change made twice', async () => {
    const base = lines('1', '2', '3', '4', '5', '6', '7', '8');
    const outcome = await merge(
      [create('f.txt', base), create('same.txt', 'x\n')],
      [update('f.txt', base.replace('2', 'two')), update('same.txt', 'y\n')],
      [update('f.txt', base.replace('7', 'seven')), update('same.txt', 'y\n')],
    );
    if (!('tree' in outcome)) throw new Error('expected a merge');
    const entry = await repo.entryAt(outcome.tree, 'f.txt');
    expect(Buffer.from(await repo.readBlob(entry!.oid)).toString()).toBe(base.replace('2', 'two').replace('7', 'seven'));
  });

  it('removes a directory both sides emptied', async () => {
    const outcome = await merge(
      [create('keep.txt', 'k\n'), create('dir/a.txt', 'a\n'), create('dir/b.txt', 'b\n')],
      [remove('dir/a.txt')],
      [remove('dir/b.txt')],
    );
    if (!('tree' in outcome)) throw new Error('expected a merge');
    expect((await repo.readTree(outcome.tree)).map((entry) => entry.name)).toEqual(['keep.txt']);
  });

  it('keeps a mode change on one side with a content change on the other', async () => {
    const outcome = await merge([create('run.sh', 'echo 1\n')], [chmod('run.sh', true)], [update('run.sh', 'echo 2\n')]);
    if (!('tree' in outcome)) throw new Error('expected a merge');
    expect(await repo.entryAt(outcome.tree, 'run.sh')).toMatchObject({ mode: '100755' });
  });

  it('names the paths that conflict: the same lines, a change against a deletion, a file against a directory, two additions', async () => {
    expect(await merge([create('f.txt', 'a\n')], [update('f.txt', 'b\n')], [update('f.txt', 'c\n')])).toEqual({ conflicts: ['f.txt'] });
    expect(await merge([create('f.txt', 'a\n'), create('g.txt', 'g\n')], [remove('f.txt')], [update('f.txt', 'c\n')])).toEqual({
      conflicts: ['f.txt'],
    });
    expect(await merge([create('g.txt', 'g\n')], [create('x', 'file\n')], [create('x/y.txt', 'in a directory\n')])).toEqual({
      conflicts: ['x'],
    });
    expect(await merge([create('g.txt', 'g\n')], [create('new.txt', 'one\n')], [create('new.txt', 'two\n')])).toEqual({
      conflicts: ['new.txt'],
    });
    expect(
      await merge(
        [create('d/f.txt', 'a\n'), create('d/g.txt', 'g\n')],
        [update('d/f.txt', 'b\n'), update('d/g.txt', 'G\n')],
        [update('d/f.txt', 'c\n'), update('d/g.txt', 'G2\n')],
      ),
    ).toEqual({
      conflicts: ['d/f.txt', 'd/g.txt'],
    });
  });

  it('merges from no base at all: additions of different files', async () => {
    const ours = await commitOn(null, [create('a.txt', 'a\n')]);
    const theirs = await commitOn(null, [create('b.txt', 'b\n')]);
    const tree = await mergeTrees(repo, null, await treeOf(ours), await treeOf(theirs));
    expect((await repo.readTree(tree)).map((entry) => entry.name)).toEqual(['a.txt', 'b.txt']);
  });
});

describe('mergeBase and commitsBetween', () => {
  it('find what git merge-base and git rev-list find: a fork, a merge, unrelated histories', async () => {
    const first = await commitOn(null, [create('a.txt', '1\n')], 'main');
    const second = await commitOn(first, [update('a.txt', '2\n')], 'main');
    const topic1 = await commitOn(second, [create('t.txt', 't1\n')], 'topic');
    const main3 = await commitOn(second, [update('a.txt', '3\n')], 'main');
    const topic2 = await commitOn(topic1, [update('t.txt', 't2\n')], 'topic');
    expect(await mergeBase(repo, main3, topic2)).toBe(second);
    expect(await mergeBase(repo, topic2, main3)).toBe(second);
    expect(await mergeBase(repo, second, topic2)).toBe(second);
    expect(await mergeBase(repo, main3, main3)).toBe(main3);
    expect(await commitsBetween(repo, main3, topic2)).toEqual([topic1, topic2]);
    expect(await commitsBetween(repo, topic2, main3)).toEqual([main3]);
    expect(await commitsBetween(repo, topic2, second)).toEqual([]);

    // main merges topic: topic's head is then the merge base, and nothing of topic is left to compare.
    const mergedTree = await mergeTrees(repo, await treeOf(second), await treeOf(main3), await treeOf(topic2));
    const signature = person();
    const merge = await repo.writeCommit({
      tree: mergedTree,
      parents: [main3, topic2],
      message: 'Merge\n',
      author: signature,
      committer: signature,
    });
    await repo.updateReference(`${BRANCH_PREFIX}main`, main3, merge);
    const topic3 = await commitOn(topic2, [update('t.txt', 't3\n')], 'topic');
    expect(await mergeBase(repo, merge, topic3)).toBe(topic2);
    expect(await commitsBetween(repo, merge, topic3)).toEqual([topic3]);
    expect(await commitsBetween(repo, topic3, merge)).toEqual([main3, merge]);

    const lonely = await commitOn(null, [create('z.txt', 'z\n')], 'lonely');
    expect(await mergeBase(repo, lonely, merge)).toBeNull();

    if (hasGit) {
      expect(git('merge-base', main3, topic2).trim()).toBe(second);
      expect(git('merge-base', merge, topic3).trim()).toBe(topic2);
      expect(git('rev-list', '--reverse', `${main3}..${topic2}`).trim().split('\n')).toEqual([topic1, topic2]);
      expect(git('rev-list', '--reverse', `${topic3}..${merge}`).trim().split('\n')).toEqual([main3, merge]);
      expect(spawnSync('git', ['--git-dir', repo.gitdir, 'merge-base', lonely, merge]).status).toBe(1);
      expect(git('fsck', '--full', '--strict')).toBe('');
    }
  });

  it.runIf(hasGit)('agree with git on a history of branches and merges, walking only what lies between', async () => {
    const gitdir = join(root, 'history.git');
    await writeHistoryRepository(gitdir, 600);
    const generated = new Repository(gitdir);
    onTestFinished(() => generated.release());
    const reads = { count: 0 };
    const commitNode = generated.commitNode.bind(generated);
    generated.commitNode = (oid: string) => {
      reads.count += 1;
      return commitNode(oid);
    };
    const inGit = (...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();
    const all = inGit('rev-list', '--all').split('\n');
    let seed = 17;
    const pick = () => all[(seed = (seed * 48271) % 2147483647) % all.length];
    for (let round = 0; round < 20; round++) {
      const [a, b] = [pick(), pick()];
      const bases = spawnSync('git', ['--git-dir', gitdir, 'merge-base', '--all', a, b], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n')
        .filter(Boolean);
      const found = await mergeBase(generated, a, b);
      expect([a, b, found === null ? bases.length === 0 : bases.includes(found)]).toEqual([a, b, true]);
      expect([a, b, await commitsBetween(generated, a, b)]).toEqual([
        a,
        b,
        inGit('rev-list', '--reverse', `${a}..${b}`).split('\n').filter(Boolean),
      ]);
    }
    // Ten commits apart on the main line: the walk reads about those, not the 600 below them.
    const line = inGit('rev-list', '--first-parent', 'main').split('\n');
    reads.count = 0;
    expect(await commitsBetween(generated, line[10], line[0])).toEqual(
      inGit('rev-list', '--reverse', `${line[10]}..${line[0]}`).split('\n'),
    );
    expect(await mergeBase(generated, line[10], line[0])).toBe(line[10]);
    expect(reads.count).toBeLessThan(100);
  });

  it('picks the newest of several best common ancestors (a criss-cross), one git merge-base also finds', async () => {
    const base = await commitOn(null, [create('a.txt', 'a\n')]);
    const left = await commitOn(base, [create('l.txt', 'l\n')]);
    const right = await commitOn(base, [create('r.txt', 'r\n')]);
    const signature = () => person();
    const both = await mergeTrees(repo, await treeOf(base), await treeOf(left), await treeOf(right));
    const x = await repo.writeCommit({ tree: both, parents: [left, right], message: 'x\n', author: signature(), committer: signature() });
    const y = await repo.writeCommit({ tree: both, parents: [right, left], message: 'y\n', author: signature(), committer: signature() });
    const found = await mergeBase(repo, x, y);
    expect(found).toBe(right);
    if (hasGit) expect(git('merge-base', '--all', x, y).trim().split('\n')).toContain(found);
  });
});
