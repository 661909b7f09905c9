import { createHash, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { type EntitySchema, type MigrationObject, raw } from '@mikro-orm/core';
import type { SqlEntityManager, SqlMikroORM } from '@mikro-orm/sql';
import { maintainEvery, type EmbeddedClient } from './embedded-maintenance.js';
import { DataDirLock } from './lock.js';
import { PgliteThread } from './pglite-thread.js';

export type EntityManager = SqlEntityManager;

/** Any numbers, the same in every process: the advisory locks that serialise migrations, and template builds. */
const MIGRATION_LOCK = 774200;
const TEMPLATE_LOCK = 774202;

export interface DatabaseOptions {
  /** A `postgres://` URL: use that PostgreSQL server. */
  url?: string;
  /** A directory for the embedded PGlite database. In memory when neither this nor `url` is given. */
  dataDir?: string;
  /** With `url`: a new database of its own on that server, copied from a migrated template, dropped on `close()`. */
  isolated?: boolean;
  /** With `url`: the most connections this process opens. */
  poolSize?: number;
  /**
   * With `url`, in seconds: to open a connection or wait for one of the pool; a statement's run; its wait for a lock; a
   * session's idling in a transaction (0: no limit).
   */
  connectTimeout?: number;
  statementTimeout?: number;
  lockTimeout?: number;
  idleInTransactionTimeout?: number;
}

/**
 * The backstops of a PostgreSQL session (docs/operations.md): nothing a call does waits for ever. The pool hands out a
 * connection within the connect timeout or fails the call, which answers 503; a statement is cancelled past its run or
 * lock wait; a session that idles inside a transaction (a process that stopped without closing it) is ended by the
 * server, and its locks with it.
 */
const SESSION_DEFAULTS = { poolSize: 10, connectTimeout: 10, statementTimeout: 30, lockTimeout: 30, idleInTransactionTimeout: 60 };

/** The backstops lifted for the rest of a transaction: maintenance work (a migration) takes what it takes. */
export const NO_TIMEOUTS = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout']
  .map((name) => `set_config('${name}', '0', true)`)
  .join(', ');

function poolOptions(options: DatabaseOptions) {
  const { poolSize, connectTimeout, statementTimeout, lockTimeout, idleInTransactionTimeout } = {
    ...SESSION_DEFAULTS,
    ...definedOf(options),
  };
  return {
    max: poolSize,
    connectionTimeoutMillis: connectTimeout * 1000,
    // A peer gone without a word (a host or a network lost) is noticed by TCP keepalive rather than never.
    keepAlive: true,
    // pg leaves a setting of 0 out; the server's own default (none) then holds.
    statement_timeout: statementTimeout * 1000,
    lock_timeout: lockTimeout * 1000,
    idle_in_transaction_session_timeout: idleInTransactionTimeout * 1000,
    onPoolCreated: releaseLostConnections,
  };
}

/** What of pg's Pool and its clients `releaseLostConnections` uses. */
interface PgPool {
  on(event: 'connect' | 'acquire', listener: (client: PgClient) => void): void;
  on(event: 'release', listener: (error: unknown, client: PgClient) => void): void;
}
interface PgClient {
  once(event: 'end', listener: () => void): void;
  release(error?: Error): void;
}

/**
 * A connection that ends while a call holds it goes back to the pool, which drops it and opens another for whoever
 * waits. Without this, a transaction whose connection died (a failover, `pg_terminate_backend`) kept it for ever: kysely
 * releases a transaction's connection only once its ROLLBACK has succeeded, which on a dead connection it never does,
 * and a pool whose connections all went that way made every later call wait for one.
 */
function releaseLostConnections(pool: PgPool): void {
  const held = new WeakSet<PgClient>();
  pool.on('acquire', (client) => held.add(client));
  pool.on('release', (_error, client) => held.delete(client));
  pool.on('connect', (client) =>
    client.once('end', () => {
      if (!held.has(client)) return;
      const release = client.release.bind(client);
      // Whoever held it may still release it: once is enough.
      client.release = () => {};
      release(new Error('the connection ended'));
    }),
  );
}

const definedOf = <T extends object>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;

export interface Database {
  orm: SqlMikroORM;
  /** A PostgreSQL server, which other processes may share (an embedded database has this process only). */
  shared: boolean;
  /** A fresh EntityManager: one per call, never shared between requests. */
  fork(): EntityManager;
  /**
   * The ORM's root EntityManager, for statements that read plain rows (src/db/rows.ts) and nothing else: it
   * holds no entity (MikroORM refuses entity work on it), so every call may share it without forking one.
   */
  rows: EntityManager;
  close(): Promise<void>;
}

/**
 * What the database holds: the entities, and the migrations that make their tables, each as the loading of the module
 * that exports it (src/modules.ts gathers both from the resources' modules).
 */
export interface DatabaseSchema {
  // Typed loosely: the list's inferred type is too long for declaration files.
  // biome-ignore lint/suspicious/noExplicitAny: entities of every shape
  entities: EntitySchema<any, any>[];
  migrations: (() => Promise<Record<string, unknown>>)[];
}

/** The schema the process opens its databases with: one per process, given by the first open. */
let schema: DatabaseSchema | undefined;

function useSchema(given: DatabaseSchema): void {
  if (schema && schema !== given) throw new Error('forgekit: a process opens its databases with one schema');
  schema = given;
}

/**
 * The drivers, the migrator and the migrations, loaded on the first open rather than when forgekit is
 * imported. Once, and one after the other: in the CommonJS build a migration's require() of
 * @mikro-orm/migrations must not meet an import() of the same ES module still in flight.
 */
let modules: ReturnType<typeof loadModules> | undefined;

async function loadModules() {
  const { entities, migrations: loaders } = schema!;
  const migrations: MigrationObject[] = [];
  for (const load of loaders) migrations.push(migrationIn(await load()));
  migrations.sort((a, b) => a.name.localeCompare(b.name));
  const { Migrator } = await import('@mikro-orm/migrations');
  const { MikroORM: PgliteMikroORM } = await import('@mikro-orm/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { MikroORM: PostgreSqlMikroORM } = await import('@mikro-orm/postgresql');
  const options = {
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, snapshot: false, silent: true, transactional: true, allOrNothing: true },
    discovery: { warnWhenNoEntities: false },
    // A test double's snapshots (src/testing/snapshots.ts) are no part of the schema the entities describe.
    schemaGenerator: { ignoreSchema: ['forgekit_snapshots'] },
    debug: false,
    // Entities are never read outside a forked EntityManager.
    allowGlobalContext: false,
  };
  return { migrations, options, PgliteMikroORM, pg_trgm, PostgreSqlMikroORM };
}

function databaseModules() {
  modules ??= loadModules().catch((error: unknown) => {
    modules = undefined;
    throw error;
  });
  return modules;
}

/**
 * A migration as its module exports it, under the name it declares (the one the database records; MikroORM reads it from
 * an instance too): a bundler may rename the class itself. Making one runs nothing: the constructor keeps its arguments.
 */
function migrationIn(module: Record<string, unknown>): MigrationObject {
  const classes = Object.values(module).filter((value): value is MigrationObject['class'] => typeof value === 'function');
  if (classes.length !== 1) throw new Error('forgekit: a migration module exports one migration');
  const { name } = new classes[0](undefined as never, undefined as never);
  if (!name) throw new Error(`the migration ${classes[0].name} declares no name`);
  return { name, class: classes[0] };
}

/** Opens the database, applies every pending migration and returns it. */
export async function openDatabase(given: DatabaseSchema, options: DatabaseOptions = {}): Promise<Database> {
  useSchema(given);
  const { url } = options;
  if (url) return options.isolated ? openIsolatedPostgreSql({ ...options, url }) : openPostgreSql({ ...options, url });
  if (options.dataDir) return openDataDir(resolve(options.dataDir));
  return openInMemory();
}

/** `copyOfTemplate`: a copy of the migrated template (isolated instances), which has every migration already. */
async function openPostgreSql(given: DatabaseOptions & { url: string }, copyOfTemplate = false): Promise<Database> {
  const { PostgreSqlMikroORM, options } = await databaseModules();
  const { url } = given;
  const orm = await PostgreSqlMikroORM.init({ ...options, clientUrl: url, dbName: databaseName(url), driverOptions: poolOptions(given) });
  // Processes starting together on one PostgreSQL database migrate one after the other. (An embedded
  // database has one process only, and one connection that the lock's transaction would hold.)
  const migrate = async () => {
    if (copyOfTemplate) return;
    await orm.em.fork().transactional(async (em) => {
      // Maintenance: a migration, and the wait for another process's, take what they take.
      await em.execute(raw(`select ${NO_TIMEOUTS}`));
      await em.execute(raw(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`));
      await orm.migrator.up({ transaction: em.getTransactionContext() });
    });
  };
  return { ...(await migrated(orm, migrate)), shared: true };
}

/**
 * A data directory's database: PGlite in a worker thread of its own (src/db/pglite-thread.ts), so that its
 * statements leave the event loop to the requests.
 */
async function openDataDir(dataDir: string): Promise<Database> {
  const lock = DataDirLock.acquire(dataDir);
  let thread: PgliteThread | undefined;
  let orm: SqlMikroORM;
  const release = async () => {
    await thread?.close();
    lock.release();
  };
  try {
    thread = await PgliteThread.open(join(dataDir, 'pgdata'));
    orm = await initPglite(join(dataDir, 'pgdata'), { pglite: thread });
  } catch (error) {
    await release();
    throw error;
  }
  return maintained(await migrated(orm, () => orm.migrator.up(), release));
}

async function openInMemory(): Promise<Database> {
  const orm = await initPglite('memory://', { loadDataDir: await migratedMemoryDataDir(schema!) });
  // A copy of the migrated template: it has every migration.
  return maintained(await migrated(orm, async () => {}));
}

/** An embedded database, looked after as autovacuum looks after a server's (src/db/embedded-maintenance.ts). */
async function maintained(database: Database): Promise<Database> {
  const maintenance = maintainEvery((await database.orm.driver.getConnection().getNativeClient()) as EmbeddedClient);
  return {
    ...database,
    async close() {
      await maintenance.stop();
      await database.close();
    },
  };
}

async function initPglite(dbName: string, pglite: { loadDataDir?: Blob; initDbStartParams?: string[]; pglite?: PgliteThread } = {}) {
  const { PgliteMikroORM, pg_trgm, options } = await databaseModules();
  // A function: MikroORM copies options given as an object, and a copy of a Blob is no Blob.
  return PgliteMikroORM.init({ ...options, dbName, driverOptions: () => ({ extensions: { pg_trgm }, ...pglite }) });
}

/** Applies every pending migration, and returns the database; on failure closes what was opened. */
async function migrated(orm: SqlMikroORM, migrate: () => Promise<unknown>, release: () => unknown = () => {}): Promise<Database> {
  try {
    await migrate();
  } catch (error) {
    await orm.close(true);
    await release();
    throw error;
  }
  return {
    orm,
    shared: false,
    fork: () => orm.em.fork() as EntityManager,
    rows: orm.em as EntityManager,
    async close() {
      await orm.close(true);
      await release();
    },
  };
}

/**
 * The data directory of a migrated in-memory database, made once per process: every in-memory database
 * starts as a copy of it. A new PGlite spends seconds in initdb and the migrations; a copy starts in a
 * fraction of that.
 */
let memoryTemplate: Promise<Blob> | undefined;

export function migratedMemoryDataDir(given: DatabaseSchema): Promise<Blob> {
  useSchema(given);
  memoryTemplate ??= makeMemoryTemplate().catch((error: unknown) => {
    memoryTemplate = undefined; // the next database tries again
    throw error;
  });
  return memoryTemplate;
}

/** Tests: start in-memory databases from a data directory `migratedMemoryDataDir()` made in another process. */
export function useMemoryTemplate(dataDir: Blob): void {
  memoryTemplate = Promise.resolve(dataDir);
}

async function makeMemoryTemplate(): Promise<Blob> {
  // Write-ahead log in 1 MB segments rather than 16: every copy's start loads the segment, mostly zeros.
  const orm = await initPglite('memory://', { initDbStartParams: ['--wal-segsize=1'] });
  try {
    await orm.migrator.up();
    const pglite = await orm.driver.getConnection().getNativeClient();
    // An in-memory database is never a template for another: without template0 and template1 a copy is
    // 15 MB smaller and starts about a quarter sooner.
    for (const template of ['template0', 'template1']) {
      await pglite.query(`alter database ${template} is_template false`);
      await pglite.query(`drop database ${template}`);
    }
    // Written out now, so that no copy has write-ahead log to replay when it starts.
    await pglite.query('checkpoint');
    return await pglite.dumpDataDir('none');
  } finally {
    await orm.close(true);
  }
}

/**
 * A new database on the server at `serverUrl`, dropped on `close()`: a spare copy of the migrated template
 * taken by renaming it, or else a copy made now (`CREATE DATABASE ... TEMPLATE`: tens of milliseconds, where
 * migrating an empty database takes seconds). Then spares are made again for the next ones, in the background.
 */
async function openIsolatedPostgreSql(given: DatabaseOptions & { url: string }): Promise<Database> {
  const serverUrl = given.url;
  const name = `forgekit_isolated_${randomBytes(6).toString('hex')}`;
  const template = await onServer(serverUrl, async (execute) => {
    const template = await migratedTemplate(serverUrl, execute);
    if (!(await takeSpare(execute, template, name))) await execute(`create database "${name}" template "${template}"`);
    return template;
  });
  makeSpares(serverUrl, template);
  const drop = () => onServer(serverUrl, (execute) => execute(`drop database if exists "${name}" with (force)`));
  let db: Database;
  try {
    db = await openPostgreSql({ ...given, url: withDatabase(serverUrl, name) }, true);
  } catch (error) {
    await drop();
    throw error;
  }
  return {
    ...db,
    async close() {
      await db.close();
      await drop();
    },
  };
}

/**
 * Copies of a template made ahead, shared by every process on the server: one that takes a spare renames
 * it (which only one can do), so it is never taken twice. A spare left by a process that died is taken
 * by the next.
 */
const SPARES = 1;
const sparePrefix = (template: string) => `${template}_spare_`;

async function takeSpare(execute: (sql: string) => Promise<unknown[]>, template: string, name: string): Promise<boolean> {
  const spares = (await execute(`select datname from pg_database where starts_with(datname, '${sparePrefix(template)}')`)) as {
    datname: string;
  }[];
  for (const { datname } of spares) {
    const taken = await execute(`alter database "${datname}" rename to "${name}"`).then(
      () => true,
      () => false, // another process took it first
    );
    if (taken) return true;
  }
  return false;
}

/** The spares being made, by server: one maker at a time per process. */
const spareMakers = new Map<string, Promise<void>>();

function makeSpares(serverUrl: string, template: string): void {
  if (spareMakers.has(serverUrl)) return;
  const making = onServer(serverUrl, async (execute) => {
    // Spares of an older template (before a migration) are of no use to anyone any more.
    const stale = (await execute(
      `select datname from pg_database where datname ~ '^forgekit_template_[0-9a-f]{16}_spare_' ` +
        `and not starts_with(datname, '${sparePrefix(template)}')`,
    )) as { datname: string }[];
    for (const { datname } of stale) await execute(`drop database if exists "${datname}" with (force)`);
    const count = async () =>
      ((await execute(`select datname from pg_database where starts_with(datname, '${sparePrefix(template)}')`)) as unknown[]).length;
    for (let missing = SPARES - (await count()); missing > 0; missing--) {
      // Copied as files, not through shared buffers: no dirty pages left for the next DROP DATABASE's checkpoint.
      await execute(
        `create database "${sparePrefix(template)}${randomBytes(6).toString('hex')}" template "${template}" strategy file_copy`,
      );
    }
  })
    // A spare is only a head start: without one, the next instance makes its copy itself.
    .catch(() => {})
    .finally(() => spareMakers.delete(serverUrl));
  spareMakers.set(serverUrl, making);
}

/**
 * The name of the server's template database for this set of migrations (a new migration gives a new
 * template), made by the first process that needs it while the others wait on an advisory lock. It is
 * migrated under another name and renamed when complete, so a template that exists is always whole; a
 * build left half-done by a process that died is dropped by the next one.
 */
async function migratedTemplate(serverUrl: string, execute: (sql: string) => Promise<unknown[]>): Promise<string> {
  const { migrations } = await databaseModules();
  const digest = createHash('sha256')
    .update(migrations.map((migration) => migration.name).join('\n'))
    .digest('hex');
  const template = `forgekit_template_${digest.slice(0, 16)}`;
  const building = `${template}_building`;
  const exists = async () => (await execute(`select 1 from pg_database where datname = '${template}'`)).length > 0;
  if (await exists()) return template;
  await execute(`select pg_advisory_lock(${TEMPLATE_LOCK})`);
  try {
    if (await exists()) return template;
    await execute(`drop database if exists "${building}" with (force)`);
    await execute(`create database "${building}"`);
    try {
      await (await openPostgreSql({ url: withDatabase(serverUrl, building) })).close();
      // No connections: one open on a template would make every copy of it fail.
      await execute(`alter database "${building}" with allow_connections false`);
      await execute(`alter database "${building}" rename to "${template}"`);
    } catch (error) {
      await execute(`drop database if exists "${building}" with (force)`);
      throw error;
    }
  } finally {
    await execute(`select pg_advisory_unlock(${TEMPLATE_LOCK})`);
  }
  return template;
}

/** Runs statements on one connection to the database of `serverUrl` (some, like CREATE DATABASE, outside any transaction). */
async function onServer<T>(serverUrl: string, work: (execute: (sql: string) => Promise<unknown[]>) => Promise<T>): Promise<T> {
  const { PostgreSqlMikroORM } = await databaseModules();
  // One connection, so that a session's advisory lock and its unlock meet.
  const orm = await PostgreSqlMikroORM.init({
    entities: [],
    discovery: { warnWhenNoEntities: false },
    clientUrl: serverUrl,
    dbName: databaseName(serverUrl),
    pool: { min: 1, max: 1 },
  });
  try {
    const connection = orm.em.getConnection();
    return await work((sql) => connection.execute(sql));
  } finally {
    await orm.close(true);
  }
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  return name || 'postgres';
}
