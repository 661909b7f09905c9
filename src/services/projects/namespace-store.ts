import type { FilterQuery } from '@mikro-orm/core';
import type { GroupInScope, NamespaceInScope } from '../../auth/abilities.js';
import type { Caller } from '../../auth/caller.js';
import {
  administeredGroupsSql,
  type Day,
  groupAccessColumnsSql,
  memberGroupIdsSql,
  membersWithDescendantsSql,
  namespaceAccessColumnsSql,
  sharedProjectIdsSql,
} from '../../auth/access-levels.js';
import { Namespace, Project, type Visibility } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { ormRaw, queryRows, readRows, rowAs } from '../../db/rows.js';
import { identifier, sql, type Sql } from '../../db/sql.js';
import type { Context } from '../context.js';

/** Namespaces' hand-written statements (users' own and groups, one table), beside the conditions lists take. */

/** `id = …`, or the full path in any case (the expression of the full-path index), on the namespaces aliased `n` or `g`. */
function byIdOrPath(idOrPath: number | string, alias: 'n' | 'g'): Sql {
  const n = identifier(alias, ['n', 'g']);
  return typeof idOrPath === 'number' ? sql`${n}."id" = ${idOrPath}` : sql`lower(${n}."full_path") = lower(${idOrPath})`;
}

/** A group by ID or full path (any case), with the caller's level on it and whether it may see it, in one statement. */
export async function findGroupInScope(ctx: Context, idOrPath: number | string): Promise<GroupInScope | null> {
  const [row] = await queryRows(
    ctx.em,
    sql`select to_jsonb(g) as "group", ${groupAccessColumnsSql(ctx.caller, ctx.today(), 'g')} from "namespaces" g
      where g."kind" = 'group' and ${byIdOrPath(idOrPath, 'g')}`,
  );
  if (!row) return null;
  return { group: rowAs(ctx.em, Namespace, row.group), accessLevel: Number(row.access_level), visible: row.visible === true };
}

/** A namespace by ID or full path (any case), with what the caller is to it; null when there is none. */
export async function findNamespaceInScope(ctx: Context, idOrPath: number | string): Promise<NamespaceInScope | null> {
  const [row] = await queryRows(
    ctx.em,
    sql`select to_jsonb(n) as "namespace", ${namespaceAccessColumnsSql(ctx.caller, ctx.today())} from "namespaces" n
      where ${byIdOrPath(idOrPath, 'n')}`,
  );
  if (!row) return null;
  return {
    namespace: rowAs(ctx.em, Namespace, row.namespace),
    own: row.own === true,
    member: row.member === true,
    accessLevel: Number(row.access_level),
  };
}

/**
 * Whether `path` (or, with `column: 'name'`, a name) is taken among the children of `parent` (null: the top
 * level, where users' namespaces and top-level groups meet), paths regardless of case; `except` is the namespace
 * being renamed.
 */
export async function siblingTaken(
  em: EntityManager,
  parent: Namespace | null,
  column: 'path' | 'name',
  value: string,
  except?: { id: number },
): Promise<boolean> {
  // Paths: the expression of the namespaces_sibling_path_index, so that the index answers.
  const taken = column === 'path' ? sql`lower("path") = lower(${value})` : sql`"name" = ${value}`;
  const [row] = await queryRows(
    em,
    sql`select exists (select 1 from "namespaces" where coalesce("parent_id", 0) = ${parent?.id ?? 0} and ${taken}
      and "id" <> ${except?.id ?? 0}) as "taken"`,
  );
  return row.taken === true;
}

/** Whether the group holds projects, or has subgroups, more open than any of `visibilities` allows (those given are the more open ones). */
export async function moreOpenContents(
  em: EntityManager,
  group: Namespace,
  visibilities: readonly Visibility[],
): Promise<{ projects: boolean; subgroups: boolean }> {
  const [found] = await queryRows(
    em,
    sql`select exists (select 1 from "projects" where "namespace_id" = ${group.id}
      and "visibility" = any(${visibilities}::text[])) as "projects",
      exists (select 1 from "namespaces" where "parent_id" = ${group.id} and "visibility" = any(${visibilities}::text[])) as "subgroups"`,
  );
  return { projects: found.projects === true, subgroups: found.subgroups === true };
}

/** A renamed or moved group's subgroups: their full paths and names start with its new ones. */
export async function renameDescendants(em: EntityManager, group: Namespace, oldPath: string, oldName: string): Promise<void> {
  await queryRows(
    em,
    sql`update "namespaces" set "full_path" = ${group.fullPath}::text || substr("full_path", ${oldPath.length + 1}),
       "full_name" = ${group.fullName}::text || substr("full_name", ${oldName.length + 1})
     where "traversal_ids" @> array[${group.id}]::int[] and "id" <> ${group.id}`,
  );
}

/** Every project in the group and its subgroups: what a deletion removes from the storage. */
export async function projectsBelow(
  em: EntityManager,
  group: Namespace,
): Promise<{ id: number; repository_storage: string; full_path: string }[]> {
  return (await queryRows(
    em,
    sql`select p."id", p."repository_storage", n."full_path" || '/' || p."path" as "full_path" from "projects" p
      join "namespaces" n on n."id" = p."namespace_id" where n."traversal_ids" @> array[${group.id}]::int[] order by p."id"`,
  )) as { id: number; repository_storage: string; full_path: string }[];
}

/** The projects directly in the groups, with where their repositories are (for the groups' statistics). */
export function projectsOfGroups(em: EntityManager, groupIds: number[]): Promise<Project[]> {
  return readRows(
    em,
    Project,
    sql`select "id", "namespace_id", "repository_storage" from "projects" where "namespace_id" = any(${groupIds})`,
  );
}

/** The members' count (the subgroups' included) of each of the groups that the caller may administer. */
export async function administeredMemberCounts(ctx: Context, groupIds: number[]): Promise<Map<number, number>> {
  const today = ctx.today();
  const rows = await queryRows(
    ctx.em,
    sql`select g."id", ${membersWithDescendantsSql(today, 'g')} as "members" from "namespaces" g
      where g."id" = any(${groupIds}) and ${administeredGroupsSql(ctx.caller, today, 'g')}`,
  );
  return new Map(rows.map((row) => [row.id as number, row.members as number]));
}

/** The signed-in caller's own namespace and the groups it is itself a member of, as a condition on namespaces. */
export const ownOrMemberNamespaces = (caller: Caller, today: Day): FilterQuery<Namespace> => ({
  $or: [{ owner: caller.user?.id ?? 0 }, { id: { $in: ormRaw(sql`(${memberGroupIdsSql(caller, today)})`) } }],
});

/** Groups (aliased `g` in `condition`) as a condition on namespaces. */
export const groupsWhere = (condition: Sql): FilterQuery<Namespace> => ({
  id: { $in: ormRaw(sql`(select g."id" from "namespaces" g where ${condition})`) },
});

/** The groups below the group (its subgroups, theirs, ...), not the group itself, as a condition on namespaces. */
export const descendantsOf = (groupId: number): FilterQuery<Namespace> =>
  groupsWhere(sql`g."traversal_ids" @> array[${groupId}]::int[] and g."id" <> ${groupId}`);

/**
 * Which of the paths (lowercased) namespaces have among the children of `parentId` (0: the top level, where users'
 * namespaces and top-level groups meet), by the siblings' unique index on (coalesce(parent_id, 0), lower(path)).
 */
export async function takenPaths(em: EntityManager, parentId: number, paths: string[]): Promise<Set<string>> {
  const lowered = paths.map((path) => path.toLowerCase());
  const rows = await queryRows(
    em,
    sql`select lower(n."path") as "path" from "namespaces" n
      where coalesce(n."parent_id", 0) = ${parentId} and lower(n."path") = any(${lowered}::text[])`,
  );
  return new Set(rows.map((row) => String(row.path)));
}

/** The group and its subgroups, as a condition on projects' namespace. */
export const inGroupOrBelow = (groupId: number): FilterQuery<Project> => ({
  namespace: { $in: ormRaw(sql`(select d."id" from "namespaces" d where d."traversal_ids" @> array[${groupId}]::int[])`) },
});

/** The projects shared with the group (shares that have not expired by `today`), as a condition on projects. */
export const sharedWith = (groupId: number, today: Day): FilterQuery<Project> => ({
  id: { $in: ormRaw(sql`(${sharedProjectIdsSql(groupId, today)})`) },
});
