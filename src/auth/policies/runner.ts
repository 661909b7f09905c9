import type { Runner } from '../../db/entities/index.js';
import type { Caller } from '../caller.js';
import { definePolicy } from '../policy.js';

/** A runner a call named, with what the caller is to it: read together (services/ci/runner-store.ts, one statement). */
export interface RunnerInScope {
  runner: Runner;
  /**
   * The caller owns it, as the original's `ci_owned_runners` says: a maintainer or above of a project it is enabled
   * in, or of its group (or of a group above that). Decided in SQL (ownedRunnersSql), as the lists decide it.
   */
  owned: boolean;
  /** The caller maintains every project it is enabled in and its group: who may see its token besides administrators. */
  administersAll: boolean;
  /** How many projects it is enabled in. */
  projectCount: number;
}

/**
 * Who may do what with a runner (the original's Ci::RunnerPolicy and its runners API): administrators everything;
 * its owners read, change, delete and enable it in their other projects; any signed-in user reads a shared runner
 * (as the original's `authenticate_show_runner!` lets them). Owners may not delete a runner enabled in several
 * projects (only its removal from each), nor enable a shared or a locked one elsewhere. Its token is shown to
 * administrators and to those who maintain everything it belongs to, a shared runner's to administrators only.
 * A runner the caller may not read is not there for it (404, as a private project is; the original answered 403
 * `No access granted`, which tells a stranger which runner IDs exist); other refusals are 403 `No access granted`.
 */
export const runnerPolicy = definePolicy({
  abilities: ['read_runner', 'update_runner', 'delete_runner', 'assign_runner', 'read_runner_token'],
  conditions: {
    admin: (caller: Caller, _scoped: RunnerInScope) => caller.user?.admin === true,
    /** Its owners and administrators; a shared runner, any signed-in user. */
    reads: (caller: Caller, scoped: RunnerInScope) =>
      caller.user !== null && (caller.user.admin || scoped.owned || scoped.runner.runnerType === 'instance_type'),
    owned: (caller: Caller, scoped: RunnerInScope) => caller.user !== null && scoped.owned,
    administers_all: (caller: Caller, scoped: RunnerInScope) => caller.user !== null && scoped.owned && scoped.administersAll,
    shared: (_caller: Caller, scoped: RunnerInScope) => scoped.runner.runnerType === 'instance_type',
    locked: (_caller: Caller, scoped: RunnerInScope) => scoped.runner.locked,
    several_projects: (_caller: Caller, scoped: RunnerInScope) => scoped.projectCount > 1,
  },
  rules: [
    { when: (is) => is.reads, enable: ['read_runner'] },
    { when: (is) => is.admin || is.owned, enable: ['update_runner', 'delete_runner', 'assign_runner'] },
    { when: (is) => !is.admin && is.several_projects, prevent: ['delete_runner'] },
    { when: (is) => !is.admin && (is.shared || is.locked), prevent: ['assign_runner'] },
    { when: (is) => is.admin || (is.administers_all && !is.shared), enable: ['read_runner_token'] },
  ],
  hidden: { abilities: 'all', when: (is) => !is.reads },
});
