import type { Namespace } from '../../db/entities/index.js';
import { ACCESS_LEVELS } from '../levels.js';
import type { Caller } from '../caller.js';
import { definePolicy } from '../policy.js';

/** A group a call named, with the caller's level on it (inherited) and whether it may see it (services/projects/groups.ts). */
export interface GroupInScope {
  group: Namespace;
  /** The caller's level: its membership of the group or of a group above it; 0 for none. */
  accessLevel: number;
  /** Decided with the loading, by the one condition lists use too (visibleGroupsSql). */
  visible: boolean;
}

/**
 * Who may do what with a group: whoever sees it reads it; its developers (inherited) manage its milestones; its owners
 * (inherited) change it, its members and its subgroups.
 */
export const groupPolicy = definePolicy({
  abilities: ['read_group', 'admin_group', 'admin_group_member', 'create_subgroup', 'admin_milestones'],
  conditions: {
    admin: (caller: Caller) => caller.user?.admin === true,
    sees: (_caller: Caller, scoped: GroupInScope) => scoped.visible,
    developer: (_caller: Caller, scoped: GroupInScope) => scoped.accessLevel >= ACCESS_LEVELS.developer,
    owner: (_caller: Caller, scoped: GroupInScope) => scoped.accessLevel >= ACCESS_LEVELS.owner,
  },
  rules: [
    { when: (is) => is.sees, enable: ['read_group'] },
    { when: (is) => is.sees && (is.owner || is.admin), enable: ['admin_group', 'admin_group_member', 'create_subgroup'] },
    // The original's GroupPolicy of the era names it in the plural (`admin_milestones`), apart from the project's.
    { when: (is) => is.sees && (is.developer || is.admin), enable: ['admin_milestones'] },
  ],
  // A group the caller may not see does not exist for it.
  hidden: { abilities: 'all', when: (is) => !is.sees },
});
