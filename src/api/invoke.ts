import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { can, refusalHides, type Ability } from '../auth/abilities.js';
import { checkAccess } from '../auth/access.js';
import { authenticate, callersChangedIn, switchUser, type CallerIdentity } from '../auth/caller.js';
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
import type { AdminOnlyRule } from '../schemas/common.js';
import { Context, type Environment } from '../services/context.js';
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
}

/** A refused credential: a wrong password, an unknown login, an invalid token or refresh token. */
const isAuthenticationFailure = (error: unknown) =>
  error instanceof UnauthorizedError || (error instanceof OAuthError && error.error === 'invalid_grant');

/**
 * One call of a route, whichever way it came in: authenticate the caller, read the input (only then: a
 * stranger's body is never read), apply the route's access rule, validate and coerce the parameters, run
 * the service (in a transaction for writes, so a failed write changes nothing) and, when asked, check the
 * answer's shape.
 */
export async function invoke(env: Environment, route: AnyRoute, call: Call): Promise<unknown> {
  const release = env.calls.begin();
  // The call's context, kept for the work it leaves for after its commit, or for its failure.
  let called: Context | undefined;
  try {
    // An invalid token counts against the client's address; a valid one costs the throttle nothing.
    let caller = await authenticate(env.db.rows, env.tokens, call.identity).catch(async (error: unknown) => {
      if (isAuthenticationFailure(error)) await env.throttle.failed(env.throttle.keys(call.clientAddress, undefined));
      throw error;
    });
    const { input: rawInput, sudo } = call.readInput ? await call.readInput() : { input: call.input };
    if (sudo !== undefined && sudo !== '') caller = await switchUser(env.db.rows, caller, sudo);
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
      return result;
    };
    const result = await (route.method === 'GET' ? execute() : env.db.fork().transactional(execute)).catch(async (error: unknown) => {
      // Counted once the call's transaction has rolled back, so that the count stays.
      if (isAuthenticationFailure(error)) await env.throttle.failed(signInKeys);
      throw error;
    });
    await called?.runAfterCommit();
    // The embedders' subscribers have heard of what the call recorded before it answers.
    if (route.method !== 'GET') await env.events.delivered();
    return result;
  } catch (error) {
    await called?.runOnFailure();
    // Two writers raced for the same unique value; the one that lost changed nothing.
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError();
    // Said at start, and to each call that needs it: never read as an empty repository.
    if (error instanceof RepositoryMissingError) throw new ServiceUnavailableError("the project's repository is missing from its storage");
    throw error;
  } finally {
    release();
  }
}
