import { DriverException } from '@mikro-orm/core';

/** Where forgekit reports what it does; `console` fits. Secrets are never passed to it. */
export interface Logger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/**
 * An unexpected failure as it may be logged: its class and where it happened. A database error's message
 * repeats the query with its values (tokens' digests, e-mail addresses, ...): only its SQLSTATE is kept.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${typeof error}`;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const summary = error instanceof DriverException ? `${error.name} (SQLSTATE ${error.code ?? 'unknown'})` : `${error.name}: ${error.message}`;
  return [summary, ...frames].join('\n');
}
