import { STATUS_CODES } from 'node:http';
import express, { type ErrorRequestHandler, type Router } from 'express';
import type { Logger } from '../logger.js';
import { withoutCredentials } from './credentials.js';
import { answerNotFound, sendJson } from './json.js';

/**
 * The app `forgekit serve` runs: a one-line log of each request, the router, and JSON answers (404, or the
 * status of a request Express itself refused) for every other path, as the API answers its own.
 */
export function standaloneApp(router: Router, logger: Logger): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const milliseconds = Number(process.hrtime.bigint() - started) / 1e6;
      const url = withoutCredentials(new URL(req.originalUrl, 'http://forgekit'));
      logger.info(`${req.method} ${url.pathname}${url.search} ${res.statusCode} ${milliseconds.toFixed(1)} ms`);
    });
    next();
  });
  app.use(router);
  app.use(answerNotFound);
  const refused: ErrorRequestHandler = (error: { status?: number }, _req, res, _next) => {
    const status = typeof error.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 400;
    sendJson(res, status, { message: `${status} ${STATUS_CODES[status] ?? 'Bad Request'}` });
  };
  app.use(refused);
  return app;
}
