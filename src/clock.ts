import { BadRequestError } from './errors.js';

/**
 * Where an instance reads the time (docs/testing.md "A clock"): every timestamp it writes or compares (rows' times,
 * expiry, runners' contact, throttling windows, jobs' runs and leases, hook deliveries, events, commits' dates) comes
 * from its clock, never from `new Date()` of its own. Durations the process measures (a call's time, a slice of work)
 * are no timestamps and keep to the process's monotonic time.
 */
export interface Clock {
  now(): Date;
  /**
   * Whether it reads the system's time as it is: then a statement may read the database server's `now()` instead, which
   * all the processes of a fleet share whatever their hosts' clocks say (the job queue's leases).
   */
  systemTime?(): boolean;
}

/** The system's clock. */
export const systemClock: Clock = { now: () => new Date(), systemTime: () => true };

/** The `clock` option: a time to start at (a `Date`, or an ISO 8601 date and time), or a clock to read. */
export type ClockOption = Date | string | Clock;

/** An instance's clock as embedders reach it (`hosting.clock`). */
export interface HostingClock {
  /** The instance's time now. */
  now(): Date;
  /**
   * A test double's: the time is `date` from now on (earlier or later than it was), and goes on from there as real time
   * does. Answers the time now. Throws outside the test-double mode.
   */
  set(date: Date | string): Date;
  /**
   * A test double's: the time moves `ms` milliseconds forward (0 or more: `set` goes back), and background work that
   * came due meanwhile runs (retries of jobs and of hook deliveries). Answers the time now. Throws outside the
   * test-double mode.
   */
  advance(ms: number): Date;
  /** A test double's: back to the time the instance started with (the system's, or the `clock` option's). */
  reset(): Date;
}

/** The earliest and the latest time a clock may be set to: years 1970 to 9999, which ISO 8601 writes with four digits. */
const EARLIEST = 0;
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** An ISO 8601 date and time with its offset (`2030-01-02T03:04:05Z`, `...05.678+01:00`). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Whether a text is an ISO 8601 date and time with its offset, of a day the calendar has (JavaScript reads 02-30 as 03-02). */
function isInstant(text: string): boolean {
  const day = text.slice(0, 10);
  const midnight = Date.parse(`${day}T00:00:00Z`);
  return (
    INSTANT.test(text) && !Number.isNaN(midnight) && new Date(midnight).toISOString().startsWith(day) && !Number.isNaN(Date.parse(text))
  );
}

/** A time given to set a clock to, checked: a `Date`, or an ISO 8601 date and time with its offset; a 400 naming `attribute` otherwise. */
export function instantOf(value: unknown, attribute: string): Date {
  const date =
    value instanceof Date && !Number.isNaN(value.getTime())
      ? new Date(value.getTime())
      : typeof value === 'string' && isInstant(value)
        ? new Date(value)
        : undefined;
  if (!date) throw BadRequestError.invalid(attribute, 'must be a date and time in ISO 8601 with its offset (2030-01-02T03:04:05Z)');
  if (!(date.getTime() >= EARLIEST && date.getTime() <= LATEST))
    throw BadRequestError.invalid(attribute, 'must be in the years 1970 to 9999');
  return date;
}

/** A move forward given to a clock, checked: whole milliseconds, 0 or more; a 400 naming `attribute` otherwise. */
export function forwardOf(value: unknown, attribute: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw BadRequestError.invalid(attribute, 'must be a whole number of milliseconds, 0 or more');
  return value;
}

/**
 * An instance's clock: its source's time (the system's unless the `clock` option gives a clock) moved by an offset that a
 * test double sets or advances, so that it flows on with real time (leases, timers and timeouts keep working). Whoever
 * must act when it moves (the job queue, whose waits were measured against it) listens with `onMove`.
 */
export class InstanceClock implements Clock {
  private readonly source: Clock;
  /** The time the `clock` option starts at, which `reset` goes back to; none: the source's own. */
  private readonly start?: number;
  private offsetMs = 0;
  private readonly listeners = new Set<() => void>();

  constructor(option?: ClockOption) {
    if (option === undefined) this.source = systemClock;
    else if (typeof option === 'object' && !(option instanceof Date)) {
      if (typeof option?.now !== 'function') throw BadRequestError.invalid('clock', 'must be a date, or an object with a now() method');
      this.source = option;
    } else {
      this.source = systemClock;
      this.start = instantOf(option, 'clock').getTime();
    }
    this.reset();
  }

  now(): Date {
    const time = this.source.now().getTime();
    return new Date(this.offsetMs === 0 ? time : time + this.offsetMs);
  }

  systemTime(): boolean {
    return this.source === systemClock && this.offsetMs === 0;
  }

  set(date: Date): Date {
    this.offsetMs = date.getTime() - this.source.now().getTime();
    return this.moved();
  }

  advance(ms: number): Date {
    if (this.now().getTime() + ms > LATEST) throw BadRequestError.invalid('ms', 'must not take the time past the year 9999');
    this.offsetMs += ms;
    return this.moved();
  }

  reset(): Date {
    this.offsetMs = this.start === undefined ? 0 : this.start - this.source.now().getTime();
    return this.moved();
  }

  /** `listener` is told whenever the clock is set, advanced or reset; the function returned stops it. */
  onMove(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private moved(): Date {
    for (const listener of this.listeners) listener();
    return this.now();
  }
}

/** The clocks of the instances, by their ORM's configuration (which every EntityManager of one ORM shares). */
const ormClocks = new WeakMap<object, Clock>();

/** The instance's clock is `clock` for what its ORM does of itself: the entities' `createdAt` and `updatedAt`. */
export function useClockFor(orm: { config: object }, clock: Clock): void {
  ormClocks.set(orm.config, clock);
}

/** The clock of the instance an EntityManager belongs to (the system's for an ORM no instance has claimed). */
export function clockOf(em: { config: object }): Clock {
  return ormClocks.get(em.config) ?? systemClock;
}
