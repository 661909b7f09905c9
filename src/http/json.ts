import type { ServerResponse } from 'node:http';

/** JSON as the original service answers it: `Content-Type: application/json`, no charset (clients compare it exactly). */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
