import { Readable } from 'node:stream';
import { isBinary } from './diff.js';
import type { ObjectReader } from './object-reader.js';

/** Blobs up to this size are read whole; larger ones are streamed. */
const WHOLE_BLOB_BYTES = 1024 * 1024;

/** What tells text from binary content: its first bytes (isBinary looks at fewer). */
const PROBE_BYTES = 64 * 1024;

/** A blob's bytes, their size, and whether they look binary (a NUL among the first bytes, as git decides). */
export interface BlobStream {
  size: number;
  binary: boolean;
  /** The bytes; destroying it stops the reading. */
  stream: Readable;
}

/**
 * A blob as a stream, or null when `oid` names no blob. Small blobs are read whole; a larger one is inflated as
 * the stream is read (inflating runs on libuv's thread pool), so that memory stays bounded whatever its size.
 * Read through the repository's own reader: its pack indexes are read once, not once a request.
 */
export async function openBlob(reader: ObjectReader, oid: string): Promise<BlobStream | null> {
  const header = await reader.header(oid);
  if (header?.type !== 'blob') return null;
  if (header.size <= WHOLE_BLOB_BYTES) {
    const { content } = await reader.read(oid);
    return { size: header.size, binary: isBinary(content), stream: Readable.from([content], { objectMode: false }) };
  }
  const chunks = reader.contentChunks(oid);
  const head: Buffer[] = [];
  let headSize = 0;
  try {
    while (headSize < PROBE_BYTES) {
      const next = await chunks.next();
      if (next.done) break;
      head.push(next.value);
      headSize += next.value.length;
    }
  } catch (error) {
    await chunks.return(undefined);
    throw error;
  }
  async function* rest(): AsyncGenerator<Buffer> {
    yield* head.splice(0);
    yield* chunks;
  }
  const stream = Readable.from(rest(), { objectMode: false });
  // Read to its end or destroyed (even before its first read): the reading stops.
  stream.once('close', () => void chunks.return(undefined));
  return { size: header.size, binary: isBinary(Buffer.concat(head)), stream };
}
