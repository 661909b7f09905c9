import type { Visibility } from '../db/entities/index.js';
import { ACCESS_LEVELS } from './levels.js';
import { fixedSql, sql, type Sql } from '../db/sql.js';
import type { Caller } from './caller.js';

/**
 * Who may see and do what on projects and groups, decided here only. A caller's access level on a project is the
 * highest of: its own membership of the project; its membership of the project's group or of any group above
 * it (inherited); its membership of a group the project is shared with, or of a group above that one, capped
 * at the share's `group_access`; likewise its membership of a group that the project's group (or a group above it)
 * is shared with (POST /groups/:id/share); owner (50) in its own namespace. Expired memberships and shares count for
 * nothing. Administrators may do everything; blocked users never get this far (they cannot authenticate).
 *
 * The level comes from one SQL expression (`accessLevelSql`), computed with the project itself; lists filter
 * with one SQL condition (`visibleProjectsSql`), so that what a caller may not see is never fetched. Each is a
 * fragment of a statement (db/sql.ts): the caller's ID and today's date go with it as bound values.
 */

/**
 * The day (UTC) of a time as memberships store their expiry (`YYYY-MM-DD`): a membership ends as its day begins. The
 * fragments below take the day of the instance's clock (`ctx.today()`), never the system's.
 */
export const dayOf = (time: Date) => time.toISOString().slice(0, 10) as Day;

declare const DAY: unique symbol;
/** A day as `dayOf` makes it: a type of its own, so that a table alias is never taken for it. */
export type Day = string & { readonly [DAY]: true };

/** A table alias of the statement a fragment goes into: written by forgekit's code, never given by a caller. */
function alias(name: string): Sql {
  if (!/^[a-z][a-z_]*$/.test(name)) throw new Error(`not an alias: ${name}`);
  return fixedSql(name);
}

/** A membership aliased `name` that is an owner's, as a condition. */
export const ownerSql = (name: string) => sql`${alias(name)}."access_level" = ${ACCESS_LEVELS.owner}`;

/** A membership or share aliased `name` that has not expired, as a condition. */
export const current = (name: string, today: Day) => sql`(${alias(name)}."expires_at" is null or ${alias(name)}."expires_at" > ${today})`;

/** The groups the user is a member of (not inherited), as an array of IDs: what namespaces' traversal IDs are matched against. */
const memberGroups = (user: number, today: Day) =>
  sql`(select coalesce(array_agg(gm."group_id"), '{}') from "group_members" gm where gm."user_id" = ${user} and ${current('gm', today)})`;

/** The level of the user's own membership of the project aliased `p`; null without one. */
const projectMemberLevel = (user: number, p: string, today: Day) =>
  sql`(select max(pm."access_level") from "project_members" pm
    where pm."project_id" = ${alias(p)}."id" and pm."user_id" = ${user} and ${current('pm', today)})`;

/** The level of the user's membership of a group in the namespace aliased `n`'s chain (it or a group above it); null without one. */
const inheritedGroupLevel = (user: number, n: string, today: Day) =>
  sql`(select max(gm."access_level") from "group_members" gm
    where gm."user_id" = ${user} and gm."group_id" = any(${alias(n)}."traversal_ids") and ${current('gm', today)})`;

/**
 * The level of the user's membership of a group that a group in the namespace aliased `n`'s chain is shared with
 * (or of a group above that one), capped at the share's `group_access`; null without one.
 */
const sharedGroupLevel = (user: number, n: string, today: Day) =>
  sql`(select max(least(gm."access_level", gl."group_access")) from "group_group_links" gl
    join "namespaces" w on w."id" = gl."shared_with_group_id"
    join "group_members" gm on gm."group_id" = any(w."traversal_ids") and gm."user_id" = ${user} and ${current('gm', today)}
    where gl."shared_group_id" = any(${alias(n)}."traversal_ids") and ${current('gl', today)})`;

/**
 * The groups shared with a group the user is a member of (or with a group below one), as an array of IDs: what traversal IDs are matched
 * against.
 */
const sharedGroups = (user: number, today: Day) =>
  sql`(select coalesce(array_agg(gl."shared_group_id"), '{}') from "group_group_links" gl join "namespaces" w
    on w."id" = gl."shared_with_group_id"
    where w."traversal_ids" && ${memberGroups(user, today)} and ${current('gl', today)})`;

/** The access level (0 for none) of the user `userId` on the project aliased `p`, whose namespace is aliased `n`. */
export function accessLevelSql(userId: number, today: Day, p = 'p', n = 'n'): Sql {
  return sql`greatest(
    coalesce(${projectMemberLevel(userId, p, today)}, 0),
    coalesce(${inheritedGroupLevel(userId, n, today)}, 0),
    coalesce(${sharedGroupLevel(userId, n, today)}, 0),
    coalesce((select max(least(gm."access_level", l."group_access")) from "project_group_links" l
      join "namespaces" g on g."id" = l."group_id"
      join "group_members" gm on gm."group_id" = any(g."traversal_ids") and gm."user_id" = ${userId} and ${current('gm', today)}
      where l."project_id" = ${alias(p)}."id" and ${current('l', today)}), 0),
    case when ${alias(n)}."owner_id" = ${userId} then ${ACCESS_LEVELS.owner}::int else 0 end)`;
}

/**
 * The projects (aliased `p`) whose IDs the user reaches by any membership, as a condition: its own
 * memberships, its namespace's projects, its groups' (and their subgroups') projects, the projects of groups
 * shared with its groups (and of their subgroups), and projects shared with its groups (or their subgroups).
 */
function memberOfSql(user: number, p: string, today: Day): Sql {
  const groups = memberGroups(user, today);
  return sql`(${alias(p)}."id" in (select pm."project_id" from "project_members" pm
      where pm."user_id" = ${user} and ${current('pm', today)})
    or ${alias(p)}."namespace_id" in (select n."id" from "namespaces" n
      where n."owner_id" = ${user} or n."traversal_ids" && ${groups} or n."traversal_ids" && ${sharedGroups(user, today)})
    or ${alias(p)}."id" in (select l."project_id" from "project_group_links" l join "namespaces" g on g."id" = l."group_id"
      where g."traversal_ids" && ${groups} and ${current('l', today)}))`;
}

/**
 * The IDs of the users with access to the project `projectId`, as a subquery: its members, the members of its
 * group and the groups above, of the groups it is shared with and the groups above those, and the user whose
 * namespace it is in.
 */
export function projectUserIdsSql(projectId: number, today: Day): Sql {
  const groups = sql`select unnest(n."traversal_ids") from "projects" p join "namespaces" n on n."id" = p."namespace_id"
    where p."id" = ${projectId}`;
  return sql`select pm."user_id" from "project_members" pm where pm."project_id" = ${projectId} and ${current('pm', today)}
    union select gm."user_id" from "group_members" gm where gm."group_id" in (${groups}) and ${current('gm', today)}
    union select gm."user_id" from "project_group_links" l join "namespaces" g on g."id" = l."group_id"
      join "group_members" gm on gm."group_id" = any(g."traversal_ids") and ${current('gm', today)}
        where l."project_id" = ${projectId} and ${current('l', today)}
    union select gm."user_id" from "group_group_links" gl join "namespaces" w on w."id" = gl."shared_with_group_id"
      join "group_members" gm on gm."group_id" = any(w."traversal_ids") and ${current('gm', today)}
      where gl."shared_group_id" in (${groups}) and ${current('gl', today)}
    union select n."owner_id" from "projects" p join "namespaces" n on n."id" = p."namespace_id"
      where p."id" = ${projectId} and n."owner_id" is not null`;
}

/** The projects (aliased `p`) the signed-in caller is a member of, by any membership, as a condition. */
export function memberProjectsSql(caller: Caller, today: Day, p = 'p'): Sql {
  return caller.user ? memberOfSql(caller.user.id, p, today) : sql`false`;
}

/** The projects (aliased `p`) in the caller's own namespace or in groups it owns itself, as a condition. */
export function ownedProjectsSql(caller: Caller, today: Day, p = 'p'): Sql {
  if (!caller.user) return sql`false`;
  const user = caller.user.id;
  return sql`${alias(p)}."namespace_id" in (select n."id" from "namespaces" n where n."owner_id" = ${user}
    union select gm."group_id" from "group_members" gm where gm."user_id" = ${user} and gm."access_level" >= ${ACCESS_LEVELS.owner}
      and ${current('gm', today)})`;
}

/** The condition on projects (aliased `p`) that the caller may see (visibleSql): beyond the open ones, those it is a member of. */
export function visibleProjectsSql(caller: Caller, today: Day, p = 'p'): Sql {
  return visibleSql(caller, p, (user, table) => memberOfSql(user, table, today));
}

/**
 * The condition on projects or groups (aliased `table`) that the caller may see: all for administrators; public
 * ones for anyone; internal ones for signed-in users who are not external; and those `reached` by membership.
 */
function visibleSql(caller: Caller, table: string, reached: (user: number, table: string) => Sql): Sql {
  if (caller.user?.admin) return sql`true`;
  const open =
    !caller.user || caller.user.external
      ? sql`${alias(table)}."visibility" = 'public'`
      : sql`${alias(table)}."visibility" in ('public', 'internal')`;
  return caller.user ? sql`(${open} or ${reached(caller.user.id, table)})` : open;
}

/**
 * The access level (0 for none) of the user `userId` on the group aliased `g`: its own membership or one of a group
 * above it, or its membership of a group that it or a group above it is shared with (capped at the share's level).
 */
export function groupAccessLevelSql(userId: number, today: Day, g = 'g'): Sql {
  return sql`greatest(coalesce(${inheritedGroupLevel(userId, g, today)}, 0), coalesce(${sharedGroupLevel(userId, g, today)}, 0))`;
}

/** The number of current members of the group aliased `g` and of its subgroups, each user once. */
export function membersWithDescendantsSql(today: Day, g = 'g'): Sql {
  return sql`(select count(distinct gm."user_id")::int from "group_members" gm join "namespaces" d on d."id" = gm."group_id"
    where d."traversal_ids" @> array[${alias(g)}."id"] and ${current('gm', today)})`;
}

/**
 * What the caller is to the namespace aliased `n`, as select columns: `own` (its user's namespace), `member` (a
 * group it is itself a member of) and `access_level` (its level on a group, inherited; 0 for none).
 */
export function namespaceAccessColumnsSql(caller: Caller, today: Day, n = 'n'): Sql {
  if (!caller.user) return sql`false as "own", false as "member", 0 as "access_level"`;
  const user = caller.user.id;
  return sql`coalesce(${alias(n)}."owner_id" = ${user}, false) as "own",
    ${alias(n)}."id" in (${memberGroupIdsSql(caller, today)}) as "member",
    case when ${alias(n)}."kind" = 'group' then ${groupAccessLevelSql(user, today, n)} else 0 end as "access_level"`;
}

/**
 * The groups (aliased `g`) whose members the caller administers (maintainers and above; every group for administrators), as a condition.
 */
export function administeredGroupsSql(caller: Caller, today: Day, g = 'g'): Sql {
  if (caller.user?.admin) return sql`true`;
  if (!caller.user) return sql`false`;
  return sql`${groupAccessLevelSql(caller.user.id, today, g)} >= ${ACCESS_LEVELS.maintainer}`;
}

/** The IDs of the groups the caller is itself a member of (not by inheritance), as a subquery. */
export function memberGroupIdsSql(caller: Caller, today: Day): Sql {
  if (!caller.user) return sql`select null::int where false`;
  return sql`select gm."group_id" from "group_members" gm where gm."user_id" = ${caller.user.id} and ${current('gm', today)}`;
}

/**
 * The caller's levels on the project aliased `p` (namespace `n`), as select columns: `access_level` (0 for
 * none), and `project_access` and `group_access` (null without such a membership) for `permissions`.
 */
export function projectAccessColumnsSql(caller: Caller, today: Day, p = 'p', n = 'n'): Sql {
  if (!caller.user) return sql`0 as "access_level", null::int as "project_access", null::int as "group_access"`;
  const user = caller.user.id;
  return sql`${accessLevelSql(user, today, p, n)} as "access_level", ${projectMemberLevel(user, p, today)} as "project_access",
    ${inheritedGroupLevel(user, n, today)} as "group_access"`;
}

/**
 * The groups (aliased `g`) the user reaches by membership, as a condition: the groups it is a member of and
 * their subgroups (inherited), the groups shared with those (and their subgroups), the groups above those, and
 * the groups (and the groups above them) holding a project it is a member of, as the original lets those see
 * the way down to what they may see.
 */
function groupsReachedSql(user: number, g: string, today: Day): Sql {
  return sql`(${alias(g)}."traversal_ids" && ${memberGroups(user, today)} or ${alias(g)}."traversal_ids" && ${sharedGroups(user, today)}
    or ${alias(g)}."id" in (select unnest(d."traversal_ids") from "namespaces" d join "group_members" gm on gm."group_id" = d."id"
      where gm."user_id" = ${user} and ${current('gm', today)})
    or ${alias(g)}."id" in (select unnest(n."traversal_ids") from "project_members" pm join "projects" p on p."id" = pm."project_id"
      join "namespaces" n on n."id" = p."namespace_id" where pm."user_id" = ${user} and ${current('pm', today)}))`;
}

/** The condition on groups (aliased `g`) that the caller may see (visibleSql): beyond the open ones, those it reaches by membership. */
export function visibleGroupsSql(caller: Caller, today: Day, g = 'g'): Sql {
  return visibleSql(caller, g, (user, table) => groupsReachedSql(user, table, today));
}

/** The groups (aliased `g`) the signed-in caller reaches by membership (GET /groups without `all_available`), as a condition. */
export function memberGroupsSql(caller: Caller, today: Day, g = 'g'): Sql {
  return caller.user ? groupsReachedSql(caller.user.id, g, today) : sql`false`;
}

/** The groups (aliased `g`) the signed-in caller is itself an owner of (`owned=true`), as a condition. */
export function ownedGroupsSql(caller: Caller, today: Day, g = 'g'): Sql {
  if (!caller.user) return sql`false`;
  return sql`${alias(g)}."id" in (select gm."group_id" from "group_members" gm
    where gm."user_id" = ${caller.user.id} and gm."access_level" >= ${ACCESS_LEVELS.owner} and ${current('gm', today)})`;
}

/**
 * The caller's level on the group aliased `g` (0 for none; inherited from the groups above) and whether it may
 * see the group, as select columns `access_level` and `visible`.
 */
export function groupAccessColumnsSql(caller: Caller, today: Day, g = 'g'): Sql {
  const level = caller.user ? groupAccessLevelSql(caller.user.id, today, g) : sql`0`;
  return sql`${level} as "access_level", ${visibleGroupsSql(caller, today, g)} as "visible"`;
}

/**
 * The IDs of the groups the project `projectId` is shared with (shares that have not expired; with `minimum`, those
 * giving at least that level), as a subquery.
 */
export function projectShareGroupIdsSql(projectId: number, today: Day, minimum?: number): Sql {
  const least = minimum === undefined ? sql`` : sql` and l."group_access" >= ${minimum}`;
  return sql`select l."group_id" from "project_group_links" l where l."project_id" = ${projectId} and ${current('l', today)}${least}`;
}

/** The IDs of the projects shared with the group `groupId` (shares that have not expired), as a subquery. */
export function sharedProjectIdsSql(groupId: number, today: Day): Sql {
  return sql`select l."project_id" from "project_group_links" l where l."group_id" = ${groupId} and ${current('l', today)}`;
}

/** Whose membership a members list shows: a project's or a group's; `inherited` adds the members of the groups above. */
export interface MembersSource {
  kind: 'project' | 'group';
  id: number;
}

/**
 * The memberships of `source` as rows (`user_id`, `access_level`, `expires_at`, and `source_name`: the group
 * a membership comes from, or null for the source's own), current ones only; with `inherited`, those of the
 * groups above it (a project's group and the groups above that) too. A user may appear more than once.
 */
export function memberRowsSql(source: MembersSource, inherited: boolean, today: Day): Sql {
  const id = source.id;
  const own =
    source.kind === 'project'
      ? sql`select pm."user_id", pm."access_level", pm."expires_at", null::text as "source_name" from "project_members" pm
        where pm."project_id" = ${id} and ${current('pm', today)}`
      : sql`select gm."user_id", gm."access_level", gm."expires_at", null::text as "source_name" from "group_members" gm
        where gm."group_id" = ${id} and ${current('gm', today)}`;
  if (!inherited) return own;
  // The groups above: a project's namespace's chain (a user's namespace has no group members); a group's chain but itself.
  const above =
    source.kind === 'project'
      ? sql`select unnest(n."traversal_ids") from "projects" p join "namespaces" n on n."id" = p."namespace_id" where p."id" = ${id}`
      : sql`select unnest(g."traversal_ids") from "namespaces" g where g."id" = ${id} except select ${id}::int`;
  return sql`${own} union all select gm."user_id", gm."access_level", gm."expires_at", a."full_name" from "group_members" gm
    join "namespaces" a on a."id" = gm."group_id" where gm."group_id" in (${above}) and ${current('gm', today)}`;
}

/** Whether the caller may see a project of `visibility` on which it has `level`. */
export function canReadProject(caller: Caller, visibility: Visibility, level: number): boolean {
  if (caller.user?.admin || visibility === 'public') return true;
  if (!caller.user) return false;
  if (visibility === 'internal' && !caller.user.external) return true;
  return level >= ACCESS_LEVELS.guest;
}

/**
 * The issues (aliased `i`, in projects aliased `p` with namespaces aliased `n`) the caller may read, as a condition:
 * in projects it may see whose issue tracker is enabled; a confidential one only when it wrote it, is assigned to
 * it, or is a reporter or above of the project (administrators read all). In one project's list, whose project
 * the caller may see, `readsConfidential` says whether it may read them all, which saves computing its level per row.
 */
export function visibleIssuesSql(
  caller: Caller,
  today: Day,
  options: { i?: string; p?: string; n?: string; readsConfidential?: boolean } = {},
): Sql {
  const { i = 'i', p = 'p', n = 'n' } = options;
  const tracker = sql`${alias(p)}."issues_enabled"`;
  if (caller.user?.admin) return tracker;
  const inProject = options.readsConfidential !== undefined;
  const projects = inProject ? tracker : sql`${visibleProjectsSql(caller, today, p)} and ${tracker}`;
  if (options.readsConfidential) return projects;
  if (!caller.user) return sql`${projects} and not ${alias(i)}."confidential"`;
  const user = caller.user.id;
  const reporter = inProject ? sql`` : sql` or ${accessLevelSql(user, today, p, n)} >= ${ACCESS_LEVELS.reporter}`;
  return sql`${projects} and (not ${alias(i)}."confidential" or ${alias(i)}."author_id" = ${user}
    or exists (select 1 from "issue_assignees" ia where ia."issue_id" = ${alias(i)}."id" and ia."user_id" = ${user})${reporter})`;
}

/**
 * The merge requests (aliased `i`, their target projects `p` in namespaces `n`) the caller may read, as a condition:
 * those of projects whose merge requests are enabled and whose code it may read (any project it sees that is not
 * private; a private one as a reporter or above; administrators all). In one project's list (`inProject`), whose
 * project the scope let the caller see and whose merge requests it may read, the feature alone.
 */
export function visibleMergeRequestsSql(caller: Caller, today: Day, options: { inProject?: boolean } = {}): Sql {
  const enabled = sql`p."merge_requests_enabled"`;
  if (caller.user?.admin || options.inProject) return enabled;
  return sql`${visibleProjectsSql(caller, today, 'p')} and ${enabled} and ${readsCodeSql(caller, today)}`;
}

/**
 * Whether the caller may read the code of a project it sees (aliased `p`, its namespace `n`), as a condition: the
 * project policy's `download_code`: any project but a private one, where reporters and above (administrators all).
 */
export function readsCodeSql(caller: Caller, today: Day): Sql {
  if (caller.user?.admin) return sql`true`;
  if (!caller.user) return sql`p."visibility" <> 'private'`;
  return sql`(p."visibility" <> 'private' or ${accessLevelSql(caller.user.id, today, 'p', 'n')} >= ${ACCESS_LEVELS.reporter})`;
}

/** The groups the user is itself a maintainer or an owner of, as an array of IDs (what traversal IDs are matched against). */
const maintainedGroups = (user: number, today: Day) =>
  sql`(select coalesce(array_agg(gm."group_id"), '{}') from "group_members" gm
    where gm."user_id" = ${user} and gm."access_level" >= ${ACCESS_LEVELS.maintainer} and ${current('gm', today)})`;

/**
 * The IDs of the projects the user maintains (maintainer or above, by any membership: its own, a group's above the
 * project, a share's capped at its level, or its own namespace), as a subquery: the original's
 * `authorized_projects(MAINTAINER)`.
 */
function maintainedProjectIdsSql(user: number, today: Day): Sql {
  return sql`select pm."project_id" from "project_members" pm
    where pm."user_id" = ${user} and pm."access_level" >= ${ACCESS_LEVELS.maintainer} and ${current('pm', today)}
    union select p."id" from "projects" p where p."namespace_id" in (select n."id" from "namespaces" n
      where n."owner_id" = ${user} or n."traversal_ids" && ${maintainedGroups(user, today)})
    union select l."project_id" from "project_group_links" l join "namespaces" g on g."id" = l."group_id"
      join "group_members" gm on gm."group_id" = any(g."traversal_ids") and gm."user_id" = ${user} and ${current('gm', today)}
      where ${current('l', today)} and least(gm."access_level", l."group_access") >= ${ACCESS_LEVELS.maintainer}`;
}

/** The IDs of the groups the user maintains: those it is a maintainer or an owner of, and the groups below them. */
const maintainedGroupIdsSql = (user: number, today: Day) =>
  sql`select g."id" from "namespaces" g where g."kind" = 'group' and g."traversal_ids" && ${maintainedGroups(user, today)}`;

/**
 * The runners (aliased `r`) the caller owns, as a condition: those enabled in a project it maintains, and the group
 * runners of a group it maintains (or of one below such a group), as the original's `ci_owned_runners`. Whatever
 * their kind, administrators own none they do not maintain so: they reach every runner through GET /runners/all.
 */
export function ownedRunnersSql(caller: Caller, today: Day, r = 'r'): Sql {
  if (!caller.user) return sql`false`;
  const user = caller.user.id;
  return sql`(${alias(r)}."id" in (select rp."runner_id" from "runner_projects" rp
    where rp."project_id" in (${maintainedProjectIdsSql(user, today)}))
    or ${alias(r)}."id" in (select rg."runner_id" from "runner_groups" rg where rg."group_id" in (${maintainedGroupIdsSql(user, today)})))`;
}

/**
 * What the caller is to the runner aliased `r`, as select columns: `owned` (ownedRunnersSql), and `administers_all`:
 * it maintains every project the runner is enabled in and its group (who may see its token besides administrators).
 */
export function runnerAccessColumnsSql(caller: Caller, today: Day, r = 'r'): Sql {
  if (!caller.user) return sql`false as "owned", false as "administers_all"`;
  const user = caller.user.id;
  return sql`${ownedRunnersSql(caller, today, r)} as "owned",
    (not exists (select 1 from "runner_projects" rp where rp."runner_id" = ${alias(r)}."id"
      and rp."project_id" not in (${maintainedProjectIdsSql(user, today)}))
      and not exists (select 1 from "runner_groups" rg where rg."runner_id" = ${alias(r)}."id"
        and rg."group_id" not in (${maintainedGroupIdsSql(user, today)}))) as "administers_all"`;
}
