import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';

/**
 * Repository writes' hand-written statements: the repository's lock, and whether its project takes writes (the
 * repositories themselves are git's, in git/store.ts).
 */

/** The advisory lock class of repositories; the second key is the project's ID. Any number, the same in every process. */
const REPOSITORY_LOCK = 774210;

/** The project's repository locked until the transaction ends. */
export async function takeRepositoryLock(em: EntityManager, projectId: number): Promise<void> {
  await queryRows(em, sql`select pg_advisory_xact_lock(${REPOSITORY_LOCK}, ${projectId})`);
}

/** Whether the project is archived (its repository read-only). */
export async function isArchived(em: EntityManager, projectId: number): Promise<boolean> {
  const [{ archived }] = await queryRows(em, sql`select "archived" from "projects" where "id" = ${projectId}`);
  return archived === true;
}
