/** git's commit-graph, read as git writes it: every commit's tree, parents and time, as its object has them. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeHistoryRepository } from '../bench/lib/history-repository.ts';
import { CommitGraph, writeCommitGraph } from '../src/git/commit-graph.js';
import { Repository } from '../src/git/repository.js';
import { hasGit } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-commit-graph-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.runIf(hasGit)('the commit-graph', () => {
  it('gives every commit its tree, parents (an octopus merge’s too) and committer time, and nothing for a commit it does not list', async () => {
    const gitdir = join(root, 'history.git');
    await writeHistoryRepository(gitdir, 300);
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' } }).trim();
    // An octopus merge of three commits, then the graph written again, as git gc would.
    const [a, b, c] = git('rev-list', '--max-count=3', '--skip=10', 'main').split('\n');
    const octopus = git('commit-tree', '-p', a, '-p', b, '-p', c, '-m', 'octopus', `${a}^{tree}`);
    git('update-ref', 'refs/heads/octopus', octopus);
    git('commit-graph', 'write', '--reachable');

    const graph = (await CommitGraph.open(gitdir))!;
    const all = git('rev-list', '--all').split('\n');
    expect(graph.count).toBe(all.length);
    const objects = new Repository(gitdir);
    for (const oid of all) {
      const commit = await objects.readCommit(oid);
      expect(graph.node(oid)).toEqual({ oid, tree: commit.tree, parents: commit.parents, time: commit.committer.timestamp });
    }
    expect(graph.node(octopus)!.parents).toEqual([a, b, c]);

    // A commit made after the graph was written: read from its object.
    const later = git('commit-tree', '-p', octopus, '-m', 'later', `${a}^{tree}`);
    expect(graph.node(later)).toBeNull();
    const node = await new Repository(gitdir).commitNode(later);
    expect([node.parents, node.tree]).toEqual([[octopus], git('rev-parse', `${a}^{tree}`)]);
  });

  it('is written by forgekit as git writes it: git verifies it, and reads every commit from it as from the objects', async () => {
    const gitdir = join(root, 'written.git');
    await writeHistoryRepository(gitdir, 300);
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' } }).trim();
    const [a, b, c] = git('rev-list', '--max-count=3', '--skip=20', 'main').split('\n');
    git('update-ref', 'refs/heads/octopus', git('commit-tree', '-p', a, '-p', b, '-p', c, '-m', 'octopus', `${a}^{tree}`));
    // An annotated tag on a branch of its own: its commit is listed too.
    git('update-ref', 'refs/heads/side', git('commit-tree', '-p', a, '-m', 'side', `${a}^{tree}`));
    git('tag', '-a', '-m', 'v1', 'v1', 'side');
    git('update-ref', '-d', 'refs/heads/side');
    rmSync(join(gitdir, 'objects', 'info', 'commit-graph'), { force: true });
    rmSync(join(gitdir, 'objects', 'info', 'commit-graphs'), { recursive: true, force: true });

    await writeCommitGraph(new Repository(gitdir));
    expect(existsSync(join(gitdir, 'objects', 'info', 'commit-graph'))).toBe(true);
    expect(spawnSync('git', ['--git-dir', gitdir, 'commit-graph', 'verify'], { encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
    const graph = (await CommitGraph.open(gitdir))!;
    const all = git('rev-list', '--all').split('\n');
    expect(graph.count).toBe(all.length);
    const objects = new Repository(gitdir);
    for (const oid of all) {
      const commit = await objects.readCommit(oid);
      expect(graph.node(oid)).toEqual({ oid, tree: commit.tree, parents: commit.parents, time: commit.committer.timestamp });
    }
    // git walks with it: the same history as without it.
    expect(git('-c', 'core.commitGraph=true', 'log', '--format=%H', '--all')).toBe(git('-c', 'core.commitGraph=false', 'log', '--format=%H', '--all'));
  });

  it('is passed over when there is none, or when it is not one this reader takes', async () => {
    const gitdir = join(root, 'plain.git');
    git0('init', '--bare', '--quiet', gitdir);
    expect(await CommitGraph.open(gitdir)).toBeNull();
  });
});

const git0 = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' });
