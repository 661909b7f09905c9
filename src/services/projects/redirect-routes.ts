import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql, type Sql } from '../../db/sql.js';
import { rule } from '../rules.js';

/**
 * The paths projects had, kept when a project, its group or its user's namespace is renamed or moved (in the write's
 * transaction), so that git clients that still name one are redirected (src/http/git.ts).
 */
export const redirectRules = [
  rule(['project.renamed', 'project.transferred'], (ctx, event) =>
    keepOldPaths(ctx.em, event.data.old_path, sql`p.id = ${event.project_id!}`, sql`''`),
  ),
  rule(['group.renamed'], (ctx, event) => keepOldPathsUnder(ctx.em, event.group_id!, event.data.old_path)),
  rule(['user.renamed'], async (ctx, event) => {
    const [namespace] = await queryRows(ctx.em, sql`select id from namespaces where owner_id = ${event.target_id!}`);
    if (namespace) await keepOldPathsUnder(ctx.em, namespace.id as number, event.data.old_path);
  }),
];

/** The old path of every project in the namespace or below it: the namespace's old path, then the rest of theirs. */
function keepOldPathsUnder(em: EntityManager, namespaceId: number, oldPath: string): Promise<void> {
  return keepOldPaths(
    em,
    oldPath,
    sql`(n.id = ${namespaceId} or ${namespaceId} = any(n.traversal_ids))`,
    sql`substr(n.full_path, length((select full_path from namespaces where id = ${namespaceId})) + 1) || '/' || p.path`,
  );
}

/** Keeps `oldPath || rest` for each project `which` picks (`p`, in its namespace `n`); a path kept before for another project is taken over. */
async function keepOldPaths(em: EntityManager, oldPath: string, which: Sql, rest: Sql): Promise<void> {
  await queryRows(
    em,
    sql`insert into redirect_routes (path, project_id, created_at)
      select ${oldPath} || ${rest}, p.id, ${new Date()} from projects p join namespaces n on n.id = p.namespace_id where ${which}
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
