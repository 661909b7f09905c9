import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { newDiscussionIdSql } from './note-store.js';
import { empty, join, sql, type Sql } from '../../db/sql.js';
import { milestoneJsonSql, type MilestoneRow } from './issue-store.js';

/** Milestones' hand-written statements: of a project or a group, listed, read, written; and those a project may use. */

/** Whose milestones: a project's, or a group's. */
export type MilestoneOwner = { projectId: number } | { groupId: number };

const ownedBy = (owner: MilestoneOwner) =>
  'projectId' in owner ? sql`m."project_id" = ${owner.projectId}` : sql`m."group_id" = ${owner.groupId}`;

export interface MilestoneFilter {
  state?: 'active' | 'closed';
  iids?: number[];
  title?: string;
  /** A LIKE pattern on the title and the description. */
  search?: string;
}

function milestonesWhere(owner: MilestoneOwner, filter: MilestoneFilter): Sql {
  const conditions = [ownedBy(owner)];
  if (filter.state) conditions.push(sql`m."state" = ${filter.state}`);
  if (filter.iids) conditions.push(sql`m."iid" = any(${filter.iids})`);
  if (filter.title !== undefined) conditions.push(sql`m."title" = ${filter.title}`);
  if (filter.search) conditions.push(sql`(m."title" ilike ${filter.search} or m."description" ilike ${filter.search})`);
  return join(conditions, ' and ');
}

/** A page of milestones, newest first as the original lists them (`order_id_desc`); and how many there are. */
export async function milestonePage(
  em: EntityManager,
  owner: MilestoneOwner,
  filter: MilestoneFilter,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: MilestoneRow[] }> {
  const where = milestonesWhere(owner, filter);
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from "milestones" m where ${where}`);
  if (Number(count) === 0 || page.offset >= Number(count)) return { total: Number(count), rows: [] };
  const rows = await queryRows(
    em,
    sql`select ${milestoneJsonSql} as "milestone" from "milestones" m where ${where} order by m."id" desc
      limit ${page.limit} offset ${page.offset}`,
  );
  return { total: Number(count), rows: rows.map((row) => row.milestone as MilestoneRow) };
}

/** One milestone of the owner by ID; undefined for none. */
export async function findMilestone(em: EntityManager, owner: MilestoneOwner, milestoneId: number): Promise<MilestoneRow | undefined> {
  const [row] = await queryRows(
    em,
    sql`select ${milestoneJsonSql} as "milestone" from "milestones" m where ${ownedBy(owner)} and m."id" = ${milestoneId}`,
  );
  return row?.milestone as MilestoneRow | undefined;
}

/** The groups whose milestones a project may use: its namespace's chain of groups, as a subquery of IDs. */
const projectGroupsSql = (projectId: number) =>
  sql`select unnest(n."traversal_ids") from "projects" p join "namespaces" n on n."id" = p."namespace_id"
    where p."id" = ${projectId} and n."kind" = 'group'`;

/** A milestone a project's work items may take (the project's, or a group's above it), by ID; undefined for none. */
export async function findUsableMilestone(em: EntityManager, projectId: number, milestoneId: number): Promise<MilestoneRow | undefined> {
  const [row] = await queryRows(
    em,
    sql`select ${milestoneJsonSql} as "milestone" from "milestones" m where m."id" = ${milestoneId}
      and (m."project_id" = ${projectId} or m."group_id" in (${projectGroupsSql(projectId)}))`,
  );
  return row?.milestone as MilestoneRow | undefined;
}

/** The milestone of this title a project's work items may take (the project's first, then its groups' nearest); undefined for none. */
export async function findUsableMilestoneByTitle(em: EntityManager, projectId: number, title: string): Promise<MilestoneRow | undefined> {
  const [row] = await queryRows(
    em,
    sql`select ${milestoneJsonSql} as "milestone" from "milestones" m where m."title" = ${title}
      and (m."project_id" = ${projectId} or m."group_id" in (${projectGroupsSql(projectId)}))
        order by m."project_id" nulls last, m."id" desc limit 1`,
  );
  return row?.milestone as MilestoneRow | undefined;
}

/** A new milestone with its owner's next iid; its ID (undefined when the title is taken). */
export async function insertMilestone(
  em: EntityManager,
  owner: MilestoneOwner,
  milestone: { iid: number; title: string; description: string | null; dueDate: string | null; startDate: string | null; now: Date },
): Promise<number | undefined> {
  const [projectId, groupId] = 'projectId' in owner ? [owner.projectId, null] : [null, owner.groupId];
  const [row] = await queryRows(
    em,
    sql`insert into "milestones" ("iid", "project_id", "group_id", "title", "description", "due_date", "start_date", "created_at",
      "updated_at")
      values (${milestone.iid}, ${projectId}::int, ${groupId}::int, ${milestone.title}, ${milestone.description}, ${milestone.dueDate},
        ${milestone.startDate}, ${milestone.now}, ${milestone.now})
      on conflict do nothing returning "id"`,
  );
  return row ? Number(row.id) : undefined;
}

/** A milestone's columns changed (those given). */
export async function updateMilestone(
  em: EntityManager,
  milestoneId: number,
  changes: { title?: string; description?: string | null; state?: 'active' | 'closed'; dueDate?: string | null; startDate?: string | null },
  now: Date,
): Promise<void> {
  await queryRows(
    em,
    sql`update "milestones" set "updated_at" = ${now}
      ${changes.title !== undefined ? sql`, "title" = ${changes.title}` : empty}
      ${changes.description !== undefined ? sql`, "description" = ${changes.description}` : empty}
      ${changes.state !== undefined ? sql`, "state" = ${changes.state}` : empty}
      ${changes.dueDate !== undefined ? sql`, "due_date" = ${changes.dueDate}` : empty}
      ${changes.startDate !== undefined ? sql`, "start_date" = ${changes.startDate}` : empty}
      where "id" = ${milestoneId}`,
  );
}

/**
 * A milestone gone. Its issues and merge requests lose it first, each changed then with a system note (`note`, by `authorId`) as the
 * original's DestroyService updates them one by one: two statements whatever their number.
 */
export async function deleteMilestone(
  em: EntityManager,
  milestoneId: number,
  change: { authorId: number; note: string; now: Date },
): Promise<void> {
  await queryRows(
    em,
    sql`with "detached_issues" as (update "issues" set "milestone_id" = null, "updated_at" = ${change.now}
      where "milestone_id" = ${milestoneId} and "deleted_at" is null
        returning "id", "project_id", 'Issue' as "kind"),
      "detached_requests" as (update "merge_requests" set "milestone_id" = null, "updated_at" = ${change.now}
        where "milestone_id" = ${milestoneId} and "deleted_at" is null
        returning "id", "project_id", 'MergeRequest' as "kind")
      insert into "notes" ("project_id", "target_kind", "target_id", "author_id", "body", "system", "discussion_id", "created_at",
        "updated_at")
      select d."project_id", d."kind", d."id", ${change.authorId}, ${change.note}, true, ${newDiscussionIdSql}, ${change.now}, ${change.now}
      from (select * from "detached_issues" union all select * from "detached_requests") d`,
  );
  await queryRows(em, sql`delete from "milestones" where "id" = ${milestoneId}`);
}

/**
 * Whether a title is taken where the original keeps milestone titles unique (Milestone#uniqueness_of_title): for a
 * project's, among its own and its group's (the one it is in, not those above); for a group's, among its own and
 * its projects' (those directly in it). `exceptId`: the milestone being renamed.
 */
export async function milestoneTitleTaken(em: EntityManager, owner: MilestoneOwner, title: string, exceptId?: number): Promise<boolean> {
  const related =
    'projectId' in owner
      ? sql`(m."project_id" = ${owner.projectId} or m."group_id" = (select n."id" from "projects" p join "namespaces" n
        on n."id" = p."namespace_id" where p."id" = ${owner.projectId} and n."kind" = 'group'))`
      : sql`(m."group_id" = ${owner.groupId} or m."project_id" in (select p."id" from "projects" p
        where p."namespace_id" = ${owner.groupId}))`;
  const [row] = await queryRows(
    em,
    sql`select exists (select 1 from "milestones" m where ${related}
      and m."title" = ${title}${exceptId !== undefined ? sql` and m."id" <> ${exceptId}` : empty}) as "taken"`,
  );
  return Boolean(row.taken);
}
