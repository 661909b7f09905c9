/**
 * When the database fails a call: the health endpoints say so to a balancer, and a call that meets a lock past its
 * timeout, its own deadline or a connection ended under it answers 503 with Retry-After, rolls back, and leaves the pool
 * whole (docs/operations.md). The PostgreSQL cases run on the PostgreSQL suite; the cut-off server is test/fleet.test.ts's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/rows.js';
import { sql } from '../src/db/sql.js';
import type { HostingOptions } from '../src/types.js';
import { eventually, freshDatabase, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';
import { Processes, runGathering } from './processes.js';
import { TcpProxy } from './tcp-proxy.js';

const postgres = process.env.FORGEKIT_TEST_DATABASE_URL;
const processes = new Processes();
afterAll(() => processes.stopAll());

describe('the health endpoints', () => {
  it('answer without a token: alive, healthy, ready; not ready (503) once a storage is gone, naming it', async () => {
    const storage = mkdtempSync(join(tmpdir(), 'forgekit-health-'));
    const t = await startHosting({ storage });
    try {
      const live = await t.http.get('/-/liveness').set('PRIVATE-TOKEN', 'not a token');
      expect([live.status, live.body]).toEqual([200, { status: 'ok' }]);
      const health = await t.http.get('/-/health');
      expect([health.status, health.headers['content-type'], health.text]).toEqual([200, 'text/plain', 'GitLab OK']);
      const ready = {
        status: 'ok',
        db_check: { status: 'ok' },
        queues_check: { status: 'ok' },
        fs_shards_check: [{ status: 'ok', labels: { shard: 'default' } }],
      };
      const res = await t.http.get('/-/readiness');
      expect([res.status, res.body]).toEqual([200, ready]);
      expect(await t.hosting.health.readiness()).toEqual(ready);

      rmSync(storage, { recursive: true });
      const gone = await t.http.get('/-/readiness');
      expect(gone.status).toBe(503);
      expect(gone.body).toEqual({
        ...ready,
        status: 'failed',
        fs_shards_check: [{ status: 'failed', message: expect.stringContaining('ENOENT'), labels: { shard: 'default' } }],
      });
    } finally {
      await t.close();
    }
  });
});

describe.runIf(postgres)('calls the PostgreSQL database fails', { timeout: 60_000 }, () => {
  /** A service on an isolated database, a project of root's, and a session of the test's own on that database. */
  async function withDatabase(
    database: HostingOptions['database'],
    work: (t: TestHosting, id: number, own: pg.Client) => Promise<void>,
    options: HostingOptions = {},
  ) {
    const t = await startHosting({ ...options, database: { url: postgres, isolated: true, ...database } });
    const [{ name }] = await queryRows(t.db.rows, sql`select current_database() as "name"`);
    const url = new URL(postgres!);
    url.pathname = `/${name}`;
    const own = new pg.Client({ connectionString: url.toString() });
    await own.connect();
    try {
      const project = await t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ name: 'failing' });
      expect(project.status).toBe(201);
      await work(t, project.body.id, own);
    } finally {
      await own.end().catch(() => {});
      await t.close();
    }
  }

  const issueCount = async (own: pg.Client) => Number((await own.query('select count(*) as "count" from issues')).rows[0].count);

  it('answers 503 with Retry-After, over HTTP and in process, for a lock held past lock_timeout; nothing is written', async () => {
    await withDatabase({ lockTimeout: 1 }, async (t, id, own) => {
      await own.query('begin');
      await own.query('lock table issues in access exclusive mode');
      const res = await t.http.post(`/api/v4/projects/${id}/issues`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ title: 'Locked out' });
      expect([res.status, res.headers['retry-after'], res.body]).toEqual([
        503,
        '1',
        { message: '503 Service Unavailable - the database is unavailable for now' },
      ]);
      await expect(t.hosting.issues.create(id, { title: 'Locked out' })).rejects.toMatchObject({ status: 503, retryAfter: 1 });
      await own.query('rollback');
      expect(await issueCount(own)).toBe(0);
    });
  });

  it('answers 503 once a call runs past its deadline, and rolls it back when it gets to the database again', async () => {
    await withDatabase(
      { lockTimeout: 0 },
      async (t, id, own) => {
        await own.query('begin');
        await own.query('lock table issues in access exclusive mode');
        const started = Date.now();
        await expect(t.hosting.issues.create(id, { title: 'Too late' })).rejects.toMatchObject({
          status: 503,
          retryAfter: 1,
          message: '503 Service Unavailable - the call ran past its deadline',
        });
        expect(Date.now() - started).toBeLessThan(5_000);
        // The call goes on waiting for the lock; once it has it, it rolls back rather than commit.
        await own.query('rollback');
        await eventually(async () => expect(await t.hosting.issues.create(id, { title: 'In time' })).toMatchObject({ iid: 1 }));
        expect((await own.query('select title from issues')).rows).toEqual([{ title: 'In time' }]);
      },
      { requestTimeout: 1 },
    );
  });

  it('answers 503 to calls whose connections are ended under them, and the pool gives the next calls new ones', async () => {
    await withDatabase({ poolSize: 2, connectTimeout: 5 }, async (t, id, own) => {
      await own.query('begin');
      await own.query('lock table issues in access exclusive mode');
      // More calls than connections, each holding one inside its transaction or waiting for one.
      const calls = Array.from({ length: 6 }, (_, index) =>
        t.http
          .post(`/api/v4/projects/${id}/issues`)
          .set('PRIVATE-TOKEN', ROOT_TOKEN)
          .send({ title: `Cut ${index}` })
          // Sent now: supertest sends a request once it is awaited.
          .then((res) => res),
      );
      const waiting = `select count(*) as "count" from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
      await eventually(async () => expect(Number((await own.query(waiting)).rows[0].count)).toBe(2));
      await own.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      await own.query('rollback');
      const answers = await Promise.all(calls);
      for (const res of answers) {
        expect([201, 503]).toContain(res.status);
        if (res.status === 503) expect(res.headers['retry-after']).toBe('1');
      }
      expect(answers.filter((res) => res.status === 503).length).toBeGreaterThanOrEqual(2);
      // Every connection the pool had was ended: the next calls get new ones at once.
      for (let index = 0; index < 4; index++) {
        const started = Date.now();
        const res = await t.http
          .post(`/api/v4/projects/${id}/issues`)
          .set('PRIVATE-TOKEN', ROOT_TOKEN)
          .send({ title: `After ${index}` });
        expect(res.status).toBe(201);
        expect(Date.now() - started).toBeLessThan(4_000);
      }
      const created = answers.filter((res) => res.status === 201).length;
      expect(await issueCount(own)).toBe(created + 4);
    });
  });

  it('serves writes with a pool of one connection: no call waits for a second while it holds one in its transaction', async () => {
    // A call that did would wait for the connection it holds itself: 503 after the connect timeout.
    await withDatabase({ poolSize: 1, connectTimeout: 5 }, async (t, id) => {
      const api = t.hosting;
      await api.repositoryFiles.create(id, 'README.md', { branch: 'master', content: '# Hi\n', commit_message: 'Start' });
      await api.commits.create(id, {
        branch: 'feature',
        start_branch: 'master',
        commit_message: 'Feature',
        actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }],
      });
      const issue = await api.issues.create(id, { title: 'One connection' });
      await api.issueNotes.create(id, issue.iid, { body: 'Still one' });
      const request = await api.mergeRequests.create(id, { source_branch: 'feature', target_branch: 'master', title: 'Review' });
      expect(await api.mergeRequests.merge(id, request.iid, {})).toMatchObject({ state: 'merged' });
      // A write that changes the settings, which every process keeps: the next calls read them again.
      await t.http.put('/api/v4/application/settings').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ default_projects_limit: 7 }).expect(200);
      expect(await api.users.create({ email: 'one@example.com', username: 'one', name: 'One', password: 'one-password-1' })).toMatchObject({
        projects_limit: 7,
      });
      await api.projects.fork(id, { namespace: 'one', path: 'fork', name: 'fork' });
      await api.backgroundJobs.drain();
      expect(await api.projects.get('one/fork')).toMatchObject({ import_status: 'finished' });
    });
  });

  it('starts `forgekit serve` while the server cannot be reached: ready (and serving) once it can', async () => {
    const proxy = await TcpProxy.start(Number(new URL(postgres!).port || 5432), new URL(postgres!).hostname);
    proxy.refuse(true);
    const port = await freePort();
    const database = await freshDatabase();
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'forgekit-unreachable-'));
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const server = runGathering(
      processes,
      process.execPath,
      [cli, 'serve', '--port', String(port), '--database-url', url.toString(), '--data-dir', dataDir],
      {
        env: { ...process.env, DATABASE_URL: '', FORGEKIT_ROOT_TOKEN: ROOT_TOKEN },
      },
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      const live = await eventually(async () => (await fetch(`${base}/-/liveness`)).status);
      expect(live).toBe(200);
      const ready = await fetch(`${base}/-/readiness`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'failed', db_check: { status: 'failed' } });
      const version = await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': ROOT_TOKEN } });
      expect([version.status, version.headers.get('retry-after'), await version.json()]).toEqual([
        503,
        '1',
        { message: '503 Service Unavailable - starting' },
      ]);
      proxy.refuse(false);
      await eventually(async () => expect((await fetch(`${base}/-/readiness`)).status).toBe(200), 30_000);
      const served = await fetch(`${base}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': ROOT_TOKEN } });
      expect(served.status).toBe(200);
      expect(server.output()).toContain('trying again in');
    } finally {
      processes.stop(server.child);
      await proxy.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
