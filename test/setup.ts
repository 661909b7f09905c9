/**
 * Before each test file (test/vitest.config.ts `setupFiles`). A file that runs the built package (it names `dist/`:
 * the CLI, the clients, the package itself) waits until `dist/` is current: the first of them in a run builds it when
 * it is missing or older than the sources (scripts/build-if-stale.mjs), and the files that need no build go on
 * meanwhile, rather than the whole run waiting for it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, inject } from 'vitest';

const BUILD_TIMEOUT = 300_000;

// biome-ignore lint/correctness/noEmptyPattern: Vitest requires the context argument to be destructured; this hook uses no fixture
beforeAll(async ({}, suite) => {
  if (readFileSync(suite.file.filepath, 'utf8').includes('dist/')) await builtPackage();
}, BUILD_TIMEOUT);

/** Once per run, whichever worker comes first (it takes the lock); the others wait for what it writes. */
async function builtPackage(): Promise<void> {
  const lock = join(inject('scratch'), 'build');
  const outcome = join(lock, 'outcome.json');
  try {
    mkdirSync(lock);
    // Whole or not at all, for the workers that read it.
    writeFileSync(`${outcome}.part`, JSON.stringify(await build()));
    renameSync(`${outcome}.part`, outcome);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    while (!existsSync(outcome)) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { code, output } = JSON.parse(readFileSync(outcome, 'utf8')) as { code: number | null; output: string };
  if (code !== 0) throw new Error(`the build failed (exit status ${code}):\n${output}`);
}

function build(): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../scripts/build-if-stale.mjs', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: null, output: `${output}${error.message}` }));
    child.once('close', (code) => resolve({ code, output }));
  });
}
