import type { IidUsage, TargetKind } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { concat, empty, fixedSql, identifier, sql, type Sql } from '../../db/sql.js';
import {
  setWorkItemAssignees,
  updateWorkItem,
  workItemsOrderSql,
  workItemsWhere,
  type WorkItemFilter,
  type WorkItemOrder,
} from './work-item-store.js';

/**
 * Issues' hand-written statements: the next `iid`, a page of issues with all that each embeds (two statements
 * whatever the page's size), their assignees and labels written.
 */

/**
 * The next `iid` of a project's (or a group's) work items of a kind: the counter row made or moved on under its
 * lock, which concurrent writers (in any process) wait for until this transaction ends.
 */
export async function nextIid(em: EntityManager, usage: IidUsage, owner: { projectId: number } | { namespaceId: number }): Promise<number> {
  const [projectId, namespaceId] = 'projectId' in owner ? [owner.projectId, null] : [null, owner.namespaceId];
  const [row] = await queryRows(
    em,
    sql`insert into "internal_ids" ("usage", "project_id", "namespace_id", "last_value")
      values (${usage}, ${projectId}::int, ${namespaceId}::int, 1)
      on conflict ("usage", coalesce("project_id", 0), coalesce("namespace_id", 0)) do update
        set "last_value" = "internal_ids"."last_value" + 1
      returning "last_value"`,
  );
  return Number(row.last_value);
}

/** A user as a work item embeds it: what presentUserBasic reads. */
export interface UserRef {
  id: number;
  name: string;
  username: string;
  state: string;
  email: string;
  avatarFilename: string | null;
  /** Read for those who embed it (userWithDateJsonSql). */
  createdAt?: string;
}

/** A milestone as work items and lists show it, with the path of its page. */
export interface MilestoneRow {
  id: number;
  iid: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  description: string | null;
  state: 'active' | 'closed';
  due_date: string | null;
  start_date: string | null;
  created_at: string;
  updated_at: string;
  web_path: string;
}

/** An issue with everything its answer embeds. */
export interface IssueRow {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  confidential: boolean;
  discussion_locked: boolean;
  due_date: string | null;
  time_estimate: number;
  total_time_spent: number;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
  author_id: number | null;
  moved_to_id: number | null;
  /** `namespace/project`, for its URLs. */
  project_path: string;
  labels: string[];
  assignees: UserRef[];
  author: UserRef | null;
  closed_by: UserRef | null;
  milestone: MilestoneRow | null;
  user_notes_count: number;
  upvotes: number;
  downvotes: number;
}

/** A user's columns (the user aliased `u`, `au`, `a` or `c`) as a JSON object of the names UserRef has. */
export const userJsonSql = (u: UserAlias) =>
  sql`json_build_object('id', ${fixed(u)}."id", 'name', ${fixed(u)}."name", 'username', ${fixed(u)}."username",
    'state', ${fixed(u)}."state", 'email', ${fixed(u)}."email", 'avatarFilename', ${fixed(u)}."avatar_filename")`;

/** An alias of a user in the work items' statements. */
type UserAlias = 'u' | 'au' | 'a' | 'c' | 'mb' | 'mu';
const fixed = (alias: UserAlias) => fixedSql(`"${alias}"`);

/** A user's columns as userJsonSql has them, and when the user joined (`createdAt`): a merge request's author and assignees. */
export const userWithDateJsonSql = (u: UserAlias) =>
  sql`(${userJsonSql(u)}::jsonb || jsonb_build_object('createdAt', ${fixed(u)}."created_at"))`;

/** The path of a milestone's page (aliased `m`), from its project's or its group's. */
export const milestoneWebPathSql = sql`case when m."project_id" is not null
  then (select mn."full_path" || '/' || mp."path" from "projects" mp join "namespaces" mn on mn."id" = mp."namespace_id"
    where mp."id" = m."project_id") || '/milestones/' || m."iid"
  else 'groups/' || (select g."full_path" from "namespaces" g where g."id" = m."group_id") || '/-/milestones/' || m."iid" end`;

/** A milestone (aliased `m`) as a JSON object of MilestoneRow. */
export const milestoneJsonSql = sql`(to_jsonb(m) || jsonb_build_object('web_path', ${milestoneWebPathSql}))`;

/** The columns of a page of issues (aliased `i`, projects `p`, namespaces `n`): the issue and all it embeds. */
const ISSUE_COLUMNS = sql`i."id", i."iid", i."project_id", i."title", i."description", i."state", i."confidential", i."discussion_locked",
  i."due_date",
  i."time_estimate", i."total_time_spent", i."created_at", i."updated_at", i."closed_at", i."author_id", i."moved_to_id",
  n."full_path" || '/' || p."path" as "project_path",
  (select coalesce(json_agg(l."title" order by l."title"), '[]') from "label_links" ll join "labels" l on l."id" = ll."label_id"
    where ll."target_kind" = 'Issue' and ll."target_id" = i."id") as "labels",
  (select coalesce(json_agg(${userJsonSql('au')} order by ia."id"), '[]') from "issue_assignees" ia join "users" au
    on au."id" = ia."user_id"
    where ia."issue_id" = i."id") as "assignees",
  (select ${userJsonSql('a')} from "users" a where a."id" = i."author_id") as "author",
  (select ${userJsonSql('c')} from "users" c where c."id" = i."closed_by_id") as "closed_by",
  (select ${milestoneJsonSql} from "milestones" m where m."id" = i."milestone_id") as "milestone",
  (select count(*)::int from "notes" nt where nt."target_kind" = 'Issue' and nt."target_id" = i."id"
    and not nt."system") as "user_notes_count",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'Issue' and ae."target_id" = i."id"
    and ae."name" = 'thumbsup') as "upvotes",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'Issue' and ae."target_id" = i."id"
    and ae."name" = 'thumbsdown') as "downvotes"`;

const ISSUES_FROM = sql`"issues" i join "projects" p on p."id" = i."project_id" join "namespaces" n on n."id" = p."namespace_id"`;

/** What a list of issues keeps: the filters of any work item, and whether they are confidential. */
export interface IssueFilter extends WorkItemFilter {
  state?: 'opened' | 'closed';
  confidential?: boolean;
}

function issuesWhere(filter: IssueFilter): Sql {
  const more = filter.confidential === undefined ? [] : [sql`i."confidential" = ${filter.confidential}`];
  return workItemsWhere('Issue', { ...filter, more: [...more, ...(filter.more ?? [])] });
}

export type IssueOrder = WorkItemOrder;

/** A page of the issues the filter keeps, each with what it embeds, and how many there are: two statements. */
export async function issuePage(
  em: EntityManager,
  filter: IssueFilter,
  order: { orderBy: IssueOrder; sort: 'asc' | 'desc' },
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: IssueRow[] }> {
  const where = issuesWhere(filter);
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from ${ISSUES_FROM} where ${where}`);
  if (Number(count) === 0 || page.offset >= Number(count)) return { total: Number(count), rows: [] };
  const rows = await queryRows(
    em,
    sql`select ${ISSUE_COLUMNS} from ${ISSUES_FROM} where ${where} order by ${workItemsOrderSql('Issue', order.orderBy, order.sort)}
      limit ${page.limit} offset ${page.offset}`,
  );
  return { total: Number(count), rows: rows as unknown as IssueRow[] };
}

/** One issue with what it embeds (deleted or not); undefined when there is none. */
export async function issueRow(em: EntityManager, issueId: number): Promise<IssueRow | undefined> {
  const [row] = await queryRows(em, sql`select ${ISSUE_COLUMNS} from ${ISSUES_FROM} where i."id" = ${issueId}`);
  return row as unknown as IssueRow | undefined;
}

/** What deciding on an issue needs, by project and iid; undefined for none (or a deleted one). */
export async function findIssueFacts(
  em: EntityManager,
  projectId: number,
  iid: number,
): Promise<
  { id: number; iid: number; authorId: number | null; confidential: boolean; discussionLocked: boolean; assigneeIds: number[] } | undefined
> {
  const [row] = await queryRows(
    em,
    sql`select i."id", i."iid", i."author_id" as "authorId", i."confidential", i."discussion_locked" as "discussionLocked",
      array(select ia."user_id" from "issue_assignees" ia where ia."issue_id" = i."id" order by ia."id") as "assigneeIds"
      from "issues" i where i."project_id" = ${projectId} and i."iid" = ${iid} and i."deleted_at" is null`,
  );
  return row as never;
}

/** The columns an issue is written with (absent: not written). */
export interface IssueColumns {
  title?: string;
  description?: string | null;
  state?: 'opened' | 'closed';
  confidential?: boolean;
  discussion_locked?: boolean;
  due_date?: string | null;
  milestone_id?: number | null;
  closed_at?: Date | null;
  closed_by_id?: number | null;
  moved_to_id?: number | null;
  time_estimate?: number;
  total_time_spent?: number;
  deleted_at?: Date | null;
  created_at?: Date;
  updated_at?: Date;
}

const ISSUE_WRITABLE = [
  'title',
  'description',
  'state',
  'confidential',
  'discussion_locked',
  'due_date',
  'milestone_id',
  'closed_at',
  'closed_by_id',
  'moved_to_id',
  'time_estimate',
  'total_time_spent',
  'deleted_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof IssueColumns)[];

const columnName = (name: keyof IssueColumns) => identifier(name, ISSUE_WRITABLE);

/** A new issue of the project with its next iid; its ID and iid. */
export async function insertIssue(
  em: EntityManager,
  issue: { projectId: number; iid: number; authorId: number; title: string; now: Date } & IssueColumns,
): Promise<{ id: number; iid: number }> {
  const { projectId, iid, authorId, now, ...columns } = issue;
  const given = ISSUE_WRITABLE.filter((name) => columns[name] !== undefined);
  const names = given.includes('created_at') ? given : [...given, 'created_at' as const];
  const values: IssueColumns = { created_at: now, ...columns, updated_at: columns.updated_at ?? columns.created_at ?? now };
  const all = names.includes('updated_at') ? names : [...names, 'updated_at' as const];
  const [row] = await queryRows(
    em,
    sql`insert into "issues" ("project_id", "iid", "author_id"${concat(all.map((name) => sql`, ${columnName(name)}`))})
      values (${projectId}, ${iid}, ${authorId}${concat(all.map((name) => sql`, ${values[name] ?? null}`))}) returning "id", "iid"`,
  );
  return { id: Number(row.id), iid: Number(row.iid) };
}

/** An issue's columns changed. */
export function updateIssue(em: EntityManager, issueId: number, columns: IssueColumns): Promise<void> {
  return updateWorkItem(em, 'Issue', issueId, columns, ISSUE_WRITABLE);
}

/** The issue's assignees made these users, in this order. */
export function setAssignees(em: EntityManager, issueId: number, userIds: number[]): Promise<void> {
  return setWorkItemAssignees(em, 'Issue', issueId, userIds);
}

/** The IDs of the users among `userIds` who exist, in the given order. */
export async function existingUserIds(em: EntityManager, userIds: number[]): Promise<number[]> {
  if (!userIds.length) return [];
  const rows = await queryRows(em, sql`select "id" from "users" where "id" = any(${userIds})`);
  const found = new Set(rows.map((row) => Number(row.id)));
  return userIds.filter((id) => found.has(id));
}

/** The users of these IDs as work items embed them, by ID. */
export async function userRefs(em: EntityManager, userIds: number[]): Promise<Map<number, UserRef>> {
  if (!userIds.length) return new Map();
  const rows = await queryRows(em, sql`select ${userJsonSql('u')} as "user" from "users" u where u."id" = any(${userIds})`);
  return new Map(rows.map((row) => [(row.user as UserRef).id, row.user as UserRef]));
}

/** Whether the user chose to hear of the target (true), or not to (false); null when the user never chose. */
export async function subscriptionChoice(
  em: EntityManager,
  kind: 'Issue' | 'MergeRequest' | 'Label',
  targetId: number,
  userId: number,
): Promise<boolean | null> {
  const [row] = await queryRows(
    em,
    sql`select "subscribed" from "subscriptions" where "target_kind" = ${kind} and "target_id" = ${targetId} and "user_id" = ${userId}`,
  );
  return row ? Boolean(row.subscribed) : null;
}

/** The user's choice to hear of the target, or not, kept. */
export async function setSubscription(
  em: EntityManager,
  kind: 'Issue' | 'MergeRequest' | 'Label',
  targetId: number,
  userId: number,
  subscribed: boolean,
  now: Date,
): Promise<void> {
  await queryRows(
    em,
    sql`insert into "subscriptions" ("user_id", "target_kind", "target_id", "subscribed", "created_at", "updated_at")
      values (${userId}, ${kind}, ${targetId}, ${subscribed}, ${now}, ${now})
      on conflict ("target_kind", "target_id", "user_id") do update
        set "subscribed" = excluded."subscribed", "updated_at" = excluded."updated_at"`,
  );
}

/**
 * Whether a user takes part in a work item without having chosen (its author, an assignee, a commenter) or follows
 * one of its labels: who hears of it unless they unsubscribed.
 */
export async function participatesIn(em: EntityManager, kind: TargetKind, targetId: number, userId: number): Promise<boolean> {
  const assignee =
    kind === 'Issue'
      ? sql` or exists (select 1 from "issue_assignees" ia where ia."issue_id" = ${targetId} and ia."user_id" = ${userId})`
      : kind === 'MergeRequest'
        ? sql` or exists (select 1 from "merge_request_assignees" ma
          where ma."merge_request_id" = ${targetId} and ma."user_id" = ${userId})`
        : empty;
  const author =
    kind === 'Issue'
      ? sql` or exists (select 1 from "issues" i where i."id" = ${targetId} and i."author_id" = ${userId})`
      : kind === 'MergeRequest'
        ? sql` or exists (select 1 from "merge_requests" i where i."id" = ${targetId} and i."author_id" = ${userId})`
        : empty;
  const [row] = await queryRows(
    em,
    sql`select (exists (select 1 from "notes" nt where nt."target_kind" = ${kind} and nt."target_id" = ${targetId}
      and nt."author_id" = ${userId} and not nt."system")${author}${assignee}
      or exists (select 1 from "label_links" ll join "subscriptions" s
        on s."target_kind" = 'Label' and s."target_id" = ll."label_id" and s."user_id" = ${userId} and s."subscribed"
        where ll."target_kind" = ${kind} and ll."target_id" = ${targetId})) as "participates"`,
  );
  return Boolean(row.participates);
}
