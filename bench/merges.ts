/**
 * Part of npm run bench (`npm run bench -- merges` alone): what merging a merge request costs in forgekit beside
 * native git making the same merge, on a generated repository of 10,000 commits packed by `git gc --aggressive`
 * (bench/lib/history-repository.ts), imported into forgekit over HTTP (`POST /projects` with an `import_url` served
 * by `git http-backend` in this process, bench/lib/git-http.ts, as bench/history.ts imports its own).
 *
 * The project's owner calls forgekit over HTTP (node's fetch, one request at a time, to `hosting.router()` in an
 * Express app in this process). Each round, FORGEKIT_BENCH_MERGE_WARMUP (3) rounds first and then
 * FORGEKIT_BENCH_MERGES (20) timed:
 *
 * - a branch `topic-<n>` with a one-file change (one line of a file of `src/`, a different file each round) off
 *   main's head as imported (so that, main having taken the earlier rounds' merges since, every merge but the first
 *   is a three-way merge whose base is not main's head): `POST .../repository/commits` with `start_sha`, untimed;
 *   the same commit fetched into the native copy (`git fetch` from forgekit's repository), untimed;
 * - a merge request from it into main: `POST .../merge_requests`, timed apart (its own column);
 * - forgekit: `PUT .../merge_requests/:iid/merge`, timed from the request to the whole answer; it must answer 200
 *   and `merged`;
 * - native git, on a copy of the generated repository (bare, as forgekit's: so `git merge --no-ff`, which needs a
 *   worktree, is `git merge-tree --write-tree main topic-<n>` + `git commit-tree -p main -p topic-<n>` +
 *   `git update-ref refs/heads/main <new> <old>`, main's head known from the last round, as forgekit knows it once
 *   it has read the branch): three processes started from this process as a server shelling out would, timed from
 *   the first spawn to the last exit.
 *
 * forgekit's merge and git's take turns, the first of each round alternating. After each round both mains must have
 * the same tree, forgekit's head a merge commit of two parents; afterwards `git fsck --full` must pass on forgekit's
 * repository. The table: median and p90 of each, and the ratio forgekit ÷ git of the medians and of the p90s (the
 * target: within 3x); the first round (the first merge after the import, cold) is said apart.
 *
 * FORGEKIT_BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test): a database is made there for the run and
 * dropped afterwards. FORGEKIT_BENCH_MERGE_COMMITS (10000): the history's length.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { createHostingService } from 'forgekit';
import { benchDatabase } from './lib/database.ts';
import { gitHttpServer } from './lib/git-http.ts';
import { writeHistoryRepository } from './lib/history-repository.ts';
import { benchUser } from './lib/bench-user.ts';

const COMMITS = Number(process.env.FORGEKIT_BENCH_MERGE_COMMITS ?? 10_000);
const MERGES = Math.max(1, Number(process.env.FORGEKIT_BENCH_MERGES ?? 20));
const WARM_UP = Math.max(0, Number(process.env.FORGEKIT_BENCH_MERGE_WARMUP ?? 3));
/** The target: forgekit's merge within this many times git's. */
const TARGET_RATIO = 3;
const BASE_URL = 'http://forgekit.bench';

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))];
};
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** A git command in `gitdir`: its standard output (trimmed) and how long it ran, from spawn to exit; or it throws. */
function git(gitdir: string, args: string[]): Promise<{ out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('git', args, { cwd: gitdir, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (status) => {
      const ms = performance.now() - start;
      if (status === 0) resolve({ out: Buffer.concat(out).toString().trim(), ms });
      else reject(new Error(`git ${args.join(' ')}: ${Buffer.concat(err).toString() || status}`));
    });
  });
}
const gitText = async (gitdir: string, args: string[]) => (await git(gitdir, args)).out;

/** forgekit over HTTP: the JSON answer, or it throws on an unexpected status. */
// biome-ignore lint/suspicious/noExplicitAny: the JSON answer of whichever endpoint is called, read as the caller expects
async function call(origin: string, token: string, method: string, path: string, body?: object): Promise<any> {
  const res = await fetch(origin + path, {
    method,
    headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** Where forgekit keeps a project's repository under its storage root (RepositoryStore.relativePath). */
const repositoryPath = (storage: string, projectId: number) => {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return join(storage, '@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
};

const time = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);

const work = mkdtempSync(join(tmpdir(), 'forgekit-bench-merges-'));
const closing: (() => Promise<unknown>)[] = [];

try {
  const served = join(work, 'served');
  mkdirSync(served);
  const generated = join(served, 'history.git');
  const made = await writeHistoryRepository(generated, COMMITS, { aggressive: true });
  // The native side's copy, made before anything is imported or merged.
  const native = join(work, 'native.git');
  cpSync(generated, native, { recursive: true });
  const remote = await gitHttpServer(served);
  closing.push(() => remote.close());

  const storage = join(work, 'storage');
  const { url: databaseUrl, drop } = await benchDatabase();
  closing.push(drop);
  const hosting = await createHostingService({ database: { url: databaseUrl }, storage, baseUrl: BASE_URL, allowLocalRequests: true });
  closing.unshift(() => hosting.close());
  const server = createServer(express().use(hosting.router()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.unshift(() => new Promise((resolve) => server.close(resolve)));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { token } = await benchUser(hosting);

  // ---- The import over HTTP.
  const importStart = performance.now();
  let project = await call(origin, token, 'POST', '/api/v4/projects', { name: 'merges', import_url: `${remote.url}/history.git` });
  while (project.import_status !== 'finished') {
    if (project.import_status === 'failed') throw new Error(`the import failed: ${project.import_error}`);
    await sleep(50);
    project = await call(origin, token, 'GET', `/api/v4/projects/${project.id}`);
  }
  const importMs = performance.now() - importStart;
  const gitdir = repositoryPath(storage, project.id);
  const fork = await gitText(native, ['rev-parse', 'main']);
  if ((await gitText(gitdir, ['rev-parse', 'main'])) !== fork) throw new Error("the imported main differs from the generated one's");
  const api = `/api/v4/projects/${project.id}`;

  // The files changed, one a round: those of src/ at the fork point, a different one each round.
  const files = (await gitText(native, ['ls-tree', '-r', '--name-only', fork, 'src/'])).split('\n');
  if (files.length < WARM_UP + MERGES) throw new Error(`${files.length} files in src/ for ${WARM_UP + MERGES} rounds`);
  const step = [7, 11, 13, 17, 19].find((candidate) => files.length % candidate !== 0)!;

  const pack = await gitText(native, ['count-objects', '-v']);
  console.log(
    `\nNode.js ${process.version}, ${availableParallelism()} cores, ${await gitText(native, ['--version'])}, PostgreSQL; ` +
      `load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}.`,
  );
  console.log(
    `A repository of ${COMMITS} commits, written by git fast-import and packed by git gc --aggressive in ${made.seconds.toFixed(1)} s ` +
      `(${(made.packBytes / 2 ** 20).toFixed(1)} MiB, ${/in-pack: (\d+)/.exec(pack)?.[1]} objects), imported into forgekit over HTTP ` +
      `in ${time(importMs)}.`,
  );

  const rounds: { create: number; forgekit: number; git: number }[] = [];
  /** The native main's head, as the last merge left it. */
  let nativeMain = fork;
  let cold: { create: number; forgekit: number; git: number } | undefined;
  for (let round = 0; round < WARM_UP + MERGES; round++) {
    const branch = `topic-${round + 1}`;
    const path = files[(round * step) % files.length];
    // The one-file change: a line of the file as it is at the fork point, rewritten.
    const lines = (await gitText(native, ['show', `${fork}:${path}`])).split('\n');
    lines[Math.floor(lines.length / 2)] = `  // Changed by ${branch} for the merge benchmark.`;
    await call(origin, token, 'POST', `${api}/repository/commits`, {
      branch,
      start_sha: fork,
      commit_message: `Change ${path} (${branch})`,
      actions: [{ action: 'update', file_path: path, content: `${lines.join('\n')}\n` }],
    });
    await git(native, ['fetch', '--quiet', gitdir, `refs/heads/${branch}:refs/heads/${branch}`]);

    const createStart = performance.now();
    const request = await call(origin, token, 'POST', `${api}/merge_requests`, {
      source_branch: branch,
      target_branch: 'main',
      title: `Change ${path}`,
    });
    const create = performance.now() - createStart;

    const mergeForgekit = async () => {
      const start = performance.now();
      const merged = await call(origin, token, 'PUT', `${api}/merge_requests/${request.iid}/merge`);
      const ms = performance.now() - start;
      if (merged.state !== 'merged') throw new Error(`merge request !${request.iid}: ${merged.state} after PUT .../merge`);
      return ms;
    };
    const mergeGit = async () => {
      const start = performance.now();
      const tree = await gitText(native, ['merge-tree', '--write-tree', nativeMain, branch]);
      const commit = await gitText(native, [
        'commit-tree',
        '-p',
        nativeMain,
        '-p',
        branch,
        '-m',
        `Merge branch '${branch}' into 'main'\n\nChange ${path}`,
        tree,
      ]);
      // Moved from the head it was made on, as forgekit moves it.
      await git(native, ['update-ref', 'refs/heads/main', commit, nativeMain]);
      nativeMain = commit;
      return performance.now() - start;
    };
    let forgekitMs: number;
    let gitMs: number;
    if (round % 2) {
      gitMs = await mergeGit();
      forgekitMs = await mergeForgekit();
    } else {
      forgekitMs = await mergeForgekit();
      gitMs = await mergeGit();
    }
    const [ours, theirs] = await Promise.all([
      gitText(gitdir, ['rev-parse', 'main^{tree}']),
      gitText(native, ['rev-parse', 'main^{tree}']),
    ]);
    if (ours !== theirs) throw new Error(`round ${round + 1}: forgekit's main has the tree ${ours}, git's ${theirs}`);
    const parents = await gitText(gitdir, ['rev-list', '--parents', '-1', 'main']);
    if (parents.split(' ').length !== 3)
      throw new Error(`round ${round + 1}: forgekit's main is no merge commit of two parents: ${parents}`);
    if (round === 0) cold = { create, forgekit: forgekitMs, git: gitMs };
    if (round >= WARM_UP) rounds.push({ create, forgekit: forgekitMs, git: gitMs });
  }
  await git(gitdir, ['fsck', '--full', '--no-progress', '--no-dangling']);

  const forgekit = rounds.map((round) => round.forgekit);
  const gits = rounds.map((round) => round.git);
  const creates = rounds.map((round) => round.create);
  const ratio = (share: number | 'median') => {
    const pick = (values: number[]) => (share === 'median' ? median(values) : percentile(values, share));
    return pick(forgekit) / pick(gits);
  };
  console.log(
    `\n${MERGES} merges after ${WARM_UP} warm-up rounds; forgekit over HTTP (fetch to an in-process Express app), ` +
      `git as processes from this process.\n`,
  );
  console.log('| operation | median | p90 | median ÷ git | p90 ÷ git |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(
    `| forgekit \`PUT .../merge_requests/:iid/merge\` | ${time(median(forgekit))} | ${time(percentile(forgekit, 0.9))} ` +
      `| ${ratio('median').toFixed(2)}x | ${ratio(0.9).toFixed(2)}x |`,
  );
  console.log(
    `| git \`merge-tree --write-tree\` + \`commit-tree\` + \`update-ref\` ` +
      `| ${time(median(gits))} | ${time(percentile(gits, 0.9))} | 1x | 1x |`,
  );
  console.log(
    `| (forgekit \`POST .../merge_requests\`, for scale) | ${time(median(creates))} | ${time(percentile(creates, 0.9))} | — | — |`,
  );
  console.log(
    `\nThe first round, after the import (not counted above): forgekit's merge ${time(cold!.forgekit)}, ` +
      `git's ${time(cold!.git)} (${(cold!.forgekit / cold!.git).toFixed(2)}x); ` +
      `its merge request made in ${time(cold!.create)}.`,
  );
  const met = ratio('median') <= TARGET_RATIO;
  console.log(
    `\nTarget: forgekit's median merge within ${TARGET_RATIO}x of git's: ${ratio('median').toFixed(2)}x, ${met ? 'met' : 'MISSED'}. ` +
      `Every merge left both mains with the same tree; \`git fsck --full\` passed on forgekit's repository. Load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')} at the end.`,
  );
} finally {
  for (const close of closing) await close().catch((error: unknown) => console.error(error));
  rmSync(work, { recursive: true, force: true });
}
