import type { IssueInScope, MergeRequestInScope, NoteableInScope, ProjectInScope } from '../../auth/abilities.js';

/**
 * A work item a route of notes, award emoji or time tracking names: an issue or a merge request, as its scope
 * loaded it, with its ID and iid. What those routes do is the same for both (the original's Noteable, Awardable and
 * TimeTrackable); only the table differs.
 */
export type WorkItemTarget = NoteableInScope & { id: number; iid: number };

/** An issue's scope as a work item. */
export const issueTarget = (issue: IssueInScope & { id: number; iid: number }): WorkItemTarget => ({
  kind: 'Issue',
  scope: issue,
  id: issue.id,
  iid: issue.iid,
});

/** A merge request's scope as a work item. */
export const mergeRequestTarget = (mergeRequest: MergeRequestInScope & { id: number; iid: number }): WorkItemTarget => ({
  kind: 'MergeRequest',
  scope: mergeRequest,
  id: mergeRequest.id,
  iid: mergeRequest.iid,
});

/** The work item's project. */
export const projectOf = (target: WorkItemTarget): ProjectInScope => target.scope.project;

/** Who opened it (null once the account is gone). */
export const authorOf = (target: WorkItemTarget): number | null =>
  target.kind === 'Issue' ? target.scope.issue.authorId : target.scope.mergeRequest.authorId;
