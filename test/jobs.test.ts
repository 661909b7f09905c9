import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/database.js';
import { queryRows } from '../src/db/rows.js';
import { sql } from '../src/db/sql.js';
import { REMOTE_FAILED, RepositoryImportError, RepositoryStore } from '../src/git/store.js';
import { SecretBox } from '../src/auth/secret-box.js';
import { JobQueue, WORKER_STATEMENT, type JobHandler, type JobQueueOptions } from '../src/jobs/queue.js';
import { FORK_REPOSITORY, IMPORT_REPOSITORY, registerRepositoryJobs } from '../src/jobs/repository-jobs.js';
import { silentLogger } from '../src/logger.js';
import { eventually, freshDatabase, hasGit, migratedDataDir, queriesOf, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';
import { closedPort, git, gitHttpServer } from './git-http.js';

// Background jobs (src/jobs/queue.ts) and the repository work they run for forks and imports
// (src/jobs/repository-jobs.ts, RepositoryStore.copy and importFrom).

const postgresUrl = process.env.FORGEKIT_TEST_DATABASE_URL || undefined;

const directories: string[] = [];
function temporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), `forgekit-jobs-test-${prefix}-`));
  directories.push(directory);
  return directory;
}
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** Queues made by a test, closed after it (before their databases). */
const queues: JobQueue[] = [];
function queueOn(db: Database, options: JobQueueOptions = {}): JobQueue {
  // Workers are woken by commits and notifications: a poll this slow would make a test that relied on it time out.
  const queue = new JobQueue(db, silentLogger, { pollMs: 60_000, ...options });
  queues.push(queue);
  return queue;
}
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.close();
});

const jobRow = async (db: Database, id: number) => (await queryRows(db.rows, sql`select * from jobs where id = ${id}`))[0];

/** A handler that waits until it is told to stop, and says when it has started. */
function stoppable(): { handler: JobHandler; started: Promise<number> } {
  let started!: (id: number) => void;
  const startedPromise = new Promise<number>((resolve) => (started = resolve));
  return {
    started: startedPromise,
    handler: {
      run: (job) =>
        new Promise<void>((_, reject) => {
          started(job.id);
          job.signal.addEventListener('abort', () => reject(job.signal.reason), { once: true });
        }),
    },
  };
}

describe('the job queue', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ url: postgresUrl, isolated: true });
  });
  afterAll(() => db?.close());

  it('has a job exactly when the transaction that queued it commits, and runs it then', async () => {
    const queue = queueOn(db);
    const payloads: unknown[] = [];
    queue.register('test_record', { run: async (job) => void payloads.push(job.payload) });
    queue.start();
    const rolledBack = new Error('rolled back');
    let rolledBackId = 0;
    await expect(
      db.fork().transactional(async (em) => {
        rolledBackId = await queue.enqueue(em, 'test_record', { n: 1 });
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(rolledBackId).toBeGreaterThan(0);
    expect(await jobRow(db, rolledBackId)).toBeUndefined();

    const payload = { n: 2, text: "it's a ? and a \\ and \u00e9", list: [1, null, { deep: true }] };
    const id = await db.fork().transactional((em) => queue.enqueue(em, 'test_record', payload));
    expect(await queue.settled(id)).toEqual({ id, kind: 'test_record', status: 'finished', error: null });
    expect(payloads).toEqual([payload]);
    expect(await jobRow(db, id)).toMatchObject({ status: 'finished', attempts: 1, locked_by: null, locked_until: null });
  });

  it('retries a failed attempt, and once the attempts are used up fails the job with its error and gives it up', async () => {
    const queue = queueOn(db, { retryDelayMs: () => 0 });
    const givenUp: [number, string][] = [];
    queue.register<{ succeedOn: number }>('test_flaky', {
      maxAttempts: 2,
      run: async (job) => {
        if (job.attempt !== job.payload.succeedOn) throw new Error(`attempt ${job.attempt} failed`);
      },
      givenUp: async (job, error) => void givenUp.push([job.id, error]),
    });
    queue.start();
    const recovers = await queue.enqueue(db.fork(), 'test_flaky', { succeedOn: 2 });
    const fails = await queue.enqueue(db.fork(), 'test_flaky', { succeedOn: 3 });
    await queue.drain();
    expect(await queue.settled(recovers)).toEqual({ id: recovers, kind: 'test_flaky', status: 'finished', error: 'attempt 1 failed' });
    expect(await queue.settled(fails)).toEqual({ id: fails, kind: 'test_flaky', status: 'failed', error: 'attempt 2 failed' });
    expect(await jobRow(db, fails)).toMatchObject({ status: 'failed', attempts: 2, locked_by: null });
    expect(givenUp).toEqual([[fails, 'attempt 2 failed']]);
  });

  it('retries after a growing delay, and waiting for the queue waits for the retry', async () => {
    const queue = queueOn(db, { pollMs: 100 });
    const attempts: number[] = [];
    queue.register('test_retry_later', {
      run: async (job) => {
        attempts.push(Date.now());
        if (job.attempt === 1) throw new Error('not yet');
      },
    });
    queue.start();
    await queue.enqueue(db.fork(), 'test_retry_later', {});
    await queue.drain();
    expect(attempts).toHaveLength(2);
    // The default delay after a first failure is a second.
    expect(attempts[1] - attempts[0]).toBeGreaterThanOrEqual(900);
  });

  it('lets no other worker run a job while its lease is renewed, however long it runs', async () => {
    const runs: number[] = [];
    const handler: JobHandler = {
      run: async (job) => {
        runs.push(job.id);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      },
    };
    for (const queue of [queueOn(db, { leaseMs: 300, pollMs: 50 }), queueOn(db, { leaseMs: 300, pollMs: 50 })]) {
      queue.register('test_slow', handler);
      queue.start();
    }
    const id = await queues[0].enqueue(db.fork(), 'test_slow', {});
    await queues[0].settled(id);
    expect(runs).toEqual([id]);
    expect(await jobRow(db, id)).toMatchObject({ status: 'finished', attempts: 1 });
  });

  it('on close stops the running job and gives it back, and the next worker runs it at once', async () => {
    const closing = queueOn(db);
    const { handler, started } = stoppable();
    closing.register('test_handover', handler);
    closing.start();
    const id = await closing.enqueue(db.fork(), 'test_handover', {});
    expect(await started).toBe(id);
    await closing.close();
    expect(await jobRow(db, id)).toMatchObject({ status: 'queued', attempts: 0, locked_by: null, locked_until: null });
    await expect(closing.settled(id)).rejects.toThrow(/closed/);

    const next = queueOn(db);
    next.register('test_handover', { run: async () => {} });
    next.start();
    expect(await next.settled(id)).toMatchObject({ status: 'finished' });
    expect(await jobRow(db, id)).toMatchObject({ attempts: 1 });
  });

  it('gives up a job whose last attempt was interrupted', async () => {
    const queue = queueOn(db);
    const runs: number[] = [];
    const givenUp: string[] = [];
    queue.register('test_interrupted', {
      maxAttempts: 2,
      run: async (job) => void runs.push(job.id),
      givenUp: async (_, error) => void givenUp.push(error),
    });
    // As a worker that died in the job's second run leaves it: running, its lease lapsed.
    const id = await db.fork().transactional(async (em) => {
      const id = await queue.enqueue(em, 'test_interrupted', {});
      await em.execute(`update jobs set status = 'running', attempts = 2, locked_by = 'dead', locked_until = now() where id = ${id}`);
      return id;
    });
    queue.start();
    expect(await queue.settled(id)).toMatchObject({ status: 'failed', error: 'interrupted 2 times' });
    expect(runs).toEqual([]);
    expect(givenUp).toEqual(['interrupted 2 times']);
  });

  it('makes no statement while idle on an embedded database, and on PostgreSQL only polls, which no call is counted with', async () => {
    const queue = queueOn(db, { pollMs: 50 });
    queue.register('test_idle', { run: async () => {} });
    queue.start();
    await queue.settled(await queue.enqueue(db.fork(), 'test_idle', {}));
    const pause = () => new Promise((resolve) => setTimeout(resolve, 300));
    await pause();
    const logger = db.orm.config.getLogger();
    const logQuery = logger.logQuery.bind(logger);
    const statements: string[] = [];
    logger.logQuery = (context) => void statements.push(context.query ?? '');
    try {
      await pause();
    } finally {
      logger.logQuery = logQuery;
    }
    expect(await queriesOf(db, pause)).toEqual([]);
    if (db.shared) {
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.filter((statement) => !statement.startsWith(WORKER_STATEMENT))).toEqual([]);
    } else {
      expect(statements).toEqual([]);
    }
  });

  it('refuses unknown kinds, malformed kinds and oversized payloads', async () => {
    const queue = queueOn(db);
    queue.register('test_bounds', { run: async () => {} });
    expect(() => queue.register('test_bounds', { run: async () => {} })).toThrow(/already/);
    expect(() => queue.register('Not A Kind', { run: async () => {} })).toThrow(/invalid job kind/);
    await expect(queue.enqueue(db.fork(), 'test_unknown', {})).rejects.toThrow(/no handler/);
    await expect(queue.enqueue(db.fork(), 'test_bounds', { big: 'x'.repeat(20_000) })).rejects.toThrow(/limited to/);
    await expect(queue.settled(2_000_000_000)).rejects.toThrow(/no job/);
  });
});

describe('a job interrupted by a restart', () => {
  /**
   * Two jobs left unfinished by an instance: one it was running when it closed (given back), one a crashed
   * process was running (`crashedLease`: how long its lease still holds). The next instance runs both.
   */
  async function interruptAndReopen(open: () => Promise<Database>, crashedLease: string, options: JobQueueOptions = {}) {
    const first = await open();
    let closed: number;
    let crashed: number;
    try {
      const queue = new JobQueue(first, silentLogger, { pollMs: 60_000 });
      const { handler, started } = stoppable();
      queue.register('test_restart', handler);
      queue.start();
      closed = await queue.enqueue(first.fork(), 'test_restart', {});
      await started;
      crashed = await first.fork().transactional(async (em) => {
        const id = await queue.enqueue(em, 'test_restart', {});
        await em.execute(
          `update jobs set status = 'running', attempts = 1, locked_by = 'crashed', locked_until = now() + interval '${crashedLease}' ` +
            `where id = ${id}`,
        );
        return id;
      });
      await queue.close();
    } finally {
      await first.close();
    }
    const second = await open();
    try {
      const queue = queueOn(second, options);
      const ran: number[] = [];
      queue.register('test_restart', { run: async (job) => void ran.push(job.id) });
      queue.start();
      await queue.drain();
      expect(ran.sort()).toEqual([closed, crashed].sort());
      expect(await jobRow(second, closed)).toMatchObject({ status: 'finished', attempts: 1 });
      expect(await jobRow(second, crashed)).toMatchObject({ status: 'finished', attempts: 2 });
      await queue.close();
    } finally {
      await second.close();
    }
  }

  it('runs again promptly in an embedded database reopened on the same data directory', async () => {
    const dataDir = migratedDataDir(temporaryDirectory('pgdata'));
    // A crashed process's lease of an hour: one process has this database, so it takes every lease back at start.
    await interruptAndReopen(() => openDatabase({ dataDir }), '1 hour');
  });

  it.runIf(postgresUrl)('runs again on PostgreSQL: at once when closed, once its lease lapses when crashed', async () => {
    const database = await freshDatabase();
    try {
      await interruptAndReopen(() => openDatabase({ url: database.url }), '1 second', { pollMs: 200 });
    } finally {
      await database.drop();
    }
  });
});

describe.runIf(postgresUrl)('two instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let a: Database;
  let b: Database;
  beforeAll(async () => {
    database = await freshDatabase();
    a = await openDatabase({ url: database.url });
    b = await openDatabase({ url: database.url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('never run the same job twice', async () => {
    const runs = new Map<number, number>();
    const handler: JobHandler = {
      run: async (job) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      },
    };
    const workers = [queueOn(a, { concurrency: 3 }), queueOn(b, { concurrency: 3 })];
    for (const queue of workers) {
      queue.register('test_count', handler);
      queue.start();
    }
    const ids: number[] = [];
    await a.fork().transactional(async (em) => {
      for (let n = 0; n < 10; n++) ids.push(await workers[0].enqueue(em, 'test_count', { n }));
    });
    for (let n = 10; n < 20; n++) ids.push(await workers[n % 2].enqueue((n % 2 ? b : a).fork(), 'test_count', { n }));
    await Promise.all(workers.map((queue) => queue.drain()));
    expect([...runs.keys()].sort((x, y) => x - y)).toEqual(ids);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });

  it("wake each other's workers when a job is queued, and each other's waiters when it settles", async () => {
    const queuer = queueOn(a);
    queuer.register('test_elsewhere', { run: async () => {} });
    // Not started: only the other instance runs jobs.
    const worker = queueOn(b);
    const ran: number[] = [];
    worker.register('test_elsewhere', { run: async (job) => void ran.push(job.id) });
    worker.start();
    const started = Date.now();
    const id = await a.fork().transactional((em) => queuer.enqueue(em, 'test_elsewhere', {}));
    expect(await queuer.settled(id)).toMatchObject({ status: 'finished' });
    expect(ran).toEqual([id]);
    // Well under the poll of a minute: the notification did it.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

/** A working repository with history: two branches, an annotated and a lightweight tag, a file in a folder. */
function workingRepository(): string {
  const work = temporaryDirectory('work');
  git(['init', '-q', '-b', 'main', work]);
  writeFileSync(join(work, 'README.md'), '# Hello\n');
  git(['add', '.'], work);
  git(['commit', '-q', '-m', 'First'], work);
  mkdirSync(join(work, 'src'));
  writeFileSync(join(work, 'src', 'app.js'), 'console.log(1);\n');
  git(['add', '.'], work);
  git(['commit', '-q', '-m', 'Second'], work);
  git(['tag', '-a', 'v1.0', '-m', 'Release 1.0'], work);
  git(['checkout', '-q', '-b', 'feature'], work);
  writeFileSync(join(work, 'src', 'app.js'), 'console.log(2);\n');
  git(['commit', '-q', '-am', 'Feature'], work);
  git(['tag', 'light'], work);
  git(['checkout', '-q', 'main'], work);
  return work;
}

/** What two copies of a repository must agree on: every reference, HEAD, every commit. And fsck finds nothing wrong. */
function contentsOf(gitdir: string) {
  git(['--git-dir', gitdir, 'fsck', '--strict', '--no-dangling']);
  return {
    refs: git(['--git-dir', gitdir, 'for-each-ref', '--format=%(refname) %(objectname) %(objecttype)']),
    head: git(['--git-dir', gitdir, 'symbolic-ref', 'HEAD']).trim(),
    log: git(['--git-dir', gitdir, 'log', '--all', '--format=%H %P %s']),
  };
}

/** Imports from the tests' local git server: local requests allowed (test/imports.test.ts checks that they are refused otherwise). */
const LOCAL = { allowLocalRequests: true };

describe.runIf(hasGit)('RepositoryStore', () => {
  let served: string;
  let server: Awaited<ReturnType<typeof gitHttpServer>>;
  let work: string;
  beforeAll(async () => {
    work = workingRepository();
    served = temporaryDirectory('served');
    // HEAD on a branch other than the default: an import takes the remote's.
    git(['clone', '-q', '--bare', work, join(served, 'app.git')]);
    git(['--git-dir', join(served, 'app.git'), 'symbolic-ref', 'HEAD', 'refs/heads/feature']);
    server = await gitHttpServer(served, { alice: 's3cret:with@colon' });
  });
  afterAll(() => server?.close());

  it('copies a repository with every reference and object, replacing what an interrupted copy left', async () => {
    const store = new RepositoryStore({ one: temporaryDirectory('one'), two: temporaryDirectory('two') });
    await store.create('one', 1, 'main');
    git(['push', '-q', store.path('one', 1), '--all'], work);
    git(['push', '-q', store.path('one', 1), '--tags'], work);
    // An earlier attempt's leftovers: a repository in the place, and a half-made one beside it.
    const target = store.path('two', 2);
    mkdirSync(join(target, 'objects'), { recursive: true });
    writeFileSync(join(target, 'HEAD'), 'garbage');
    mkdirSync(`${target}.tmp-new-0123456789ab`);

    await store.copy('one', 1, 'two', 2);
    const source = contentsOf(store.path('one', 1));
    expect(source.refs).toContain('refs/tags/v1.0');
    expect(source.log.trim().split('\n')).toHaveLength(3);
    expect(contentsOf(target)).toEqual(source);
    expect(readdirSync(dirname(target))).toEqual([`${RepositoryStore.relativePath(2).split('/').pop()}`]);
  });

  it('refuses to copy a repository that is not there, leaving nothing', async () => {
    const store = new RepositoryStore({ default: temporaryDirectory('missing') });
    await expect(store.copy('default', 404, 'default', 405)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(existsSync(store.path('default', 405))).toBe(false);
    expect(readdirSync(dirname(store.path('default', 405)))).toEqual([]);
  });

  it('imports every branch and tag over HTTP, with HEAD as the remote has it', async () => {
    const store = new RepositoryStore({ default: temporaryDirectory('import') });
    await store.importFrom('default', 1, `${server.url}/public/app.git`, LOCAL);
    const imported = contentsOf(store.path('default', 1));
    expect(imported).toEqual(contentsOf(join(served, 'app.git')));
    expect(imported.head).toBe('refs/heads/feature');
    expect(imported.refs).not.toContain('refs/remotes');
    expect(readFileSync(join(store.path('default', 1), 'config'), 'utf8')).not.toContain('remote');
  });

  it('sends credentials in the URL as basic authentication, and keeps them nowhere', async () => {
    const store = new RepositoryStore({ default: temporaryDirectory('private') });
    const password = encodeURIComponent('s3cret:with@colon');
    await store.importFrom('default', 1, `${server.url.replace('//', `//alice:${password}@`)}/private/app.git`, LOCAL);
    expect(contentsOf(store.path('default', 1))).toEqual(contentsOf(join(served, 'app.git')));
    const stored = readdirSync(store.path('default', 1), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.parentPath.includes('objects'))
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
    expect(stored).not.toContain('s3cret');
    expect(stored).not.toContain('alice');

    const refused = store.importFrom('default', 2, `${server.url.replace('//', '//alice:wrong-s3cret@')}/private/app.git`, LOCAL);
    await expect(refused).rejects.toThrow(new RepositoryImportError(REMOTE_FAILED));
    expect(existsSync(store.path('default', 2))).toBe(false);
  });

  it('refuses what is not http(s), and fails on what cannot be reached, takes too long or is too large', async () => {
    const store = new RepositoryStore({ default: temporaryDirectory('bounds') });
    const failure = (url: string, options = {}) =>
      store.importFrom('default', 1, url, { ...LOCAL, ...options }).then(
        () => 'imported',
        (error: Error) => `${error.name}: ${error.message}`,
      );
    expect(await failure(`file://${join(served, 'app.git')}`)).toBe('RepositoryImportError: Only http and https URLs can be imported');
    expect(await failure('not a url')).toBe('RepositoryImportError: The import URL is not a valid URL');
    expect(await failure(`http://example.com/${'a'.repeat(2100)}`)).toBe('RepositoryImportError: The import URL is too long');
    // Refused, answered 404: one message, that tells a closed port from a live service no better than the other.
    expect(await failure(`http://127.0.0.1:${await closedPort()}/app.git`)).toBe(`RepositoryImportError: ${REMOTE_FAILED}`);
    expect(await failure(`${server.url}/public/none.git`)).toBe(`RepositoryImportError: ${REMOTE_FAILED}`);
    expect(await failure(`${server.url}/stall/app.git`, { timeoutMs: 300 })).toBe(
      'RepositoryImportError: The import timed out after 0.3 seconds',
    );
    expect(await failure(`${server.url}/public/app.git`, { maxBytes: 200 })).toBe(
      'RepositoryImportError: The remote repository is larger than 200 bytes',
    );
    const stopping = new AbortController();
    const stopped = failure(`${server.url}/stall/app.git`, { signal: stopping.signal });
    stopping.abort(new Error('closing'));
    expect(await stopped).toBe('Error: closing');
    expect(existsSync(store.path('default', 1))).toBe(false);
    expect(readdirSync(dirname(store.path('default', 1)))).toEqual([]);
  });
});

describe.runIf(hasGit)('fork and import jobs', () => {
  let t: TestHosting;
  let storage: string;
  let server: Awaited<ReturnType<typeof gitHttpServer>>;
  let served: string;
  let work: string;
  /** Queues the repository jobs; the hosting instance's own workers run them. */
  let queuer: JobQueue;
  let repositories: RepositoryStore;
  const SECRET_KEY = 'the jobs test instance secret key';
  const secrets = new SecretBox(SECRET_KEY);
  beforeAll(async () => {
    storage = temporaryDirectory('storage');
    // The remote is a local server: local requests allowed (test/imports.test.ts checks that they are refused otherwise).
    t = await startHosting({ storage, secretKey: SECRET_KEY, allowLocalRequests: true });
    repositories = new RepositoryStore({ default: storage });
    queuer = new JobQueue(t.db, silentLogger);
    registerRepositoryJobs(queuer, { db: t.db, repositories, secrets, localRequestsAllowed: async () => true });
    work = workingRepository();
    served = temporaryDirectory('served');
    git(['clone', '-q', '--bare', work, join(served, 'app.git')]);
    server = await gitHttpServer(served, { bob: 'hunter2' });
  });
  afterAll(async () => {
    await queuer?.close();
    await server?.close();
    await t?.close();
  });

  const projectRow = async (id: number) =>
    (await queryRows(t.db.rows, sql`select import_status, import_error, import_url from projects where id = ${id}`))[0] as {
      import_status: string;
      import_error: string | null;
      import_url: string | null;
    };

  let counter = 0;
  /** A project as the fork or import endpoint leaves it: scheduled, with the job queued in the same transaction. */
  async function scheduled(
    kind: string,
    fields: { importUrl?: string; sourceProjectId?: number } = {},
  ): Promise<{ projectId: number; jobId: number }> {
    const { id: projectId } = await t.hosting.projects.create({ name: `target-${++counter}` });
    const jobId = await t.db.fork().transactional(async (em) => {
      // Sealed as the endpoint seals it, with the instance's key.
      const importUrl = fields.importUrl === undefined ? null : secrets.seal(fields.importUrl);
      await queryRows(
        em,
        sql`update projects set import_status = 'scheduled', import_url = ${importUrl}, forked_from_id = ${fields.sourceProjectId ?? null}
          where id = ${projectId}`,
      );
      return queuer.enqueue(em, kind, kind === FORK_REPOSITORY ? { projectId, sourceProjectId: fields.sourceProjectId } : { projectId });
    });
    return { projectId, jobId };
  }

  it("copies a fork's repository from its source, and the project's import_status ends finished", async () => {
    const { id: sourceId } = await t.hosting.projects.create({ name: 'fork-source' });
    git(['push', '-q', repositories.path('default', sourceId), '--all'], work);
    git(['push', '-q', repositories.path('default', sourceId), '--tags'], work);
    const { projectId, jobId } = await scheduled(FORK_REPOSITORY, { sourceProjectId: sourceId });
    expect(await t.hosting.backgroundJobs.settled(jobId)).toEqual({ id: jobId, kind: FORK_REPOSITORY, status: 'finished', error: null });
    expect(await projectRow(projectId)).toMatchObject({ import_status: 'finished', import_error: null });
    expect(contentsOf(repositories.path('default', projectId))).toEqual(contentsOf(repositories.path('default', sourceId)));
    expect((await t.hosting.projects.get(projectId)).import_status).toBe('finished');
  });

  it('POST /projects with import_url answers at once (scheduled); the job imports the remote, whose URL is stored sealed', async () => {
    const url = `${server.url.replace('//', '//bob:hunter2@')}/private/app.git`;
    const res = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ name: 'imported through the API', import_url: url });
    expect([res.status, res.body.import_status, res.body.import_error]).toEqual([201, 'scheduled', null]);
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    await t.hosting.backgroundJobs.drain();
    const imported = await t.hosting.projects.get(res.body.id);
    // The default branch is the one the remote's HEAD names.
    expect([imported.import_status, imported.default_branch]).toEqual(['finished', 'main']);
    expect(contentsOf(repositories.path('default', res.body.id))).toEqual(contentsOf(join(served, 'app.git')));
    expect((await projectRow(res.body.id)).import_url).not.toContain('hunter2');
    const ftp = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ name: 'ftp import', import_url: 'ftp://example.com/app.git' });
    expect([ftp.status, ftp.body]).toEqual([400, { message: { import_url: ['is blocked: Only allowed protocols are http, https'] } }]);
    const invalid = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ name: 'no url', import_url: 'not a url' });
    expect(invalid.body).toEqual({ message: { import_url: ['is not a valid URL'] } });
  });

  it("imports a project's repository from its import_url, credentials included", async () => {
    const { projectId } = await scheduled(IMPORT_REPOSITORY, {
      importUrl: `${server.url.replace('//', '//bob:hunter2@')}/private/app.git`,
    });
    await t.hosting.backgroundJobs.drain();
    expect(await projectRow(projectId)).toMatchObject({ import_status: 'finished', import_error: null });
    expect(contentsOf(repositories.path('default', projectId))).toEqual(contentsOf(join(served, 'app.git')));
  });

  it('ends an import that fails in failed, saying why without the credentials, with an empty repository', async () => {
    const unreachable = await scheduled(IMPORT_REPOSITORY, { importUrl: `http://bob:hunter2@127.0.0.1:${await closedPort()}/app.git` });
    const refused = await scheduled(IMPORT_REPOSITORY, {
      importUrl: `${server.url.replace('//', '//bob:wrong-hunter2@')}/private/app.git`,
    });
    await t.hosting.backgroundJobs.drain();
    expect(await projectRow(unreachable.projectId)).toMatchObject({ import_status: 'failed', import_error: REMOTE_FAILED });
    expect(await projectRow(refused.projectId)).toMatchObject({ import_status: 'failed', import_error: REMOTE_FAILED });
    // The job did its work: the failure is the project's, not to be retried.
    expect(await t.hosting.backgroundJobs.settled(refused.jobId)).toMatchObject({ status: 'finished', error: null });
    expect(git(['--git-dir', repositories.path('default', refused.projectId), 'rev-parse', '--is-bare-repository']).trim()).toBe('true');
  });

  it('does nothing for a project deleted before its job ran, and removes what it wrote for one deleted while it ran', async () => {
    const { id: sourceId } = await t.hosting.projects.create({ name: 'deleted-source' });
    // The project goes in the transaction that queued the job: the job finds nothing to do.
    const { id: goneId } = await t.hosting.projects.create({ name: `target-${++counter}` });
    await repositories.remove('default', goneId);
    const goneJob = await t.db.fork().transactional(async (em) => {
      const jobId = await queuer.enqueue(em, FORK_REPOSITORY, { projectId: goneId, sourceProjectId: sourceId });
      await queryRows(em, sql`delete from projects where id = ${goneId}`);
      return jobId;
    });
    expect(await t.hosting.backgroundJobs.settled(goneJob)).toMatchObject({ status: 'finished' });
    expect(existsSync(repositories.path('default', goneId))).toBe(false);

    // The import's remote answers once the project is gone: what the import wrote is removed.
    const during = await scheduled(IMPORT_REPOSITORY, { importUrl: `${server.url}/held/app.git` });
    await eventually(async () => expect(server.holding()).toBe(1));
    expect((await projectRow(during.projectId)).import_status).toBe('started');
    await t.hosting.projects.delete(during.projectId);
    expect(existsSync(repositories.path('default', during.projectId))).toBe(false);
    server.release();
    expect(await t.hosting.backgroundJobs.settled(during.jobId)).toMatchObject({ status: 'finished' });
    expect(server.answered).toContain('POST /held/app.git/git-upload-pack');
    expect(existsSync(repositories.path('default', during.projectId))).toBe(false);
  });

  it('ends a fork whose job was given up (interrupted on its last attempt) in failed', async () => {
    const { id: sourceId } = await t.hosting.projects.create({ name: 'given-up-source' });
    const { id: projectId } = await t.hosting.projects.create({ name: `target-${++counter}` });
    // As a worker that died in the job's last run leaves it: running, its lease lapsed.
    const jobId = await t.db.fork().transactional(async (em) => {
      await queryRows(em, sql`update projects set import_status = 'started' where id = ${projectId}`);
      const jobId = await queuer.enqueue(em, FORK_REPOSITORY, { projectId, sourceProjectId: sourceId });
      await queryRows(
        em,
        sql`update jobs set status = 'running', attempts = max_attempts, locked_by = 'dead', locked_until = now() where id = ${jobId}`,
      );
      return jobId;
    });
    expect(await t.hosting.backgroundJobs.settled(jobId)).toMatchObject({ status: 'failed', error: 'interrupted 3 times' });
    expect(await projectRow(projectId)).toMatchObject({ import_status: 'failed', import_error: 'The repository could not be copied' });
  });
});
