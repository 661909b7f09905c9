import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { ConflictError } from '../../errors.js';
import { HOUSEKEEPING } from '../../jobs/repository-jobs.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { ProjectInScope } from '../../auth/policies/project.js';
import { Service } from '../service.js';

/** Branch pushes (API commits too) between two housekeepings of a repository: the original's incremental repack period. */
export const PUSHES_BETWEEN_HOUSEKEEPING = 10;

export class HousekeepingService extends Service {
  /**
   * POST /projects/:id/housekeeping (its maintainers): the repository's housekeeping queued, answered by its job's ID as
   * the original answers; 409 while one is queued or running, in the original's words.
   */
  async start(scoped: ProjectInScope): Promise<string> {
    const projectId = scoped.project.id;
    await queryRows(this.em, sql`update projects set pushes_since_gc = 0 where id = ${projectId}`);
    const id = await queueHousekeeping(this.ctx.env.jobs, this.em, projectId);
    if (id === null) throw new ConflictError('Somebody already triggered housekeeping for this project in the past 1440 minutes');
    return String(id);
  }
}

/** Queues the repository's housekeeping (src/git/housekeeping.ts) unless it is queued or running already: the job's ID, or null. */
export async function queueHousekeeping(jobs: JobQueue, em: EntityManager, projectId: number): Promise<number | null> {
  const pending = await queryRows(
    em,
    sql`select id from jobs where kind = ${HOUSEKEEPING} and status in ('queued', 'running')
      and payload @> ${JSON.stringify({ projectId })}::jsonb limit 1`,
  );
  return pending.length ? null : jobs.enqueue(em, HOUSEKEEPING, { projectId });
}
