import type { ProjectInScope } from '../../auth/abilities.js';
import type { CommitStatus as CommitStatusRow, Pipeline, PipelineStatus, User } from '../../db/entities/index.js';
import { MERGE_WHEN_PIPELINE_SUCCEEDS } from '../../jobs/merge-jobs.js';
import { mergesWaitFor } from '../work-items/merge-request-store.js';
import { keyOf } from '../../db/rows.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import { historyOf } from '../../git/history.js';
import type { Repository } from '../../git/repository.js';
import type { CommitStatus, CommitStatusState, CreateCommitStatusInput, ListCommitStatusesQuery } from '../../schemas/commit-statuses.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { presentUserBasic } from '../present/users.js';
import type { View } from '../present/view.js';
import { REFUSALS } from './refusals.js';
import {
  commitStatusPage,
  findPipelineOfCommit,
  insertCommitStatus,
  insertPipeline,
  latestPipelineOfRef,
  latestStatuses,
  lockPipelines,
  openStatusOf,
  updateCommitStatus,
  updatePipelineStatus,
  type LatestStatus,
} from './status-store.js';
import { Service } from '../service.js';
import { CommitsService } from './commits.js';

export type { LatestStatus };

/** The stage of every posted status, as the original files them. */
const EXTERNAL_STAGE = 'external';

const iso = (date: Date | string | null | undefined): string | null => (date ? new Date(date).toISOString() : null);

/** A status in the answer's shape; `author` null once its user is deleted. */
export function presentCommitStatus(status: CommitStatusRow, author: User | null, view: View): CommitStatus {
  return {
    id: status.id,
    sha: status.sha,
    ref: status.ref ?? null,
    status: status.status,
    name: status.name,
    target_url: status.targetUrl ?? null,
    description: status.description ?? null,
    created_at: iso(status.createdAt)!,
    started_at: iso(status.startedAt),
    finished_at: iso(status.finishedAt),
    allow_failure: status.allowFailure,
    coverage: status.coverage === null || status.coverage === undefined ? null : Number(status.coverage),
    author: author ? presentUserBasic(author, view) : null,
    pipeline_id: keyOf(status.pipeline),
  };
}

/** What a state posted does to the status it updates (`null`: a new status, `created`): the original's state machine. */
export function statusTransition(
  current: 'pending' | 'running' | null,
  state: CommitStatusState,
  now: Date,
): { status: CommitStatusState; startedAt?: Date; finishedAt?: Date } {
  switch (state) {
    case 'pending':
      // `enqueue` leaves only `created`.
      if (current) throw new BadRequestError(current === 'pending' ? REFUSALS.enqueueFromPending : REFUSALS.enqueueFromRunning);
      return { status: 'pending' };
    case 'running':
      // `enqueue` (quietly refused once pending), then `run`, which leaves only `pending`.
      if (current === 'running') throw new BadRequestError(REFUSALS.runFromRunning);
      return { status: 'running', startedAt: now };
    default:
      // `success`, `drop` and `cancel` leave `created`, `pending` and `running`.
      return { status: state, finishedAt: now };
  }
}

/**
 * A pipeline's status from its latest statuses, as the original composes it: failures that are allowed are left
 * out (and make an otherwise empty pipeline `success`); all `success` (or skipped) is `success`; `success` with
 * `canceled` is `canceled`; nothing started yet is `pending`; anything running or pending is `running`; any
 * other failure is `failed`.
 */
export function compositeStatus(statuses: LatestStatus[]): PipelineStatus {
  const ignored = (status: LatestStatus) =>
    status.allowFailure && (status.status === 'failed' || status.status === 'canceled' || status.status === 'manual');
  const relevant = statuses.filter((status) => !ignored(status));
  const warnings = statuses.some((status) => status.allowFailure && (status.status === 'failed' || status.status === 'canceled'));
  const count = (state: PipelineStatus) => relevant.filter((status) => status.status === state).length;
  const [all, created, success, manual, pending, running, skipped, canceled] = [
    relevant.length,
    ...(['created', 'success', 'manual', 'pending', 'running', 'skipped', 'canceled'] as const).map(count),
  ];
  if (all === skipped && warnings) return 'success';
  if (all === skipped) return 'skipped';
  if (all === success) return 'success';
  if (all === created) return 'created';
  if (all === success + skipped) return 'success';
  if (all === success + skipped + canceled) return 'canceled';
  if (all === created + skipped + pending) return 'pending';
  if (running + pending > 0) return 'running';
  if (manual > 0) return 'manual';
  if (created > 0) return 'running';
  return 'failed';
}

/**
 * Where a pipeline goes when its statuses compose to `composite`: the original's pipeline events (`enqueue`
 * makes a finished pipeline `running` again; `created` is no event), with the times its transitions set.
 */
export function pipelineTransition(
  current: PipelineStatus,
  composite: PipelineStatus,
  now: Date,
): { status: PipelineStatus; startedAt?: Date; finishedAt?: Date } {
  let status = current;
  if (composite === 'pending') {
    if (current === 'created' || current === 'skipped') status = 'pending';
    else if (current === 'success' || current === 'failed' || current === 'canceled') status = 'running';
  } else if (composite !== 'created') {
    status = composite;
  }
  if (status === current) return { status };
  return {
    status,
    ...((current === 'created' || current === 'pending') && status === 'running' ? { startedAt: now } : {}),
    ...(status === 'success' || status === 'failed' || status === 'canceled' ? { finishedAt: now } : {}),
  };
}

/** `target_url` as the original validates it: an http or https URL. */
function isWebUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}

export class CommitStatusesService extends Service {
  /**
   * POST /projects/:id/statuses/:sha: the status of `name` in the pipeline of the commit and ref (the latest, or a
   * new one) is updated when the caller's status of that name there is still pending or running, otherwise a new
   * status is made (the older one is then no longer the latest); the pipeline's status follows in the same
   * transaction.
   */
  async create(scoped: ProjectInScope, revision: string, input: CreateCommitStatusInput): Promise<CommitStatus> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const commit = await new CommitsService(this.ctx).commitOf(repo, revision);
    const name = input.name ?? input.context ?? 'default';
    const problems: Record<string, string[]> = {};
    if (name.trim() === '') problems.name = ["can't be blank"];
    if (input.target_url !== undefined && !isWebUrl(input.target_url)) problems.target_url = ['must be a valid URL'];
    if (Object.keys(problems).length) throw new BadRequestError(problems);

    const em = this.ctx.em;
    const projectId = scoped.project.id;
    const userId = this.ctx.currentUser.id;
    await lockPipelines(em, projectId);
    let pipeline: Pipeline | undefined;
    if (input.pipeline_id !== undefined) {
      // Later clients name the pipeline; its ref is the status's unless another is given (none of the commit's: a new one).
      pipeline = await findPipelineOfCommit(em, projectId, commit.oid, input.pipeline_id, input.ref);
    }
    const ref = input.ref ?? pipeline?.ref ?? (await this.firstBranchContaining(repo, commit.oid));
    if (ref === null) throw new NotFoundError('References for commit');
    if (input.pipeline_id === undefined) pipeline = await latestPipelineOfRef(em, projectId, commit.oid, ref);
    const now = this.ctx.now();
    pipeline ??= await insertPipeline(em, projectId, commit.oid, ref, userId, now);

    const existing = await openStatusOf(em, pipeline.id, name, userId);
    const next = statusTransition(existing ? existing.status : null, input.state, now);
    const columns = {
      target_url: input.target_url,
      description: input.description,
      coverage: input.coverage,
      started_at: next.startedAt,
      finished_at: next.finishedAt,
    };
    const status = existing
      ? await updateCommitStatus(em, existing.id, next.status, now, columns)
      : await insertCommitStatus(
          em,
          {
            projectId,
            pipelineId: pipeline.id,
            sha: commit.oid,
            ref,
            name,
            stage: EXTERNAL_STAGE,
            status: next.status,
            authorId: userId,
            now,
          },
          columns,
        );
    await this.updatePipeline(pipeline, now);
    return presentCommitStatus(status, this.ctx.currentUser as User, await this.ctx.view());
  }

  /**
   * GET /projects/:id/repository/commits/:sha/statuses: the statuses of the commit's pipelines, oldest first; only
   * the latest of each name in each pipeline unless `all`. A page costs two statements whatever its size.
   */
  async list(scoped: ProjectInScope, revision: string, query: ListCommitStatusesQuery & PageQuery): Promise<Page<CommitStatus>> {
    const commit = await new CommitsService(this.ctx).commitOf(this.ctx.repositoryOf(scoped.project), revision);
    // The page asked for, clamped as every list clamps it.
    const { page, perPage } = pageOf([], query);
    const view = await this.ctx.view();
    const filter = { projectId: scoped.project.id, sha: commit.oid, ref: query.ref, stage: query.stage, name: query.name, all: query.all };
    const { total, rows } = await commitStatusPage(view.rows, filter, page, perPage);
    const items = rows.map((row) => presentCommitStatus(row.status, row.author, view));
    return { items, total, page, perPage };
  }

  /** The first branch, by name, whose history has the commit (where the original files a status given no ref); null for none. */
  private async firstBranchContaining(repo: Repository, oid: string): Promise<string | null> {
    const branches = (await repo.branches()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const branch of branches) {
      if (branch.oid === oid || (await historyOf(repo, branch.oid)).includes(oid)) return branch.name;
    }
    return null;
  }

  /** The pipeline's status (and its times) from its latest statuses, one per name. */
  private async updatePipeline(pipeline: Pipeline, now: Date): Promise<void> {
    const next = pipelineTransition(pipeline.status, compositeStatus(await latestStatuses(this.ctx.em, pipeline.id)), now);
    if (next.status === pipeline.status) return;
    await updatePipelineStatus(this.ctx.em, pipeline.id, next, now);
    await this.ctx.record({
      kind: 'pipeline.updated',
      authorId: this.ctx.currentUser.id,
      projectId: keyOf(pipeline.project),
      target: { type: 'Pipeline', id: pipeline.id, title: null },
      data: { status: next.status, previous_status: pipeline.status },
    });
    // Merge requests waiting for it merge by themselves, in a job that outlives this call.
    if (next.status === 'success' && (await mergesWaitFor(this.ctx.em, keyOf(pipeline.project), pipeline.sha))) {
      await this.ctx.env.jobs.enqueue(this.ctx.em, MERGE_WHEN_PIPELINE_SUCCEEDS, { projectId: keyOf(pipeline.project), sha: pipeline.sha });
    }
  }
}
