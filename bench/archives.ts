/**
 * Part of npm run bench: archives and forks of a large repository, and whether they stall the server.
 *
 * A repository of 70 MB, mostly incompressible files, written by git itself (bench/lib/archive-repository.ts:
 * `git fast-import`, then `git gc`), in place of a new public project's repository; forgekit serves it through
 * `hosting.router()` in an Express app listening in this process. Archives are downloaded by curl (one process
 * for all the transfers, so that the client's work is not this process's).
 *
 * - throughput: each format alone, forgekit (the whole answer, by curl) in turn with `git archive` of the same
 *   commit with the same prefix on the same packed repository (to /dev/null, started by `sh`; tar.bz2: its tar
 *   through `bzip2`, as the original makes one), FORGEKIT_BENCH_ROUNDS
 *   rounds; medians, and the ratio forgekit ÷ git taken round by round. CPU: this process's CPU time per archive
 *   (the main thread and the archive workers; curl's and git's are their own).
 * - load: five archives at once (zip, tar.gz, zip, tar.gz, tar) and fifty forks (`POST /projects/:id/fork`, whose
 *   jobs then copy the repository) while GET /version is asked one request after another; /version's latency,
 *   over the whole run and apart from the seconds in which the fork requests themselves are answered; the growth
 *   of this process's resident set size past what it was after a warm-up (every archive worker having made an
 *   archive, ten forks made); CPU. On the embedded database (in memory) and on PostgreSQL
 *   (FORGEKIT_BENCH_DATABASE_URL, a database made for the run and dropped).
 *
 * FORGEKIT_BENCH_ARCHIVE_MB (70): the repository's size.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createHostingService, type HostingService } from 'forgekit';
import { writeArchiveRepository } from './lib/archive-repository.ts';
import { pollVersion } from './lib/poll-version.ts';
import { benchDatabase } from './lib/database.ts';

const REPOSITORY_MB = Number(process.env.FORGEKIT_BENCH_ARCHIVE_MB ?? 70);
const ROUNDS = Number(process.env.FORGEKIT_BENCH_ROUNDS ?? 3);
const ROOT_TOKEN = 'bench-root-token-0001';
const LOAD_ARCHIVES = ['zip', 'tar.gz', 'zip', 'tar.gz', 'tar'];
const FORKS = 50;
const MiB = 1024 * 1024;

const percentile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.max(0, Math.ceil(share * values.length) - 1))];
const median = (values: number[]) => percentile(values, 0.5);
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** A command's standard output (and its time, ms), or it throws. */
function run(command: string, args: string[]): Promise<{ out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0
        ? resolve({ out, ms: performance.now() - start })
        : reject(new Error(`${command} ${args.join(' ')} exited with ${status}`)),
    );
  });
}

/** curl fetching every URL at once (to /dev/null): each answer's status and size, in the order they finish. */
async function curl(urls: string[]): Promise<{ status: number; bytes: number }[]> {
  const args = [
    '-sS',
    '--no-progress-meter',
    '--parallel',
    '--parallel-immediate',
    '--parallel-max',
    '100',
    '-w',
    '%{http_code} %{size_download}\\n',
  ];
  for (const url of urls) args.push('-o', '/dev/null', url);
  const { out } = await run('curl', args);
  return out
    .trim()
    .split('\n')
    .map((line) => ({ status: Number(line.split(' ')[0]), bytes: Number(line.split(' ')[1]) }));
}

const repositoryPath = (storage: string, projectId: number) => {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return join(storage, '@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
};

interface Instance {
  hosting: HostingService;
  server: Server;
  origin: string;
  storage: string;
  big: { id: number; path: string; commit: string; gitdir: string };
  close(): Promise<void>;
}

async function instance(database: { url: string } | undefined, closing: (() => Promise<void>)[]): Promise<Instance> {
  const storage = mkdtempSync(join(tmpdir(), 'forgekit-bench-archives-'));
  closing.push(async () => rmSync(storage, { recursive: true, force: true }));
  const hosting = await createHostingService({ ...(database ? { database } : {}), storage, rootToken: ROOT_TOKEN });
  const server = createServer(express().use(hosting.router()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const project = await hosting.projects.create({ name: 'Big', visibility: 'public' });
  const gitdir = repositoryPath(storage, project.id);
  const commit = await writeArchiveRepository(gitdir, REPOSITORY_MB * MiB);
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await hosting.close();
  };
  closing.push(close);
  return {
    hosting,
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    storage,
    big: { id: project.id, path: project.path, commit, gitdir },
    close,
  };
}

const archiveUrl = (origin: string, id: number, format: string) =>
  `${origin}/api/v4/projects/${id}/repository/archive.${format}?sha=master`;

async function throughput(target: Instance): Promise<void> {
  const { origin, big } = target;
  const prefix = `${big.path}-master-${big.commit}`;
  console.log(
    `\nThroughput: one archive at a time of ${REPOSITORY_MB} MiB (${(await run('du', ['-sm', big.gitdir])).out.split('\t')[0]} MB on ` +
      `disk, packed), ${ROUNDS} rounds, medians.`,
  );
  console.log(
    `${'format'.padEnd(8)}${'bytes'.padStart(12)}${'forgekit s'.padStart(12)}${'MB/s'.padStart(8)}${'CPU s'.padStart(8)}` +
      `${'git s'.padStart(8)}${'MB/s'.padStart(8)}${'ratio'.padStart(8)}`,
  );
  for (const format of ['tar', 'tar.gz', 'zip', 'tar.bz2']) {
    await curl([archiveUrl(origin, big.id, format)]);
    const ours: number[] = [];
    const cpu: number[] = [];
    const gits: number[] = [];
    const ratios: number[] = [];
    let bytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const since = process.cpuUsage();
      const start = performance.now();
      const [answer] = await curl([archiveUrl(origin, big.id, format)]);
      ours.push(performance.now() - start);
      cpu.push(cpuMs(since));
      if (answer.status !== 200) throw new Error(`archive.${format} answered ${answer.status}`);
      bytes = answer.bytes;
      // git has no tar.bz2 of its own: the original pipes its tar through bzip2 (-9, its default).
      const native =
        format === 'tar.bz2'
          ? `archive --format=tar --prefix='${prefix}/' ${big.commit} | bzip2`
          : `archive --format=${format} --prefix='${prefix}/' ${big.commit}`;
      const { ms } = await run('sh', ['-c', `git --git-dir '${big.gitdir}' ${native} >/dev/null`]);
      gits.push(ms);
      ratios.push(ours[round] / ms);
    }
    const rate = (ms: number) => (bytes / MiB / (ms / 1000)).toFixed(0);
    console.log(
      `${format.padEnd(8)}${String(bytes).padStart(12)}${(median(ours) / 1000).toFixed(2).padStart(12)}${rate(median(ours)).padStart(8)}` +
        `${(median(cpu) / 1000).toFixed(2).padStart(8)}` +
        `${(median(gits) / 1000).toFixed(2).padStart(8)}${rate(median(gits)).padStart(8)}${`${median(ratios).toFixed(2)}×`.padStart(8)}`,
    );
  }
}

async function fork(origin: string, projectId: number, path: string): Promise<number> {
  const res = await fetch(`${origin}/api/v4/projects/${projectId}/fork`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': ROOT_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: path, path }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function load(label: string, target: Instance): Promise<void> {
  const { origin, big, hosting } = target;
  // Warm: every archive worker has made an archive (and keeps what a worker keeps between collections); the
  // repository's pack read once by the main thread; an embedded database grown to what forks' writes need.
  await curl(Array.from({ length: Math.min(availableParallelism(), 4) }, () => archiveUrl(origin, big.id, 'tar.gz')));
  await Promise.all(Array.from({ length: 10 }, (_, index) => fork(origin, big.id, `warm-${index}`)));
  await hosting.backgroundJobs.drain();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const since = process.cpuUsage();
  const start = performance.now();
  const poller = pollVersion(origin, ROOT_TOKEN);
  const archives = curl(LOAD_ARCHIVES.map((format) => archiveUrl(origin, big.id, format)));
  const forksSent = performance.now();
  const forks = Promise.all(Array.from({ length: FORKS }, (_, index) => fork(origin, big.id, `fork-${index}`)));
  const forkStatuses = await forks;
  const forksAnswered = performance.now();
  const archived = await archives;
  const archivesDone = performance.now();
  await hosting.backgroundJobs.drain();
  const samples = await poller.stop();
  const elapsed = performance.now() - start;
  const cpu = cpuMs(since);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (archived.some((answer) => answer.status !== 200) || forkStatuses.some((status) => status !== 201)) {
    throw new Error(`load: archives ${archived.map((answer) => answer.status).join(',')}, forks ${[...new Set(forkStatuses)].join(',')}`);
  }
  const during = (sample: { sent: number; ms: number }) => sample.sent + sample.ms >= forksSent && sample.sent <= forksAnswered;
  const line = (values: number[]) =>
    values.length
      ? `${String(values.length).padStart(6)}${median(values).toFixed(1).padStart(9)}${percentile(values, 0.99).toFixed(1).padStart(9)}` +
        `${Math.max(...values)
          .toFixed(1)
          .padStart(9)}`
      : '     none';
  console.log(
    `\nLoad on ${label}: ${LOAD_ARCHIVES.length} archives (${LOAD_ARCHIVES.join(', ')}) and ${FORKS} forks at once, ` +
      `/version asked meanwhile.`,
  );
  console.log(`${'GET /version'.padEnd(50)}${'count'.padStart(6)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}`);
  console.log(`${'  the whole run'.padEnd(50)}${line(samples.map((sample) => sample.ms))}`);
  console.log(
    `${'  but while the fork requests are answered'.padEnd(50)}` +
      `${line(samples.filter((sample) => !during(sample)).map((sample) => sample.ms))}`,
  );
  console.log(
    `${`  while the fork requests are answered (${((forksAnswered - forksSent) / 1000).toFixed(1)} s)`.padEnd(50)}` +
      `${line(samples.filter(during).map((sample) => sample.ms))}`,
  );
  console.log(
    `archives done in ${((archivesDone - start) / 1000).toFixed(1)} s ` +
      `(${(archived.reduce((sum, answer) => sum + answer.bytes, 0) / MiB).toFixed(0)} MiB), ` +
      `forks' jobs done in ${(elapsed / 1000).toFixed(1)} s; ` +
      `RSS growth ${((peak - baseline) / MiB).toFixed(0)} MiB (peak ${(peak / MiB).toFixed(0)} MiB); ` +
      `CPU ${(cpu / 1000).toFixed(1)} s (${(cpu / 1000 / (elapsed / 1000)).toFixed(2)} cores)`,
  );
}

const closing: (() => Promise<void>)[] = [];
try {
  console.log(
    `Node.js ${process.version}, ${availableParallelism()} cores, load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  const embedded = await instance(undefined, closing);
  await throughput(embedded);
  await load('the embedded database (PGlite, in memory)', embedded);
  await embedded.close();
  closing.splice(closing.indexOf(embedded.close), 1);
  const { url, drop } = await benchDatabase();
  closing.push(drop);
  await load('PostgreSQL', await instance({ url }, closing));
  console.log(
    `\nload average at the end ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
} finally {
  for (const close of closing.reverse()) await close().catch((error: unknown) => console.error(error));
}
