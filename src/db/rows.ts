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

/** One row (a statement's column of `to_jsonb(table)`, say) as a plain object of the entity's properties. */
export const rowAs = <T extends object>(em: EntityManager, entity: EntityName<T>, row: unknown): T => rowsAs(em, entity, [row as Record<string, unknown>])[0];

/** The rows a statement written once (`?` for each value) reads, as plain objects of the entity's properties. */
export async function readRows<T extends object>(em: EntityManager, entity: EntityName<T>, sql: string, values: unknown[]): Promise<T[]> {
  return rowsAs(em, entity, await queryRows(em, sql, values));
}

interface Pool {
  totalCount: number;
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
}

/** PostgreSQL's connection pool by ORM connection; null for PGlite. */
const pools = new WeakMap<object, Promise<Pool | null>>();

function poolOf(em: EntityManager): Promise<Pool | null> {
  const connection = em.getConnection();
  let pool = pools.get(connection);
  if (!pool) {
    // pg's Pool; PGlite's one session is no pool.
    pool = connection.getNativeClient().then((client: unknown) => (client && typeof client === 'object' && 'totalCount' in client ? (client as Pool) : null));
    pools.set(connection, pool);
  }
  return pool;
}

/**
 * The rows of a statement (`?` for each value, written in as MikroORM writes them). On PostgreSQL outside a
 * transaction it runs straight on the pool, with the ORM's own type parsers: the ORM's path (through kysely)
 * costs more than a short query. In a transaction, and on PGlite (whose one session a transaction holds
 * until it ends, which only that path waits for), through the EntityManager.
 */
export async function queryRows(em: EntityManager, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const text = values.length ? em.getPlatform().formatQuery(sql, values) : sql;
  const pool = em.isInTransaction() ? null : await poolOf(em);
  if (!pool) return em.execute<Record<string, unknown>[]>(text);
  // Logged, and failing with MikroORM's exceptions, as on the ORM's own path.
  const started = Date.now();
  try {
    const { rows } = await pool.query(text);
    em.config.getLogger().logQuery({ query: text, took: Date.now() - started, results: rows.length, level: 'info' });
    return rows;
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

/** A relation's key, whether the relation holds an entity or (in a plain row) only its key. */
export const keyOf = (relation: unknown): number => (typeof relation === 'object' && relation !== null ? (relation as { id: number }).id : (relation as number));
