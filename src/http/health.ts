import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readiness } from '../health.js';
import { sendJson } from './json.js';

/**
 * The original's health endpoints, beside the API and without authentication, for a balancer or an orchestrator:
 * `/-/liveness` (the process answers), `/-/readiness` (it can serve calls: 503 naming what failed) and `/-/health`.
 * Whether `path` is one: then it is answered.
 */
export function answerHealth(req: IncomingMessage, res: ServerResponse, path: string, readiness: () => Promise<Readiness>): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (path === '/-/liveness') {
    sendJson(res, 200, { status: 'ok' });
    return true;
  }
  if (path === '/-/health') {
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/plain');
    res.end('GitLab OK');
    return true;
  }
  if (path !== '/-/readiness') return false;
  res.setHeader('Cache-Control', 'no-store');
  void readiness().then((result) => sendJson(res, result.status === 'ok' ? 200 : 503, result));
  return true;
}
