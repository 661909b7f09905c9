// An archive worker (src/git/archive-pool.ts starts them): makes one archive at a time, off the main thread's
// event loop, and sends it in pieces only as fast as the main thread asks for them. Erasable TypeScript only:
// under vitest it runs from source with Node's type stripping.
import { parentPort } from 'node:worker_threads';
import { ArchiveLimitError, archiveChunks, checkArchiveSize, type ArchiveSpec } from './archive.js';
import { ObjectReader, PackCache } from './object-reader.js';

/** What the pool asks. */
export type ToWorker =
  | { type: 'start'; id: number; gitdir: string; spec: ArchiveSpec }
  | { type: 'pull'; id: number }
  | { type: 'cancel'; id: number };

/** What a worker answers: `ready` once the size is checked, then a `chunk` per pull, then `end`; or `failed`; `stopped` after a cancel. */
export type FromWorker =
  | { type: 'ready'; id: number }
  | { type: 'chunk'; id: number; data: Uint8Array }
  | { type: 'end'; id: number }
  | { type: 'stopped'; id: number }
  | {
      type: 'failed';
      id: number;
      message: string;
      stack?: string /** The limit the tree is past, when that is the failure. */;
      limit?: number;
    };

/** Gathered into one message per pull: big enough that messages cost little, small enough to bound memory. */
const MESSAGE_BYTES = 256 * 1024;
/**
 * What has been gathered goes after this long, however little: a format that makes few bytes slowly (bzip2 of a
 * repetitive tree) keeps the answer moving, so that it is never taken for a reader that stopped (archive-pool.ts).
 */
const MESSAGE_WAIT_MS = 1000;

const port = parentPort;
if (!port) throw new Error('forgekit: the archive worker runs only as a worker thread');
const send = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

interface Job {
  id: number;
  cancelled: boolean;
  /** Pulls asked for and not yet answered. */
  pulls: number;
  /** Wakes the job when a pull or a cancel arrives. */
  wake?: () => void;
}

let job: Job | undefined;

/** Repositories whose readers a worker keeps between archives: their pack indexes read once, not once an archive. */
const KEPT_READERS = 8;
/** A kept reader unused this long lets go of its packs, so that a removed repository's files are not held open. */
const READER_IDLE_MS = 60_000;
/**
 * What the worker's readers keep of their packs, shared: as much as one archive's reader kept before, as every worker of the pool keeps
 * one.
 */
const packCache = new PackCache(8 * 1024 * 1024);
/** The kept readers, the least recently used first (a Map keeps its order of insertion). */
const readers = new Map<string, { reader: ObjectReader; idle?: NodeJS.Timeout }>();

function letGo(gitdir: string): void {
  const kept = readers.get(gitdir);
  if (!kept) return;
  readers.delete(gitdir);
  clearTimeout(kept.idle);
  kept.reader.release();
}

function readerOf(gitdir: string): ObjectReader {
  const kept = readers.get(gitdir) ?? { reader: new ObjectReader(gitdir, packCache) };
  readers.delete(gitdir);
  readers.set(gitdir, kept);
  clearTimeout(kept.idle);
  kept.idle = setTimeout(() => letGo(gitdir), READER_IDLE_MS).unref();
  if (readers.size > KEPT_READERS) letGo(readers.keys().next().value!);
  return kept.reader;
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'start') {
    job = { id: message.id, cancelled: false, pulls: 0 };
    void run(job, message.gitdir, message.spec);
    return;
  }
  if (!job || job.id !== message.id) return;
  if (message.type === 'pull') job.pulls += 1;
  else job.cancelled = true;
  job.wake?.();
});

/** Until the main thread asks for more (or cancels). */
function nextPull(current: Job): Promise<void> {
  if (current.pulls > 0 || current.cancelled) return Promise.resolve();
  return new Promise((resolve) => (current.wake = resolve));
}

async function run(current: Job, gitdir: string, spec: ArchiveSpec): Promise<void> {
  const reader = readerOf(gitdir);
  let chunks: AsyncGenerator<Uint8Array> | undefined;
  try {
    await checkArchiveSize(reader, spec.tree, spec.limit);
    if (current.cancelled) return send({ type: 'stopped', id: current.id });
    send({ type: 'ready', id: current.id });
    chunks = archiveChunks(reader, spec);
    for (;;) {
      await nextPull(current);
      current.wake = undefined;
      if (current.cancelled) return send({ type: 'stopped', id: current.id });
      current.pulls -= 1;
      const gathered: Uint8Array[] = [];
      let size = 0;
      let finished = false;
      const since = Date.now();
      while (size < MESSAGE_BYTES && !current.cancelled && !(size > 0 && Date.now() - since > MESSAGE_WAIT_MS)) {
        const next = await chunks.next();
        if (next.done) {
          finished = true;
          break;
        }
        gathered.push(next.value);
        size += next.value.length;
      }
      if (current.cancelled) return send({ type: 'stopped', id: current.id });
      // A buffer of its own, handed over without a copy.
      const data = new Uint8Array(size);
      let offset = 0;
      for (const piece of gathered) {
        data.set(piece, offset);
        offset += piece.length;
      }
      send({ type: 'chunk', id: current.id, data }, [data.buffer]);
      if (finished) return send({ type: 'end', id: current.id });
    }
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    send({
      type: 'failed',
      id: current.id,
      message: failure.message,
      stack: failure.stack,
      limit: error instanceof ArchiveLimitError ? error.limit : undefined,
    });
  } finally {
    await chunks?.return(undefined).catch(() => {});
    if (job === current) job = undefined;
  }
}
