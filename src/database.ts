import { DATABASE_SCHEMA } from './api/modules.js';
import { type Database, type DatabaseOptions, migratedMemoryDataDir as memoryDataDirOf, openDatabase as openWith } from './db/orm.js';

/** forgekit's database: the tables of every module (src/api/modules.ts), migrated on open. */

/** Opens the database, applies every pending migration and returns it. */
export const openDatabase = (options: DatabaseOptions = {}): Promise<Database> => openWith(DATABASE_SCHEMA, options);

/** The data directory of a migrated in-memory database (what in-memory databases start as copies of). */
export const migratedMemoryDataDir = (): Promise<Blob> => memoryDataDirOf(DATABASE_SCHEMA);

export { useMemoryTemplate, type Database } from './db/orm.js';
