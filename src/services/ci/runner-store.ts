import type { RunnerInScope } from '../../auth/abilities.js';
import { type Day, memberGroupsSql, memberProjectsSql, runnerAccessColumnsSql } from '../../auth/access-levels.js';
import type { Caller } from '../../auth/caller.js';
import { Runner, type RunnerAccessLevel, type RunnerType } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows, readRows, rowAs } from '../../db/rows.js';
import { concat, empty, identifier, sql, type Sql } from '../../db/sql.js';
import type { RunnerGroup, RunnerProject } from '../../schemas/runners.js';
import { SETTINGS_ID } from '../instance/settings-store.js';

/**
 * Runners' hand-written statements: a runner with what the caller is to it, pages of runners under a condition,
 * what a detail embeds, registration (which token names what), writes; and the conditions the lists take beside
 * the visibility rule of src/auth/access-levels.ts (`ownedRunnersSql`).
 */

/** A runner by ID with what the caller is to it (src/auth/policies/runner.ts), in one statement; null when there is none. */
export async function findRunnerInScope(em: EntityManager, caller: Caller, today: Day, id: number): Promise<RunnerInScope | null> {
  const [row] = await queryRows(
    em,
    sql`select to_jsonb(r) as "runner", ${runnerAccessColumnsSql(caller, today)},
       (select count(*)::int from "runner_projects" rp where rp."runner_id" = r."id") as "project_count"
     from "runners" r where r."id" = ${id}`,
  );
  if (!row) return null;
  return {
    runner: rowAs(em, Runner, row.runner),
    owned: row.owned === true,
    administersAll: row.administers_all === true,
    projectCount: Number(row.project_count),
  };
}

/** The runner a runner's own token names (by its digest); undefined for none. */
export async function findRunnerByToken(em: EntityManager, digest: string): Promise<Runner | undefined> {
  const [runner] = await readRows(em, Runner, sql`select * from "runners" where "token_digest" = ${digest}`);
  return runner;
}

/** What the lists filter by, beyond whose runners they are: each has its index (src/db/entities/runners.ts). */
export interface RunnerFilter {
  active?: boolean;
  /** `online`: contacted after `since`; `offline`: contacted, but not since. */
  contact?: { online: boolean; since: Date };
  /** Never contacted since it registered. */
  neverContacted?: boolean;
  /** Made before this, and not contacted since (later clients' `stale`). */
  staleBefore?: Date;
  types?: RunnerType[];
  tags?: string[];
}

function filterSql(filter: RunnerFilter): Sql {
  const conditions: Sql[] = [];
  if (filter.active !== undefined) conditions.push(sql` and r."active" = ${filter.active}`);
  if (filter.contact)
    conditions.push(
      filter.contact.online ? sql` and r."contacted_at" > ${filter.contact.since}` : sql` and r."contacted_at" <= ${filter.contact.since}`,
    );
  if (filter.neverContacted) conditions.push(sql` and r."contacted_at" is null`);
  if (filter.staleBefore) {
    conditions.push(
      sql` and r."created_at" <= ${filter.staleBefore} and (r."contacted_at" is null or r."contacted_at" <= ${filter.staleBefore})`,
    );
  }
  if (filter.types) conditions.push(sql` and r."runner_type" = any(${filter.types}::text[])`);
  if (filter.tags?.length) conditions.push(sql` and r."tag_list" @> ${filter.tags}::text[]`);
  return concat(conditions);
}

/**
 * A page of the runners (aliased `r`) that `scope` admits and the filter keeps, newest first as the original orders
 * them, and how many there are: two statements, run at once, whatever the page's size.
 */
export async function runnerPage(
  em: EntityManager,
  scope: Sql,
  filter: RunnerFilter,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: Runner[] }> {
  const where = sql`${scope}${filterSql(filter)}`;
  const [[{ count }], rows] = await Promise.all([
    queryRows(em, sql`select count(*)::int as "count" from "runners" r where ${where}`),
    readRows(em, Runner, sql`select r.* from "runners" r where ${where} order by r."id" desc limit ${page.limit} offset ${page.offset}`),
  ]);
  return { total: Number(count), rows };
}

/**
 * The runners a project may use, as a condition on runners aliased `r`: those enabled in it, the group runners of
 * its group and the groups above (`groupIds`), and the shared ones when it lets shared runners take its jobs.
 */
export function projectRunnersSql(projectId: number, groupIds: readonly number[], sharedRunnersEnabled: boolean): Sql {
  const shared = sharedRunnersEnabled ? sql` or r."runner_type" = 'instance_type'` : empty;
  return sql`(r."id" in (select rp."runner_id" from "runner_projects" rp where rp."project_id" = ${projectId})
    or r."id" in (select rg."runner_id" from "runner_groups" rg where rg."group_id" = any(${[...groupIds]}::int[]))${shared})`;
}

/**
 * What a runner's detail embeds, in one statement: its projects and its group, all of them for those who read all
 * (`everything`), otherwise those the caller is a member of, as the original shows them.
 */
export async function runnerRelations(
  em: EntityManager,
  caller: Caller,
  today: Day,
  runnerId: number,
  everything: boolean,
  baseUrl: string,
): Promise<{ projects: RunnerProject[]; groups: RunnerGroup[] }> {
  const projectsSeen = everything ? sql`true` : memberProjectsSql(caller, today, 'p');
  const groupsSeen = everything ? sql`true` : memberGroupsSql(caller, today, 'g');
  const [row] = await queryRows(
    em,
    sql`select
       (select coalesce(jsonb_agg(jsonb_build_object('id', p."id", 'name', p."name", 'name_with_namespace',
         n."full_name" || ' / ' || p."name",
           'path', p."path", 'path_with_namespace', n."full_path" || '/' || p."path") order by p."id"), '[]')
         from "runner_projects" rp join "projects" p on p."id" = rp."project_id" join "namespaces" n on n."id" = p."namespace_id"
         where rp."runner_id" = ${runnerId} and ${projectsSeen}) as "projects",
       (select coalesce(jsonb_agg(jsonb_build_object('id', g."id", 'name', g."name", 'web_url',
         ${`${baseUrl}/groups/`}::text || g."full_path") order by g."id"), '[]')
         from "runner_groups" rg join "namespaces" g on g."id" = rg."group_id"
         where rg."runner_id" = ${runnerId} and ${groupsSeen}) as "groups"`,
  );
  return { projects: row.projects as RunnerProject[], groups: row.groups as RunnerGroup[] };
}

/** What a registration token names: the instance (a shared runner), a project, or a group; all false for none. */
export async function registrationTarget(
  em: EntityManager,
  digest: string,
): Promise<{ instance: boolean; projectId: number | null; groupId: number | null }> {
  const [row] = await queryRows(
    em,
    sql`select exists (select 1 from "application_settings" s
      where s."id" = ${SETTINGS_ID} and s."runners_registration_token_digest" = ${digest}) as "instance",
       (select p."id" from "projects" p where p."runners_token_digest" = ${digest}) as "project_id",
       (select g."id" from "namespaces" g where g."kind" = 'group' and g."runners_token_digest" = ${digest}) as "group_id"`,
  );
  return {
    instance: row.instance === true,
    projectId: row.project_id === null ? null : Number(row.project_id),
    groupId: row.group_id === null ? null : Number(row.group_id),
  };
}

/** A runner's columns as registering sets them. */
export interface NewRunner {
  tokenDigest: string;
  tokenSealed: string;
  runnerType: RunnerType;
  description: string;
  active: boolean;
  locked: boolean;
  runUntagged: boolean;
  accessLevel: RunnerAccessLevel;
  maximumTimeout: number | null;
  tagList: string[];
  info: RunnerSelf;
  now: Date;
}

/** What a runner says of itself, and where it called from: written when given, kept otherwise. */
export interface RunnerSelf {
  name?: string;
  version?: string;
  revision?: string;
  platform?: string;
  architecture?: string;
  ipAddress?: string;
}

/** A new runner, with its project or its group: its ID. */
export async function insertRunner(em: EntityManager, runner: NewRunner, owner: { projectId?: number; groupId?: number }): Promise<number> {
  const { info, now } = runner;
  const [row] = await queryRows(
    em,
    sql`insert into "runners" ("token_digest", "token_sealed", "runner_type", "description", "active", "locked", "run_untagged",
       "access_level", "maximum_timeout", "tag_list", "name", "version", "revision", "platform", "architecture", "ip_address",
       "created_at", "updated_at")
     values (${runner.tokenDigest}, ${runner.tokenSealed}, ${runner.runnerType}, ${runner.description}, ${runner.active}, ${runner.locked},
       ${runner.runUntagged}, ${runner.accessLevel}, ${runner.maximumTimeout}::int, ${runner.tagList}::text[], ${info.name ?? null},
       ${info.version ?? null}, ${info.revision ?? null}, ${info.platform ?? null}, ${info.architecture ?? null}, ${info.ipAddress ?? null},
       ${now}, ${now})
     returning "id"`,
  );
  const id = Number(row.id);
  if (owner.projectId !== undefined)
    await queryRows(
      em,
      sql`insert into "runner_projects" ("runner_id", "project_id", "created_at") values (${id}, ${owner.projectId}, ${now})`,
    );
  if (owner.groupId !== undefined)
    await queryRows(em, sql`insert into "runner_groups" ("runner_id", "group_id", "created_at") values (${id}, ${owner.groupId}, ${now})`);
  return id;
}

/** A runner reached the instance now: its contact time, and what it said of itself. */
export async function touchRunner(em: EntityManager, runnerId: number, self: RunnerSelf, now: Date): Promise<void> {
  const columns: [string, string | undefined][] = [
    ['name', self.name],
    ['version', self.version],
    ['revision', self.revision],
    ['platform', self.platform],
    ['architecture', self.architecture],
    ['ip_address', self.ipAddress],
  ];
  const given = columns
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => sql`, ${identifier(name, SELF_COLUMNS)} = ${value!}`);
  await queryRows(em, sql`update "runners" set "contacted_at" = ${now}${concat(given)} where "id" = ${runnerId}`);
}

/** The columns of what a runner says of itself. */
const SELF_COLUMNS = ['name', 'version', 'revision', 'platform', 'architecture', 'ip_address'];

/** A runner's settings changed (those given), and whether it is now a project's runner (an administrator enabling a shared one). */
export async function updateRunner(
  em: EntityManager,
  runnerId: number,
  changes: {
    description?: string;
    active?: boolean;
    tagList?: string[];
    runUntagged?: boolean;
    locked?: boolean;
    /** Its `access_level`: which refs' jobs it takes. */
    refProtection?: RunnerAccessLevel;
    maximumTimeout?: number;
    runnerType?: RunnerType;
  },
  now: Date,
): Promise<void> {
  const set: Sql[] = [];
  if (changes.description !== undefined) set.push(sql`, "description" = ${changes.description}`);
  if (changes.active !== undefined) set.push(sql`, "active" = ${changes.active}`);
  if (changes.tagList !== undefined) set.push(sql`, "tag_list" = ${changes.tagList}::text[]`);
  if (changes.runUntagged !== undefined) set.push(sql`, "run_untagged" = ${changes.runUntagged}`);
  if (changes.locked !== undefined) set.push(sql`, "locked" = ${changes.locked}`);
  if (changes.refProtection !== undefined) set.push(sql`, "access_level" = ${changes.refProtection}`);
  if (changes.maximumTimeout !== undefined) set.push(sql`, "maximum_timeout" = ${changes.maximumTimeout}`);
  if (changes.runnerType !== undefined) set.push(sql`, "runner_type" = ${changes.runnerType}`);
  await queryRows(em, sql`update "runners" set "updated_at" = ${now}${concat(set)} where "id" = ${runnerId}`);
}

export async function deleteRunner(em: EntityManager, runnerId: number): Promise<void> {
  await queryRows(em, sql`delete from "runners" where "id" = ${runnerId}`);
}

/**
 * The runner's row locked until the call's transaction ends, with how many projects it is enabled in and whether
 * `projectId` is one: so that two calls never both take a runner out of its last two projects.
 */
export async function lockRunnerProjects(
  em: EntityManager,
  runnerId: number,
  projectId: number,
): Promise<{ projectCount: number; enabled: boolean } | undefined> {
  const [locked] = await queryRows(em, sql`select "id" from "runners" where "id" = ${runnerId} for update`);
  if (!locked) return undefined;
  const [row] = await queryRows(
    em,
    sql`select count(*)::int as "count", coalesce(bool_or(rp."project_id" = ${projectId}), false) as "enabled" from "runner_projects" rp
      where rp."runner_id" = ${runnerId}`,
  );
  return { projectCount: Number(row.count), enabled: row.enabled === true };
}

/** The runner enabled in the project; false when it was already. */
export async function enableRunner(em: EntityManager, runnerId: number, projectId: number, now: Date): Promise<boolean> {
  const rows = await queryRows(
    em,
    sql`insert into "runner_projects" ("runner_id", "project_id", "created_at") values (${runnerId}, ${projectId}, ${now})
      on conflict do nothing returning "id"`,
  );
  return rows.length > 0;
}

export async function disableRunner(em: EntityManager, runnerId: number, projectId: number): Promise<void> {
  await queryRows(em, sql`delete from "runner_projects" where "runner_id" = ${runnerId} and "project_id" = ${projectId}`);
}

/** The instance's runners registration token, sealed (made at start-up: src/services/instance/bootstrap.ts). */
export async function instanceRegistrationToken(em: EntityManager): Promise<string> {
  const [kept] = await queryRows(
    em,
    sql`select "runners_registration_token_sealed" as "sealed" from "application_settings" where "id" = ${SETTINGS_ID}`,
  );
  return String(kept.sealed);
}

/** A new registration token for the instance: the old one registers nothing any more. */
export async function replaceInstanceRegistrationToken(
  em: EntityManager,
  token: { sealed: string; digest: string },
  now: Date,
): Promise<void> {
  await queryRows(
    em,
    sql`update "application_settings" set "runners_registration_token_sealed" = ${token.sealed},
      "runners_registration_token_digest" = ${token.digest}, "updated_at" = ${now}
     where "id" = ${SETTINGS_ID}`,
  );
}
