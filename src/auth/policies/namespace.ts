import type { Namespace } from '../../db/entities/index.js';
import { ACCESS_LEVELS } from '../levels.js';
import type { Caller } from '../caller.js';
import { definePolicy } from '../policy.js';

/** A namespace with what the caller is to it (read with it: services/projects/namespaces.ts). */
export interface NamespaceInScope {
  namespace: Namespace;
  /** The caller's own namespace (a user's). */
  own: boolean;
  /** A group the caller is itself a member of (not by inheritance). */
  member: boolean;
  /** The caller's level on a group: its membership of it or of a group above it; 0 for none (and for a user's namespace). */
  accessLevel: number;
}

/**
 * Who may see a namespace (GET /namespaces/:id): its user, its group's members, administrators. Who may put
 * projects in it (create, fork, transfer): its user, its group's maintainers and owners, administrators.
 */
export const namespacePolicy = definePolicy({
  abilities: ['read_namespace', 'create_projects'],
  conditions: {
    admin: (caller: Caller) => caller.user?.admin === true,
    own: (_caller: Caller, scoped: NamespaceInScope) => scoped.own,
    member: (_caller: Caller, scoped: NamespaceInScope) => scoped.member,
    group: (_caller: Caller, scoped: NamespaceInScope) => scoped.namespace.kind === 'group',
    maintainer: (_caller: Caller, scoped: NamespaceInScope) => scoped.accessLevel >= ACCESS_LEVELS.maintainer,
  },
  rules: [
    { when: (is) => is.own || is.member || is.admin, enable: ['read_namespace'] },
    { when: (is) => is.own || (is.group && is.maintainer) || is.admin, enable: ['create_projects'] },
  ],
  hidden: { abilities: ['read_namespace'] },
});
