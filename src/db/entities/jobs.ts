import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt } from './columns.js';

/**
 * Where a job stands: `queued` until a worker claims it (again after a failed attempt, from `runAt`),
 * `running` while a worker holds its lease, then `finished` or `failed` for good.
 */
export const JOB_STATUSES = ['queued', 'running', 'finished', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Work that outlives the call that asked for it (src/jobs/queue.ts). Workers claim what is due with
 * `FOR UPDATE SKIP LOCKED`, through the two partial indexes: queued jobs by when they may start, running
 * ones by when their lease lapses.
 */
export const Job = defineEntity({
  name: 'Job',
  tableName: 'jobs',
  indexes: [
    { name: 'jobs_queued_index', expression: `create index "jobs_queued_index" on "jobs" ("run_at") where "status" = 'queued'` },
    { name: 'jobs_running_index', expression: `create index "jobs_running_index" on "jobs" ("locked_until") where "status" = 'running'` },
    { properties: ['finishedAt'] },
  ],
  properties: {
    id: p.integer().primary(),
    /** What to run: the name its handler is registered under. */
    kind: p.string().length(64),
    payload: p.json<Record<string, unknown>>(),
    status: p.enum(JOB_STATUSES).default('queued'),
    /** Times a worker has claimed it, interrupted runs included. */
    attempts: p.integer().default(0),
    /** Claims allowed before it is given up, as its kind was registered when it was queued. */
    maxAttempts: p.integer(),
    /** A queued job is not claimed before this. */
    runAt: p.datetime(),
    /** The current claim's token: only that claim's worker may renew, finish or release it. */
    lockedBy: p.string().length(64).nullable(),
    /** The lease: a running job whose worker stopped renewing it is claimed again from then on. */
    lockedUntil: p.datetime().nullable(),
    /** The last failed attempt's error, in short. */
    lastError: p.text().nullable(),
    createdAt: createdAt(),
    finishedAt: p.datetime().nullable(),
  },
});
export type Job = InferEntity<typeof Job>;
