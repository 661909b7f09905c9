import type { AccessToken, Namespace, User } from '../db/entities/index.js';
import type { Caller } from './caller.js';

/**
 * What a caller may do with a resource, by ability name, as the original service's policies name them.
 * Routes declare the ability they need and the pipeline asks here; services ask for the rest. An ability
 * that is `hidden` is refused as if the resource did not exist (404), so that its existence does not leak;
 * any other is refused with 403.
 */
export type Ability = 'read_user' | 'manage_personal_access_token' | 'read_namespace';

/** A namespace a call named, with whether the caller may see it (decided with the loading: services/namespaces.ts). */
export interface NamespaceInScope {
  namespace: Namespace;
  visible: boolean;
}

export const ABILITIES = {
  /** Every signed-in caller sees every user's public profile. */
  read_user: { hidden: true, allows: (caller: Caller, _user: User) => caller.user !== null },
  /** A personal access token is its owner's, and any administrator's, to see and revoke. */
  manage_personal_access_token: {
    hidden: true,
    allows: (caller: Caller, token: AccessToken) => caller.user !== null && (caller.user.admin || (token.user as User).id === caller.user.id),
  },
  /** A namespace is its user's, its group members', and any administrator's to see. */
  read_namespace: { hidden: true, allows: (_caller: Caller, scoped: NamespaceInScope) => scoped.visible },
} satisfies Record<Ability, { hidden: boolean; allows(caller: Caller, resource: never): boolean }>;

export type AbilityResource<A extends Ability> = Parameters<(typeof ABILITIES)[A]['allows']>[1];

export function can<A extends Ability>(caller: Caller, ability: A, resource: AbilityResource<A>): boolean {
  return (ABILITIES[ability].allows as (caller: Caller, resource: AbilityResource<A>) => boolean)(caller, resource);
}
