// The pack indexer's worker (src/git/index-pack.ts keeps a few): indexes each pack file it is sent, off the main
// thread's event loop, and answers with the request's ID. Erasable TypeScript only: under vitest it runs from source
// with Node's type stripping.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { indexPack, PackIndexError } from './index-pack.js';

const port = parentPort;
if (!port) throw new Error('forgekit: the pack indexer runs only as a worker thread');
port.on('message', ({ id, path, wanted }: { id: number; path: string; wanted: string[] }) => {
  try {
    port.postMessage({ id, result: indexPack(readFileSync(path), wanted) });
  } catch (error) {
    port.postMessage({
      id,
      error: { message: error instanceof Error ? error.message : String(error), packIndexError: error instanceof PackIndexError },
    });
  }
});
