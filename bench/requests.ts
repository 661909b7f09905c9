/**
 * Requests: what forgekit costs per request next to the bare floor (bench/lib/bare.ts), on PostgreSQL and on
 * in-memory PGlite. For each request, forgekit and the bare servers run in this process in alternating rounds
 * under the same load from a separate process (autocannon); this process's CPU time per request served is the
 * server's CPU per request. On a shared, noisy machine the ratios between neighbouring rounds are what to read.
 *
 * Before measuring, each request is sent twice to both sides, the SQL they send the second time recorded (a hook on
 * the drivers' query methods; job workers' statements left out): the statements must match one for one, text and
 * bound values, and so must status, headers and JSON.
 *
 * The requests run on one of four data sets, each written into a database of its own: 150 users (`users`),
 * 10,000 projects of which the user is a member of 1,000 (`projects`, bench/lib/projects-seed.ts), a project of
 * 1,000 issues of which the user is a reporter (`issues`), or a project of 20,000 merge requests, each from a branch
 * of its own in the project's repository, of which the user is a reporter (`merge requests`,
 * bench/lib/merge-requests-seed.ts). The merge requests' requests run at 20 connections, the others at 10.
 *
 * Once seeded, a data set's tables are analysed and vacuumed, as a server up for a minute has them (PostgreSQL's
 * autovacuum, forgekit's own maintenance on PGlite: src/db/embedded-maintenance.ts).
 *
 * GET /projects/:id/merge_requests/:iid reads the repository as well as the database: the changes count, from the
 * merge base to the source branch's head (the merge base and merge status are kept in the row once worked out, so
 * after the first GET no merge is tried). The bare handler (bench/lib/bare-merge-requests.ts) does the same reads
 * with isomorphic-git and a cache of its own of the parsed commits and trees, as forgekit keeps them.
 *
 * FORGEKIT_BENCH_DATABASE_URL: the PostgreSQL server (postgres://postgres@127.0.0.1:5432/test); a new database
 *   is made on it for the run and dropped afterwards.
 * FORGEKIT_BENCH_SECONDS (2), FORGEKIT_BENCH_ROUNDS (3): length of a round, rounds per server.
 * FORGEKIT_BENCH_ONLY: a regular expression; only the requests whose "<database> <request>" it matches (to profile
 *   one: 'PostgreSQL GET /api/v4/user$'); a data set is written only when one of its requests is kept.
 * FORGEKIT_BENCH_SHOW_SQL: set, every statement of both sides is printed as they are compared.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import express from 'express';
import pg from 'pg';
import { API_VERSION, FORGEKIT_VERSION, createHostingService, type HostingService } from 'forgekit';
import { bareServer, expressVersionApp, type BareDatabase } from './lib/bare.ts';
import { benchDatabase } from './lib/database.ts';
import { Loader, Tracker, type LoadRequest, type Round } from './lib/load.ts';
import { SecretBox } from '../src/auth/secret-box.ts';
import { maintainTables } from '../src/db/embedded-maintenance.ts';
import { sql } from '../src/db/sql.ts';
import { MERGE_REQUESTS, ONE_MERGE_REQUEST, seedMergeRequests } from './lib/merge-requests-seed.ts';
import { ONE_PROJECT, PROJECTS, seedProjects, seedReader } from './lib/projects-seed.ts';
import { fingerprint, sshKey } from './lib/ssh-key.ts';

const SECONDS = Number(process.env.FORGEKIT_BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.FORGEKIT_BENCH_ROUNDS ?? 3);
const ONLY = new RegExp(process.env.FORGEKIT_BENCH_ONLY ?? '');
const CONNECTIONS = 10;
/** Users in the database: more than the page of 100 that the list requests. */
const USERS = 150;
/** Both sides answer with this external URL (`web_url`, `Link`), so that their answers are byte for byte alike. */
const BASE_URL = 'http://forgekit.bench';
const ROOT_TOKEN = 'bench-root-token';
/** The instance's secret key, which the bare handler opens the runners tokens with too. */
const SECRET_KEY = 'forgekit-bench-secret-key-0123456789abcdef';
const VERSION = { version: API_VERSION, revision: `forgekit-${FORGEKIT_VERSION}` };
/** The issues in the issues' project. */
const ISSUES = 1_000;
/** The issues' project: the first made in its database. */
const ISSUES_PROJECT = 1;
/** The merge requests' project: the first made in its database. */
const MERGE_REQUESTS_PROJECT = 1;
/** The merge requests' targets: p90 of the list, and CPU per request within this of the bare handler's. */
const MERGE_REQUESTS_P90_MS = 100;
const MERGE_REQUESTS_CPU_RATIO = 2.5;

// ---- The SQL each side sends, recorded while `recording` is set: each statement's text and bound values.

/** A statement as it reached the database. */
interface Sent {
  text: string;
  values: unknown[];
}

let recording: Sent[] | undefined;

/**
 * How job workers' statements begin (`WORKER_STATEMENT` of src/jobs/queue.ts, which Node.js cannot import from
 * source: it only strips types, and that file has parameter properties).
 */
const WORKER_STATEMENT = '/* forgekit job worker */';

/** pg's and PGlite's `query(text, values)`, or pg's `query({ text, values })`. */
function record(statement: unknown, values: unknown): void {
  if (!recording) return;
  const text = typeof statement === 'string' ? statement : (statement as { text: string }).text;
  // Job workers poll and claim when they will, unasked by either side's request: never compared.
  if (text.startsWith(WORKER_STATEMENT)) return;
  recording.push({ text, values: (Array.isArray(values) ? values : (statement as { values?: unknown[] }).values) ?? [] });
}

function hookQuery(prototype: { query: (...args: never[]) => unknown }): void {
  const query = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    record(args[0], args[1]);
    return Reflect.apply(query, this, args);
  };
}
// forgekit's ORM reaches PostgreSQL through its own copy of `pg`.
const ormPg = createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg') as typeof pg;
for (const Client of new Set([pg.Client, ormPg.Client])) hookQuery(Client.prototype);
hookQuery(PGlite.prototype);
const transaction = PGlite.prototype.transaction;
PGlite.prototype.transaction = function <T>(this: PGlite, work: (tx: Transaction) => Promise<T>) {
  return transaction.call(this, (tx) => {
    hookQuery(tx);
    return work(tx);
  }) as Promise<T>;
};

// ---- The databases.

interface Setup {
  /** What the bare handler queries with. */
  driver: string;
  hosting: HostingService;
  bare: BareDatabase;
  /** Where forgekit keeps its repositories. */
  storage: string;
  /**
   * What a server up for a minute has done to the seeded tables: autovacuum's (PostgreSQL) or forgekit's own (PGlite) analyse and vacuum.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Timestamps stay PostgreSQL's text, as forgekit's ORM has them. */
const RAW_TEXT_TYPES = new Set([1082, 1114, 1184, 1186]);

async function postgresql(): Promise<Setup> {
  const { url, drop } = await benchDatabase();
  let hosting: HostingService;
  // The seed's projects have no commits: their repositories are thrown away with the database.
  const storage = mkdtempSync(join(tmpdir(), 'forgekit-bench-repositories-'));
  try {
    hosting = await createHostingService({ database: { url }, storage, rootToken: ROOT_TOKEN, baseUrl: BASE_URL, secretKey: SECRET_KEY });
  } catch (error) {
    await drop();
    throw error;
  }
  // As many connections as forgekit's pool (pg's default, 10).
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        RAW_TEXT_TYPES.has(oid) ? String : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // pg's pool.end() resolves before its connections have closed: the drop below may cut one short.
  pool.on('error', () => {});
  return {
    driver: 'pg',
    hosting,
    storage,
    bare: {
      query: async (statement) => (await pool.query(statement.text, statement.values)).rows,
      async transaction(work) {
        const client = await pool.connect();
        try {
          await client.query('begin');
          const result = await work({ query: async (statement) => (await client.query(statement.text, statement.values)).rows });
          await client.query('commit');
          return result;
        } catch (error) {
          await client.query('rollback');
          throw error;
        } finally {
          client.release();
        }
      },
    },
    async settle() {
      await pool.query('vacuum analyze');
    },
    async close() {
      await hosting.close();
      await pool.end();
      await drop();
      rmSync(storage, { recursive: true, force: true });
    },
  };
}

async function pglite(): Promise<Setup> {
  // forgekit opens its embedded database itself; the bare handler must query that very instance (and gets the
  // ORM's type parsers with it).
  const create = PGlite.create;
  let instance: PGlite | undefined;
  PGlite.create = (async (...args: unknown[]) => (instance = await Reflect.apply(create, PGlite, args))) as typeof create;
  let hosting: HostingService;
  const storage = mkdtempSync(join(tmpdir(), 'forgekit-bench-repositories-'));
  try {
    hosting = await createHostingService({ rootToken: ROOT_TOKEN, baseUrl: BASE_URL, secretKey: SECRET_KEY, storage });
  } catch (error) {
    rmSync(storage, { recursive: true, force: true });
    throw error;
  } finally {
    PGlite.create = create;
  }
  const db = instance!;
  return {
    driver: 'PGlite',
    hosting,
    storage,
    bare: {
      query: async (statement) => (await db.query<Record<string, unknown>>(statement.text, statement.values)).rows,
      transaction: (work) =>
        db.transaction((tx) =>
          work({ query: async (statement) => (await tx.query<Record<string, unknown>>(statement.text, statement.values)).rows }),
        ),
    },
    settle: async () => void (await maintainTables(db)),
    async close() {
      await hosting.close();
      rmSync(storage, { recursive: true, force: true });
    },
  };
}

// ---- The requests.

interface Endpoint {
  name: string;
  /** The data it runs on (each in a database of its own): `DATA_SETS`, `users` unless said. */
  data?: keyof typeof DATA_SETS;
  method: 'GET' | 'POST';
  path: string;
  /** A normal user with a personal access token, or the administrator root. */
  as: 'user' | 'root';
  body?: LoadRequest['body'];
  /** Also beside a bare Express app (GET /version only). */
  express?: boolean;
  /** Concurrent connections of the load (CONNECTIONS unless said). */
  connections?: number;
  /** What its p90 (ms) and its CPU per request ÷ the bare handler's must stay under: said beside its rows. */
  target?: { p90?: number; cpuRatio?: number };
}

const ENDPOINTS: Endpoint[] = [
  { name: 'GET /api/v4/version', method: 'GET', path: '/api/v4/version', as: 'user', express: true },
  { name: 'GET /api/v4/user', method: 'GET', path: '/api/v4/user', as: 'user' },
  { name: 'GET /api/v4/users?per_page=100 (user)', method: 'GET', path: '/api/v4/users?per_page=100', as: 'user' },
  { name: 'GET /api/v4/users?per_page=100 (admin)', method: 'GET', path: '/api/v4/users?per_page=100', as: 'root' },
  { name: 'POST /api/v4/user/keys', method: 'POST', path: '/api/v4/user/keys', as: 'user', body: 'sshKey' },
  { name: 'GET /api/v4/projects?per_page=100', data: 'projects', method: 'GET', path: '/api/v4/projects?per_page=100', as: 'user' },
  { name: 'GET /api/v4/projects/:id', data: 'projects', method: 'GET', path: `/api/v4/projects/${ONE_PROJECT}`, as: 'user' },
  {
    name: 'GET /api/v4/projects/:id/issues?per_page=100',
    data: 'issues',
    method: 'GET',
    path: `/api/v4/projects/${ISSUES_PROJECT}/issues?per_page=100`,
    as: 'user',
  },
  {
    name: 'GET /api/v4/projects/:id/merge_requests?per_page=20',
    data: 'merge requests',
    method: 'GET',
    path: `/api/v4/projects/${MERGE_REQUESTS_PROJECT}/merge_requests?per_page=20`,
    as: 'user',
    connections: 20,
    target: { p90: MERGE_REQUESTS_P90_MS, cpuRatio: MERGE_REQUESTS_CPU_RATIO },
  },
  {
    name: 'GET /api/v4/projects/:id/merge_requests/:iid',
    data: 'merge requests',
    method: 'GET',
    path: `/api/v4/projects/${MERGE_REQUESTS_PROJECT}/merge_requests/${ONE_MERGE_REQUEST}`,
    as: 'user',
    connections: 20,
    target: { cpuRatio: MERGE_REQUESTS_CPU_RATIO },
  },
];

/** An endpoint with the token it is called with. */
type Call = Endpoint & { token: string };

/** Users past root, an identity on every tenth (the full shape lists them), and a normal user with a token. */
async function seedUsers(setup: Setup): Promise<string> {
  await setup.bare.query(
    sql`insert into "users" ("username", "username_lower", "name", "email", "projects_limit", "confirmed_at", "created_at", "updated_at")
     select 'bench' || n, 'bench' || n, 'Bench User ' || n, 'bench' || n || '@example.com', 100000, now(), now(), now()
     from generate_series(1, ${USERS - 2}) as n`,
  );
  await setup.bare.query(
    sql`insert into "identities" ("user_id", "provider", "extern_uid") select "id", 'ldap', 'uid=' || "username" from "users"
      where "id" % 10 = 0`,
  );
  const reader = await setup.hosting.users.create({
    username: 'reader',
    email: 'reader@example.com',
    name: 'Reader',
    password: 'bench-password-1',
    skip_confirmation: true,
  });
  return (await setup.hosting.personalAccessTokens.create(reader.id, { name: 'bench', scopes: ['api'] })).token;
}

/** 10,000 projects, the reader a member of 1,000 (bench/lib/projects-seed.ts), and the reader's token. */
async function seedProjectsData(setup: Setup): Promise<string> {
  await seedProjects(setup.bare, new SecretBox(SECRET_KEY));
  const reader = await setup.hosting.users.create({
    username: 'reader',
    email: 'reader@example.com',
    name: 'Reader',
    password: 'bench-password-1',
    skip_confirmation: true,
  });
  await seedReader(setup.bare, reader.id);
  return (await setup.hosting.personalAccessTokens.create(reader.id, { name: 'bench', scopes: ['api'] })).token;
}

/**
 * A private project of root's (made through the API, with its repository) of which the reader is a reporter, the
 * least that reads confidential issues; in SQL, 20 users and the project's 10 labels, 5 milestones and ISSUES
 * issues: each with two labels, one or two assignees (two on every third), a milestone on every third, 1 to 4 notes
 * (the first a system note on even iids), thumbsup from 0 to 4 users, thumbsdown on every seventh and a heart
 * (counted in neither) on every tenth; every fourth closed, every hundredth confidential, every 250th by a deleted
 * author, some with a due date, an estimate or time spent. The reader's token.
 */
async function seedIssuesData(setup: Setup): Promise<string> {
  const db = setup.bare;
  const reader = await setup.hosting.users.create({
    username: 'reader',
    email: 'reader@example.com',
    name: 'Reader',
    password: 'bench-password-1',
    skip_confirmation: true,
  });
  const project = await setup.hosting.projects.create({ name: 'Issues', visibility: 'private' });
  if (project.id !== ISSUES_PROJECT) throw new Error(`the issues' project is ${project.id}, not ${ISSUES_PROJECT}`);
  await setup.hosting.projectMembers.add(project.id, { user_id: reader.id, access_level: 20 });
  const stamp = sql`timestamptz '2026-01-01 00:00:00+00'`;
  await db.query(
    sql`insert into "users" ("username", "username_lower", "name", "email", "projects_limit", "confirmed_at", "created_at", "updated_at")
     select 'issuer' || n, 'issuer' || n, 'Issuer ' || n, 'issuer' || n || '@example.com', 100000, ${stamp}, ${stamp}, ${stamp}
       from generate_series(1, 20) as n`,
  );
  await db.query(
    sql`insert into "labels" ("project_id", "title", "color", "created_at", "updated_at")
     select ${ISSUES_PROJECT}::int, t, '#428bca', ${stamp}, ${stamp}
     from unnest(array['bug', 'feature', 'documentation', 'performance', 'security', 'ui', 'backend', 'database', 'api', 'tests']) as t`,
  );
  await db.query(
    sql`insert into "milestones" ("iid", "project_id", "title", "description", "state", "due_date", "start_date", "created_at",
      "updated_at")
     select k, ${ISSUES_PROJECT}::int, 'v1.' || k, 'Release 1.' || k, case when k = 1 then 'closed'
       else 'active' end, '2026-0' || k || '-28',
       case when k % 2 = 0 then '2026-0' || k || '-01' end, ${stamp}, ${stamp}
     from generate_series(1, 5) as k`,
  );
  await db.query(
    sql`insert into "internal_ids" ("usage", "project_id", "last_value")
      values ('issues', ${ISSUES_PROJECT}::int, ${ISSUES}::int), ('milestones', ${ISSUES_PROJECT}::int, 5)`,
  );
  // `u`: the 20 users' IDs; `m`: the milestones'; `l`: the labels'.
  const users = sql`(select array_agg("id" order by "id") as u from "users" where "username" like 'issuer%') as us`;
  await db.query(
    sql`insert into "issues" ("project_id", "iid", "title", "description", "state", "author_id", "confidential", "due_date", "milestone_id",
       "closed_at", "closed_by_id", "time_estimate", "total_time_spent", "created_at", "updated_at")
     select ${ISSUES_PROJECT}::int, n, 'Issue ' || n, case when n % 5 = 0 then null
       else 'What issue ' || n || ' is about, in a sentence or two.' end,
       case when n % 4 = 0 then 'closed' else 'opened' end, case when n % 250 = 0 then null else u[1 + n % 20] end, n % 100 = 7,
       case when n % 6 = 0 then '2026-12-' || lpad((1 + n % 28)::text, 2, '0') end, case when n % 3 = 0 then m[1 + n % 5] end,
       case when n % 4 = 0 then ${stamp} + n * interval '1 hour' + interval '1 day' end, case when n % 4 = 0 then u[1 + (n + 3) % 20] end,
       case when n % 7 = 0 then 3600 * (n % 40) else 0 end, case when n % 11 = 0 then 1800 * (n % 13) else 0 end,
       ${stamp} + n * interval '1 hour', ${stamp} + n * interval '1 hour' + (n % 50) * interval '1 minute'
     from generate_series(1, ${ISSUES}) as n, ${users},
       (select array_agg("id" order by "iid") as m from "milestones" where "project_id" = ${ISSUES_PROJECT}) as ms`,
  );
  // Two different labels: the second 1 to 9 after the first.
  await db.query(
    sql`insert into "label_links" ("label_id", "target_kind", "target_id", "created_at")
     select l[1 + k], 'Issue', i."id", ${stamp} from "issues" i, (select array_agg("id" order by "id") as l from "labels") as ls,
       lateral (values (i."iid" % 10), ((i."iid" % 10 + 1 + i."iid" % 9) % 10)) as v(k)`,
  );
  await db.query(
    sql`insert into "issue_assignees" ("issue_id", "user_id")
     select i."id", u[1 + (i."iid" * 3 + s) % 20] from "issues" i, ${users}, generate_series(0, 7, 7) as s where s = 0 or i."iid" % 3 = 0
     order by i."id", s`,
  );
  await db.query(
    sql`insert into "notes" ("project_id", "target_kind", "target_id", "author_id", "body", "system", "discussion_id", "created_at",
      "updated_at")
     select ${ISSUES_PROJECT}::int, 'Issue', i."id", u[1 + (i."iid" + k) % 20],
       case when k = 1 and i."iid" % 2 = 0 then 'added ~' || (i."iid" % 10) || ' label' else 'Comment ' || k || ' on issue ' || i."iid" end,
       k = 1 and i."iid" % 2 = 0, md5('issue ' || i."id" || ' note ' || k) || substr(md5('discussion ' || i."id" || ' ' || k), 1, 8),
       i."created_at" + k * interval '1 minute', i."created_at" + k * interval '1 minute'
     from "issues" i, ${users}, generate_series(1, 4) as k where k <= 1 + i."iid" % 4`,
  );
  await db.query(
    sql`insert into "award_emoji" ("name", "user_id", "target_kind", "target_id", "created_at", "updated_at")
     select 'thumbsup', u[k], 'Issue', i."id", ${stamp}, ${stamp} from "issues" i, ${users}, generate_series(1, 4) as k
       where k <= i."iid" % 5
     union all select 'thumbsdown', u[20], 'Issue', i."id", ${stamp}, ${stamp} from "issues" i, ${users} where i."iid" % 7 = 0
     union all select 'heart', u[19], 'Issue', i."id", ${stamp}, ${stamp} from "issues" i, ${users} where i."iid" % 10 = 0`,
  );
  await db.query(sql`analyze`);
  return (await setup.hosting.personalAccessTokens.create(reader.id, { name: 'bench', scopes: ['api'] })).token;
}

/**
 * The merge requests' project, its repository and its MERGE_REQUESTS merge requests (bench/lib/merge-requests-seed.ts); the reader's token.
 */
async function seedMergeRequestsData(setup: Setup): Promise<string> {
  const reader = await setup.hosting.users.create({
    username: 'reader',
    email: 'reader@example.com',
    name: 'Reader',
    password: 'bench-password-1',
    skip_confirmation: true,
  });
  await seedMergeRequests(setup.bare, setup.hosting, reader.id, MERGE_REQUESTS_PROJECT, (id) => repositoryPath(setup.storage, id));
  return (await setup.hosting.personalAccessTokens.create(reader.id, { name: 'bench', scopes: ['api'] })).token;
}

/** Where forgekit keeps a project's repository under its storage root (RepositoryStore.relativePath). */
const repositoryPath = (storage: string, projectId: number) => {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return join(storage, '@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
};

/** What the requests run on: each data set is written into a new database, and its requests measured there. */
const DATA_SETS = {
  users: { describe: `${USERS} users`, seed: seedUsers },
  projects: { describe: `${PROJECTS} projects, the user a member of 1000`, seed: seedProjectsData },
  issues: { describe: `a project of ${ISSUES} issues, the user a reporter`, seed: seedIssuesData },
  'merge requests': { describe: `a project of ${MERGE_REQUESTS} merge requests, the user a reporter`, seed: seedMergeRequestsData },
};

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
  statements: Sent[];
  /** What is this call's own, in its statements as in its answer (a new key's text, fingerprint and time), by name. */
  own: Record<string, string | undefined>;
}

const COMPARED_HEADERS = [
  'content-type',
  'x-powered-by',
  'link',
  'x-total',
  'x-total-pages',
  'x-per-page',
  'x-page',
  'x-next-page',
  'x-prev-page',
];

async function answerOf(origin: string, endpoint: Call): Promise<Answer> {
  const key = endpoint.body ? sshKey() : undefined;
  recording = [];
  try {
    const res = await fetch(origin + endpoint.path, {
      method: endpoint.method,
      headers: { 'private-token': endpoint.token, ...(key ? { 'content-type': 'application/json' } : {}) },
      body: key ? JSON.stringify({ title: 'bench', key }) : undefined,
    });
    const text = await res.text();
    const own = key ? { key, fingerprint: fingerprint(key), created_at: res.ok ? JSON.parse(text).created_at : undefined } : {};
    return {
      status: res.status,
      headers: Object.fromEntries(COMPARED_HEADERS.map((name) => [name, res.headers.get(name) ?? undefined])),
      text,
      statements: recording,
      own,
    };
  } finally {
    recording = undefined;
  }
}

/**
 * An answer's statements, to compare: each its text (its layout aside: runs of white space as one space) and its
 * values, the call's own values named (both sides insert a key of their own). forgekit reads the settings again
 * once its cached copy is 10 s old; the bare handler read them once.
 */
function statementsOf(answer: Answer): string[] {
  const own = Object.entries(answer.own).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return answer.statements
    .filter((statement) => !statement.text.includes('"application_settings"'))
    .map(({ text, values }) => `${text.replace(/\s+/g, ' ')} -- values ${JSON.stringify(eventValues(text, values))}`)
    .map((statement) => own.reduce((named, [name, value]) => named.replaceAll(value, `<${name}>`), statement));
}

/** An event's values, its target's ID and its time named: each side records its own key's event. */
function eventValues(text: string, values: unknown[]): unknown[] {
  if (!text.startsWith('insert into "events"')) return values;
  return values.map((value, index) => (index === 6 ? '<key id>' : index === 12 ? '<time>' : value));
}

/**
 * The same statements (text and values), status, headers and JSON from both sides (a new key's own values aside); the number of statements.
 */
async function checkAlike(endpoint: Call, forgekit: string, bare: string): Promise<number> {
  // The second answer of each: as under load, with what the servers keep (the caller's token) kept.
  await answerOf(forgekit, endpoint);
  await answerOf(bare, endpoint);
  const a = await answerOf(forgekit, endpoint);
  const b = await answerOf(bare, endpoint);
  const fail = (what: string, x: string | undefined, y: string | undefined) => {
    throw new Error(`${endpoint.name}: forgekit and the bare handler differ in ${what}:\n  forgekit: ${x}\n  bare:     ${y}`);
  };
  const differs = (what: string, x: unknown, y: unknown) => fail(what, JSON.stringify(x), JSON.stringify(y));
  const [sa, sb] = [statementsOf(a), statementsOf(b)];
  if (process.env.FORGEKIT_BENCH_SHOW_SQL) {
    for (const [side, list] of [
      ['forgekit', sa],
      ['bare', sb],
    ] as const)
      console.log(`${endpoint.name}, ${side}:\n${list.map((statement, index) => `  ${index + 1}. ${statement}`).join('\n')}`);
  }
  // The first statement that differs (or that one side has and the other not).
  const at = sa.findIndex((statement, index) => statement !== sb[index]);
  if (at !== -1 || sa.length !== sb.length) {
    const index = at === -1 ? sa.length : at;
    fail(`SQL, statement ${index + 1} (${sa.length} and ${sb.length} statements)`, sa[index], sb[index]);
  }
  if (a.status !== b.status) differs('status', a.status, b.status);
  if (JSON.stringify(a.headers) !== JSON.stringify(b.headers)) differs('headers', a.headers, b.headers);
  // A new key's id, text and time are its own: the rest of its answer, and its fields, must match.
  const comparable = (text: string) => {
    if (!endpoint.body) return text;
    const { id: _id, key: _key, created_at: _createdAt, ...rest } = JSON.parse(text);
    return JSON.stringify({ ...rest, fields: Object.keys(JSON.parse(text)) });
  };
  if (comparable(a.text) !== comparable(b.text)) differs('body', a.text, b.text);
  return sa.length;
}

// ---- Measuring.

interface Side {
  label: string;
  origin: string;
  tracker: Tracker;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One warm-up per server, then ROUNDS rounds each, the order turning every round. */
async function measure(loader: Loader, endpoint: Call, servers: Side[]): Promise<Round[][]> {
  const request = (origin: string, seconds: number): LoadRequest => ({
    url: origin + endpoint.path,
    method: endpoint.method,
    headers: { 'private-token': endpoint.token },
    body: endpoint.body,
    connections: endpoint.connections ?? CONNECTIONS,
    seconds,
  });
  for (const server of servers) await loader.round(request(server.origin, 1), server.tracker);
  const rounds: Round[][] = servers.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < servers.length; turn++) {
      const index = (turn + round) % servers.length;
      rounds[index].push(await loader.round(request(servers[index].origin, SECONDS), servers[index].tracker));
    }
  }
  return rounds;
}

const columns = [
  ['request', 52],
  ['server', 22],
  ['SQL', 4],
  ['req/s', 8],
  ['p50 ms', 8],
  ['p90 ms', 8],
  ['p99 ms', 8],
  ['CPU µs/req', 11],
  ['CPU ratio', 10],
  ['req/s ratio', 12],
] as const;
const line = (cells: (string | number)[]) =>
  cells.map((cell, index) => (index < 2 ? String(cell).padEnd(columns[index][1]) : String(cell).padStart(columns[index][1]))).join(' ');

/** A server's medians; beside forgekit's rounds, the ratios forgekit ÷ this server, taken round by round. */
function row(name: string, label: string, statements: number | string, rounds: Round[], forgekit?: Round[]): string {
  const m = (pick: (round: Round) => number, digits: number) => median(rounds.map(pick)).toFixed(digits);
  const ratio = (pick: (round: Round) => number) =>
    forgekit ? `${median(rounds.map((round, index) => pick(forgekit[index]) / pick(round))).toFixed(2)}×` : '';
  return line([
    name,
    label,
    statements,
    m((r) => r.requestsPerSecond, 0),
    m((r) => r.p50, 1),
    m((r) => r.p90, 1),
    m((r) => r.p99, 1),
    m((r) => r.cpuPerRequest, 0),
    ratio((r) => r.cpuPerRequest),
    ratio((r) => r.requestsPerSecond),
  ]);
}

/** The target beside forgekit's medians: met or missed. */
function verdict(target: NonNullable<Endpoint['target']>, forgekit: Round[], bare: Round[]): string {
  const checks: string[] = [];
  if (target.p90 !== undefined) {
    const p90 = median(forgekit.map((round) => round.p90));
    checks.push(`p90 ${p90.toFixed(1)} ms ${p90 < target.p90 ? '<' : '≥'} ${target.p90} ms`);
  }
  if (target.cpuRatio !== undefined) {
    const ratio = median(forgekit.map((round, index) => round.cpuPerRequest / bare[index].cpuPerRequest));
    checks.push(`CPU ${ratio.toFixed(2)}× ${ratio <= target.cpuRatio ? '≤' : '>'} ${target.cpuRatio}×`);
  }
  const met = checks.every((check) => check.includes('<') || check.includes('≤'));
  return `${''.padEnd(columns[0][1])} target: ${checks.join(', ')}: ${met ? 'met' : 'MISSED'}`;
}

async function bench(loader: Loader, name: string, open: () => Promise<Setup>): Promise<void> {
  for (const [data, { describe, seed }] of Object.entries(DATA_SETS)) {
    const endpoints = ENDPOINTS.filter((endpoint) => (endpoint.data ?? 'users') === data && ONLY.test(`${name} ${endpoint.name}`));
    if (endpoints.length) await benchData(loader, name, open, describe, seed, endpoints);
  }
}

async function benchData(
  loader: Loader,
  name: string,
  open: () => Promise<Setup>,
  describe: string,
  seed: (setup: Setup) => Promise<string>,
  endpoints: Endpoint[],
): Promise<void> {
  const setup = await open();
  const servers: Server[] = [];
  try {
    const reader = await seed(setup);
    await setup.settle();
    const [settings] = await setup.bare.query(sql`select "values" from "application_settings"`);
    const app = express();
    app.use(setup.hosting.router());
    servers.push(
      createServer(app),
      bareServer(setup.bare, {
        baseUrl: BASE_URL,
        version: VERSION,
        avatarService: settings.values.avatarsvc_enabled !== false,
        secrets: new SecretBox(SECRET_KEY),
        repositoryPath: (projectId) => repositoryPath(setup.storage, projectId),
      }),
      createServer(expressVersionApp(VERSION)),
    );
    const [forgekit, bare, expressOnly] = await Promise.all(servers.map(listen));
    const [forgekitTracker, bareTracker, expressTracker] = servers.map((server) => new Tracker(server));

    const connections = [...new Set(endpoints.map((endpoint) => endpoint.connections ?? CONNECTIONS))].join(' or ');
    console.log(`\n${name}: ${describe}; ${connections} connections; ${ROUNDS} rounds of ${SECONDS} s per server, medians.`);
    console.log("SQL: statements per request. CPU: of the server process (not of PostgreSQL's). Ratios: forgekit ÷ that server.");
    console.log(line(columns.map(([title]) => title)));
    for (const endpoint of endpoints.map((endpoint): Call => ({ ...endpoint, token: endpoint.as === 'root' ? ROOT_TOKEN : reader }))) {
      const statements = await checkAlike(endpoint, forgekit, bare);
      const sides: Side[] = [
        { label: 'forgekit', origin: forgekit, tracker: forgekitTracker },
        { label: 'bare node:http', origin: bare, tracker: bareTracker },
      ];
      if (endpoint.express) sides.push({ label: 'bare Express 5', origin: expressOnly, tracker: expressTracker });
      const rounds = await measure(loader, endpoint, sides);
      console.log(row(endpoint.name, 'forgekit', statements, rounds[0]));
      console.log(row('', `bare node:http+${setup.driver}`, statements, rounds[1], rounds[0]));
      if (endpoint.express) console.log(row('', 'bare Express 5', 0, rounds[2], rounds[0]));
      if (endpoint.target) console.log(verdict(endpoint.target, rounds[0], rounds[1]));
    }
  } finally {
    await Promise.all(servers.filter((server) => server.listening).map((server) => new Promise((resolve) => server.close(resolve))));
    await setup.close();
  }
}

const loader = new Loader();
try {
  await bench(loader, 'PostgreSQL', postgresql);
  await bench(loader, 'PGlite (in memory)', pglite);
} finally {
  loader.close();
}
