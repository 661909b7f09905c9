/**
 * Part of npm run bench: forgekit's repository reads and one-file commits on a repository of 10,000 commits,
 * beside the native `git` command doing the same on the same repository, as a server that shells out to git
 * would (a process per command, its time from spawn to exit).
 *
 * The repository is written by git itself (bench/lib/history-repository.ts: `git fast-import`, then `git gc`)
 * and put in place of a new project's empty repository (created through the API, by its owner); the
 * project's default branch is then set to `main` through the API. Every operation is an HTTP request to
 * forgekit's router in an Express app in this process (node's fetch, one request at a time), and the same call
 * through the in-process API; each is checked once against git's answer before it is measured.
 *
 * - first: the operation's first request to a new service on the same database and repositories (nothing of
 *   the repository kept in the process yet; the operating system's file cache is warm);
 * - then a warm-up, then ITERATIONS rounds, each round running forgekit over HTTP, in process, and git, in
 *   turn, so that all three see the same load; medians and 90th percentiles;
 * - one-file commits (PUT .../files/:path) in turn with git's plumbing making the same commit on another
 *   branch; after each commit, the file metadata and commit list that now start from the new head.
 *
 * CPU: this process's CPU time per forgekit request (which includes fetch's client side, about 0.2 ms).
 * FORGEKIT_BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test): a database is made there for the run
 *   and dropped afterwards. FORGEKIT_BENCH_COMMITS (10000), FORGEKIT_BENCH_ITERATIONS (200), FORGEKIT_BENCH_WRITES
 *   (100): the history's length, the rounds of each read, the commits made.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createHostingService, type Api, type HostingService } from 'forgekit';
import { benchDatabase } from './lib/database.ts';
import { COLD_FILE, HOT_FILE, writeHistoryRepository } from './lib/history-repository.ts';
import { benchUser } from './lib/bench-user.ts';

const COMMITS = Number(process.env.FORGEKIT_BENCH_COMMITS ?? 10_000);
const ITERATIONS = Number(process.env.FORGEKIT_BENCH_ITERATIONS ?? 200);
const WRITES = Number(process.env.FORGEKIT_BENCH_WRITES ?? 100);
const WARM_UP = 10;
/** Runs of a git row in one shell loop. */
const SHELL_RUNS = 30;
const BASE_URL = 'http://forgekit.bench';
/** The page of the commit list far from the head: commits 4,981 to 5,000. */
const LATER_PAGE = 250;
/** git log's fields for a commit list item: what forgekit's JSON holds. */
const LOG_FORMAT = '--format=%H%x00%h%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00';

// ---- Timing.

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
};
const median = (values: number[]) => percentile(values, 0.5);

/** The times of one side of an operation, ms, and the CPU time this process spent on them. */
class Samples {
  readonly times: number[] = [];
  cpu = 0;
  first?: number;

  async time<T>(work: () => Promise<T>): Promise<T> {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const result = await work();
    this.times.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    this.cpu += (used.user + used.system) / 1000;
    return result;
  }
}

/** A git command in the repository, as a server would run one (or a shell script): its standard output, or it throws. */
function git(
  gitdir: string,
  args: string[],
  options: { input?: string; env?: Record<string, string>; shell?: string } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const [command, argv] = options.shell === undefined ? ['git', args] : ['sh', ['-c', options.shell]];
    const child = spawn(command, argv, { cwd: gitdir, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0
        ? resolve(Buffer.concat(out).toString('latin1'))
        : reject(new Error(`git ${args.join(' ')}: ${Buffer.concat(err).toString()}`)),
    );
    child.stdin.end(options.input);
  });
}

/** forgekit over HTTP: the body (as bytes, in latin1), or it throws on an unexpected status. */
async function request(origin: string, token: string, method: string, path: string, body?: object): Promise<string> {
  const res = await fetch(origin + path, {
    method,
    headers: { 'private-token': token, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${bytes.toString()}`);
  return bytes.toString('latin1');
}

const appOf = (hosting: HostingService) => express().use(hosting.router());

async function listen(app: express.Express): Promise<{ server: Server; origin: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// ---- The setup.

/** Where forgekit keeps a project's repository under its storage root (RepositoryStore.relativePath). */
const repositoryPath = (storage: string, projectId: number) => {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return join(storage, '@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
};

/** A git row: its commands, run one after another; their output, concatenated. */
interface GitRow {
  label: string;
  commands: string[][];
}

const runRow = async (gitdir: string, row: GitRow) => {
  let output = '';
  for (const args of row.commands) output += await git(gitdir, args);
  return output;
};

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * The mean time of one run of a shell script (`$i` counting the runs), run `runs` times in a loop by one `sh`:
 * git started by a small process, without what starting a process costs this big one. Best of three loops, less
 * the loop's own cost.
 */
async function shellMean(gitdir: string, script: string, runs: number, env: Record<string, string> = {}): Promise<number> {
  const loop = async (body: string) => {
    const times: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const start = performance.now();
      await git(gitdir, [], { shell: `for i in $(seq ${runs}); do ${body}; done >/dev/null`, env });
      times.push(performance.now() - start);
    }
    return Math.min(...times);
  };
  return ((await loop(script)) - (await loop(':'))) / runs;
}

const shellOf = (row: GitRow) => row.commands.map((args) => ['git', ...args].map(quote).join(' ')).join(' && ');

/** One operation: forgekit's request and in-process call, and git's commands for the same answer. */
interface Operation {
  name: string;
  http: () => Promise<string>;
  inProcess: () => Promise<unknown>;
  git: GitRow[];
  /** Throws unless forgekit's answer matches git's. */
  check(http: string, gitOutputs: string[]): void;
}

/** The reads, against one service: its HTTP origin and its API as the project's owner. */
function readOperations({ origin, api, token, id }: { origin: string; api: Api; token: string; id: number }): Operation[] {
  const files = `/api/v4/projects/${id}/repository/files`;
  const fileOperation = (path: string, label: string): Operation => ({
    name: `GET files/${path} (${label})`,
    http: () => request(origin, token, 'GET', `${files}/${encodeURIComponent(path)}?ref=main`),
    inProcess: () => api.repositoryFiles.get(id, path, { ref: 'main' }),
    git: [
      { label: 'git cat-file -p main:<path>', commands: [['cat-file', '-p', `main:${path}`]] },
      {
        label: '+ git log -1 main -- <path>',
        commands: [
          ['cat-file', '-p', `main:${path}`],
          ['log', '-1', '--format=%H', 'main', '--', path],
        ],
      },
    ],
    check(http, [content, both]) {
      const file = JSON.parse(http);
      const last = both.slice(content.length).trim();
      if (Buffer.from(file.content, 'base64').toString('latin1') !== content) throw new Error(`${path}: the content differs from git's`);
      if (file.last_commit_id !== last) throw new Error(`${path}: last_commit_id ${file.last_commit_id}, git says ${last}`);
    },
  });
  const listOperation = (page: number): Operation => ({
    name: `GET commits?per_page=20${page > 1 ? `&page=${page}` : ''}`,
    http: () => request(origin, token, 'GET', `/api/v4/projects/${id}/repository/commits?ref_name=main&per_page=20&page=${page}`),
    inProcess: () => api.commits.list(id, { ref_name: 'main', per_page: 20, page }),
    git: [
      {
        label: `git log${page > 1 ? ` --skip=${(page - 1) * 20}` : ''} -20 main`,
        commands: [['log', `--skip=${(page - 1) * 20}`, '-20', LOG_FORMAT, 'main']],
      },
    ],
    check(http, [log]) {
      const ids = (JSON.parse(http) as { id: string }[]).map((commit) => commit.id).join(' ');
      const gits = log
        .split('\0')
        .filter((_, index) => index % 10 === 0)
        .map((field) => field.trim())
        .filter(Boolean)
        .join(' ');
      if (ids !== gits) throw new Error(`commit list page ${page} differs from git log's:\n${ids}\n${gits}`);
    },
  });
  return [
    fileOperation(HOT_FILE, 'changed often'),
    fileOperation(COLD_FILE, 'changed by the first commit only'),
    {
      name: `GET files/${HOT_FILE}/raw`,
      http: () => request(origin, token, 'GET', `${files}/${encodeURIComponent(HOT_FILE)}/raw?ref=main`),
      inProcess: () => api.repositoryFiles.raw(id, HOT_FILE, { ref: 'main' }),
      git: [{ label: 'git cat-file -p main:<path>', commands: [['cat-file', '-p', `main:${HOT_FILE}`]] }],
      check(http, [content]) {
        if (http !== content) throw new Error('the raw file differs from git cat-file');
      },
    },
    listOperation(1),
    listOperation(LATER_PAGE),
  ];
}

const columns = [
  ['operation', 70],
  ['side', 34],
  ['first ms', 9],
  ['p50 ms', 8],
  ['p90 ms', 8],
  ['CPU ms', 7],
  ['forgekit p50 ÷', 15],
] as const;
const line = (cells: (string | number)[]) =>
  cells.map((cell, index) => (index < 2 ? String(cell).padEnd(columns[index][1]) : String(cell).padStart(columns[index][1]))).join(' ');
const ms = (value: number | undefined) => (value === undefined ? '' : value.toFixed(value < 100 ? 2 : 0));

/** A git row's times: each run started from this process, and the mean of a run in a shell loop. */
interface GitTimes {
  label: string;
  samples: Samples;
  shell: number;
}

function printRows(name: string, forgekitHttp: Samples, forgekitInProcess: Samples | undefined, gitRows: GitTimes[]): void {
  const reference = median(forgekitHttp.times);
  console.log(
    line([
      name,
      'forgekit HTTP',
      ms(forgekitHttp.first),
      ms(reference),
      ms(percentile(forgekitHttp.times, 0.9)),
      ms(forgekitHttp.cpu / forgekitHttp.times.length),
      '',
    ]),
  );
  if (forgekitInProcess) {
    const times = forgekitInProcess.times;
    console.log(
      line([
        '',
        'forgekit in process',
        ms(forgekitInProcess.first),
        ms(median(times)),
        ms(percentile(times, 0.9)),
        ms(forgekitInProcess.cpu / times.length),
        '',
      ]),
    );
  }
  for (const { label, samples, shell } of gitRows) {
    console.log(
      line([
        '',
        label,
        '',
        ms(median(samples.times)),
        ms(percentile(samples.times, 0.9)),
        '',
        `${(reference / median(samples.times)).toFixed(2)}×`,
      ]),
    );
    console.log(line(['', '  the same in a shell loop (mean)', '', ms(shell), '', '', `${(reference / shell).toFixed(2)}×`]));
  }
}

const storage = mkdtempSync(join(tmpdir(), 'forgekit-bench-repositories-'));
const closing: (() => Promise<unknown>)[] = [];

try {
  const generated = join(storage, 'generated.git');
  const made = await writeHistoryRepository(generated, COMMITS);
  const { url, drop } = await benchDatabase();
  closing.push(drop);
  const open = () => createHostingService({ database: { url }, storage, baseUrl: BASE_URL });
  const hosting = await open();
  closing.push(() => hosting.close());

  const { user: owner, token } = await benchUser(hosting);
  const api = hosting.as(owner.id);
  const project = await api.projects.create({ name: 'history' });
  const gitdir = repositoryPath(storage, project.id);
  // The project's new, empty repository is there: the generated one takes its place.
  if (!existsSync(join(gitdir, 'HEAD'))) throw new Error(`project ${project.id}'s repository is not at ${gitdir}`);
  rmSync(gitdir, { recursive: true });
  renameSync(generated, gitdir);
  await api.projects.update(project.id, { default_branch: 'main' });

  const { server, origin } = await listen(appOf(hosting));
  closing.unshift(() => new Promise((resolve) => server.close(resolve)));

  const id = project.id;
  const reads = (origin: string, api: Api) => readOperations({ origin, api, token, id });
  const operations = reads(origin, api);

  console.log(
    `\nA repository of ${COMMITS} commits (${made.packBytes >> 20} MiB packed), written by git fast-import and git gc ` +
      `in ${made.seconds.toFixed(1)} s.`,
  );
  console.log(
    `PostgreSQL; load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}; ${ITERATIONS} rounds after ${WARM_UP}, one request at a time.`,
  );
  console.log(
    'first: the first request to a new service. CPU: of this process per request. Ratio: forgekit over HTTP ÷ that git row, medians.',
  );
  console.log(line(columns.map(([title]) => title)));

  // Checked against git once each, before anything is timed.
  const check = async (operation: Operation) =>
    operation.check(await operation.http(), await Promise.all(operation.git.map((row) => runRow(gitdir, row))));
  for (const operation of operations) await check(operation);

  // First requests: each to a service of its own, which has read nothing of the repository yet.
  const firsts: { http: number; inProcess: number }[] = [];
  for (const index of operations.keys()) {
    const times = { http: 0, inProcess: 0 };
    for (const side of ['http', 'inProcess'] as const) {
      const fresh = await open();
      const listening = await listen(appOf(fresh));
      try {
        const operation = reads(listening.origin, fresh.as(owner.id))[index];
        const start = performance.now();
        await operation[side]();
        times[side] = performance.now() - start;
      } finally {
        await new Promise((resolve) => listening.server.close(resolve));
        await fresh.close();
      }
    }
    firsts.push(times);
  }

  for (const [index, operation] of operations.entries()) {
    const http = new Samples();
    const inProcess = new Samples();
    const gitRows = operation.git.map((row) => ({ label: row.label, samples: new Samples(), shell: 0 }));
    for (let round = 0; round < WARM_UP + ITERATIONS; round++) {
      const measure = <T>(samples: Samples, work: () => Promise<T>) => (round < WARM_UP ? work() : samples.time(work));
      await measure(http, operation.http);
      await measure(inProcess, operation.inProcess);
      for (const [at, row] of operation.git.entries()) await measure(gitRows[at].samples, () => runRow(gitdir, row));
    }
    for (const [at, row] of operation.git.entries()) gitRows[at].shell = await shellMean(gitdir, shellOf(row), SHELL_RUNS);
    http.first = firsts[index].http;
    inProcess.first = firsts[index].inProcess;
    printRows(operation.name, http, inProcess, gitRows);
  }

  // What starting a git process costs this process at all: git's rows include it.
  const spawnFloor = new Samples();
  for (let round = 0; round < WARM_UP + ITERATIONS; round++)
    await (round < WARM_UP ? git(gitdir, ['--version']) : spawnFloor.time(() => git(gitdir, ['--version'])));
  console.log(
    line([
      'git --version (starting git)',
      'from this process',
      '',
      ms(median(spawnFloor.times)),
      ms(percentile(spawnFloor.times, 0.9)),
      '',
      '',
    ]),
  );
  console.log(
    line([
      '',
      '  in a shell loop (mean)',
      '',
      ms(await shellMean(gitdir, shellOf({ label: '', commands: [['--version']] }), SHELL_RUNS)),
      '',
      '',
      '',
    ]),
  );

  // One-file commits: forgekit's on main, git's plumbing on a branch of its own from the same commit; after
  // each of forgekit's, the reads whose answers start from the new head.
  await git(gitdir, ['update-ref', 'refs/heads/git-bench', 'refs/heads/main']);
  const file = HOT_FILE;
  const original = await git(gitdir, ['cat-file', '-p', `main:${file}`]);
  const content = (n: number) => `${original}// change ${n}\n`;
  const commitHttp = new Samples();
  const commitInProcess = new Samples();
  const gitCommit = new Samples();
  const after = { file: new Samples(), list: new Samples() };
  const afterGit = { file: new Samples(), list: new Samples() };
  const author = {
    GIT_AUTHOR_NAME: 'Owner',
    GIT_AUTHOR_EMAIL: 'owner@example.com',
    GIT_COMMITTER_NAME: 'Owner',
    GIT_COMMITTER_EMAIL: 'owner@example.com',
  };
  const env = { ...author, GIT_INDEX_FILE: join(storage, 'bench.index') };
  let writes = 0;
  for (let round = 0; round < WARM_UP + WRITES; round++) {
    const measure = <T>(samples: Samples, work: () => Promise<T>) => (round < WARM_UP ? work() : samples.time(work));
    const message = `Change ${file} (${++writes})`;
    await measure(commitHttp, () =>
      request(origin, token, 'PUT', `/api/v4/projects/${id}/repository/files/${encodeURIComponent(file)}`, {
        branch: 'main',
        content: content(writes),
        commit_message: message,
      }),
    );
    await measure(after.file, operations[1].http);
    await measure(after.list, operations[3].http);
    await measure(commitInProcess, () =>
      api.repositoryFiles.update(id, file, { branch: 'main', content: content(++writes), commit_message: message }),
    );
    // git: the blob, the tree through a temporary index read from the branch's commit, the commit, the branch
    // moved from that commit.
    await measure(gitCommit, async () => {
      const parent = (await git(gitdir, ['rev-parse', '--verify', 'refs/heads/git-bench'])).trim();
      const blob = (await git(gitdir, ['hash-object', '-w', '--stdin'], { input: content(writes) })).trim();
      await git(gitdir, ['read-tree', parent], { env });
      await git(gitdir, ['update-index', '--cacheinfo', `100644,${blob},${file}`], { env });
      const tree = (await git(gitdir, ['write-tree'], { env })).trim();
      const commit = (await git(gitdir, ['commit-tree', tree, '-p', parent, '-m', message], { env })).trim();
      await git(gitdir, ['update-ref', 'refs/heads/git-bench', commit, parent]);
    });
    await measure(afterGit.file, () => runRow(gitdir, operations[1].git[1]));
    await measure(afterGit.list, () => runRow(gitdir, operations[3].git[0]));
  }
  // The same plumbing in a shell loop, on a branch of its own.
  await git(gitdir, ['update-ref', 'refs/heads/git-shell', 'refs/heads/main']);
  const base = join(storage, 'base.txt');
  writeFileSync(base, original);
  const plumbing = [
    `p=$(git rev-parse --verify refs/heads/git-shell)`,
    `b=$({ cat ${quote(base)}; echo "// shell $i"; } | git hash-object -w --stdin)`,
    `git read-tree $p`,
    `git update-index --cacheinfo 100644,$b,${quote(file)}`,
    `t=$(git write-tree)`,
    `c=$(git commit-tree $t -p $p -m ${quote(`Change ${file}`)})`,
    `git update-ref refs/heads/git-shell $c $p`,
  ].join(' && ');
  const gitCommitShell = await shellMean(gitdir, plumbing, SHELL_RUNS, { ...author, GIT_INDEX_FILE: join(storage, 'shell.index') });
  // Both lines of commits are there, one commit per write.
  const counts = await Promise.all(
    ['main', 'git-bench', 'git-shell'].map(async (branch) => Number(await git(gitdir, ['rev-list', '--count', branch]))),
  );
  if (counts.join() !== [COMMITS + writes, COMMITS + WARM_UP + WRITES, COMMITS + writes + 3 * SHELL_RUNS].join())
    throw new Error(`unexpected commit counts: ${counts.join(', ')}`);
  // forgekit's answers from the new head still match git's.
  for (const operation of operations) await check(operation);

  printRows(`PUT files/${file} (a one-file commit)`, commitHttp, commitInProcess, [
    { label: 'git plumbing, 7 commands', samples: gitCommit, shell: gitCommitShell },
  ]);
  printRows(`${operations[1].name}, after a commit`, after.file, undefined, [
    {
      label: '+ git log -1 main -- <path>',
      samples: afterGit.file,
      shell: await shellMean(gitdir, shellOf(operations[1].git[1]), SHELL_RUNS),
    },
  ]);
  printRows(`${operations[3].name}, after a commit`, after.list, undefined, [
    { label: 'git log -20 main', samples: afterGit.list, shell: await shellMean(gitdir, shellOf(operations[3].git[0]), SHELL_RUNS) },
  ]);
  console.log(
    `load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')} at the end`,
  );
} finally {
  for (const close of closing) await close().catch((error: unknown) => console.error(error));
  rmSync(storage, { recursive: true, force: true });
}
