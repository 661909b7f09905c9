import type { AnyRoute } from '../api/route.js';
import { ForbiddenError, InsufficientScopeError, UnauthorizedError } from '../errors.js';
import type { Caller } from './caller.js';

/** The token scopes that admit a call to the route. */
export function scopesFor(route: AnyRoute): string[] {
  if (route.method !== 'GET') return ['api'];
  return route.readUser ? ['api', 'read_api', 'read_user'] : ['api', 'read_api'];
}

/** Enforces a route's declared rule: signed in (401), token scopes (403), administrator (403). */
export function checkAccess(route: AnyRoute, caller: Caller): void {
  if (route.auth !== 'public' && !caller.user) throw new UnauthorizedError();
  if (caller.user && caller.scopes) {
    const allowed = scopesFor(route);
    if (!caller.scopes.some((scope) => allowed.includes(scope))) throw new InsufficientScopeError(allowed);
  }
  if (route.auth === 'admin' && !caller.user?.admin) throw new ForbiddenError();
}
