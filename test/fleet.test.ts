/**
 * Two `forgekit serve` processes on one PostgreSQL database and one repository storage, behind nothing but their own
 * ports, under a storm of writes through both (issues, notes, commits, branches, merge requests, merges), while rounds
 * of trouble hit them (issue 29): kill -9 of either process, started again with the same flags; every database
 * connection cut at once by a TCP proxy between forgekit and PostgreSQL (test/tcp-proxy.ts), which then refuses new
 * ones for a second; every session ended by pg_terminate_backend; and PostgreSQL crashed and started again, where the
 * machine lets the test run a cluster of its own (test/postgres-cluster.ts). Meanwhile every answer is a success, a 503
 * with Retry-After, or a refusal the write deserves, never another 5xx or a hang; while the database is away each
 * process stays live and says it is not ready. After each round both processes are ready within a second of the
 * trouble's end and no session stays idle in a transaction; at the end every acknowledged write is there (a merge
 * with its state and its commit in the target), no request is merged by a commit its target lacks, iids are unique
 * and `git fsck` is clean.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { freshDatabase, fsck, hasGit } from './helpers.js';
import { privatePostgresCluster, type PostgresCluster } from './postgres-cluster.js';
import { listeningOn, Processes, runGathering, type Running } from './processes.js';
import { TcpProxy } from './tcp-proxy.js';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TOKEN = 'fleet-root-token';
/** Concurrent writers, each alternating between the two processes. */
const WRITERS = 8;
const PROJECTS = 2;
/** A request with no answer by then has hung. */
const REQUEST_DEADLINE = 15_000;
/** How soon after a round's trouble ends both processes must be ready again. */
const READY_WITHIN = 1_000;
/** How long a call that should take under READY_WITHIN is waited for, to say how late it was. */
const CHECK_DEADLINE = 5_000;
/** How long a process not ready yet is waited for, to say how late it was rather than only that it was. */
const SETTLE = 10_000;
/** Seconds: a session idle in a transaction for longer, no call in flight, has been left there. */
const IDLE_IN_TRANSACTION = 5;

const processes = new Processes();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(() => processes.stopAll());
afterAll(async () => {
  processes.stopAll();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

let began = Date.now();
/** What the test is at, with the seconds since it began: where a run that went wrong spent its time. */
const progress = (text: string) => console.log(`fleet ${((Date.now() - began) / 1000).toFixed(1)} s: ${text}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What goes wrong, by round, for one assertion at the end: a run tells all it found, not only the first. */
class Failures {
  private readonly grouped = new Map<string, { what: string; count: number; example: string }>();
  round = 'setup';

  /**
   * `what` went wrong; the same again in the same round (the same `what`, or the same `group` where that is given)
   * is counted, the first `what` and `example` kept.
   */
  add(what: string, example = '', group = what): void {
    const key = `[${this.round}] ${group}`;
    const seen = this.grouped.get(key);
    if (seen) seen.count += 1;
    else this.grouped.set(key, { what: `[${this.round}] ${what}`, count: 1, example });
  }

  list(): string[] {
    return [...this.grouped.values()].map(
      ({ what, count, example }) => `${what}${count > 1 ? ` (${count}×)` : ''}${example ? `; e.g. ${example}` : ''}`,
    );
  }
}

/** Consecutive repeats folded: `503 … ×4, 200`. */
class Answers {
  private readonly seen: { text: string; count: number }[] = [];
  add(text: string): void {
    const last = this.seen.at(-1);
    if (last?.text === text) last.count += 1;
    else this.seen.push({ text, count: 1 });
  }
  some(test: (text: string) => boolean): boolean {
    return this.seen.some(({ text }) => test(text));
  }
  toString(): string {
    return this.seen.map(({ text, count }) => (count > 1 ? `${text} ×${count}` : text)).join(', ') || 'nothing';
  }
}

/** One `forgekit serve` of the two, its data directory its own; `url` while it is up. */
interface Instance {
  name: string;
  dataDir: string;
  running?: Running;
  url?: string;
  /** Counts its deaths: a request sent to an earlier generation may lose its connection with it. */
  generation: number;
  killed: boolean;
  /** What its earlier generations printed. */
  printed: string;
}

/** What `instance`'s processes printed so far, the current one's last. */
const printed = (instance: Instance) => `${instance.printed}${instance.running?.output() ?? ''}`;

// biome-ignore lint/suspicious/noExplicitAny: the answers are any endpoint's JSON
type Json = any;

/** An answer as the test reads it: its status (0: none in time, or no connection), body, text and time. */
interface Answer {
  status: number;
  body: Json;
  /** `<status> <body>`, or why there was none. */
  text: string;
  ms: number;
}

/** A call with root's token to `url` + `path`. */
async function call(url: string, method: string, path: string, body: unknown, deadline: number): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(deadline),
    });
    const text = await res.text();
    const ms = Math.round(performance.now() - started);
    return { status: res.status, body: parse(text), text: `${res.status} ${text.slice(0, 300)}`, ms };
  } catch (error) {
    const ms = Math.round(performance.now() - started);
    return {
      status: 0,
      body: undefined,
      text: (error as Error).name === 'TimeoutError' ? `no answer in ${deadline} ms` : failed(error),
      ms,
    };
  }
}

const get = (url: string, path: string, deadline: number) => call(url, 'GET', path, undefined, deadline);
const post = (url: string, path: string, body: unknown, deadline: number) => call(url, 'POST', `/api/v4${path}`, body, deadline);
/** `answered 200 … in 1234 ms`, or `had no answer in 5000 ms`, or `connection failed: ECONNRESET`. */
const answered = (answer: Answer) =>
  answer.status !== 0
    ? `answered ${answer.text} in ${answer.ms} ms`
    : answer.text.startsWith('no answer')
      ? `had ${answer.text}`
      : answer.text;

const parse = (text: string): Json => (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text);
/** A failed fetch, with what the socket said (`fetch failed` alone says nothing). */
const failed = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `connection failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`;
};

/** The rows of `sql` on the database at `url`, reached directly (not through the proxy). */
async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

const revList = (gitdir: string, ...refs: string[]) =>
  new Set(
    spawnSync('git', ['--git-dir', gitdir, 'rev-list', ...refs], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean),
  );

/** `work` over `items`, `concurrency` at a time. */
async function eachLimited<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/**
 * The database both processes share, `direct` its URL not through the proxy: on a cluster of the test's own
 * where the machine allows it, otherwise a new database of the suite's shared server (FORGEKIT_TEST_DATABASE_URL).
 */
async function database(): Promise<{ direct: string; privateCluster?: PostgresCluster }> {
  const cluster = await privatePostgresCluster();
  if ('unavailable' in cluster) {
    console.log(`fleet: no PostgreSQL cluster of its own (${cluster.unavailable}): the restart round is left out`);
    const shared = await freshDatabase();
    cleanups.push(shared.drop);
    return { direct: shared.url };
  }
  cleanups.push(() => cluster.remove());
  await query(cluster.url(), 'create database forgekit');
  return { direct: cluster.url('forgekit'), privateCluster: cluster };
}

type Kind = 'issue' | 'note' | 'commit' | 'branch' | 'feature commit' | 'merge request' | 'merge';

/**
 * The refusals a write of each kind may deserve mid-storm: none for those whose names are new and whose parents were
 * acknowledged; 405 and 406 for a merge that cannot happen (the request not mergeable, or not open). Any other 4xx is
 * a failure, as is every 5xx but 503 with Retry-After.
 */
const DESERVED: Record<Kind, number[]> = {
  issue: [],
  note: [],
  commit: [],
  branch: [],
  'feature commit': [],
  'merge request': [],
  merge: [405, 406],
};

describe.runIf(process.env.FORGEKIT_TEST_DATABASE_URL && hasGit)('two forgekit processes on one database and storage', () => {
  it('keep every acknowledged write through kill -9, cut connections, ended sessions and a PostgreSQL restart', {
    timeout: 300_000,
  }, async () => {
    began = Date.now();
    const failures = new Failures();
    // A run cut short (the test's timeout, a process that would not start) still tells what it had found.
    let concluded = false;
    onTestFailed(() => {
      if (!concluded && failures.list().length) console.log(`fleet: found so far:\n${failures.list().join('\n')}`);
    });

    // The database: on a cluster of the test's own where the machine allows it, which the restart round needs;
    // otherwise on a database of the suite's shared server, which must stay up, without that round.
    const { direct, privateCluster } = await database();
    const databaseName = new URL(direct).pathname.slice(1);
    const proxy = await TcpProxy.start(Number(new URL(direct).port || 5432), new URL(direct).hostname);
    cleanups.push(() => proxy.close());
    const throughProxy = new URL(direct);
    throughProxy.hostname = '127.0.0.1';
    throughProxy.port = String(proxy.port);

    const scratch = mkdtempSync(join(tmpdir(), 'forgekit-fleet-'));
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    const storage = join(scratch, 'repositories');
    const instances: Instance[] = ['A', 'B'].map((name) => ({
      name,
      dataDir: join(scratch, name),
      generation: 0,
      killed: false,
      printed: '',
    }));

    /** Starts `instance` (again), with the same flags each time; resolves once it listens. */
    async function start(instance: Instance): Promise<void> {
      const args = [cli, 'serve', '--port', '0', '--database-url', throughProxy.toString(), '--storage', storage];
      // No throttle of refused tokens: a refusal is a failure of its own here, not to be multiplied into 429s.
      args.push('--data-dir', instance.dataDir, '--max-auth-failures', '0');
      const running = runGathering(processes, process.execPath, args, {
        env: {
          ...process.env,
          DATABASE_URL: '',
          FORGEKIT_ROOT_TOKEN: TOKEN,
          // One instance: what either process seals (runners' tokens, imports' credentials) the other opens.
          FORGEKIT_SECRET_KEY: 'fleet-secret-key-of-both-processes-0001',
          // Short, so that a call stuck behind a lost connection answers 503 (before the test's REQUEST_DEADLINE) and
          // what it holds is let go within the run.
          FORGEKIT_REQUEST_TIMEOUT: '10',
          FORGEKIT_STATEMENT_TIMEOUT: '10',
          FORGEKIT_LOCK_TIMEOUT: '5',
          // Longer than IDLE_IN_TRANSACTION: a transaction left open is seen by the test before PostgreSQL ends it.
          FORGEKIT_IDLE_IN_TRANSACTION_TIMEOUT: '20',
        },
      });
      instance.running = running;
      instance.killed = false;
      void running.exited.then((code) => {
        if (instance.running !== running) return;
        instance.url = undefined;
        instance.generation += 1;
        if (!instance.killed) {
          instance.printed += running.output();
          const said = running.output().trim().split('\n').slice(-15).join('\n');
          failures.add(`forgekit ${instance.name} exited by itself (exit status ${code})`, said);
        }
      });
      instance.url = await listeningOn(running, 60_000);
    }

    /** kill -9, and no request goes to it from now on. */
    async function kill(instance: Instance): Promise<void> {
      const running = instance.running!;
      instance.killed = true;
      instance.url = undefined;
      instance.generation += 1;
      processes.stop(running.child);
      await running.exited;
      instance.printed += running.output();
    }

    // The first start migrates the new database: the second starts on it once that is done.
    for (const instance of instances) await start(instance);
    progress(`both processes listen: ${instances.map((instance) => `${instance.name} at ${instance.url}`).join(', ')}`);

    const [a] = instances;
    const projects: number[] = [];
    for (let index = 0; index < PROJECTS; index++) {
      const created = await post(a.url!, '/projects', { name: `fleet-${index}` }, REQUEST_DEADLINE);
      expect(created.text).toMatch(/^201 /);
      const readme = { branch: 'master', content: '# Fleet\n', commit_message: 'Start' };
      expect((await post(a.url!, `/projects/${created.body.id}/repository/files/README.md`, readme, REQUEST_DEADLINE)).text).toMatch(
        /^201 /,
      );
      projects.push(created.body.id);
    }

    // What was acknowledged (answered 2xx), with what identifies it.
    const acknowledged = {
      issues: [] as { project: number; iid: number; title: string }[],
      notes: [] as { project: number; iid: number; id: number; body: string }[],
      commits: [] as { project: number; sha: string; branch: string }[],
      branches: [] as { project: number; name: string; sha: string }[],
      mergeRequests: [] as { project: number; iid: number; title: string }[],
      merges: [] as { project: number; iid: number; sha: string; head: string }[],
    };
    /** Answers by round and status, for the summary. */
    const tally = new Map<string, Map<string, number>>();
    const count = (key: string) => {
      const round = tally.get(failures.round) ?? tally.set(failures.round, new Map()).get(failures.round)!;
      round.set(key, (round.get(key) ?? 0) + 1);
    };

    /**
     * A write through one of the processes (the one whose turn it is, or the other while it is down): its answer's
     * body when 2xx, else undefined, with whatever is not a deserved refusal or a 503 with Retry-After added to
     * `failures`, as is a hang. A connection lost with a process killed meanwhile is no failure.
     */
    async function write(turn: { value: number }, kind: Kind, method: string, path: string, body: unknown): Promise<Json | undefined> {
      let instance = instances[turn.value++ % instances.length];
      if (!instance.url) instance = instances.find((other) => other.url) ?? instance;
      const url = instance.url;
      if (!url) {
        await sleep(50);
        return undefined;
      }
      const generation = instance.generation;
      const started = performance.now();
      const example = () => `${method} ${path} via ${instance.name} (${Math.round(performance.now() - started)} ms)`;
      try {
        const res = await fetch(`${url}/api/v4${path}`, {
          method,
          headers: { 'PRIVATE-TOKEN': TOKEN, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_DEADLINE),
        });
        const text = await res.text();
        count(`${kind} ${res.status}`);
        if (res.ok) return parse(text);
        if (res.status === 503 && res.headers.has('retry-after')) return undefined;
        if (res.status < 500 && DESERVED[kind].includes(res.status)) return undefined;
        const what = `${kind} answered ${res.status}${res.status === 503 ? ' without Retry-After' : ''}: ${text.slice(0, 300)}`;
        // One line per kind of answer, whatever numbers it names.
        failures.add(what, example(), what.replace(/\d+/g, 'N'));
      } catch (error) {
        if ((error as Error).name === 'TimeoutError') {
          count(`${kind} hung`);
          failures.add(`${kind} had no answer in ${REQUEST_DEADLINE / 1000} s`, example());
        } else if (instance.generation !== generation) {
          count(`${kind} lost with its process`);
        } else {
          count(`${kind} connection failed`);
          failures.add(`${kind}: ${failed(error)} (the process was not killed)`, example());
        }
      }
      return undefined;
    }

    let serial = 0;
    /** One writer: an issue and a note on it, a commit to master, a branch, a feature branch merged by a merge request. */
    async function writer(index: number, storm: { stopped: boolean }): Promise<void> {
      const project = projects[index % projects.length];
      const base = `/projects/${project}`;
      const turn = { value: index };
      while (!storm.stopped) {
        const tag = String(++serial);
        const issue = await write(turn, 'issue', 'POST', `${base}/issues`, { title: `Storm ${tag}` });
        if (issue) {
          acknowledged.issues.push({ project, iid: issue.iid, title: issue.title });
          if (storm.stopped) break;
          const note = await write(turn, 'note', 'POST', `${base}/issues/${issue.iid}/notes`, { body: `Note ${tag}` });
          if (note) acknowledged.notes.push({ project, iid: issue.iid, id: note.id, body: note.body });
        }
        if (storm.stopped) break;
        const commit = await write(turn, 'commit', 'POST', `${base}/repository/commits`, {
          branch: 'master',
          commit_message: `Commit ${tag}`,
          actions: [{ action: 'create', file_path: `storm/${tag}.txt`, content: tag }],
        });
        if (commit) acknowledged.commits.push({ project, sha: commit.id, branch: 'master' });
        if (storm.stopped) break;
        const branch = await write(turn, 'branch', 'POST', `${base}/repository/branches`, { branch: `branch-${tag}`, ref: 'master' });
        if (branch) acknowledged.branches.push({ project, name: branch.name, sha: branch.commit.id });
        if (storm.stopped) break;
        const source = `feature-${tag}`;
        const feature = await write(turn, 'feature commit', 'POST', `${base}/repository/commits`, {
          branch: source,
          start_branch: 'master',
          commit_message: `Feature ${tag}`,
          actions: [{ action: 'create', file_path: `features/${tag}.txt`, content: tag }],
        });
        if (!feature) continue;
        acknowledged.commits.push({ project, sha: feature.id, branch: source });
        acknowledged.branches.push({ project, name: source, sha: feature.id });
        if (storm.stopped) break;
        const request = await write(turn, 'merge request', 'POST', `${base}/merge_requests`, {
          source_branch: source,
          target_branch: 'master',
          title: `Merge ${tag}`,
        });
        if (!request) continue;
        acknowledged.mergeRequests.push({ project, iid: request.iid, title: request.title });
        if (storm.stopped) break;
        const merged = await write(turn, 'merge', 'PUT', `${base}/merge_requests/${request.iid}/merge`, {});
        if (!merged) continue;
        if (merged.state === 'merged' && typeof merged.merge_commit_sha === 'string') {
          acknowledged.merges.push({ project, iid: request.iid, sha: merged.merge_commit_sha, head: feature.id });
        } else {
          failures.add('merge answered 200 without a merged request', `${base}/merge_requests/${request.iid}: ${JSON.stringify(merged)}`);
        }
      }
    }

    /** Writers on every project through both processes, until `stop()`, which waits for their last requests. */
    function storm(): { stop(): Promise<void> } {
      const state = { stopped: false };
      const writers = Array.from({ length: WRITERS }, (_, index) => writer(index, state));
      return {
        async stop() {
          state.stopped = true;
          await Promise.all(writers);
        },
      };
    }

    /**
     * While the database is away, polled every 100 ms for `ms`: each process is live (`/-/liveness` 200 `{"status":"ok"}`)
     * and, at least once, says it is not ready (`/-/readiness` 503 `{"status":"failed"}`).
     */
    async function whileAway(ms: number): Promise<void> {
      const until = Date.now() + ms;
      const readiness = new Map(instances.map((instance) => [instance, new Answers()]));
      while (Date.now() < until) {
        await Promise.all(
          instances.map(async (instance) => {
            if (!instance.url) return;
            const live = await get(instance.url, '/-/liveness', 1_000);
            if (live.status !== 200 || live.body?.status !== 'ok') {
              failures.add(`forgekit ${instance.name}'s /-/liveness, with the database away, answered ${live.text}`);
            }
            // A late answer is no failure here (the database is away), and says what the process thinks.
            const ready = await get(instance.url, '/-/readiness', CHECK_DEADLINE);
            readiness.get(instance)!.add(ready.status === 503 && ready.body?.status === 'failed' ? '503 failed' : ready.text);
          }),
        );
        await sleep(100);
      }
      for (const [instance, answers] of readiness) {
        if (!answers.some((text) => text === '503 failed')) {
          failures.add(
            `forgekit ${instance.name}'s /-/readiness, with the database away, never answered 503 {"status":"failed"}: ${answers}`,
          );
        }
      }
    }

    /**
     * Ready within READY_WITHIN of `ended` (`/-/readiness` 200 `{"status":"ok"}`, polled), then an API call within
     * READY_WITHIN of its own. A process later than that is waited for until SETTLE, to say how late it was.
     */
    async function readyAgain(instance: Instance, ended: number): Promise<void> {
      const answers = new Answers();
      for (;;) {
        if (instance.url) {
          // Waited for past READY_WITHIN: a late answer says more than none (what failed).
          const ready = await get(instance.url, '/-/readiness', CHECK_DEADLINE);
          if (ready.status === 200 && ready.body?.status === 'ok') {
            const after = Date.now() - ended;
            if (after > READY_WITHIN)
              failures.add(`forgekit ${instance.name} was ready only ${after} ms after the trouble ended: ${answers}`);
            break;
          }
          // 404 (no such endpoint) or a 200 saying something else is not a state that passes.
          if (ready.status !== 503 && ready.status !== 0) {
            failures.add(`forgekit ${instance.name}'s /-/readiness answered ${ready.text}`);
            break;
          }
          answers.add(ready.text);
        } else answers.add('down');
        if (Date.now() - ended > SETTLE) {
          // Whether it answers anything at all, or is stuck whole; and what the database sees of the processes.
          const live = instance.url ? `; /-/liveness ${answered(await get(instance.url, '/-/liveness', CHECK_DEADLINE))}` : '';
          failures.add(
            `forgekit ${instance.name} was not ready ${SETTLE / 1000} s after the trouble ended: ${answers}${live}`,
            await sessions(),
          );
          return;
        }
        await sleep(50);
      }
      const version = await get(instance.url!, '/api/v4/version', CHECK_DEADLINE);
      if (version.status !== 200 || version.ms >= READY_WITHIN) {
        failures.add(`forgekit ${instance.name}'s GET /api/v4/version, once ready, ${answered(version)}`);
      }
    }

    /** A write through each process once the storm is over: answered at once, as at any other time. */
    async function writesAgain(): Promise<void> {
      const [project] = projects;
      await Promise.all(
        instances.map(async (instance) => {
          if (!instance.url) return;
          const title = `After "${failures.round}" via ${instance.name}`;
          const answer = await post(instance.url, `/projects/${project}/issues`, { title }, CHECK_DEADLINE);
          if (answer.status === 201) acknowledged.issues.push({ project, iid: answer.body.iid, title });
          if (answer.status !== 201 || answer.ms >= READY_WITHIN) {
            failures.add(`after the storm, a new issue through ${instance.name} ${answered(answer)}`);
          }
        }),
      );
    }

    /** The database's sessions by state, and the connections through the proxy: where a process's connections went. */
    async function sessions(): Promise<string> {
      const rows = await query<{ state: string; wait: string; count: number; seconds: number }>(
        direct,
        "select coalesce(state, '?') as state, coalesce(wait_event_type || ':' || wait_event, '') as wait, count(*)::int as count, " +
          'max(extract(epoch from now() - state_change))::int as seconds from pg_stat_activity ' +
          'where datname = $1 and pid <> pg_backend_pid() group by 1, 2 order by 1, 2',
        [databaseName],
      ).catch((error: Error) => [{ state: `unknown (${error.message})`, wait: '', count: 0, seconds: 0 }]);
      const shown = rows.map(({ state, wait, count, seconds }) => `${count} ${state}${wait ? ` (${wait})` : ''} up to ${seconds} s`);
      return `the database's sessions: ${shown.join(', ') || 'none'}; connections through the proxy: ${proxy.open}`;
    }

    /** Sessions of the database idle in a transaction for over IDLE_IN_TRANSACTION seconds: none, once those ending have. */
    async function noneIdleInTransaction(): Promise<void> {
      const sql =
        'select pid, application_name, extract(epoch from now() - state_change)::int as seconds, left(query, 120) as query ' +
        `from pg_stat_activity where datname = $1 and state like 'idle in transaction%' ` +
        `and now() - state_change > interval '${IDLE_IN_TRANSACTION} seconds'`;
      let idle: { pid: number; application_name: string; seconds: number; query: string }[] = [];
      for (const until = Date.now() + 3_000; Date.now() < until; await sleep(200)) {
        idle = await query(direct, sql, [databaseName]);
        if (!idle.length) return;
      }
      for (const session of idle) {
        const name = session.application_name || 'no application name';
        failures.add(
          `sessions idle in a transaction for over ${IDLE_IN_TRANSACTION} s`,
          `pid ${session.pid} (${name}) for ${session.seconds} s, its last query: ${session.query.replace(/\s+/g, ' ')}`,
        );
      }
    }

    const rounds: { name: string; trouble: () => Promise<void> }[] = [
      {
        name: 'kill -9 of A',
        trouble: async () => {
          await kill(instances[0]);
          await start(instances[0]);
        },
      },
      {
        name: 'connections cut, then refused for a second',
        trouble: async () => {
          if (proxy.cut() === 0) failures.add('the proxy had no connection to cut: the round tried nothing');
          proxy.refuse(true);
          await whileAway(1_000);
          proxy.refuse(false);
        },
      },
      {
        name: 'pg_terminate_backend of every session',
        trouble: async () => {
          const ended = await query(
            direct,
            'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
            [databaseName],
          );
          if (ended.length === 0) failures.add('no session to end: the round tried nothing');
        },
      },
      // PostgreSQL crashed (stopped at once, without a checkpoint) and started again: on the shared server of the
      // suite, which the other files use meanwhile, it cannot be; the round is then left out.
      ...(privateCluster
        ? [
            {
              name: 'PostgreSQL crashed and started again',
              trouble: () => privateCluster.restart('immediate', () => whileAway(700)),
            },
          ]
        : []),
      {
        name: 'kill -9 of B',
        trouble: async () => {
          await kill(instances[1]);
          await start(instances[1]);
        },
      },
    ];

    let lastEnded = Date.now();
    for (const round of rounds) {
      failures.round = round.name;
      const roundBegan = Date.now();
      const writes = storm();
      // Mid-storm: every writer has requests in flight when the trouble comes.
      await sleep(500 + Math.random() * 500);
      progress(`round "${round.name}": the trouble comes, ${serial} writer loops in`);
      await round.trouble();
      const ended = (lastEnded = Date.now());
      // The storm goes on while the processes come back, and for a while after.
      await Promise.all(instances.map((instance) => readyAgain(instance, ended)));
      const checked = Date.now();
      await sleep(Math.max(0, ended + 800 - Date.now()));
      await writes.stop();
      // A process that exited by itself is started again, for the next rounds to try something.
      for (const instance of instances) if (!instance.url) await start(instance);
      await writesAgain();
      // Idle for over 5 s: one a round's trouble left behind is found by the next round's check (a round lasts 2 to
      // 4 s), the last round's by the one at the end.
      await noneIdleInTransaction();
      const seconds = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;
      progress(
        `round "${round.name}" over after ${seconds(roundBegan, Date.now())}: its trouble ended at ${seconds(roundBegan, ended)}, ` +
          `readiness was checked in ${seconds(ended, checked)}`,
      );
    }
    failures.round = 'after the rounds';
    progress('the rounds are over: every acknowledged write is looked for');
    // A process that hangs still (the rounds have said so) is started again, for the writes to be read through it.
    await Promise.all(
      instances.map(async (instance) => {
        const version = instance.url ? await get(instance.url, '/api/v4/version', CHECK_DEADLINE) : undefined;
        if (version?.status === 200) return;
        const said = printed(instance).trim().split('\n').slice(-10).join('\n');
        failures.add(
          `GET /api/v4/version through forgekit ${instance.name} ${version ? answered(version) : 'is down'}: started again`,
          said,
        );
        await kill(instance);
        await start(instance);
      }),
    );

    // Every acknowledged write is there.
    const missing: string[] = [];
    const turn = { value: 0 };
    const read = async (path: string) => get(instances[turn.value++ % instances.length].url!, `/api/v4${path}`, REQUEST_DEADLINE);
    const history = new Map(
      projects.map((project) => {
        const gitdir = join(storage, RepositoryStore.relativePath(project));
        return [project, { master: revList(gitdir, 'master'), all: revList(gitdir, '--all') }];
      }),
    );
    await eachLimited(acknowledged.issues, 8, async ({ project, iid, title }) => {
      const shown = await read(`/projects/${project}/issues/${iid}`);
      if (shown.status !== 200 || shown.body.title !== title) missing.push(`issue ${project}#${iid} "${title}": ${shown.text}`);
    });
    await eachLimited(acknowledged.notes, 8, async ({ project, iid, id, body }) => {
      const shown = await read(`/projects/${project}/issues/${iid}/notes/${id}`);
      if (shown.status !== 200 || shown.body.body !== body) missing.push(`note ${id} of issue ${project}#${iid}: ${shown.text}`);
    });
    for (const { project, sha, branch } of acknowledged.commits) {
      const kept = history.get(project)!;
      if (branch === 'master' ? !kept.master.has(sha) : !kept.all.has(sha))
        missing.push(`commit ${sha} of project ${project} on ${branch}`);
    }
    await eachLimited(acknowledged.branches, 8, async ({ project, name, sha }) => {
      const shown = await read(`/projects/${project}/repository/branches/${encodeURIComponent(name)}`);
      // No write moves these branches after their own: each is where it was made.
      if (shown.status !== 200 || shown.body.commit?.id !== sha)
        missing.push(`branch ${name} of project ${project} at ${sha}: ${shown.text}`);
    });
    await eachLimited(acknowledged.mergeRequests, 8, async ({ project, iid, title }) => {
      const shown = await read(`/projects/${project}/merge_requests/${iid}`);
      if (shown.status !== 200 || shown.body.title !== title) missing.push(`merge request ${project}!${iid} "${title}": ${shown.text}`);
      const merge = acknowledged.merges.find((merged) => merged.project === project && merged.iid === iid);
      if (!merge || shown.status !== 200) return;
      const master = history.get(project)!.master;
      if (shown.body.state !== 'merged' || shown.body.merge_commit_sha !== merge.sha || !master.has(merge.sha) || !master.has(merge.head)) {
        const said = `state ${shown.body.state}, merge_commit_sha ${shown.body.merge_commit_sha}`;
        missing.push(
          `merge of ${project}!${iid} by ${merge.sha} (${said}; in master: ${master.has(merge.sha)}, its head: ${master.has(merge.head)})`,
        );
      }
    });

    // Nor is any request, acknowledged or not, merged by a commit its target lacks: a merge whose answer was lost is
    // whole or not at all.
    for (const project of projects) {
      const master = history.get(project)!.master;
      let listed = 0;
      for (let page = 1; ; page++) {
        const merged = await read(`/projects/${project}/merge_requests?state=merged&per_page=100&page=${page}`);
        if (merged.status !== 200) {
          missing.push(`the merged requests of project ${project}: ${merged.text}`);
          break;
        }
        listed += merged.body.length;
        for (const { iid, sha, merge_commit_sha } of merged.body as { iid: number; sha: string; merge_commit_sha: string | null }[]) {
          // Without a merge commit: the target had the source's head already.
          if (!master.has(merge_commit_sha ?? sha))
            missing.push(`${project}!${iid} is merged by ${merge_commit_sha ?? sha}, which master lacks`);
        }
        if (merged.body.length < 100) break;
      }
      const merges = acknowledged.merges.filter((merge) => merge.project === project).length;
      if (listed < merges) missing.push(`project ${project} lists ${listed} merged requests, fewer than the ${merges} merges acknowledged`);
    }

    // iids are unique per project: in the database, and among the acknowledged answers.
    for (const table of ['issues', 'merge_requests']) {
      const repeated = await query(
        direct,
        `select project_id, iid, count(*)::int as count from ${table} group by 1, 2 having count(*) > 1`,
      );
      expect.soft(repeated, `${table} sharing an iid`).toEqual([]);
    }
    for (const [what, list] of [
      ['issues', acknowledged.issues],
      ['merge requests', acknowledged.mergeRequests],
    ] as const) {
      const keys = list.map(({ project, iid }) => `${project}#${iid}`);
      expect
        .soft(
          keys.filter((key, index) => keys.indexOf(key) !== index),
          `acknowledged ${what} sharing an iid`,
        )
        .toEqual([]);
    }

    for (const project of projects)
      expect.soft(fsck(join(storage, RepositoryStore.relativePath(project))), `git fsck of ${project}`).toBe('0 ');

    // The last round's leftovers are past IDLE_IN_TRANSACTION by now, if any.
    await sleep(Math.max(0, lastEnded + (IDLE_IN_TRANSACTION + 1) * 1_000 - Date.now()));
    await noneIdleInTransaction();

    const counts = Object.fromEntries(Object.entries(acknowledged).map(([what, list]) => [what, list.length]));
    const answers = [...tally].map(([round, keys]) => `  ${round}: ${[...keys].map(([key, n]) => `${key} ×${n}`).join(', ')}`);
    console.log(`fleet: acknowledged ${JSON.stringify(counts)}; the storm's answers by round:\n${answers.join('\n')}`);
    if (failures.list().length) {
      for (const instance of instances) {
        const errors = printed(instance)
          .split('\n')
          .filter((line) => /error|exception|unhandled/i.test(line));
        console.log(`fleet: forgekit ${instance.name}'s last error lines:\n${errors.slice(-20).join('\n')}`);
      }
    }
    // Every acknowledged write is there; then, what the rounds found.
    concluded = true;
    expect.soft(missing, 'acknowledged writes missing, and merges their target lacks').toEqual([]);
    expect(failures.list()).toEqual([]);
    // Enough was written for the rounds to mean something.
    for (const list of Object.values(acknowledged)) expect(list.length).toBeGreaterThan(0);
  });
});
