import type { Caller } from '../caller.js';
import { ACCESS_LEVELS } from '../levels.js';
import { definePolicy } from '../policy.js';
import { projectPolicy, type ProjectInScope } from './project.js';

/** What an issue's abilities depend on beside its project: who wrote it, who it is assigned to, whether it is confidential or locked. */
export interface IssueFacts {
  authorId: number | null;
  assigneeIds: readonly number[];
  confidential: boolean;
  discussionLocked: boolean;
}

/** An issue a call named by its `iid`, with its project as the project's scope loaded it. */
export interface IssueInScope {
  project: ProjectInScope;
  issue: IssueFacts;
}

const user = (caller: Caller) => caller.user?.id;

/**
 * Who may do what with one issue (the original's IssuePolicy): read it with the project's issue tracker, unless it
 * is confidential, which only its author, its assignees, reporters and above, and administrators read; change it
 * (its author and assignees, reporters and above); comment while its discussion is not locked (then project
 * members only). A confidential issue is hidden (404) from those who may not read it, as its project is.
 */
export const issuePolicy = definePolicy({
  abilities: ['read_issue', 'update_issue', 'create_issue_note', 'award_issue_emoji', 'destroy_issue'],
  conditions: {
    reads_tracker: (caller: Caller, scoped: IssueInScope) => projectPolicy.allows(caller, 'read_issues', scoped.project),
    reads_confidential: (caller: Caller, scoped: IssueInScope) => projectPolicy.allows(caller, 'read_confidential_issues', scoped.project),
    signed_in: (caller: Caller) => caller.user !== null,
    admin: (caller: Caller) => caller.user?.admin === true,
    archived: (_caller: Caller, scoped: IssueInScope) => scoped.project.project.archived === true,
    reporter: (_caller: Caller, scoped: IssueInScope) => scoped.project.accessLevel >= ACCESS_LEVELS.reporter,
    member: (_caller: Caller, scoped: IssueInScope) => scoped.project.accessLevel >= ACCESS_LEVELS.guest,
    author: (caller: Caller, scoped: IssueInScope) => user(caller) !== undefined && scoped.issue.authorId === user(caller),
    assignee: (caller: Caller, scoped: IssueInScope) => user(caller) !== undefined && scoped.issue.assigneeIds.includes(user(caller)!),
    owner: (_caller: Caller, scoped: IssueInScope) => scoped.project.accessLevel >= ACCESS_LEVELS.owner,
    confidential: (_caller: Caller, scoped: IssueInScope) => scoped.issue.confidential,
    locked: (_caller: Caller, scoped: IssueInScope) => scoped.issue.discussionLocked,
  },
  rules: [
    { when: (is) => is.reads_tracker && (!is.confidential || is.reads_confidential || is.author || is.assignee), enable: ['read_issue'] },
    {
      when: (is) => is.signed_in && is.reads_tracker && (!is.confidential || is.reads_confidential || is.author || is.assignee),
      enable: ['award_issue_emoji', 'create_issue_note'],
    },
    { when: (is) => is.reads_tracker && (is.reporter || is.admin || is.author || is.assignee), enable: ['update_issue'] },
    // Deleting one, as the original allows its project's owners.
    { when: (is) => is.reads_tracker && (is.owner || is.admin), enable: ['destroy_issue'] },
    { when: (is) => is.locked && !is.member && !is.admin, prevent: ['create_issue_note'] },
    { when: (is) => is.archived, prevent: ['update_issue', 'create_issue_note', 'award_issue_emoji'] },
  ],
  hidden: {
    abilities: 'all',
    when: (is) => !is.reads_tracker || (is.confidential && !is.reads_confidential && !is.author && !is.assignee),
  },
});
