import { can, type ProjectInScope } from '../../auth/abilities.js';
import { ANONYMOUS, authenticate, type Caller } from '../../auth/caller.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../errors.js';
import { Context, type Environment } from '../context.js';
import { AccessTokensService } from '../identity/tokens.js';
import { ProjectsService } from '../projects/projects.js';
import { redirectedPath } from '../projects/redirect-route-store.js';

/**
 * Who may clone, fetch and push a project's repository over git's smart HTTP, decided by the same abilities as the
 * API's reads and writes (`download_code`, `push_code`) and the same credentials: a token as the password, whatever
 * the username (`oauth2:<token>` as the original takes an OAuth token), or a username (or e-mail) and password, as
 * sign-in checks and throttles them.
 */

/** The project is at another path now (`fullPath`): git is redirected there. */
export class ProjectMovedError extends Error {
  override readonly name = 'ProjectMovedError';
  constructor(readonly fullPath: string) {
    super(`The project was moved to ${fullPath}.`);
  }
}

/** What a git client asks for: to read (clone, fetch) or to write (push). */
export type GitService = 'git-upload-pack' | 'git-receive-pack';

/** The credentials of an `Authorization: Basic` header. */
export interface BasicCredentials {
  login: string;
  password: string;
}

/** The token scopes that let a token read a repository, and those that let it push. */
const READ_SCOPES = ['api', 'read_repository', 'write_repository'];
const WRITE_SCOPES = ['api', 'write_repository'];

/** The caller a git client's credentials name; 401 for wrong ones (counted as failed sign-ins). */
export async function gitCaller(env: Environment, credentials: BasicCredentials | null, clientAddress?: string): Promise<Caller> {
  if (!credentials) return ANONYMOUS;
  const keys = env.throttle.keys(clientAddress, credentials.login);
  await env.throttle.check(keys);
  try {
    return await authenticate(env.db.rows, env.tokens, { token: credentials.password }, env.clock);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const user = await new AccessTokensService(new Context(ANONYMOUS, env, env.baseUrl ?? 'http://localhost')).signIn(
    credentials.login,
    credentials.password,
  );
  // With two-factor authentication on, git over HTTP takes a token only, as the original asks.
  if (!user || user.twoFactorEnabled) {
    await env.throttle.failed(keys);
    throw new UnauthorizedError();
  }
  return { user, scopes: null, token: null, privateToken: null };
}

/**
 * The project a git client names, if the caller may do what it asks there: 401 (so that git asks for credentials)
 * where credentials could help, 404 where the caller may not see the project, 403 where it sees it but may not push.
 */
export async function gitProject(ctx: Context, fullPath: string, service: GitService): Promise<ProjectInScope> {
  const { caller } = ctx;
  const projects = new ProjectsService(ctx);
  const scoped = await projects.findInScope(fullPath);
  if (!scoped) {
    // A project renamed or moved from there, which the caller may see: git is sent where it is now.
    const movedTo = await redirectedPath(ctx.em, fullPath);
    const moved = movedTo === null ? null : await projects.findInScope(movedTo);
    if (moved && can(caller, 'read_project', moved)) throw new ProjectMovedError(movedTo!);
  }
  const sees = scoped !== null && can(caller, 'read_project', scoped);
  const scopes = service === 'git-upload-pack' ? READ_SCOPES : WRITE_SCOPES;
  const tokenAllows = caller.scopes === null || caller.scopes.some((scope) => scopes.includes(scope));
  if (!sees) {
    if (!caller.user) throw new UnauthorizedError();
    throw new NotFoundError('Project');
  }
  if (!tokenAllows) throw new ForbiddenError(`the token's scopes do not include any of ${scopes.join(', ')}`);
  if (service === 'git-upload-pack') {
    if (can(caller, 'download_code', scoped)) return scoped;
    if (!caller.user) throw new UnauthorizedError();
    throw new ForbiddenError('You are not allowed to download code from this project.');
  }
  if (!caller.user) throw new UnauthorizedError();
  if (!can(caller, 'push_code', scoped)) throw new ForbiddenError('You are not allowed to push code to this project.');
  return scoped;
}
