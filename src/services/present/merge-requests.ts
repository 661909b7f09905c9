import type { MergeRequest, MergeRequestBasic, MergeRequestSimple, UserWithEmail } from '../../schemas/merge-requests.js';
import { DRAFT_TITLE, type MergeRequestRow } from '../work-items/merge-request-store.js';
import type { UserRef } from '../work-items/issue-store.js';
import { ghostUser, presentMilestone, presentTimeStats, presentUserRef, presentWorkItemHead } from './issues.js';
import type { View } from './view.js';

/** A timestamp as the API writes it, from a column or a JSON value of one. */
const iso = (value: Date | string) => new Date(value).toISOString();

/** A merge request's author or assignee: the user reference with its e-mail address and when it joined. */
function presentUserWithEmail(user: UserRef, view: View): UserWithEmail {
  return { ...presentUserRef(user, view), email: user.email, created_at: iso(user.createdAt!) };
}

/** The URL of a merge request's page. */
export const mergeRequestWebUrl = (row: Pick<MergeRequestRow, 'project_path' | 'iid'>, view: View) =>
  `${view.baseUrl}/${row.project_path}/merge_requests/${row.iid}`;

/** `view=simple`. */
export function presentMergeRequestSimple(row: MergeRequestRow, view: View): MergeRequestSimple {
  return {
    ...presentWorkItemHead(row),
    web_url: mergeRequestWebUrl(row, view),
  };
}

/**
 * Where a merge request is shown from, for its `relative` reference: its own project (`!1`), a group (the path below
 * the group: `sub/app!1`), or nowhere in particular (the full path).
 */
export type ReferenceBase = { projectId: number } | { groupPath: string } | null;

function relativeReference(row: MergeRequestRow, from: ReferenceBase): string {
  if (from && 'projectId' in from && from.projectId === row.project_id) return `!${row.iid}`;
  if (from && 'groupPath' in from && row.project_path.toLowerCase().startsWith(`${from.groupPath.toLowerCase()}/`)) {
    return `${row.project_path.slice(from.groupPath.length + 1)}!${row.iid}`;
  }
  return `${row.project_path}!${row.iid}`;
}

/** A merge request as lists show it. */
export function presentMergeRequestBasic(
  row: MergeRequestRow,
  view: View,
  from: ReferenceBase = { projectId: row.project_id },
): MergeRequestBasic {
  const assignees = row.assignees.map((user) => presentUserWithEmail(user, view));
  const draft = DRAFT_TITLE.test(row.title);
  return {
    ...presentWorkItemHead(row),
    merged_by: row.merged_by ? presentUserRef(row.merged_by, view) : null,
    merged_at: row.merged_at ? iso(row.merged_at) : null,
    closed_by: row.closed_by ? presentUserRef(row.closed_by, view) : null,
    closed_at: row.closed_at ? iso(row.closed_at) : null,
    target_branch: row.target_branch,
    source_branch: row.source_branch,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    // An author whose account was deleted shows as the original's ghost user would.
    author: row.author
      ? presentUserWithEmail(row.author, view)
      : { ...ghostUser(view), email: 'ghost@localhost', created_at: iso(row.created_at) },
    assignee: assignees[0] ?? null,
    assignees,
    reviewers: [],
    source_project_id: row.source_project_id,
    target_project_id: row.project_id,
    labels: row.labels,
    work_in_progress: draft,
    draft,
    milestone: row.milestone ? presentMilestone(row.milestone, view) : null,
    merge_when_pipeline_succeeds: row.merge_when_pipeline_succeeds,
    merge_status: row.merge_status,
    sha: row.head_sha,
    merge_commit_sha: row.merge_commit_sha,
    squash_commit_sha: null,
    user_notes_count: row.user_notes_count,
    discussion_locked: row.discussion_locked,
    should_remove_source_branch: row.should_remove_source_branch,
    force_remove_source_branch: row.force_remove_source_branch,
    allow_collaboration: false,
    allow_maintainer_to_push: false,
    web_url: mergeRequestWebUrl(row, view),
    reference: `!${row.iid}`,
    references: { short: `!${row.iid}`, relative: relativeReference(row, from), full: `${row.project_path}!${row.iid}` },
    time_stats: presentTimeStats(row.time_estimate, row.total_time_spent),
    squash: false,
    task_completion_status: taskCompletion(row.description),
    has_conflicts: row.merge_status === 'cannot_be_merged',
    blocking_discussions_resolved: row.blocking_discussions_resolved,
  };
}

/** What one merge request adds for its viewer: whether it hears of it, may merge it, and what merging involves. */
export interface MergeRequestDetail {
  subscribed: boolean;
  canMerge: boolean;
  /** The files changed from the merge base, when known. */
  changesCount: number | null;
  /** Whether that count stopped at the limit. */
  changesOverflow: boolean;
  /** Asked for: the commits of the target branch that the source branch lacks. */
  divergedCommitsCount?: number;
  /** Asked for: whether a rebase is under way (forgekit rebases nothing: false). */
  rebaseInProgress?: boolean;
  /** The pipeline of the source branch's head, with the URL of its page. */
  pipeline: { id: number; sha: string; ref: string | null; status: string; web_url: string } | null;
}

/** One merge request. */
export function presentMergeRequest(row: MergeRequestRow, detail: MergeRequestDetail, view: View): MergeRequest {
  return {
    ...presentMergeRequestBasic(row, view),
    subscribed: detail.subscribed,
    changes_count: detail.changesCount === null ? null : `${detail.changesCount}${detail.changesOverflow ? '+' : ''}`,
    merge_user: row.merge_user ? presentUserRef(row.merge_user, view) : null,
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    pipeline: detail.pipeline ? { ...detail.pipeline, ref: detail.pipeline.ref ?? '' } : null,
    head_pipeline: null,
    diff_refs: row.head_sha ? { base_sha: row.base_sha, head_sha: row.head_sha, start_sha: row.start_sha } : null,
    merge_error: null,
    first_contribution: false,
    user: { can_merge: detail.canMerge },
    approvals_before_merge: null,
    ...(detail.divergedCommitsCount !== undefined ? { diverged_commits_count: detail.divergedCommitsCount } : {}),
    ...(detail.rebaseInProgress !== undefined ? { rebase_in_progress: detail.rebaseInProgress } : {}),
  };
}

/** The task list items (`- [ ]`, `- [x]`) of a description, as the original counts them. */
function taskCompletion(description: string | null): { count: number; completed_count: number } {
  if (!description) return { count: 0, completed_count: 0 };
  const tasks = description.match(/^[ \t]*(?:[-+*]|\d+[.)])[ \t]+\[[ xX]\]/gm) ?? [];
  return { count: tasks.length, completed_count: tasks.filter((task) => /\[[xX]\]$/.test(task)).length };
}
