import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An exclusive lock on an embedded-database directory. PGlite runs inside one process, so a second
 * process opening the same directory would corrupt it: the lock file names the owner, and a lock left
 * by a process that no longer runs is taken over.
 */
export class DataDirLock {
  private constructor(private readonly file: string) {}

  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, 'forgekit.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(file, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new DataDirLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = Number.parseInt(readFileSync(file, 'utf8'), 10);
        if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
          throw new Error(
            `The data directory ${dataDir} is in use by another forgekit process (pid ${owner}). ` +
              'An embedded database can be opened by one process only; stop that process, use another ' +
              '--data-dir, or run several processes on PostgreSQL (--database-url).',
          );
        }
        if (owner === process.pid) {
          throw new Error(`The data directory ${dataDir} is already open in this process.`);
        }
        rmSync(file, { force: true }); // stale: its process is gone
      }
    }
    throw new Error(`Could not lock the data directory ${dataDir}.`);
  }

  release(): void {
    rmSync(this.file, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
