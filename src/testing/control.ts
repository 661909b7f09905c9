import type { ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import { can } from '../auth/abilities.js';
import { authenticate, type CallerIdentity } from '../auth/caller.js';
import { ApiError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.js';
import { answerError, sendJson } from '../http/json.js';
import type { Environment } from '../services/context.js';
import type { TestDouble } from './test-double.js';
import { clockRoutes } from './clock-control.js';
import { faultRoutes } from './faults.js';
import { requestRoutes } from './journal.js';
import { seedRoutes } from './seed.js';

// The test double's control surface (docs/testing.md): `/-/forgekit/...` beside the API, for administrators only, and
// there only when the instance runs as a test double (elsewhere the paths are not served at all).

/** What a control route is handed: the instance's test-double parts, and the request's path parameters and input. */
export interface ControlCall {
  testDouble: TestDouble;
  /** The instance, for a route that writes through its services (a seed). */
  env: Environment;
  /** Where the request reached the service (scheme, host and mount point), as the URLs in answers start. */
  baseUrl: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** The request's body as it came, for a route that takes a file (`takesFile`). */
  file?: Uint8Array;
}

/** A control route: `path` under `/-/forgekit/`, with `:name` parameters; `run` answers a status and a JSON body. */
export interface ControlRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** Its body is a file (any content type, up to MAX_FILE_BYTES), not JSON. */
  takesFile?: boolean;
  /** Answers a status and a JSON body, or a zip file. */
  run(call: ControlCall): Promise<{ status: number; body?: unknown; zip?: Uint8Array }>;
}

export const CONTROL_PREFIX = '/-/forgekit/';

/** Resets and snapshots. */
const stateRoutes: ControlRoute[] = [
  {
    method: 'POST',
    path: 'reset',
    run: async ({ testDouble, body }) => {
      await testDouble.reset({ toFirstStart: body.toFirstStart === true });
      return { status: 204 };
    },
  },
  { method: 'GET', path: 'snapshots', run: async ({ testDouble }) => ({ status: 200, body: testDouble.list() }) },
  {
    method: 'POST',
    path: 'snapshots',
    run: async ({ testDouble, body }) => {
      const name = body.name === undefined || body.name === null ? undefined : String(body.name);
      return { status: 201, body: { name: await testDouble.snapshot(name) } };
    },
  },
  {
    method: 'POST',
    path: 'snapshots/:name/restore',
    run: async ({ testDouble, params }) => {
      await testDouble.restore(params.name);
      return { status: 204 };
    },
  },
  // Snapshot files: the state now as a zip, and a zip's state put in place (as `forgekit snapshot save|load` do).
  { method: 'GET', path: 'state', run: async ({ testDouble }) => ({ status: 200, zip: await testDouble.save() }) },
  {
    method: 'PUT',
    path: 'state',
    takesFile: true,
    run: async ({ testDouble, query, file }) => {
      const name = query.name === undefined ? undefined : String(query.name);
      return { status: 201, body: { name: await testDouble.load(file ?? new Uint8Array(), name) } };
    },
  },
  {
    method: 'DELETE',
    path: 'snapshots/:name',
    run: async ({ testDouble, params }) => {
      await testDouble.drop(params.name);
      return { status: 204 };
    },
  },
];

/** Every control route. */
const CONTROL_ROUTES: ControlRoute[] = [...stateRoutes, ...requestRoutes, ...faultRoutes, ...seedRoutes, ...clockRoutes];

/** The route and its parameters for a method and a path under the prefix, if any. */
function matchControl(method: string, path: string): { route: ControlRoute; params: Record<string, string> } | undefined {
  const parts = path.split('/');
  for (const route of CONTROL_ROUTES) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (
      pattern.every((part, index) =>
        part.startsWith(':') ? (params[part.slice(1)] = decodeURIComponent(parts[index])) : part === parts[index],
      )
    )
      return { route, params };
  }
  return undefined;
}

const parseJson = express.json({ limit: '16mb', strict: false });
/** The largest file a control route takes (a snapshot file, repositories included). */
const MAX_FILE_BYTES = '1gb';
const parseFile = express.raw({ type: () => true, limit: MAX_FILE_BYTES });

/**
 * Answers a request under `/-/forgekit/` when the instance runs as a test double (false otherwise: not served).
 * Administrators only: 401 without a valid token, 403 for anyone else.
 */
export function answerControl(env: Environment, req: Request, res: Response, path: string, identity: CallerIdentity): boolean {
  const testDouble = env.testDouble;
  if (!testDouble?.enabled || !path.startsWith(CONTROL_PREFIX)) return false;
  void (async () => {
    try {
      const caller = await authenticate(env.db.rows, env.tokens, identity, env.clock);
      if (!caller.user) throw new UnauthorizedError();
      if (!can(caller, 'admin_all_resources')) throw new ForbiddenError();
      const found = matchControl(req.method, path.slice(CONTROL_PREFIX.length));
      if (!found) throw new NotFoundError();
      const parse = found.route.takesFile ? parseFile : parseJson;
      await new Promise<void>((resolve, reject) => parse(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
      const file = found.route.takesFile && Buffer.isBuffer(req.body) ? (req.body as Buffer) : undefined;
      const body =
        !file && req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
      const query = Object.fromEntries(new URLSearchParams(req.originalUrl.split('?')[1] ?? ''));
      const baseUrl = env.baseUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;
      const answer = await found.route.run({ testDouble, env, baseUrl, params: found.params, query, body, file });
      if (answer.zip)
        res
          .status(answer.status)
          .set({ 'Content-Type': 'application/zip', 'Content-Disposition': 'attachment; filename="forgekit-snapshot.zip"' })
          .end(answer.zip);
      else if (answer.body === undefined) res.status(answer.status).end();
      else sendJson(res, answer.status, answer.body);
    } catch (error) {
      answerFailure(env, res, error);
    }
  })();
  return true;
}

function answerFailure(env: Environment, res: ServerResponse, error: unknown): void {
  if (error instanceof ApiError) return void answerError(res, error);
  const status = (error as { status?: number }).status;
  if (status && status >= 400 && status < 500) return void sendJson(res, status, { message: (error as Error).message });
  env.logger.error('forgekit: a control call failed', error instanceof Error ? error.stack : String(error));
  sendJson(res, 500, { message: '500 Internal Server Error' });
}
