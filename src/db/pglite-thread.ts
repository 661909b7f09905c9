import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.js';

/** What the stand-in asks of the worker (src/db/pglite-worker.ts), in a transaction when `tx` names one. */
type PgliteRequest = { tx?: number } & (
  | { op: 'query'; sql: string; params?: unknown[]; options?: Record<string, unknown> }
  | { op: 'exec'; sql: string }
  | { op: 'begin' | 'commit' | 'rollback' | 'close' }
  | { op: 'listen'; channel: string }
);

/** A request with the ID its answer comes back under. */
export type PgliteCall = PgliteRequest & { id: number };

/** What the worker sends back: an answer to a call, a notification heard, or that it is ready. */
export type PgliteReply =
  | { id: number; result?: unknown; error?: Record<string, unknown> }
  | { channel: string; payload: string }
  | { ready: true; error?: Record<string, unknown> };

/** What a statement gives, as PGlite gives it. */
interface Results {
  rows: unknown[];
  affectedRows?: number;
  fields: unknown[];
}

/** An error as the worker described it: a PostgreSQL error keeps its `code`, which the ORM turns into its own exceptions. */
function errorFrom(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(String(fields.message)), fields);
}

/**
 * A data directory's PGlite run in a worker thread, standing in for the instance where the ORM (through kysely's
 * PGlite dialect) and forgekit's own statements use it: `query`, `exec`, `transaction`, `listen`, `close`. Each
 * call is one message there and back; the statements run on the worker's thread, so the event loop serves
 * requests meanwhile.
 */
export class PgliteThread {
  private readonly calls = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private readonly listeners = new Map<string, ((payload: string) => void)[]>();
  private lastCall = 0;
  ready = false;
  closed = false;
  /** Settles once the worker's PGlite is open (kysely waits for it). */
  readonly waitReady: Promise<void>;

  private constructor(private readonly worker: Worker) {
    this.waitReady = new Promise((ready, failed) => {
      worker.on('message', (reply: PgliteReply) => {
        if ('ready' in reply) {
          this.ready = true;
          return ready();
        }
        if ('channel' in reply) {
          for (const heard of this.listeners.get(reply.channel) ?? []) heard(reply.payload);
          return;
        }
        const call = this.calls.get(reply.id);
        this.calls.delete(reply.id);
        if (reply.error) call?.reject(errorFrom(reply.error));
        else call?.resolve(reply.result);
      });
      // The worker died, or stopped unasked: every call waiting fails, and so does every later one.
      const stopped = (error: Error) => {
        this.closed = true;
        failed(error);
        for (const call of this.calls.values()) call.reject(error);
        this.calls.clear();
      };
      worker.on('error', stopped);
      worker.on('exit', (code) => stopped(new Error(`the database's thread stopped (exit code ${code})`)));
    });
  }

  /** The database in `dataDir`, opened in a new worker. */
  static async open(dataDir: string): Promise<PgliteThread> {
    const db = new PgliteThread(startWorker('pglite-worker', { workerData: { dataDir } }));
    await db.waitReady;
    return db;
  }

  private call<T>(call: PgliteRequest): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const id = ++this.lastCall;
    return new Promise<T>((resolve, reject) => {
      this.calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...call, id });
    });
  }

  query<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: Record<string, unknown>,
    tx?: number,
  ): Promise<Results & { rows: T[] }> {
    return this.call({ op: 'query', sql, params, options, tx });
  }

  exec(sql: string, tx?: number): Promise<Results[]> {
    return this.call({ op: 'exec', sql, tx });
  }

  /** `work` in a transaction: committed when it succeeds, rolled back when it throws. */
  async transaction<T>(work: (tx: { query: PgliteThread['query']; exec: PgliteThread['exec'] }) => Promise<T>): Promise<T> {
    const id = await this.call<number>({ op: 'begin' });
    const tx = {
      query: <R>(sql: string, params?: unknown[], options?: Record<string, unknown>) => this.query<R>(sql, params, options, id),
      exec: (sql: string) => this.exec(sql, id),
    };
    let result: T;
    try {
      result = await work(tx as never);
    } catch (error) {
      await this.call({ op: 'rollback', tx: id });
      throw error;
    }
    await this.call({ op: 'commit', tx: id });
    return result;
  }

  /** `heard` runs on every notification on `channel`. */
  async listen(channel: string, heard: (payload: string) => void): Promise<() => Promise<void>> {
    const first = !this.listeners.has(channel);
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), heard]);
    if (first) await this.call({ op: 'listen', channel });
    return async () => {
      this.listeners.set(
        channel,
        (this.listeners.get(channel) ?? []).filter((listener) => listener !== heard),
      );
    };
  }

  /** Closes the database (writing what it holds to the data directory), then ends the worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.call({ op: 'close' });
    } finally {
      this.closed = true;
      await this.worker.terminate();
    }
  }
}
