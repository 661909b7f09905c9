import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { concat, identifier, sql, type Sql } from '../../db/sql.js';
import { milestoneJsonSql, userJsonSql, userWithDateJsonSql, type MilestoneRow, type UserRef } from './issue-store.js';
import { setWorkItemAssignees, updateWorkItem, workItemsOrderSql, workItemsWhere, type WorkItemFilter } from './work-item-store.js';

/**
 * Merge requests' hand-written statements: a page of them with all that each embeds (two statements whatever the
 * page's size), one with what deciding on it needs, their columns and assignees written, and what a moving branch
 * changes in them.
 */

export type MergeRequestState = 'opened' | 'closed' | 'merged' | 'locked';
export type MergeStatus = 'unchecked' | 'can_be_merged' | 'cannot_be_merged';

/** A merge request with everything its answer embeds. */
export interface MergeRequestRow {
  id: number;
  iid: number;
  project_id: number;
  source_project_id: number | null;
  source_branch: string;
  target_branch: string;
  title: string;
  description: string | null;
  state: MergeRequestState;
  discussion_locked: boolean;
  merge_status: MergeStatus;
  head_sha: string | null;
  start_sha: string | null;
  base_sha: string | null;
  merge_commit_sha: string | null;
  merged_at: Date | null;
  closed_at: Date | null;
  merge_when_pipeline_succeeds: boolean;
  merge_commit_message: string | null;
  should_remove_source_branch: boolean | null;
  force_remove_source_branch: boolean;
  time_estimate: number;
  total_time_spent: number;
  created_at: Date;
  updated_at: Date;
  author_id: number | null;
  /** `namespace/project` of the target, for its URLs and references; its namespace's path alone. */
  project_path: string;
  namespace_path: string;
  labels: string[];
  assignees: UserRef[];
  author: UserRef | null;
  merged_by: UserRef | null;
  closed_by: UserRef | null;
  merge_user: UserRef | null;
  milestone: MilestoneRow | null;
  user_notes_count: number;
  upvotes: number;
  downvotes: number;
  /** False while a resolvable thread is unresolved in a project that asks for them resolved (as the original: true elsewhere). */
  blocking_discussions_resolved: boolean;
}

/**
 * The columns of a page of merge requests (aliased `i`, target projects `p`, namespaces `n`): the request and all it embeds.
 * Unresolved threads are looked up with `limit 1`: `not exists` became a hashed subplan over every note.
 */
const MERGE_REQUEST_COLUMNS = sql`i."id", i."iid", i."project_id", i."source_project_id", i."source_branch", i."target_branch", i."title",
  i."description",
  i."state", i."discussion_locked", i."merge_status", i."head_sha", i."start_sha", i."base_sha", i."merge_commit_sha", i."merged_at",
    i."closed_at",
  i."merge_when_pipeline_succeeds", i."merge_commit_message", i."should_remove_source_branch", i."force_remove_source_branch",
  i."time_estimate", i."total_time_spent", i."created_at", i."updated_at", i."author_id",
  n."full_path" || '/' || p."path" as "project_path", n."full_path" as "namespace_path",
  (select coalesce(json_agg(l."title" order by l."title"), '[]') from "label_links" ll join "labels" l on l."id" = ll."label_id"
    where ll."target_kind" = 'MergeRequest' and ll."target_id" = i."id") as "labels",
  (select coalesce(json_agg(${userWithDateJsonSql('au')} order by ma."id"), '[]') from "merge_request_assignees" ma join "users" au
    on au."id" = ma."user_id"
    where ma."merge_request_id" = i."id") as "assignees",
  (select ${userWithDateJsonSql('a')} from "users" a where a."id" = i."author_id") as "author",
  (select ${userJsonSql('mb')} from "users" mb where mb."id" = i."merged_by_id") as "merged_by",
  (select ${userJsonSql('c')} from "users" c where c."id" = i."closed_by_id") as "closed_by",
  (select ${userJsonSql('mu')} from "users" mu where mu."id" = i."merge_user_id") as "merge_user",
  (select ${milestoneJsonSql} from "milestones" m where m."id" = i."milestone_id") as "milestone",
  (select count(*)::int from "notes" nt where nt."target_kind" = 'MergeRequest' and nt."target_id" = i."id"
    and not nt."system") as "user_notes_count",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'MergeRequest' and ae."target_id" = i."id"
    and ae."name" = 'thumbsup') as "upvotes",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'MergeRequest' and ae."target_id" = i."id"
    and ae."name" = 'thumbsdown') as "downvotes",
  case when p."only_allow_merge_if_all_discussions_are_resolved" then coalesce((select false from "notes" nt
    where nt."target_kind" = 'MergeRequest' and nt."target_id" = i."id" and nt."type" = 'DiscussionNote' and not nt."system"
    and nt."resolved_at" is null limit 1), true) else true end as "blocking_discussions_resolved"`;

const MERGE_REQUESTS_FROM = sql`"merge_requests" i join "projects" p on p."id" = i."project_id" join "namespaces" n
  on n."id" = p."namespace_id"`;

/** What a list of merge requests keeps: the filters of any work item, and a merge request's own. */
export interface MergeRequestFilter extends WorkItemFilter {
  state?: MergeRequestState;
  sourceBranch?: string;
  targetBranch?: string;
  /** Drafts only (true), or the others (false). */
  draft?: boolean;
}

/** A draft's title, as the original recognises it (case aside): `WIP:`, `[WIP]`, `Draft:`, `[Draft]`, `(Draft)`, `Draft -` at its start. */
export const DRAFT_TITLE = /^\s*(\[(wip|draft)\]\s*|(wip|draft):\s*|\(draft\)\s*|draft\s+-\s+)/i;
const DRAFT_TITLE_SQL = String.raw`^\s*(\[(wip|draft)\]|(wip|draft):|\(draft\)|draft\s+-\s)`;

function mergeRequestsWhere(filter: MergeRequestFilter): Sql {
  const more: Sql[] = [];
  if (filter.sourceBranch !== undefined) more.push(sql`i."source_branch" = ${filter.sourceBranch}`);
  if (filter.targetBranch !== undefined) more.push(sql`i."target_branch" = ${filter.targetBranch}`);
  if (filter.draft !== undefined) more.push(filter.draft ? sql`i."title" ~* ${DRAFT_TITLE_SQL}` : sql`i."title" !~* ${DRAFT_TITLE_SQL}`);
  return workItemsWhere('MergeRequest', { ...filter, more: [...more, ...(filter.more ?? [])] });
}

/** A page of the merge requests the filter keeps, each with what it embeds, and how many there are: two statements. */
export async function mergeRequestPage(
  em: EntityManager,
  filter: MergeRequestFilter,
  order: { orderBy: 'created_at' | 'updated_at'; sort: 'asc' | 'desc' },
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: MergeRequestRow[] }> {
  const where = mergeRequestsWhere(filter);
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from ${MERGE_REQUESTS_FROM} where ${where}`);
  if (Number(count) === 0 || page.offset >= Number(count)) return { total: Number(count), rows: [] };
  const rows = await queryRows(
    em,
    sql`select ${MERGE_REQUEST_COLUMNS} from ${MERGE_REQUESTS_FROM} where ${where}
      order by ${workItemsOrderSql('MergeRequest', order.orderBy, order.sort)} limit ${page.limit} offset ${page.offset}`,
  );
  return { total: Number(count), rows: rows as unknown as MergeRequestRow[] };
}

/** One merge request with what it embeds (deleted or not); undefined when there is none. */
export async function mergeRequestRow(em: EntityManager, id: number): Promise<MergeRequestRow | undefined> {
  const [row] = await queryRows(em, sql`select ${MERGE_REQUEST_COLUMNS} from ${MERGE_REQUESTS_FROM} where i."id" = ${id}`);
  return row as unknown as MergeRequestRow | undefined;
}

/** What deciding on a merge request needs: who opened it, who it is assigned to, whether it is locked. */
export interface MergeRequestFactsRow {
  id: number;
  iid: number;
  authorId: number | null;
  assigneeIds: number[];
  discussionLocked: boolean;
}

/** By project and iid; undefined for none (or a deleted one). */
export async function findMergeRequestFacts(em: EntityManager, projectId: number, iid: number): Promise<MergeRequestFactsRow | undefined> {
  const [row] = await queryRows(
    em,
    sql`select i."id", i."iid", i."author_id" as "authorId", i."discussion_locked" as "discussionLocked",
      array(select ma."user_id" from "merge_request_assignees" ma where ma."merge_request_id" = i."id" order by ma."id") as "assigneeIds"
      from "merge_requests" i where i."project_id" = ${projectId} and i."iid" = ${iid} and i."deleted_at" is null`,
  );
  return row as never;
}

/** The columns a merge request is written with (absent: not written). */
export interface MergeRequestColumns {
  title?: string;
  description?: string | null;
  state?: MergeRequestState;
  target_branch?: string;
  discussion_locked?: boolean;
  milestone_id?: number | null;
  merge_status?: MergeStatus;
  head_sha?: string | null;
  start_sha?: string | null;
  base_sha?: string | null;
  merge_commit_sha?: string | null;
  merged_by_id?: number | null;
  merged_at?: Date | null;
  closed_by_id?: number | null;
  closed_at?: Date | null;
  merge_when_pipeline_succeeds?: boolean;
  merge_user_id?: number | null;
  merge_commit_message?: string | null;
  should_remove_source_branch?: boolean | null;
  force_remove_source_branch?: boolean;
  time_estimate?: number;
  total_time_spent?: number;
  deleted_at?: Date | null;
  created_at?: Date;
  updated_at?: Date;
}

const WRITABLE = [
  'title',
  'description',
  'state',
  'target_branch',
  'discussion_locked',
  'milestone_id',
  'merge_status',
  'head_sha',
  'start_sha',
  'base_sha',
  'merge_commit_sha',
  'merged_by_id',
  'merged_at',
  'closed_by_id',
  'closed_at',
  'merge_when_pipeline_succeeds',
  'merge_user_id',
  'merge_commit_message',
  'should_remove_source_branch',
  'force_remove_source_branch',
  'time_estimate',
  'total_time_spent',
  'deleted_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof MergeRequestColumns)[];

const columnName = (name: keyof MergeRequestColumns) => identifier(name, WRITABLE);

/** A new merge request; its ID, or null when an open one from the same source branch into the same target branch exists. */
export async function insertMergeRequest(
  em: EntityManager,
  request: {
    projectId: number;
    iid: number;
    sourceProjectId: number;
    sourceBranch: string;
    targetBranch: string;
    authorId: number;
    now: Date;
  } & MergeRequestColumns,
): Promise<number | null> {
  const { projectId, iid, sourceProjectId, sourceBranch, targetBranch, authorId, now, ...columns } = request;
  const values: MergeRequestColumns = { ...columns, target_branch: targetBranch, created_at: now, updated_at: now };
  const names = WRITABLE.filter((name) => values[name] !== undefined);
  const [row] = await queryRows(
    em,
    sql`insert into "merge_requests" ("project_id", "iid", "source_project_id", "source_branch",
      "author_id"${concat(names.map((name) => sql`, ${columnName(name)}`))})
      values (${projectId}, ${iid}, ${sourceProjectId}, ${sourceBranch},
        ${authorId}${concat(names.map((name) => sql`, ${values[name] ?? null}`))})
      on conflict ("source_project_id", "source_branch", "project_id", "target_branch")
        where "state" = 'opened' and "deleted_at" is null do nothing
      returning "id"`,
  );
  return row ? Number(row.id) : null;
}

/** The open merge request from the source branch into the target branch (`except` one), by iid; undefined for none. */
export async function openMergeRequestIid(
  em: EntityManager,
  pair: { sourceProjectId: number; sourceBranch: string; projectId: number; targetBranch: string },
  except = 0,
): Promise<number | undefined> {
  const [row] = await queryRows(
    em,
    sql`select "iid" from "merge_requests" where "source_project_id" = ${pair.sourceProjectId} and "source_branch" = ${pair.sourceBranch}
      and "project_id" = ${pair.projectId} and "target_branch" = ${pair.targetBranch} and "state" = 'opened' and "deleted_at" is null
        and "id" <> ${except}`,
  );
  return row ? Number(row.iid) : undefined;
}

/** A merge request's columns changed. */
export function updateMergeRequest(em: EntityManager, id: number, columns: MergeRequestColumns): Promise<void> {
  return updateWorkItem(em, 'MergeRequest', id, columns, WRITABLE);
}

/** The merge request's assignees made these users, in this order. */
export function setMergeRequestAssignees(em: EntityManager, id: number, userIds: number[]): Promise<void> {
  return setWorkItemAssignees(em, 'MergeRequest', id, userIds);
}

/**
 * What a moving branch changes in the open merge requests: those from it take its new head (and no longer merge by
 * themselves), those into it the new start; either way their merge base and their merge status are to be worked
 * out again. A deleted source branch leaves the last head it had.
 */
export async function branchMoved(em: EntityManager, projectId: number, branch: string, head: string | null): Promise<void> {
  const open = sql`"state" = 'opened' and "deleted_at" is null`;
  if (head !== null) {
    await queryRows(
      em,
      // A new head was never built: an automatic merge waits for its own pipeline, so it is called off.
      sql`update "merge_requests" set "head_sha" = ${head}, "base_sha" = null, "merge_status" = 'unchecked',
        "merge_when_pipeline_succeeds" = false
        where "source_project_id" = ${projectId} and "source_branch" = ${branch} and ${open} and "head_sha" is distinct from ${head}`,
    );
  }
  await queryRows(
    em,
    sql`update "merge_requests" set "start_sha" = ${head}, "base_sha" = null, "merge_status" = 'unchecked'
      where "project_id" = ${projectId} and "target_branch" = ${branch} and ${open} and "start_sha" is distinct from ${head}`,
  );
}

/** A merge base and a merge status worked out for the two heads the row had, kept unless either head moved meanwhile. */
export async function keepWorkedOut(
  em: EntityManager,
  row: Pick<MergeRequestRow, 'id' | 'head_sha' | 'start_sha'>,
  worked: { base_sha: string | null; merge_status: MergeStatus },
): Promise<void> {
  await queryRows(
    em,
    sql`update "merge_requests" set "base_sha" = ${worked.base_sha}, "merge_status" = ${worked.merge_status}
      where "id" = ${row.id} and "head_sha" = ${row.head_sha} and "start_sha" = ${row.start_sha} and "state" = 'opened'`,
  );
}

/** Whether an open merge request from the project waits for the pipeline of the commit to succeed. */
export async function mergesWaitFor(em: EntityManager, sourceProjectId: number, sha: string): Promise<boolean> {
  const [row] = await queryRows(
    em,
    sql`select 1 from "merge_requests" where "source_project_id" = ${sourceProjectId} and "head_sha" = ${sha}
      and "merge_when_pipeline_succeeds"
      and "state" = 'opened' and "deleted_at" is null limit 1`,
  );
  return row !== undefined;
}

/** An open merge request as the rules of moving branches read it. */
export interface OpenMergeRequest {
  id: number;
  iid: number;
  title: string;
  project_id: number;
  head_sha: string | null;
}

/** How many open merge requests into one branch, or from one project, a rule reads at the most. */
const OPEN_READ = 100;

/** The open merge requests into a branch of the project, oldest first. */
export async function openMergeRequestsInto(em: EntityManager, projectId: number, branch: string): Promise<OpenMergeRequest[]> {
  return (await queryRows(
    em,
    sql`select "id", "iid", "title", "project_id", "head_sha" from "merge_requests"
      where "project_id" = ${projectId} and "target_branch" = ${branch} and "state" = 'opened' and "deleted_at" is null
      order by "id" limit ${OPEN_READ}`,
  )) as unknown as OpenMergeRequest[];
}

/** The open merge requests between the project and others (from a fork into its source, or into it from a fork), oldest first. */
export async function openCrossProjectMergeRequests(em: EntityManager, projectId: number): Promise<OpenMergeRequest[]> {
  return (await queryRows(
    em,
    sql`select "id", "iid", "title", "project_id", "head_sha" from "merge_requests"
      where ("source_project_id" = ${projectId} and "project_id" <> ${projectId}
          or "project_id" = ${projectId} and "source_project_id" <> ${projectId})
        and "state" = 'opened' and "deleted_at" is null
      order by "id" limit ${OPEN_READ}`,
  )) as unknown as OpenMergeRequest[];
}

/** Which of the commits are the merge commits of merged requests of the project. */
export async function mergeCommitsAmong(em: EntityManager, projectId: number, shas: string[]): Promise<Set<string>> {
  const rows = await queryRows(
    em,
    sql`select "merge_commit_sha" from "merge_requests" where "project_id" = ${projectId} and "merge_commit_sha" = any(${shas})`,
  );
  return new Set(rows.map((row) => row.merge_commit_sha as string));
}
