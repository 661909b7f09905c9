import { ForbiddenError, InsufficientScopeError, UnauthorizedError } from '../errors.js';
import type { Caller } from './caller.js';

/** What a route declares about who may call it (see src/api/route.ts). */
export interface RouteRule {
  method: string;
  auth: 'public' | 'user' | 'admin';
  readUser?: boolean;
}

/** The token scopes that admit a call to the route. */
export function scopesFor(rule: RouteRule): string[] {
  if (rule.method !== 'GET') return ['api'];
  return rule.readUser ? ['api', 'read_api', 'read_user'] : ['api', 'read_api'];
}

/** Enforces a route's declared rule: signed in (401), token scopes (403), administrator (403). */
export function checkAccess(rule: RouteRule, caller: Caller): void {
  if (rule.auth !== 'public' && !caller.user) throw new UnauthorizedError();
  if (caller.user && caller.scopes) {
    const allowed = scopesFor(rule);
    if (!caller.scopes.some((scope) => allowed.includes(scope))) throw new InsufficientScopeError(allowed);
  }
  if (rule.auth === 'admin' && !caller.user?.admin) throw new ForbiddenError();
}
