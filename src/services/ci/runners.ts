import { can, type ProjectInScope, type RunnerInScope } from '../../auth/abilities.js';
import { ownedRunnersSql } from '../../auth/access-levels.js';
import { generateToken, tokenDigest } from '../../auth/secrets.js';
import type { RunnerType } from '../../db/entities/index.js';
import { sql, type Sql } from '../../db/sql.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.js';
import type {
  EnableRunnerInput,
  ListAllRunnersQuery,
  ListRunnersQuery,
  RegisterRunnerInput,
  RegistrationTokenReset,
  Runner as RunnerShape,
  RunnerDetails,
  RunnerInfo,
  RunnerRegistration,
  RunnerVerified,
  UnregisterRunnerInput,
  UpdateRunnerInput,
  VerifyRunnerInput,
} from '../../schemas/runners.js';
import { Problems } from '../identity/user-validation.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { onlineSince, presentRunner, presentRunnerDetails } from '../present/runners.js';
import { Service } from '../service.js';
import {
  deleteRunner,
  disableRunner,
  enableRunner,
  findRunnerByToken,
  findRunnerInScope,
  insertRunner,
  instanceRegistrationToken,
  lockRunnerProjects,
  projectRunnersSql,
  registrationTarget,
  replaceInstanceRegistrationToken,
  runnerPage,
  runnerRelations,
  touchRunner,
  updateRunner,
  type RunnerFilter,
  type RunnerSelf,
} from './runner-store.js';

/** The original's refusal of an ability on a runner (`authenticate_*_runner!`). */
export const NO_ACCESS = 'No access granted';

/** Later versions' `stale`: made, and not contacted, for three months. */
const STALE_AFTER_MS = 90 * 24 * 60 * 60 * 1000;

/** The original's validation of a runner that takes no untagged jobs and has no tag (Ci::Runner#tag_constraints). */
const TAGS_REQUIRED = 'can not be empty when runner is not allowed to pick untagged jobs';
/** The shortest `maximum_timeout` the original takes, in seconds, with its message. */
const MINIMUM_TIMEOUT = 600;
const TIMEOUT_TOO_SHORT = 'needs to be at least 10 minutes';

/** The settings a runner's update may change, as the original names them in its "at least one" refusal. */
const UPDATABLE = ['description', 'active', 'paused', 'tag_list', 'run_untagged', 'locked', 'access_level', 'maximum_timeout'] as const;

/** Whether the runner is to take jobs: `active`, or later clients' `paused` (its opposite); not both. */
function activeOf(input: { active?: boolean; paused?: boolean }): boolean | undefined {
  if (input.active !== undefined && input.paused !== undefined)
    throw new BadRequestError('400 (Bad request) "active, paused" are mutually exclusive');
  return input.paused === undefined ? input.active : !input.paused;
}

/** Tags as the original keeps them (acts_as_taggable): trimmed, without blanks, each once, in the order given. */
const tagsOf = (given: readonly string[]) => [...new Set(given.map((tag) => tag.trim()).filter((tag) => tag !== ''))];

/** A runner's token or a registration token: a new random one, sealed to be shown again and its digest to find it by. */
function newSecret(secrets: { seal(text: string): string }): { token: string; sealed: string; digest: string } {
  const token = generateToken();
  return { token, sealed: secrets.seal(token), digest: tokenDigest(token) };
}

/**
 * CI runners (the original's runners API and the registration calls runners make): registered with the instance's
 * token (a shared runner), a group's (a group runner) or a project's (a runner specific to it, which its owners may
 * enable in their other projects); listed (the caller's own; all of them for administrators; a project's), read,
 * changed, paused, deleted; disabled in a project while it has another.
 */
export class RunnersService extends Service {
  /** A runner by ID with what the caller is to it; null when there is none. */
  findInScope(id: number): Promise<RunnerInScope | null> {
    return findRunnerInScope(this.ctx.em, this.ctx.caller, this.ctx.today(), id);
  }

  /** GET /runners: the runners the caller owns (of the projects and groups it maintains), by scope and filters. */
  list(query: ListRunnersQuery & PageQuery): Promise<Page<RunnerShape>> {
    return this.page(ownedRunnersSql(this.ctx.caller, this.ctx.today()), query);
  }

  /** GET /runners/all (administrators): every runner, shared and specific, by scope and filters. */
  all(query: ListAllRunnersQuery & PageQuery): Promise<Page<RunnerShape>> {
    return this.page(sql`true`, query);
  }

  /**
   * GET /projects/:id/runners (its maintainers): the runners enabled in it, its groups' runners, and the shared ones
   * when it lets shared runners take its jobs.
   */
  projectRunners(scoped: ProjectInScope, query: ListAllRunnersQuery & PageQuery): Promise<Page<RunnerShape>> {
    const groups = scoped.namespace.kind === 'group' ? scoped.namespace.traversalIds : [];
    return this.page(projectRunnersSql(scoped.project.id, groups, scoped.project.sharedRunnersEnabled), query);
  }

  /** GET /runners/:id: its detail, its projects and its group as the caller may see them, its token to those allowed. */
  async get(scoped: RunnerInScope): Promise<RunnerDetails> {
    const { runner } = scoped;
    const caller = this.ctx.caller;
    const relations = await runnerRelations(
      (await this.ctx.view()).rows,
      caller,
      this.ctx.today(),
      runner.id,
      can(caller, 'read_all_resources'),
      this.ctx.baseUrl,
    );
    const token = can(caller, 'read_runner_token', scoped) ? this.opened(runner.tokenSealed) : undefined;
    return presentRunnerDetails(runner, { ...relations, token }, this.ctx.now());
  }

  /**
   * PUT /runners/:id: the settings given (at least one); `tag_list` is the full set of its tags. A runner that takes
   * no untagged jobs needs a tag, and a maximum timeout is at least ten minutes, as the original validates them.
   */
  async update(scoped: RunnerInScope, input: UpdateRunnerInput): Promise<RunnerDetails> {
    if (UPDATABLE.every((name) => input[name] === undefined)) {
      throw new BadRequestError(`400 (Bad request) "${UPDATABLE.join(', ')}" are missing, at least one parameter must be provided`);
    }
    const { runner } = scoped;
    const tagList = input.tag_list === undefined ? undefined : tagsOf(input.tag_list);
    this.validate({
      runUntagged: input.run_untagged ?? runner.runUntagged,
      tagList: tagList ?? runner.tagList,
      maximumTimeout: input.maximum_timeout,
    });
    await updateRunner(
      this.ctx.em,
      runner.id,
      {
        description: input.description,
        active: activeOf(input),
        tagList,
        runUntagged: input.run_untagged,
        locked: input.locked,
        refProtection: input.access_level,
        maximumTimeout: input.maximum_timeout,
      },
      this.ctx.now(),
    );
    return this.get((await this.findInScope(runner.id))!);
  }

  /**
   * DELETE /runners/:id: administrators delete any runner; its owners one enabled in no more than one project (the
   * original's "Runner associated with more than one project": they disable it in the others first).
   */
  async delete(scoped: RunnerInScope): Promise<void> {
    if (!can(this.ctx.caller, 'delete_runner', scoped)) throw new ForbiddenError('Runner associated with more than one project');
    await deleteRunner(this.ctx.em, scoped.runner.id);
  }

  /**
   * POST /runners: a runner registered with the instance's registration token (a shared runner), a project's runners
   * token (specific to it) or a group's (a group runner); 403 for any other token. It answers its ID and its token,
   * shown this once; the token is kept as a digest to find it by, and sealed for its detail.
   */
  async register(input: RegisterRunnerInput): Promise<RunnerRegistration> {
    const em = this.ctx.em;
    const target = await registrationTarget(em, tokenDigest(input.token));
    const runnerType: RunnerType | undefined = target.instance
      ? 'instance_type'
      : target.projectId !== null
        ? 'project_type'
        : target.groupId !== null
          ? 'group_type'
          : undefined;
    if (!runnerType) throw new ForbiddenError();
    const tagList = tagsOf(input.tag_list ?? []);
    const runUntagged = input.run_untagged ?? true;
    this.validate({ runUntagged, tagList, maximumTimeout: input.maximum_timeout });
    const secret = newSecret(this.ctx.env.secrets);
    const owner =
      runnerType === 'project_type' ? { projectId: target.projectId! } : runnerType === 'group_type' ? { groupId: target.groupId! } : {};
    const id = await insertRunner(
      em,
      {
        tokenDigest: secret.digest,
        tokenSealed: secret.sealed,
        runnerType,
        description: input.description ?? '',
        active: activeOf(input) ?? true,
        locked: input.locked ?? false,
        runUntagged,
        accessLevel: input.access_level ?? 'not_protected',
        maximumTimeout: input.maximum_timeout ?? null,
        tagList,
        info: this.selfOf(input.info),
        now: this.ctx.now(),
      },
      owner,
    );
    return { id, token: secret.token };
  }

  /** POST /runners/verify: the runner's token is valid (403 otherwise); the runner has reached the instance now. */
  async verify(input: VerifyRunnerInput): Promise<RunnerVerified> {
    const runner = await this.authenticateRunner(input.token);
    await touchRunner(this.ctx.em, runner.id, this.selfOf(input.info), this.ctx.now());
    return 200;
  }

  /** DELETE /runners: a runner removes itself with its own token (403 for an unknown one). */
  async unregister(input: UnregisterRunnerInput): Promise<void> {
    const runner = await this.authenticateRunner(input.token);
    await deleteRunner(this.ctx.em, runner.id);
  }

  /** POST /runners/reset_registration_token (administrators, as later clients call it): a new instance registration token. */
  async resetRegistrationToken(): Promise<RegistrationTokenReset> {
    const secret = newSecret(this.ctx.env.secrets);
    await replaceInstanceRegistrationToken(this.ctx.em, secret, this.ctx.now());
    return { token: secret.token, token_expires_at: null };
  }

  /**
   * The instance's registration token as application settings show it to administrators (`runners_registration_token`):
   * made with the first reading when the instance has none yet.
   */
  async registrationToken(): Promise<string> {
    const secrets = this.ctx.env.secrets;
    const rows = (await this.ctx.view()).rows;
    const sealed = await instanceRegistrationToken(rows);
    const token = this.opened(sealed);
    if (token !== undefined) return token;
    // Sealed under another secret key: it can be shown no more, so a new one takes its place.
    const secret = newSecret(secrets);
    await replaceInstanceRegistrationToken(rows, secret, this.ctx.now());
    return secret.token;
  }

  /**
   * POST /projects/:id/runners (its maintainers): a specific runner enabled in the project too. Never a group's
   * runner; the caller must own it (another's is 404, a shared one 403), and it must be neither locked nor shared (administrators may
   * enable any, and a shared one becomes the project's, as in the original). 400 when it is enabled there already.
   */
  async enable(project: ProjectInScope, input: EnableRunnerInput): Promise<RunnerShape> {
    const scoped = await this.findInScope(input.runner_id);
    // Another's runner is not there for the caller, as GET /runners/:id answers.
    if (!scoped || !can(this.ctx.caller, 'read_runner', scoped)) throw new NotFoundError('Runner');
    const { runner } = scoped;
    if (runner.runnerType === 'group_type') throw new ForbiddenError('Runner is a group runner');
    if (!can(this.ctx.caller, 'assign_runner', scoped)) throw new ForbiddenError(runner.locked ? 'Runner is locked' : NO_ACCESS);
    const now = this.ctx.now();
    if (!(await enableRunner(this.ctx.em, runner.id, project.project.id, now))) {
      throw BadRequestError.invalid('assign_to', 'Validation failed: Runner has already been taken');
    }
    if (runner.runnerType === 'instance_type') await updateRunner(this.ctx.em, runner.id, { runnerType: 'project_type' }, now);
    return presentRunner((await this.findInScope(runner.id))!.runner, now);
  }

  /**
   * DELETE /projects/:id/runners/:runner_id (its maintainers): the runner disabled in the project, unless it is its
   * only project (then the runner is to be removed instead, as the original answers).
   */
  async disable(project: ProjectInScope, runnerId: number): Promise<void> {
    const em = this.ctx.em;
    const found = await lockRunnerProjects(em, runnerId, project.project.id);
    if (!found?.enabled) throw new NotFoundError('Runner');
    if (found.projectCount === 1) throw new ForbiddenError('Only one project associated with the runner. Please remove the runner instead');
    await disableRunner(em, runnerId, project.project.id);
  }

  /** A page of the runners `scope` admits, by the list's scope and filters, newest first. */
  private async page(scope: Sql, query: (ListRunnersQuery | ListAllRunnersQuery) & PageQuery): Promise<Page<RunnerShape>> {
    const window = pageRequest(query);
    const now = this.ctx.now();
    const filter: RunnerFilter = {};
    // `scope`, `status` and `paused` name the same conditions (`scope` also a kind); given several, all hold.
    for (const name of [query.scope, query.status, query.paused === undefined ? undefined : query.paused ? 'paused' : 'active']) {
      if (name === 'active' || name === 'paused') {
        if (filter.active !== undefined && filter.active !== (name === 'active'))
          return { items: [], total: 0, page: window.page, perPage: window.perPage };
        filter.active = name === 'active';
      } else if (name === 'online' || name === 'offline') {
        if (filter.contact && filter.contact.online !== (name === 'online'))
          return { items: [], total: 0, page: window.page, perPage: window.perPage };
        filter.contact = { online: name === 'online', since: onlineSince(now) };
      } else if (name === 'never_contacted') {
        filter.neverContacted = true;
      } else if (name === 'stale') {
        filter.staleBefore = new Date(now.getTime() - STALE_AFTER_MS);
      } else if (name === 'shared') {
        filter.types = ['instance_type'];
      } else if (name === 'specific') {
        filter.types = ['group_type', 'project_type'];
      }
    }
    if (query.type) filter.types = filter.types ? filter.types.filter((type) => type === query.type) : [query.type];
    if (query.tag_list) filter.tags = tagsOf(query.tag_list);
    const { total, rows } = await runnerPage((await this.ctx.view()).rows, scope, filter, { limit: window.perPage, offset: window.offset });
    return { items: rows.map((runner) => presentRunner(runner, now)), total, page: window.page, perPage: window.perPage };
  }

  /** A sealed token opened; undefined (and said in the log) when it was sealed under another secret key. */
  private opened(sealed: string): string | undefined {
    try {
      return this.ctx.env.secrets.open(sealed);
    } catch {
      this.ctx.env.logger.error('forgekit: a runner token could not be opened: is the secret key the one it was sealed with?');
      return undefined;
    }
  }

  /** The runner a runner's own token names; 403 (the original's `forbidden!`) for none. */
  private async authenticateRunner(token: string) {
    const runner = await findRunnerByToken(this.ctx.em, tokenDigest(token));
    if (!runner) throw new ForbiddenError();
    return runner;
  }

  /** What a runner says of itself (`info`), with the address it called from. */
  private selfOf(info: RunnerInfo | undefined): RunnerSelf {
    return { ...info, ipAddress: this.ctx.clientAddress };
  }

  /** The original's validations of a runner's settings, with its messages (400). */
  private validate(next: { runUntagged: boolean; tagList: readonly string[]; maximumTimeout: number | undefined }): void {
    const problems = new Problems();
    if (!next.runUntagged && next.tagList.length === 0) problems.add('tags_list', TAGS_REQUIRED);
    if (next.maximumTimeout !== undefined && next.maximumTimeout < MINIMUM_TIMEOUT) problems.add('maximum_timeout', TIMEOUT_TOO_SHORT);
    if (problems.any) throw new BadRequestError(problems.messages);
  }
}
