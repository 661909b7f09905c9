// Runs in archive workers (src/git/archive-worker.ts), loaded from source under vitest with Node's type
// stripping: erasable TypeScript only.

/**
 * tar.bz2 archives, compressed as `git archive --format=tar | bzip2` compresses them for the original: by bzip2's
 * own library (libbzip2 1.0.8 compiled to WebAssembly, the bzip2-wasm package), `-9`, in pieces of PIECE bytes as
 * the tar is read: each piece is a bzip2 stream of its own, the streams one after another, as pbzip2 writes them and
 * as bzip2, tar, Python's bz2 and Go's compress/bzip2 read them. Memory stays bounded whatever the archive's size.
 */

import type Bzip2Library from 'bzip2-wasm';

/** Eight blocks of bzip2 -9: few streams, and a piece's time (about half a second) between answers at most. */
const PIECE = 8 * 900_000;

let library: Promise<Bzip2Library> | undefined;

/** The library, loaded once per thread (its WebAssembly compiled on the first tar.bz2). */
function bzip2Library(): Promise<Bzip2Library> {
  library ??= (async () => {
    const { default: Bzip2 } = await import('bzip2-wasm');
    const loaded = new Bzip2();
    await loaded.init();
    return loaded;
  })();
  return library;
}

/** One piece compressed; room for what bzip2 adds to incompressible input (1 % and 600 bytes, its manual says). */
function compressed(bzip2: Bzip2Library, parts: Uint8Array[], length: number): Uint8Array {
  const input = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
  return bzip2.compress(input, 9, Math.ceil(length * 1.01) + 600);
}

/** A stream of bytes bzip2ed as it is read: a piece's stream once PIECE bytes have come, the rest at the end. */
export async function* bzip2ed(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const bzip2 = await bzip2Library();
  let parts: Uint8Array[] = [];
  let length = 0;
  let wrote = false;
  for await (const chunk of source) {
    parts.push(chunk);
    length += chunk.length;
    if (length >= PIECE) {
      yield compressed(bzip2, parts, length);
      [parts, length, wrote] = [[], 0, true];
    }
  }
  // An empty tar is still one (empty) stream.
  if (length || !wrote) yield compressed(bzip2, parts, length);
}
