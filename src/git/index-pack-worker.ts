// The pack indexer's worker (src/git/index-pack.ts starts one per pack): indexes the pack file it is given, off
// the main thread's event loop. Erasable TypeScript only: under vitest it runs from source with Node's type stripping.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { indexPack, PackIndexError } from './index-pack.js';

const port = parentPort;
if (!port) throw new Error('forgekit: the pack indexer runs only as a worker thread');
const { path, wanted } = workerData as { path: string; wanted: string[] };
try {
  port.postMessage({ result: indexPack(readFileSync(path), wanted) });
} catch (error) {
  port.postMessage({
    error: { message: error instanceof Error ? error.message : String(error), packIndexError: error instanceof PackIndexError },
  });
}
