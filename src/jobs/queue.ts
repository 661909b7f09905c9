import { randomUUID } from 'node:crypto';
import { DriverException, type TransactionEventArgs } from '@mikro-orm/core';
import type { JobStatus } from '../db/entities/index.js';
import { listen } from '../db/notifications.js';
import type { Database, EntityManager } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { fixedSql, sql, type Sql } from '../db/sql.js';
import { type Clock, systemClock } from '../clock.js';
import { describeFailure, type Logger } from '../logger.js';

/** Announces on every process's database that a job was queued, released or settled. */
export const JOBS_CHANNEL = 'forgekit_jobs';
/**
 * Begins the statements workers make on their own, unasked by any call (claims, lease renewals, polls): to
 * tell them apart in the database's activity, and from a call's statements when those are counted.
 */
export const WORKER_STATEMENT = '/* forgekit job worker */';
/** WORKER_STATEMENT, to begin a statement with. */
const worker = fixedSql(WORKER_STATEMENT);

const KIND_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** Payloads name what to work on (IDs); the work's data stays in its own tables. */
const MAX_PAYLOAD_BYTES = 16 * 1024;
const MAX_ERROR_LENGTH = 1000;
/** Settled jobs are kept this long (for `settled` and for whoever looks), then deleted. */
const KEEP_SETTLED_DAYS = 7;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const MAX_RETRY_DELAY_MS = 5 * 60 * 1000;

/** A job's arguments: plain JSON (without NUL characters, which PostgreSQL's jsonb refuses). */
export type JobPayload = Record<string, unknown>;

/** What a handler is given for one run of a job. */
export interface RunningJob<Payload extends JobPayload = JobPayload> {
  id: number;
  payload: Payload;
  /** 1 on the first run; runs that were interrupted count. */
  attempt: number;
  /**
   * Aborted when the hosting instance closes, or when the job's lease was lost (another worker may run it
   * now): stop soon, and write nothing more.
   */
  signal: AbortSignal;
}

/** How jobs of one kind are run. A run may be cut short by a crash and repeated: it must be safe to run again. */
export interface JobHandler<Payload extends JobPayload = JobPayload> {
  /** The work; a throw fails the attempt, which is retried (after a delay) until the attempts are used up. */
  run(job: RunningJob<Payload>): Promise<void>;
  /** Runs allowed, interrupted ones included, before the job is given up (3 when not given). */
  maxAttempts?: number;
  /** What a job leaves once it is given up: its last attempt failed (`error` says why) or was interrupted. */
  givenUp?(job: { id: number; payload: Payload }, error: string): Promise<void>;
  /**
   * Jobs of this kind with the same payload run one at a time, in the order they were queued, in every process
   * (a hook's deliveries); `enqueueOnce` then passes over only a queued one, since a running one may have finished
   * its work already.
   */
  serial?: boolean;
  /**
   * Whether `drain` waits for jobs of this kind (true when not given). Not for hook deliveries, which wait on other
   * servers for as long as those fail: nothing an embedder waits for.
   */
  drained?: boolean;
  /**
   * Jobs of this kind that one process runs at once, in slots of their own beside the queue's `concurrency` (hook
   * deliveries, which wait on other servers: a slow receiver holds up no other work).
   */
  concurrency?: number;
}

/** A job that has ended for good. */
export interface JobOutcome {
  id: number;
  kind: string;
  status: 'finished' | 'failed';
  /** Why the last attempt failed: for a failed job, and for one that finished after a failed attempt. */
  error: string | null;
}

export interface JobQueueOptions {
  /** Jobs this process runs at once. */
  concurrency?: number;
  /** How long a claim holds without renewal; a running job's lease is renewed every third of it. */
  leaseMs?: number;
  /**
   * On PostgreSQL, how often workers look for due jobs without being woken: for retries coming due, leases
   * that lapsed in a process that died, and a notification lost with its connection. (An embedded database
   * has this process only, which knows when it must look.) And how often waiters look again.
   */
  pollMs?: number;
  /** How long closing waits for the running jobs to stop once told to; past it they are abandoned to their lease. */
  closeGraceMs?: number;
  /** The delay before attempt `attempt + 1`, after attempt `attempt` failed. */
  retryDelayMs?(attempt: number): number;
  /**
   * The instance's clock (the system's when not given): when jobs are due, when leases lapse, when settled jobs go. Tell
   * the queue when it moves (`clockMoved`): what came due meanwhile runs.
   */
  clock?: Clock;
}

interface ClaimedJob {
  id: number;
  kind: string;
  payload: JobPayload;
  attempts: number;
  maxAttempts: number;
  /** The claim's token (`locked_by`): it alone may renew, settle or release the job. */
  token: string;
}

type RegisteredHandler = JobHandler & { maxAttempts: number };

/**
 * Whether a queued job `j` of a serial kind waits while one of its kind and payload runs (it is neither claimed nor
 * due meanwhile: the end of the running one wakes the workers). A job runs while its lease holds at `now`, and whatever
 * its lease says while this process runs it (`mine`: the clock may have been moved past its lease).
 */
const waitsForItsTurn = (serial: string[], now: Sql, mine: number[]) =>
  sql`(j.kind = any(${serial}) and exists (select 1 from jobs r where r.kind = j.kind and r.payload = j.payload
    and r.status = 'running' and (r.locked_until > ${now} or r.id = any(${mine}::int[])) and r.id <> j.id))`;

/** The slots of the kinds without their own, in `JobQueue#running`. */
const SHARED = '';

/** The running job's lease renewal found it claimed by another worker. */
class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** Closing the instance stopped the job. */
class QueueClosingError extends Error {
  override readonly name = 'QueueClosingError';
}

/**
 * Jobs stored in the database, queued inside the transaction of the write that needs them and run by workers
 * in every process on that database:
 * - a worker claims a due job with one statement (`FOR UPDATE SKIP LOCKED`), which makes it `running`
 *   under a lease that it renews while the job runs. A job whose process died is claimed again once its
 *   lease lapses; an embedded database (one process) takes back every lease when it opens;
 * - workers are woken when a transaction that queued a job commits (in this process directly, in the others
 *   by NOTIFY), and otherwise look every `pollMs` on PostgreSQL; an embedded database is looked at again only
 *   when its next retry comes due, so an idle instance makes no statement;
 * - a failed attempt is retried after a growing delay until the kind's attempts are used up, then the job
 *   is `failed` with its error, and the kind's `givenUp` runs;
 * - closing stops the workers and tells the running jobs to stop; those that do are released for the next
 *   process to take at once.
 */
export class JobQueue {
  private readonly handlers = new Map<string, RegisteredHandler>();
  private readonly running = new Map<number, { controller: AbortController; done: Promise<void>; slots: string }>();
  /** Transactions of this process that queued jobs: the workers are woken when one commits. */
  private readonly queuing = new Set<unknown>();
  /** Who waits for the next change (a job queued or settled); each also stops waiting after `pollMs`. */
  private readonly waiting = new Set<() => void>();
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly closeGraceMs: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly clock: Clock;
  private listening = false;
  private arming?: Promise<void>;
  private woken = false;
  private wakeWorkers?: () => void;
  private workers?: Promise<void>;
  private closing = false;
  private closed = false;
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    options: JobQueueOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 5_000;
    this.closeGraceMs = options.closeGraceMs ?? 10_000;
    this.retryDelayMs = options.retryDelayMs ?? ((attempt) => Math.min(1000 * 4 ** (attempt - 1), MAX_RETRY_DELAY_MS));
    this.clock = options.clock ?? systemClock;
    db.orm.em.getEventManager().registerSubscriber({
      afterTransactionCommit: ({ transaction }: TransactionEventArgs) => {
        if (this.queuing.delete(transaction)) this.changed();
      },
      afterTransactionRollback: ({ transaction }: TransactionEventArgs) => {
        this.queuing.delete(transaction);
      },
    });
  }

  /** Jobs of `kind` are run by `handler` in this process, and may be queued from it. */
  register<Payload extends JobPayload>(kind: string, handler: JobHandler<Payload>): void {
    if (!KIND_PATTERN.test(kind)) throw new Error(`invalid job kind: ${kind}`);
    if (this.handlers.has(kind)) throw new Error(`jobs of kind ${kind} already have a handler`);
    this.handlers.set(kind, { ...(handler as JobHandler), maxAttempts: handler.maxAttempts ?? 3 });
  }

  /** The workers start claiming jobs. */
  start(): void {
    this.workers ??= this.work();
  }

  /**
   * Queues a job through `em`: inside its transaction when it has one, so that the job exists exactly when
   * the write that needs it commits, and is run once it has (not before `runAt`, when given). Resolves to the job's ID.
   */
  async enqueue(em: EntityManager, kind: string, payload: JobPayload, options: { runAt?: Date } = {}): Promise<number> {
    const handler = this.handlers.get(kind);
    if (!handler) throw new Error(`no handler is registered for jobs of kind ${kind}`);
    const json = JSON.stringify(payload);
    if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) throw new Error(`a job's payload is limited to ${MAX_PAYLOAD_BYTES} bytes`);
    const now = this.now();
    const [{ id }] = await queryRows(
      em,
      sql`with job as (insert into jobs (kind, payload, status, attempts, max_attempts, run_at, created_at)
         values (${kind}, ${json}::jsonb, 'queued', 0, ${handler.maxAttempts},
           coalesce(${options.runAt ?? null}::timestamptz, ${now}), ${now})
         returning id)
       select id, pg_notify(${JOBS_CHANNEL}, '') from job`,
    );
    if (em.isInTransaction()) this.queuing.add(em.getTransactionContext());
    else this.changed();
    return id as number;
  }

  /**
   * Queues a job as `enqueue` does, unless one of that kind with the same payload is queued or running already (a
   * repository's housekeeping, a hook's deliveries): the new job's ID, or null. Two callers at once may both queue one;
   * such jobs must be harmless to run twice.
   */
  async enqueueOnce(em: EntityManager, kind: string, payload: JobPayload): Promise<number | null> {
    return (await this.enqueueEachOnce(em, kind, [payload]))[0] ?? null;
  }

  /** `enqueueOnce` for each of the payloads, in one statement: the new jobs' IDs. */
  async enqueueEachOnce(em: EntityManager, kind: string, payloads: JobPayload[]): Promise<number[]> {
    const handler = this.handlers.get(kind);
    if (!handler) throw new Error(`no handler is registered for jobs of kind ${kind}`);
    if (!payloads.length) return [];
    const texts = payloads.map((payload) => JSON.stringify(payload));
    if (texts.some((json) => Buffer.byteLength(json) > MAX_PAYLOAD_BYTES))
      throw new Error(`a job's payload is limited to ${MAX_PAYLOAD_BYTES} bytes`);
    // A running job of a serial kind may have finished its work already: only a queued one stands for a new one.
    const statuses = handler.serial ? ['queued'] : ['queued', 'running'];
    const now = this.now();
    const rows = await queryRows(
      em,
      sql`with job as (insert into jobs (kind, payload, status, attempts, max_attempts, run_at, created_at)
         select ${kind}, p.payload, 'queued', 0, ${handler.maxAttempts}, ${now}, ${now}
         from (select distinct payload from unnest(${texts}::jsonb[]) as t(payload)) p
         where not exists (select 1 from jobs j where j.kind = ${kind} and j.status = any(${statuses}) and j.payload = p.payload)
         returning id)
       select id, pg_notify(${JOBS_CHANNEL}, '') from job`,
    );
    if (rows.length) {
      if (em.isInTransaction()) this.queuing.add(em.getTransactionContext());
      else this.changed();
    }
    return rows.map((row) => row.id as number);
  }

  /**
   * Resolves once job `id` has finished or failed, whichever process ran it. Never inside a transaction
   * of an embedded database: the job needs the one session that transaction holds.
   */
  async settled(id: number): Promise<JobOutcome> {
    for (;;) {
      const change = this.nextChange();
      try {
        await this.keepListening();
        const [job] = await queryRows(this.db.rows, sql`select id, kind, status, last_error from jobs where id = ${id}`);
        if (!job) throw new Error(`forgekit: there is no job ${id}`);
        const status = job.status as JobStatus;
        if (status === 'finished' || status === 'failed')
          return { id, kind: job.kind as string, status, error: job.last_error as string | null };
        await change.happened;
      } finally {
        change.cancel();
      }
    }
  }

  /**
   * Resolves once no job is queued or running, in any process on the database (retries waiting for their time
   * included), but of the kinds not `drained` unless `everyKind`.
   */
  async drain(options: { everyKind?: boolean } = {}): Promise<void> {
    const passedOver = options.everyKind ? [] : [...this.handlers].filter(([, handler]) => handler.drained === false).map(([kind]) => kind);
    for (;;) {
      const change = this.nextChange();
      try {
        await this.keepListening();
        const [{ pending }] = await queryRows(
          this.db.rows,
          sql`select exists (select 1 from jobs where status in ('queued', 'running') and kind <> all(${passedOver})) as pending`,
        );
        if (!pending) return;
        await change.happened;
      } finally {
        change.cancel();
      }
    }
  }

  /**
   * Stops claiming, tells the running jobs to stop and waits for them (up to `closeGraceMs`); a job that
   * stopped is released for the next process to run at once, one that did not is left to its lease. Nothing
   * is written once this has resolved.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.wake();
    await this.workers;
    for (const { controller } of this.running.values()) controller.abort(new QueueClosingError('the hosting instance is closing'));
    let graceTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.running.values()].map(({ done }) => done)),
      new Promise((resolve) => (graceTimer = setTimeout(resolve, this.closeGraceMs))),
    ]);
    clearTimeout(graceTimer);
    this.closed = true;
    this.changed();
  }

  private async work(): Promise<void> {
    // One process has this database: whatever it held when it stopped was interrupted.
    if (!this.db.shared) {
      await this.attempt('taking back interrupted jobs', () =>
        queryRows(this.db.rows, sql`${worker} update jobs set locked_until = ${this.now()} where status = 'running'`),
      );
    }
    while (!this.closing) {
      await this.attempt('listening for jobs', () => this.keepListening());
      // At capacity: until a running job ends.
      const kinds = this.claimableKinds();
      if (!kinds.length) {
        await this.sleep(this.db.shared ? this.pollMs : undefined);
        continue;
      }
      const job = await this.attempt('claiming a job', () => this.claim(kinds));
      if (job) {
        this.runClaimed(job);
        continue;
      }
      // The database failed: try again later.
      if (job === undefined) {
        await this.sleep(this.pollMs);
        continue;
      }
      if (performance.now() - this.prunedAt > PRUNE_EVERY_MS) await this.attempt('deleting old jobs', () => this.prune());
      await this.sleep(this.db.shared ? this.pollMs : await this.untilNextDue());
    }
  }

  /**
   * The time now, `laterMs` on, in a statement: the database server's `now()` while the clock reads the system's time
   * (every process of a fleet then agrees on leases and due times, whatever its host's clock), else the clock's.
   */
  private now(laterMs = 0): Sql {
    if (this.clock.systemTime?.()) return laterMs ? sql`now() + ${laterMs}::float8 * interval '1 millisecond'` : sql`now()`;
    return sql`${new Date(this.clock.now().getTime() + laterMs)}::timestamptz`;
  }

  /** How long until the next queued job of a kind this process runs is due (none: undefined). */
  private async untilNextDue(): Promise<number | undefined> {
    if (!this.handlers.size) return undefined;
    const now = this.now();
    const waiting = waitsForItsTurn(this.serialKinds(), now, [...this.running.keys()]);
    const rows = await this.attempt('looking for the next due job', () =>
      queryRows(
        this.db.rows,
        sql`${worker} select (extract(epoch from min(run_at) - ${now}) * 1000)::float8 as wait from jobs j
          where status = 'queued' and kind = any(${[...this.handlers.keys()]}) and not ${waiting}`,
      ),
    );
    if (!rows) return this.pollMs;
    const wait = rows[0].wait as number | null;
    return wait === null ? undefined : Math.max(0, Math.ceil(wait));
  }

  /** Runs `work`; a failure (the database unreachable, say) is logged, and the next round tries again. */
  private async attempt<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      if (!this.closed) this.logger.warn(`forgekit: ${what} failed`, describeFailure(error));
      return undefined;
    }
  }

  /** Whether the workers run and the queue's table answers (the readiness check's `queues_check`). */
  async check(): Promise<void> {
    if (this.closing) throw new Error('the queue is closing');
    if (!this.workers) throw new Error('the workers have not started');
    await queryRows(this.db.rows, sql`${worker} select 1 from jobs limit 1`);
  }

  /** Listening for the announcements of other processes, again once the listening connection has gone. */
  private async keepListening(): Promise<void> {
    if (this.listening) return;
    await (this.arming ??= this.listen().finally(() => (this.arming = undefined)));
  }

  private async listen(): Promise<void> {
    await listen(
      this.db,
      JOBS_CHANNEL,
      () => this.changed(),
      () => (this.listening = false),
    );
    this.listening = true;
  }

  /** The oldest due job of a kind this process runs, now `running` under a lease of this claim; null when none is due. */
  private serialKinds(): string[] {
    return [...this.handlers].filter(([, handler]) => handler.serial).map(([kind]) => kind);
  }

  /** The kinds with a free slot: those of their own, or the shared ones. */
  private claimableKinds(): string[] {
    const taken = new Map<string, number>();
    for (const { slots } of this.running.values()) taken.set(slots, (taken.get(slots) ?? 0) + 1);
    return [...this.handlers]
      .filter(([kind, handler]) =>
        handler.concurrency === undefined ? (taken.get(SHARED) ?? 0) < this.concurrency : (taken.get(kind) ?? 0) < handler.concurrency,
      )
      .map(([kind]) => kind);
  }

  private async claim(kinds: string[]): Promise<ClaimedJob | null> {
    if (!kinds.length) return null;
    const serial = this.serialKinds().filter((kind) => kinds.includes(kind));
    const token = randomUUID();
    const now = this.now();
    // A job this process runs is alive whatever its lease says (the clock may have been moved past it): never claimed again here.
    const mine = [...this.running.keys()];
    const [row] = await queryRows(
      this.db.rows,
      sql`${worker} update jobs set status = 'running', attempts = attempts + 1, locked_by = ${token},
        locked_until = ${this.now(this.leaseMs)}
       where id = (
         select id from jobs j
         where ((status = 'queued' and run_at <= ${now}) or (status = 'running' and locked_until <= ${now}
             and id <> all(${mine}::int[])))
           and kind = any(${kinds})
           and not ${waitsForItsTurn(serial, now, mine)}
         order by id limit 1 for update skip locked)
       returning id, kind, payload, attempts, max_attempts`,
    );
    if (!row) return null;
    const payload = typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload;
    return {
      id: row.id as number,
      kind: row.kind as string,
      payload,
      attempts: row.attempts as number,
      maxAttempts: row.max_attempts as number,
      token,
    };
  }

  private runClaimed(job: ClaimedJob): void {
    const controller = new AbortController();
    const done = this.execute(job, controller)
      .catch((error: unknown) => {
        if (!this.closed) this.logger.error(`forgekit: settling job ${job.id} failed`, describeFailure(error));
      })
      .finally(() => {
        this.running.delete(job.id);
        this.changed();
      });
    this.running.set(job.id, { controller, done, slots: this.handlers.get(job.kind)?.concurrency === undefined ? SHARED : job.kind });
  }

  private async execute(job: ClaimedJob, controller: AbortController): Promise<void> {
    const handler = this.handlers.get(job.kind)!;
    const renewal = setInterval(() => void this.renew(job, controller), this.leaseMs / 3);
    let failure: unknown;
    try {
      if (job.attempts > job.maxAttempts) throw new Error(`interrupted ${job.attempts - 1} times`);
      await handler.run({ id: job.id, payload: job.payload, attempt: job.attempts, signal: controller.signal });
    } catch (error) {
      failure = error ?? new Error('failed');
    } finally {
      clearInterval(renewal);
    }
    // Abandoned past the closing grace: the database is gone, and the lease hands the job to the next process.
    if (this.closed) return;
    if (failure === undefined) {
      await this.settle(job, sql`status = 'finished', finished_at = ${this.now()}`);
      return;
    }
    if (controller.signal.aborted) {
      // Stopped by closing: the attempt is given back. (A lost lease leaves the job to its new holder.)
      if (controller.signal.reason instanceof QueueClosingError)
        await this.settle(job, sql`status = 'queued', run_at = ${this.now()}, attempts = attempts - 1`);
      return;
    }
    const error = shortError(failure);
    this.logger.warn(`forgekit: job ${job.id} (${job.kind}) failed its attempt ${job.attempts}`, describeFailure(failure));
    if (job.attempts < job.maxAttempts) {
      await this.settle(
        job,
        sql`status = 'queued', run_at = ${this.now(this.retryDelayMs(job.attempts))},
          last_error = ${error}`,
      );
    } else {
      // Before the job is failed: whoever waits for it finds what it leaves.
      await this.attempt(`giving up job ${job.id}`, async () => handler.givenUp?.({ id: job.id, payload: job.payload }, error));
      await this.settle(job, sql`status = 'failed', finished_at = ${this.now()}, last_error = ${error}`);
    }
  }

  /**
   * Ends this claim of the job with `changes` (and no lease), and announces it; false when the claim was no
   * longer this worker's.
   */
  private async settle(job: ClaimedJob, changes: Sql): Promise<boolean> {
    const rows = await queryRows(
      this.db.rows,
      sql`${worker} with job as (update jobs set ${changes}, locked_by = null, locked_until = null
        where id = ${job.id} and locked_by = ${job.token} returning id)
       select id, pg_notify(${JOBS_CHANNEL}, '') from job`,
    );
    return rows.length > 0;
  }

  private async renew(job: ClaimedJob, controller: AbortController): Promise<void> {
    if (controller.signal.aborted) return;
    const rows = await this.attempt(`renewing job ${job.id}'s lease`, () =>
      queryRows(
        this.db.rows,
        sql`${worker} update jobs set locked_until = ${this.now(this.leaseMs)}
          where id = ${job.id} and locked_by = ${job.token} returning id`,
      ),
    );
    if (rows && !rows.length) controller.abort(new LeaseLostError(`job ${job.id} was claimed by another worker`));
  }

  private async prune(): Promise<void> {
    await queryRows(
      this.db.rows,
      sql`${worker} delete from jobs where id in (select id from jobs
        where finished_at < ${this.now()} - ${KEEP_SETTLED_DAYS}::float8 * interval '1 day' limit 1000)`,
    );
    this.prunedAt = performance.now();
  }

  /**
   * The clock was set or advanced: the workers look again (what came due meanwhile runs; the next wait is measured
   * anew), and so do the waiters.
   */
  clockMoved(): void {
    if (!this.closed) this.changed();
  }

  /** Something changed (a job queued, settled or released; a slot freed; closing): workers and waiters look again. */
  private changed(): void {
    this.wake();
    for (const resolve of [...this.waiting]) resolve();
  }

  private wake(): void {
    this.woken = true;
    this.wakeWorkers?.();
  }

  /** Until woken (at once if woken meanwhile), or for `ms` when given. */
  private sleep(ms: number | undefined): Promise<void> {
    if (this.woken || this.closing) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      const queue = this;
      function done() {
        clearTimeout(timer);
        queue.wakeWorkers = undefined;
        queue.woken = false;
        resolve();
      }
      this.wakeWorkers = done;
    });
  }

  /** The next change, or `pollMs` (whichever comes first): taken before a look, so that none is missed. */
  private nextChange(): { happened: Promise<void>; cancel(): void } {
    if (this.closed) throw new Error('forgekit: the hosting instance is closed');
    let done!: () => void;
    const happened = new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), this.pollMs);
      done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
    });
    this.waiting.add(done);
    return { happened, cancel: done };
  }
}

/** An attempt's error as stored: a database error by its SQLSTATE only (its message repeats the query's values). */
function shortError(error: unknown): string {
  if (error instanceof DriverException) return `database error (SQLSTATE ${error.code ?? 'unknown'})`;
  const message = error instanceof Error ? error.message : `a thrown ${typeof error}`;
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH - 1)}…` : message;
}
