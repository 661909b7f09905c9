import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { inject } from 'vitest';
import { openDatabase, useMemoryTemplate, type Database } from '../src/db/orm.js';
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
  close(): Promise<void>;
}

// In-memory databases start from the run's migrated data directory (test/global-setup.ts).
const memoryTemplate = inject('memoryTemplate');
if (memoryTemplate) useMemoryTemplate(new Blob([readFileSync(memoryTemplate)]));

/**
 * A fresh service for one test file: in-memory PGlite, or, when FORGEKIT_TEST_DATABASE_URL is set,
 * an isolated database of its own on that PostgreSQL server (dropped on close).
 */
export async function startHosting(options: HostingOptions = {}): Promise<TestHosting> {
  const database = options.database ?? { url: process.env.FORGEKIT_TEST_DATABASE_URL || undefined, isolated: true };
  const db = await openDatabase(database);
  const hosting = await createHostingServiceOn(db, { rootToken: ROOT_TOKEN, rootPassword: ROOT_PASSWORD, checkResponses: true, ...options, database });
  const app = express();
  app.use(hosting.router());
  return { hosting, db, app, http: request(app), close: () => hosting.close() };
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

/** The SQL statements `work` runs on `db`, read from the ORM's query log (not the job workers' own, which no call makes). */
export async function queriesOf(db: Database, work: () => Promise<unknown>): Promise<string[]> {
  const logger = db.orm.config.getLogger();
  const logQuery = logger.logQuery.bind(logger);
  const queries: string[] = [];
  logger.logQuery = (context) => {
    if (!context.query?.startsWith(WORKER_STATEMENT)) queries.push(context.query ?? '');
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
