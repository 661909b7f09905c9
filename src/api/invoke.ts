import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { checkAccess } from '../auth/access.js';
import { authenticate, type CallerIdentity } from '../auth/caller.js';
import type { EntityManager } from '../db/orm.js';
import { ConflictError } from '../errors.js';
import { Context, type Environment } from '../services/context.js';
import type { AnyRoute, Page } from './route.js';
import { parseInput, responseMismatches } from './validation.js';

/** Copies what a caller passed in, so that coercion never changes the caller's own objects. */
function copyInput(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyInput);
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyInput(item)]));
  }
  return value;
}

/**
 * One call of a route, whichever way it came in: authenticate the caller, apply the route's access
 * rule, validate and coerce the parameters, run the service in its own database session (a
 * transaction for writes, so a failed write changes nothing) and, when asked, check the answer's shape.
 */
export async function invoke(
  env: Environment,
  route: AnyRoute,
  identity: CallerIdentity,
  rawParams: Record<string, unknown>,
  rawInput: unknown,
): Promise<unknown> {
  const execute = async (em: EntityManager) => {
    const caller = await authenticate(em, identity);
    checkAccess(route, caller);
    const params = route.params ? parseInput<Record<string, never>>(route.params, copyInput(rawParams)) : {};
    const input = route.input ? parseInput<Record<string, never>>(route.input, copyInput(rawInput ?? {})) : {};
    return route.run(new Context(em, caller, env), params, input);
  };
  let result: unknown;
  try {
    const em = env.db.fork();
    result = route.method === 'GET' ? await execute(em) : await em.transactional(execute);
  } catch (error) {
    // Two writers raced for the same unique value; the one that lost changed nothing.
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError();
    throw error;
  }
  if (env.checkResponses && route.response) {
    const body = route.paginated ? (result as Page<unknown>).items : result;
    const mismatches = responseMismatches(route.response, body);
    if (mismatches.length) throw new Error(`${route.method} ${route.path} answered outside its schema: ${mismatches.join('; ')}`);
  }
  return result;
}
