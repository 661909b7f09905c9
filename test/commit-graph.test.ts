/** git's commit-graph, read as git writes it: every commit's tree, parents and time, as its object has them. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHistoryRepository } from '../bench/lib/history-repository.ts';
import { CommitGraph, writeCommitGraph } from '../src/git/commit-graph.js';
import { Repository } from '../src/git/repository.js';
import { historyOf } from '../src/git/history.js';
import { RepositoryStore } from '../src/git/store.js';
import { createUser, hasGit, sharedHosting, type SharedHosting } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-commit-graph-'));
/** Repositories read here, their packs let go of at the end (an open file left to the garbage collector is a warning). */
const opened: Repository[] = [];
const reader = (gitdir: string): Repository => {
  const repository = new Repository(gitdir);
  opened.push(repository);
  return repository;
};
afterAll(() => {
  for (const repository of opened) repository.release();
  rmSync(root, { recursive: true, force: true });
});

/** The repository's graph, once checked to list every commit of `all` as its object has it. */
async function graphListingAll(gitdir: string, all: string[]): Promise<CommitGraph> {
  const graph = (await CommitGraph.open(gitdir))!;
  expect(graph.count).toBe(all.length);
  const objects = reader(gitdir);
  for (const oid of all) {
    const commit = await objects.readCommit(oid);
    expect(graph.node(oid)).toEqual({ oid, tree: commit.tree, parents: commit.parents, time: commit.committer.timestamp });
  }
  return graph;
}

describe.runIf(hasGit)('the commit-graph', () => {
  it(
    'gives every commit its tree, parents (an octopus merge’s too) ' + 'and committer time, and nothing for a commit it does not list',
    async () => {
      const gitdir = join(root, 'history.git');
      await writeHistoryRepository(gitdir, 300);
      const git = (...args: string[]) =>
        execFileSync('git', ['--git-dir', gitdir, ...args], {
          encoding: 'utf8',
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: 'A',
            GIT_AUTHOR_EMAIL: 'a@example.com',
            GIT_COMMITTER_NAME: 'A',
            GIT_COMMITTER_EMAIL: 'a@example.com',
          },
        }).trim();
      // An octopus merge of three commits, then the graph written again, as git gc would.
      const [a, b, c] = git('rev-list', '--max-count=3', '--skip=10', 'main').split('\n');
      const octopus = git('commit-tree', '-p', a, '-p', b, '-p', c, '-m', 'octopus', `${a}^{tree}`);
      git('update-ref', 'refs/heads/octopus', octopus);
      git('commit-graph', 'write', '--reachable');

      const graph = await graphListingAll(gitdir, git('rev-list', '--all').split('\n'));
      expect(graph.node(octopus)!.parents).toEqual([a, b, c]);
      // Walked over the records alone: git log's order, the first parent only when asked.
      const heads = git('for-each-ref', '--format=%(objectname)', 'refs/heads').split('\n');
      expect(graph.history(heads)!.map(({ oid }) => oid)).toEqual(git('rev-list', ...heads).split('\n'));
      expect(graph.history([octopus], true)!.map(({ oid }) => oid)).toEqual(git('rev-list', '--first-parent', octopus).split('\n'));
      expect(graph.history([octopus])!.map(({ oid }) => oid)).toEqual(git('rev-list', octopus).split('\n'));

      // A commit made after the graph was written: read from its object.
      const later = git('commit-tree', '-p', octopus, '-m', 'later', `${a}^{tree}`);
      expect(graph.node(later)).toBeNull();
      expect(graph.history([later])).toBeNull();
      const node = await reader(gitdir).commitNode(later);
      expect([node.parents, node.tree]).toEqual([[octopus], git('rev-parse', `${a}^{tree}`)]);
    },
  );

  it('is written by forgekit as git writes it: git verifies it, and reads every commit from it as from the objects', async () => {
    const gitdir = join(root, 'written.git');
    await writeHistoryRepository(gitdir, 300);
    const git = (...args: string[]) =>
      execFileSync('git', ['--git-dir', gitdir, ...args], {
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'A',
          GIT_AUTHOR_EMAIL: 'a@example.com',
          GIT_COMMITTER_NAME: 'A',
          GIT_COMMITTER_EMAIL: 'a@example.com',
        },
      }).trim();
    const [a, b, c] = git('rev-list', '--max-count=3', '--skip=20', 'main').split('\n');
    git('update-ref', 'refs/heads/octopus', git('commit-tree', '-p', a, '-p', b, '-p', c, '-m', 'octopus', `${a}^{tree}`));
    // An annotated tag on a branch of its own: its commit is listed too.
    git('update-ref', 'refs/heads/side', git('commit-tree', '-p', a, '-m', 'side', `${a}^{tree}`));
    git('tag', '-a', '-m', 'v1', 'v1', 'side');
    git('update-ref', '-d', 'refs/heads/side');
    rmSync(join(gitdir, 'objects', 'info', 'commit-graph'), { force: true });
    rmSync(join(gitdir, 'objects', 'info', 'commit-graphs'), { recursive: true, force: true });

    await writeCommitGraph(reader(gitdir));
    expect(existsSync(join(gitdir, 'objects', 'info', 'commit-graph'))).toBe(true);
    expect(spawnSync('git', ['--git-dir', gitdir, 'commit-graph', 'verify'], { encoding: 'utf8' })).toMatchObject({
      status: 0,
      stderr: '',
    });
    await graphListingAll(gitdir, git('rev-list', '--all').split('\n'));
    // git walks with it: the same history as without it.
    expect(git('-c', 'core.commitGraph=true', 'log', '--format=%H', '--all')).toBe(
      git('-c', 'core.commitGraph=false', 'log', '--format=%H', '--all'),
    );
  });

  it('is written again once walks have read many commits it does not list', async () => {
    const gitdir = join(root, 'unlisted.git');
    await writeHistoryRepository(gitdir, 300);
    rmSync(join(gitdir, 'objects', 'info', 'commit-graph'), { force: true });
    const repo = reader(gitdir);
    const head = execFileSync('git', ['--git-dir', gitdir, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
    await historyOf(repo, head);
    for (let waited = 0; !existsSync(join(gitdir, 'objects', 'info', 'commit-graph')) && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const graph = (await CommitGraph.open(gitdir))!;
    expect(graph.node(head)).not.toBeNull();
    expect(spawnSync('git', ['--git-dir', gitdir, 'commit-graph', 'verify'], { encoding: 'utf8' }).status).toBe(0);
  });

  it('is passed over when there is none, or when it is not one this reader takes', async () => {
    const gitdir = join(root, 'plain.git');
    git0('init', '--bare', '--quiet', gitdir);
    expect(await CommitGraph.open(gitdir)).toBeNull();
  });
});

const git0 = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' });

describe.runIf(hasGit)('history read through a commit-graph', () => {
  let t: SharedHosting;
  beforeAll(async () => {
    t = await sharedHosting();
  });
  afterAll(async () => {
    await t.close();
  });

  it(
    'stays right through commits, a new branch, a cherry-pick, a deleted branch, forced moves and a merge after the graph was written, ' +
      'and for a new reader',
    async () => {
      const owner = await createUser(t.hosting);
      const source = await t.hosting.as(owner.id).projects.create({ name: `graph-${process.pid}` });
      const sourceDir = join(t.storage, RepositoryStore.relativePath(source.id));
      const work = mkdtempSync(join(root, 'work-'));
      const git = (args: string[], cwd = work) =>
        execFileSync('git', args, {
          cwd,
          encoding: 'utf8',
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: 'A',
            GIT_AUTHOR_EMAIL: 'a@example.com',
            GIT_COMMITTER_NAME: 'A',
            GIT_COMMITTER_EMAIL: 'a@example.com',
          },
        }).trim();
      git(['init', '-q', '-b', 'master', work]);
      for (let index = 0; index < 30; index++) {
        writeFileSync(join(work, index === 0 ? 'README.md' : `file-${index % 5}.txt`), `${index}\n`);
        git(['add', '.']);
        git(['commit', '-q', '-m', `Commit ${index}`, `--date=@${1_700_000_000 + index * 60}`], work);
        if (index === 20) git(['branch', 'topic']);
      }
      git(['push', '-q', sourceDir, 'master', 'topic']);

      const fork = await t.hosting
        .as(owner.id)
        .projects.fork(source.id, { namespace: owner.username, path: `graph-fork-${process.pid}`, name: `graph-fork-${process.pid}` });
      await t.hosting.backgroundJobs.drain();
      const forkDir = join(t.storage, RepositoryStore.relativePath(fork.id));
      expect(existsSync(join(forkDir, 'objects', 'info', 'commit-graph'))).toBe(true);

      const api = t.hosting.as(owner.id);
      await api.repositoryFiles.create(fork.id, 'after.txt', { branch: 'master', content: 'after\n', commit_message: 'After the graph' });
      await api.branches.create(fork.id, { branch: 'feature', ref: git(['--git-dir', forkDir, 'rev-parse', 'master~5'], forkDir) });
      await api.repositoryFiles.create(fork.id, 'feature.txt', { branch: 'feature', content: 'f\n', commit_message: 'On feature' });
      const picked = git(['--git-dir', forkDir, 'rev-parse', 'master~1'], forkDir);
      await api.repository.cherryPick(fork.id, picked, { branch: 'feature' });
      await api.branches.delete(fork.id, 'topic');

      const inGit = (...args: string[]) =>
        git(['--git-dir', forkDir, ...args], forkDir)
          .split('\n')
          .filter(Boolean);
      for (const ref of ['master', 'feature']) {
        const listed = await api.commits.list(fork.id, { ref_name: ref, per_page: 100 });
        expect([ref, listed.map((commit) => commit.id), listed.total]).toEqual([
          ref,
          inGit('rev-list', ref),
          inGit('rev-list', ref).length,
        ]);
      }
      const everything = await api.commits.list(fork.id, { all: true, per_page: 100 });
      expect(new Set(everything.map((commit) => commit.id))).toEqual(new Set(inGit('rev-list', '--all')));
      const readme = await api.repositoryFiles.get(fork.id, 'README.md', { ref: 'feature' });
      expect(readme.last_commit_id).toBe(inGit('log', '-1', '--format=%H', 'feature', '--', 'README.md')[0]);

      // A reader that kept nothing (a process started again) walks the same history.
      const fresh = reader(forkDir);
      expect(await historyOf(fresh, inGit('rev-parse', 'feature')[0])).toEqual(inGit('rev-list', 'feature'));
      expect(spawnSync('git', ['--git-dir', forkDir, 'commit-graph', 'verify'], { encoding: 'utf8' }).status).toBe(0);

      // Forced moves, as a push --force makes them: master back five commits, then onto a merge of feature.
      const agrees = async (ref: string) => {
        const listed = await api.commits.list(fork.id, { ref_name: ref, per_page: 100 });
        expect([ref, listed.map((commit) => commit.id), listed.total]).toEqual([
          ref,
          inGit('rev-list', ref),
          inGit('rev-list', ref).length,
        ]);
        for (const path of ['README.md', 'file-1.txt', 'feature.txt']) {
          const file = await api.repositoryFiles.get(fork.id, path, { ref }).catch(() => null);
          expect([ref, path, file?.last_commit_id ?? null]).toEqual([
            ref,
            path,
            inGit('log', '-1', '--format=%H', ref, '--', path)[0] ?? null,
          ]);
        }
      };
      const before = inGit('rev-parse', 'master')[0];
      git(['--git-dir', forkDir, 'update-ref', 'refs/heads/master', inGit('rev-parse', 'master~5')[0], before], forkDir);
      await agrees('master');
      const merge = inGit('commit-tree', '-p', 'master', '-p', 'feature', '-m', 'Merge feature', 'feature^{tree}')[0];
      git(['--git-dir', forkDir, 'update-ref', 'refs/heads/master', merge], forkDir);
      await agrees('master');
      const compared = await api.repository.compare(fork.id, { from: before, to: 'master', straight: false });
      expect(compared.commits.map((commit) => commit.id).sort()).toEqual(inGit('rev-list', `${before}..master`).sort());
      // The graph written again lists the merge; git verifies it, fsck finds the repository whole, and a new reader walks the same.
      await reader(forkDir).writeCommitGraph();
      expect((await CommitGraph.open(forkDir))!.node(merge)?.parents).toEqual([
        inGit('rev-parse', 'master^1')[0],
        inGit('rev-parse', 'feature')[0],
      ]);
      for (const check of [
        ['commit-graph', 'verify'],
        ['fsck', '--full', '--no-progress'],
      ]) {
        const ran = spawnSync('git', ['--git-dir', forkDir, ...check], { encoding: 'utf8' });
        expect([check.join(' '), ran.status, ran.stderr]).toEqual([check.join(' '), 0, '']);
      }
      expect(await historyOf(reader(forkDir), merge)).toEqual(inGit('rev-list', 'master'));
      rmSync(work, { recursive: true, force: true });
    },
  );
});
