/**
 * Part of npm run bench (`npm run bench -- mixed-load` alone, or `node --import ./bench/lib/source-hooks.mjs
 * bench/mixed-load.ts` after `npm run build`): a mixed read load in the style of the GitLab Performance Tool
 * against `forgekit serve`, started as a child process as it would be deployed.
 *
 * The data is seeded through the API, as root (FORGEKIT_ROOT_TOKEN): local imports allowed by the application
 * setting, a user and a personal access token of theirs; as that user a project imported (`import_url`) from the
 * generated 20,000-commit repository (bench/lib/history-repository.ts, packed by `git gc --aggressive`) served by
 * `git http-backend` in this process, five branches and five tags on it (`v1.0.0` 200 commits before `v1.1.0`,
 * main's head), and ten more projects for the project list.
 *
 * The mix, one endpoint each, all at once: GET /user, /projects/:id, /projects, and the project's
 * repository/branches, repository/tags, repository/commits, repository/files/:path (metadata, of the file changed
 * most often) and its /raw, repository/tree, repository/compare?from=v1.0.0&to=v1.1.0. Each has an equal share of
 * the connections (FORGEKIT_BENCH_CONNECTIONS, 50: five each), each connection sending its next request as soon as
 * it has the answer (autocannon, in this process), so a slow endpoint gets fewer requests. After a warm-up
 * (FORGEKIT_BENCH_MIXED_WARMUP seconds, 5) the load runs FORGEKIT_BENCH_MIXED_SECONDS (60). Per endpoint: the
 * requests answered, the failures (errors, time-outs, answers other than 2xx), p50, p90 and p99 of the latency;
 * the requests per second of all; the CPU the server used meanwhile (utime and stime of its processes, from
 * /proc/<pid>/stat, its children's included), as cores.
 *
 * The server: this checkout's dist/cli.js with FORGEKIT_BENCH_SERVE_ARGS appended (`--workers 2`; left out on PGlite, which one process
 * opens); and, when FORGEKIT_BENCH_BASELINE_CLI names another checkout's dist/cli.js, that one too in the same run (with
 * FORGEKIT_BENCH_BASELINE_SERVE_ARGS), each on a new database and storage, so that two versions are compared on the
 * same machine at the same time. FORGEKIT_BENCH_MIXED_DATABASES (`postgresql`; `postgresql,pglite` for both):
 * PostgreSQL (`--database-url`, a database made on FORGEKIT_BENCH_DATABASE_URL's server and dropped afterwards,
 * `--storage`) or the embedded PGlite (`--data-dir`). FORGEKIT_BENCH_COMMITS (20000): the history's length.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
// @ts-expect-error autocannon ships no type declarations
import autocannon from 'autocannon';
import { benchDatabase } from './lib/database.ts';
import { gitHttpServer } from './lib/git-http.ts';
import { HOT_FILE, writeHistoryRepository } from './lib/history-repository.ts';

const COMMITS = Number(process.env.FORGEKIT_BENCH_COMMITS ?? 20_000);
const SECONDS = Number(process.env.FORGEKIT_BENCH_MIXED_SECONDS ?? 60);
const WARMUP_SECONDS = Number(process.env.FORGEKIT_BENCH_MIXED_WARMUP ?? 5);
const CONNECTIONS = Number(process.env.FORGEKIT_BENCH_CONNECTIONS ?? 50);
const DATABASES = (process.env.FORGEKIT_BENCH_MIXED_DATABASES ?? 'postgresql')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const args = (value: string | undefined) => (value ?? '').split(/\s+/).filter(Boolean);
/** Serve's flags without `--workers N` (or `--workers=N`). */
const withoutWorkers = (flags: string[]) =>
  flags.filter((flag, index) => !flag.startsWith('--workers') && flags[index - 1] !== '--workers');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = [
  { label: 'this checkout', cli: `${ROOT}dist/cli.js`, extra: args(process.env.FORGEKIT_BENCH_SERVE_ARGS) },
  ...(process.env.FORGEKIT_BENCH_BASELINE_CLI
    ? [
        {
          label: `baseline ${process.env.FORGEKIT_BENCH_BASELINE_CLI}`,
          cli: resolve(process.env.FORGEKIT_BENCH_BASELINE_CLI),
          extra: args(process.env.FORGEKIT_BENCH_BASELINE_SERVE_ARGS),
        },
      ]
    : []),
];
const ROOT_TOKEN = 'bench-root-token-mixed-load';
/** GPT's threshold for an endpoint's p90. */
const GPT_P90_MS = 200;
/** How far before main `v1.0.0` is: the compare of the mix spans at least this many commits. */
const COMPARE_COMMITS = Math.min(200, Math.floor(COMMITS / 2));

for (const database of DATABASES)
  if (!['postgresql', 'pglite'].includes(database))
    throw new Error(`FORGEKIT_BENCH_MIXED_DATABASES: postgresql or pglite, not ${database}`);

const percentile = (values: number[], share: number) => {
  const sorted = Float64Array.from(values).sort();
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] : NaN;
};
const gitText = (gitdir: string, gitArgs: string[]) => execFileSync('git', gitArgs, { cwd: gitdir, encoding: 'utf8' }).trim();

// ---- The server's CPU: its processes' times, from /proc.

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime + cutime + cstime of `pid` and of every process under it, in seconds. */
function treeCpuSeconds(pid: number): number {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command's name (in parentheses, which may hold spaces): state, ppid, ... (fields 3 on).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), {
        parent: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]),
      });
    } catch {
      // Gone meanwhile.
    }
  }
  let ticks = 0;
  const under = new Set([pid]);
  // Parents are listed before their children (PIDs rise) but for wrapped PIDs: repeat until nothing is added.
  for (let added = true; added; ) {
    added = false;
    for (const [id, { parent }] of stats) {
      if (under.has(id) || !under.has(parent)) continue;
      under.add(id);
      added = true;
    }
  }
  for (const id of under) ticks += stats.get(id)?.ticks ?? 0;
  return ticks / TICKS_PER_SECOND;
}

// ---- forgekit serve, as a child process.

interface Serving {
  origin: string;
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

async function serve(cli: string, databaseArgs: string[], extra: string[]): Promise<Serving> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, 'serve', '--host', '127.0.0.1', '--port', String(port), ...databaseArgs, ...extra],
    {
      env: { ...process.env, FORGEKIT_ROOT_TOKEN: ROOT_TOKEN, FORGEKIT_ROOT_PASSWORD: 'bench-root-password-1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (gone) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };
  for (const started = performance.now(); ; await sleep(100)) {
    if (gone) throw new Error(`forgekit serve exited before it answered:\n${output}`);
    if (performance.now() - started > 120_000) {
      await stop();
      throw new Error(`forgekit serve did not answer within 2 minutes:\n${output}`);
    }
    const ok = await fetch(`${origin}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status === 200;
      },
      () => false,
    );
    if (ok) break;
  }
  return { origin, pid: child.pid!, stop };
}

/** An API call: its JSON answer (or its text, when it is not JSON), or it throws on a status other than 2xx. */
// biome-ignore lint/suspicious/noExplicitAny: the JSON answer of whichever endpoint is called, read as the caller expects
async function call(origin: string, token: string, method: string, path: string, body?: object): Promise<any> {
  const res = await fetch(origin + path, {
    method,
    headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
}

// ---- The data, seeded through the API; the mix.

interface Endpoint {
  name: string;
  path: string;
}

async function seed(
  origin: string,
  importUrl: string,
  generated: string,
): Promise<{ token: string; endpoints: Endpoint[]; importSeconds: number }> {
  await call(origin, ROOT_TOKEN, 'PUT', '/api/v4/application/settings', { allow_local_requests_from_web_hooks_and_services: true });
  const user = await call(origin, ROOT_TOKEN, 'POST', '/api/v4/users', {
    username: 'gpt',
    email: 'gpt@example.com',
    name: 'GPT',
    password: 'bench-password-1',
    skip_confirmation: true,
  });
  const { token } = await call(origin, ROOT_TOKEN, 'POST', `/api/v4/users/${user.id}/personal_access_tokens`, {
    name: 'bench',
    scopes: ['api'],
  });
  const started = performance.now();
  let project = await call(origin, token, 'POST', '/api/v4/projects', { name: 'history', import_url: importUrl });
  let resets = 0;
  while (project.import_status !== 'finished') {
    if (project.import_status === 'failed') throw new Error(`the import failed: ${project.import_error}`);
    await sleep(100);
    // An older version's import can hold its event loop for seconds, long enough for a kept-alive connection to
    // be reset under the poll: asked again then.
    project = await call(origin, token, 'GET', `/api/v4/projects/${project.id}`).catch(async (error: unknown) => {
      if (!(error instanceof TypeError) || ++resets > 20) throw error;
      await sleep(500);
      return project;
    });
  }
  const importSeconds = (performance.now() - started) / 1000;
  const repository = `/api/v4/projects/${project.id}/repository`;
  let from = '';
  for (let back = Math.floor(COMPARE_COMMITS * 0.9), across = 0; across < COMPARE_COMMITS; back++) {
    from = gitText(generated, ['rev-parse', `main~${back}`]);
    across = Number(gitText(generated, ['rev-list', '--count', `${from}..main`]));
  }
  const back = (n: number) => gitText(generated, ['rev-parse', `main~${Math.min(n, Math.floor(COMMITS / 2))}`]);
  for (const [index, ref] of [back(10), back(100), back(500), back(1000), 'main'].entries()) {
    await call(origin, token, 'POST', `${repository}/branches`, { branch: `feature-${index + 1}`, ref });
  }
  const tags: [string, string][] = [
    ['v0.1.0', back(3000)],
    ['v0.2.0', back(2000)],
    ['v0.9.0', back(1000)],
    ['v1.0.0', from],
    ['v1.1.0', gitText(generated, ['rev-parse', 'main'])],
  ];
  for (const [name, ref] of tags)
    await call(origin, token, 'POST', `${repository}/tags`, { tag_name: name, ref, message: `Release ${name}` });
  for (let index = 1; index <= 10; index++)
    await call(origin, token, 'POST', '/api/v4/projects', { name: `project-${index}`, visibility: index % 2 ? 'public' : 'private' });
  const file = `${repository}/files/${encodeURIComponent(HOT_FILE)}`;
  const endpoints: Endpoint[] = [
    { name: 'GET /user', path: '/api/v4/user' },
    { name: 'GET /projects/:id', path: `/api/v4/projects/${project.id}` },
    { name: 'GET /projects', path: '/api/v4/projects' },
    { name: 'GET repository/branches', path: `${repository}/branches` },
    { name: 'GET repository/tags', path: `${repository}/tags` },
    { name: 'GET repository/commits', path: `${repository}/commits` },
    { name: 'GET repository/files/:path', path: `${file}?ref=main` },
    { name: 'GET repository/files/:path/raw', path: `${file}/raw?ref=main` },
    { name: 'GET repository/tree', path: `${repository}/tree` },
    { name: 'GET repository/compare', path: `${repository}/compare?from=v1.0.0&to=v1.1.0` },
  ];
  // Each answers, and says what it should.
  for (const endpoint of endpoints) await call(origin, token, 'GET', endpoint.path);
  const compare = await call(origin, token, 'GET', endpoints[9].path);
  if (compare.commits.length < COMPARE_COMMITS) throw new Error(`the compare holds ${compare.commits.length} commits`);
  if ((await call(origin, token, 'GET', endpoints[3].path)).length < 5) throw new Error('the branches are not there');
  if ((await call(origin, token, 'GET', endpoints[4].path)).length !== tags.length) throw new Error('the tags are not there');
  return { token, endpoints, importSeconds };
}

interface EndpointResult {
  name: string;
  latencies: number[];
  failures: number;
}

/** Every endpoint loaded at once by its share of the connections for `seconds`. */
async function load(origin: string, token: string, endpoints: Endpoint[], seconds: number): Promise<EndpointResult[]> {
  const connections = Math.max(1, Math.round(CONNECTIONS / endpoints.length));
  return Promise.all(
    endpoints.map(async (endpoint) => {
      const latencies: number[] = [];
      const instance = autocannon({
        url: origin + endpoint.path,
        connections,
        duration: seconds,
        timeout: 60,
        headers: { 'private-token': token },
      });
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
        if (status >= 200 && status < 300) latencies.push(ms);
      });
      const result = await instance;
      return { name: endpoint.name, latencies, failures: result.errors + result.non2xx };
    }),
  );
}

interface Run {
  label: string;
  database: string;
  importSeconds: number;
  results: EndpointResult[];
  seconds: number;
  serverCores: number;
  clientCores: number;
}

const fixed = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(value < 10 ? 1 : 0));

function report(run: Run): void {
  const total = run.results.reduce((sum, result) => sum + result.latencies.length, 0);
  const all = run.results.flatMap((result) => result.latencies);
  console.log(
    `\n${run.label}, ${run.database}: ${CONNECTIONS} connections, ${run.seconds.toFixed(0)} s (the import of the seed ` +
      `took ${run.importSeconds.toFixed(1)} s).\n`,
  );
  console.log(`| endpoint | requests | share | failures | p50 ms | p90 ms | p99 ms | p90 ≤ ${GPT_P90_MS} ms |`);
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const { name, latencies, failures } of run.results) {
    const p90 = percentile(latencies, 0.9);
    console.log(
      `| ${name} | ${latencies.length} | ${((latencies.length / total) * 100).toFixed(1)} % | ${failures} ` +
        `| ${fixed(percentile(latencies, 0.5))} | ${fixed(p90)} | ${fixed(percentile(latencies, 0.99))} ` +
        `| ${p90 <= GPT_P90_MS ? 'yes' : 'no'} |`,
    );
  }
  console.log(
    `| all | ${total} | 100 % | ${run.results.reduce((sum, result) => sum + result.failures, 0)} | ${fixed(percentile(all, 0.5))} ` +
      `| ${fixed(percentile(all, 0.9))} | ${fixed(percentile(all, 0.99))} | |`,
  );
  console.log(
    `\n${(total / run.seconds).toFixed(1)} requests per second; the server used ${run.serverCores.toFixed(2)} ` +
      `of ${availableParallelism()} cores ` +
      `(the load generator ${run.clientCores.toFixed(2)}); load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}.`,
  );
}

const work = mkdtempSync(join(tmpdir(), 'forgekit-bench-mixed-'));
const closing: (() => Promise<unknown>)[] = [];
try {
  console.log(
    `\nNode.js ${process.version}, ${availableParallelism()} cores; load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}.`,
  );
  const served = join(work, 'served');
  mkdirSync(served);
  const generated = join(served, 'history.git');
  const made = await writeHistoryRepository(generated, COMMITS, { aggressive: true });
  console.log(
    `A repository of ${COMMITS} commits (${(made.packBytes / 2 ** 20).toFixed(1)} MiB packed by git gc --aggressive, ` +
      `in ${made.seconds.toFixed(1)} s).`,
  );
  const remote = await gitHttpServer(served);
  closing.push(() => remote.close());

  const runs: Run[] = [];
  for (const database of DATABASES) {
    for (const target of TARGETS) {
      const dir = mkdtempSync(join(work, 'server-'));
      const steps: (() => Promise<unknown>)[] = [];
      try {
        let databaseArgs = ['--data-dir', join(dir, 'data')];
        if (database === 'postgresql') {
          const { url, drop } = await benchDatabase();
          steps.push(drop);
          databaseArgs = ['--database-url', url, '--storage', join(dir, 'repositories')];
        }
        // PGlite is opened by one process: `--workers` is for PostgreSQL only.
        const extra = database === 'pglite' ? withoutWorkers(target.extra) : target.extra;
        const server = await serve(target.cli, databaseArgs, extra);
        steps.unshift(() => server.stop());
        const { token, endpoints, importSeconds } = await seed(server.origin, `${remote.url}/history.git`, generated);
        if (WARMUP_SECONDS > 0) await load(server.origin, token, endpoints, WARMUP_SECONDS);
        const cpu = treeCpuSeconds(server.pid);
        const clientCpu = process.cpuUsage();
        const started = performance.now();
        const results = await load(server.origin, token, endpoints, SECONDS);
        const seconds = (performance.now() - started) / 1000;
        const client = process.cpuUsage(clientCpu);
        const run: Run = {
          label: `${target.label}${extra.length ? ` (serve ${extra.join(' ')})` : ''}`,
          database: database === 'postgresql' ? 'PostgreSQL' : 'PGlite',
          importSeconds,
          results,
          seconds,
          serverCores: (treeCpuSeconds(server.pid) - cpu) / seconds,
          clientCores: (client.user + client.system) / 1e6 / seconds,
        };
        runs.push(run);
        report(run);
      } finally {
        for (const step of steps) await step().catch((error: unknown) => console.error(error));
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  if (TARGETS.length > 1) {
    console.log('');
    for (const database of new Set(runs.map((run) => run.database))) {
      const [ours, baseline] = runs.filter((run) => run.database === database);
      const rate = (run: Run) => run.results.reduce((sum, result) => sum + result.latencies.length, 0) / run.seconds;
      if (ours && baseline)
        console.log(
          `${database}: this checkout ${rate(ours).toFixed(1)} requests per second, the baseline ${rate(baseline).toFixed(1)}: ` +
            `${(rate(ours) / rate(baseline)).toFixed(2)}x.`,
        );
    }
  }
} finally {
  for (const close of closing) await close().catch((error: unknown) => console.error(error));
  rmSync(work, { recursive: true, force: true });
}
