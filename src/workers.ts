import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Where this module is: a built bundle (dist/index.js or .cjs) or its source (vitest, the benchmarks). */
const here = typeof __filename === 'string' ? pathToFileURL(__filename) : new URL(import.meta.url);

/** Each worker file's source, from src/. */
const SOURCES = {
  'archive-worker': 'git/archive-worker',
  'index-pack-worker': 'git/index-pack-worker',
  'pglite-worker': 'db/pglite-worker',
};

/**
 * A worker thread running one of forgekit's worker files: the built file beside the bundle (tsup.config.ts builds
 * each), or else the TypeScript source, run with Node's type stripping and a resolver that finds `.ts` for the
 * sources' `.js` imports (so a worker file and what it imports hold erasable TypeScript only).
 */
export function startWorker(name: keyof typeof SOURCES, workerOptions: Pick<WorkerOptions, 'workerData'> = {}): Worker {
  const options = { ...workerOptions, execArgv: workerExecArgv() };
  const built = new URL(`${name}.js`, here);
  if (existsSync(fileURLToPath(built))) return new Worker(built, options);
  const source = new URL(`${SOURCES[name]}.ts`, here).href;
  const resolveSources = `require('node:module').registerHooks({ resolve(specifier, context, next) {
    try { return next(specifier, context); } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
      return next(specifier.slice(0, -3) + '.ts', context);
    }
  } });
  import(${JSON.stringify(source)});`;
  return new Worker(resolveSources, { ...options, eval: true });
}

/**
 * The process's Node.js flags, which a worker inherits, but `--input-type`: a worker runs a file, and Node.js refuses
 * that flag for anything but `-e` (a program run as `node --input-type=module -e ...` could not start its workers).
 */
function workerExecArgv(): string[] {
  const flags: string[] = [];
  for (let index = 0; index < process.execArgv.length; index++) {
    const flag = process.execArgv[index];
    if (flag === '--input-type') index++;
    else if (!flag.startsWith('--input-type=')) flags.push(flag);
  }
  return flags;
}
