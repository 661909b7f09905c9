/**
 * The bare handler's GET /projects and GET /projects/:id (bench/lib/bare.ts routes them): the statements a page of
 * projects needs at least (the page and its count, filtered by what the caller may see, then one statement for
 * what the page embeds: namespaces, their users, the counts of forks and stars, the shares, forks' sources, the
 * caller's levels), written as forgekit writes them so that bench/requests.ts can check they are the same,
 * and the rows made into the same JSON by hand. For a signed-in caller who is not an administrator (the
 * benchmark's): an administrator's list has no filter, which forgekit's query builder writes its own way.
 */
import type { SecretBox } from '../../src/auth/secret-box.ts';
import { empty, fixedSql, sql, type Sql } from '../../src/db/sql.ts';
import type { Row, SqlClient } from './sql.ts';

/** An owner's access level. */
const OWNER = 50;

/** Today (UTC) as memberships store their expiry: a membership ends as its day begins. */
const today = () => new Date().toISOString().slice(0, 10);
// Aliases are the statement's own text; IDs, levels and today's date are bound values, as forgekit binds them.
const current = (alias: string) => sql`(${fixedSql(alias)}."expires_at" is null or ${fixedSql(alias)}."expires_at" > ${today()})`;

/** The caller's groups (not inherited), as an array of IDs. */
const memberGroups = (user: number) =>
  sql`(select coalesce(array_agg(gm."group_id"), '{}') from "group_members" gm where gm."user_id" = ${user} and ${current('gm')})`;
const projectMemberLevel = (user: number) =>
  sql`(select max(pm."access_level") from "project_members" pm
    where pm."project_id" = p."id" and pm."user_id" = ${user} and ${current('pm')})`;
const inheritedGroupLevel = (user: number) =>
  sql`(select max(gm."access_level") from "group_members" gm
    where gm."user_id" = ${user} and gm."group_id" = any(n."traversal_ids") and ${current('gm')})`;

/** Its membership of a group that a group above the project `p`'s namespace `n` is shared with, capped at the share. */
const sharedGroupLevel = (user: number) =>
  sql`(select max(least(gm."access_level", gl."group_access")) from "group_group_links" gl
    join "namespaces" w on w."id" = gl."shared_with_group_id"
    join "group_members" gm on gm."group_id" = any(w."traversal_ids") and gm."user_id" = ${user} and ${current('gm')}
    where gl."shared_group_id" = any(n."traversal_ids") and ${current('gl')})`;

/** The groups shared with the caller's groups (or with groups below them). */
const sharedGroups = (user: number) =>
  sql`(select coalesce(array_agg(gl."shared_group_id"), '{}') from "group_group_links" gl join "namespaces" w
    on w."id" = gl."shared_with_group_id"
    where w."traversal_ids" && ${memberGroups(user)} and ${current('gl')})`;

/** The caller's levels on the project `p` in the namespace `n`: its highest, its own membership's, its groups'. */
function accessColumns(user: number): Sql {
  const level = sql`greatest(
    coalesce(${projectMemberLevel(user)}, 0),
    coalesce(${inheritedGroupLevel(user)}, 0),
    coalesce(${sharedGroupLevel(user)}, 0),
    coalesce((select max(least(gm."access_level", l."group_access")) from "project_group_links" l
      join "namespaces" g on g."id" = l."group_id"
      join "group_members" gm on gm."group_id" = any(g."traversal_ids") and gm."user_id" = ${user} and ${current('gm')}
      where l."project_id" = p."id" and ${current('l')}), 0),
    case when n."owner_id" = ${user} then ${OWNER}::int else 0 end)`;
  return sql`${level} as "access_level", ${projectMemberLevel(user)} as "project_access",
    ${inheritedGroupLevel(user)} as "group_access"`;
}

/** The projects `p` the caller sees: public and internal ones (public only for an external user), and its own by any membership. */
function visible(user: number, external: boolean): Sql {
  const groups = memberGroups(user);
  const open = external ? sql`p."visibility" = 'public'` : sql`p."visibility" in ('public', 'internal')`;
  return sql`(${open} or (p."id" in (select pm."project_id" from "project_members" pm where pm."user_id" = ${user} and ${current('pm')})
    or p."namespace_id" in (select n."id" from "namespaces" n
      where n."owner_id" = ${user} or n."traversal_ids" && ${groups} or n."traversal_ids" && ${sharedGroups(user)})
    or p."id" in (select l."project_id" from "project_group_links" l join "namespaces" g on g."id" = l."group_id"
      where g."traversal_ids" && ${groups} and ${current('l')})))`;
}

export const projectSql = {
  count: (user: number, external: boolean) =>
    sql`select count(*) as "count" from "projects" as "p0" where "p0"."id" in ((select p."id" from "projects" p
      where ${visible(user, external)}))`,
  /** Newest first (`order_by=created_at`, `sort=desc`: the defaults). */
  page: (user: number, external: boolean, limit: number, offset: number) =>
    sql`select "p0".* from "projects" as "p0" where "p0"."id" in ((select p."id" from "projects" p where ${visible(user, external)}))
      order by "p0"."created_at" desc, "p0"."id" desc limit ${limit}${offset ? sql` offset ${offset}` : empty}`,
  /** A project with its namespace and the caller's levels. */
  one: (user: number, id: number) =>
    sql`select to_jsonb(p) as "project", to_jsonb(n) as "namespace", ${accessColumns(user)}
       from "projects" p join "namespaces" n on n."id" = p."namespace_id" where p."id" = ${id}`,
  /**
   * What the projects embed: namespaces (when not read already), their users, the counts, the shares, the forks' sources, the caller's
   * levels (when not read already).
   */
  relations: (user: number, ids: number[], namespaces: boolean, access: boolean) =>
    sql`select p."id", ${namespaces ? sql`to_jsonb(n)` : sql`null`} as "namespace",
       (select to_jsonb(o) from (select u."id", u."name", u."created_at" from "users" u where u."id" = n."owner_id") o) as "owner",
       (select count(*)::int from "projects" f where f."forked_from_id" = p."id") as "forks",
       (select count(*)::int from "project_stars" s where s."project_id" = p."id") as "stars",
       (select jsonb_agg(jsonb_build_object('group_id', g."id", 'group_name', g."full_name", 'group_access_level', l."group_access")
         order by l."id")
         from "project_group_links" l join "namespaces" g on g."id" = l."group_id" where l."project_id" = p."id") as "shares",
       (select jsonb_build_object('project', to_jsonb(fp), 'namespace', to_jsonb(fn))
         from "projects" fp join "namespaces" fn on fn."id" = fp."namespace_id" where fp."id" = p."forked_from_id") as "forked_from",
       ${access ? accessColumns(user) : sql`null::int as "access_level", null::int as "project_access", null::int as "group_access"`}
     from "projects" p join "namespaces" n on n."id" = p."namespace_id" where p."id" = any(${ids})`,
};

/** What a page embeds, by project (namespaces by their own IDs). */
interface Relations {
  namespaces: Map<number, Row>;
  related: Map<number, Row>;
  access: Map<number, Row>;
}

/**
 * Loads what the projects (rows of `projects`) embed, in one statement, the caller's levels aside when `access` has
 * them; `namespaces` holds those read already.
 */
async function relationsOf(
  db: SqlClient,
  user: number,
  projects: Row[],
  namespaces: Map<number, Row>,
  access: Map<number, Row>,
): Promise<Relations> {
  const ids = projects.map((project) => project.id);
  const rows = await db.query(
    projectSql.relations(
      user,
      ids,
      projects.some((project) => !namespaces.has(project.namespace_id)),
      ids.some((id) => !access.has(id)),
    ),
  );
  for (const row of rows) {
    if (row.namespace) namespaces.set(row.namespace.id, row.namespace);
    if (row.forked_from) namespaces.set(row.forked_from.namespace.id, row.forked_from.namespace);
    if (!access.has(row.id)) access.set(row.id, row);
  }
  return { namespaces, related: new Map(rows.map((row) => [row.id, row])), access };
}

const memberAccess = (level: number | null) => (level ? { access_level: level, notification_level: 3 } : null);

/** A timestamp as PostgreSQL's text (`2026-11-23 05:11:11+00`) or as `to_jsonb` writes it, in JSON's form. */
const iso = (text: string) => new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();

function present(project: Row, relations: Relations, baseUrl: string, host: string, secrets: SecretBox) {
  const namespace = relations.namespaces.get(project.namespace_id)!;
  const fullPath = `${namespace.full_path}/${project.path}`;
  const webUrl = `${baseUrl}/${fullPath}`;
  const self = `${baseUrl}/api/v4/projects/${project.id}`;
  const related = relations.related.get(project.id)!;
  const owner = related.owner;
  const access = relations.access.get(project.id);
  const source = related.forked_from?.project;
  const shape: Row = {
    id: project.id,
    description: project.description,
    default_branch: project.default_branch,
    visibility: project.visibility,
    ssh_url_to_repo: `git@${host}:${fullPath}.git`,
    http_url_to_repo: `${webUrl}.git`,
    web_url: webUrl,
    tag_list: project.tag_list,
    topics: project.tag_list,
    owner: owner ? { id: owner.id, name: owner.name, created_at: iso(owner.created_at) } : null,
    name: project.name,
    name_with_namespace: `${namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: fullPath,
    issues_enabled: project.issues_enabled,
    open_issues_count: 0,
    merge_requests_enabled: project.merge_requests_enabled,
    jobs_enabled: project.jobs_enabled,
    wiki_enabled: project.wiki_enabled,
    snippets_enabled: project.snippets_enabled,
    resolve_outdated_diff_discussions: project.resolve_outdated_diff_discussions,
    container_registry_enabled: project.container_registry_enabled,
    created_at: iso(project.created_at),
    last_activity_at: iso(project.last_activity_at),
    creator_id: project.creator_id,
    namespace: {
      id: namespace.id,
      name: namespace.name,
      path: namespace.path,
      kind: namespace.kind,
      full_path: namespace.full_path,
      parent_id: namespace.parent_id ?? null,
    },
    import_status: project.import_status,
    import_error: project.import_error,
    permissions: { project_access: memberAccess(access?.project_access), group_access: memberAccess(access?.group_access) },
    archived: project.archived,
    avatar_url: project.avatar_filename
      ? `${baseUrl}/uploads/-/system/project/avatar/${project.id}/${encodeURIComponent(project.avatar_filename)}`
      : null,
    shared_runners_enabled: project.shared_runners_enabled,
    forks_count: related.forks,
    star_count: related.stars,
    public_jobs: project.public_jobs,
    public_builds: project.public_jobs,
    shared_with_groups: related.shares ?? [],
    only_allow_merge_if_pipeline_succeeds: project.only_allow_merge_if_pipeline_succeeds,
    only_allow_merge_if_all_discussions_are_resolved: project.only_allow_merge_if_all_discussions_are_resolved,
    printing_merge_requests_link_enabled: project.printing_merge_request_link_enabled,
    printing_merge_request_link_enabled: project.printing_merge_request_link_enabled,
    request_access_enabled: project.request_access_enabled,
    lfs_enabled: project.lfs_enabled,
    ci_config_path: project.ci_config_path,
    _links: {
      self,
      issues: `${self}/issues`,
      merge_requests: `${self}/merge_requests`,
      repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`,
      events: `${self}/events`,
      members: `${self}/members`,
    },
  };
  // The reader is no administrator: its maintainers' projects show their runners token.
  if ((access?.access_level ?? 0) >= 40 && project.runners_token_sealed) shape.runners_token = secrets.open(project.runners_token_sealed);
  if (source) {
    const sourceNamespace = relations.namespaces.get(source.namespace_id)!;
    const sourcePath = `${sourceNamespace.full_path}/${source.path}`;
    shape.forked_from_project = {
      id: source.id,
      name: source.name,
      name_with_namespace: `${sourceNamespace.full_name} / ${source.name}`,
      path: source.path,
      path_with_namespace: sourcePath,
      web_url: `${baseUrl}/${sourcePath}`,
    };
  }
  return shape;
}

/** The signed-in caller (user `user`, external or not) as bench/lib/bare.ts has it. */
export interface ProjectsCaller {
  user: number;
  external: boolean;
  /** What opens the runners tokens, with the key forgekit's instance has. */
  secrets: SecretBox;
}

/** GET /projects: a page of the projects the caller sees, newest first, and how many it sees in all. */
export async function listProjects(
  db: SqlClient,
  caller: ProjectsCaller,
  perPage: number,
  page: number,
  baseUrl: string,
): Promise<{ items: Row[]; total: number }> {
  const [[{ count }], rows] = await Promise.all([
    db.query(projectSql.count(caller.user, caller.external)),
    db.query(projectSql.page(caller.user, caller.external, perPage, (page - 1) * perPage)),
  ]);
  if (!rows.length) return { items: [], total: Number(count) };
  const relations = await relationsOf(db, caller.user, rows, new Map(), new Map());
  const host = new URL(baseUrl).hostname;
  return { items: rows.map((row) => present(row, relations, baseUrl, host, caller.secrets)), total: Number(count) };
}

/** GET /projects/:id: the project, null when there is none or the caller may not see it. */
export async function getProject(db: SqlClient, caller: ProjectsCaller, id: number, baseUrl: string): Promise<Row | null> {
  const [row] = await db.query(projectSql.one(caller.user, id));
  if (!row) return null;
  const { project, namespace } = row;
  const readable = project.visibility === 'public' || (project.visibility === 'internal' && !caller.external) || row.access_level >= 10;
  if (!readable) return null;
  const relations = await relationsOf(db, caller.user, [project], new Map([[namespace.id, namespace]]), new Map([[project.id, row]]));
  return present(project, relations, baseUrl, new URL(baseUrl).hostname, caller.secrets);
}
