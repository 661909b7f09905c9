import { STATUS_CODES } from 'node:http';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import qs from 'qs';
import { allRoutes } from '../api/index.js';
import { invoke } from '../api/invoke.js';
import { successStatus, type Page } from '../api/route.js';
import { ANONYMOUS, type CallerIdentity } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { Context, type Environment } from '../services/context.js';
import { RouteMatcher } from './match.js';
import { setPaginationHeaders } from './pagination.js';

const BODY_LIMIT = '20mb';
/** Parameters that authenticate the request; they are never passed on as route input. */
const CREDENTIAL_PARAMETERS = ['private_token', 'access_token', 'sudo'];

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
 * The Express adapter: `/api/v4/...`, `/oauth/token` and uploaded avatars, relative to wherever the
 * router is mounted. Body parsing, errors and 404s stay under those prefixes; the host app's own routes
 * and error handlers are not touched.
 */
export function createRouter(env: Environment): express.Router {
  const matcher = new RouteMatcher(allRoutes());
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: 20 * 1024 * 1024 } });
  const parseBodies: RequestHandler[] = [
    express.json({ limit: BODY_LIMIT, strict: false }),
    express.urlencoded({ extended: true, limit: BODY_LIMIT }),
    upload.any(),
  ].map(clientErrors);

  const dispatch =
    (root: boolean): RequestHandler =>
    async (req, res, next) => {
      try {
        const found = matcher.match(req.method, req.path, root);
        if (!found) return next();
        const input = requestInput(req);
        const identity = requestIdentity(req, input);
        const { route, params } = found;
        const result = await invoke(env, route, identity, params, input);
        const status = successStatus(route);
        if (!route.response) return void res.status(status).end();
        if (route.paginated) {
          const page = result as Page<unknown>;
          setPaginationHeaders(req, res, env.publicOrigin ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`, page);
          return void res.status(status).json(page.items);
        }
        res.status(status).json(result);
      } catch (error) {
        next(error);
      }
    };

  const router = express.Router();
  router.use('/api/v4', ...parseBodies, dispatch(false), (_req: Request, res: Response) => {
    res.status(404).json({ error: '404 Not Found' });
  });
  router.use('/api/v4', errorHandler(env));
  router.post('/oauth/token', ...parseBodies, dispatch(true), errorHandler(env));
  router.get('/uploads/-/system/user/avatar/:id/:filename', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const avatar = await new Context(env.db.fork(), ANONYMOUS, env).users.avatar(Number(req.params.id), String(req.params.filename));
      res.type(avatar.contentType).send(Buffer.from(avatar.data));
    } catch (error) {
      next(error);
    }
  }, errorHandler(env));
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

function errorHandler(env: Environment): ErrorRequestHandler {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof ApiError) return void res.status(error.status).json(error.body());
    if (error instanceof UnreadableBodyError) {
      const message = error.status === 400 ? `400 (Bad request) ${error.message}` : `${error.status} ${STATUS_CODES[error.status] ?? 'Bad request'}`;
      return void res.status(error.status).json({ message });
    }
    env.logger.error('forgekit: unexpected failure', error);
    res.status(500).json({ message: '500 Internal Server Error' });
  };
}
