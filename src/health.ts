import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { queryRows } from './db/rows.js';
import { sql } from './db/sql.js';
import type { Environment } from './services/context.js';

/** One check's result, as the original's health checks give it. */
export interface HealthCheck {
  status: 'ok' | 'failed';
  /** What failed. */
  message?: string;
  /** Which storage (`fs_shards_check`). */
  labels?: { shard: string };
}

/**
 * `GET /-/readiness`: whether this process can serve calls: the database answers, every repository storage can be read
 * and written, and the job queue's workers reach their table. `status` is `failed` (and HTTP answers 503) when any is not.
 */
export interface Readiness {
  status: 'ok' | 'failed';
  db_check: HealthCheck;
  queues_check: HealthCheck;
  fs_shards_check: HealthCheck[];
}

/** How long a check may take before it counts as failed: a balancer asks often, and a wedged dependency must not wedge it. */
const CHECK_TIMEOUT_MS = 2_000;

export async function readiness(env: Pick<Environment, 'db' | 'jobs' | 'storages'>): Promise<Readiness> {
  const [db_check, queues_check, fs_shards_check] = await Promise.all([
    check(() => queryRows(env.db.rows, sql`select 1`)),
    check(() => env.jobs.check()),
    Promise.all(
      Object.entries(env.storages).map(async ([shard, directory]) => ({
        ...(await check(() => access(directory, constants.R_OK | constants.W_OK | constants.X_OK))),
        labels: { shard },
      })),
    ),
  ]);
  const failed = [db_check, queues_check, ...fs_shards_check].some((result) => result.status === 'failed');
  return { status: failed ? 'failed' : 'ok', db_check, queues_check, fs_shards_check };
}

/** A readiness whose database is not open yet (`forgekit serve` starting): `reason` says why. */
export function notReady(reason: string): Readiness {
  return {
    status: 'failed',
    db_check: { status: 'failed', message: reason },
    queues_check: { status: 'failed', message: reason },
    fs_shards_check: [],
  };
}

async function check(probe: () => Promise<unknown>): Promise<HealthCheck> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'ok' };
  } catch (error) {
    return { status: 'failed', message: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
