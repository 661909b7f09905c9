import type { SecretBox } from '../auth/secret-box.js';
import type { Database } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { fixedSql, sql } from '../db/sql.js';
import { DEFAULT_BRANCH, RepositoryImportError, type RepositoryStore } from '../git/store.js';
import { type JobQueue, type RunningJob, WORKER_STATEMENT } from './queue.js';

/** Housekeeping's statements are the worker's own, as its claims are: no call makes them. */
const worker = fixedSql(WORKER_STATEMENT);

/** A fork's repository, copied from its source project's. */
export const FORK_REPOSITORY = 'fork_repository';
/** A project's repository, cloned from its `import_url` (stored sealed). */
export const IMPORT_REPOSITORY = 'import_repository';

/** A project's repository packed, pruned and its commit-graph written (src/git/housekeeping.ts). */
export const HOUSEKEEPING = 'housekeeping';

export type ForkRepositoryPayload = { projectId: number; sourceProjectId: number };
export type ImportRepositoryPayload = { projectId: number };
export type HousekeepingPayload = { projectId: number };

/** The project a repository job fills, as it reads it when it starts. */
interface TargetProject {
  id: number;
  storage: string;
  importUrl: string | null;
  defaultBranch: string;
}

interface RepositoryJobsEnvironment {
  db: Database;
  /** Opens the sealed `import_url` (it may hold credentials). */
  secrets: SecretBox;
  repositories: RepositoryStore;
  /**
   * Whether imports may reach local addresses, as it is when the job runs (the application setting may have been
   * turned off since the project was made; the instance's option overrides it).
   */
  localRequestsAllowed(): Promise<boolean>;
}

/**
 * The jobs that fill a new project's repository (a fork, an import) and move its `import_status` from
 * `scheduled` through `started` to `finished`, or to `failed` with an `import_error` that says why in short.
 * A failure of the repository work itself is final (retrying a clone that failed would fail again, later);
 * a job interrupted (a crash, a restart) runs again from the start.
 */
export function registerRepositoryJobs(jobs: JobQueue, env: RepositoryJobsEnvironment): void {
  jobs.register<ForkRepositoryPayload>(FORK_REPOSITORY, {
    run: (job) =>
      fillRepository(env, job, 'The repository could not be copied', async (project, signal) => {
        const [source] = await queryRows(
          env.db.rows,
          sql`select repository_storage from projects where id = ${job.payload.sourceProjectId}`,
        );
        if (!source) throw new RepositoryImportError('The source project was deleted');
        await env.repositories.copy(source.repository_storage as string, job.payload.sourceProjectId, project.storage, project.id, {
          signal,
        });
      }),
    givenUp: async (job) => {
      await markFailed(env, job.payload.projectId, 'The repository could not be copied');
    },
  });
  jobs.register<ImportRepositoryPayload>(IMPORT_REPOSITORY, {
    run: (job) =>
      fillRepository(env, job, 'The repository could not be imported', async (project, signal) => {
        if (!project.importUrl) throw new RepositoryImportError('The project has no import URL');
        const allowLocalRequests = await env.localRequestsAllowed();
        await env.repositories.importFrom(project.storage, project.id, env.secrets.open(project.importUrl), {
          signal,
          defaultBranch: project.defaultBranch,
          allowLocalRequests,
        });
      }),
    givenUp: async (job) => {
      await markFailed(env, job.payload.projectId, 'The repository could not be imported');
    },
  });
  jobs.register<HousekeepingPayload>(HOUSEKEEPING, {
    run: async (job) => {
      const { projectId } = job.payload;
      const [project] = await queryRows(env.db.rows, sql`${worker} select repository_storage from projects where id = ${projectId}`);
      // A project deleted meanwhile has no repository left to keep.
      if (!project) return;
      await env.repositories.housekeep(project.repository_storage as string, projectId, {
        keep: await commitsNamed(env.db, projectId),
        signal: job.signal,
      });
    },
  });
}

/**
 * The commits the database names for a project, which its repository keeps though no reference may reach them (a
 * closed merge request whose branch was deleted, a commit with a pipeline or notes): the original keeps them by refs
 * of its own (`refs/merge-requests/*`, `refs/keep-around/*`).
 */
async function commitsNamed(db: Database, projectId: number): Promise<string[]> {
  const rows = await queryRows(
    db.rows,
    sql`${worker} select sha from (
        select unnest(array[head_sha, start_sha, base_sha, merge_commit_sha]) as sha from merge_requests
          where project_id = ${projectId} or source_project_id = ${projectId}
        union select sha from pipelines where project_id = ${projectId}
        union select commit_sha from commit_notes where project_id = ${projectId}
        union select sha from releases where project_id = ${projectId}
      ) named where sha is not null`,
  );
  return rows.map((row) => row.sha as string);
}

/**
 * Marks the project `started`, does `work`, and marks it `finished`; a failure of `work` marks it `failed`
 * (leaving it an empty repository, as a project made empty has). Nothing is done for a project deleted
 * meanwhile, or settled by an earlier run; a repository written for a project deleted while it was written
 * is removed.
 */
async function fillRepository(
  env: RepositoryJobsEnvironment,
  job: RunningJob<{ projectId: number }>,
  failedMessage: string,
  work: (project: TargetProject, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const [row] = await queryRows(
    env.db.rows,
    sql`update projects set import_status = 'started' where id = ${job.payload.projectId} and import_status in ('scheduled', 'started')
     returning id, repository_storage, import_url, default_branch`,
  );
  if (!row) return;
  const project: TargetProject = {
    id: row.id as number,
    storage: row.repository_storage as string,
    importUrl: row.import_url as string | null,
    defaultBranch: (row.default_branch as string | null) ?? DEFAULT_BRANCH,
  };
  try {
    await work(project, job.signal);
  } catch (error) {
    // Stopped (the instance closing, the lease lost): the job's next run starts over.
    if (job.signal.aborted) throw error;
    if (await markFailed(env, project.id, failureMessage(error, failedMessage))) {
      await env.repositories.create(project.storage, project.id, project.defaultBranch);
    }
    return;
  }
  job.signal.throwIfAborted();
  // The default branch is the one the copied HEAD names, when the repository has it.
  const repository = env.repositories.open(project.storage, project.id);
  const head = await repository.headBranch();
  const defaultBranch = head !== null && (await repository.branch(head)) !== null ? head : null;
  const finished = await queryRows(
    env.db.rows,
    sql`update projects set import_status = 'finished', import_error = null,
      default_branch = coalesce(${defaultBranch}::text, default_branch)
     where id = ${project.id} and import_status = 'started' returning id`,
  );
  if (!finished.length) await env.repositories.remove(project.storage, project.id);
}

/** The project `failed` with `importError`, unless deleted or settled already: whether it was marked. */
async function markFailed(env: RepositoryJobsEnvironment, projectId: number, importError: string): Promise<boolean> {
  const marked = await queryRows(
    env.db.rows,
    sql`update projects set import_status = 'failed', import_error = ${importError}
      where id = ${projectId} and import_status in ('scheduled', 'started') returning id`,
  );
  return marked.length > 0;
}

/** What `import_error` says: an import's own words (which never hold the URL), or the file system's error code. */
function failureMessage(error: unknown, failedMessage: string): string {
  if (error instanceof RepositoryImportError) return error.message;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? `${failedMessage} (${code})` : failedMessage;
}
