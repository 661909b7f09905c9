import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { can, refusalHides, type Ability } from '../auth/abilities.js';
import { checkAccess } from '../auth/access.js';
import { authenticate, type Caller, callersChangedIn, switchUser, type CallerIdentity } from '../auth/caller.js';
import type { EntityManager } from '../db/orm.js';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  type NotFoundError,
  OAuthError,
  ServiceUnavailableError,
  UnauthorizedError,
} from '../errors.js';
import { RepositoryMissingError } from '../git/errors.js';
import { queryRows } from '../db/rows.js';
import { sql } from '../db/sql.js';
import { isTransientDatabaseError } from '../db/transient.js';
import { describeFailure } from '../logger.js';
import type { AdminOnlyRule } from '../schemas/common.js';
import { Context, type Environment } from '../services/context.js';
import { WatchedApiCall } from '../testing/journal.js';
import type { Page } from '../services/pagination.js';
import { responseFor, type AnyRoute } from './route.js';
import { NESTED_SCOPES, type NestedScopeName, type ScopeName } from './params.js';
import { SCOPES } from './scopes.js';
import { parseInput, responseMismatches } from './validation.js';

/** No parameter of the API nests deeper; a deeper input is refused before anything walks it. */
const MAX_INPUT_DEPTH = 32;

/** Copies what a caller passed in, so that coercion never changes the caller's own objects. */
function copyInput(value: unknown, depth = 0, name = 'base'): unknown {
  if (depth > MAX_INPUT_DEPTH) throw BadRequestError.invalid(name, 'is nested too deeply');
  if (Array.isArray(value)) return value.map((item) => copyInput(item, depth + 1, name));
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyInput(item, depth + 1, depth === 0 ? key : name)]));
  }
  return value;
}

/**
 * Administrators' parameters (`AdminOnly` in the route's input schema) given by anyone else: the call is
 * refused with 403 where the schema says so, and otherwise they are dropped.
 */
function applyAdminOnly(route: AnyRoute, input: Record<string, unknown>): void {
  const given = Object.entries(route.input?.properties ?? {}).flatMap(([name, schema]) => {
    const rule = (schema as { 'x-admin-only'?: AdminOnlyRule })['x-admin-only'];
    return rule && input[name] !== undefined ? [{ name, rule }] : [];
  });
  const refused = (rule: AdminOnlyRule) => rule === 'forbidden' || (typeof rule === 'object' && input[rule.forbiddenWith] !== undefined);
  if (given.some(({ rule }) => refused(rule))) throw new ForbiddenError();
  for (const { name } of given) delete input[name];
}

/** A scope as the pipeline walks it: its loader, and for a nested one its outer scope and its path parameter. */
interface LoadableScope {
  key: string;
  parent?: ScopeName;
  reads?: Ability;
  load(ctx: Context, ...ids: unknown[]): Promise<object | null>;
  notFound(): NotFoundError;
  forbidden?(): ForbiddenError | UnauthorizedError;
}

/**
 * The route's scope: the resource its path names, loaded (404 when missing) and held to the route's ability
 * (404 when refused and the ability hides existence, 403 otherwise, or the scope's own refusal). A nested
 * scope's outer resources are loaded first, outermost from the path's first parameter, and each must be readable
 * (404 as that scope's otherwise); each inner one comes from its own parameter. `run` finds the innermost among
 * its parameters.
 */
async function loadScope(route: AnyRoute, ctx: Context, params: Record<string, unknown>): Promise<void> {
  if (!route.scope) return;
  const scope = SCOPES[route.scope] as LoadableScope;
  const resource = await loadResource(route.scope, ctx, params, Object.keys(route.params?.properties ?? {})[0]);
  if (route.ability && !can(ctx.caller, route.ability, resource as never)) {
    throw refusalHides(ctx.caller, route.ability, resource as never) ? scope.notFound() : (scope.forbidden?.() ?? new ForbiddenError());
  }
  params[scope.key] = resource;
}

/** A scope's resource, through the scopes it is in: `first` names the path parameter of the outermost. */
async function loadResource(name: ScopeName, ctx: Context, params: Record<string, unknown>, first: string): Promise<object> {
  const scope = SCOPES[name] as LoadableScope;
  let resource: object | null;
  if (scope.parent) {
    const parent = await loadResource(scope.parent, ctx, params, first);
    if (!can(ctx.caller, scope.reads!, parent as never)) throw (SCOPES[scope.parent] as LoadableScope).notFound();
    resource = await scope.load(ctx, parent, params[NESTED_SCOPES[name as NestedScopeName].parameter], params);
  } else {
    resource = await scope.load(ctx, params[first]);
  }
  if (!resource) throw scope.notFound();
  return resource;
}

/** A route's input as HTTP has it: read only once the caller is authenticated, with the `sudo` it may carry. */
export type InputReader = () => Promise<{ input: unknown; sudo?: string }>;

/** One call of a route, as a way in hands it over. */
export interface Call {
  identity: CallerIdentity;
  params: Record<string, unknown>;
  /** The input object, or (HTTP) how to read it. */
  input: unknown;
  readInput?: InputReader;
  /** Where the caller reached the service (scheme, host and mount point), when no base URL is configured. */
  baseUrl?: string;
  /** The client's network address (HTTP): failed authentication is throttled per address. */
  clientAddress?: string;
  /** The request as HTTP had it, for a test double's journal and faults: its body once read, credentials taken out. */
  http?: { method: string; path: string; query: Record<string, unknown>; body(): Record<string, unknown> | undefined };
}

/** A refused credential: a wrong password, an unknown login, an invalid token or refresh token. */
const isAuthenticationFailure = (error: unknown) =>
  error instanceof UnauthorizedError || (error instanceof OAuthError && error.error === 'invalid_grant');

/**
 * One call of a route, whichever way it came in: authenticate the caller, read the input (only then: a
 * stranger's body is never read), apply the route's access rule, validate and coerce the parameters, run
 * the service (in a transaction for writes, so a failed write changes nothing) and, when asked, check the
 * answer's shape. Past the call's deadline it answers 503 (CallDeadline); closing waits for it to end all the same.
 */
export async function invoke(env: Environment, route: AnyRoute, call: Call): Promise<unknown> {
  const release = env.calls.begin();
  const deadline = new CallDeadline(env.requestTimeoutMs);
  // A test double journals each call and may fault it (src/testing/); anything else pays one check.
  const watched = env.testDouble?.enabled ? new WatchedApiCall(env.testDouble, route, call) : undefined;
  const work = deadline.race(runCall(env, route, call, deadline, watched).finally(release));
  return watched ? watched.settle(work) : work;
}

async function runCall(env: Environment, route: AnyRoute, call: Call, deadline: CallDeadline, watched?: WatchedApiCall): Promise<unknown> {
  // The call's context, kept for the work it leaves for after its commit, or for its failure.
  let called: Context | undefined;
  // A write that moved references: its transaction, to learn its outcome should the commit's answer be lost.
  let transaction: string | undefined;
  let answer: unknown;
  try {
    // An invalid token counts against the client's address; a valid one costs the throttle nothing.
    let caller = await authenticate(env.db.rows, env.tokens, call.identity, env.clock).catch(async (error: unknown) => {
      if (isAuthenticationFailure(error)) await env.throttle.failed(env.throttle.keys(call.clientAddress, undefined));
      throw error;
    });
    const { input: rawInput, sudo } = call.readInput ? await call.readInput() : { input: call.input };
    if (sudo !== undefined && sudo !== '') caller = await switchUser(env.db.rows, caller, sudo);
    // Once the caller is known, which a fault may name: the call meets it instead of running.
    if (watched) await watched.reached(caller);
    checkAccess(route, caller);
    const params = route.params ? parseInput<Record<string, never>>(route.params, copyInput(call.params)) : {};
    const input = route.input ? parseInput<Record<string, never>>(route.input, copyInput(rawInput ?? {})) : {};
    if (!can(caller, 'admin_all_resources')) applyAdminOnly(route, input);
    // A sign-in is refused while its address or login has used up its failures, even with the right password.
    const signInKeys = route.signInLogin ? env.throttle.keys(call.clientAddress, route.signInLogin(input)) : [];
    await env.throttle.check(signInKeys);
    const baseUrl = env.baseUrl ?? call.baseUrl ?? 'http://localhost';
    const execute = async (txEm?: EntityManager) => {
      const ctx = (called = new Context(caller, env, baseUrl, txEm, call.clientAddress));
      await loadScope(route, ctx, params);
      const result = await route.run(ctx, params, input);
      // A write that changed a user or a token: the callers kept in this process are forgotten now, and again
      // as it commits, before it answers (TokenCache).
      if (txEm && (await callersChangedIn(txEm))) env.tokens.changing(txEm.getTransactionContext());
      // Checked before the transaction commits, against the caller's own shape: an answer outside it changes nothing.
      const response = responseFor(route, can(caller, 'read_all_resources'));
      if (env.checkResponses && response) {
        const mismatches = responseMismatches(response, route.list ? (result as Page<unknown>).items : result);
        if (mismatches.length) throw new Error(`${route.method} ${route.path} answered outside its schema: ${mismatches.join('; ')}`);
      }
      if (txEm) {
        if (ctx.undoesOnFailure && env.db.shared) transaction = await transactionId(txEm);
        deadline.commit();
      }
      answer = result;
      return result;
    };
    const result = await (route.method === 'GET' || route.waitsOnRemote ? execute() : env.db.fork().transactional(execute)).catch(
      async (error: unknown) => {
        // Counted once the call's transaction has rolled back, so that the count stays.
        if (isAuthenticationFailure(error)) await env.throttle.failed(signInKeys);
        throw error;
      },
    );
    await called?.runAfterCommit();
    // The embedders' subscribers have heard of what the call recorded before it answers.
    if (route.method !== 'GET') await env.events.delivered();
    return result;
  } catch (error) {
    return settleFailure(env, `${route.method} ${route.path}`, error, called, transaction, answer);
  }
}

/**
 * `work` as a write call runs it, for a way in that is no route (a git push): in a transaction of its own, its work
 * for after the commit run once it has committed, and a failure settled as a route's is (settleFailure).
 */
export async function runWrite<T>(
  env: Environment,
  caller: Caller,
  baseUrl: string,
  clientAddress: string | undefined,
  work: (ctx: Context) => Promise<T>,
): Promise<T> {
  let called: Context | undefined;
  let transaction: string | undefined;
  let answer: T | undefined;
  try {
    const result = await env.db.fork().transactional(async (em) => {
      const ctx = (called = new Context(caller, env, baseUrl, em, clientAddress));
      answer = await work(ctx);
      if (ctx.undoesOnFailure && env.db.shared) transaction = await transactionId(em);
      return answer;
    });
    await called?.runAfterCommit();
    await env.events.delivered();
    return result;
  } catch (error) {
    return (await settleFailure(env, 'a write', error, called, transaction, answer)) as T;
  }
}

/**
 * A failed call's end: what it did outside the database undone (a reference moved back), and the error as the caller
 * is told it. A transient failure of the database answers 503; when it cut off a commit's answer, the database is asked
 * whether the commit happened: if it did, the call succeeded after all and `answer` is returned.
 */
async function settleFailure(
  env: Environment,
  what: string,
  error: unknown,
  called: Context | undefined,
  transaction: string | undefined,
  answer: unknown,
): Promise<unknown> {
  if (isTransientDatabaseError(error)) {
    env.logger.warn(`forgekit: ${what} failed for now (the database): ${describeFailure(error).split('\n')[0]}`);
    const outcome = transaction === undefined ? 'aborted' : await transactionOutcome(env, transaction);
    if (outcome === 'committed') {
      await called?.runAfterCommit();
      await env.events.delivered();
      return answer;
    }
    // Undoing a write that may yet have committed could lose it: its references stay where it moved them.
    if (outcome === 'aborted') await called?.runOnFailure();
    else env.logger.error(`forgekit: the outcome of transaction ${transaction} is unknown; the references it moved stay`);
    throw new ServiceUnavailableError('the database is unavailable for now', DATABASE_RETRY_AFTER);
  }
  await called?.runOnFailure();
  // Two writers raced for the same unique value; the one that lost changed nothing.
  if (error instanceof UniqueConstraintViolationException) throw new ConflictError();
  // Said at start, and to each call that needs it: never read as an empty repository.
  if (error instanceof RepositoryMissingError) throw new ServiceUnavailableError("the project's repository is missing from its storage");
  throw error;
}

/** What a call that met a transient failure of the database tells its client to wait, in seconds. */
const DATABASE_RETRY_AFTER = 1;

/**
 * A call's deadline. Past it a call that has not begun to commit answers 503 at once, and rolls back when it next
 * reaches the database (its statements are bounded by the session's own timeouts); one that is committing is let finish.
 */
class CallDeadline {
  private expired = false;
  private committing = false;

  constructor(private readonly ms: number) {}

  race<T>(work: Promise<T>): Promise<T> {
    if (!this.ms) return work;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.committing) return;
        this.expired = true;
        reject(new ServiceUnavailableError('the call ran past its deadline', DATABASE_RETRY_AFTER));
      }, this.ms);
      work.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  /** The write is about to commit: past the deadline it rolls back instead; from here on it is no longer cut short. */
  commit(): void {
    if (this.expired) throw new ServiceUnavailableError('the call ran past its deadline', DATABASE_RETRY_AFTER);
    this.committing = true;
  }
}

/** The ID of `em`'s transaction (PostgreSQL's xid8, as text). */
async function transactionId(em: EntityManager): Promise<string> {
  const [row] = await queryRows(em, sql`select pg_current_xact_id()::text as "xid"`);
  return row.xid as string;
}

/**
 * Whether a transaction whose commit went unanswered committed, asked on another connection for a few seconds
 * (the database may be coming back): `unknown` when it could not be asked.
 */
async function transactionOutcome(env: Environment, xid: string): Promise<'committed' | 'aborted' | 'unknown'> {
  for (let attempt = 0; attempt < OUTCOME_ATTEMPTS; attempt++) {
    try {
      const [row] = await queryRows(env.db.rows, sql`select pg_xact_status(${xid}::xid8) as "status"`);
      if (row.status === 'committed') return 'committed';
      // Ended by the server with its session: nothing of it stands.
      if (row.status !== 'in progress') return 'aborted';
    } catch (error) {
      if (!isTransientDatabaseError(error)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, OUTCOME_RETRY_MS));
  }
  return 'unknown';
}

const OUTCOME_ATTEMPTS = 10;
const OUTCOME_RETRY_MS = 500;
