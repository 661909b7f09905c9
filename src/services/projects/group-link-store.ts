import type { FilterQuery } from '@mikro-orm/core';
import type { Caller } from '../../auth/caller.js';
import { current, type Day, projectShareGroupIdsSql, visibleGroupsSql } from '../../auth/access-levels.js';
import type { Namespace } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { empty, sql } from '../../db/sql.js';
import type { GroupShare } from '../../schemas/groups.js';
import { groupsWhere } from './namespace-store.js';

/** Groups shared with groups (group_group_links): their hand-written statements, beside the conditions lists take. */

/** The groups the group is shared with that the caller may see (shares that have not expired), oldest share first: one statement. */
export async function sharesOfGroup(em: EntityManager, groupId: number, caller: Caller, today: Day): Promise<GroupShare[]> {
  const rows = await queryRows(
    em,
    sql`select g."id", g."name", g."full_path", gl."group_access", gl."expires_at" from "group_group_links" gl join "namespaces" g
      on g."id" = gl."shared_with_group_id"
      where gl."shared_group_id" = ${groupId} and ${current('gl', today)} and ${visibleGroupsSql(caller, today, 'g')} order by gl."id"`,
  );
  return rows.map((row) => ({
    group_id: Number(row.id),
    group_name: String(row.name),
    group_full_path: String(row.full_path),
    group_access_level: Number(row.group_access),
    expires_at: (row.expires_at as string | null) ?? null,
  }));
}

/** A new share of `sharedGroupId` with `withGroupId`; undefined when the pair is shared already (the unique pair decides, race-free). */
export async function insertGroupShare(
  em: EntityManager,
  sharedGroupId: number,
  withGroupId: number,
  groupAccess: number,
  expiresAt: string | null,
  now: Date,
): Promise<number | undefined> {
  const [made] = await queryRows(
    em,
    sql`insert into "group_group_links" ("shared_group_id", "shared_with_group_id", "group_access", "expires_at", "created_at")
      values (${sharedGroupId}, ${withGroupId}, ${groupAccess}, ${expiresAt}, ${now}) on conflict do nothing returning "id"`,
  );
  return made?.id as number | undefined;
}

/**
 * A project's groups as a condition on namespaces: its group and the groups above it; with `shared`, the groups it
 * is shared with (giving at least `minimum` when given; only those the caller may see with `visibleOnly`).
 */
export function projectGroupsWhere(
  projectId: number,
  caller: Caller,
  today: Day,
  shared?: { minimum?: number; visibleOnly?: boolean },
): FilterQuery<Namespace> {
  const ancestors = sql`g."id" = any(select unnest(n."traversal_ids") from "projects" p join "namespaces" n on n."id" = p."namespace_id"
    where p."id" = ${projectId} and n."kind" = 'group')`;
  if (!shared) return groupsWhere(ancestors);
  const visible = shared.visibleOnly ? sql` and ${visibleGroupsSql(caller, today, 'g')}` : empty;
  return groupsWhere(sql`(${ancestors} or (g."id" in (${projectShareGroupIdsSql(projectId, today, shared.minimum)})${visible}))`);
}
