import type { Caller } from '../../auth/caller.js';
import { type Day, readsCodeSql, visibleIssuesSql, visibleProjectsSql } from '../../auth/access-levels.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { direction, sql, type Sql } from '../../db/sql.js';
import type { EventAction } from '../../events/kinds.js';
import { type UserRef, userJsonSql } from '../work-items/issue-store.js';

/** The Events API's statements: events with their author, and the note a comment made, the caller's to see only. */

/** An event as the Events API reads it. */
export interface EventRow {
  id: number;
  kind: string;
  action: EventAction;
  project_id: number;
  author_id: number;
  target_type: string | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  data: Record<string, unknown>;
  created_at: Date;
  author: UserRef;
  note: {
    id: number;
    type: string | null;
    body: string;
    system: boolean;
    created_at: string;
    updated_at: string;
    author: UserRef | null;
    noteable_id: number | null;
    noteable_iid: number | null;
  } | null;
}

/** Whose events a list shows: an author's (on any project the caller may read), or one project's. */
export type EventsSource =
  | { authorId: number }
  | { projectId: number; readsCode: boolean; readsConfidential: boolean; readsMergeRequests: boolean };

export interface EventFilter {
  action?: EventAction;
  /** The target's type as stored (`Issue`, `MergeRequest`, `Note`, ...). */
  targetType?: string;
  /** Made before this instant; at or after this one. */
  createdBefore?: Date;
  createdFrom?: Date;
}

/**
 * The events the caller may see, as a condition: of projects it may see; a push or a note on a commit where it may
 * read the code; an issue's (or a note on one) where it may read the issue, still there; a merge request's where
 * it may read the project's merge requests and the request is still there; a note's while the note is.
 */
function visibleEventsSql(caller: Caller, today: Day, source: EventsSource): Sql {
  const inProject = 'projectId' in source;
  const code = inProject ? sql`${source.readsCode}` : readsCodeSql(caller, today);
  const issues = inProject
    ? visibleIssuesSql(caller, today, { readsConfidential: source.readsConfidential })
    : visibleIssuesSql(caller, today);
  const mergeRequests = inProject ? sql`${source.readsMergeRequests}` : sql`p."merge_requests_enabled" and ${code}`;
  const project = inProject ? sql`true` : visibleProjectsSql(caller, today, 'p');
  return sql`${project}
    and (e."kind" not in ('push', 'tag_push') and e."data"->>'noteable_type' is distinct from 'Commit' or ${code})
    and (e."issue_id" is null or (i."deleted_at" is null and ${issues}))
    and (e."merge_request_id" is null or (m."id" is not null and m."deleted_at" is null and ${mergeRequests}))
    and (e."target_type" is distinct from 'Note' or nt."id" is not null or cn."id" is not null)`;
}

/** The note a comment event made, as JSON: from the notes of work items, or from a commit's. */
const NOTE_JSON = sql`case when nt."id" is not null then json_build_object('id', nt."id", 'type', nt."type", 'body', nt."body",
    'system', nt."system", 'created_at', nt."created_at", 'updated_at', nt."updated_at", 'noteable_id', nt."target_id",
    'noteable_iid', coalesce(i."iid", m."iid"), 'author', (select ${userJsonSql('a')} from "users" a where a."id" = nt."author_id"))
  when cn."id" is not null then json_build_object('id', cn."id", 'type', case when cn."path" is null then null else 'DiffNote' end,
    'body', cn."note", 'system', false, 'created_at', cn."created_at", 'updated_at', cn."updated_at", 'noteable_id', null,
    'noteable_iid', null, 'author', (select ${userJsonSql('a')} from "users" a where a."id" = cn."author_id")) end`;

/**
 * The target's ID, iid and title as the original shows them, read from the target as it is now (`target.try(:title)`):
 * an issue's, a merge request's or a milestone's current title; a note's is its noteable's (an issue's or a merge
 * request's as it is now, a commit's as it was); a destroyed milestone's events name no target any more (the original
 * sets their `target_id` to null as it destroys it).
 */
const TARGET_COLUMNS = sql`case when e."target_type" = 'Milestone' and ms."id" is null then null else e."target_id" end as "target_id",
  case when e."target_type" = 'Milestone' then ms."iid" else e."target_iid" end as "target_iid",
  case e."target_type" when 'Issue' then i."title" when 'MergeRequest' then m."title" when 'Milestone' then ms."title"
    when 'Note' then coalesce(i."title", m."title", e."target_title") else e."target_title" end as "target_title"`;

/** A page of the events the caller may see, newest first unless asked otherwise, and how many there are. */
export async function eventPage(
  em: EntityManager,
  caller: Caller,
  /** The instance's day (`ctx.today()`): memberships that ended count for nothing. */
  today: Day,
  source: EventsSource,
  filter: EventFilter,
  order: 'asc' | 'desc',
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: EventRow[] }> {
  const conditions = [
    sql`e."action" is not null`,
    'projectId' in source ? sql`e."project_id" = ${source.projectId}` : sql`e."author_id" = ${source.authorId}`,
    visibleEventsSql(caller, today, source),
  ];
  if (filter.action) conditions.push(sql`e."action" = ${filter.action}`);
  if (filter.targetType) conditions.push(sql`e."target_type" = ${filter.targetType}`);
  if (filter.createdBefore) conditions.push(sql`e."created_at" < ${filter.createdBefore}`);
  if (filter.createdFrom) conditions.push(sql`e."created_at" >= ${filter.createdFrom}`);
  const where = conditions.reduce((all, condition) => sql`${all} and ${condition}`);
  const from = sql`"events" e join "projects" p on p."id" = e."project_id" join "namespaces" n on n."id" = p."namespace_id"
    join "users" u on u."id" = e."author_id"
    left join "issues" i on i."id" = e."issue_id"
    left join "merge_requests" m on m."id" = e."merge_request_id"
    left join "milestones" ms on e."target_type" = 'Milestone' and ms."id" = e."target_id"
    left join "notes" nt on e."target_type" = 'Note' and e."data"->>'noteable_type' <> 'Commit' and nt."id" = e."target_id"
    left join "commit_notes" cn on e."target_type" = 'Note' and e."data"->>'noteable_type' = 'Commit' and cn."id" = e."target_id"`;
  const [counted, rows] = await Promise.all([
    queryRows(em, sql`select count(*)::int as "count" from ${from} where ${where}`),
    queryRows(
      em,
      sql`select e."id", e."kind", e."action", e."project_id", e."author_id", e."target_type", ${TARGET_COLUMNS},
          e."data", e."created_at", ${userJsonSql('u')} as "author", ${NOTE_JSON} as "note"
        from ${from} where ${where} order by e."id" ${direction(order)} limit ${page.limit} offset ${page.offset}`,
    ),
  ]);
  return { total: Number(counted[0].count), rows: rows as unknown as EventRow[] };
}
