import { availableParallelism } from 'node:os';
import { Readable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import type { ArchiveSpec } from './archive.js';
import type { FromWorker, ToWorker } from './archive-worker.js';
import { GitError } from './errors.js';
import { startWorker } from '../workers.js';

/**
 * Archives made at once in this process, each by a worker thread of its own: as many as the cores (at most 4),
 * so that archives never queue for a core behind each other, and the event loop competes with them only as
 * one thread among a few.
 */
export const ARCHIVE_WORKERS = Math.max(1, Math.min(availableParallelism(), 4));

/**
 * Archive requests that may wait for a worker. Beyond them a request is refused at once (503 with Retry-After)
 * rather than queued without end: a waiting request costs little, but each holds a connection open, and a burst
 * of them would keep every later one waiting for minutes.
 */
export const ARCHIVE_QUEUE = 16;

/** What a refused request is told to wait, in seconds. */
export const ARCHIVE_RETRY_AFTER = 5;

/** A worker left without work this long is stopped; the next archive starts it again. */
const IDLE_WORKER_MS = 30_000;

/** Read ahead of the client: this much of an archive may wait, made and unsent, in the main thread. */
const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * An archive nobody reads for this long (a client that stopped reading but keeps its connection, a stream an
 * in-process caller dropped) is given up, so that it does not hold its worker for ever.
 */
const UNREAD_ARCHIVE_MS = 60_000;

/** The tree holds more than an archive may (checkArchiveSize). */
export class ArchiveTooLargeError extends GitError {
  override readonly name = 'ArchiveTooLargeError';
  constructor(readonly limit: number) {
    super(`the archive would hold more than ${limit} bytes`);
  }
}

/** Every worker is busy and ARCHIVE_QUEUE requests wait already. */
export class ArchivesBusyError extends GitError {
  override readonly name = 'ArchivesBusyError';
  constructor() {
    super(`${ARCHIVE_WORKERS} archives are being made and ${ARCHIVE_QUEUE} wait`);
  }
}

/** An archive coming from a worker: asks for the next piece whenever the reader wants more. */
class ArchiveStream extends Readable {
  private asked = false;
  private settled = false;
  /** Times the reader asked for more: with what waits unread, what the watchdog calls progress. */
  private reads = 0;
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly slot: WorkerSlot,
    private readonly id: number,
  ) {
    super({ highWaterMark: READ_AHEAD_BYTES });
    // Progress is a read, or bytes taken from what waits: a slow client keeps its archive, a gone one does not.
    let seen = { reads: -1, waiting: -1 };
    this.watchdog = setInterval(() => {
      const now = { reads: this.reads, waiting: this.readableLength };
      // Said as an error to a reader that listens (an HTTP answer's pipeline); an in-process caller that took the
      // stream and never read it only finds it ended: an error nobody listens to would crash its process.
      const stalled = new Error(`the archive was not read for ${UNREAD_ARCHIVE_MS / 1000} s`);
      if (now.reads === seen.reads && now.waiting === seen.waiting) this.destroy(this.listenerCount('error') ? stalled : undefined);
      seen = now;
    }, UNREAD_ARCHIVE_MS / 2);
    this.watchdog.unref();
  }

  override _read(): void {
    this.reads += 1;
    if (this.asked || this.settled) return;
    this.asked = true;
    this.slot.post({ type: 'pull', id: this.id });
  }

  /** A piece (or the end, or a failure) from the worker. */
  receive(message: FromWorker): void {
    if (message.type === 'chunk') {
      this.asked = false;
      // Readable calls _read again while less than its high-water mark waits.
      if (message.data.byteLength) this.push(Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
    } else if (message.type === 'end') {
      this.settled = true;
      this.push(null);
    } else if (message.type === 'failed') {
      this.settled = true;
      this.destroy(new Error(`the archive could not be made: ${message.message}`));
    } else if (message.type === 'stopped') {
      this.settled = true;
    }
  }

  /** The reader went away (a client that disconnected): the worker stops at its next piece. */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearInterval(this.watchdog);
    if (!this.settled) this.slot.post({ type: 'cancel', id: this.id });
    callback(error);
  }
}

/** One worker thread and the archive it makes. */
class WorkerSlot {
  private worker?: Worker;
  private idleTimer?: NodeJS.Timeout;
  /** The archive under way: before `ready`, its start's promise; after, its stream. */
  private current?: { id: number; ready: { resolve(stream: Readable): void; reject(error: Error): void }; stream?: ArchiveStream };

  constructor(private readonly released: (slot: WorkerSlot) => void) {}

  post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  /** Starts an archive; resolves once its size is checked, to the stream of its bytes. */
  start(id: number, gitdir: string, spec: ArchiveSpec): Promise<Readable> {
    clearTimeout(this.idleTimer);
    const worker = (this.worker ??= this.spawn());
    // A busy worker keeps the process alive (an in-process caller reading an archive); an idle one does not.
    worker.ref();
    return new Promise((resolve, reject) => {
      this.current = { id, ready: { resolve, reject } };
      worker.postMessage({ type: 'start', id, gitdir, spec } satisfies ToWorker);
    });
  }

  private spawn(): Worker {
    const worker = startWorker('archive-worker');
    worker.on('message', (message: FromWorker) => this.receive(message));
    // A worker that dies (out of memory, a bug) fails its archive; the next one starts a new worker.
    const died = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // An idle worker is simply gone; a busy one's slot is released with its archive's failure.
      if (this.current) this.finish(error);
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the archive worker stopped (exit code ${code})`)));
    return worker;
  }

  private receive(message: FromWorker): void {
    const current = this.current;
    if (!current || current.id !== message.id) return;
    if (message.type === 'ready') {
      current.stream = new ArchiveStream(this, current.id);
      current.ready.resolve(current.stream);
      return;
    }
    if (current.stream) current.stream.receive(message);
    if (message.type === 'failed' && !current.stream) {
      this.finish(
        message.limit !== undefined
          ? new ArchiveTooLargeError(message.limit)
          : new Error(`the archive could not be made: ${message.message}`),
      );
      return;
    }
    if (message.type === 'end' || message.type === 'failed' || message.type === 'stopped') this.finish();
  }

  /** The archive is over (`error`: it failed before its stream was given out): the worker takes the next one. */
  private finish(error?: Error): void {
    const current = this.current;
    this.current = undefined;
    if (current && !current.stream) current.ready.reject(error ?? new Error('the archive was stopped'));
    else if (current?.stream && error) current.stream.destroy(error);
    const worker = this.worker;
    if (worker) {
      worker.unref();
      this.idleTimer = setTimeout(() => {
        if (this.current || this.worker !== worker) return;
        this.worker = undefined;
        void worker.terminate();
      }, IDLE_WORKER_MS);
      this.idleTimer.unref();
    }
    this.released(this);
  }
}

/**
 * The process's archive workers: ARCHIVE_WORKERS archives are made at once, ARCHIVE_QUEUE more wait for a
 * worker in order, and any beyond are refused with ArchivesBusyError. One pool serves every hosting instance
 * of the process, as they share its cores.
 */
class ArchivePool {
  private readonly idle: WorkerSlot[] = [];
  private readonly waiting: ((slot: WorkerSlot) => void)[] = [];
  private nextId = 1;

  constructor(private readonly size: number) {
    for (let index = 0; index < size; index++) this.idle.push(new WorkerSlot((slot) => this.release(slot)));
  }

  /**
   * The archive's bytes as a stream, once a worker has taken it and checked its size (ArchiveTooLargeError).
   * Destroying the stream stops the worker.
   */
  async archive(gitdir: string, spec: ArchiveSpec): Promise<Readable> {
    const slot = this.idle.pop() ?? (await this.waitForSlot());
    return slot.start(this.nextId++, gitdir, spec);
  }

  /** Archives being made, and requests waiting for a worker. */
  get load(): { running: number; waiting: number } {
    return { running: this.size - this.idle.length, waiting: this.waiting.length };
  }

  private waitForSlot(): Promise<WorkerSlot> {
    if (this.waiting.length >= ARCHIVE_QUEUE) throw new ArchivesBusyError();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: WorkerSlot): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.idle.push(slot);
  }
}

let pool: ArchivePool | undefined;
const processPool = () => (pool ??= new ArchivePool(ARCHIVE_WORKERS));

/** An archive made by the process's pool of workers (see ArchivePool.archive). */
export function makeArchive(gitdir: string, spec: ArchiveSpec): Promise<Readable> {
  return processPool().archive(gitdir, spec);
}

/** How busy the process's archive workers are: archives being made, and requests waiting for a worker. */
export const archivesUnderWay = () => processPool().load;
