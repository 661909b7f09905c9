import type { ApiError } from '../errors.js';
import type { ServerResponse } from 'node:http';

/** JSON as the original service answers it: `Content-Type: application/json`, no charset (clients compare it exactly). */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A path no route serves: the original's answer for an unknown API path. */
export const answerNotFound = (_req: unknown, res: ServerResponse): void => sendJson(res, 404, { error: '404 Not Found' });

/** An error's own status and body (src/errors.ts), and `Retry-After` when it says when to try again (429, 503). */
export function answerError(res: ServerResponse, error: ApiError): void {
  const { retryAfter } = error as { retryAfter?: number };
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  // A 304 has no body.
  if (error.status === 304) {
    res.statusCode = 304;
    return void res.end();
  }
  sendJson(res, error.status, error.body());
}
