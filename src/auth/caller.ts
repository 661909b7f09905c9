import type { Clock } from '../clock.js';
import type { Database, EntityManager } from '../db/orm.js';
import { AccessToken, CALLERS_CHANGED_CHANNEL, User } from '../db/entities/index.js';
import { ProcessCache } from '../db/process-cache.js';
import { queryRows, readRows, rowAs } from '../db/rows.js';
import { sql } from '../db/sql.js';
import { ForbiddenError, InsufficientScopeError, NotFoundError, UnauthorizedError } from '../errors.js';
import { tokenDigest } from './secrets.js';

/**
 * Who is calling, once authenticated. The user and the token are read, not managed: as their rows stood when
 * the call began, tracked by no EntityManager (a service that writes takes `ctx.user`, the call's own).
 */
export interface Caller {
  /** The effective user (after sudo); null for an anonymous caller. */
  user: Readonly<User> | null;
  /** The scopes of the token used; null for trusted in-process code, which has full access. */
  scopes: string[] | null;
  /** The token the caller authenticated with; null for anonymous and trusted in-process callers. */
  token: Readonly<AccessToken> | null;
  /** The private token the request was authenticated with, if it was one: GET /user shows it to administrators. */
  privateToken: string | null;
}

/**
 * Who a call is made as, in process: a user ID, a username or a token (a string that names no user is
 * taken as a token), an object naming one of them, or null for an anonymous caller.
 */
export type CallerIdentity =
  | number
  | string
  | null
  | { id: number; sudo?: number | string }
  | { username: string; sudo?: number | string }
  | { token: string; sudo?: number | string };

export const ANONYMOUS: Caller = { user: null, scopes: null, token: null, privateToken: null };

/** The scopes a private token carries: everything its user may do. */
const PRIVATE_TOKEN_SCOPES = ['api', 'sudo'];

/** A token with its user, as authentication reads them (frozen: calls share them). */
export interface TokenOwner {
  token: Readonly<AccessToken>;
  user: Readonly<User>;
}

/**
 * Tokens with their users by the token's digest, kept in the process: nearly every request carries a token,
 * and reading it was most of a fast request's database time. A change of any user or token (the
 * callers_changed triggers) is heard by every process; this process forgets them all as soon as one of its
 * calls has changed one (`callersChangedIn`, api/invoke.ts), before that call answers.
 */
export type TokenCache = ProcessCache<TokenOwner>;

/**
 * Whether a write's transaction has so far updated or deleted a user or a token, the changes the callers_changed
 * triggers announce, and mark the transaction for (`forgekit.callers_changed`, local to it). Asked of every write, so that
 * the writes that change no caller (a fork, a commit) leave the kept tokens alone: forgetting them on every
 * write sent every request to the database while writes ran.
 */
export async function callersChangedIn(em: EntityManager): Promise<boolean> {
  const [row] = await queryRows(em, sql`select coalesce(current_setting('forgekit.callers_changed', true) = 'on', false) as "changed"`);
  return row?.changed === true;
}

export const openTokenCache = (db: Database): Promise<TokenCache> =>
  ProcessCache.open(db, { channel: CALLERS_CHANGED_CHANNEL, maxAgeMs: 10_000, maxEntries: 10_000 });

/**
 * The caller of a call, a token's expiry compared with the instance's `clock`. `em` need only run statements: every
 * lookup here is a statement written once and read as a plain row, since authentication runs on every request and
 * building queries and managing entities for it cost more than the queries themselves.
 */
export async function authenticate(em: EntityManager, tokens: TokenCache, identity: CallerIdentity, clock: Clock): Promise<Caller> {
  if (identity === null) return ANONYMOUS;
  let caller: Caller;
  let sudo: number | string | undefined;
  if (typeof identity === 'number' || (typeof identity === 'object' && 'id' in identity)) {
    sudo = typeof identity === 'object' ? identity.sudo : undefined;
    caller = trusted(await userById(em, typeof identity === 'number' ? identity : identity.id));
  } else if (typeof identity === 'string' || 'username' in identity) {
    const username = typeof identity === 'string' ? identity : identity.username;
    sudo = typeof identity === 'object' ? identity.sudo : undefined;
    const user = await userByUsername(em, username);
    caller = user || typeof identity !== 'string' ? trusted(user) : await byToken(em, tokens, identity, clock);
  } else {
    sudo = identity.sudo;
    caller = await byToken(em, tokens, identity.token, clock);
  }
  return sudo === undefined || sudo === '' ? caller : switchUser(em, caller, sudo);
}

async function userById(em: EntityManager, id: number): Promise<User | null> {
  // A user's ID is a PostgreSQL integer: anything else names no user (and would not bind).
  if (!Number.isInteger(id) || id < 1 || id > 2_147_483_647) return null;
  const [user] = await readRows(em, User, sql`select * from "users" where "id" = ${id}`);
  return user ?? null;
}

async function userByUsername(em: EntityManager, username: string): Promise<User | null> {
  // A NUL can be in no username (and PostgreSQL takes none in text).
  if (username.includes('\u0000')) return null;
  const [user] = await readRows(em, User, sql`select * from "users" where "username_lower" = ${username.toLowerCase()}`);
  return user ?? null;
}

function trusted(user: User | null): Caller {
  if (!user || user.state === 'blocked') throw new UnauthorizedError();
  return { user, scopes: null, token: null, privateToken: null };
}

/**
 * The token and its user in one statement. Rows come as JSON so that each table's columns map to its
 * entity's properties as they are.
 */
const tokenWithUser = (digest: string) =>
  sql`select to_jsonb(t) as token, to_jsonb(u) as "user" from access_tokens t join users u on u.id = t.user_id
    where t.token_digest = ${digest}`;

async function readTokenOwner(em: EntityManager, digest: string): Promise<TokenOwner | undefined> {
  const [row] = (await queryRows(em, tokenWithUser(digest))) as { token: Record<string, unknown>; user: Record<string, unknown> }[];
  if (!row) return undefined;
  const user = rowAs(em, User, row.user);
  const token = rowAs(em, AccessToken, row.token);
  token.user = user;
  return { token: Object.freeze(token), user: Object.freeze(user) };
}

async function byToken(em: EntityManager, tokens: TokenCache, token: string, clock: Clock): Promise<Caller> {
  const digest = tokenDigest(token);
  const owner = await tokens.read(digest, () => readTokenOwner(em, digest));
  if (!owner) throw new UnauthorizedError();
  const { token: record, user } = owner;
  if (record.revoked || (record.expiresAt && record.expiresAt.getTime() <= clock.now().getTime())) throw new UnauthorizedError();
  if (user.state === 'blocked') throw new UnauthorizedError();
  return {
    user,
    scopes: record.kind === 'private' ? PRIVATE_TOKEN_SCOPES : record.scopes,
    token: record,
    privateToken: record.kind === 'private' ? token : null,
  };
}

/** `SUDO: <id or username>`: an administrator acts as another user. */
export async function switchUser(em: EntityManager, caller: Caller, sudo: number | string): Promise<Caller> {
  if (!caller.user?.admin) throw new ForbiddenError('Must be admin to use sudo');
  if (caller.scopes && !caller.scopes.includes('sudo')) throw new InsufficientScopeError(['sudo']);
  const text = String(sudo);
  // All digits: a user ID (none past the integer range exists).
  const target = /^\d+$/.test(text) ? await userById(em, Number(text)) : await userByUsername(em, text);
  if (!target) throw new NotFoundError(`404 Not Found: No user id or username for: ${text}`, { verbatim: true });
  return { ...caller, user: target, privateToken: null };
}
