import { join, resolve } from 'node:path';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { raw } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { MikroORM as PostgreSqlMikroORM } from '@mikro-orm/postgresql';
import type { SqlEntityManager, SqlMikroORM } from '@mikro-orm/sql';
import { entities } from './entities/index.js';
import { DataDirLock } from './lock.js';
import { migrations } from './migrations/index.js';

export type EntityManager = SqlEntityManager;

/** Any number, the same in every process: the advisory lock that serialises migrations. */
const MIGRATION_LOCK = 774200;

export interface DatabaseOptions {
  /** A `postgres://` URL: use that PostgreSQL server. */
  url?: string;
  /** A directory for the embedded PGlite database. In memory when neither this nor `url` is given. */
  dataDir?: string;
}

export interface Database {
  orm: SqlMikroORM;
  /** A fresh EntityManager: one per call, never shared between requests. */
  fork(): EntityManager;
  close(): Promise<void>;
}

const common = {
  entities,
  extensions: [Migrator] as (typeof Migrator)[],
  migrations: { migrationsList: migrations, snapshot: false, silent: true, transactional: true, allOrNothing: true },
  discovery: { warnWhenNoEntities: false },
  debug: false,
  // Entities are never read outside a forked EntityManager.
  allowGlobalContext: false,
};

/** Opens the database, applies every pending migration and returns it. */
export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  let lock: DataDirLock | undefined;
  let orm: SqlMikroORM;
  if (options.url) {
    orm = await PostgreSqlMikroORM.init({ ...common, clientUrl: options.url, dbName: databaseName(options.url) });
  } else {
    const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
    if (dataDir) lock = DataDirLock.acquire(dataDir);
    try {
      orm = await PgliteMikroORM.init({
        ...common,
        dbName: dataDir ? join(dataDir, 'pgdata') : 'memory://',
        driverOptions: { extensions: { pg_trgm } },
      });
    } catch (error) {
      lock?.release();
      throw error;
    }
  }
  try {
    if (options.url) {
      // Processes starting together on one PostgreSQL database migrate one after the other. (An embedded
      // database has one process only, and one connection that the lock's transaction would hold.)
      await orm.em.fork().transactional(async (em) => {
        await em.execute(raw(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`));
        await orm.migrator.up({ transaction: em.getTransactionContext() });
      });
    } else {
      await orm.migrator.up();
    }
  } catch (error) {
    await orm.close(true);
    lock?.release();
    throw error;
  }
  return {
    orm,
    fork: () => orm.em.fork() as EntityManager,
    async close() {
      await orm.close(true);
      lock?.release();
    },
  };
}

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  return name || 'postgres';
}
