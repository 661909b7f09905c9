import { STATUS_CODES } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import express, { type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import qs from 'qs';
import { allRoutes } from '../api/index.js';
import { invoke, type InputReader } from '../api/invoke.js';
import { DEFAULT_BODY_LIMIT, successStatus, type AnyRoute } from '../api/route.js';
import type { CallerIdentity } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { readiness } from '../health.js';
import { apiReference } from './api-reference.js';
import { answerControl } from '../testing/control.js';
import { ConnectionDroppedError } from '../testing/faults.js';
import { gitRoute, serveGit } from './git.js';
import { answerHealth } from './health.js';
import { describeFailure } from '../logger.js';
import type { RawFile, StreamedFile } from '../schemas/common.js';
import type { Environment } from '../services/context.js';
import type { Page } from '../services/pagination.js';
import { CREDENTIAL_PARAMETERS } from './credentials.js';
import { answerError, answerNotFound, sendJson } from './json.js';
import { RouteMatcher, type RouteMatch } from './match.js';
import { setPaginationHeaders } from './pagination.js';

const API_PREFIX = '/api/v4';

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

const stringParam = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;

/** The query string, read with `qs` ourselves (the host app's query parser is not ours to rely on). */
function queryParams(req: Request): Record<string, unknown> {
  const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  return { ...qs.parse(search, { depth: 5, arrayLimit: 1000 }) };
}

/**
 * A blank token is no token, as the original reads each place (`.presence`): go-gitlab's client made without one sends `PRIVATE-TOKEN:`
 * empty.
 */
const presentToken = (value: string | undefined): string | undefined => (value?.trim() ? value : undefined);

/**
 * The token and `sudo` a request carries in its headers or in `params`, in the order the original
 * service reads them; the credential parameters are taken out of `params`.
 */
function takeCredentials(req: Request, params: Record<string, unknown>): { token?: string; sudo?: string } {
  const bearer = header(req, 'authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const token =
    presentToken(header(req, 'private-token')) ??
    presentToken(stringParam(params.private_token)) ??
    bearer ??
    presentToken(stringParam(params.access_token));
  const sudo = header(req, 'sudo') ?? stringParam(params.sudo);
  for (const name of CREDENTIAL_PARAMETERS) delete params[name];
  return { token, sudo };
}

/** The caller a request names in its headers or query string. */
function takeIdentity(req: Request, params: Record<string, unknown>): CallerIdentity {
  const { token, sudo } = takeCredentials(req, params);
  return token === undefined ? null : sudo === undefined ? { token } : { token, sudo };
}

const hasBody = (req: Request): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** A body that cannot be read is the client's error (4xx), whatever the parser made of it. */
class UnreadableBodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The body parsers for one size limit: JSON, form fields and multipart uploads (files and fields within the limit). */
function bodyParsers(limit: number): RequestHandler[] {
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: limit, fieldSize: limit, files: 10, fields: 1000 } });
  return [express.json({ limit, strict: false }), express.urlencoded({ extended: true, limit }), upload.any()].map(
    (parse): RequestHandler =>
      (req, res, next) =>
        parse(req, res, (error?: unknown) => {
          if (!error) return next();
          const status =
            (error as { status?: number; code?: string }).status ??
            ((error as { code?: string }).code === 'LIMIT_FILE_SIZE' ? 413 : undefined);
          next(new UnreadableBodyError(status && status >= 400 && status < 500 ? status : 400, (error as Error).message));
        }),
  );
}

/** The options of `hosting.router(options)`. */
export interface RouterOptions {
  /** Serves the interactive API reference (Swagger UI) at `/api/v4/docs`; off by default (`forgekit serve` turns it on). */
  apiReference?: boolean;
}

/**
 * The Express adapter: `/api/v4/...` and the few routes beside it (`/oauth/token`, uploaded avatars),
 * relative to wherever the router is mounted. Bodies are parsed, errors answered and unknown paths under
 * `/api/v4` answered 404 only for those routes: the host app's own routes, parsers and error handlers are
 * never touched.
 *
 * The caller is authenticated before the body is read, from the headers and the query string; only a
 * request that carries no credential there has its body read first, for a `private_token` in it. A body is
 * read up to its route's limit, never further.
 */
export function createRouter(env: Environment, options: RouterOptions = {}): express.Router {
  const reference = options.apiReference ? apiReference(env) : undefined;
  const matcher = new RouteMatcher(allRoutes());
  const configuredOrigin = env.baseUrl ? new URL(env.baseUrl).origin : undefined;
  const parsers = new Map<number, RequestHandler[]>();
  const readBody = async (req: Request, res: Response, route: AnyRoute): Promise<Record<string, unknown>> => {
    const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    if (Number(req.headers['content-length'] ?? 0) > limit) throw new UnreadableBodyError(413, 'request entity too large');
    if (!parsers.has(limit)) parsers.set(limit, bodyParsers(limit));
    for (const parse of parsers.get(limit) ?? []) {
      await new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
    }
    const body: Record<string, unknown> = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? { ...req.body } : {};
    for (const file of (req.files as Express.Multer.File[] | undefined) ?? []) {
      body[file.fieldname] = { filename: file.originalname, content_type: file.mimetype, data: file.buffer };
    }
    return body;
  };

  const serve = async (req: Request, res: Response, { route, params }: RouteMatch): Promise<void> => {
    let body: Record<string, unknown> | undefined;
    try {
      const query = queryParams(req);
      let { token, sudo } = takeCredentials(req, query);
      if (token === undefined && hasBody(req)) {
        body = await readBody(req, res, route);
        ({ token, sudo } = takeCredentials(req, body));
      }
      const identity: CallerIdentity = token === undefined ? null : sudo === undefined ? { token } : { token, sudo };
      const readInput: InputReader = async () => {
        const read = body ?? (hasBody(req) ? await readBody(req, res, route) : {});
        body = read;
        // A `sudo` among the body's fields counts when the token came from a header or the query string.
        const bodySudo = token !== undefined && sudo === undefined ? stringParam(read.sudo) : undefined;
        for (const name of CREDENTIAL_PARAMETERS) delete read[name];
        return { input: { ...query, ...read }, sudo: bodySudo };
      };
      const requestOrigin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
      const result = await invoke(env, route, {
        identity,
        params,
        input: undefined,
        readInput,
        baseUrl: requestOrigin + req.baseUrl,
        clientAddress: req.ip,
        // For a test double's journal and faults only.
        http: env.testDouble?.enabled
          ? { method: req.method, path: req.path, query, body: () => (hasBody(req) ? body : undefined) }
          : undefined,
      });
      const status = successStatus(route);
      if (route.headers) res.set(route.headers(result));
      if (!route.response) return void res.status(status).end();
      if (route.raw) {
        const file = result as RawFile | StreamedFile;
        res.status(status).type(file.content_type);
        if (file.data instanceof Readable) return sendStream(env, route, req, res, file.data, 'size' in file ? file.size : undefined);
        return void res.send(Buffer.from(file.data));
      }
      if (route.list) {
        const page = result as Page<unknown>;
        setPaginationHeaders(req, res, configuredOrigin ?? requestOrigin, page);
        return sendJson(res, status, page.items);
      }
      sendJson(res, status, result);
    } catch (error) {
      // A test double's fault: the connection cut without an answer, as a proxy or a network cuts it.
      if (error instanceof ConnectionDroppedError) return void req.socket.destroy();
      // Answered without reading the body the client is still sending: end the connection rather than read it.
      if (body === undefined && hasBody(req)) res.setHeader('Connection', 'close');
      sendError(env, route, error, res);
    }
  };

  const router = express.Router();
  // One handler that tells API paths from the others itself: a router layer per prefix was a sizeable share
  // of a fast request's time.
  router.use((req, res, next) => {
    const path = req.path;
    if (path.startsWith('/-/')) {
      if (answerHealth(req, res, path, () => readiness(env))) return;
      if (answerControl(env, req, res, path, takeIdentity(req, queryParams(req)))) return;
    }
    const api = path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
    const found = matcher.match(req.method, api ? path.slice(API_PREFIX.length) : path, !api);
    if (found) return void serve(req, res, found);
    // The interactive reference (src/http/api-reference.ts), when asked for, before the API's 404.
    if (api && reference?.(req, res, path.slice(API_PREFIX.length))) return;
    if (api) return answerNotFound(req, res);
    // git's smart HTTP, at the URLs projects' `http_url_to_repo` name.
    const git = gitRoute(req.method, path, new URLSearchParams(req.originalUrl.split('?')[1] ?? ''));
    if (git) {
      const baseUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;
      return void serveGit(env, req, res, git, { baseUrl: env.baseUrl ?? baseUrl, clientAddress: req.ip });
    }
    next();
  });
  return router;
}

/**
 * A streamed answer (a raw file, an archive), sent as it is read: the stream is read only as fast as the client
 * takes it, and a client that goes away destroys it, which stops the work behind it. A failure before the first
 * byte is answered as any failure; after it, the connection is cut (the client sees a body cut short).
 */
function sendStream(env: Environment, route: AnyRoute, req: Request, res: Response, stream: Readable, size?: number): void {
  if (size !== undefined) res.setHeader('Content-Length', String(size));
  // A HEAD request gets the headers only: nothing is read.
  if (req.method === 'HEAD') {
    stream.destroy();
    return void res.end();
  }
  pipeline(stream, res, (error) => {
    if (!error || (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    if (!res.headersSent) return sendError(env, route, error, res);
    env.logger.error(
      `forgekit: a streamed answer failed in ${route.method} ${route.root ? '' : API_PREFIX}${route.path}`,
      describeFailure(error),
    );
  });
}

/** The answer to a failed call: the error's own status and body, or a plain 500 (logged without data). */
function sendError(env: Environment, route: AnyRoute, error: unknown, res: Response): void {
  if (error instanceof ApiError) {
    answerError(res, error);
    return;
  }
  if (error instanceof UnreadableBodyError) {
    const message =
      error.status === 400 ? `400 (Bad request) ${error.message}` : `${error.status} ${STATUS_CODES[error.status] ?? 'Bad request'}`;
    sendJson(res, error.status, { message });
    return;
  }
  env.logger.error(`forgekit: unexpected failure in ${route.method} ${route.root ? '' : API_PREFIX}${route.path}`, describeFailure(error));
  sendJson(res, 500, { message: '500 Internal Server Error' });
}
