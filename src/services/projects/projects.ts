import type { FilterQuery } from '@mikro-orm/core';
import { can, type ProjectInScope } from '../../auth/abilities.js';
import { newRunnersToken } from '../../auth/secret-box.js';
import { memberProjectsSql, ownedProjectsSql, projectAccessColumnsSql, projectUserIdsSql, visibleProjectsSql } from '../../auth/access-levels.js';
import { ACCESS_LEVELS, Namespace, Project, ProjectAvatar, ProjectGroupLink, ProjectMember, ProjectStar, PROJECT_ACCESS_LEVELS, User, visibilityRank, type Visibility } from '../../db/entities/index.js';
import { keyOf, ormRaw, queryRows, readRows, rowAs } from '../../db/rows.js';
import { sql, type Sql } from '../../db/sql.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, NotModifiedError } from '../../errors.js';
import type { RawFile } from '../../schemas/common.js';
import type { SettingsValues } from '../../schemas/settings.js';
import type { UserBasic } from '../../schemas/users.js';
import type { ProjectGroupLink as ProjectGroupLinkShape, ShareProjectInput } from '../../schemas/members.js';
import type {
  CreateProjectForUserInput,
  CreateProjectInput,
  ListProjectUsersQuery,
  ListProjectsQuery,
  Project as ProjectShape,
  ProjectSimple,
  ForkProjectInput,
  TransferProjectInput,
  UpdateProjectInput,
} from '../../schemas/projects.js';
import { DEFAULT_BRANCH } from '../../git/store.js';
import { FORK_REPOSITORY, IMPORT_REPOSITORY } from '../../jobs/repository-jobs.js';
import { importUrlProblem } from './import-url.js';
import { lockRepository, setHeadBranch } from '../repository/writes.js';
import type { Context } from '../context.js';
import { memberExpiry } from './members.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentProjects, presentProjectsSimple, type ProjectRelations } from '../present/projects.js';
import { presentUserBasic, USER_BASIC_FIELDS } from '../present/users.js';
import { likePattern } from '../search.js';
import { checkAvatar, Problems, TAKEN } from '../identity/user-validation.js';

/** The caller's levels on a project (ProjectInScope's). */
type ProjectAccess = Pick<ProjectInScope, 'accessLevel' | 'projectAccess' | 'groupAccess'>;

/** The original's rules for names and paths (Gitlab::Regex of its era), with its messages. */
const NAME_RULE = /^[\p{L}\p{N}\u{00A9}-\u{1f9c0}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1f9c0}_. ]*$/u;
const NAME_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";
const PATH_RULE = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;
const PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

/** A name and a path by the original's rules; `undefined` is one not given (an update that keeps it). */
function checkNameAndPath(problems: Problems, name: string | undefined, path: string | undefined): void {
  if (name !== undefined) {
    if (name.trim() === '') problems.add('name', "can't be blank");
    else if (!NAME_RULE.test(name)) problems.add('name', NAME_MESSAGE);
  }
  if (path === '') problems.add('path', "can't be blank");
  else if (path !== undefined && (!PATH_RULE.test(path) || path.endsWith('.git') || path.endsWith('.atom'))) problems.add('path', PATH_MESSAGE);
}

/** A path made from a name, as the original makes one: lowercased, each run of other characters a dash. */
export const pathFromName = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '-')
    .replace(/^[-.]+|-+$/g, '');

/**
 * An `import_url`: a URL the job can clone over HTTP(S), whose host resolves to public addresses only unless
 * local requests are allowed, with the original's messages (src/services/projects/import-url.ts).
 */
async function checkImportUrl(problems: Problems, importUrl: string, allowLocalRequests: boolean): Promise<void> {
  const problem = await importUrlProblem(importUrl, allowLocalRequests);
  if (problem) problems.add('import_url', problem);
}

/** The least open of some visibilities. */
const leastOpen = (visibilities: Visibility[]): Visibility => visibilities.reduce((least, next) => (visibilityRank(next) < visibilityRank(least) ? next : least));

/** The request's settings as the entity names them (the request spells one of them differently). */
const SETTINGS = {
  issues_enabled: 'issuesEnabled',
  merge_requests_enabled: 'mergeRequestsEnabled',
  jobs_enabled: 'jobsEnabled',
  wiki_enabled: 'wikiEnabled',
  snippets_enabled: 'snippetsEnabled',
  resolve_outdated_diff_discussions: 'resolveOutdatedDiffDiscussions',
  container_registry_enabled: 'containerRegistryEnabled',
  shared_runners_enabled: 'sharedRunnersEnabled',
  // The later spelling first: given both, the specification's wins.
  public_builds: 'publicJobs',
  public_jobs: 'publicJobs',
  only_allow_merge_if_pipeline_succeeds: 'onlyAllowMergeIfPipelineSucceeds',
  only_allow_merge_if_all_discussions_are_resolved: 'onlyAllowMergeIfAllDiscussionsAreResolved',
  lfs_enabled: 'lfsEnabled',
  request_access_enabled: 'requestAccessEnabled',
  printing_merge_request_link_enabled: 'printingMergeRequestLinkEnabled',
} as const;


export class ProjectsService {
  constructor(private readonly ctx: Context) {}

  private get em() {
    return this.ctx.em;
  }

  /**
   * A project by ID or by full path (`group/subgroup/project`, any case), with its namespace and the caller's
   * levels on it, in one statement; null when there is none.
   */
  async findInScope(idOrPath: number | string): Promise<ProjectInScope | null> {
    let where: Sql;
    if (typeof idOrPath === 'number') {
      where = sql`p."id" = ${idOrPath}`;
    } else {
      const slash = idOrPath.lastIndexOf('/');
      if (slash <= 0) return null;
      // The two unique indexes' expressions: the namespace's full path, then the path in it.
      where = sql`lower(n."full_path") = lower(${idOrPath.slice(0, slash)}) and lower(p."path") = lower(${idOrPath.slice(slash + 1)})`;
    }
    const [row] = await queryRows(
      this.em,
      sql`select to_jsonb(p) as "project", to_jsonb(n) as "namespace", ${projectAccessColumnsSql(this.ctx.caller)}
       from "projects" p join "namespaces" n on n."id" = p."namespace_id" where ${where}`,
    );
    if (!row) return null;
    return {
      project: rowAs(this.em, Project, row.project),
      namespace: rowAs(this.em, Namespace, row.namespace),
      accessLevel: Number(row.access_level),
      projectAccess: row.project_access === null ? null : Number(row.project_access),
      groupAccess: row.group_access === null ? null : Number(row.group_access),
    };
  }

  /** A project a call names beside its scope (by ID): 404 when there is none. */
  async findInScopeOrFail(id: number): Promise<ProjectInScope> {
    const scoped = await this.findInScope(id);
    if (!scoped || !can(this.ctx.caller, 'read_project', scoped)) throw new NotFoundError('Project');
    return scoped;
  }

  /**
   * GET /projects: the projects the caller may see (public ones without a token), filtered and ordered in
   * SQL; what a page embeds is loaded once for the page.
   */
  async list(query: ListProjectsQuery & PageQuery, scope: FilterQuery<Project> = {}): Promise<Page<ProjectShape | ProjectSimple>> {
    const caller = this.ctx.caller;
    // Conditions on the projects table aliased `p` inside a subquery: the visibility rules are written once, for that alias.
    const inProjects = (condition: Sql) => ({ id: { $in: ormRaw(sql`(select p."id" from "projects" p where ${condition})`) } });
    const where: FilterQuery<Project>[] = [scope];
    if (!can(caller, 'read_all_resources')) where.push(inProjects(visibleProjectsSql(caller)));
    if (query.archived !== undefined) where.push({ archived: query.archived });
    if (query.visibility !== undefined) where.push({ visibility: query.visibility });
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }, { description: { $ilike: pattern } }] });
    }
    if (query.owned) where.push(inProjects(ownedProjectsSql(caller)));
    if (query.membership) where.push(inProjects(memberProjectsSql(caller)));
    if (query.starred) where.push({ id: { $in: ormRaw(sql`(select s."project_id" from "project_stars" s where s."user_id" = ${caller.user?.id ?? 0})`) } });
    if (query.with_issues_enabled) where.push({ issuesEnabled: true });
    if (query.with_merge_requests_enabled) where.push({ mergeRequestsEnabled: true });
    const orderField = { id: 'id', name: 'name', path: 'path', created_at: 'createdAt', updated_at: 'updatedAt', last_activity_at: 'lastActivityAt' }[query.order_by ?? 'created_at'];
    const direction: 'asc' | 'desc' = query.sort === 'asc' ? 'asc' : 'desc';
    const orderBy = orderField === 'id' ? { id: direction } : { [orderField]: direction, id: direction };
    const page = await findPage(this.em, Project, { $and: where }, orderBy, query, { plainRows: true });
    const relations = await this.relationsOf(page.items, new Map(), { statistics: query.statistics });
    const view = await this.ctx.view();
    return { ...page, items: query.simple ? presentProjectsSimple(page.items, relations, view) : presentProjects(page.items, relations, view) };
  }

  /** GET /projects/:id/users: the users with access to the project, by username; `search` in names and usernames. */
  async users(scoped: ProjectInScope, query: ListProjectUsersQuery & PageQuery): Promise<Page<UserBasic>> {
    const where: FilterQuery<User>[] = [{ id: { $in: ormRaw(sql`(${projectUserIdsSql(scoped.project.id)})`) } }];
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { username: { $ilike: pattern } }] });
    }
    const page = await findPage(this.em, User, { $and: where }, { usernameLower: 'asc' }, query, { plainRows: true, fields: USER_BASIC_FIELDS });
    const view = await this.ctx.view();
    return { ...page, items: page.items.map((user) => presentUserBasic(user, view)) };
  }

  /** GET /users/:user_id/projects: the projects in the user's own namespace that the caller may see. */
  listOfUser(user: User, query: ListProjectsQuery & PageQuery): Promise<Page<ProjectShape | ProjectSimple>> {
    return this.list(query, { namespace: { owner: user.id } });
  }

  /** POST /projects: a project in the caller's namespace or one it may create projects in, with an empty repository. */
  async create(input: CreateProjectInput): Promise<ProjectShape> {
    return this.createAs(this.ctx.user, await this.targetNamespace(input.namespace_id), input);
  }

  /** POST /projects/user/:user_id (administrators): a project in the user's namespace, made as the user. */
  async createForUser(user: User, input: CreateProjectForUserInput): Promise<ProjectShape> {
    return this.createAs(user, await this.em.findOneOrFail(Namespace, { owner: user.id }), input);
  }

  /**
   * POST /projects/:id/fork: a project like the source in a namespace the caller may create projects in (its own
   * by default), answered at once with `import_status` `scheduled`; a job copies the repository. A name or path
   * taken there is 409, as the original answers it.
   */
  async fork(scoped: ProjectInScope, input: ForkProjectInput): Promise<ProjectShape> {
    const target = input.namespace === undefined ? { owner: this.ctx.currentUser.id } : { id: (await this.visibleNamespace(input.namespace))?.id ?? 0 };
    // Managed by the call's EntityManager: the fork's row refers to it.
    const namespace = await this.em.findOne(Namespace, target);
    if (!namespace || !(await this.mayCreateProjectsIn(namespace))) throw new NotFoundError('Target Namespace');
    const source = scoped.project;
    // No more open than its source, the group it goes into, or what was asked for: a fork never publishes what its source hides.
    const visibility = leastOpen([source.visibility, ...(namespace.kind === 'group' ? [namespace.visibility] : []), ...(input.visibility ? [input.visibility] : [])]);
    const copied = {
      name: input.name ?? source.name,
      path: input.path ?? source.path,
      description: source.description ?? undefined,
      visibility,
      tag_list: source.tagList,
      ci_config_path: source.ciConfigPath ?? undefined,
      default_branch: source.defaultBranch ?? undefined,
    };
    return this.createAs(this.ctx.user, namespace, copied, { forkedFrom: source }).catch((error: unknown) => {
      throw error instanceof BadRequestError && typeof error.messages === 'object' ? new ConflictError(error.messages) : error;
    });
  }

  /**
   * A project made in `namespace` by `user`, with its repository: empty, or (a fork, an `import_url`) filled by a
   * job enqueued with the row, in its transaction, so that one is there exactly when the other is.
   */
  private async createAs(
    user: User,
    namespace: Namespace,
    input: CreateProjectInput & { default_branch?: string },
    origin: { forkedFrom?: Project } = {},
  ): Promise<ProjectShape> {
    if (input.name === undefined && input.path === undefined) {
      throw new BadRequestError('400 (Bad request) "name, path" are missing, at least one parameter must be provided');
    }
    const name = input.name ?? input.path!;
    const path = input.path ?? pathFromName(name);
    const settings = await this.ctx.settings();
    const visibility: Visibility = input.visibility ?? (settings.default_project_visibility as Visibility);

    const problems = new Problems();
    checkNameAndPath(problems, name, path);
    this.checkVisibility(problems, visibility, settings, namespace);
    checkAvatar(problems, input.avatar);
    if (input.import_url !== undefined) {
      await checkImportUrl(problems, input.import_url, settings.allow_local_requests_from_web_hooks_and_services || this.ctx.env.allowLocalRequests);
    }
    if (!problems.any) await this.checkTaken(problems, namespace, name, path);
    // A user's `projects_limit` counts the projects in its own namespace, whoever makes them there.
    if (namespace.kind === 'user') {
      const owner = keyOf(namespace.owner) === user.id ? user : await this.em.findOneOrFail(User, { id: keyOf(namespace.owner) });
      await this.checkLimit(problems, owner);
    }
    if (problems.any) throw new BadRequestError(problems.messages);

    const project = this.em.create(Project, {
      name,
      path,
      namespace,
      creator: user,
      description: input.description ?? null,
      visibility,
      tagList: [...new Set(input.tag_list ?? input.topics ?? [])],
      ciConfigPath: input.ci_config_path ?? null,
      defaultBranch: input.default_branch ?? null,
      avatarFilename: input.avatar?.filename ?? null,
      forkedFrom: origin.forkedFrom?.id ?? null,
      // The URL may hold credentials: sealed as the runners token is.
      importUrl: input.import_url ? this.ctx.env.secrets.seal(input.import_url) : null,
      importStatus: origin.forkedFrom || input.import_url ? 'scheduled' : 'none',
      repositoryStorage: settings.repository_storages[Math.floor(Math.random() * settings.repository_storages.length)],
      ...newRunnersToken(this.ctx.env.secrets),
      ...this.settingsOf(input),
    });
    // As the original does: a user's namespace's user is its project's maintainer as well as the namespace's
    // owner; in a group, the group's members have what the group gives them.
    if (namespace.kind === 'user') this.em.create(ProjectMember, { project, user: keyOf(namespace.owner), accessLevel: ACCESS_LEVELS.maintainer });
    if (input.avatar) this.setAvatar(project, input.avatar);
    await this.em.flush().catch((error: unknown) => {
      throw takenAttribute(error) === 'path' ? BadRequestError.invalid('path', TAKEN) : error;
    });
    // The repository once the row has its ID, inside the transaction: should it fail, the project is not made.
    await this.ctx.env.repositories.create(project.repositoryStorage, project.id, input.default_branch ?? DEFAULT_BRANCH);
    if (origin.forkedFrom) await this.ctx.env.jobs.enqueue(this.em, FORK_REPOSITORY, { projectId: project.id, sourceProjectId: origin.forkedFrom.id });
    else if (input.import_url) await this.ctx.env.jobs.enqueue(this.em, IMPORT_REPOSITORY, { projectId: project.id });
    return (await this.present([project]))[0];
  }

  /**
   * PUT /projects/:id: its maintainers change its settings; renaming it and changing its visibility are its
   * owners' (403 to a maintainer), as in the original.
   */
  async update(scoped: ProjectInScope, input: UpdateProjectInput): Promise<ProjectShape> {
    if (Object.values(input).every((value) => value === undefined)) {
      throw new BadRequestError('400 (Bad request) at least one parameter must be provided');
    }
    const project = await this.em.findOneOrFail(Project, { id: scoped.project.id });
    const renames = (input.name !== undefined && input.name !== project.name) || (input.path !== undefined && input.path !== project.path);
    const revisibles = input.visibility !== undefined && input.visibility !== project.visibility;
    if ((renames && !can(this.ctx.caller, 'rename_project', scoped)) || (revisibles && !can(this.ctx.caller, 'change_visibility_level', scoped))) {
      throw new ForbiddenError();
    }
    const settings = await this.ctx.settings();
    const problems = new Problems();
    checkNameAndPath(problems, input.name, input.path);
    checkAvatar(problems, input.avatar);
    if (revisibles) {
      this.checkVisibility(problems, input.visibility!, settings, scoped.namespace);
      await this.checkVisibilityAsFork(problems, project, input.visibility!);
    }
    if (!problems.any && renames) await this.checkTaken(problems, scoped.namespace, input.name ?? '', input.path ?? '', project.id);
    const changesDefaultBranch = input.default_branch !== undefined && input.default_branch !== project.defaultBranch;
    if (changesDefaultBranch && !(await this.ctx.repositoryOf(project).branch(input.default_branch!))) {
      problems.add('base', `Could not change HEAD: branch '${input.default_branch}' does not exist`);
    }
    if (problems.any) throw new BadRequestError(problems.messages);
    if (input.name !== undefined) project.name = input.name;
    if (input.path !== undefined) project.path = input.path;
    if (input.default_branch !== undefined) project.defaultBranch = input.default_branch;
    if (input.description !== undefined) project.description = input.description;
    if (input.visibility !== undefined) project.visibility = input.visibility;
    const tags = input.tag_list ?? input.topics;
    if (tags !== undefined) project.tagList = [...new Set(tags)];
    if (input.ci_config_path !== undefined) project.ciConfigPath = input.ci_config_path;
    if (input.avatar) {
      project.avatarFilename = input.avatar.filename;
      await this.em.nativeDelete(ProjectAvatar, { project: project.id });
      this.setAvatar(project, input.avatar);
    }
    Object.assign(project, this.settingsOf(input));
    if (revisibles && visibilityRank(input.visibility!) < visibilityRank(scoped.project.visibility)) await this.unlinkForks(project);
    await this.em.flush().catch((error: unknown) => {
      throw takenAttribute(error) === 'path' ? BadRequestError.invalid('path', TAKEN) : error;
    });
    // HEAD, which clones check out, names the new default branch: last, once the row is written.
    if (changesDefaultBranch) await setHeadBranch(this.ctx, scoped, input.default_branch!);
    return (await this.present([project], new Map([[project.id, scoped]])))[0];
  }

  /** POST /projects/:id/archive and /unarchive (its maintainers): 201 with the project, changed or not, as in the original. */
  async setArchived(scoped: ProjectInScope, archived: boolean): Promise<ProjectShape> {
    // After the repository's writes in flight: none lands once the project is archived.
    await lockRepository(this.ctx, scoped.project.id);
    await this.em.nativeUpdate(Project, { id: scoped.project.id }, { archived });
    return this.presentOne({ ...scoped, project: { ...scoped.project, archived } });
  }

  /** POST /projects/:id/star: 304 when the caller has starred it already. */
  async star(scoped: ProjectInScope): Promise<ProjectShape> {
    const user = this.ctx.currentUser.id;
    const [inserted] = await queryRows(
      this.em,
      sql`insert into "project_stars" ("project_id", "user_id", "created_at") values (${scoped.project.id}, ${user}, now()) on conflict do nothing returning "id"`,
    );
    if (!inserted) throw new NotModifiedError();
    return this.presentOne(scoped);
  }

  /** POST /projects/:id/unstar: 304 when the caller has not starred it. */
  async unstar(scoped: ProjectInScope): Promise<ProjectShape> {
    const removed = await this.em.nativeDelete(ProjectStar, { project: scoped.project.id, user: this.ctx.currentUser.id });
    if (!removed) throw new NotModifiedError();
    return this.presentOne(scoped);
  }

  /** DELETE /projects/:id: the project and everything in it; its repository once that is committed. */
  async delete(scoped: ProjectInScope): Promise<void> {
    const { project } = scoped;
    await this.em.nativeDelete(Project, { id: project.id });
    this.ctx.afterCommit(() => this.ctx.env.repositories.remove(project.repositoryStorage, project.id));
  }

  /** The project's uploaded avatar, by its file name (what `avatar_url` names). */
  async avatar(scoped: ProjectInScope, filename: string): Promise<RawFile> {
    const avatar = await this.em.findOne(ProjectAvatar, { project: scoped.project.id });
    if (!avatar || avatar.filename !== filename) throw new NotFoundError();
    return { content_type: avatar.contentType, data: avatar.data };
  }

  private setAvatar(project: Project, avatar: NonNullable<CreateProjectInput['avatar']>): void {
    this.em.create(ProjectAvatar, { project, filename: avatar.filename, contentType: avatar.content_type, data: Buffer.from(avatar.data) });
  }

  /** PUT /projects/:id/transfer (its owners): the project moved to a namespace the caller may create projects in. */
  async transfer(scoped: ProjectInScope, input: TransferProjectInput): Promise<ProjectShape> {
    const target = await this.visibleNamespace(input.namespace);
    if (!target) throw new NotFoundError('Namespace');
    const project = await this.moveTo(scoped, target);
    // The caller's levels on it may have changed with its namespace.
    return (await this.present([project]))[0];
  }

  /**
   * The project moved to `namespace`, as the original's transfer does: not to where it is, nor where the caller
   * may not create projects, nor where its name or path is taken; no more open than a group it moves into.
   * Its repository stays where it is (its path comes from its ID).
   */
  async moveTo(scoped: ProjectInScope, namespace: Namespace): Promise<Project> {
    const project = await this.em.findOneOrFail(Project, { id: scoped.project.id });
    const refuse = (reason: string) => new BadRequestError(`Failed to transfer project {:new_namespace=>[${JSON.stringify(reason)}]}`);
    if (keyOf(project.namespace) === namespace.id) throw refuse('Project is already in this namespace.');
    if (!(await this.mayCreateProjectsIn(namespace))) throw refuse('Transfer failed, please contact an admin.');
    const problems = new Problems();
    await this.checkTaken(problems, namespace, project.name, project.path, project.id);
    if (problems.any) throw refuse('Project with same name or path in target namespace already exists');
    if (namespace.kind === 'group' && visibilityRank(project.visibility) > visibilityRank(namespace.visibility)) {
      project.visibility = namespace.visibility;
      await this.unlinkForks(project);
    }
    project.namespace = this.em.getReference(Namespace, namespace.id);
    await this.em.flush().catch((error: unknown) => {
      throw takenAttribute(error) === 'path' ? refuse('Project with same name or path in target namespace already exists') : error;
    });
    return project;
  }

  /**
   * POST /projects/:id/share (its maintainers): the members of a group the caller may see get up to `group_access`
   * on the project; not its own group or one above it, and once per group.
   */
  async share(scoped: ProjectInScope, input: ShareProjectInput): Promise<ProjectGroupLinkShape> {
    if (!PROJECT_ACCESS_LEVELS.includes(input.group_access)) throw BadRequestError.invalid('group_access', 'does not have a valid value');
    const expiresAt = memberExpiry(input.expires_at);
    const group = await this.ctx.groups.findInScope(input.group_id);
    if (!group || !can(this.ctx.caller, 'read_group', group)) throw new NotFoundError('Group');
    if (scoped.namespace.traversalIds.includes(group.group.id)) throw new ConflictError('Project cannot be shared with the group it is in or one of its ancestors.');
    const [link] = await queryRows(
      this.em,
      sql`insert into "project_group_links" ("project_id", "group_id", "group_access", "expires_at", "created_at")
       values (${scoped.project.id}, ${group.group.id}, ${input.group_access}, ${expiresAt}, now()) on conflict do nothing returning "id"`,
    );
    if (!link) throw new ConflictError('Group already shared with this group');
    return { id: link.id as number, project_id: scoped.project.id, group_id: group.group.id, group_access: input.group_access, expires_at: expiresAt };
  }

  /** DELETE /projects/:id/share/:group_id (its maintainers): the share taken back. */
  async unshare(scoped: ProjectInScope, groupId: number): Promise<void> {
    const removed = await this.em.nativeDelete(ProjectGroupLink, { project: scoped.project.id, group: groupId });
    if (!removed) throw new NotFoundError('Group Link');
  }

  /** GET /projects/:id: the project, with its statistics when asked. */
  async presentOne(scoped: ProjectInScope, options: { statistics?: boolean } = {}): Promise<ProjectShape> {
    return (await this.present([scoped.project], new Map([[scoped.project.id, scoped]]), options))[0];
  }

  /** Projects in the caller's shape, with what they embed loaded once for all of them. */
  async present(projects: Project[], known = new Map<number, ProjectAccess & { namespace?: Namespace }>(), options: { statistics?: boolean } = {}): Promise<ProjectShape[]> {
    return presentProjects(projects, await this.relationsOf(projects, known, options), await this.ctx.view());
  }

  /**
   * What the projects embed, a statement per relation for all of them. `known`: the caller's levels already
   * read, by project, with the project's namespace when the scope read it too (GET /projects/:id and the calls
   * that answer one project), which is not read again.
   */
  private async relationsOf(projects: Project[], known: Map<number, ProjectAccess & { namespace?: Namespace }>, options: { statistics?: boolean } = {}): Promise<ProjectRelations> {
    const relations: ProjectRelations = {
      namespaces: new Map(),
      owners: new Map(),
      forksCount: new Map(),
      starCount: new Map(),
      sharedWithGroups: new Map(),
      forkedFrom: new Map(),
      access: new Map(known),
      statistics: new Map(),
      runnersTokens: new Map(),
    };
    if (!projects.length) return relations;
    const em = (await this.ctx.view()).rows;
    const ids = projects.map((project) => project.id);
    const forkedFromIds = projects.filter((project) => project.forkedFrom).map((project) => keyOf(project.forkedFrom));
    const forkedFrom = forkedFromIds.length ? await readRows(em, Project, sql`select * from "projects" where "id" = any(${forkedFromIds})`) : [];
    for (const { namespace } of known.values()) if (namespace) relations.namespaces.set(namespace.id, namespace);
    const namespaceIds = [...new Set([...projects, ...forkedFrom].map((project) => keyOf(project.namespace)))].filter((id) => !relations.namespaces.has(id));
    if (namespaceIds.length) {
      for (const namespace of await readRows(em, Namespace, sql`select * from "namespaces" where "id" = any(${namespaceIds})`)) relations.namespaces.set(namespace.id, namespace);
    }
    const ownerIds = [...relations.namespaces.values()].filter((namespace) => namespace.owner).map((namespace) => keyOf(namespace.owner));
    if (ownerIds.length) {
      for (const owner of await readRows(em, User, sql`select "id", "name", "created_at" from "users" where "id" = any(${ownerIds})`)) relations.owners.set(owner.id, owner);
    }
    const counts = (await queryRows(
      em,
      sql`select p."id", (select count(*)::int from "projects" f where f."forked_from_id" = p."id") as "forks",
        (select count(*)::int from "project_stars" s where s."project_id" = p."id") as "stars"
       from "projects" p where p."id" = any(${ids})`,
    )) as { id: number; forks: number; stars: number }[];
    for (const count of counts) {
      relations.forksCount.set(count.id, count.forks);
      relations.starCount.set(count.id, count.stars);
    }
    const shares = (await queryRows(
      em,
      sql`select l."project_id", g."id" as "group_id", g."full_name" as "group_name", l."group_access" as "group_access_level"
       from "project_group_links" l join "namespaces" g on g."id" = l."group_id" where l."project_id" = any(${ids}) order by l."id"`,
    )) as { project_id: number; group_id: number; group_name: string; group_access_level: number }[];
    for (const { project_id, ...share } of shares) relations.sharedWithGroups.set(project_id, [...(relations.sharedWithGroups.get(project_id) ?? []), share]);
    const sources = new Map(forkedFrom.map((source) => [source.id, source]));
    for (const project of projects) {
      const source = project.forkedFrom ? sources.get(keyOf(project.forkedFrom)) : undefined;
      if (source) relations.forkedFrom.set(project.id, { ...source, namespace: relations.namespaces.get(keyOf(source.namespace))! });
    }
    const unknown = projects.filter((project) => !relations.access.has(project.id));
    if (unknown.length) {
      const rows = (await queryRows(
        em,
        sql`select p."id", ${projectAccessColumnsSql(this.ctx.caller)} from "projects" p join "namespaces" n on n."id" = p."namespace_id" where p."id" = any(${unknown.map((project) => project.id)})`,
      )) as { id: number; access_level: number; project_access: number | null; group_access: number | null }[];
      for (const row of rows) relations.access.set(row.id, { accessLevel: row.access_level, projectAccess: row.project_access, groupAccess: row.group_access });
    }
    // As each project's scope would be, for its policy.
    const scopedOf = (project: Project): ProjectInScope => ({
      project,
      namespace: relations.namespaces.get(keyOf(project.namespace))!,
      ...(relations.access.get(project.id) ?? { accessLevel: 0, projectAccess: null, groupAccess: null }),
    });
    // Its runners token for those who administer it.
    for (const project of projects) {
      if (!project.runnersTokenSealed || !can(this.ctx.caller, 'admin_project', scopedOf(project))) continue;
      try {
        relations.runnersTokens.set(project.id, this.ctx.env.secrets.open(project.runnersTokenSealed));
      } catch {
        // Sealed under another secret key (the configured one changed): not shown, and said once per call.
        this.ctx.env.logger.error('forgekit: a runners token could not be opened: is the secret key the one it was sealed with?', { project: project.id });
        break;
      }
    }
    if (options.statistics) {
      // Measured from each repository, for those who may read them.
      const readers = projects.filter((project) => can(this.ctx.caller, 'read_statistics', scopedOf(project)));
      const measured = await Promise.all(readers.map((project) => this.ctx.env.repositories.statistics(project.repositoryStorage, project.id)));
      readers.forEach((project, index) => relations.statistics.set(project.id, measured[index]));
    }
    return relations;
  }

  /** The namespace asked for (the caller's own by default): its own, or a group it maintains or owns (any, for administrators). */
  private async targetNamespace(namespaceId: number | undefined): Promise<Namespace> {
    if (namespaceId === undefined) return this.em.findOneOrFail(Namespace, { owner: this.ctx.currentUser.id });
    const namespace = await this.em.findOne(Namespace, { id: namespaceId });
    if (namespace && (await this.mayCreateProjectsIn(namespace))) return namespace;
    throw BadRequestError.invalid('namespace', 'is not valid');
  }

  /** A namespace by ID or full path that the caller may see: its own, any group it sees (though only its members see it in GET /namespaces); null otherwise. */
  private async visibleNamespace(idOrPath: number | string): Promise<Namespace | null> {
    const target = await this.ctx.namespaces.findInScope(idOrPath);
    if (!target) return null;
    if (can(this.ctx.caller, 'read_namespace', target)) return target.namespace;
    const group = target.namespace.kind === 'group' ? await this.ctx.groups.findInScope(target.namespace.id) : null;
    return group && can(this.ctx.caller, 'read_group', group) ? target.namespace : null;
  }

  /** Whether the caller may put projects in the namespace (namespacePolicy's `create_projects`). */
  private async mayCreateProjectsIn(namespace: Namespace): Promise<boolean> {
    const scoped = await this.ctx.namespaces.findInScope(namespace.id);
    return scoped !== null && can(this.ctx.caller, 'create_projects', scoped);
  }

  /** `restricted_visibility_levels` (levels that only administrators may give a project); a project is no more open than its group. */
  private checkVisibility(problems: Problems, visibility: Visibility, settings: SettingsValues, namespace: Namespace): void {
    if (!can(this.ctx.caller, 'admin_all_resources') && settings.restricted_visibility_levels?.includes(visibility)) {
      problems.add('visibility_level', `${visibility} has been restricted by your GitLab administrator`);
    }
    if (namespace.kind === 'group' && visibilityRank(visibility) > visibilityRank(namespace.visibility)) {
      problems.add('visibility_level', `${visibility} is not allowed in a ${namespace.visibility} group.`);
    }
  }

  /** A fork is no more open than its source (`visibility_level_allowed_as_fork`). */
  private async checkVisibilityAsFork(problems: Problems, project: Project, visibility: Visibility): Promise<void> {
    if (!project.forkedFrom) return;
    const [source] = await queryRows(this.em, sql`select "visibility" from "projects" where "id" = ${keyOf(project.forkedFrom)}`);
    if (source && visibilityRank(visibility) > visibilityRank(source.visibility as Visibility)) {
      problems.add('visibility_level', `${visibility} is not allowed since the fork source project has lower visibility.`);
    }
  }

  /**
   * A project made less visible leaves its fork network, as the original's UnlinkForkService does: it is no
   * longer its source's fork, and its forks (which may be more open than it is now) are no longer its forks.
   */
  private async unlinkForks(project: Project): Promise<void> {
    project.forkedFrom = null;
    await this.em.nativeUpdate(Project, { forkedFrom: project.id }, { forkedFrom: null });
  }

  /** Name and path are each unique in the namespace, regardless of case (`except`: the project being renamed). */
  private async checkTaken(problems: Problems, namespace: Namespace, name: string, path: string, except = 0): Promise<void> {
    const [taken] = await queryRows(
      this.em,
      sql`select bool_or(lower("name") = lower(${name})) as "name", bool_or(lower("path") = lower(${path})) as "path" from "projects" where "namespace_id" = ${namespace.id} and "id" <> ${except}`,
    );
    if (taken?.name) problems.add('name', TAKEN);
    if (taken?.path) problems.add('path', TAKEN);
  }

  /** A user's `projects_limit` bounds the projects in its own namespace. */
  private async checkLimit(problems: Problems, user: User): Promise<void> {
    const owned = await this.em.count(Project, { namespace: { owner: user.id } });
    if (user.projectsLimit === 0) problems.add('limit_reached', 'Personal project creation is not allowed. Please contact your administrator with questions');
    else if (owned >= user.projectsLimit) problems.add('limit_reached', `Your project limit is ${user.projectsLimit} projects! Please contact your administrator to increase it`);
  }

  private settingsOf(input: CreateProjectInput | UpdateProjectInput): Partial<Record<(typeof SETTINGS)[keyof typeof SETTINGS], boolean>> {
    const settings: Partial<Record<(typeof SETTINGS)[keyof typeof SETTINGS], boolean>> = {};
    for (const [parameter, property] of Object.entries(SETTINGS)) {
      const value = (input as Partial<Record<keyof typeof SETTINGS, boolean>>)[parameter as keyof typeof SETTINGS];
      if (value !== undefined) settings[property] = value;
    }
    return settings;
  }
}
