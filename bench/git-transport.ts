/**
 * Part of npm run bench (`npm run bench -- git-transport` alone): git over smart HTTP. forgekit's own upload-pack and
 * receive-pack (src/git/upload-pack.ts, src/git/receive-pack.ts, served by `hosting.router()` in an Express app in this
 * process, src/http/git.ts) beside native git serving the same packed repository (`git http-backend`, one process per
 * request, bench/lib/git-http.ts, also in this process), in the same run, the two sides in turn round by round (which
 * goes first alternates), both asked by native `git` (/usr/bin/git, `-c protocol.version=2`, no system or global
 * configuration, never prompted) started from this process and timed from spawn to exit:
 *
 * - the repository: bench/lib/history-repository.ts, FORGEKIT_BENCH_COMMITS commits packed by `git gc` (one pack with
 *   a reachability bitmap and a commit-graph, as git leaves a bare repository), copied in place of a new public
 *   project's empty repository (the project made through the API by its owner), and served as is by http-backend;
 * - full clone (`git clone --bare`) and shallow clone (`--depth 1`), anonymous: both sides' first clones must hold the
 *   same references (and HEAD, and the same shallow boundary) before anything is timed, every timed clone main's head;
 * - fetch of 10 new commits: 10 commits (one line of src/core/engine.ts changed and a file added, each) pushed to
 *   both sides from another clone, untimed, then each side's clone made beforehand fetches them (timed);
 * - push of 100 new commits on a new branch each round, from a clone made beforehand, to both sides (forgekit: the
 *   owner's personal access token as the HTTP Basic password);
 * - 10 concurrent full clones: the wall time until all ten have finished, all ten must succeed.
 *
 * Every figure is the median of FORGEKIT_BENCH_ITERATIONS rounds (FORGEKIT_BENCH_CONCURRENT_ROUNDS for the concurrent
 * clones), the ratio forgekit ÷ git of the two medians. Server CPU per operation, the mean of the rounds: forgekit's
 * is this process's CPU time (`process.cpuUsage`, every thread) over the operation; git's the CPU time of this
 * process's children reaped over it (/proc/self/stat's cutime and cstime: http-backend, upload-pack or receive-pack,
 * pack-objects or index-pack) less the client's (the `times` of the `sh` that runs it), so within a 10 ms tick, plus
 * this process's (git's HTTP front end, shown apart). Both include what starting a client costs this process.
 * During the full and concurrent clones: the growth of this process's resident set size over what it was before
 * (sampled every 5 ms, and the process's maxRSS when that rose), against the repository's pack size, and how long
 * its event loop was held (monitorEventLoopDelay, 10 ms resolution: max and p99) while the packs streamed; on git's
 * side that is its front end's, the control: on a shared machine the clients, other work and the garbage collector
 * hold a loop too. The targets beside them (the issue's): each operation within 1.5x of git, the RSS growth far
 * below the pack size (here: under a quarter of it), no stall over 50 ms, ten concurrent clones served. A target
 * missed is reported; a clone, fetch or push that fails, or references that differ, end the run with an error.
 *
 * FORGEKIT_BENCH_COMMITS (20000), FORGEKIT_BENCH_ITERATIONS (5), FORGEKIT_BENCH_CONCURRENT_ROUNDS (2). The database:
 * the embedded one (PGlite, in memory) unless FORGEKIT_BENCH_DATABASE_URL names a PostgreSQL server, where a database
 * is made for the run and dropped afterwards (bench/lib/database.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import express from 'express';
import { createHostingService } from 'forgekit';
import { benchDatabase } from './lib/database.ts';
import { gitHttpServer } from './lib/git-http.ts';
import { HOT_FILE, writeHistoryRepository } from './lib/history-repository.ts';
import { benchUser } from './lib/bench-user.ts';

const COMMITS = Number(process.env.FORGEKIT_BENCH_COMMITS ?? 20_000);
const ITERATIONS = Math.max(1, Number(process.env.FORGEKIT_BENCH_ITERATIONS ?? 5));
const CONCURRENT_ROUNDS = Math.max(1, Number(process.env.FORGEKIT_BENCH_CONCURRENT_ROUNDS ?? 2));
const CONCURRENT_CLONES = 10;
const FETCH_COMMITS = 10;
const PUSH_COMMITS = 100;
const GIT = '/usr/bin/git';
/** The issue's targets. */
const TARGET_RATIO = 1.5;
const TARGET_STALL_MS = 50;
/** "Far below the pack size": the RSS growth of a clone under this share of it. */
const TARGET_RSS_SHARE = 0.25;
const MiB = 2 ** 20;
/** Clock ticks per second of /proc's CPU times (100 on Linux). */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const time = (ms: number) =>
  ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s` : `${ms.toFixed(ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`;
const ratio = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)}x`;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const work = mkdtempSync(join(tmpdir(), 'forgekit-bench-git-transport-'));
const home = join(work, 'home');
mkdirSync(home);
/** The clients' git: no system or global configuration, never a prompt, a fixed identity. */
const CLIENT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/** A git command of the client's, untimed: its standard output, or it throws. */
function git(args: string[], options: { cwd?: string; input?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(GIT, args, { cwd: options.cwd ?? work, env: CLIENT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0
        ? resolve(Buffer.concat(out).toString())
        : reject(new Error(`git ${args.join(' ')}: ${Buffer.concat(err).toString().trim() || `exited with ${status}`}`)),
    );
    child.stdin.end(options.input);
  });
}

/** The CPU time of this process's reaped children (and theirs), ms: /proc/self/stat's cutime + cstime. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command's name: state is field 3, cutime field 16, cstime field 17.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS;
}
const ownCpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * A git command of the client's, timed from spawn to exit, run by `sh` that then tells (`times`) the CPU time of
 * the client (git and what it started: remote-http, index-pack, pack-objects). Throws when git fails.
 */
function timedGit(args: string[], cwd = work): Promise<{ ms: number; clientCpuMs: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn('/bin/sh', ['-c', '"$@"; status=$?; times >&2; exit $status', 'sh', GIT, '-c', 'protocol.version=2', ...args], {
      cwd,
      env: CLIENT_ENV,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      const ms = performance.now() - start;
      const lines = err.trimEnd().split('\n');
      const times = lines.slice(-2).join(' ');
      if (status !== 0) return reject(new Error(`git ${args.join(' ')}: ${lines.slice(0, -2).join('\n') || `exited with ${status}`}`));
      const clientCpuMs = [...times.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, m, s]) => sum + (Number(m) * 60 + Number(s)) * 1000, 0);
      resolve({ ms, clientCpuMs });
    });
  });
}

/** While a side serves clones: the growth of this process's RSS, and how long its event loop was held (max, p99). */
function watch(): { stop(): { before: number; growth: number; stallMs: number; p99Ms: number } } {
  const before = process.memoryUsage.rss();
  const maxBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  return {
    stop() {
      clearInterval(sampler);
      delay.disable();
      peak = Math.max(peak, process.memoryUsage.rss());
      // maxRSS is the process's peak so far: when it rose, that peak was reached during the clone.
      const maxAfter = process.resourceUsage().maxRSS * 1024;
      if (maxAfter > maxBefore) peak = Math.max(peak, maxAfter);
      return { before, growth: peak - before, stallMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6 };
    },
  };
}

/** Where forgekit keeps a project's repository under its storage root (RepositoryStore.relativePath). */
const repositoryPath = (storage: string, projectId: number) => {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return join(storage, '@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
};

/**
 * `count` new commits on `ref` of the bare repository `gitdir`, after `from`: each rewrites one line of HOT_FILE
 * and adds a small file (`label` names them). Returns the new head.
 */
async function writeCommits(gitdir: string, ref: string, from: string, count: number, label: string): Promise<string> {
  const lines = (await git(['cat-file', '-p', `${from}:${HOT_FILE}`], { cwd: gitdir })).split('\n');
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let stream = '';
  for (let index = 0; index < count; index++) {
    const when = Date.UTC(2030, 0, 1) / 1000 + index * 60;
    lines[(index * 7) % (lines.length - 1)] = `  const ${label.replace(/\W/g, '_')}_${index} = bench(${index});`;
    stream +=
      `commit ${ref}\ncommitter Bench <bench@example.com> ${when} +0000\n${data(`${label}: commit ${index + 1} of ${count}\n`)}` +
      (index === 0 ? `from ${from}\n` : '') +
      `M 100644 inline ${HOT_FILE}\n${data(lines.join('\n'))}` +
      `M 100644 inline notes/${label}/${index}.md\n${data(`# ${label} ${index}\n\nA note written by bench/git-transport.ts.\n`)}`;
  }
  await git(['fast-import', '--quiet', '--done'], { cwd: gitdir, input: `${stream}done\n` });
  return (await git(['rev-parse', ref], { cwd: gitdir })).trim();
}

type SideName = 'forgekit' | 'git';
interface Side {
  name: SideName;
  /** The clone URL, anonymous. */
  url: string;
  /** The push URL, with credentials where needed. */
  pushUrl: string;
  /** The repository served. */
  gitdir: string;
}

/** One operation's rounds on one side: times, and the server's CPU time (ms). */
class Samples {
  readonly ms: number[] = [];
  readonly serverCpuMs: number[] = [];
  /** Of the server's CPU time, this process's (git's HTTP front end, on git's side). */
  readonly ownCpuMs: number[] = [];
}
type Measured = Record<SideName, Samples>;
const measured = (): Measured => ({ forgekit: new Samples(), git: new Samples() });

/** The sides in a round's order: forgekit first in even rounds, git first in odd ones. */
const inTurn = <T>(round: number, pair: [T, T]): T[] => (round % 2 === 0 ? pair : [pair[1], pair[0]]);

/**
 * Runs `operation` (which returns the clients' CPU time, ms) on `side` and records its time and the server's CPU
 * time: this process's (forgekit, or git's HTTP front end; on both sides what starting the clients costs it), and
 * on git's side the children reaped meanwhile less the clients.
 */
async function measure(side: Side, samples: Samples, operation: () => Promise<number>): Promise<void> {
  const cpu = process.cpuUsage();
  const children = childrenCpuMs();
  const start = performance.now();
  const clientCpuMs = await operation();
  samples.ms.push(performance.now() - start);
  const own = ownCpuMs(cpu);
  const served = side.name === 'forgekit' ? 0 : Math.max(0, childrenCpuMs() - children - clientCpuMs);
  samples.serverCpuMs.push(own + served);
  samples.ownCpuMs.push(own);
}

const closing: (() => Promise<unknown>)[] = [];
let cleaned: Promise<void> | undefined;
const cleanUp = () =>
  (cleaned ??= (async () => {
    for (const close of closing) await close().catch((error: unknown) => console.error(error));
    rmSync(work, { recursive: true, force: true });
  })());
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(code)));
}

try {
  const started = performance.now();
  const served = join(work, 'served');
  const storage = join(work, 'storage');
  mkdirSync(served);
  const generated = join(served, 'transport.git');
  const made = await writeHistoryRepository(generated, COMMITS);
  const packDir = join(generated, 'objects', 'pack');
  let bitmapNote = 'with the reachability bitmap git gc wrote';
  if (!readdirSync(packDir).some((file) => file.endsWith('.bitmap'))) {
    await git(['repack', '-a', '-d', '--write-bitmap-index', '--quiet'], { cwd: generated });
    bitmapNote = 'git gc wrote no bitmap here: one written by `git repack -adb`';
  }
  const counted = await git(['count-objects', '-v'], { cwd: generated });
  const packBytes = Number(/size-pack: (\d+)/.exec(counted)![1]) * 1024;
  const objects = Number(/in-pack: (\d+)/.exec(counted)![1]);
  const head = (await git(['rev-parse', 'refs/heads/main'], { cwd: generated })).trim();

  // ---- forgekit: the Express app listens first, so that the service's base URL is where it is reached.
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const database = process.env.FORGEKIT_BENCH_DATABASE_URL ? await benchDatabase() : undefined;
  if (database) closing.push(database.drop);
  const hosting = await createHostingService({ ...(database ? { database: { url: database.url } } : {}), storage, baseUrl: origin });
  closing.unshift(() => hosting.close());
  // Before the service closes (which waits for the calls under way): a clone still streaming, the run cut short, is cut.
  closing.unshift(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  app.use(hosting.router());

  const { user: owner, token } = await benchUser(hosting);
  const api = hosting.as(owner.id);
  const project = await api.projects.create({ name: 'transport', visibility: 'public' });
  const gitdir = repositoryPath(storage, project.id);
  // The project's new, empty repository is there: a copy of the generated one takes its place.
  if (!existsSync(join(gitdir, 'HEAD'))) throw new Error(`project ${project.id}'s repository is not at ${gitdir}`);
  rmSync(gitdir, { recursive: true });
  cpSync(generated, gitdir, { recursive: true });
  await api.projects.update(project.id, { default_branch: 'main' });
  // The clone URL as the API gives it to a client: the service's base URL, the project's full path, `.git`.
  const response = await fetch(`${origin}/api/v4/projects/${project.id}`, { headers: { 'private-token': token } });
  const cloneUrl = ((await response.json()) as { http_url_to_repo: string }).http_url_to_repo;
  if (!cloneUrl.startsWith(`${origin}/`)) throw new Error(`http_url_to_repo ${cloneUrl} is not under ${origin}`);
  const pushUrl = new URL(cloneUrl);
  pushUrl.username = 'oauth2';
  pushUrl.password = token;

  // ---- Native git: the generated repository itself, pushes allowed (http-backend refuses them to anonymous callers).
  await git(['config', 'http.receivepack', 'true'], { cwd: generated });
  const remote = await gitHttpServer(served);
  closing.unshift(() => remote.close());

  const sides: [Side, Side] = [
    { name: 'forgekit', url: cloneUrl, pushUrl: pushUrl.toString(), gitdir },
    { name: 'git', url: `${remote.url}/transport.git`, pushUrl: `${remote.url}/transport.git`, gitdir: generated },
  ];

  console.log(
    `\nNode.js ${process.version}, ${availableParallelism()} cores, ${(await git(['--version'])).trim()}, ` +
      `${database ? 'PostgreSQL' : 'the embedded database (PGlite, in memory)'}; load average ${load()}.`,
  );
  console.log(
    `A repository of ${COMMITS} commits written by git fast-import and packed by git gc in ${made.seconds.toFixed(1)} s: ` +
      `${mib(packBytes)}, ${objects} objects in one pack, ${bitmapNote}; forgekit serves a copy.`,
  );

  const refsOf = async (dir: string) => {
    const refs = await git(['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: dir });
    return `${refs}HEAD -> ${(await git(['symbolic-ref', 'HEAD'], { cwd: dir })).trim()}`;
  };
  const headOf = async (dir: string, ref = 'refs/heads/main') => (await git(['rev-parse', ref], { cwd: dir })).trim();
  const packOf = async (dir: string) => Number(/size-pack: (\d+)/.exec(await git(['count-objects', '-v'], { cwd: dir }))![1]) * 1024;

  // ---- The clones each side's fetches are made in, checked first: the same references on both sides.
  const fetchers = {} as Record<SideName, string>;
  const clonedBytes = {} as Record<SideName, number>;
  for (const side of sides) {
    fetchers[side.name] = join(work, `fetcher-${side.name}.git`);
    await timedGit(['clone', '--bare', '--quiet', side.url, fetchers[side.name]]);
    clonedBytes[side.name] = await packOf(fetchers[side.name]);
  }
  const expectedRefs = await refsOf(generated);
  for (const side of sides) {
    const refs = await refsOf(fetchers[side.name]);
    if (refs !== expectedRefs) throw new Error(`${side.name}'s clone has other references:\n${refs}\nthe repository's:\n${expectedRefs}`);
  }

  const results: { name: string; samples: Measured; rounds: number }[] = [];
  const watched: { name: string; side: SideName; growth: number; before: number; stallMs: number; p99Ms: number }[] = [];

  // ---- Full and shallow clones.
  for (const [name, extra] of [
    ['full clone (`git clone --bare`)', []],
    ['shallow clone (`--depth 1`)', ['--depth', '1']],
  ] as const) {
    const samples = measured();
    const shallowOf: Partial<Record<SideName, string>> = {};
    for (let round = 0; round < ITERATIONS; round++) {
      for (const side of inTurn(round, sides)) {
        const dir = join(work, `clone-${side.name}-${round}.git`);
        await measure(side, samples[side.name], async () => {
          const running = timedGit(['clone', '--bare', '--quiet', ...extra, side.url, dir]);
          const watcher = extra.length === 0 ? watch() : undefined;
          const { clientCpuMs } = await running;
          if (watcher) watched.push({ name: 'full clone', side: side.name, ...watcher.stop() });
          return clientCpuMs;
        });
        if ((await headOf(dir)) !== head) throw new Error(`${side.name}'s ${name}: main is not ${head}`);
        if (round === 0 && extra.length) {
          shallowOf[side.name] = `${await refsOf(dir)}\nshallow: ${readFileSync(join(dir, 'shallow'), 'utf8')}`;
        }
        rmSync(dir, { recursive: true, force: true });
      }
    }
    if (shallowOf.forgekit !== undefined && shallowOf.forgekit !== shallowOf.git)
      throw new Error(`the shallow clones differ:\nforgekit: ${shallowOf.forgekit}\ngit: ${shallowOf.git}`);
    results.push({ name, samples, rounds: ITERATIONS });
  }

  // ---- Ten clones at once: the wall time until the last has finished.
  {
    const samples = measured();
    for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
      for (const side of inTurn(round, sides)) {
        const dirs = Array.from({ length: CONCURRENT_CLONES }, (_, index) => join(work, `concurrent-${side.name}-${index}.git`));
        await measure(side, samples[side.name], async () => {
          const running = Promise.allSettled(dirs.map((dir) => timedGit(['clone', '--bare', '--quiet', side.url, dir])));
          const watcher = watch();
          const settled = await running;
          watched.push({ name: `${CONCURRENT_CLONES} concurrent clones`, side: side.name, ...watcher.stop() });
          const failed = settled.filter((result) => result.status === 'rejected');
          if (failed.length)
            throw new Error(`${failed.length} of ${CONCURRENT_CLONES} concurrent clones from ${side.name} failed: ${failed[0].reason}`);
          return settled.reduce((sum, result) => sum + (result.status === 'fulfilled' ? result.value.clientCpuMs : 0), 0);
        });
        for (const dir of dirs) {
          if ((await headOf(dir)) !== head) throw new Error(`a concurrent clone from ${side.name}: main is not ${head}`);
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    results.push({ name: `${CONCURRENT_CLONES} concurrent full clones (all done)`, samples, rounds: CONCURRENT_ROUNDS });
  }

  // ---- Fetches: new commits pushed to both sides from another clone (untimed), then fetched into the clones above.
  const source = join(work, 'source.git');
  await git(['clone', '--bare', '--quiet', generated, source]);
  {
    const samples = measured();
    for (let round = 0; round < ITERATIONS; round++) {
      const tip = await writeCommits(source, 'refs/heads/main', await headOf(source), FETCH_COMMITS, `fetch-${round}`);
      for (const side of sides) await git(['push', '--quiet', side.pushUrl, 'refs/heads/main:refs/heads/main'], { cwd: source });
      for (const side of inTurn(round, sides)) {
        await measure(side, samples[side.name], async () => {
          const { clientCpuMs } = await timedGit(['fetch', '--quiet', 'origin', '+refs/heads/*:refs/heads/*'], fetchers[side.name]);
          return clientCpuMs;
        });
        if ((await headOf(fetchers[side.name])) !== tip) throw new Error(`the fetch from ${side.name} did not bring main to ${tip}`);
      }
    }
    results.push({ name: `fetch of ${FETCH_COMMITS} new commits`, samples, rounds: ITERATIONS });
  }

  // ---- Pushes: a new branch of 100 commits each round, the same commits to both sides.
  {
    const samples = measured();
    for (let round = 0; round < ITERATIONS; round++) {
      const branch = `refs/heads/push-${round}`;
      const tip = await writeCommits(source, branch, await headOf(source), PUSH_COMMITS, `push-${round}`);
      for (const side of inTurn(round, sides)) {
        await measure(side, samples[side.name], async () => {
          const { clientCpuMs } = await timedGit(['push', '--quiet', side.pushUrl, `${branch}:${branch}`], source);
          return clientCpuMs;
        });
        if ((await headOf(side.gitdir, branch)) !== tip) throw new Error(`the push to ${side.name} did not set ${branch} to ${tip}`);
      }
    }
    results.push({ name: `push of ${PUSH_COMMITS} new commits (a new branch)`, samples, rounds: ITERATIONS });
  }

  // ---- The tables.
  const met = (ok: boolean) => (ok ? 'yes' : '**no**');
  console.log(
    `\nMedians of ${ITERATIONS} rounds (the concurrent clones: ${CONCURRENT_ROUNDS}), the sides in turn; ratio: forgekit ÷ git of ` +
      'the medians. Server CPU, the mean per operation: forgekit, this process; git, its processes (http-backend, upload-pack or ' +
      'receive-pack, pack-objects or index-pack) and its HTTP front end in this process (bench/lib/git-http.ts); both include ' +
      'what starting the clients costs this process.\n',
  );
  console.log(
    '| operation | forgekit | git | forgekit ÷ git | within 1.5x | server CPU forgekit | server CPU git | of which front end | CPU ÷ |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const missed: string[] = [];
  for (const { name, samples } of results) {
    const [ours, theirs] = [median(samples.forgekit.ms), median(samples.git.ms)];
    const [ourCpu, theirCpu] = [mean(samples.forgekit.serverCpuMs), mean(samples.git.serverCpuMs)];
    if (ours / theirs > TARGET_RATIO) missed.push(`${name}: ${ratio(ours / theirs)}`);
    console.log(
      `| ${name} | ${time(ours)} | ${time(theirs)} | ${ratio(ours / theirs)} | ${met(ours / theirs <= TARGET_RATIO)} | ${time(ourCpu)} | ` +
        `${time(theirCpu)} | ${time(mean(samples.git.ownCpuMs))} | ${theirCpu > 0 ? ratio(ourCpu / theirCpu) : '—'} |`,
    );
  }
  console.log(
    `\nThe clones' packs: forgekit sent ${mib(clonedBytes.forgekit)}, git ${mib(clonedBytes.git)} (the repository's: ${mib(packBytes)}).`,
  );
  console.log(
    '\n| this process, while it served | side | clones | RSS before | peak RSS growth | ÷ pack size | under 25 % | ' +
      'event loop held (max, p99) | max ≤ 50 ms |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const name of [...new Set(watched.map((entry) => entry.name))]) {
    for (const side of ['forgekit', 'git'] as const) {
      const entries = watched.filter((entry) => entry.name === name && entry.side === side);
      const growth = Math.max(...entries.map((entry) => entry.growth));
      const stall = Math.max(...entries.map((entry) => entry.stallMs));
      const p99 = Math.max(...entries.map((entry) => entry.p99Ms));
      // The targets are forgekit's; git's row (its HTTP front end in this process) is there to compare.
      const targeted = side === 'forgekit';
      const bounded = growth <= TARGET_RSS_SHARE * packBytes;
      if (targeted && !bounded) missed.push(`${name}: RSS grew ${mib(growth)} (pack ${mib(packBytes)})`);
      if (targeted && stall > TARGET_STALL_MS) missed.push(`${name}: the event loop held ${time(stall)}`);
      const before = Math.min(...entries.map((entry) => entry.before));
      console.log(
        `| ${targeted ? name : ''} | ${targeted ? 'forgekit' : 'git (front end)'} | ${entries.length} | ${mib(before)} | ` +
          `${mib(growth)} | ${((100 * growth) / packBytes).toFixed(0)} % | ${targeted ? met(bounded) : '—'} | ` +
          `${time(stall)}, ${time(p99)} | ${targeted ? met(stall <= TARGET_STALL_MS) : '—'} |`,
      );
    }
  }
  console.log(
    `\nThe largest figure of the rounds in each row; RSS before: the lowest. ${CONCURRENT_CLONES} concurrent clones served: all ` +
      `${CONCURRENT_CLONES} of each round, on both sides. Targets missed: ${missed.length ? missed.join('; ') : 'none'}.`,
  );
  console.log(`Load average ${load()} at the end; ${((performance.now() - started) / 1000).toFixed(0)} s in all.`);
} finally {
  await cleanUp();
}
