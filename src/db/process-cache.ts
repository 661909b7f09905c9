import { AsyncLocalStorage } from 'node:async_hooks';
import type { TransactionEventArgs } from '@mikro-orm/core';
import { listen } from './notifications.js';
import type { Database } from './orm.js';

export interface ProcessCacheOptions {
  /** The NOTIFY channel on which a change is announced to every process on the same PostgreSQL database. */
  channel: string;
  /**
   * The longest a value is used: the bound on how stale it can be should a notification be lost (a
   * connection that died without closing). Normally a change elsewhere is heard within milliseconds. Measured in the
   * process's monotonic time: an age, not a timestamp, which an instance's clock moved by a test leaves alone.
   */
  maxAgeMs: number;
  /** The most values kept; past it, the oldest goes first. */
  maxEntries: number;
}

/**
 * Values read from the database and kept in this process, for what nearly every call reads and almost
 * nothing changes (the application settings, the callers' tokens). All of them are forgotten
 * - in this process, when one of its transactions that may change them ends, committed or rolled back
 *   (`changing`); nothing read meanwhile is kept;
 * - in every process, when a NOTIFY on the channel arrives: from a trigger or a service, whoever wrote
 *   (on PostgreSQL a pooled connection LISTENs; without it nothing is kept, as a change could go unheard);
 * - one by one, `maxAgeMs` after they were read.
 */
/**
 * Set while a cache reads what it keeps: the test suite's statement counts leave these reads out (each is made once in
 * ten seconds at most, whichever call comes first, and would make counts depend on timing).
 */
export const processCacheLoad = new AsyncLocalStorage<true>();

export class ProcessCache<Value> {
  private readonly entries = new Map<string, { value: Value; readAt: number }>();
  /** Bumped whenever the values are forgotten: a read begun before must not store what it read. */
  private generation = 0;
  /** Transactions of this process that may change the values and have not ended. */
  private readonly writers = new Set<unknown>();
  private listening = false;
  private arming?: Promise<void>;

  /** A cache that already LISTENs (an embedded database's LISTEN must not land in a call's transaction). */
  static async open<Value>(db: Database, options: ProcessCacheOptions): Promise<ProcessCache<Value>> {
    const cache = new ProcessCache<Value>(db, options);
    await cache.listen();
    return cache;
  }

  private constructor(
    private readonly db: Database,
    private readonly options: ProcessCacheOptions,
  ) {
    // One subscriber for the cache (forked EntityManagers share the event manager): a changing transaction's end.
    const ended = ({ transaction }: TransactionEventArgs) => {
      if (this.writers.delete(transaction)) this.forget();
    };
    db.orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: ended, afterTransactionRollback: ended });
  }

  /** The value kept under `key`, or the one `load` reads; `undefined` (nothing found) is never kept. */
  async read(key: string, load: () => Promise<Value | undefined>): Promise<Value | undefined> {
    const entry = this.entries.get(key);
    if (entry && performance.now() - entry.readAt < this.options.maxAgeMs) return entry.value;
    // Listening again is not waited for: a read may come inside a call's transaction, which must never wait for a second
    // connection (docs/operations.md). Until it listens, what is read is not kept.
    if (!this.listening)
      this.arming ??= this.listen().then(
        () => (this.arming = undefined),
        () => (this.arming = undefined),
      );
    const generation = this.generation;
    const readAt = performance.now();
    const value = await processCacheLoad.run(true, load);
    if (value !== undefined && generation === this.generation && this.writers.size === 0 && this.listening) {
      this.entries.delete(key);
      this.entries.set(key, { value, readAt });
      if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /** `transaction` may change the values: they are forgotten now, and again once it has committed or rolled back. */
  changing(transaction: unknown): void {
    this.writers.add(transaction);
    this.forget();
  }

  private forget(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Heard changes forget the values; once the listening connection is gone, nothing is kept until it is back. */
  private async listen(): Promise<void> {
    await listen(
      this.db,
      this.options.channel,
      () => this.forget(),
      () => {
        this.listening = false;
        this.forget();
      },
    );
    this.listening = true;
  }
}
