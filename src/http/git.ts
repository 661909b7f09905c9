import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { ApiError, UnauthorizedError } from '../errors.js';
import { advertiseReceivePack, PushProtocolError, receivePack, reportStatus } from '../git/receive-pack.js';
import { advertiseUploadPack, requestedProtocol, uploadPack } from '../git/upload-pack.js';
import { runWrite } from '../api/invoke.js';
import { isTransientDatabaseError } from '../db/transient.js';
import { applyPush } from '../services/repository/pushes.js';
import type { Logger } from '../logger.js';
import { describeFailure } from '../logger.js';
import { Context, type Environment } from '../services/context.js';
import { answerGitFault } from '../testing/faults.js';
import { WatchedGitRequest } from '../testing/journal.js';
import { type BasicCredentials, gitCaller, gitProject, type GitService, ProjectMovedError } from '../services/repository/git-access.js';

/**
 * git's smart HTTP protocol (gitprotocol-http) at the URL a project's `http_url_to_repo` names, relative to where the
 * router is mounted: `GET <full_path>.git/info/refs?service=...` and `POST <full_path>.git/<service>` (`.git`
 * optional, as the original allows). Who may do what is src/services/repository/git-access.ts's; the protocol itself
 * src/git/upload-pack.ts's. Answers to git are plain text, as git shows them to its user.
 */

/** `<full_path>[.git]/info/refs`, `.../git-upload-pack`, `.../git-receive-pack`. */
const GIT_PATH = /^\/((?:[A-Za-z0-9_.-]+\/){1,20}[A-Za-z0-9_.-]+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;
/** The longest full path a project can have (namespaces nest 20 deep at most). */
const MAX_FULL_PATH = 2048;
/** A fetch's request (wants, haves, shallow lines) is small: past this it is refused. */
const MAX_UPLOAD_REQUEST_BYTES = 16 * 1024 * 1024;
const SERVICES: readonly GitService[] = ['git-upload-pack', 'git-receive-pack'];
/** A push of at least this many commits rewrites the commit-graph at once (as many as walks read before they rewrite it). */
const COMMITS_LISTED_AT_ONCE = 200;

/** The request's git route, if it is one. */
export function gitRoute(
  method: string,
  path: string,
  query: URLSearchParams,
): { fullPath: string; service: GitService; advertise: boolean } | null {
  const match = GIT_PATH.exec(path);
  if (!match || match[1].length > MAX_FULL_PATH) return null;
  const [, fullPath, action] = match;
  if (action === 'info/refs') {
    if (method !== 'GET' && method !== 'HEAD') return null;
    const service = query.get('service') as GitService;
    // Without a service: git's dumb protocol, which forgekit does not serve.
    return SERVICES.includes(service) ? { fullPath, service, advertise: true } : null;
  }
  return method === 'POST' ? { fullPath, service: action as GitService, advertise: false } : null;
}

/** Answers one git request. */
export async function serveGit(
  env: Environment,
  req: IncomingMessage,
  res: ServerResponse,
  route: { fullPath: string; service: GitService; advertise: boolean },
  options: { baseUrl: string; clientAddress?: string },
): Promise<void> {
  let release: (() => void) | undefined;
  // A test double journals each request and may fault it (src/testing/); anything else pays one check.
  const watched = env.testDouble?.enabled ? new WatchedGitRequest(env.testDouble, req, route) : undefined;
  try {
    // Closing waits for the call; once closing has begun it is refused (503).
    release = env.calls.begin();
    const caller = await gitCaller(env, basicCredentials(req.headers.authorization), options.clientAddress);
    const fault = watched?.reached(caller);
    if (fault && (await answerGitFault(res, fault))) return;
    const ctx = new Context(caller, env, options.baseUrl, undefined, options.clientAddress);
    const scoped = await gitProject(ctx, route.fullPath, route.service);
    const repo = ctx.repositoryOf(scoped.project);
    const protocol = requestedProtocol(req.headers['git-protocol']);
    res.setHeader('Cache-Control', 'no-cache');
    const pushing = route.service === 'git-receive-pack';
    if (route.advertise) {
      const body = pushing ? await advertiseReceivePack(repo) : await advertiseUploadPack(repo, protocol);
      res.writeHead(200, { 'Content-Type': `application/x-${route.service}-advertisement`, 'Content-Length': body.length });
      return void res.end(body);
    }
    if (req.headers['content-type'] !== `application/x-${route.service}-request`) {
      return answerText(res, 415, `Content-Type must be application/x-${route.service}-request`);
    }
    if (pushing) {
      // The pack is bounded by receivePack, which reads past it to answer git with a report.
      const push = await receivePack(repo, requestBody(req, Number.POSITIVE_INFINITY), { maxPackBytes: env.maxPushBytes });
      const commands = push.commands.filter((command) => !command.error);
      const results = commands.length
        ? await runWrite(env, caller, options.baseUrl, options.clientAddress, (writing) =>
            applyPush(writing, scoped, commands, push.atomic),
          )
        : new Map();
      // A push of many commits has them listed in the commit-graph before the next walks need them (in the background:
      // an index only). A few are read from their objects until walks have read enough of them, or housekeeping runs.
      if (push.commits && push.commits.count >= COMMITS_LISTED_AT_ONCE && [...results.values()].some((result) => result.ok))
        void repo.writeCommitGraph(push.commits).catch(() => {});
      const body = reportStatus(push, results);
      res.writeHead(200, { 'Content-Type': `application/x-${route.service}-result`, 'Content-Length': body.length });
      return void res.end(body);
    }
    const answer = uploadPack(repo, requestBody(req, MAX_UPLOAD_REQUEST_BYTES), protocol, {
      onError: (error) => env.logger.error('forgekit: a git fetch failed', describeFailure(error)),
    });
    res.writeHead(200, { 'Content-Type': `application/x-${route.service}-result` });
    await pipeline(answer, res).catch((error: unknown) => logCut(env.logger, error));
  } catch (error) {
    if (error instanceof ProjectMovedError) return redirect(res, req, route.fullPath, error.fullPath);
    answerGitError(env.logger, res, error);
  } finally {
    release?.();
    watched?.finish(res);
  }
}

/**
 * A request at a project's old path sent to its new one, the rest of the URL kept: git follows the redirect of its
 * first request (info/refs) and sends the next ones there, as the original's redirect routes lead it.
 */
function redirect(res: ServerResponse, req: IncomingMessage, oldPath: string, newPath: string): void {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const at = url.indexOf(`/${oldPath}`);
  const location = `${url.slice(0, at)}/${newPath}${url.slice(at + 1 + oldPath.length)}`;
  // 301 for info/refs, as the original answers; 308 keeps a POST a POST.
  res.writeHead(req.method === 'POST' ? 308 : 301, { Location: location, 'Content-Length': 0 });
  res.end();
}

/** The request's body, gunzipped when git sent it so, and refused past `limit` bytes. */
async function* requestBody(req: IncomingMessage, limit: number): AsyncIterable<Uint8Array> {
  const source = req.headers['content-encoding'] === 'gzip' ? req.pipe(createGunzip()) : req;
  let read = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    read += chunk.length;
    if (read > limit) throw new RequestTooLargeError();
    yield chunk;
  }
}

class RequestTooLargeError extends ApiError {
  override readonly name = 'RequestTooLargeError';
  readonly status = 413;
  constructor() {
    super('the request is too large');
  }
}

/** `Authorization: Basic`'s login and password; null without one (or with another scheme). */
function basicCredentials(header: string | undefined): BasicCredentials | null {
  const match = /^Basic ([A-Za-z0-9+/=]{1,4096})$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function answerText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** A refusal as git shows it to its user; 401 with a Basic challenge, so that git asks for credentials. */
function answerGitError(logger: Logger, res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const [status, text] = refusalOf(logger, res, error);
  answerText(res, status, `${text}\n`);
}

function refusalOf(logger: Logger, res: ServerResponse, error: unknown): [number, string] {
  if (error instanceof UnauthorizedError) {
    res.setHeader('WWW-Authenticate', 'Basic realm="forgekit"');
    return [401, 'HTTP Basic: Access denied'];
  }
  if (error instanceof PushProtocolError) return [400, error.message];
  if (isTransientDatabaseError(error)) {
    res.setHeader('Retry-After', '1');
    return [503, 'The service is unavailable for now; try again.'];
  }
  if (error instanceof ApiError) {
    const { retryAfter } = error as { retryAfter?: number };
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    if (error.status === 404) return [404, 'The project you were looking for could not be found.'];
    // git shows the reason alone, as the original words it.
    return [error.status, error.message.replace(/^403 Forbidden - /, '')];
  }
  logger.error('forgekit: unexpected failure in a git request', describeFailure(error));
  return [500, 'Internal Server Error'];
}

/** A response cut short (the client went away, the repository failed mid-pack): logged unless the client left. */
function logCut(logger: Logger, error: unknown): void {
  if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
  logger.error('forgekit: a git answer was cut short', describeFailure(error));
}
