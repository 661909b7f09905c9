import { STATUS_CODES } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import qs from 'qs';
import { allRoutes } from '../api/index.js';
import { invoke } from '../api/invoke.js';
import { successStatus, type Page } from '../api/route.js';
import type { CallerIdentity } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import type { RawFile } from '../schemas/common.js';
import type { Environment } from '../services/context.js';
import { CREDENTIAL_PARAMETERS } from './credentials.js';
import { RouteMatcher } from './match.js';
import { setPaginationHeaders } from './pagination.js';

const BODY_LIMIT = '20mb';

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Query string, form fields, multipart files and JSON body, merged (the body wins). */
function requestInput(req: Request): Record<string, unknown> {
  // The host app's query parser is not ours to rely on: read the query string with `qs` ourselves,
  // for `iids[]=1` and `custom_attributes[key]=value`.
  const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  const input: Record<string, unknown> = { ...qs.parse(search, { depth: 5, arrayLimit: 1000 }) };
  if (req.body && typeof req.body === 'object' && !Array.isArray(req.body)) Object.assign(input, req.body);
  for (const file of (req.files as Express.Multer.File[] | undefined) ?? []) {
    input[file.fieldname] = { filename: file.originalname, content_type: file.mimetype, data: file.buffer };
  }
  return input;
}

/** Who the request comes from: tokens from headers or parameters, and `sudo`. */
function requestIdentity(req: Request, input: Record<string, unknown>): CallerIdentity {
  const bearer = header(req, 'authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const token = header(req, 'private-token') ?? stringParam(input.private_token) ?? bearer ?? stringParam(input.access_token);
  const sudo = header(req, 'sudo') ?? stringParam(input.sudo);
  for (const name of CREDENTIAL_PARAMETERS) delete input[name];
  if (token === undefined) return null;
  return sudo === undefined ? { token } : { token, sudo };
}

const stringParam = (value: unknown): string | undefined => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);

/**
 * The Express adapter: `/api/v4/...` and the few routes beside it (`/oauth/token`, uploaded avatars),
 * relative to wherever the router is mounted. Bodies are parsed, errors answered and unknown paths under
 * `/api/v4` answered 404 only for those routes: the host app's own routes, parsers and error handlers are
 * never touched.
 */
export function createRouter(env: Environment): express.Router {
  const matcher = new RouteMatcher(allRoutes());
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: 20 * 1024 * 1024 } });
  const parsers: RequestHandler[] = [
    express.json({ limit: BODY_LIMIT, strict: false }),
    express.urlencoded({ extended: true, limit: BODY_LIMIT }),
    upload.any(),
  ].map(clientErrors);
  const parseBody = (req: Request, res: Response) =>
    parsers.reduce<Promise<void>>(
      (previous, parse) => previous.then(() => new Promise((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())))),
      Promise.resolve(),
    );

  const serve =
    (root: boolean): RequestHandler =>
    async (req, res, next) => {
      const found = matcher.match(req.method, req.path, root);
      if (!found) return next();
      try {
        await parseBody(req, res);
        const input = requestInput(req);
        const { route, params } = found;
        const result = await invoke(env, route, requestIdentity(req, input), params, input);
        const status = successStatus(route);
        if (!route.response) return void res.status(status).end();
        if (route.raw) {
          const file = result as RawFile;
          return void res.status(status).type(file.content_type).send(Buffer.from(file.data));
        }
        if (route.paginated) {
          const page = result as Page<unknown>;
          setPaginationHeaders(req, res, env.publicOrigin ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`, page);
          return void res.status(status).json(page.items);
        }
        res.status(status).json(result);
      } catch (error) {
        sendError(env, error, res);
      }
    };

  const router = express.Router();
  router.use('/api/v4', serve(false), (_req: Request, res: Response) => {
    res.status(404).json({ error: '404 Not Found' });
  });
  router.use(serve(true));
  return router;
}

/** A body that cannot be read is the client's error (4xx), whatever the parser made of it. */
class UnreadableBodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function clientErrors(parse: RequestHandler): RequestHandler {
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      if (!error) return next();
      const status = (error as { status?: number }).status;
      next(new UnreadableBodyError(status && status >= 400 && status < 500 ? status : 400, (error as Error).message));
    });
}

/** The answer to a failed call: the error's own status and body, or a plain 500 (logged with its stack). */
function sendError(env: Environment, error: unknown, res: Response): void {
  if (error instanceof ApiError) return void res.status(error.status).json(error.body());
  if (error instanceof UnreadableBodyError) {
    const message = error.status === 400 ? `400 (Bad request) ${error.message}` : `${error.status} ${STATUS_CODES[error.status] ?? 'Bad request'}`;
    return void res.status(error.status).json({ message });
  }
  env.logger.error('forgekit: unexpected failure', error);
  res.status(500).json({ message: '500 Internal Server Error' });
}
