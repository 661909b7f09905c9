import { clockOf } from '../../clock.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql, type Sql } from '../../db/sql.js';

/** The paths projects had before they or a namespace above them were renamed or moved (`redirect_routes`). */

/** Keeps the old path of the project, renamed or moved from `oldPath`. */
export function keepOldProjectPath(em: EntityManager, projectId: number, oldPath: string): Promise<void> {
  return keepOldPaths(em, oldPath, sql`p.id = ${projectId}`, sql`''`);
}

/** The old path of every project in the namespace or below it: the namespace's old path, then the rest of theirs. */
export function keepOldPathsUnder(em: EntityManager, namespaceId: number, oldPath: string): Promise<void> {
  return keepOldPaths(
    em,
    oldPath,
    sql`(n.id = ${namespaceId} or ${namespaceId} = any(n.traversal_ids))`,
    sql`substr(n.full_path, length((select full_path from namespaces where id = ${namespaceId})) + 1) || '/' || p.path`,
  );
}

/** The namespace of a user, by its ID. */
export async function userNamespaceId(em: EntityManager, userId: number): Promise<number | null> {
  const [namespace] = await queryRows(em, sql`select id from namespaces where owner_id = ${userId}`);
  return (namespace?.id as number | undefined) ?? null;
}

/**
 * Keeps `oldPath || rest` for each project `which` picks (`p`, in its namespace `n`); a path kept before for another
 * project is taken over.
 */
async function keepOldPaths(em: EntityManager, oldPath: string, which: Sql, rest: Sql): Promise<void> {
  await queryRows(
    em,
    sql`insert into redirect_routes (path, project_id, created_at)
      select ${oldPath} || ${rest}, p.id, ${clockOf(em).now()} from projects p join namespaces n on n.id = p.namespace_id where ${which}
      on conflict (lower(path)) do update set project_id = excluded.project_id, created_at = excluded.created_at`,
  );
}

/** Where the project that was at `path` is now (its full path), if it was renamed or moved from there. */
export async function redirectedPath(em: EntityManager, path: string): Promise<string | null> {
  const [found] = await queryRows(
    em,
    sql`select n.full_path || '/' || p.path as full_path from redirect_routes r
      join projects p on p.id = r.project_id join namespaces n on n.id = p.namespace_id where lower(r.path) = lower(${path})`,
  );
  return (found?.full_path as string | undefined) ?? null;
}
