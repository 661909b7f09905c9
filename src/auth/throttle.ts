import { type Clock, systemClock } from '../clock.js';
import { AuthFailure } from '../db/entities/index.js';
import type { Database } from '../db/orm.js';
import { queryRows } from '../db/rows.js';
import { sql } from '../db/sql.js';
import { TooManyRequestsError } from '../errors.js';
import { tokenDigest } from './secrets.js';

export interface ThrottleSettings {
  /** Failed authentications allowed per client address, and per login, within one period. */
  maxFailures: number;
  /** The period, in seconds, from the first failure on: once it is over, counting starts again. */
  periodSeconds: number;
}

/**
 * Throttles failed authentication (wrong passwords, unknown logins, invalid tokens) per client address and
 * per login. The counts live in the database, so every process behind a load balancer shares them.
 *
 * Both methods run outside any request's transaction: a failed sign-in's transaction rolls back, and the
 * count must stay.
 */
export class FailedAuthThrottle {
  constructor(
    private readonly db: Database,
    private readonly settings: ThrottleSettings | undefined,
    /** The instance's clock: when a period ends. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** What failures are counted against: the client's address (HTTP only) and the login tried (sign-ins). */
  keys(address: string | undefined, login: string | undefined): string[] {
    if (!this.settings) return [];
    const keys: string[] = [];
    if (address) keys.push(tokenDigest(`address:${address}`));
    if (login) keys.push(tokenDigest(`login:${login.toLowerCase()}`));
    return keys;
  }

  /** Before a password is checked: 429 while any key has used up its failures. */
  async check(keys: string[]): Promise<void> {
    if (!this.settings || keys.length === 0) return;
    const now = this.clock.now();
    const spent = await this.db
      .fork()
      .find(AuthFailure, { keyDigest: { $in: keys }, failures: { $gte: this.settings.maxFailures }, windowEndsAt: { $gt: now } });
    if (spent.length) throw tooMany(spent, now);
  }

  /** After a failure: counts it against each key; 429 instead once a key has gone past its failures. */
  async failed(keys: string[]): Promise<void> {
    if (!this.settings || keys.length === 0) return;
    const now = this.clock.now();
    const windowEnd = new Date(now.getTime() + this.settings.periodSeconds * 1000);
    await queryRows(this.db.rows, sql`delete from auth_failures where window_ends_at <= ${now}`);
    const counted: AuthFailure[] = [];
    for (const key of keys) {
      const [row] = (await queryRows(
        this.db.rows,
        sql`insert into auth_failures (key_digest, failures, window_ends_at) values (${key}, 1, ${windowEnd})
         on conflict (key_digest) do update set failures = auth_failures.failures + 1
         returning failures, window_ends_at`,
      )) as { failures: number; window_ends_at: Date | string }[];
      counted.push({ keyDigest: key, failures: Number(row.failures), windowEndsAt: new Date(row.window_ends_at) });
    }
    const over = counted.filter((row) => row.failures > (this.settings as ThrottleSettings).maxFailures);
    if (over.length) throw tooMany(over, now);
  }
}

/** `Retry-After`: when the last of the keys' windows ends. */
function tooMany(rows: AuthFailure[], now: Date): TooManyRequestsError {
  const end = Math.max(...rows.map((row) => row.windowEndsAt.getTime()));
  return new TooManyRequestsError(Math.max(1, Math.ceil((end - now.getTime()) / 1000)));
}
