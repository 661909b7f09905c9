import type { FilterQuery } from '@mikro-orm/core';
import { can, type ProjectInScope } from '../../auth/abilities.js';
import { type Day, projectAccessColumnsSql, projectUserIdsSql } from '../../auth/access-levels.js';
import { Namespace, Project, User, type Visibility } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { keyOf, ormRaw, queryRows, rowAs } from '../../db/rows.js';
import { sql, type Sql } from '../../db/sql.js';
import type { ProjectGone } from '../../events/kinds.js';
import type { Context } from '../context.js';
import type { ProjectRelations } from '../present/projects.js';

/**
 * Projects' hand-written statements (a project with the caller's levels, what a page of projects embeds, stars and
 * shares), and the conditions the project lists take beside the visibility rules of src/auth/access-levels.ts.
 */

/** The caller's levels on a project (ProjectInScope's). */
export type ProjectAccess = Pick<ProjectInScope, 'accessLevel' | 'projectAccess' | 'groupAccess'>;

/**
 * A project by ID or by full path (`group/subgroup/project`, any case), with its namespace and the caller's
 * levels on it, in one statement; null when there is none.
 */
export async function findProjectInScope(ctx: Context, idOrPath: number | string): Promise<ProjectInScope | null> {
  let where: Sql;
  if (typeof idOrPath === 'number') {
    where = sql`p."id" = ${idOrPath}`;
  } else {
    const slash = idOrPath.lastIndexOf('/');
    if (slash <= 0) return null;
    // The two unique indexes' expressions: the namespace's full path, then the path in it.
    where = sql`lower(n."full_path") = lower(${idOrPath.slice(0, slash)}) and lower(p."path") = lower(${idOrPath.slice(slash + 1)})`;
  }
  const [row] = await queryRows(
    ctx.em,
    sql`select to_jsonb(p) as "project", to_jsonb(n) as "namespace", ${projectAccessColumnsSql(ctx.caller, ctx.today())}
     from "projects" p join "namespaces" n on n."id" = p."namespace_id" where ${where}`,
  );
  if (!row) return null;
  return {
    project: rowAs(ctx.em, Project, row.project),
    namespace: rowAs(ctx.em, Namespace, row.namespace),
    accessLevel: Number(row.access_level),
    projectAccess: row.project_access === null ? null : Number(row.project_access),
    groupAccess: row.group_access === null ? null : Number(row.group_access),
  };
}

/**
 * What the projects embed, in one statement for all of them. `known`: the caller's levels already read, by
 * project, with the project's namespace when the scope read it too (GET /projects/:id and the calls that answer
 * one project), which are not read again.
 */
export async function projectRelations(
  ctx: Context,
  projects: Project[],
  known: Map<number, ProjectAccess & { namespace?: Namespace }>,
  options: { statistics?: boolean } = {},
): Promise<ProjectRelations> {
  const relations: ProjectRelations = {
    namespaces: new Map(),
    owners: new Map(),
    forksCount: new Map(),
    starCount: new Map(),
    sharedWithGroups: new Map(),
    forkedFrom: new Map(),
    access: new Map(known),
    statistics: new Map(),
    runnersTokens: new Map(),
  };
  if (!projects.length) return relations;
  const em = (await ctx.view()).rows;
  for (const { namespace } of known.values()) if (namespace) relations.namespaces.set(namespace.id, namespace);
  const levels = projects.some((project) => !relations.access.has(project.id))
    ? projectAccessColumnsSql(ctx.caller, ctx.today())
    : sql`null::int as "access_level", null::int as "project_access", null::int as "group_access"`;
  // The namespaces not read with the caller's levels.
  const namespaces = projects.every((project) => relations.namespaces.has(keyOf(project.namespace))) ? sql`null` : sql`to_jsonb(n)`;
  const rows = (await queryRows(
    em,
    sql`select p."id", ${namespaces} as "namespace",
       (select to_jsonb(o) from (select u."id", u."name", u."created_at" from "users" u where u."id" = n."owner_id") o) as "owner",
       (select count(*)::int from "projects" f where f."forked_from_id" = p."id") as "forks",
       (select count(*)::int from "project_stars" s where s."project_id" = p."id") as "stars",
       (select jsonb_agg(jsonb_build_object('group_id', g."id", 'group_name', g."full_name", 'group_access_level', l."group_access")
         order by l."id")
         from "project_group_links" l join "namespaces" g on g."id" = l."group_id" where l."project_id" = p."id") as "shares",
       (select jsonb_build_object('project', to_jsonb(fp), 'namespace', to_jsonb(fn))
         from "projects" fp join "namespaces" fn on fn."id" = fp."namespace_id" where fp."id" = p."forked_from_id") as "forked_from",
       ${levels}
     from "projects" p join "namespaces" n on n."id" = p."namespace_id" where p."id" = any(${projects.map((project) => project.id)})`,
  )) as {
    id: number;
    namespace: unknown;
    owner: unknown;
    forks: number;
    stars: number;
    shares: { group_id: number; group_name: string; group_access_level: number }[] | null;
    forked_from: { project: unknown; namespace: unknown } | null;
    access_level: number | null;
    project_access: number | null;
    group_access: number | null;
  }[];
  for (const row of rows) {
    if (row.namespace) {
      const namespace = rowAs(em, Namespace, row.namespace);
      relations.namespaces.set(namespace.id, namespace);
    }
    if (row.owner) {
      const owner = rowAs(em, User, row.owner);
      relations.owners.set(owner.id, owner);
    }
    relations.forksCount.set(row.id, row.forks);
    relations.starCount.set(row.id, row.stars);
    if (row.shares) relations.sharedWithGroups.set(row.id, row.shares);
    if (row.forked_from)
      relations.forkedFrom.set(row.id, {
        ...rowAs(em, Project, row.forked_from.project),
        namespace: rowAs(em, Namespace, row.forked_from.namespace),
      });
    if (!relations.access.has(row.id)) {
      relations.access.set(row.id, {
        accessLevel: Number(row.access_level),
        projectAccess: row.project_access,
        groupAccess: row.group_access,
      });
    }
  }
  // As each project's scope would be, for its policy.
  const scopedOf = (project: Project): ProjectInScope => ({
    project,
    namespace: relations.namespaces.get(keyOf(project.namespace))!,
    ...(relations.access.get(project.id) ?? { accessLevel: 0, projectAccess: null, groupAccess: null }),
  });
  // Its runners token for those who administer it.
  for (const project of projects) {
    if (!project.runnersTokenSealed || !can(ctx.caller, 'admin_project', scopedOf(project))) continue;
    try {
      relations.runnersTokens.set(project.id, ctx.env.secrets.open(project.runnersTokenSealed));
    } catch {
      // Sealed under another secret key (the configured one changed): not shown, and said once per call.
      ctx.env.logger.error('forgekit: a runners token could not be opened: is the secret key the one it was sealed with?', {
        project: project.id,
      });
      break;
    }
  }
  if (options.statistics) {
    // Measured from each repository, for those who may read them.
    const readers = projects.filter((project) => can(ctx.caller, 'read_statistics', scopedOf(project)));
    const measured = await Promise.all(readers.map((project) => ctx.env.repositories.statistics(project.repositoryStorage, project.id)));
    readers.forEach((project, index) => {
      relations.statistics.set(project.id, measured[index]);
    });
  }
  return relations;
}

/** Projects (aliased `p` in `condition`: the visibility rules are written once, for that alias) as a condition on projects. */
export const projectsWhere = (condition: Sql): FilterQuery<Project> => ({
  id: { $in: ormRaw(sql`(select p."id" from "projects" p where ${condition})`) },
});

/** The projects the user has starred, as a condition on projects. */
export const starredBy = (userId: number): FilterQuery<Project> => ({
  id: { $in: ormRaw(sql`(select s."project_id" from "project_stars" s where s."user_id" = ${userId})`) },
});

/** The users with access to the project (by memberships that have not expired by `today`), as a condition on users. */
export const projectUsersWhere = (projectId: number, today: Day): FilterQuery<User> => ({
  id: { $in: ormRaw(sql`(${projectUserIdsSql(projectId, today)})`) },
});

/** The user's star on the project, made `now`; false when it had starred it already. */
export async function insertStar(em: EntityManager, projectId: number, userId: number, now: Date): Promise<boolean> {
  const [inserted] = await queryRows(
    em,
    sql`insert into "project_stars" ("project_id", "user_id", "created_at") values (${projectId}, ${userId}, ${now}) on conflict do nothing
      returning "id"`,
  );
  return inserted !== undefined;
}

/** The project shared with the group; the share's ID, undefined when it is shared with it already. */
export async function insertShare(
  em: EntityManager,
  projectId: number,
  groupId: number,
  groupAccess: number,
  expiresAt: string | null,
  now: Date,
): Promise<number | undefined> {
  const [link] = await queryRows(
    em,
    sql`insert into "project_group_links" ("project_id", "group_id", "group_access", "expires_at", "created_at")
     values (${projectId}, ${groupId}, ${groupAccess}, ${expiresAt}, ${now}) on conflict do nothing returning "id"`,
  );
  return link?.id as number | undefined;
}

/**
 * Projects as system hooks describe them (`project_create`, `project_destroy`, ...), read before they go: the owner
 * is the namespace's user, or the group (whose e-mail is empty, as the original sends it).
 */
export async function projectsAsEventsName(em: EntityManager, projectIds: number[]): Promise<Map<number, ProjectGone>> {
  if (!projectIds.length) return new Map();
  const rows = await queryRows(
    em,
    sql`select p."id", p."name", p."path", p."visibility", p."created_at", p."updated_at",
        n."full_path" || '/' || p."path" as "path_with_namespace", coalesce(u."name", n."name") as "owner_name",
        coalesce(u."email", '') as "owner_email"
      from "projects" p join "namespaces" n on n."id" = p."namespace_id" left join "users" u on u."id" = n."owner_id"
      where p."id" = any(${projectIds}::int[])`,
  );
  return new Map(
    rows.map((row) => [
      row.id as number,
      {
        path_with_namespace: row.path_with_namespace as string,
        name: row.name as string,
        path: row.path as string,
        visibility: row.visibility as string,
        owner_name: row.owner_name as string,
        owner_email: row.owner_email as string,
        created_at: new Date(row.created_at as string).toISOString(),
        updated_at: new Date(row.updated_at as string).toISOString(),
      },
    ]),
  );
}

/** A project as an event of it keeps it (`ProjectThen`): its changes flushed, then read. */
export async function projectThen(em: EntityManager, projectId: number): Promise<{ project: ProjectGone }> {
  await em.flush();
  return { project: (await projectsAsEventsName(em, [projectId])).get(projectId)! };
}

/** A project's visibility; undefined when there is no such project. */
export async function projectVisibility(em: EntityManager, projectId: number): Promise<Visibility | undefined> {
  const [row] = await queryRows(em, sql`select "visibility" from "projects" where "id" = ${projectId}`);
  return row?.visibility as Visibility | undefined;
}

/** Whether a name and a path are taken in the namespace, regardless of case (`except`: the project being renamed). */
export async function takenInNamespace(
  em: EntityManager,
  namespace: Namespace,
  name: string,
  path: string,
  except: number,
): Promise<{ name: boolean; path: boolean }> {
  const [taken] = await queryRows(
    em,
    sql`select bool_or(lower("name") = lower(${name})) as "name", bool_or(lower("path") = lower(${path})) as "path" from "projects"
      where "namespace_id" = ${namespace.id} and "id" <> ${except}`,
  );
  return { name: taken?.name === true, path: taken?.path === true };
}
