/**
 * The database's passing troubles: a connection lost, refused or not to be had in time, a session ended by the
 * server (a failover, a restart, `pg_terminate_backend`), a statement or lock wait past its timeout, a deadlock.
 * A call that meets one has rolled back and may be tried again: it answers 503 with Retry-After, not 500.
 */

/** SQLSTATE classes and codes of PostgreSQL that say so (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const TRANSIENT_SQLSTATE_CLASSES = ['08']; // connection exception
const TRANSIENT_SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or shutting down
  '57P05', // idle_session_timeout
  '57014', // query_canceled: statement_timeout, or the call's deadline
  '55P03', // lock_not_available: lock_timeout
  '25P03', // idle_in_transaction_session_timeout
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded
]);

/** The socket's own failures, as Node names them. */
const TRANSIENT_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** What pg and pg-pool say when a connection ends under a query, or none is to be had in time. */
const TRANSIENT_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
  /^Query read timeout$/,
];

/** Whether `error` (or an error it wraps) is a transient failure of the database. */
export function isTransientDatabaseError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_ERRNOS.has(code)) return true;
      if (code.length === 5 && TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2))) return true;
    }
    if (TRANSIENT_MESSAGES.some((pattern) => pattern.test(current.message))) return true;
  }
  return false;
}
