import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from './orm.js';

/**
 * Rows as the database answers them (column names), as plain objects of an entity's properties: dates as
 * `Date`, a relation as its key. Nothing is created or tracked, so such a row is only read: hot read paths
 * use it where building the query and managing entities would cost more than the query itself.
 */
export function rowsAs<T extends object>(em: EntityManager, entity: EntityName<T>, rows: Record<string, unknown>[]): T[] {
  const meta = em.getMetadata().get(entity);
  const driver = em.getDriver();
  return rows.map((row) => driver.mapResult(row as never, meta) as T);
}

/** The rows a statement written once (`?` for each value) reads, as plain objects of the entity's properties. */
export async function readRows<T extends object>(em: EntityManager, entity: EntityName<T>, sql: string, values: unknown[]): Promise<T[]> {
  return rowsAs(em, entity, await em.execute<Record<string, unknown>[]>(sql, values));
}

/** A relation's key, whether the relation holds an entity or (in a plain row) only its key. */
export const keyOf = (relation: unknown): number => (typeof relation === 'object' && relation !== null ? (relation as { id: number }).id : (relation as number));
