import { ACCESS_LEVELS, type AccessToken, type Namespace, type Project, type User } from '../db/entities/index.js';
import { canReadProject } from './access-levels.js';
import type { Caller } from './caller.js';

/**
 * What a caller may do with a resource, by ability name, as the original service's policies name them.
 * Routes declare the ability they need and the pipeline asks here; services ask for the rest. An ability
 * that is `hidden` is refused as if the resource did not exist (404), so that its existence does not leak;
 * any other is refused with 403. `hidden` may depend on the caller (404 to whoever may not see the resource).
 */
export type Ability =
  | 'read_user'
  | 'manage_personal_access_token'
  | 'read_namespace'
  | 'read_project'
  | 'admin_project'
  | 'rename_project'
  | 'change_visibility_level'
  | 'remove_project'
  | 'change_namespace'
  | 'fork_project'
  | 'download_code'
  | 'push_code'
  | 'create_commit_status'
  | 'create_note'
  | 'admin_project_member'
  | 'read_group'
  | 'admin_group'
  | 'admin_group_member';

/** A project a call named, with its namespace and the caller's levels on it (loaded together: services/projects.ts). */
export interface ProjectInScope {
  project: Project;
  namespace: Namespace;
  /** The caller's access level: the highest of its memberships (src/auth/access-levels.ts); 0 for none. */
  accessLevel: number;
  /** Its own membership's level, and its groups' (inherited): null without one. */
  projectAccess: number | null;
  groupAccess: number | null;
}

const readsProject = (caller: Caller, scoped: ProjectInScope) => canReadProject(caller, scoped.project.visibility, scoped.accessLevel);
const ownsProject = (caller: Caller, scoped: ProjectInScope) => caller.user?.admin === true || scoped.accessLevel >= ACCESS_LEVELS.owner;
/** Project abilities beyond reading: 404 to whoever may not see the project, 403 to other readers. */
const hiddenFromNonReaders = (caller: Caller, scoped: ProjectInScope) => !readsProject(caller, scoped);

/** A namespace a call named, with whether the caller may see it (decided with the loading: services/namespaces.ts). */
export interface NamespaceInScope {
  namespace: Namespace;
  visible: boolean;
}

/** A group a call named, with the caller's level on it (inherited) and whether it may see it (services/groups.ts). */
export interface GroupInScope {
  group: Namespace;
  /** The caller's level: its membership of the group or of a group above it; 0 for none. */
  accessLevel: number;
  visible: boolean;
}

const ownsGroup = (caller: Caller, scoped: GroupInScope) => caller.user?.admin === true || scoped.accessLevel >= ACCESS_LEVELS.owner;
const maintainsProject = (caller: Caller, scoped: ProjectInScope) => caller.user?.admin === true || scoped.accessLevel >= ACCESS_LEVELS.maintainer;

/** Reading a project's repository: whoever sees a public or internal project; reporters and above of a private one. */
const readsCode = (caller: Caller, scoped: ProjectInScope) =>
  readsProject(caller, scoped) && (scoped.project.visibility !== 'private' || caller.user?.admin === true || scoped.accessLevel >= ACCESS_LEVELS.reporter);
/**
 * Writing to a project's repository (and what is written beside it): its developers and above, while the project
 * is not archived. An archived project is read-only to everyone, administrators too, as in the original (its
 * `archived` condition prevents the write abilities whoever enables them).
 */
const developsProject = (caller: Caller, scoped: ProjectInScope) =>
  !scoped.project.archived && (caller.user?.admin === true || scoped.accessLevel >= ACCESS_LEVELS.developer);

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
  /** A project the caller may not see does not exist for it (SPEC: a private project is 404 to non-members). */
  read_project: { hidden: true, allows: readsProject },
  /** Changing a project's settings: its maintainers and owners. */
  admin_project: { hidden: hiddenFromNonReaders, allows: maintainsProject },
  /** Renaming a project (name or path): its owners and administrators. */
  rename_project: { hidden: hiddenFromNonReaders, allows: ownsProject },
  /** Changing a project's visibility: its owners and administrators. */
  change_visibility_level: { hidden: hiddenFromNonReaders, allows: ownsProject },
  /** Deleting a project: its owners and administrators. */
  remove_project: { hidden: hiddenFromNonReaders, allows: ownsProject },
  /** Moving a project to another namespace: its owners and administrators. */
  change_namespace: { hidden: hiddenFromNonReaders, allows: ownsProject },
  /** Forking a project: whoever may read its code (anyone who sees a public or internal one; reporters and above of a private one). */
  fork_project: { hidden: hiddenFromNonReaders, allows: readsCode },
  /** Reading the repository (files, commits, branches, tags, releases, statuses and comments on commits). */
  download_code: { hidden: hiddenFromNonReaders, allows: readsCode },
  /** Writing to the repository (commits, branches, tags, releases): developers and above, not in an archived project; a protected branch asks more (pushesToBranch). */
  push_code: { hidden: hiddenFromNonReaders, allows: developsProject },
  /** Posting a commit's status: developers and above, not in an archived project. */
  create_commit_status: { hidden: hiddenFromNonReaders, allows: developsProject },
  /** Commenting on a commit: any signed-in caller who may read the code, not in an archived project. */
  create_note: { hidden: hiddenFromNonReaders, allows: (caller: Caller, scoped: ProjectInScope) => caller.user !== null && !scoped.project.archived && readsCode(caller, scoped) },
  /** Adding, changing and removing a project's members: its maintainers and owners. */
  admin_project_member: { hidden: hiddenFromNonReaders, allows: maintainsProject },
  /** A group the caller may not see does not exist for it. */
  read_group: { hidden: true, allows: (_caller: Caller, scoped: GroupInScope) => scoped.visible },
  /** Changing or deleting a group, and making subgroups in it: its owners (inherited) and administrators. */
  admin_group: { hidden: (_caller: Caller, scoped: GroupInScope) => !scoped.visible, allows: ownsGroup },
  /** Adding, changing and removing a group's members: its owners and administrators. */
  admin_group_member: { hidden: (_caller: Caller, scoped: GroupInScope) => !scoped.visible, allows: ownsGroup },
} satisfies Record<Ability, { hidden: boolean | ((caller: Caller, resource: never) => boolean); allows(caller: Caller, resource: never): boolean }>;

/** A protected branch's rule: the lowest level that may push to it (null: the branch is not protected). */
export interface BranchProtection {
  pushAccessLevel: number;
}

/**
 * Whether the caller may write to a branch (commit, delete, cherry-pick onto it): `push_code`, and on a protected
 * branch the level its protection asks (administrators always may, as in the original).
 */
export function pushesToBranch(caller: Caller, scoped: ProjectInScope, protection: BranchProtection | null): boolean {
  if (!can(caller, 'push_code', scoped)) return false;
  if (protection === null || caller.user?.admin === true) return true;
  // Level 0 is "no one" (but administrators).
  return protection.pushAccessLevel !== 0 && scoped.accessLevel >= protection.pushAccessLevel;
}

/** Whether a refusal of `ability` on `resource` answers 404 (hiding that it exists) rather than 403. */
export function refusalHides<A extends Ability>(caller: Caller, ability: A, resource: AbilityResource<A>): boolean {
  const hidden = ABILITIES[ability].hidden as boolean | ((caller: Caller, resource: AbilityResource<A>) => boolean);
  return typeof hidden === 'function' ? hidden(caller, resource) : hidden;
}

export type AbilityResource<A extends Ability> = Parameters<(typeof ABILITIES)[A]['allows']>[1];

export function can<A extends Ability>(caller: Caller, ability: A, resource: AbilityResource<A>): boolean {
  return (ABILITIES[ability].allows as (caller: Caller, resource: AbilityResource<A>) => boolean)(caller, resource);
}
