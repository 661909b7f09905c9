import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { checkAccess } from '../auth/access.js';
import { authenticate, type CallerIdentity } from '../auth/caller.js';
import type { EntityManager } from '../db/orm.js';
import { BadRequestError, ConflictError } from '../errors.js';
import { Context, type Environment } from '../services/context.js';
import type { AnyRoute, Page } from './route.js';
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
    const result = await route.run(new Context(em, caller, env), params, input);
    // Checked before the transaction commits: an answer outside its schema changes nothing.
    if (env.checkResponses && route.response) {
      const mismatches = responseMismatches(route.response, route.paginated ? (result as Page<unknown>).items : result);
      if (mismatches.length) throw new Error(`${route.method} ${route.path} answered outside its schema: ${mismatches.join('; ')}`);
    }
    return result;
  };
  try {
    const em = env.db.fork();
    return route.method === 'GET' ? await execute(em) : await em.transactional(execute);
  } catch (error) {
    // Two writers raced for the same unique value; the one that lost changed nothing.
    if (error instanceof UniqueConstraintViolationException) throw new ConflictError();
    throw error;
  }
}
