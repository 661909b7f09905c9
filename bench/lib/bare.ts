/**
 * What forgekit is measured against: a bare `node:http` handler that runs the very SQL statements forgekit
 * runs for each benchmarked request (bench/requests.ts checks that they match, statement by statement) and
 * answers the same status, headers and JSON (the projects' in bench/lib/bare-projects.ts, a project's issues in
 * bench/lib/bare-issues.ts, its merge requests in bench/lib/bare-merge-requests.ts); and, for GET /version, a bare
 * Express 5 app.
 * No framework, no validation library, no ORM: the floor of what the work costs in Node.js.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import express from 'express';
import { raw } from 'sql-template-tag';
import type { SecretBox } from '../../src/auth/secret-box.ts';
import { empty, fixedSql, sql } from '../../src/db/sql.ts';
import { eventInsertSql } from '../../src/events/statements.ts';
import { listIssues } from './bare-issues.ts';
import { getMergeRequest, listMergeRequests } from './bare-merge-requests.ts';
import { getProject, listProjects, type ProjectsCaller } from './bare-projects.ts';
import { fingerprint as keyFingerprint } from './ssh-key.ts';
import type { Row, SqlClient } from './sql.ts';

export interface BareDatabase extends SqlClient {
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
}

export interface Version {
  version: string;
  revision: string;
}

/** A string as MikroORM writes a value into a statement's text. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The short user shape's columns. */
const USER_BASIC_COLUMNS = ['id', 'name', 'username', 'state', 'email', 'avatar_filename'].map((column) => `"u0"."${column}"`).join(', ');

const statements = {
  caller: (digest: string) =>
    sql`select to_jsonb(t) as token, to_jsonb(u) as "user" from access_tokens t join users u on u.id = t.user_id
      where t.token_digest = ${digest}`,
  identities: (userIds: number[]) => sql`select * from "identities" where "user_id" = any(${userIds}) order by "id"`,
  countUsers: sql`select count(*) as "count" from "users" as "u0"`,
  /** Every column for the full shape; for the short one, the columns it shows. */
  users: (limit: number, offset: number, full: boolean) =>
    sql`select ${fixedSql(full ? '"u0".*' : USER_BASIC_COLUMNS)} from "users" as "u0" order by "u0"."id" desc
      limit ${limit}${offset ? sql` offset ${offset}` : empty}`,
  // The ORM's own statements (a count, a flush) have their values written into their text, as MikroORM writes them.
  countKeys: (fingerprint: string) =>
    raw(`select count(*) as "count" from "ssh_keys" as "s0" where "s0"."fingerprint" = ${literal(fingerprint)}`),
  insertKey: (userId: number, title: string, key: string, fingerprint: string, createdAt: Date) =>
    raw(
      `insert into "ssh_keys" ("user_id", "title", "key", "fingerprint", "created_at") ` +
        `values (${userId}, ${literal(title)}, ${literal(key)}, ${literal(fingerprint)}, ${literal(createdAt.toISOString())}) returning ` +
        `"id"`,
    ),
  /** Whether the transaction has updated or deleted a user or a token (forgekit asks before every write commits). */
  callersChanged: sql`select coalesce(current_setting('forgekit.callers_changed', true) = 'on', false) as "changed"`,
};

/** PostgreSQL's text for a timestamptz (`2026-11-23 05:11:11.176+00`) as JSON has it. */
function iso(text: string | null): string | null {
  if (text === null) return null;
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();
}

function send(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'X-Powered-By': 'Express',
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

class Refused extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(String(status));
    this.status = status;
    this.body = body;
  }
}

const unauthorized = () => new Refused(401, { message: '401 Unauthorized' });

/** The avatar service's URL for a user without an uploaded avatar. */
const gravatar = (email: string) =>
  `https://www.gravatar.com/avatar/${createHash('md5').update(email.trim().toLowerCase()).digest('hex')}?s=80&d=identicon`;

/** The users table's row (prefixed columns of the caller's join, or plain) as the user shapes. */
function presentUser(
  row: Row,
  prefix: string,
  shape: 'basic' | 'self' | 'full',
  identities: Row[],
  baseUrl: string,
  avatarService: boolean,
) {
  const get = (column: string) => row[prefix + column];
  const avatar = get('avatar_filename')
    ? `${baseUrl}/uploads/-/system/user/avatar/${get('id')}/${encodeURIComponent(get('avatar_filename'))}`
    : avatarService
      ? gravatar(get('email'))
      : null;
  const basic = {
    id: get('id'),
    name: get('name'),
    username: get('username'),
    state: get('state'),
    avatar_url: avatar,
    web_url: `${baseUrl}/${get('username')}`,
  };
  if (shape === 'basic') return basic;
  const self = {
    ...basic,
    created_at: iso(get('created_at')),
    bio: get('bio'),
    location: get('location'),
    skype: get('skype'),
    linkedin: get('linkedin'),
    twitter: get('twitter'),
    website_url: get('website_url'),
    organization: get('organization'),
    email: get('email'),
    last_sign_in_at: iso(get('last_sign_in_at')),
    confirmed_at: iso(get('confirmed_at')),
    theme_id: get('theme_id'),
    last_activity_on: get('last_activity_on'),
    color_scheme_id: get('color_scheme_id'),
    projects_limit: get('projects_limit'),
    current_sign_in_at: iso(get('current_sign_in_at')),
    identities: identities
      .filter((identity) => identity.user_id === get('id'))
      .map((identity) => ({ provider: identity.provider, extern_uid: identity.extern_uid })),
    can_create_group: get('can_create_group'),
    can_create_project: get('projects_limit') > 0,
    two_factor_enabled: get('two_factor_enabled'),
    external: get('external'),
  };
  return shape === 'self' ? self : { ...self, is_admin: get('admin') };
}

async function readJson(req: IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The bare server. `avatarService` is the `avatarsvc_enabled` setting, read once: forgekit keeps the settings
 * in the process too. `repositoryPath`: where a project's repository is (the merge requests' single GET reads it).
 */
export function bareServer(
  db: BareDatabase,
  options: { baseUrl: string; version: Version; avatarService: boolean; secrets: SecretBox; repositoryPath: (projectId: number) => string },
): Server {
  const { baseUrl, avatarService } = options;

  // Tokens read are kept as forgekit keeps them (src/db/process-cache.ts, src/api/invoke.ts): by digest, forgotten
  // when a write's transaction has changed a user or a token (it asks before it commits) and again as that write
  // ends; nothing read while such a write is under way is kept.
  const callers = new Map<string, Row>();
  let changingWrites = 0;
  let generation = 0;
  const forgetCallers = () => {
    generation += 1;
    callers.clear();
  };
  async function write<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    let changing = false;
    try {
      return await db.transaction(async (client) => {
        const result = await work(client);
        const [{ changed }] = await client.query(statements.callersChanged);
        if (changed) {
          changing = true;
          changingWrites += 1;
          forgetCallers();
        }
        return result;
      });
    } finally {
      if (changing) {
        changingWrites -= 1;
        forgetCallers();
      }
    }
  }

  async function readCaller(digest: string): Promise<Row | undefined> {
    const kept = callers.get(digest);
    if (kept) return kept;
    const readIn = generation;
    const [row] = await db.query(statements.caller(digest));
    // The token's columns, and the user's prefixed as the other statements' rows have them.
    const caller = row && {
      ...row.token,
      ...Object.fromEntries(Object.entries(row.user).map(([column, value]) => [`u1__${column}`, value])),
    };
    if (caller && readIn === generation && changingWrites === 0) callers.set(digest, caller);
    return caller;
  }

  async function authenticate(req: IncomingMessage, scopes: string[]): Promise<Row> {
    const token = req.headers['private-token'];
    if (typeof token !== 'string') throw unauthorized();
    const caller = await readCaller(createHash('sha256').update(token).digest('hex'));
    if (
      !caller ||
      caller.revoked ||
      (caller.expires_at && new Date(iso(caller.expires_at)!) <= new Date()) ||
      caller.u1__state === 'blocked'
    )
      throw unauthorized();
    const granted: string[] = caller.kind === 'private' ? ['api', 'sudo'] : caller.scopes;
    if (!granted.some((scope) => scopes.includes(scope))) throw new Refused(403, { error: 'insufficient_scope' });
    return caller;
  }

  async function listUsers(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    const caller = await authenticate(req, ['api', 'read_api', 'read_user']);
    const perPage = Number(url.searchParams.get('per_page') ?? 20);
    const page = Number(url.searchParams.get('page') ?? 1);
    const [{ count }] = await db.query(statements.countUsers);
    const total = Number(count);
    const admin = caller.u1__admin === true;
    const rows = await db.query(statements.users(perPage, (page - 1) * perPage, admin));
    const identities = admin && rows.length ? await db.query(statements.identities(rows.map((row) => row.id))) : [];
    send(
      res,
      200,
      rows.map((row) => presentUser(row, '', admin ? 'full' : 'basic', identities, baseUrl, avatarService)),
      pageHeaders(url, page, perPage, total),
    );
  }

  /** A list's `Link` and `X-*` headers. */
  function pageHeaders(url: URL, page: number, perPage: number, total: number): Record<string, string> {
    const totalPages = Math.max(1, Math.ceil(total / perPage));
    const link = (number: number, rel: string) => {
      url.searchParams.set('page', String(number));
      url.searchParams.set('per_page', String(perPage));
      return `<${baseUrl}${url.pathname}${url.search}>; rel="${rel}"`;
    };
    const links = [
      ...(page > 1 ? [link(Math.min(page - 1, totalPages), 'prev')] : []),
      ...(page < totalPages ? [link(page + 1, 'next')] : []),
    ];
    links.push(link(1, 'first'), link(totalPages, 'last'));
    return {
      Link: links.join(', '),
      'X-Total': String(total),
      'X-Total-Pages': String(totalPages),
      'X-Per-Page': String(perPage),
      'X-Page': String(page),
      'X-Next-Page': page < totalPages ? String(page + 1) : '',
      'X-Prev-Page': page > 1 ? String(Math.min(page - 1, totalPages)) : '',
    };
  }

  /** As a signed-in user who is not an administrator (bench/lib/bare-projects.ts). */
  async function projectsCaller(req: IncomingMessage): Promise<ProjectsCaller> {
    const caller = await authenticate(req, ['api', 'read_api']);
    if (caller.u1__admin) throw new Error('the bare GET /projects is for users who are not administrators');
    return { user: caller.user_id, external: caller.u1__external, secrets: options.secrets };
  }

  async function listProjectsRoute(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    const caller = await projectsCaller(req);
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), 100);
    const page = Number(url.searchParams.get('page') ?? 1);
    const { items, total } = await listProjects(db, caller, perPage, page, baseUrl);
    send(res, 200, items, pageHeaders(url, page, perPage, total));
  }

  async function getProjectRoute(req: IncomingMessage, id: number, res: ServerResponse): Promise<void> {
    const project = await getProject(db, await projectsCaller(req), id, baseUrl);
    if (!project) throw new Refused(404, { message: '404 Project Not Found' });
    send(res, 200, project);
  }

  async function listIssuesRoute(req: IncomingMessage, projectId: number, url: URL, res: ServerResponse): Promise<void> {
    const caller = await projectsCaller(req);
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), 100);
    const page = Number(url.searchParams.get('page') ?? 1);
    const list = await listIssues(db, caller, projectId, perPage, page, { baseUrl, avatarService, gravatar });
    if (!list) throw new Refused(404, { message: '404 Project Not Found' });
    send(res, 200, list.items, pageHeaders(url, page, perPage, list.total));
  }

  async function listMergeRequestsRoute(req: IncomingMessage, projectId: number, url: URL, res: ServerResponse): Promise<void> {
    const caller = await projectsCaller(req);
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 20), 100);
    const page = Number(url.searchParams.get('page') ?? 1);
    const list = await listMergeRequests(db, caller, projectId, perPage, page, {
      baseUrl,
      avatarService,
      gravatar,
      repositoryPath: options.repositoryPath,
    });
    if (!list) throw new Refused(404, { message: '404 Project Not Found' });
    send(res, 200, list.items, pageHeaders(url, page, perPage, list.total));
  }

  async function getMergeRequestRoute(req: IncomingMessage, projectId: number, iid: number, res: ServerResponse): Promise<void> {
    const caller = await projectsCaller(req);
    const found = await getMergeRequest(db, caller, projectId, iid, {
      baseUrl,
      avatarService,
      gravatar,
      repositoryPath: options.repositoryPath,
    });
    if (found === null) throw new Refused(404, { message: '404 Project Not Found' });
    if (found === undefined) throw new Refused(404, { message: '404 Merge Request Not Found' });
    send(res, 200, found);
  }

  async function addKey(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const caller = await authenticate(req, ['api']);
    const input = await readJson(req);
    const key = String(input.key ?? '')
      .replace(/[\r\n]+/g, '')
      .trim();
    const fingerprint = key.startsWith('ssh-ed25519 ') ? keyFingerprint(key) : undefined;
    if (!input.title || !fingerprint) throw new Refused(400, { message: { key: ['is invalid'] } });
    const createdAt = new Date();
    const [{ id }] = await write(async (client) => {
      const [{ count }] = await client.query(statements.countKeys(fingerprint));
      if (Number(count)) throw new Refused(400, { message: { key: ['has already been taken'], fingerprint: ['has already been taken'] } });
      const inserted = await client.query(statements.insertKey(caller.user_id, input.title, key, fingerprint, createdAt));
      // The record of what happens: the key's event, in the same transaction.
      const target = { type: 'Key', id: Number(inserted[0].id), title: String(input.title) };
      const event = { kind: 'key.created' as const, authorId: caller.user_id, target, data: { user_id: caller.user_id } };
      await client.query(eventInsertSql(event, new Date()));
      return inserted;
    });
    send(res, 201, { id, title: input.title, key, created_at: createdAt.toISOString() });
  }

  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = `${req.method} ${url.pathname}`;
    const handle = async () => {
      if (route === 'GET /api/v4/version') {
        await authenticate(req, ['api', 'read_api', 'read_user']);
        return send(res, 200, options.version);
      }
      if (route === 'GET /api/v4/user') {
        // As a normal user (an administrator's answer has more fields).
        const caller = await authenticate(req, ['api', 'read_api', 'read_user']);
        const identities = await db.query(statements.identities([caller.user_id]));
        return send(res, 200, presentUser(caller, 'u1__', 'self', identities, baseUrl, avatarService));
      }
      if (route === 'GET /api/v4/users') return listUsers(req, url, res);
      if (route === 'POST /api/v4/user/keys') return addKey(req, res);
      if (route === 'GET /api/v4/projects') return listProjectsRoute(req, url, res);
      const project = /^GET \/api\/v4\/projects\/(\d+)$/.exec(route);
      if (project) return getProjectRoute(req, Number(project[1]), res);
      const issues = /^GET \/api\/v4\/projects\/(\d+)\/issues$/.exec(route);
      if (issues) return listIssuesRoute(req, Number(issues[1]), url, res);
      const mergeRequests = /^GET \/api\/v4\/projects\/(\d+)\/merge_requests$/.exec(route);
      if (mergeRequests) return listMergeRequestsRoute(req, Number(mergeRequests[1]), url, res);
      const mergeRequest = /^GET \/api\/v4\/projects\/(\d+)\/merge_requests\/(\d+)$/.exec(route);
      if (mergeRequest) return getMergeRequestRoute(req, Number(mergeRequest[1]), Number(mergeRequest[2]), res);
      send(res, 404, { error: '404 Not Found' });
    };
    handle().catch((error: unknown) => {
      if (error instanceof Refused) send(res, error.status, error.body);
      else send(res, 500, { message: '500 Internal Server Error' });
    });
  });
}

/** GET /version on Express 5: what the framework alone costs for the smallest answer. */
export function expressVersionApp(version: Version): express.Express {
  const app = express();
  app.get('/api/v4/version', (_req, res) => {
    res.json(version);
  });
  return app;
}
