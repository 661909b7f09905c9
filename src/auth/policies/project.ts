import type { Namespace, Project } from '../../db/entities/index.js';
import { ACCESS_LEVELS } from '../levels.js';
import type { Caller } from '../caller.js';
import { canReadProject } from '../access-levels.js';
import { definePolicy } from '../policy.js';

/** A project a call named, with its namespace and the caller's levels on it (loaded together: services/projects/projects.ts). */
export interface ProjectInScope {
  project: Project;
  namespace: Namespace;
  /** The caller's access level: the highest of its memberships (src/auth/access-levels.ts); 0 for none. */
  accessLevel: number;
  /** Its own membership's level, and its groups' (inherited): null without one. */
  projectAccess: number | null;
  groupAccess: number | null;
}

const signedIn = (caller: Caller) => caller.user !== null;
const admin = (caller: Caller) => caller.user?.admin === true;
const atLeast = (level: number) => (_caller: Caller, scoped: ProjectInScope) => scoped.accessLevel >= level;

/** What is written to a project's repository or beside it: what an archived project refuses to everyone. */
const WRITES = [
  'push_code',
  'push_to_delete_protected_branch',
  'create_commit_status',
  'create_note',
  'create_issue',
  'admin_issue',
  'admin_label',
  'admin_milestone',
  'create_merge_request_in',
  'create_merge_request_from',
  'admin_merge_request',
  'create_environment',
  'update_environment',
  'stop_environment',
  'destroy_environment',
] as const;

/**
 * Who may do what with a project. Its code is read by whoever sees a public or internal project and by reporters
 * and above of a private one; written by developers; maintainers administer it and its members; owners rename,
 * move, re-show and delete it. Administrators may do everything an archived project does not refuse to all.
 */
export const projectPolicy = definePolicy({
  abilities: [
    'read_project',
    'download_code',
    'fork_project',
    'read_statistics',
    'create_note',
    'push_code',
    'create_commit_status',
    'push_to_delete_protected_branch',
    'admin_project',
    'admin_project_member',
    'rename_project',
    'change_visibility_level',
    'change_namespace',
    'remove_project',
    'read_issues',
    'create_issue',
    'read_confidential_issues',
    'admin_issue',
    'set_issue_timestamps',
    'read_label',
    'admin_label',
    'read_milestone',
    'admin_milestone',
    'read_merge_requests',
    'create_merge_request_in',
    'create_merge_request_from',
    'admin_merge_request',
    'read_environment',
    'create_environment',
    'update_environment',
    'stop_environment',
    'destroy_environment',
    'admin_runner',
  ],
  conditions: {
    admin,
    signed_in: signedIn,
    // Public projects to anyone, internal ones to signed-in users who are not external, any to its members.
    sees: (caller, scoped: ProjectInScope) => canReadProject(caller, scoped.project.visibility, scoped.accessLevel),
    private_project: (_caller, scoped: ProjectInScope) => scoped.project.visibility === 'private',
    archived: (_caller, scoped: ProjectInScope) => scoped.project.archived === true,
    issues_enabled: (_caller, scoped: ProjectInScope) => scoped.project.issuesEnabled !== false,
    merge_requests_enabled: (_caller, scoped: ProjectInScope) => scoped.project.mergeRequestsEnabled !== false,
    // CI/CD (`jobs_enabled`, the original's builds feature), which environments belong to.
    jobs_enabled: (_caller, scoped: ProjectInScope) => scoped.project.jobsEnabled !== false,
    external: (caller) => caller.user?.external === true,
    guest: atLeast(ACCESS_LEVELS.guest),
    reporter: atLeast(ACCESS_LEVELS.reporter),
    developer: atLeast(ACCESS_LEVELS.developer),
    maintainer: atLeast(ACCESS_LEVELS.maintainer),
    owner: atLeast(ACCESS_LEVELS.owner),
  },
  rules: [
    { when: (is) => is.sees, enable: ['read_project'] },
    // Its code: whoever sees a public or internal project; reporters and above of a private one.
    { when: (is) => is.sees && (!is.private_project || is.reporter || is.admin), enable: ['download_code', 'fork_project'] },
    { when: (is) => is.signed_in && is.sees && (!is.private_project || is.reporter || is.admin), enable: ['create_note'] },
    { when: (is) => is.reporter || is.admin, enable: ['read_statistics'] },
    { when: (is) => is.developer || is.admin, enable: ['push_code', 'create_commit_status'] },
    { when: (is) => is.maintainer || is.admin, enable: ['admin_project', 'admin_project_member', 'push_to_delete_protected_branch'] },
    { when: (is) => is.owner || is.admin, enable: ['rename_project', 'change_visibility_level', 'change_namespace', 'remove_project'] },
    // Its issue tracker, while enabled: read and written by whoever sees it (signed in), managed by reporters.
    { when: (is) => is.sees && is.issues_enabled, enable: ['read_issues'] },
    { when: (is) => is.signed_in && is.sees && is.issues_enabled, enable: ['create_issue'] },
    { when: (is) => (is.reporter || is.admin) && is.issues_enabled, enable: ['read_confidential_issues', 'admin_issue'] },
    // Deleting issues, and giving the times they were made and changed (an import's), as the original allows owners.
    { when: (is) => (is.owner || is.admin) && is.issues_enabled, enable: ['set_issue_timestamps'] },
    // Labels and milestones: seen with the project, managed by reporters (labels) and developers (milestones).
    { when: (is) => is.sees, enable: ['read_label', 'read_milestone'] },
    { when: (is) => is.reporter || is.admin, enable: ['admin_label'] },
    { when: (is) => is.developer || is.admin, enable: ['admin_milestone'] },
    // Its merge requests, while enabled: read with its code; opened into it by developers, and by whoever reads the
    // code of a public or internal project (from a fork); from it by those who push to it; managed by developers.
    {
      when: (is) => is.sees && is.merge_requests_enabled && (!is.private_project || is.reporter || is.admin),
      enable: ['read_merge_requests'],
    },
    {
      when: (is) =>
        is.merge_requests_enabled && (is.developer || is.admin || (is.signed_in && is.sees && !is.private_project && !is.external)),
      enable: ['create_merge_request_in'],
    },
    { when: (is) => is.merge_requests_enabled && (is.developer || is.admin), enable: ['create_merge_request_from', 'admin_merge_request'] },
    // Environments, while CI/CD is enabled: read by reporters, managed by developers, as the original of 11.x has it
    // (developers `create_environment` and `update_environment`, which stopping and deleting one without deployments take).
    { when: (is) => is.jobs_enabled && (is.reporter || is.admin), enable: ['read_environment'] },
    {
      when: (is) => is.jobs_enabled && (is.developer || is.admin),
      enable: ['create_environment', 'update_environment', 'stop_environment', 'destroy_environment'],
    },
    // Its runners: listed, enabled and disabled by its maintainers (the original's `admin_project` on those routes).
    { when: (is) => is.maintainer || is.admin, enable: ['admin_runner'] },
    // Read-only to everyone, administrators too, until unarchived.
    { when: (is) => is.archived, prevent: WRITES },
  ],
  // A project the caller may not see does not exist for it (SPEC: a private project is 404 to non-members).
  hidden: { abilities: 'all', when: (is) => !is.sees },
});

/** A protected branch's rule: the lowest levels that may push to it and merge into it (null: the branch is not protected). */
export interface BranchProtection {
  pushAccessLevel: number;
  mergeAccessLevel?: number;
}

/**
 * Whether the caller may write to a branch (commit, delete, cherry-pick onto it): `push_code`, and on a protected
 * branch the level its protection asks (administrators always may, as in the original; level 0 is "no one" else).
 */
export function pushesToBranch(caller: Caller, scoped: ProjectInScope, protection: BranchProtection | null): boolean {
  if (!projectPolicy.allows(caller, 'push_code', scoped)) return false;
  if (protection === null || admin(caller)) return true;
  return protection.pushAccessLevel !== 0 && scoped.accessLevel >= protection.pushAccessLevel;
}

/**
 * Whether the caller may merge into a branch (accept a merge request): push to it, or merge into it as its
 * protection allows (`push_code` on an unprotected branch; the protection's merge level on a protected one).
 */
export function mergesToBranch(caller: Caller, scoped: ProjectInScope, protection: BranchProtection | null): boolean {
  if (pushesToBranch(caller, scoped, protection)) return true;
  if (!projectPolicy.allows(caller, 'push_code', scoped) || protection?.mergeAccessLevel === undefined) return false;
  return protection.mergeAccessLevel !== 0 && scoped.accessLevel >= protection.mergeAccessLevel;
}
