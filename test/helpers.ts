import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { inject } from 'vitest';
import { openDatabase, useMemoryTemplate, type Database } from '../src/database.js';
import { processCacheLoad } from '../src/db/process-cache.js';
import { createHostingServiceOn } from '../src/hosting.js';
import { WORKER_STATEMENT } from '../src/jobs/queue.js';
import type { HostingOptions, HostingService } from '../src/index.js';

export const ROOT_TOKEN = 'root-private-token-0001';
export const ROOT_PASSWORD = 'root-password-0001';

export interface TestHosting {
  hosting: HostingService;
  /** The service's database, for what no endpoint can do (turning on two-factor, reading stored digests). */
  db: Database;
  /** An Express app with only the router mounted at its root. */
  app: express.Express;
  http: ReturnType<typeof request>;
  /** Back to the state of a fresh instance, for a fraction of what a new one costs (`hosting.reset()`). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

// In-memory databases start from the run's migrated data directory (test/global-setup.ts).
useMemoryTemplate(new Blob([readFileSync(inject('memoryTemplate'))]));

/**
 * A data directory (`directory`, or a new temporary one) that `forgekit serve --data-dir` or `{ database: { dataDir } }`
 * finds migrated: a copy of the run's (test/global-setup.ts), so that its first start makes root but spends nothing
 * on initdb and the migrations. The caller removes it.
 */
export function migratedDataDir(directory = mkdtempSync(join(tmpdir(), 'forgekit-test-data-'))): string {
  mkdirSync(directory, { recursive: true });
  cpSync(inject('migratedDataDir'), directory, { recursive: true });
  return directory;
}

/** This run's seed (test/global-setup.ts prints it; FORGEKIT_TEST_SEED sets it). */
export const SEED = inject('seed');

/**
 * `count` of `items` (all of them when there are no more), in their order, chosen by the run's seed and `key`:
 * another run tries others, and the same seed and key choose the same ones whatever else runs (`-t` included).
 */
export function sampled<T>(items: readonly T[], count: number, key: string): T[] {
  if (items.length <= count) return [...items];
  const ranks = items.map((_, index) => createHash('sha256').update(`${SEED}\0${key}\0${index}`).digest('hex'));
  const chosen = new Set([...ranks.keys()].sort((a, b) => ranks[a].localeCompare(ranks[b])).slice(0, count));
  return items.filter((_, index) => chosen.has(index));
}

/**
 * A new service: in-memory PGlite, or, when FORGEKIT_TEST_DATABASE_URL is set, an isolated database of its own on
 * that PostgreSQL server (dropped on close). For a test file's service, `sharedHosting` costs less.
 */
export async function startHosting(options: HostingOptions = {}): Promise<TestHosting> {
  const database = options.database ?? { url: process.env.FORGEKIT_TEST_DATABASE_URL || undefined, isolated: true };
  const db = await openDatabase(database);
  const hosting = await createHostingServiceOn(db, {
    rootToken: ROOT_TOKEN,
    rootPassword: ROOT_PASSWORD,
    checkResponses: true,
    testDouble: true,
    ...options,
    database,
  });
  const app = express();
  app.use(hosting.router());
  return { hosting, db, app, http: request(app), reset: () => hosting.reset(), close: () => hosting.close() };
}

/**
 * Services their files handed back, by their options, for the next files of this worker (test/vitest.config.ts
 * `isolate: false`), the latest last; with what really closes each.
 */
const handedBack = new Map<string, { shared: SharedHosting; close(): Promise<void> }>();
/** How many a worker keeps: each holds its database's memory (some 200 MB), and most files ask for one of two. */
const KEPT = 2;

export type SharedHosting = TestHosting & {
  /** The directory of its repositories (the default storage). */
  storage: string;
};

/**
 * A service in a fresh instance's state, for a test file (or a block of tests) that `close()`s it when done: on
 * PGlite, the one an earlier file of this worker handed back with the same options, reset, for a fraction of what a
 * new one costs. A new one the first time, on PostgreSQL (whose isolated databases are dropped on close), and for
 * options that hold functions (a logger).
 */
export async function sharedHosting(options: Omit<HostingOptions, 'database' | 'storage'> = {}): Promise<SharedHosting> {
  const key = process.env.FORGEKIT_TEST_DATABASE_URL || options.logger ? undefined : JSON.stringify(options);
  const kept = key === undefined ? undefined : handedBack.get(key)?.shared;
  if (kept) {
    handedBack.delete(key!);
    await kept.reset();
    return kept;
  }
  // Removed with the run's other scratch files (test/global-setup.ts), as a kept service's is never closed.
  const storage = mkdtempSync(join(inject('scratch'), 'storage-'));
  const t = await startHosting({ ...options, storage });
  if (key === undefined) return { ...t, storage };
  const shared: SharedHosting = {
    ...t,
    storage,
    async close() {
      handedBack.set(key, { shared, close: t.close });
      for (const [oldest, { close }] of [...handedBack].slice(0, -KEPT)) {
        handedBack.delete(oldest);
        await close();
      }
    },
  };
  return shared;
}

/** A new, empty database on the FORGEKIT_TEST_DATABASE_URL server, shared by several services or processes, and how to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.FORGEKIT_TEST_DATABASE_URL;
  if (!server) throw new Error('FORGEKIT_TEST_DATABASE_URL is not set');
  const name = `forgekit_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(server, `create database "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(server, `drop database if exists "${name}" with (force)`) };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

let counter = 0;

/** Creates a user through the API as root and returns it with a private token of its own. */
export async function createUser(
  hosting: HostingService,
  overrides: Record<string, unknown> = {},
): Promise<{ id: number; username: string; email: string; token: string; password: string }> {
  counter += 1;
  const suffix = `${process.pid}x${counter}`;
  const password = 'secret-password-1';
  const user = await hosting.users.create({
    email: `user${suffix}@example.com`,
    username: `user${suffix}`,
    name: `User ${suffix}`,
    password,
    skip_confirmation: true,
    ...overrides,
  } as Parameters<HostingService['users']['create']>[0]);
  const token = await hosting.personalAccessTokens.create(user.id, { name: 'test', scopes: ['api'] });
  return { id: user.id, username: user.username, email: user.email, token: token.token, password };
}

/** The user reference answers embed for a user `createUser` made (its avatar from the avatar service), at `baseUrl`. */
export function userReference(user: { id: number; username: string; email: string }, baseUrl: string) {
  return {
    id: user.id,
    name: `User ${user.username.slice(4)}`,
    username: user.username,
    state: 'active',
    avatar_url: `https://www.gravatar.com/avatar/${createHash('md5').update(user.email).digest('hex')}?s=80&d=identicon`,
    web_url: `${baseUrl}/${user.username}`,
  };
}

/** A `Link` header as rel → URL; throws on a part that is not `<url>; rel="name"`. */
export function linkHeader(header: string | undefined): Record<string, string> {
  if (!header) throw new Error('no Link header');
  return Object.fromEntries(
    header.split(', ').map((part) => {
      const match = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
      if (!match) throw new Error(`malformed Link part: ${part}`);
      return [match[2], match[1]];
    }),
  );
}

/** The six `X-*` pagination headers of a list answer, as numbers (null where the header is empty). */
export function pageHeaders(headers: Record<string, string>): Record<string, number | null> {
  const read = (name: string) => (headers[name] === '' ? null : Number(headers[name]));
  return {
    total: read('x-total'),
    totalPages: read('x-total-pages'),
    perPage: read('x-per-page'),
    page: read('x-page'),
    nextPage: read('x-next-page'),
    prevPage: read('x-prev-page'),
  };
}

/**
 * The SQL statements `work` runs on `db`, read from the ORM's query log: not the job workers' own, which no call makes,
 * nor (unless `cacheReads`) the process caches' reads of the settings and of a token, made once in ten seconds by
 * whichever call comes first (src/db/process-cache.ts).
 */
export async function queriesOf(db: Database, work: () => Promise<unknown>, options: { cacheReads?: boolean } = {}): Promise<string[]> {
  const logger = db.orm.config.getLogger();
  const logQuery = logger.logQuery.bind(logger);
  const queries: string[] = [];
  logger.logQuery = (context) => {
    if (context.query?.startsWith(WORKER_STATEMENT)) return;
    if (!options.cacheReads && processCacheLoad.getStore()) return;
    queries.push(context.query ?? '');
  };
  try {
    await work();
  } finally {
    logger.logQuery = logQuery;
  }
  return queries;
}

/** Polls until `check` passes, or throws its last failure once `timeoutMs` have gone. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Whether the native `git` is installed: tests check forgekit's repositories with it where it is. */
export const hasGit = (() => {
  try {
    execFileSync('git', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

/**
 * `git fsck --full` of a repository: nothing wrong (objects no reference names, which a write cut short leaves, are
 * not wrong: `git gc` removes them), its notices aside (a repository whose first write was cut short is empty:
 * `notice: HEAD points to an unborn branch`). `0 ` when clean.
 */
export function fsck(gitdir: string): string {
  const result = spawnSync('git', ['--git-dir', gitdir, 'fsck', '--full', '--strict', '--no-dangling'], { encoding: 'utf8' });
  const output = `${result.stdout}${result.stderr}`
    .split('\n')
    .filter((line) => !line.startsWith('notice: '))
    .join('\n');
  return `${result.status} ${output}`;
}
