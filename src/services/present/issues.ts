import type { User } from '../../db/entities/index.js';
import type { Issue, IssueBasic } from '../../schemas/issues.js';
import type { Milestone, TimeStats } from '../../schemas/work-items.js';
import type { IssueRow, MilestoneRow, UserRef } from '../work-items/issue-store.js';
import { formatDuration } from '../work-items/durations.js';
import { presentUserBasic } from './users.js';
import type { View } from './view.js';

/** A timestamp as the API writes it, from a column or a JSON value of one. */
const iso = (value: Date | string) => new Date(value).toISOString();

/** A user reference from the columns a work item's statement reads. */
export const presentUserRef = (user: UserRef, view: View) => presentUserBasic(user as unknown as User, view);

/** A milestone, with its `project_id` or its `group_id`. */
export function presentMilestone(milestone: MilestoneRow, view: View): Milestone {
  return {
    id: milestone.id,
    iid: milestone.iid,
    ...(milestone.project_id !== null ? { project_id: milestone.project_id } : { group_id: milestone.group_id! }),
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    created_at: iso(milestone.created_at),
    updated_at: iso(milestone.updated_at),
    due_date: milestone.due_date,
    start_date: milestone.start_date,
    web_url: `${view.baseUrl}/${milestone.web_path}`,
  };
}

/** Seconds estimated and spent, with the original's human forms. */
export function presentTimeStats(estimate: number, spent: number): TimeStats {
  return {
    time_estimate: estimate,
    total_time_spent: spent,
    human_time_estimate: formatDuration(estimate),
    human_total_time_spent: formatDuration(spent),
  };
}

/** What an issue and a merge request show first, alike: who they are, their text and state, when they were made and changed. */
export function presentWorkItemHead<State extends string>(row: {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: State;
  created_at: Date | string;
  updated_at: Date | string;
}) {
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** The URL of an issue's page. */
export const issueWebUrl = (row: Pick<IssueRow, 'project_path' | 'iid'>, view: View) =>
  `${view.baseUrl}/${row.project_path}/issues/${row.iid}`;

/** An issue as lists show it. */
export function presentIssueBasic(row: IssueRow, view: View): IssueBasic {
  const assignees = row.assignees.map((user) => presentUserRef(user, view));
  return {
    ...presentWorkItemHead(row),
    closed_at: row.closed_at ? iso(row.closed_at) : null,
    closed_by: row.closed_by ? presentUserRef(row.closed_by, view) : null,
    moved_to_id: row.moved_to_id,
    labels: row.labels,
    milestone: row.milestone ? presentMilestone(row.milestone, view) : null,
    assignees,
    assignee: assignees[0] ?? null,
    // An author whose account was deleted shows as the original's ghost user would: the reference stays.
    author: row.author ? presentUserRef(row.author, view) : ghostUser(view),
    user_notes_count: row.user_notes_count,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    due_date: row.due_date,
    confidential: row.confidential,
    discussion_locked: row.discussion_locked,
    web_url: issueWebUrl(row, view),
    time_stats: presentTimeStats(row.time_estimate, row.total_time_spent),
  };
}

/** One issue: with whether the viewer hears of it, and its API links. */
export function presentIssue(row: IssueRow, subscribed: boolean, view: View): Issue {
  const self = `${view.baseUrl}/api/v4/projects/${row.project_id}/issues/${row.iid}`;
  return {
    ...presentIssueBasic(row, view),
    subscribed,
    _links: {
      self,
      notes: `${self}/notes`,
      award_emoji: `${self}/award_emoji`,
      project: `${view.baseUrl}/api/v4/projects/${row.project_id}`,
    },
  };
}

/** Who a work item shows as its author once the author's account is gone (the original moves it to its "Ghost User"). */
export function ghostUser(view: View) {
  return presentUserRef(
    { id: 0, name: 'Ghost User', username: 'ghost', state: 'active', email: 'ghost@localhost', avatarFilename: null },
    view,
  );
}
