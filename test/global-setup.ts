import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migratedMemoryDataDir } from '../src/db/orm.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated in-memory data directory (test/helpers.ts starts in-memory databases from it). */
    memoryTemplate?: string;
  }
}

/**
 * Made once for the run rather than once per test file: each file runs in a process of its own, and a
 * process that had to make it would spend seconds on initdb and the migrations. Not on PostgreSQL, where
 * the few in-memory services there are make their own.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (process.env.FORGEKIT_TEST_DATABASE_URL) return undefined;
  const directory = mkdtempSync(join(tmpdir(), 'forgekit-test-template-'));
  const file = join(directory, 'pgdata.tar');
  writeFileSync(file, new Uint8Array(await (await migratedMemoryDataDir()).arrayBuffer()));
  project.provide('memoryTemplate', file);
  return () => rmSync(directory, { recursive: true, force: true });
}
