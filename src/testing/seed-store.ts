import type { EntityManager } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { fixedSql, type Sql, sql } from '../db/sql.js';

// A seed's hand-written statements (src/testing/seed.ts): what it reads to check the description, and its rows written a
// table at a time, each table's rows bound as one JSON value.

/** The tables whose IDs a seed reserves before it writes rows that refer to one another. */
type SeededTable = 'users' | 'namespaces' | 'projects' | 'labels' | 'milestones' | 'issues' | 'notes';

type Row = Record<string, unknown>;

/** `count` new IDs of the table's sequence, in order: rows written with them may refer to one another in one statement. */
export async function reserveIds(em: EntityManager, table: SeededTable, count: number): Promise<number[]> {
  if (count === 0) return [];
  const rows = await queryRows(
    em,
    sql`select nextval(pg_get_serial_sequence(${table}, 'id'))::int as "id" from generate_series(1, ${count}::int)`,
  );
  return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

/** Rows given as JSON, as a relation `r` with these columns. */
const records = (rows: object[], columns: Sql): Sql => sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(${columns})`;

// ---- what the checks read ----

/** The users of these usernames (lower-cased). */
export function usersNamed(em: EntityManager, usernames: string[]): Promise<Row[]> {
  return queryRows(em, sql`select "id", "username", "name", "email" from "users" where "username_lower" = any(${usernames}::text[])`);
}

/** The namespaces of these full paths (lower-cased), with their user's projects limit and how many projects they hold. */
export function namespacesNamed(em: EntityManager, paths: string[]): Promise<Row[]> {
  return queryRows(
    em,
    sql`select n."id", n."kind", n."full_path", n."full_name", n."visibility", n."traversal_ids", n."owner_id", u."projects_limit",
        (select count(*)::int from "projects" p where p."namespace_id" = n."id") as "projects"
      from "namespaces" n left join "users" u on u."id" = n."owner_id" where lower(n."full_path") = any(${paths}::text[])`,
  );
}

/** Which of these usernames (lower-cased: top-level paths), e-mail addresses and token digests the instance has. */
export async function takenAccounts(
  em: EntityManager,
  given: { usernames: string[]; emails: string[]; digests: string[] },
): Promise<{ usernames: Set<string>; emails: Set<string>; digests: Set<string> }> {
  const rows = await queryRows(
    em,
    sql`select 'username' as "what", lower("path") as "taken" from "namespaces"
        where "parent_id" is null and lower("path") = any(${given.usernames}::text[])
      union all select 'email', "email" from "users" where "email" = any(${given.emails}::text[])
      union all select 'email', "email" from "emails" where "email" = any(${given.emails}::text[])
      union all select 'digest', "token_digest" from "access_tokens" where "token_digest" = any(${given.digests}::text[])`,
  );
  const of = (what: string) => new Set(rows.filter((row) => row.what === what).map((row) => String(row.taken)));
  return { usernames: of('username'), emails: of('email'), digests: of('digest') };
}

/** Siblings the instance has of new groups (`parent_id` 0: the top level): `<parent>/<lower-cased path>`, `<parent>/<name>`. */
export async function takenSiblings(
  em: EntityManager,
  groups: { parent_id: number; path: string; name: string }[],
): Promise<{ paths: Set<string>; names: Set<string> }> {
  if (!groups.length) return { paths: new Set(), names: new Set() };
  const rows = await queryRows(
    em,
    sql`select coalesce(n."parent_id", 0) as "parent_id", lower(n."path") as "path", n."name" from "namespaces" n
      join ${records(groups, sql`"parent_id" int, "path" text, "name" text`)}
        on coalesce(n."parent_id", 0) = r."parent_id" and (lower(n."path") = r."path" or n."name" = r."name")`,
  );
  return {
    paths: new Set(rows.map((row) => `${row.parent_id}/${row.path}`)),
    names: new Set(rows.map((row) => `${row.parent_id}/${row.name}`)),
  };
}

/** The projects' names and paths these namespaces hold, lower-cased: `<namespace>/<name>`. */
export async function takenProjectNames(em: EntityManager, namespaceIds: number[]): Promise<{ names: Set<string>; paths: Set<string> }> {
  if (!namespaceIds.length) return { names: new Set(), paths: new Set() };
  const rows = await queryRows(
    em,
    sql`select "namespace_id", lower("name") as "name", lower("path") as "path" from "projects"
      where "namespace_id" = any(${namespaceIds}::int[])`,
  );
  return {
    names: new Set(rows.map((row) => `${row.namespace_id}/${row.name}`)),
    paths: new Set(rows.map((row) => `${row.namespace_id}/${row.path}`)),
  };
}

/**
 * The memberships of these groups and projects below what their users have from a group above (the members API's rule):
 * each with the level inherited and where from.
 */
export function membershipsBelowInherited(em: EntityManager, groupIds: number[], projectIds: number[]): Promise<Row[]> {
  return queryRows(
    em,
    sql`select 'group' as "kind", m."group_id" as "source_id", m."user_id", m."access_level", a."access_level" as "inherited",
        g."full_name" as "source_name"
      from "group_members" m join "namespaces" n on n."id" = m."group_id"
        join "group_members" a on a."user_id" = m."user_id" and a."group_id" = any(n."traversal_ids") and a."group_id" <> n."id"
        join "namespaces" g on g."id" = a."group_id"
      where m."group_id" = any(${groupIds}::int[]) and a."access_level" > m."access_level"
      union all
      select 'project', m."project_id", m."user_id", m."access_level", a."access_level", g."full_name"
      from "project_members" m join "projects" p on p."id" = m."project_id" join "namespaces" n on n."id" = p."namespace_id"
        join "group_members" a on a."user_id" = m."user_id" and a."group_id" = any(n."traversal_ids")
        join "namespaces" g on g."id" = a."group_id"
      where m."project_id" = any(${projectIds}::int[]) and a."access_level" > m."access_level"`,
  );
}

/** The projects' default branches, as their first branches made them. */
export async function defaultBranches(em: EntityManager, projectIds: number[]): Promise<Map<number, string | null>> {
  if (!projectIds.length) return new Map();
  const rows = await queryRows(em, sql`select "id", "default_branch" from "projects" where "id" = any(${projectIds}::int[])`);
  return new Map(rows.map((row) => [Number(row.id), (row.default_branch as string | null) ?? null]));
}

// ---- the rows ----

export async function insertUsers(em: EntityManager, rows: Row[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "users" ("id", "username", "username_lower", "name", "email", "password_hash", "admin", "external", "projects_limit",
        "can_create_group", "confirmed_at", "created_at", "updated_at")
      select r."id", r."username", r."username_lower", r."name", r."email", r."password_hash", r."admin", r."external", r."projects_limit",
        r."can_create_group", ${now}, ${now}, ${now}
      from ${records(
        rows,
        sql`"id" int, "username" text, "username_lower" text, "name" text, "email" text, "password_hash" text, "admin" boolean,
          "external" boolean, "projects_limit" int, "can_create_group" boolean`,
      )}`,
  );
}

/** Users' personal access tokens (their digests). */
export async function insertTokens(em: EntityManager, rows: { user_id: number; digest: string; scopes: string[] }[], now: Date) {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "access_tokens" ("user_id", "kind", "name", "token_digest", "scopes", "created_at")
      select r."user_id", 'personal', 'seed', r."digest", r."scopes", ${now}
      from ${records(rows, sql`"user_id" int, "digest" text, "scopes" text[]`)}`,
  );
}

/** Users' namespaces and groups. */
export async function insertNamespaces(em: EntityManager, rows: Row[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "namespaces" ("id", "kind", "name", "path", "full_path", "full_name", "parent_id", "owner_id", "traversal_ids",
        "description", "visibility", "runners_token_sealed", "runners_token_digest", "created_at", "updated_at")
      select r."id", r."kind", r."name", r."path", r."full_path", r."full_name", r."parent_id", r."owner_id", r."traversal_ids",
        coalesce(r."description", ''), coalesce(r."visibility", 'private'), r."runners_token_sealed", r."runners_token_digest",
        ${now}, ${now}
      from ${records(
        rows,
        sql`"id" int, "kind" text, "name" text, "path" text, "full_path" text, "full_name" text, "parent_id" int, "owner_id" int,
          "traversal_ids" int[], "description" text, "visibility" text, "runners_token_sealed" text, "runners_token_digest" text`,
      )}`,
  );
}

export async function insertMemberships(
  em: EntityManager,
  kind: 'project' | 'group',
  rows: { source_id: number; user_id: number; access_level: number }[],
  now: Date,
): Promise<void> {
  if (!rows.length) return;
  const [table, key] =
    kind === 'project' ? [fixedSql('"project_members"'), fixedSql('"project_id"')] : [fixedSql('"group_members"'), fixedSql('"group_id"')];
  await queryRows(
    em,
    sql`insert into ${table} (${key}, "user_id", "access_level", "created_at")
      select r."source_id", r."user_id", r."access_level", ${now}
      from ${records(rows, sql`"source_id" int, "user_id" int, "access_level" int`)}`,
  );
}

export async function insertProjects(em: EntityManager, rows: Row[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "projects" ("id", "name", "path", "namespace_id", "creator_id", "description", "visibility", "repository_storage",
        "runners_token_sealed", "runners_token_digest", "created_at", "updated_at", "last_activity_at")
      select r."id", r."name", r."path", r."namespace_id", r."creator_id", r."description", r."visibility", r."storage", r."sealed",
        r."digest", ${now}, ${now}, ${now}
      from ${records(
        rows,
        sql`"id" int, "name" text, "path" text, "namespace_id" int, "creator_id" int, "description" text, "visibility" text, "storage" text,
          "sealed" text, "digest" text`,
      )}`,
  );
}

export async function insertLabels(em: EntityManager, rows: Row[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "labels" ("id", "project_id", "title", "color", "description", "priority", "created_at", "updated_at")
      select r."id", r."project_id", r."title", r."color", r."description", r."priority", ${now}, ${now}
      from ${records(rows, sql`"id" int, "project_id" int, "title" text, "color" text, "description" text, "priority" int`)}`,
  );
}

export async function insertMilestones(em: EntityManager, rows: Row[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "milestones" ("id", "iid", "project_id", "title", "description", "state", "due_date", "start_date", "created_at",
        "updated_at")
      select r."id", r."iid", r."project_id", r."title", r."description", r."state", r."due_date", r."start_date", ${now}, ${now}
      from ${records(
        rows,
        sql`"id" int, "iid" int, "project_id" int, "title" text, "description" text, "state" text, "due_date" text, "start_date" text`,
      )}`,
  );
}

/** New projects' iid counters of a kind, where they have iids up to `last`. */
export async function setIidCounters(
  em: EntityManager,
  usage: 'issues' | 'milestones',
  rows: { project_id: number; last: number }[],
): Promise<void> {
  const given = rows.filter((row) => row.last > 0);
  if (!given.length) return;
  await queryRows(
    em,
    sql`insert into "internal_ids" ("usage", "project_id", "last_value")
      select ${usage}, r."project_id", r."last" from ${records(given, sql`"project_id" int, "last" int`)}`,
  );
}

/**
 * Issues of new projects, with their projects' counters of open issues. Written without the triggers (the counters
 * kept row by row, and the foreign keys, which the seed has checked): the counters are set once, after. Seeds are a test
 * double's, which runs as a superuser already (its snapshots are put back so too).
 */
export async function insertIssues(em: EntityManager, rows: Row[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(em, sql`set local session_replication_role = replica`);
  await queryRows(
    em,
    sql`insert into "issues" ("id", "project_id", "iid", "title", "description", "state", "author_id", "confidential", "discussion_locked",
        "due_date", "milestone_id", "closed_at", "closed_by_id", "created_at", "updated_at")
      select r."id", r."project_id", r."iid", r."title", r."description", r."state", r."author_id", r."confidential", r."discussion_locked",
        r."due_date", r."milestone_id", r."closed_at", r."closed_by_id", ${now}, ${now}
      from ${records(
        rows,
        sql`"id" int, "project_id" int, "iid" int, "title" text, "description" text, "state" text, "author_id" int, "confidential" boolean,
          "discussion_locked" boolean, "due_date" text, "milestone_id" int, "closed_at" timestamptz, "closed_by_id" int`,
      )}`,
  );
  await queryRows(em, sql`set local session_replication_role = origin`);
  const projectIds = [...new Set(rows.map((row) => Number(row.project_id)))];
  await queryRows(
    em,
    sql`update "projects" p set "open_issues_count" = c."open", "open_confidential_issues_count" = c."confidential"
      from (select "project_id", count(*) filter (where "state" = 'opened')::int as "open",
          count(*) filter (where "state" = 'opened' and "confidential")::int as "confidential"
        from "issues" where "project_id" = any(${projectIds}::int[]) group by "project_id") c
      where p."id" = c."project_id"`,
  );
}

/** Issues' assignees, in the order given. */
export async function insertIssueAssignees(em: EntityManager, rows: { issue_id: number; user_id: number }[]): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "issue_assignees" ("issue_id", "user_id")
      select r."issue_id", r."user_id" from ${records(rows, sql`"issue_id" int, "user_id" int`)}`,
  );
}

/** Labels on issues. */
export async function insertIssueLabelLinks(em: EntityManager, rows: { label_id: number; target_id: number }[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "label_links" ("label_id", "target_kind", "target_id", "created_at")
      select r."label_id", 'Issue', r."target_id", ${now} from ${records(rows, sql`"label_id" int, "target_id" int`)}`,
  );
}

/** Comments on issues and merge requests, each a discussion of its own. */
export async function insertNotes(em: EntityManager, rows: Row[], now: Date): Promise<void> {
  if (!rows.length) return;
  await queryRows(
    em,
    sql`insert into "notes" ("id", "project_id", "target_kind", "target_id", "author_id", "body", "discussion_id", "created_at",
        "updated_at")
      select r."id", r."project_id", r."target_kind", r."target_id", r."author_id", r."body", r."discussion_id", ${now}, ${now}
      from ${records(
        rows,
        sql`"id" int, "project_id" int, "target_kind" text, "target_id" int, "author_id" int, "body" text, "discussion_id" text`,
      )}`,
  );
}
