import { clockOf } from '../../clock.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';

/** Branch pushes (API commits too) between two housekeepings of a repository: the original's incremental repack period. */
export const PUSHES_BETWEEN_HOUSEKEEPING = 10;

/**
 * The project's last activity now, and a branch push counted (`branch`): whether it is the one that completes a period
 * of PUSHES_BETWEEN_HOUSEKEEPING (the count starts again).
 */
export async function countPush(em: EntityManager, projectId: number, branch: boolean): Promise<boolean> {
  const [project] = await queryRows(
    em,
    sql`update projects set last_activity_at = ${clockOf(em).now()},
      pushes_since_gc = case when ${branch} then (pushes_since_gc + 1) % ${PUSHES_BETWEEN_HOUSEKEEPING} else pushes_since_gc end
     where id = ${projectId} returning pushes_since_gc`,
  );
  return branch && project?.pushes_since_gc === 0;
}

/** The branch pushes counted since the last housekeeping start again (the project's row is locked until the transaction ends). */
export async function resetPushCount(em: EntityManager, projectId: number): Promise<void> {
  await queryRows(em, sql`update projects set pushes_since_gc = 0 where id = ${projectId}`);
}
