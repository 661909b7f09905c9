import type { TransactionEventArgs } from '@mikro-orm/core';
import { type Clock, systemClock } from '../clock.js';
import type { Database, EntityManager } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { eventInsertSql, recordedEvent } from './statements.js';
import { describeFailure, type Logger } from '../logger.js';
import type { RecordedEvent as RecordedEventShape } from '../types.js';
import type { EventData, EventKind } from './kinds.js';

/** What an event is about, as the original names it: `Issue`, `MergeRequest`, `Note`, `Milestone`, `User`, ... */
export interface EventTarget {
  type: string;
  id: number | null;
  iid?: number | null;
  title?: string | null;
}

/** An event as a write records it. */
export interface NewEvent<K extends EventKind = EventKind> {
  kind: K;
  /** Who did it (null: nobody signed in, or forgekit itself). */
  authorId: number | null;
  projectId?: number | null;
  groupId?: number | null;
  target?: EventTarget | null;
  /** The issue or merge request it concerns (its own, or the one a note is on): who may read the event follows it. */
  issueId?: number | null;
  mergeRequestId?: number | null;
  data: EventData[K];
}

/** An event as it was recorded: what subscribers and consumers receive (the `RecordedEvent` schema), its data typed by its kind. */
export type RecordedEvent<K extends EventKind = EventKind> = Omit<RecordedEventShape, 'kind' | 'data'> & { kind: K; data: EventData[K] };

/** An event of any kind, its data typed by its kind. */
export type AnyRecordedEvent = { [K in EventKind]: RecordedEvent<K> }[EventKind];

/**
 * A rule that must commit with the write whose event it follows (a merge request's heads when its branch moves):
 * it runs in that write's transaction, as the write's caller (`scope`), and its failure fails the write.
 */
export type EventRule<Scope, K extends EventKind = EventKind> = (scope: Scope, event: RecordedEvent<K>) => Promise<void>;

/** An embedder's handler: called once the write has committed. */
export type EventHandler<K extends EventKind = EventKind> = (event: RecordedEvent<K>) => void | Promise<void>;

/**
 * The one record of what happens, and who hears of it (DESIGN.md): a write appends its events with `record`, in its
 * own transaction, so that what commits was recorded and what rolls back never was. No write calls a consumer:
 * - rules (`rule`) run at once, in the write's transaction, and their failure fails the write;
 * - embedders' handlers (`subscribe`) hear of each event once its transaction has committed, in order, in this
 *   process; a handler's failure is logged and never undoes the write;
 * - deferred consumers (src/events/dispatcher.ts) read the committed record on their own, durably.
 */
export class EventBus<Scope> {
  private readonly rules = new Map<EventKind, EventRule<Scope>[]>();
  private readonly handlers = new Map<EventKind | '*', Set<EventHandler>>();
  /** Events recorded in transactions still open, by transaction. */
  private readonly pending = new Map<unknown, AnyRecordedEvent[]>();
  /** The handlers' work so far: each committed transaction's events after the previous one's. */
  private delivering: Promise<void> = Promise.resolve();
  /** Told whenever a transaction that recorded events has committed (the deferred consumers' dispatcher). */
  onCommitted?: () => void;

  constructor(
    db: Database,
    private readonly logger: Logger,
    /** The instance's clock: the events' times. */
    private readonly clock: Clock = systemClock,
  ) {
    db.orm.em.getEventManager().registerSubscriber({
      afterTransactionCommit: ({ transaction }: TransactionEventArgs) => {
        const events = this.pending.get(transaction);
        if (!events) return;
        this.pending.delete(transaction);
        this.committed(events);
      },
      afterTransactionRollback: ({ transaction }: TransactionEventArgs) => {
        this.pending.delete(transaction);
      },
    });
  }

  /**
   * `rule` runs in the transaction of every write that records an event of these kinds, in the order rules were added;
   * the function returned takes it away.
   */
  rule<K extends EventKind>(kinds: readonly K[], rule: EventRule<Scope, K>): () => void {
    const added = rule as unknown as EventRule<Scope>;
    for (const kind of kinds) this.rules.set(kind, [...(this.rules.get(kind) ?? []), added]);
    return () => {
      for (const kind of kinds)
        this.rules.set(
          kind,
          (this.rules.get(kind) ?? []).filter((other) => other !== added),
        );
    };
  }

  /** `handler` hears of every committed event of the kind (`'*'`: of every kind); the function returned stops it. */
  subscribe<K extends EventKind>(kind: K | '*', handler: EventHandler<K>): () => void {
    const set = this.handlers.get(kind) ?? new Set();
    set.add(handler as unknown as EventHandler);
    this.handlers.set(kind, set);
    return () => set.delete(handler as unknown as EventHandler);
  }

  /**
   * Appends the event to the record through `em` (inside its transaction: one insert), then runs the kind's rules
   * as `scope`. Resolves to the event as recorded.
   */
  async record<K extends EventKind>(scope: Scope, em: EntityManager, event: NewEvent<K>): Promise<RecordedEvent<K>> {
    const [row] = await queryRows(em, eventInsertSql(event, this.clock.now()));
    const recorded = recordedEvent(row) as RecordedEvent<K>;
    if (em.isInTransaction()) {
      const transaction = em.getTransactionContext();
      const list = this.pending.get(transaction) ?? [];
      list.push(recorded as AnyRecordedEvent);
      this.pending.set(transaction, list);
    } else {
      this.committed([recorded as AnyRecordedEvent]);
    }
    for (const rule of this.rules.get(event.kind) ?? []) await rule(scope, recorded as RecordedEvent);
    return recorded;
  }

  /** Resolves once the handlers have heard of every event committed so far. */
  delivered(): Promise<void> {
    return this.delivering;
  }

  private committed(events: AnyRecordedEvent[]): void {
    this.onCommitted?.();
    if (!this.handlers.size) return;
    this.delivering = this.delivering.then(async () => {
      for (const event of events) {
        for (const handler of [...(this.handlers.get(event.kind) ?? []), ...(this.handlers.get('*') ?? [])]) {
          try {
            await handler(event);
          } catch (error) {
            this.logger.error(`forgekit: a subscriber to ${event.kind} events failed`, describeFailure(error));
          }
        }
      }
    });
  }
}
