/**
 * Part of npm run bench (`npm run bench -- history` alone): issue 18's table. forgekit's reads of a long history
 * beside native git's, on a generated repository of 20,000 commits packed by `git gc --aggressive`, each row
 * against git in the same run:
 *
 * - import over HTTP: `POST /projects` with an `import_url` served by `git http-backend` in this process
 *   (bench/lib/git-http.ts), timed until the project's `import_status` is `finished` (GET /projects/:id asked
 *   every 20 ms), beside `git clone --mirror` of the same URL; meanwhile GET /version is asked one request after
 *   another, and its worst latency says how long the server stopped answering;
 * - `GET .../repository/commits?per_page=20` beside `git log -20`;
 * - the `last_commit_id` of a file untouched since the first commit (`GET .../repository/files/README.md`)
 *   beside `git log -1 --format=%H -- README.md`;
 * - the raw content of the file changed most often (`GET .../repository/files/src%2Fcore%2Fengine.ts/raw`) beside
 *   `git cat-file -p main:src/core/engine.ts`, and the top directory (`GET .../repository/tree`) beside
 *   `git ls-tree main`;
 * - `GET .../repository/compare` across 200 commits (`from` a first-parent ancestor of main, `to` main) beside
 *   `git diff from to`;
 * - `GET .../repository/archive.tar.gz` beside `git archive --format=tar.gz` with the same prefix.
 * Afterwards `git fsck --full` and `git commit-graph verify` must pass on the repositories read.
 *
 * The reads are made on a project whose repository is the generated one, copied in place of the project's new
 * empty repository (FORGEKIT_BENCH_READ_FROM=import: on the imported project instead, git reading what the
 * import left). Columns:
 *
 * - forgekit first: the row's first request to a new service on the same database and repositories, in a
 *   process of its own (bench/lib/first-request.ts: nothing kept in the process; the operating system's file
 *   cache is warm; the rows run in the table's order, so what one leaves on disk or in the database the next may
 *   use);
 * - forgekit warm: the median of FORGEKIT_BENCH_ITERATIONS requests to one service (`hosting.router()` in an
 *   Express app in this process, node's fetch, one request at a time) after a warm-up;
 * - git: the median of as many runs, each a `git` process started from this process as a server shelling out
 *   would, timed from spawn to exit, in turn with forgekit's requests so that both see the same load.
 *
 * The first request's answer and the warm service's first answer are checked against git's before the rounds.
 *
 * FORGEKIT_BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test): a database is made there for the run
 * and dropped afterwards. FORGEKIT_BENCH_COMMITS (20000), FORGEKIT_BENCH_ITERATIONS (50), FORGEKIT_BENCH_CLONES
 * (5): the history's length, the warm rounds of each read, the runs of `git clone --mirror`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import express from 'express';
import { extract } from 'tar-stream';
import { createHostingService } from 'forgekit';
import { benchDatabase } from './lib/database.ts';
import { gitHttpServer } from './lib/git-http.ts';
import { COLD_FILE, HOT_FILE, writeHistoryRepository } from './lib/history-repository.ts';
import { pollVersion } from './lib/poll-version.ts';
import { benchUser } from './lib/bench-user.ts';

const COMMITS = Number(process.env.FORGEKIT_BENCH_COMMITS ?? 20_000);
const ITERATIONS = Math.max(1, Number(process.env.FORGEKIT_BENCH_ITERATIONS ?? 50));
const CLONES = Math.max(1, Number(process.env.FORGEKIT_BENCH_CLONES ?? 5));
const READ_FROM = process.env.FORGEKIT_BENCH_READ_FROM ?? 'generated';
const WARM_UP = 3;
/** The compare's span: `from` is the nearest first-parent ancestor of main with at least this many commits to main. */
const COMPARE_COMMITS = Math.min(200, Math.floor(COMMITS / 2));
const BASE_URL = 'http://forgekit.bench';
/** git log's fields for a commit list item: what forgekit's JSON holds. */
const LOG_FORMAT = '--format=%H%x00%h%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

if (!['generated', 'import'].includes(READ_FROM)) throw new Error(`FORGEKIT_BENCH_READ_FROM: generated or import, not ${READ_FROM}`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** A git command in `gitdir`: its standard output and how long it ran, from spawn to exit; or it throws. */
function git(gitdir: string, args: string[]): Promise<{ out: Buffer; ms: number }> {
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
      if (status === 0) resolve({ out: Buffer.concat(out), ms });
      else reject(new Error(`git ${args.join(' ')}: ${Buffer.concat(err).toString() || status}`));
    });
  });
}
const gitText = async (gitdir: string, args: string[]) => (await git(gitdir, args)).out.toString().trim();

/** forgekit over HTTP: the body, or it throws on an unexpected status. */
async function request(origin: string, token: string, method: string, path: string, body?: object): Promise<Buffer> {
  const res = await fetch(origin + path, {
    method,
    headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${bytes.toString().slice(0, 500)}`);
  return bytes;
}
const json = async (origin: string, token: string, method: string, path: string, body?: object) =>
  JSON.parse((await request(origin, token, method, path, body)).toString());

/** Where forgekit keeps a project's repository under its storage root (RepositoryStore.relativePath). */
const repositoryPath = (storage: string, projectId: number) => {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return join(storage, '@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
};

/** The first request of a new service in a process of its own (bench/lib/first-request.ts). */
function firstRequest(input: { databaseUrl: string; storage: string; token: string; path: string }): Promise<{ ms: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        `${ROOT}bench/lib/source-hooks.mjs`,
        `${ROOT}bench/lib/first-request.ts`,
        JSON.stringify({ ...input, baseUrl: BASE_URL }),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (status) => {
      if (status !== 0) return reject(new Error(`first request of ${input.path}: exited with ${status}`));
      const answer = JSON.parse(out) as { ms: number; status: number; body: string };
      const body = Buffer.from(answer.body, 'base64');
      if (answer.status !== 200)
        return reject(new Error(`first request of ${input.path}: ${answer.status} ${body.toString().slice(0, 500)}`));
      resolve({ ms: answer.ms, body });
    });
  });
}

/** A tar.gz archive's files, the first directory of each path (the archive's prefix) left out: path to SHA-1. */
async function tarFiles(data: Buffer): Promise<string> {
  const files: string[] = [];
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const hash = createHash('sha1');
      for await (const chunk of entry) hash.update(chunk as Buffer);
      const { type, mode, name } = entry.header;
      if (type === 'file' || type === 'symlink')
        files.push(`${type} ${mode?.toString(8)} ${name.split('/').slice(1).join('/')} ${hash.digest('hex')}`);
    }
  })();
  reader.end(gunzipSync(data));
  await done;
  return files.sort().join('\n');
}

/** A read of the table: forgekit's request, git's command, and how one's answer is checked against the other's. */
interface Read {
  name: string;
  gitLabel: string;
  path: string;
  git: string[];
  /** Throws unless forgekit's answer (`body`) says what git's output says. */
  check(body: Buffer, gitOutput: Buffer): Promise<void>;
}

const time = (ms: number) =>
  ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s` : `${ms.toFixed(ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`;
const ratio = (x: number) => `${x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(x < 10 ? 2 : 1)}x`;

const work = mkdtempSync(join(tmpdir(), 'forgekit-bench-history-'));
const closing: (() => Promise<unknown>)[] = [];

try {
  const served = join(work, 'served');
  const storage = join(work, 'storage');
  mkdirSync(served);
  const generated = join(served, 'history.git');
  const made = await writeHistoryRepository(generated, COMMITS, { aggressive: true });
  const packed = await gitText(generated, ['count-objects', '-v']);
  const remote = await gitHttpServer(served);
  closing.push(() => remote.close());
  const importUrl = `${remote.url}/history.git`;

  const { url: databaseUrl, drop } = await benchDatabase();
  closing.push(drop);
  const hosting = await createHostingService({ database: { url: databaseUrl }, storage, baseUrl: BASE_URL, allowLocalRequests: true });
  closing.unshift(() => hosting.close());
  const server = createServer(express().use(hosting.router()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.unshift(() => new Promise((resolve) => server.close(resolve)));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { user: owner, token } = await benchUser(hosting);
  const api = hosting.as(owner.id);
  const refsOf = (gitdir: string) => gitText(gitdir, ['for-each-ref', '--format=%(objectname) %(refname)']);
  const generatedRefs = await refsOf(generated);

  console.log(
    `\nNode.js ${process.version}, ${availableParallelism()} cores, ${(await gitText(served, ['--version'])).trim()}, PostgreSQL; ` +
      `load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}.`,
  );
  console.log(
    `A repository of ${COMMITS} commits, written by git fast-import and packed by git gc --aggressive in ${made.seconds.toFixed(1)} s: ` +
      `${(made.packBytes / 2 ** 20).toFixed(1)} MiB, ${/in-pack: (\d+)/.exec(packed)?.[1]} objects in ${/packs: (\d+)/.exec(packed)?.[1]}` +
      ` pack(s).`,
  );

  // ---- Import over HTTP, beside git clone --mirror of the same URL.
  const poller = pollVersion(origin, token);
  // How long the process's event loop (the service's, with the git server's and the poller's) was held at a time.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const importStart = performance.now();
  const created = await json(origin, token, 'POST', '/api/v4/projects', { name: 'imported', import_url: importUrl });
  let imported = created;
  while (imported.import_status !== 'finished') {
    if (imported.import_status === 'failed') throw new Error(`the import failed: ${imported.import_error}`);
    await sleep(20);
    imported = await json(origin, token, 'GET', `/api/v4/projects/${created.id}`);
  }
  const importMs = performance.now() - importStart;
  loopDelay.disable();
  const versions = (await poller.stop()).map((sample) => sample.ms);
  const importedGitdir = repositoryPath(storage, created.id);
  if ((await refsOf(importedGitdir)) !== generatedRefs) throw new Error("the imported repository's references differ from the remote's");
  const left = await gitText(importedGitdir, ['count-objects', '-v']);

  const clones: number[] = [];
  for (let run = 0; run < CLONES; run++) {
    const mirror = join(work, `mirror-${run}.git`);
    clones.push((await git(work, ['clone', '--mirror', '--quiet', importUrl, mirror])).ms);
    if (run === 0 && (await refsOf(mirror)) !== generatedRefs) throw new Error("git clone --mirror's references differ from the remote's");
    rmSync(mirror, { recursive: true, force: true });
  }

  // ---- The project the reads are made on.
  let project = imported;
  if (READ_FROM === 'generated') {
    project = await api.projects.create({ name: 'history' });
    const gitdir = repositoryPath(storage, project.id);
    // The project's new, empty repository is there: a copy of the generated one takes its place.
    if (!existsSync(join(gitdir, 'HEAD'))) throw new Error(`project ${project.id}'s repository is not at ${gitdir}`);
    rmSync(gitdir, { recursive: true });
    cpSync(generated, gitdir, { recursive: true });
    await api.projects.update(project.id, { default_branch: 'main' });
  }
  const gitdir = repositoryPath(storage, project.id);
  const base = `/api/v4/projects/${project.id}/repository`;
  const head = await gitText(gitdir, ['rev-parse', 'main']);
  const root = await gitText(gitdir, ['rev-list', '--max-parents=0', 'main']);
  let from = '';
  let across = 0;
  for (let back = Math.floor(COMPARE_COMMITS * 0.9); across < COMPARE_COMMITS; back++) {
    from = await gitText(gitdir, ['rev-parse', `main~${back}`]);
    across = Number(await gitText(gitdir, ['rev-list', '--count', `${from}..main`]));
  }
  const reads: Read[] = [
    {
      name: 'commits?per_page=20',
      gitLabel: '`git log -20`',
      path: `${base}/commits?ref_name=main&per_page=20`,
      git: ['log', '-20', LOG_FORMAT, 'main'],
      async check(body, log) {
        const ids = (JSON.parse(body.toString()) as { id: string }[]).map((commit) => commit.id).join(' ');
        const gits = log
          .toString()
          .split('\0')
          .filter((_, index) => index % 10 === 0)
          .map((field) => field.trim())
          .filter(Boolean)
          .join(' ');
        if (ids !== gits) throw new Error(`the commit list differs from git log's:\n${ids}\n${gits}`);
      },
    },
    {
      name: '`last_commit_id` of a file untouched since the first commit',
      gitLabel: `\`git log -1 --format=%H -- ${COLD_FILE}\``,
      path: `${base}/files/${encodeURIComponent(COLD_FILE)}?ref=main`,
      git: ['log', '-1', '--format=%H', 'main', '--', COLD_FILE],
      async check(body, log) {
        const { last_commit_id: last } = JSON.parse(body.toString());
        if (last !== log.toString().trim() || last !== root)
          throw new Error(`last_commit_id ${last}, git says ${log.toString().trim()}, the first commit is ${root}`);
      },
    },
    {
      name: `raw file (${HOT_FILE})`,
      gitLabel: '`git cat-file -p main:<path>`',
      path: `${base}/files/${encodeURIComponent(HOT_FILE)}/raw?ref=main`,
      git: ['cat-file', '-p', `main:${HOT_FILE}`],
      async check(body, content) {
        if (!body.equals(content)) throw new Error(`the raw file differs from git cat-file's (${body.length} and ${content.length} bytes)`);
      },
    },
    {
      name: 'tree (the top directory)',
      gitLabel: '`git ls-tree main`',
      path: `${base}/tree?ref=main&per_page=100`,
      git: ['ls-tree', 'main'],
      async check(body, listing) {
        const ours = (JSON.parse(body.toString()) as { id: string; path: string }[]).map((entry) => `${entry.id} ${entry.path}`).sort();
        const gits = listing
          .toString()
          .trim()
          .split('\n')
          .map((line) => `${line.split(/\s+/)[2]} ${line.split('\t')[1]}`)
          .sort();
        if (ours.join('\n') !== gits.join('\n'))
          throw new Error(`the tree differs from git ls-tree's:\n${ours.join(' ')}\n${gits.join(' ')}`);
      },
    },
    {
      name: `compare across ${across} commits`,
      gitLabel: '`git diff`',
      path: `${base}/compare?from=${from}&to=main`,
      git: ['diff', from, 'main'],
      async check(body) {
        const compare = JSON.parse(body.toString()) as {
          commits: { id: string }[];
          diffs: { new_path: string }[];
          compare_timeout: boolean;
        };
        const commits = (await gitText(gitdir, ['rev-list', `${from}..main`])).split('\n').sort().join(' ');
        if (
          compare.commits
            .map((commit) => commit.id)
            .sort()
            .join(' ') !== commits
        )
          throw new Error(`compare's ${compare.commits.length} commits differ from git rev-list's ${across}`);
        const paths = (await gitText(gitdir, ['diff', '--name-only', from, 'main'])).split('\n');
        const ours = compare.diffs.map((diff) => diff.new_path);
        if (compare.compare_timeout ? ours.some((path) => !paths.includes(path)) : ours.sort().join(' ') !== paths.sort().join(' ')) {
          throw new Error(`compare's ${ours.length} changed files differ from git diff's ${paths.length}`);
        }
      },
    },
    {
      name: 'archive.tar.gz',
      gitLabel: '`git archive --format=tar.gz`',
      path: `${base}/archive.tar.gz?sha=main`,
      git: ['archive', '--format=tar.gz', `--prefix=${project.path}-main-${head}/`, 'main'],
      async check(body, archive) {
        if ((await tarFiles(body)) !== (await tarFiles(archive))) throw new Error("the archive's files differ from git archive's");
      },
    },
  ];

  // ---- First requests, each checked; then warm requests in turn with git's.
  const rows: { read: Read; first: number; warm: number; git: number }[] = [];
  for (const read of reads) {
    const expected = (await git(gitdir, read.git)).out;
    const first = await firstRequest({ databaseUrl, storage, token, path: read.path });
    await read.check(first.body, expected);
    await read.check(await request(origin, token, 'GET', read.path), expected);
    const warm: number[] = [];
    const gits: number[] = [];
    for (let round = 0; round < WARM_UP + ITERATIONS; round++) {
      const start = performance.now();
      await request(origin, token, 'GET', read.path);
      const ms = performance.now() - start;
      const ran = await git(gitdir, read.git);
      if (round >= WARM_UP) {
        warm.push(ms);
        gits.push(ran.ms);
      }
    }
    rows.push({ read, first: first.ms, warm: median(warm), git: median(gits) });
  }
  // What forgekit wrote (the import's pack and index, commit-graphs) is whole by git's own check: it throws otherwise.
  for (const checked of new Set([importedGitdir, gitdir])) {
    await git(checked, ['fsck', '--full', '--no-progress', '--no-dangling']);
    await git(checked, ['commit-graph', 'verify']);
  }

  // ---- The table.
  console.log(
    `\nforgekit first: a new service in a new process; warm and git: medians of ${ITERATIONS} (git: a process per request, ` +
      `started from the benchmark).\n`,
  );
  console.log('| operation | forgekit first | forgekit warm | git | first ÷ git | warm ÷ git |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  const clone = median(clones);
  const spread = CLONES > 1 ? ` (${time(Math.min(...clones))}–${time(Math.max(...clones))})` : '';
  console.log(
    `| import over HTTP (\`import_url\`) | ${time(importMs)} | — | \`git clone --mirror\` ${time(clone)}${spread} ` +
      `| ${ratio(importMs / clone)} | — |`,
  );
  for (const { read, first, warm, git } of rows) {
    console.log(
      `| ${read.name} | ${time(first)} | ${time(warm)} | ${read.gitLabel} ${time(git)} | ${ratio(first / git)} | ${ratio(warm / git)} |`,
    );
  }
  console.log(
    `\nDuring the import GET /version, asked one request after another, answered ${versions.length} times: ` +
      `the slowest in ${time(Math.max(...versions))}, ` +
      `${versions.filter((ms) => ms > 100).length} over 100 ms; the event loop of the process serving it (the git server's and the ` +
      `poller's too) was held ` +
      `at most ${time(loopDelay.max / 1e6)} at a time (monitorEventLoopDelay, ` +
      `10 ms resolution). The import left ${/count: (\d+)/.exec(left)?.[1]} loose objects and ${/packs: (\d+)/.exec(left)?.[1]} pack(s).`,
  );
  console.log(
    `Reads on ${READ_FROM === 'generated' ? 'a copy of the generated repository' : 'the imported repository'}; ` +
      `\`git fsck --full\` and \`git commit-graph verify\` passed on both; load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')} at the end.`,
  );
} finally {
  for (const close of closing) await close().catch((error: unknown) => console.error(error));
  rmSync(work, { recursive: true, force: true });
}
