import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { direction, empty, fixedSql, identifier, join, sql, type Sql } from '../../db/sql.js';

/**
 * What issues and merge requests share in the database: their lists' filters and orders, written once for either
 * table, and their time tracking and `updated_at`. Both are aliased `i` (with their projects `p` and the projects' namespaces `n`), so one
 * condition serves both; what differs is the kind that notes, labels and award emoji name them by, and their assignees' table.
 */

/** The kinds of work item a list shows. */
export type WorkItemKind = 'Issue' | 'MergeRequest';

/** Each kind's assignees: `(table, column of the work item)`. */
const ASSIGNEES: Record<WorkItemKind, { table: Sql; key: Sql }> = {
  Issue: { table: fixedSql('"issue_assignees"'), key: fixedSql('"issue_id"') },
  MergeRequest: { table: fixedSql('"merge_request_assignees"'), key: fixedSql('"merge_request_id"') },
};

/** The kind as the statement's own text (one of two fixed names), as the indexes on `(target_kind, target_id)` are read best. */
const kindSql = (kind: WorkItemKind) => fixedSql(kind === 'Issue' ? "'Issue'" : "'MergeRequest'");

/** Whether a user (a bound value, or nothing for anyone) is an assignee of the work item `i` of this kind. */
export function assignedSql(kind: WorkItemKind, userId?: number): Sql {
  const { table, key } = ASSIGNEES[kind];
  const user = userId === undefined ? empty : sql` and ia."user_id" = ${userId}`;
  return sql`exists (select 1 from ${table} ia where ia.${key} = i."id"${user})`;
}

/** What a list of work items keeps, each a condition on `i`, `p` and `n`; deleted ones never. */
export interface WorkItemFilter {
  /** What the caller may read (src/auth/access-levels.ts). */
  visible: Sql;
  /** One project's (else every project's)... */
  projectId?: number;
  /** ...or those of the projects of a group and of its subgroups. */
  groupId?: number;
  state?: string;
  /** Names it must all carry; `none` for no label, `any` for at least one. */
  labels?: string[] | 'none' | 'any';
  milestone?: string | 'none' | 'any';
  /** One milestone's, by its ID (a milestone's own list). */
  milestoneId?: number;
  authorId?: number;
  assigneeId?: number | 'none' | 'any';
  /** Those the user awarded this emoji (`none`: none at all, `any`: some). */
  reaction?: { userId: number; name: string | 'none' | 'any' };
  iids?: number[];
  /** A LIKE pattern (services/search.ts) on the title and the description. */
  search?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  updatedBefore?: Date;
  /** Conditions of the kind's own (confidential issues, a merge request's branches). */
  more?: Sql[];
}

/** The filter as one condition on the work items `i` of the kind. */
export function workItemsWhere(kind: WorkItemKind, filter: WorkItemFilter): Sql {
  const hasLabel = (title: string | null) =>
    sql`exists (select 1 from "label_links" ll join "labels" l on l."id" = ll."label_id"
      where ll."target_kind" = ${kindSql(kind)} and ll."target_id" = i."id"${title !== null ? sql` and l."title" = ${title}` : empty})`;
  const conditions = [sql`i."deleted_at" is null`, filter.visible];
  if (filter.projectId !== undefined) conditions.push(sql`i."project_id" = ${filter.projectId}`);
  if (filter.groupId !== undefined) conditions.push(sql`n."traversal_ids" @> array[${filter.groupId}]::int[]`);
  if (filter.state) conditions.push(sql`i."state" = ${filter.state}`);
  if (filter.labels === 'none') conditions.push(sql`not ${hasLabel(null)}`);
  else if (filter.labels === 'any') conditions.push(hasLabel(null));
  else for (const title of filter.labels ?? []) conditions.push(hasLabel(title));
  if (filter.milestone === 'none') conditions.push(sql`i."milestone_id" is null`);
  else if (filter.milestone === 'any') conditions.push(sql`i."milestone_id" is not null`);
  else if (filter.milestone !== undefined)
    conditions.push(sql`i."milestone_id" in (select m."id" from "milestones" m where m."title" = ${filter.milestone})`);
  if (filter.milestoneId !== undefined) conditions.push(sql`i."milestone_id" = ${filter.milestoneId}`);
  if (filter.authorId !== undefined) conditions.push(sql`i."author_id" = ${filter.authorId}`);
  if (filter.assigneeId === 'none') conditions.push(sql`not ${assignedSql(kind)}`);
  else if (filter.assigneeId === 'any') conditions.push(assignedSql(kind));
  else if (filter.assigneeId !== undefined) conditions.push(assignedSql(kind, filter.assigneeId));
  if (filter.reaction) {
    const { userId, name } = filter.reaction;
    const awarded = (named: Sql) =>
      sql`exists (select 1 from "award_emoji" ae where ae."target_kind" = ${kindSql(kind)} and ae."target_id" = i."id"
        and ae."user_id" = ${userId}${named})`;
    if (name === 'none') conditions.push(sql`not ${awarded(empty)}`);
    else if (name === 'any') conditions.push(awarded(empty));
    else conditions.push(awarded(sql` and ae."name" = ${name}`));
  }
  if (filter.iids) conditions.push(sql`i."iid" = any(${filter.iids})`);
  // The joined text finds the candidates through its index; each is then held to the title or the description alone.
  if (filter.search) {
    conditions.push(
      sql`(i."title" || ' ' || coalesce(i."description", '')) ilike ${filter.search} and (i."title" ilike ${filter.search}
        or i."description" ilike ${filter.search})`,
    );
  }
  if (filter.createdAfter) conditions.push(sql`i."created_at" >= ${filter.createdAfter}`);
  if (filter.createdBefore) conditions.push(sql`i."created_at" <= ${filter.createdBefore}`);
  if (filter.updatedAfter) conditions.push(sql`i."updated_at" >= ${filter.updatedAfter}`);
  if (filter.updatedBefore) conditions.push(sql`i."updated_at" <= ${filter.updatedBefore}`);
  conditions.push(...(filter.more ?? []));
  return join(conditions, ' and ');
}

/** The orders a list of work items takes (`due_date` and `relative_position`: issues only). */
export type WorkItemOrder = 'created_at' | 'updated_at' | 'priority' | 'due_date' | 'relative_position';

/** The order of a page: by the column asked (those without a due date, position or prioritized label last), then newest first. */
export function workItemsOrderSql(kind: WorkItemKind, orderBy: WorkItemOrder, sort: 'asc' | 'desc'): Sql {
  const dir = direction(sort);
  switch (orderBy) {
    case 'updated_at':
      return sql`i."updated_at" ${dir}, i."id" ${dir}`;
    case 'due_date':
      return sql`i."due_date" ${dir} nulls last, i."id" desc`;
    case 'relative_position':
      return sql`i."relative_position" ${dir} nulls last, i."id" desc`;
    case 'priority':
      return sql`(select min(l."priority") from "label_links" ll join "labels" l on l."id" = ll."label_id"
        where ll."target_kind" = ${kindSql(kind)} and ll."target_id" = i."id") ${dir} nulls last, i."id" desc`;
    default:
      return sql`i."created_at" ${dir}, i."id" ${dir}`;
  }
}

/** The table of a kind of work item: one of two fixed names. */
const tableOf = (kind: WorkItemKind) => (kind === 'Issue' ? sql`"issues"` : sql`"merge_requests"`);

/** The time estimated for the work item and spent on it, in seconds. */
export async function timeOf(em: EntityManager, target: { kind: WorkItemKind; id: number }): Promise<{ estimate: number; spent: number }> {
  const [row] = await queryRows(em, sql`select "time_estimate", "total_time_spent" from ${tableOf(target.kind)} where "id" = ${target.id}`);
  return { estimate: Number(row.time_estimate), spent: Number(row.total_time_spent) };
}

/** The work item's time columns changed (those given), and its `updated_at`. */
export async function setTime(
  em: EntityManager,
  target: { kind: WorkItemKind; id: number },
  time: { estimate?: number; spent?: number },
  now: Date,
): Promise<void> {
  await queryRows(
    em,
    sql`update ${tableOf(target.kind)} set "time_estimate" = coalesce(${time.estimate ?? null}::int, "time_estimate"),
      "total_time_spent" = coalesce(${time.spent ?? null}::int, "total_time_spent"), "updated_at" = ${now} where "id" = ${target.id}`,
  );
}

/** The work item touched (`updated_at`): a comment on it counts as a change. */
export async function touch(em: EntityManager, target: { kind: WorkItemKind; id: number }, now: Date): Promise<void> {
  await queryRows(em, sql`update ${tableOf(target.kind)} set "updated_at" = ${now} where "id" = ${target.id}`);
}

/** Where each kind of work item keeps its rows and its assignees. */
const WORK_ITEM_TABLES = {
  Issue: { table: fixedSql('"issues"'), assignees: fixedSql('"issue_assignees"'), key: fixedSql('"issue_id"') },
  MergeRequest: {
    table: fixedSql('"merge_requests"'),
    assignees: fixedSql('"merge_request_assignees"'),
    key: fixedSql('"merge_request_id"'),
  },
};

/** A work item's columns changed: those given (`columns`, each one of `writable`, which names them). */
export async function updateWorkItem<Columns extends object>(
  em: EntityManager,
  kind: 'Issue' | 'MergeRequest',
  id: number,
  columns: Columns,
  writable: readonly (keyof Columns & string)[],
): Promise<void> {
  const given = writable.filter((name) => columns[name] !== undefined);
  if (!given.length) return;
  const set = given.map((name) => sql`${identifier(name, writable)} = ${(columns[name] ?? null) as never}`);
  await queryRows(em, sql`update ${WORK_ITEM_TABLES[kind].table} set ${join(set, ', ')} where "id" = ${id}`);
}

/** The work item's assignees made these users, in this order. */
export async function setWorkItemAssignees(
  em: EntityManager,
  kind: 'Issue' | 'MergeRequest',
  id: number,
  userIds: number[],
): Promise<void> {
  const { assignees, key } = WORK_ITEM_TABLES[kind];
  await queryRows(em, sql`delete from ${assignees} where ${key} = ${id}`);
  if (userIds.length) {
    await queryRows(
      em,
      sql`insert into ${assignees} (${key}, "user_id") select ${id}, u
        from unnest(${userIds}::int[]) with ordinality as t(u, o) order by o`,
    );
  }
}
