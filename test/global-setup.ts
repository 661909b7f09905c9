import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migratedMemoryDataDir } from '../src/database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated in-memory data directory (test/helpers.ts starts in-memory databases from it). */
    memoryTemplate: string;
    /** The same as a data directory on disk (`pgdata` inside), which test/helpers.ts `migratedDataDir` copies. */
    migratedDataDir: string;
    /** What the sampled walks choose by this run (test/helpers.ts `sampled`). */
    seed: number;
    /** A directory for the run's files that outlive a test file (test/helpers.ts `sharedHosting`), removed after the run. */
    scratch: string;
  }
}

/**
 * A migrated database made once for the run rather than once per start: in-memory services start from a copy of
 * it, as do data directories on disk (`forgekit serve --data-dir` and the like), where a new one would spend seconds
 * on initdb and the migrations. On the PostgreSQL suite too, for its in-memory services and data directories.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  project.provide('seed', runSeed());
  const directory = mkdtempSync(join(tmpdir(), 'forgekit-test-template-'));
  const file = join(directory, 'pgdata.tar');
  writeFileSync(file, new Uint8Array(await (await migratedMemoryDataDir()).arrayBuffer()));
  project.provide('memoryTemplate', file);
  // A server started on a data directory opens its `pgdata` as it would one it had made and migrated itself.
  const dataDir = join(directory, 'data');
  mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
  execFileSync('tar', ['-xf', file, '-C', join(dataDir, 'pgdata')], { stdio: ['ignore', 'ignore', 'pipe'] });
  project.provide('migratedDataDir', dataDir);
  const scratch = join(directory, 'scratch');
  mkdirSync(scratch);
  project.provide('scratch', scratch);
  return () => rmSync(directory, { recursive: true, force: true });
}

/** FORGEKIT_TEST_SEED, or a new seed each run, so that the walks try other samples every run; said, to be repeated. */
function runSeed(): number {
  const given = process.env.FORGEKIT_TEST_SEED;
  if (given !== undefined && !/^\d{1,9}$/.test(given)) throw new Error(`FORGEKIT_TEST_SEED takes a whole number below 10^9, not ${given}`);
  const seed = given === undefined ? randomInt(1e9) : Number(given);
  console.log(`forgekit: sampled walks use seed ${seed} (FORGEKIT_TEST_SEED=${seed} repeats them)`);
  return seed;
}
