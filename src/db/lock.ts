import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

/**
 * An exclusive lock on an embedded-database directory. PGlite runs inside one process, so a second
 * process opening the same directory would corrupt it.
 *
 * The lock is the operating system's own (SQLite's exclusive lock on `forgekit-lock.sqlite`, a POSIX or Windows
 * file lock): it is released whenever its process ends, `kill -9` included, so no stale lock can outlive it
 * and nothing depends on process ids (a container's PID 1 restarts as PID 1).
 */
export class DataDirLock {
  private constructor(private readonly database: DatabaseSync) {}

  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const database = new (sqlite().DatabaseSync)(join(dataDir, 'forgekit-lock.sqlite'));
    try {
      // Held until the connection closes; a second taker, in this process or another, fails at once.
      database.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;');
    } catch (error) {
      database.close();
      if ((error as { errcode?: number }).errcode !== SQLITE_BUSY) throw error;
      throw new Error(
        `The data directory ${dataDir} is in use by another forgekit process or service. ` +
          'An embedded database can be opened by one process only; stop that process, use another ' +
          '--data-dir, or run several processes on PostgreSQL (--database-url).',
      );
    }
    return new DataDirLock(database);
  }

  release(): void {
    if (this.database.isOpen) this.database.close();
  }
}

const SQLITE_BUSY = 5;

let loaded: typeof import('node:sqlite') | undefined;

/** node:sqlite, loaded without its one-time "experimental" warning: forgekit only borrows its file lock. */
function sqlite(): typeof import('node:sqlite') {
  if (loaded) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).startsWith('SQLite is an experimental feature')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    loaded = process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  return loaded;
}
