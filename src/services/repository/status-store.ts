import { CommitStatus, Pipeline, User, type PipelineStatus } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows, rowAs } from '../../db/rows.js';
import { concat, empty, identifier, join, sql, type Sql } from '../../db/sql.js';

/** Commit statuses' hand-written statements, and those of the pipelines they make (one per commit and ref). */

/**
 * The advisory lock class of a project's pipelines (the second key is the project's ID): the status posts of
 * one project take turns, so that two posts for one commit and ref make one pipeline, and each pipeline's
 * status is composed from every status committed before it.
 */
const PIPELINES_LOCK = 774211;

/** One of a pipeline's latest statuses (one per name), as its composite status counts it. */
export interface LatestStatus {
  status: PipelineStatus;
  allowFailure: boolean;
}

/** What a status post sets beside its state, when given: the only columns it names. */
export interface StatusColumns {
  target_url?: string;
  description?: string;
  coverage?: number;
  started_at?: Date;
  finished_at?: Date;
}

const STATUS_COLUMNS = ['target_url', 'description', 'coverage', 'started_at', 'finished_at'] as const;

/** The columns of `columns` that are given, in a fixed order. */
const givenColumns = (columns: StatusColumns) => STATUS_COLUMNS.filter((name) => columns[name] !== undefined);

/** A statuses list's filters; an empty one filters nothing, as the original reads it. */
export interface StatusFilter {
  projectId: number;
  sha: string;
  ref?: string;
  stage?: string;
  name?: string;
  /** Every status, not only the latest of each name in each pipeline. */
  all?: boolean;
}

/** The project's pipelines locked for the rest of the transaction (PIPELINES_LOCK). */
export async function lockPipelines(em: EntityManager, projectId: number): Promise<void> {
  await queryRows(em, sql`select pg_advisory_xact_lock(${PIPELINES_LOCK}, ${projectId})`);
}

/** The pipelines a condition keeps (it may end with an order and a limit). */
async function pipelines(em: EntityManager, where: Sql): Promise<Pipeline[]> {
  return (await queryRows(em, sql`select * from "pipelines" where ${where}`)).map((row) => rowAs(em, Pipeline, row));
}

/** A pipeline of the project's commit by ID (of that ref, when one is given); undefined when there is none. */
export async function findPipelineOfCommit(
  em: EntityManager,
  projectId: number,
  sha: string,
  pipelineId: number,
  ref?: string,
): Promise<Pipeline | undefined> {
  const ofRef = ref !== undefined ? sql` and "ref" = ${ref}` : empty;
  return (await pipelines(em, sql`"id" = ${pipelineId} and "project_id" = ${projectId} and "sha" = ${sha}${ofRef}`))[0];
}

/** The latest pipeline of the project's commit and ref; undefined when there is none. */
export async function latestPipelineOfRef(em: EntityManager, projectId: number, sha: string, ref: string): Promise<Pipeline | undefined> {
  return (await pipelines(em, sql`"project_id" = ${projectId} and "sha" = ${sha} and "ref" = ${ref} order by "id" desc limit 1`))[0];
}

/** The commit's latest pipeline (whatever its ref), as a commit shows it; null when there is none. */
export async function lastPipelineOf(
  em: EntityManager,
  projectId: number,
  sha: string,
): Promise<{ id: number; ref: string | null; sha: string; status: string } | null> {
  const [pipeline] = (await queryRows(
    em,
    sql`select "id", "ref", "sha", "status" from "pipelines" where "project_id" = ${projectId} and "sha" = ${sha} order by "id" desc
      limit 1`,
  )) as { id: number; ref: string | null; sha: string; status: string }[];
  return pipeline ?? null;
}

/** A new pipeline of the commit and ref, `created`, the user's. */
export async function insertPipeline(
  em: EntityManager,
  projectId: number,
  sha: string,
  ref: string,
  userId: number,
  now: Date,
): Promise<Pipeline> {
  const [row] = await queryRows(
    em,
    sql`insert into "pipelines" ("project_id", "sha", "ref", "status", "user_id", "created_at", "updated_at")
      values (${projectId}, ${sha}, ${ref}, 'created', ${userId}, ${now}, ${now}) returning *`,
  );
  return rowAs(em, Pipeline, row);
}

/** The pipeline's status and its times changed (a time not given stays). */
export async function updatePipelineStatus(
  em: EntityManager,
  pipelineId: number,
  next: { status: PipelineStatus; startedAt?: Date; finishedAt?: Date },
  now: Date,
): Promise<void> {
  await queryRows(
    em,
    sql`update "pipelines" set "status" = ${next.status}, "updated_at" = ${now},
      "started_at" = coalesce(${next.startedAt ?? null}::timestamptz, "started_at"),
      "finished_at" = coalesce(${next.finishedAt ?? null}::timestamptz, "finished_at") where "id" = ${pipelineId}`,
  );
}

/** The pipeline's latest status of each name. */
export async function latestStatuses(em: EntityManager, pipelineId: number): Promise<LatestStatus[]> {
  return (await queryRows(
    em,
    sql`select distinct on ("name") "status", "allow_failure" as "allowFailure" from "commit_statuses" where "pipeline_id" = ${pipelineId}
      order by "name", "id" desc`,
  )) as unknown as LatestStatus[];
}

/** The author's latest status of that name in the pipeline while it is still pending or running; undefined otherwise. */
export async function openStatusOf(
  em: EntityManager,
  pipelineId: number,
  name: string,
  authorId: number,
): Promise<{ id: number; status: 'pending' | 'running' } | undefined> {
  const [existing] = await queryRows(
    em,
    sql`select "id", "status" from "commit_statuses" where "pipeline_id" = ${pipelineId} and "name" = ${name} and "author_id" = ${authorId}
      and "status" in ('pending', 'running') order by "id" desc limit 1`,
  );
  return existing as { id: number; status: 'pending' | 'running' } | undefined;
}

/** A status's state changed, with the columns given. */
export async function updateCommitStatus(
  em: EntityManager,
  statusId: number,
  status: string,
  now: Date,
  columns: StatusColumns,
): Promise<CommitStatus> {
  const column = (name: keyof StatusColumns) => identifier(name, STATUS_COLUMNS);
  const [row] = await queryRows(
    em,
    sql`update "commit_statuses" set "status" = ${status},
      "updated_at" = ${now}${concat(givenColumns(columns).map((name) => sql`, ${column(name)} = ${columns[name]}`))}
      where "id" = ${statusId} returning *`,
  );
  return rowAs(em, CommitStatus, row);
}

/** A new status of the pipeline's commit and ref, with the columns given. */
export async function insertCommitStatus(
  em: EntityManager,
  status: {
    projectId: number;
    pipelineId: number;
    sha: string;
    ref: string;
    name: string;
    stage: string;
    status: string;
    authorId: number;
    now: Date;
  },
  columns: StatusColumns,
): Promise<CommitStatus> {
  const column = (name: keyof StatusColumns) => identifier(name, STATUS_COLUMNS);
  const given = givenColumns(columns);
  const [row] = await queryRows(
    em,
    sql`insert into "commit_statuses" ("project_id", "pipeline_id", "sha", "ref", "name", "stage", "status", "author_id", "created_at",
      "updated_at"${concat(given.map((name) => sql`, ${column(name)}`))})
     values (${status.projectId}, ${status.pipelineId}, ${status.sha}, ${status.ref}, ${status.name}, ${status.stage}, ${status.status},
       ${status.authorId}, ${status.now}, ${status.now}${concat(given.map((name) => sql`, ${columns[name]}`))})
     returning *`,
  );
  return rowAs(em, CommitStatus, row);
}

/** The statuses a list's filters keep, aliased `s`. */
function statusesWhere(filter: StatusFilter): Sql {
  const conditions = [sql`s."project_id" = ${filter.projectId}`, sql`s."sha" = ${filter.sha}`];
  if (filter.ref) conditions.push(sql`s."ref" = ${filter.ref}`);
  if (filter.stage) conditions.push(sql`s."stage" = ${filter.stage}`);
  if (filter.name) conditions.push(sql`s."name" = ${filter.name}`);
  if (!filter.all)
    conditions.push(
      sql`not exists (select 1 from "commit_statuses" later where later."pipeline_id" = s."pipeline_id" and later."name" = s."name"
        and later."id" > s."id")`,
    );
  return join(conditions, ' and ');
}

/**
 * A page of the statuses the filters keep, oldest first, each with its author (null once deleted), and how many there are: two statements.
 */
export async function commitStatusPage(
  em: EntityManager,
  filter: StatusFilter,
  page: number,
  perPage: number,
): Promise<{ total: number; rows: { status: CommitStatus; author: User | null }[] }> {
  const where = statusesWhere(filter);
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from "commit_statuses" s where ${where}`);
  const rows = await queryRows(
    em,
    sql`select to_jsonb(s) as "status", to_jsonb(u) as "author" from "commit_statuses" s left join "users" u on u."id" = s."author_id"
     where ${where} order by s."id" limit ${perPage} offset ${(page - 1) * perPage}`,
  );
  return {
    total: Number(count),
    rows: rows.map((row) => ({ status: rowAs(em, CommitStatus, row.status), author: row.author ? rowAs(em, User, row.author) : null })),
  };
}
