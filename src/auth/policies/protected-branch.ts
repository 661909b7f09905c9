import type { ProtectedBranch } from '../../db/entities/index.js';
import type { Caller } from '../caller.js';
import { definePolicy } from '../policy.js';
import { projectPolicy, type ProjectInScope } from './project.js';

/** A branch protection a call named by its name or pattern, with its project as the project's scope loaded it. */
export interface ProtectedBranchInScope {
  protection: ProtectedBranch;
  project: ProjectInScope;
}

/**
 * A subject inside a project, as issues, merge requests and notes will be: its abilities come from the project's
 * (a protection is the project's maintainers' to read and take away), and it is hidden where the project is.
 */
export const protectedBranchPolicy = definePolicy({
  abilities: ['read_protected_branch', 'destroy_protected_branch'],
  conditions: {
    sees_project: (caller: Caller, scoped: ProtectedBranchInScope) => projectPolicy.allows(caller, 'read_project', scoped.project),
    admin_project: (caller: Caller, scoped: ProtectedBranchInScope) => projectPolicy.allows(caller, 'admin_project', scoped.project),
  },
  rules: [{ when: (is) => is.admin_project, enable: ['read_protected_branch', 'destroy_protected_branch'] }],
  hidden: { abilities: 'all', when: (is) => !is.sees_project },
});
