import type { Caller } from '../caller.js';
import { ACCESS_LEVELS } from '../levels.js';
import { definePolicy } from '../policy.js';
import { projectPolicy, type ProjectInScope } from './project.js';

/**
 * What a merge request's abilities depend on beside its project: who opened it, who it is assigned to, whether its discussion is locked.
 */
export interface MergeRequestFacts {
  authorId: number | null;
  assigneeIds: readonly number[];
  discussionLocked: boolean;
}

/** A merge request a call named by its `iid`, with its (target) project as the project's scope loaded it. */
export interface MergeRequestInScope {
  project: ProjectInScope;
  mergeRequest: MergeRequestFacts;
}

const user = (caller: Caller) => caller.user?.id;

/**
 * Who may do what with one merge request (the original's MergeRequestPolicy): read it with the project's merge
 * requests; change it (its author and assignees, developers and above); comment and award emoji while its
 * discussion is not locked (then project members only). Hidden (404) from those who may not read the project's
 * merge requests; its threads are resolved by its author and developers. Merging is decided by the target branch's protection
 * (auth/policies/project.ts mergesToBranch).
 */
export const mergeRequestPolicy = definePolicy({
  abilities: [
    'read_merge_request',
    'update_merge_request',
    'create_merge_request_note',
    'award_merge_request_emoji',
    'resolve_merge_request_discussion',
    'destroy_merge_request',
  ],
  conditions: {
    reads_requests: (caller: Caller, scoped: MergeRequestInScope) => projectPolicy.allows(caller, 'read_merge_requests', scoped.project),
    manages: (caller: Caller, scoped: MergeRequestInScope) => projectPolicy.allows(caller, 'admin_merge_request', scoped.project),
    signed_in: (caller: Caller) => caller.user !== null,
    admin: (caller: Caller) => caller.user?.admin === true,
    archived: (_caller: Caller, scoped: MergeRequestInScope) => scoped.project.project.archived === true,
    member: (_caller: Caller, scoped: MergeRequestInScope) => scoped.project.accessLevel >= ACCESS_LEVELS.guest,
    author: (caller: Caller, scoped: MergeRequestInScope) => user(caller) !== undefined && scoped.mergeRequest.authorId === user(caller),
    assignee: (caller: Caller, scoped: MergeRequestInScope) =>
      user(caller) !== undefined && scoped.mergeRequest.assigneeIds.includes(user(caller)!),
    locked: (_caller: Caller, scoped: MergeRequestInScope) => scoped.mergeRequest.discussionLocked,
    owner: (_caller: Caller, scoped: MergeRequestInScope) => scoped.project.accessLevel >= ACCESS_LEVELS.owner,
  },
  rules: [
    { when: (is) => is.reads_requests, enable: ['read_merge_request'] },
    { when: (is) => is.signed_in && is.reads_requests, enable: ['create_merge_request_note', 'award_merge_request_emoji'] },
    { when: (is) => is.reads_requests && (is.manages || is.author || is.assignee), enable: ['update_merge_request'] },
    // Threads are resolved by the request's author and by developers and above, as the original's `resolve_note`.
    { when: (is) => is.reads_requests && (is.manages || is.author), enable: ['resolve_merge_request_discussion'] },
    // Deleting one, as the original allows its project's owners.
    { when: (is) => is.reads_requests && (is.owner || is.admin), enable: ['destroy_merge_request'] },
    { when: (is) => is.locked && !is.member && !is.admin, prevent: ['create_merge_request_note'] },
    {
      when: (is) => is.archived,
      prevent: ['update_merge_request', 'create_merge_request_note', 'award_merge_request_emoji', 'resolve_merge_request_discussion'],
    },
  ],
  hidden: { abilities: 'all', when: (is) => !is.reads_requests },
});
