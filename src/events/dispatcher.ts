import { clockOf } from '../clock.js';
import type { Database, EntityManager } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { fixedSql, sql } from '../db/sql.js';
import { describeFailure, type Logger } from '../logger.js';
import type { AnyRecordedEvent } from './bus.js';
import { EVENT_COLUMNS, recordedEvent } from './statements.js';
import type { EventKind } from './kinds.js';

/**
 * A consumer of the record that may wait (deliveries, later notifications): it reads every committed event of its
 * kinds, at least once, in order, after a crash too.
 */
export interface DeferredConsumer {
  /** Its cursor's name in the database: the same across restarts and versions. */
  name: string;
  kinds: readonly EventKind[];
  /**
   * Handles events in the order of the record, in the transaction (`em`) that moves the consumer's cursor past them:
   * what it writes there (the jobs it queues) commits with the cursor. A throw rolls the batch back; it is tried
   * again later, and an event that fails every attempt is logged and passed over.
   */
  handle(event: AnyRecordedEvent, em: EntityManager): Promise<void>;
  /**
   * Whether `handle` (and `prepare`, `flush`) only write through `em`, with no effect outside the transaction: a batch
   * is then handled without a savepoint per event, and one that fails is undone whole and handled again an event at a
   * time, up to the one that failed (nothing of it had been seen outside).
   */
  transactional?: boolean;
  /** Called with a batch's events before they are handled: to read at once what they share. */
  prepare?(events: readonly AnyRecordedEvent[], em: EntityManager): Promise<void>;
  /** Called once a batch's events are handled, before its cursor moves: to write at once what they made. */
  flush?(em: EntityManager): Promise<void>;
}

/** Begins the dispatcher's statements, to tell them apart in the database's activity (as the job workers' are). */
const DISPATCHER_STATEMENT = fixedSql('/* forgekit event dispatcher */');
/** Events one transaction hands over at the most. */
const BATCH = 100;
/** How long the dispatcher gathers events after a pass that handled some: a batch under load, not a pass per write. */
const GATHER_MS = 10;
const MAX_ATTEMPTS = 5;
const MAX_RETRY_DELAY_MS = 60_000;
/**
 * The oldest transaction this database may still be running, as the statement's snapshot saw it: events of
 * transactions below it have all committed or rolled back. The snapshot's running transactions span the server's
 * databases; those seen running in another database (their 32-bit `backend_xid`) cannot write this record and are left
 * out, so that another database's long transaction holds nothing back here. One that ended since the snapshot is no
 * longer seen anywhere and counts as this database's: the horizon only ever errs low.
 */
const OLDEST_RUNNING = sql`(select coalesce(min(x::text::bigint), pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
  from pg_snapshot_xip(pg_current_snapshot()) x
  where x::text::bigint % 4294967296 not in (select a."backend_xid"::text::bigint from pg_stat_activity a
    where a."datname" <> current_database() and a."backend_xid" is not null))`;

interface Registered {
  consumer: DeferredConsumer;
  /** The event its last attempts failed on, how many failed, and when it may try again. */
  failedEventId?: number;
  /** A transactional consumer's batch failed at this event: handled an event at a time until it is passed. */
  aloneUntil?: number;
  failures: number;
  retryAt: number;
}

/**
 * Hands the committed record to the deferred consumers: in the order transactions took their IDs (then the events'),
 * only below the oldest transaction still running, so that an event committed late is never passed over; each
 * consumer's cursor moves in the transaction that handled the events, so a crash repeats a batch, never loses one.
 * Any process may dispatch: a consumer's cursor row is locked while a batch runs (`skip locked`: one process at a
 * time). Woken when this process commits events; on PostgreSQL it also looks every `pollMs` (other processes'
 * events, retries); an embedded database has one process, which looks only when woken or a retry comes due.
 */
export class EventDispatcher {
  private readonly consumers = new Map<string, Registered>();
  private running?: Promise<void>;
  private closing = false;
  private woken = false;
  private wakeUp?: () => void;
  /** Waiters for the next pass of the loop. */
  private readonly passes = new Set<() => void>();

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly pollMs = 5_000,
  ) {}

  /** Adds a consumer; a new one starts from the events committed from now on. */
  add(consumer: DeferredConsumer): void {
    if (this.consumers.has(consumer.name)) throw new Error(`an event consumer named ${consumer.name} exists already`);
    this.consumers.set(consumer.name, { consumer, failures: 0, retryAt: 0 });
    this.wake();
  }

  /** Takes a consumer away: it is handed nothing more (a batch it has begun ends). */
  remove(name: string): void {
    this.consumers.delete(name);
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** New events may be there. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Resolves once every consumer has handled every event committed before the call (or given it up). */
  async drain(): Promise<void> {
    while (await this.behind()) {
      this.wake();
      await new Promise<void>((resolve) => this.passes.add(resolve));
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.wake();
    await this.running;
    for (const pass of this.passes) pass();
  }

  private async loop(): Promise<void> {
    while (!this.closing) {
      this.woken = false;
      let handled = false;
      for (const registered of this.consumers.values()) {
        if (this.closing) break;
        if (registered.retryAt > performance.now()) continue;
        handled = (await this.dispatch(registered)) || handled;
      }
      for (const pass of [...this.passes]) {
        this.passes.delete(pass);
        pass();
      }
      if (!handled) await this.sleep();
      else if (!this.closing) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
    }
  }

  /**
   * One batch of a consumer's events, handled in one transaction with its cursor; whether it handled any. Each event is
   * handled in a savepoint: one that fails is undone alone, the cursor stays before it, and the consumer tries it again
   * later (those before it are not handled twice). A transactional consumer's batch has no savepoints: one that fails
   * is undone whole, and handled again an event at a time up to the one that failed.
   */
  private async dispatch(registered: Registered): Promise<boolean> {
    const { consumer } = registered;
    const alone = registered.aloneUntil !== undefined;
    let failure: { event: AnyRecordedEvent; error: unknown } | undefined;
    let handled = false;
    /** The last event the batch handled or gave up. */
    let passed: number | undefined;
    try {
      handled = await this.db.fork().transactional(async (em) => {
        const cursor = await this.cursor(em, consumer.name);
        if (!cursor) return false;
        const events = (
          await queryRows(
            em,
            sql`${DISPATCHER_STATEMENT} select ${EVENT_COLUMNS}, e."xid"::text as "xid" from "events" e
              where (e."xid", e."id") > (${cursor.xid}::bigint, ${cursor.eventId}) and e."xid" < ${OLDEST_RUNNING}
                and e."kind" = any(${[...consumer.kinds]}) order by e."xid", e."id" limit ${alone ? 1 : BATCH}`,
          )
        ).map((row) => ({ event: recordedEvent(row), xid: row.xid as string }));
        if (!events.length) return false;
        const givenUp = (event: AnyRecordedEvent) => event.id === registered.failedEventId && registered.failures >= MAX_ATTEMPTS;
        // What the batch reads or writes at once failing undoes it: it is handled again an event at a time.
        const whole = async (step: () => Promise<void> | undefined) => {
          try {
            await step();
          } catch (error) {
            failure = { event: events[0].event, error };
            throw error;
          }
        };
        await whole(() =>
          consumer.prepare?.(
            events.filter((entry) => !givenUp(entry.event)).map((entry) => entry.event),
            em,
          ),
        );
        let last: (typeof events)[number] | undefined;
        for (const entry of events) {
          if (givenUp(entry.event)) {
            // Given up after its attempts: passed over.
            this.logger.error(`forgekit: the event consumer ${consumer.name} gave up event ${entry.event.id} (${entry.event.kind})`);
          } else if (consumer.transactional) {
            try {
              await consumer.handle(entry.event, em);
            } catch (error) {
              failure = { event: entry.event, error };
              throw error;
            }
          } else {
            try {
              await em.transactional((savepoint) => consumer.handle(entry.event, savepoint));
            } catch (error) {
              failure = { event: entry.event, error };
              break;
            }
          }
          last = entry;
        }
        if (!last) return false;
        passed = last.event.id;
        await whole(() => consumer.flush?.(em));
        await queryRows(
          em,
          sql`${DISPATCHER_STATEMENT} update "event_cursors" set "xid" = ${last.xid}::bigint, "event_id" = ${last.event.id},
            "updated_at" = ${clockOf(em).now()} where "consumer" = ${consumer.name}`,
        );
        return true;
      });
    } catch (error) {
      if (this.closing) return false;
      if (!failure) {
        this.logger.warn(`forgekit: the event consumer ${consumer.name} could not read the record`, describeFailure(error));
        registered.retryAt = performance.now() + this.pollMs;
        return false;
      }
      // A transactional consumer's batch, undone: the events before the one that failed are handled again alone, at once.
      if (!alone) {
        registered.aloneUntil = failure.event.id;
        return true;
      }
    }
    if (!failure) {
      registered.failures = 0;
      registered.failedEventId = undefined;
      if (handled && passed === registered.aloneUntil) registered.aloneUntil = undefined;
      return handled;
    }
    const { event, error } = failure;
    registered.failures = event.id === registered.failedEventId ? registered.failures + 1 : 1;
    registered.failedEventId = event.id;
    registered.retryAt = performance.now() + Math.min(1000 * 4 ** (registered.failures - 1), MAX_RETRY_DELAY_MS);
    this.logger.warn(
      `forgekit: the event consumer ${consumer.name} failed on event ${event.id} (${event.kind}), attempt ${registered.failures}`,
      describeFailure(error),
    );
    return handled;
  }

  /**
   * The consumer's cursor, locked for this transaction; made at the end of the record for a new consumer. Null while
   * another process holds it.
   */
  private async cursor(em: EntityManager, name: string): Promise<{ xid: string; eventId: number } | null> {
    const locked = () =>
      queryRows(
        em,
        sql`${DISPATCHER_STATEMENT} select "xid"::text as "xid", "event_id" from "event_cursors" where "consumer" = ${name}
          for update skip locked`,
      );
    let [row] = await locked();
    // None, or another process holds it: placed (when new), and looked at again.
    if (!row) {
      await placeCursor(em, name);
      [row] = await locked();
    }
    return row ? { xid: row.xid as string, eventId: row.event_id as number } : null;
  }

  /** Whether a consumer has committed events left to handle (or to give up). */
  async behind(): Promise<boolean> {
    for (const { consumer } of this.consumers.values()) {
      const [row] = await queryRows(
        this.db.rows,
        sql`${DISPATCHER_STATEMENT} select exists (select 1 from "events" e join "event_cursors" c on c."consumer" = ${consumer.name}
          where (e."xid", e."id") > (c."xid", c."event_id") and e."kind" = any(${[...consumer.kinds]})) as "behind"`,
      );
      // A consumer without a cursor yet starts from its first pass: nothing is behind it.
      if (row.behind) return true;
    }
    return false;
  }

  private sleep(): Promise<void> {
    if (this.woken || this.closing) return Promise.resolve();
    // Retries wait in the process's own time: a consumer's back-off is no timestamp, and moving the clock leaves it alone.
    const now = performance.now();
    const retries = [...this.consumers.values()].map((registered) => registered.retryAt).filter((at) => at > now);
    const untilRetry = retries.length ? Math.min(...retries) - now : undefined;
    const wait = this.db.shared ? Math.min(this.pollMs, untilRetry ?? this.pollMs) : untilRetry;
    return new Promise((resolve) => {
      const timer = wait === undefined ? undefined : setTimeout(done, wait);
      const dispatcher = this;
      function done() {
        clearTimeout(timer);
        dispatcher.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

/**
 * A new consumer's cursor, at the end of the record (nothing is done for one that has it already). Placed in the
 * transaction of a write that makes the consumer needed (the first hook), it hears of every event committed after.
 */
export async function placeCursor(em: EntityManager, name: string): Promise<void> {
  await queryRows(
    em,
    sql`${DISPATCHER_STATEMENT} insert into "event_cursors" ("consumer", "xid", "event_id", "updated_at")
      values (${name}, ${OLDEST_RUNNING} - 1, 2147483647, ${clockOf(em).now()}) on conflict do nothing`,
  );
}
