import { raw, type EntityName } from '@mikro-orm/core';
import { CompiledQuery, type Kysely } from 'kysely';
import type { EntityManager } from './orm.js';
import type { Sql } from './sql.js';

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
export const rowAs = <T extends object>(em: EntityManager, entity: EntityName<T>, row: unknown): T =>
  rowsAs(em, entity, [row as Record<string, unknown>])[0];

/** The rows a statement reads, as plain objects of the entity's properties. */
export async function readRows<T extends object>(em: EntityManager, entity: EntityName<T>, statement: Sql): Promise<T[]> {
  return rowsAs(em, entity, await queryRows(em, statement));
}

interface Pool {
  totalCount: number;
  query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** PostgreSQL's connection pool by ORM connection; null for PGlite. */
const pools = new WeakMap<object, Promise<Pool | null>>();

function poolOf(em: EntityManager): Promise<Pool | null> {
  const connection = em.getConnection();
  let pool = pools.get(connection);
  if (!pool) {
    // pg's Pool; PGlite's one session is no pool.
    pool = connection
      .getNativeClient()
      .then((client: unknown) => (client && typeof client === 'object' && 'totalCount' in client ? (client as Pool) : null));
    pools.set(connection, pool);
  }
  return pool;
}

/**
 * The rows of a statement, written with the `sql` tag (src/db/sql.ts): its values are sent apart from its text,
 * as bound parameters (`$1`, ...), on both drivers; nothing a caller gives is ever written into SQL. On
 * PostgreSQL outside a transaction it runs straight on the pool, with the ORM's own type parsers: the ORM's path
 * (through kysely) costs more than a short query. In a transaction, and on PGlite (whose one session a transaction
 * holds until it ends, which only that path waits for), on the EntityManager's connection or transaction.
 */
export async function queryRows(em: EntityManager, statement: Sql): Promise<Record<string, unknown>[]> {
  const { text, values } = statement;
  const logger = em.config.getLogger();
  const started = Date.now();
  try {
    const pool = em.isInTransaction() ? null : await poolOf(em);
    let rows: Record<string, unknown>[];
    if (pool) {
      rows = (await pool.query(text, values)).rows;
    } else {
      // The call's transaction when there is one, as the ORM's own statements run in it.
      const executor = (em.getTransactionContext<Kysely<unknown>>() ?? em.getConnection().getClient()) as Kysely<unknown>;
      rows = (await executor.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values))).rows;
    }
    // Logged as the ORM logs its own (the text only: values may be secrets' digests).
    logger.logQuery({ query: text, took: Date.now() - started, results: rows.length, level: 'info' });
    return rows;
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

/** A fragment as a condition of the ORM's own queries (`raw`), its values with it: for lists built by findPage. */
export const ormRaw = (fragment: Sql) => raw(fragment.sql, fragment.values);

/** A relation's key, whether the relation holds an entity or (in a plain row) only its key. */
export const keyOf = (relation: unknown): number =>
  typeof relation === 'object' && relation !== null ? (relation as { id: number }).id : (relation as number);
