import { format } from 'node:util';
import { DriverException } from '@mikro-orm/core';

/** Where forgekit reports what it does; `console` fits. Secrets are never passed to it. */
export interface Logger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/**
 * The logger of `forgekit serve`: console's, with the lines `info` logs in one turn of the event loop written
 * together. Standard output to a pipe is written synchronously, so a line per request would cost the server a
 * write each under load. What is pending is written before a warning or an error, and before the process exits.
 */
export function batchedConsoleLogger(): Logger {
  let pending: string[] = [];
  const flush = () => {
    if (!pending.length) return;
    const text = pending.join('');
    pending = [];
    process.stdout.write(text);
  };
  process.on('exit', flush);
  return {
    info(message, ...details) {
      if (!pending.length) setImmediate(flush);
      pending.push(`${format(message, ...details)}\n`);
    },
    warn(message, ...details) {
      flush();
      console.warn(message, ...details);
    },
    error(message, ...details) {
      flush();
      console.error(message, ...details);
    },
  };
}

/**
 * An unexpected failure as it may be logged: its class and where it happened. A database error's message
 * repeats the query with its values (tokens' digests, e-mail addresses, ...): only its SQLSTATE is kept.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${typeof error}`;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const summary =
    error instanceof DriverException ? `${error.name} (SQLSTATE ${error.code ?? 'unknown'})` : `${error.name}: ${error.message}`;
  return [summary, ...frames].join('\n');
}
