import type { IssueInScope, MergeRequestInScope, ProjectInScope } from '../../auth/abilities.js';
import type { Context } from '../context.js';
import { findIssueFacts, type IssueRow, updateIssue } from './issue-store.js';
import { findMergeRequestFacts } from './merge-request-store.js';
import { insertNote } from './note-store.js';
import { recordWorkItemEvent } from './work-item-events.js';

/** An issue a path names, with its ID. */
export type IssueTarget = IssueInScope & { id: number; iid: number };
/** A merge request a path names, with its ID. */
export type MergeRequestTarget = MergeRequestInScope & { id: number; iid: number };

/** A number that can be an iid (a positive 32-bit integer); null otherwise. */
function iidOf(iid: string | number): number | null {
  const number = Number(iid);
  return Number.isInteger(number) && number >= 1 && number <= 2 ** 31 - 1 ? number : null;
}

/** The issue a path names by iid in the project (the nested scope of `/projects/:id/issues/:issue_iid`); null for none. */
export async function findIssueInScope(ctx: Context, project: ProjectInScope, iid: string | number): Promise<IssueTarget | null> {
  const number = iidOf(iid);
  const facts = number === null ? null : await findIssueFacts((await ctx.view()).rows, project.project.id, number);
  return facts ? { id: facts.id, iid: facts.iid, project, issue: facts } : null;
}

/** The merge request a path names by iid in the project (`/merge_requests/:merge_request_iid`); null for none. */
export async function findMergeRequestInScope(
  ctx: Context,
  project: ProjectInScope,
  iid: string | number,
): Promise<MergeRequestTarget | null> {
  const number = iidOf(iid);
  const facts = number === null ? null : await findMergeRequestFacts((await ctx.view()).rows, project.project.id, number);
  return facts ? { id: facts.id, iid: facts.iid, project, mergeRequest: facts } : null;
}

/**
 * Closes an open issue by the caller, with a system note saying how (`closed via merge request !1`, `closed via commit
 * ...`), as merges and pushes close the issues they name.
 */
export async function closeIssue(ctx: Context, issue: Pick<IssueRow, 'id' | 'iid' | 'title' | 'project_id'>, note: string) {
  const now = ctx.now();
  const authorId = ctx.currentUser.id;
  await updateIssue(ctx.em, issue.id, { state: 'closed', closed_at: now, closed_by_id: authorId, updated_at: now });
  await insertNote(ctx.em, {
    projectId: issue.project_id,
    kind: 'Issue',
    targetId: issue.id,
    authorId,
    body: note,
    system: true,
    createdAt: now,
  });
  const item = { id: issue.id, iid: issue.iid, title: issue.title, projectId: issue.project_id };
  await recordWorkItemEvent(ctx, 'issue.closed', item, {});
}
