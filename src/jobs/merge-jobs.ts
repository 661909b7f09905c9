import type { Database } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { JobQueue } from './queue.js';

/** The merges of the requests waiting for a commit's pipeline, once it succeeded. */
export const MERGE_WHEN_PIPELINE_SUCCEEDS = 'merge_when_pipeline_succeeds';

export type MergeWhenPipelineSucceedsPayload = { projectId: number; sha: string };

/** A merge request set to merge once the pipeline of its head succeeds: what merging it then takes. */
export interface WaitingMerge {
  id: number;
  project_id: number;
  iid: number;
  head_sha: string;
  merge_user_id: number | null;
  merge_commit_message: string | null;
  should_remove_source_branch: boolean | null;
}

/**
 * Registers the job that merges, as the user who set it, each merge request from the project whose head is the
 * commit and that waits for its pipeline: the merge call itself (`merge`: the route as that user, permissions and
 * refusals included), with the head as `sha`, so that a head that moved meanwhile is not merged. A refusal (the
 * user may no longer merge, a conflict) calls the automatic merge off; anything else fails the job, which runs
 * again, after a restart too.
 */
export function registerMergeJobs(
  jobs: JobQueue,
  env: { db: Database; logger: Logger },
  merge: (userId: number, request: WaitingMerge) => Promise<unknown>,
): void {
  jobs.register<MergeWhenPipelineSucceedsPayload>(MERGE_WHEN_PIPELINE_SUCCEEDS, {
    run: async (job) => {
      const waiting = (await queryRows(
        env.db.rows,
        sql`select "id", "project_id", "iid", "head_sha", "merge_user_id", "merge_commit_message", "should_remove_source_branch"
          from "merge_requests"
          where "source_project_id" = ${job.payload.projectId} and "head_sha" = ${job.payload.sha} and "merge_when_pipeline_succeeds"
          and "state" = 'opened' and "deleted_at" is null order by "id"`,
      )) as unknown as WaitingMerge[];
      for (const request of waiting) {
        try {
          if (request.merge_user_id !== null) {
            await merge(request.merge_user_id, request);
            continue;
          }
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          env.logger.warn(
            `forgekit: the automatic merge of !${request.iid} of project ${request.project_id} was called off: ${error.message}`,
          );
        }
        await queryRows(
          env.db.rows,
          sql`update "merge_requests" set "merge_when_pipeline_succeeds" = false, "merge_user_id" = null where "id" = ${request.id}`,
        );
      }
    },
  });
}
