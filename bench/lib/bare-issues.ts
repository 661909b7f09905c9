/**
 * The bare handler's GET /projects/:id/issues (bench/lib/bare.ts routes it): the project with the caller's levels,
 * then the count and the page of its issues, each row with all it embeds (labels, assignees, author, closer,
 * milestone, counts of notes and award emoji), written as forgekit writes them (src/services/work-items/issue-store.ts)
 * so that bench/requests.ts can check they are the same, and the rows made into the same JSON by hand
 * (src/services/present/issues.ts). For a caller who reads the project's confidential issues (a reporter or above,
 * not an administrator: the benchmark's reader); for the others forgekit adds a condition per row.
 */
import { fixedSql, sql } from '../../src/db/sql.ts';
import { formatDuration } from '../../src/services/work-items/durations.ts';
import { projectSql, type ProjectsCaller } from './bare-projects.ts';
import type { Row, SqlClient } from './sql.ts';

/** A reporter's access level: the least that reads every confidential issue. */
const REPORTER = 20;

/** A user's columns (aliased `alias`) as a JSON object, as issue-store.ts's `userJson` writes it. */
const userJson = (alias: string) => {
  const u = fixedSql(`"${alias}"`);
  return sql`json_build_object('id', ${u}."id", 'name', ${u}."name", 'username', ${u}."username", 'state', ${u}."state",
    'email', ${u}."email", 'avatarFilename', ${u}."avatar_filename")`;
};

const milestoneWebPath = sql`case when m."project_id" is not null
  then (select mn."full_path" || '/' || mp."path" from "projects" mp join "namespaces" mn on mn."id" = mp."namespace_id"
    where mp."id" = m."project_id") || '/milestones/' || m."iid"
  else 'groups/' || (select g."full_path" from "namespaces" g where g."id" = m."group_id") || '/-/milestones/' || m."iid" end`;

/** Everything an issue of the page embeds, a subquery per relation and row (issue-store.ts's ISSUE_COLUMNS). */
const ISSUE_COLUMNS = sql`i."id", i."iid", i."project_id", i."title", i."description", i."state", i."confidential", i."discussion_locked",
  i."due_date",
  i."time_estimate", i."total_time_spent", i."created_at", i."updated_at", i."closed_at", i."author_id", i."moved_to_id",
  n."full_path" || '/' || p."path" as "project_path",
  (select coalesce(json_agg(l."title" order by l."title"), '[]') from "label_links" ll join "labels" l on l."id" = ll."label_id"
    where ll."target_kind" = 'Issue' and ll."target_id" = i."id") as "labels",
  (select coalesce(json_agg(${userJson('au')} order by ia."id"), '[]') from "issue_assignees" ia join "users" au on au."id" = ia."user_id"
    where ia."issue_id" = i."id") as "assignees",
  (select ${userJson('a')} from "users" a where a."id" = i."author_id") as "author",
  (select ${userJson('c')} from "users" c where c."id" = i."closed_by_id") as "closed_by",
  (select (to_jsonb(m) || jsonb_build_object('web_path', ${milestoneWebPath})) from "milestones" m
    where m."id" = i."milestone_id") as "milestone",
  (select count(*)::int from "notes" nt where nt."target_kind" = 'Issue' and nt."target_id" = i."id"
    and not nt."system") as "user_notes_count",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'Issue' and ae."target_id" = i."id"
    and ae."name" = 'thumbsup') as "upvotes",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'Issue' and ae."target_id" = i."id"
    and ae."name" = 'thumbsdown') as "downvotes"`;

const ISSUES_FROM = sql`"issues" i join "projects" p on p."id" = i."project_id" join "namespaces" n on n."id" = p."namespace_id"`;

/** Not deleted, the tracker enabled (visibleIssuesSql for a reader of confidential issues), the project's. */
const where = (projectId: number) => sql`i."deleted_at" is null and p."issues_enabled" and i."project_id" = ${projectId}`;

export const issueSql = {
  count: (projectId: number) => sql`select count(*)::int as "count" from ${ISSUES_FROM} where ${where(projectId)}`,
  /** Newest first (`order_by=created_at`, `sort=desc`: the defaults); the offset bound even when 0, as forgekit binds it. */
  page: (projectId: number, limit: number, offset: number) =>
    sql`select ${ISSUE_COLUMNS} from ${ISSUES_FROM} where ${where(projectId)} order by i."created_at" desc, i."id" desc
      limit ${limit} offset ${offset}`,
};

/** A timestamp as PostgreSQL's text (`2026-11-23 05:11:11+00`) or as `to_jsonb` writes it, in JSON's form. */
const iso = (text: string) => new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();

/** How the issues' JSON is made: the external URL, and whether users without an avatar get the avatar service's. */
export interface IssuesView {
  baseUrl: string;
  avatarService: boolean;
  /** The MD5 avatar URL of an email (bench/lib/bare.ts's). */
  gravatar: (email: string) => string;
}

/** A user reference (presentUserBasic) from the JSON object `userJson` builds. */
function userRef(user: Row, view: IssuesView) {
  const avatar = user.avatarFilename
    ? `${view.baseUrl}/uploads/-/system/user/avatar/${user.id}/${encodeURIComponent(user.avatarFilename)}`
    : view.avatarService
      ? view.gravatar(user.email)
      : null;
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state,
    avatar_url: avatar,
    web_url: `${view.baseUrl}/${user.username}`,
  };
}

/** What forgekit shows for an author whose account is gone. */
const GHOST = { id: 0, name: 'Ghost User', username: 'ghost', state: 'active', email: 'ghost@localhost', avatarFilename: null };

/** An issue as lists show it (presentIssueBasic), its fields in the same order. */
function present(row: Row, view: IssuesView) {
  const assignees = row.assignees.map((user: Row) => userRef(user, view));
  const milestone = row.milestone;
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    closed_at: row.closed_at ? iso(row.closed_at) : null,
    closed_by: row.closed_by ? userRef(row.closed_by, view) : null,
    moved_to_id: row.moved_to_id,
    labels: row.labels,
    milestone: milestone
      ? {
          id: milestone.id,
          iid: milestone.iid,
          ...(milestone.project_id !== null ? { project_id: milestone.project_id } : { group_id: milestone.group_id }),
          title: milestone.title,
          description: milestone.description,
          state: milestone.state,
          created_at: iso(milestone.created_at),
          updated_at: iso(milestone.updated_at),
          due_date: milestone.due_date,
          start_date: milestone.start_date,
          web_url: `${view.baseUrl}/${milestone.web_path}`,
        }
      : null,
    assignees,
    assignee: assignees[0] ?? null,
    author: userRef(row.author ?? GHOST, view),
    user_notes_count: row.user_notes_count,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    due_date: row.due_date,
    confidential: row.confidential,
    discussion_locked: row.discussion_locked,
    web_url: `${view.baseUrl}/${row.project_path}/issues/${row.iid}`,
    time_stats: {
      time_estimate: row.time_estimate,
      total_time_spent: row.total_time_spent,
      human_time_estimate: formatDuration(row.time_estimate),
      human_total_time_spent: formatDuration(row.total_time_spent),
    },
  };
}

/** GET /projects/:id/issues: a page of the project's issues, newest first, and how many; null when the caller may not see the project. */
export async function listIssues(
  db: SqlClient,
  caller: ProjectsCaller,
  projectId: number,
  perPage: number,
  page: number,
  view: IssuesView,
): Promise<{ items: Row[]; total: number } | null> {
  const [scope] = await db.query(projectSql.one(caller.user, projectId));
  if (!scope) return null;
  const { project } = scope;
  const readable = project.visibility === 'public' || (project.visibility === 'internal' && !caller.external) || scope.access_level >= 10;
  if (!readable) return null;
  // A disabled tracker lists nothing, with no statement.
  if (!project.issues_enabled) return { items: [], total: 0 };
  if (scope.access_level < REPORTER) throw new Error('the bare GET /projects/:id/issues is for reporters and above');
  const [{ count }] = await db.query(issueSql.count(projectId));
  const offset = (page - 1) * perPage;
  if (count === 0 || offset >= count) return { items: [], total: count };
  const rows = await db.query(issueSql.page(projectId, perPage, offset));
  return { items: rows.map((row) => present(row, view)), total: count };
}
