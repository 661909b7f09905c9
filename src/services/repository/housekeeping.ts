import type { ProjectInScope } from '../../auth/policies/project.js';
import type { EntityManager } from '../../db/orm.js';
import { ConflictError } from '../../errors.js';
import { HOUSEKEEPING } from '../../jobs/repository-jobs.js';
import type { JobQueue } from '../../jobs/queue.js';
import { Service } from '../service.js';
import { resetPushCount } from './housekeeping-store.js';

export class HousekeepingService extends Service {
  /**
   * POST /projects/:id/housekeeping (its maintainers): the repository's housekeeping queued, answered by its job's ID as
   * the original answers; 409 while one is queued or running, in the original's words.
   */
  async start(scoped: ProjectInScope): Promise<string> {
    const projectId = scoped.project.id;
    await resetPushCount(this.em, projectId);
    const id = await queueHousekeeping(this.ctx.env.jobs, this.em, projectId);
    if (id === null) throw new ConflictError('Somebody already triggered housekeeping for this project in the past 1440 minutes');
    return String(id);
  }
}

/** Queues the repository's housekeeping (src/git/housekeeping.ts) unless it is queued or running already: the job's ID, or null. */
export const queueHousekeeping = (jobs: JobQueue, em: EntityManager, projectId: number): Promise<number | null> =>
  jobs.enqueueOnce(em, HOUSEKEEPING, { projectId });
