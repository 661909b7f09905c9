import type { FilterQuery } from '@mikro-orm/core';
import { can, type ProjectInScope } from '../../auth/abilities.js';
import { memberProjectsSql, ownedProjectsSql, visibleProjectsSql } from '../../auth/access-levels.js';
import { type Namespace, Project, ProjectAvatar, ProjectStar, User, visibilityRank } from '../../db/entities/index.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError, ForbiddenError, NotFoundError, NotModifiedError } from '../../errors.js';
import type { RawFile } from '../../schemas/common.js';
import type { UserBasic } from '../../schemas/users.js';
import type {
  ListProjectUsersQuery,
  ListProjectsQuery,
  Project as ProjectShape,
  ProjectSimple,
  UpdateProjectInput,
} from '../../schemas/projects.js';
import { lockRepository, setHeadBranch } from '../repository/writes.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentProjects, presentProjectsSimple } from '../present/projects.js';
import { presentUserBasic, USER_BASIC_FIELDS } from '../present/users.js';
import { likePattern } from '../search.js';
import { checkAvatar, Problems, TAKEN } from '../identity/user-validation.js';
import {
  checkNameAndPath,
  checkTaken,
  checkVisibility,
  checkVisibilityAsFork,
  setProjectAvatar,
  settingsOf,
  unlinkForks,
} from './project-rules.js';
import {
  findProjectInScope,
  insertStar,
  projectRelations,
  projectsWhere,
  projectUsersWhere,
  starredBy,
  type ProjectAccess,
  projectsAsEventsName,
  projectThen,
} from './project-store.js';
import { Service } from '../service.js';

/** Projects found, listed, read, changed, archived, starred and deleted. */
export class ProjectsService extends Service {
  /**
   * A project by ID or by full path (`group/subgroup/project`, any case), with its namespace and the caller's
   * levels on it, in one statement; null when there is none.
   */
  findInScope(idOrPath: number | string): Promise<ProjectInScope | null> {
    return findProjectInScope(this.ctx, idOrPath);
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
    const today = this.ctx.today();
    const where: FilterQuery<Project>[] = [scope];
    if (!can(caller, 'read_all_resources')) where.push(projectsWhere(visibleProjectsSql(caller, today)));
    if (query.archived !== undefined) where.push({ archived: query.archived });
    if (query.visibility !== undefined) where.push({ visibility: query.visibility });
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }, { description: { $ilike: pattern } }] });
    }
    if (query.owned) where.push(projectsWhere(ownedProjectsSql(caller, today)));
    if (query.membership) where.push(projectsWhere(memberProjectsSql(caller, today)));
    if (query.starred) where.push(starredBy(caller.user?.id ?? 0));
    if (query.with_issues_enabled) where.push({ issuesEnabled: true });
    if (query.with_merge_requests_enabled) where.push({ mergeRequestsEnabled: true });
    const orderField = {
      id: 'id',
      name: 'name',
      path: 'path',
      created_at: 'createdAt',
      updated_at: 'updatedAt',
      last_activity_at: 'lastActivityAt',
    }[query.order_by ?? 'created_at'];
    const direction: 'asc' | 'desc' = query.sort === 'asc' ? 'asc' : 'desc';
    const orderBy = orderField === 'id' ? { id: direction } : { [orderField]: direction, id: direction };
    const page = await findPage(this.em, Project, { $and: where }, orderBy, query, { plainRows: true });
    const relations = await projectRelations(this.ctx, page.items, new Map(), { statistics: query.statistics });
    const view = await this.ctx.view();
    return {
      ...page,
      items: query.simple ? presentProjectsSimple(page.items, relations, view) : presentProjects(page.items, relations, view),
    };
  }

  /** GET /projects/:id/users: the users with access to the project, by username; `search` in names and usernames. */
  async users(scoped: ProjectInScope, query: ListProjectUsersQuery & PageQuery): Promise<Page<UserBasic>> {
    const where: FilterQuery<User>[] = [projectUsersWhere(scoped.project.id, this.ctx.today())];
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { username: { $ilike: pattern } }] });
    }
    const page = await findPage(this.em, User, { $and: where }, { usernameLower: 'asc' }, query, {
      plainRows: true,
      fields: USER_BASIC_FIELDS,
    });
    const view = await this.ctx.view();
    return { ...page, items: page.items.map((user) => presentUserBasic(user, view)) };
  }

  /** GET /users/:user_id/projects: the projects in the user's own namespace that the caller may see. */
  listOfUser(user: User, query: ListProjectsQuery & PageQuery): Promise<Page<ProjectShape | ProjectSimple>> {
    return this.list(query, { namespace: { owner: user.id } });
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
    if (
      (renames && !can(this.ctx.caller, 'rename_project', scoped)) ||
      (revisibles && !can(this.ctx.caller, 'change_visibility_level', scoped))
    ) {
      throw new ForbiddenError();
    }
    const settings = await this.ctx.settings();
    const problems = new Problems();
    checkNameAndPath(problems, input.name, input.path);
    checkAvatar(problems, input.avatar);
    if (revisibles) {
      checkVisibility(this.ctx, problems, input.visibility!, settings, scoped.namespace);
      await checkVisibilityAsFork(this.ctx, problems, project, input.visibility!);
    }
    if (!problems.any && renames) await checkTaken(this.ctx, problems, scoped.namespace, input.name ?? '', input.path ?? '', project.id);
    const changesDefaultBranch = input.default_branch !== undefined && input.default_branch !== project.defaultBranch;
    if (changesDefaultBranch && !(await this.ctx.repositoryOf(project).branch(input.default_branch!))) {
      problems.add('base', `Could not change HEAD: branch '${input.default_branch}' does not exist`);
    }
    if (problems.any) throw new BadRequestError(problems.messages);
    const before = { ...project };
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
      setProjectAvatar(this.ctx, project, input.avatar);
    }
    Object.assign(project, settingsOf(input));
    const unlinks = revisibles && visibilityRank(input.visibility!) < visibilityRank(scoped.project.visibility);
    if (unlinks) await unlinkForks(this.ctx, project);
    await this.em.flush().catch((error: unknown) => {
      throw takenAttribute(error) === 'path' ? BadRequestError.invalid('path', TAKEN) : error;
    });
    await this.recordUpdate(scoped, before, project, unlinks);
    // HEAD, which clones check out, names the new default branch: last, once the row is written.
    if (changesDefaultBranch) await setHeadBranch(this.ctx, scoped, input.default_branch!);
    return (await this.present([project], new Map([[project.id, scoped]])))[0];
  }

  /**
   * The events of a project's update: `project.updated` with the attributes that changed (`forked_from_id` when it left
   * its fork network), and `project.renamed` with its old full path when its path changed.
   */
  private async recordUpdate(scoped: ProjectInScope, before: Project, after: Project, unlinked: boolean): Promise<void> {
    const changes = PROJECT_ATTRIBUTES.filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).map(snakeCase);
    if (unlinked) changes.push('forked_from_id');
    const renamed = before.path !== after.path;
    if (!changes.length && !renamed) return;
    const event = { authorId: this.ctx.currentUser.id, projectId: after.id };
    const then = await projectThen(this.em, after.id);
    if (changes.length) await this.ctx.record({ ...event, kind: 'project.updated', data: { changes, ...then } });
    const oldPath = `${scoped.namespace.fullPath}/${before.path}`;
    if (renamed) await this.ctx.record({ ...event, kind: 'project.renamed', data: { old_path: oldPath, ...then } });
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
    if (!(await insertStar(this.em, scoped.project.id, this.ctx.currentUser.id, this.ctx.now()))) throw new NotModifiedError();
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
    const gone = (await projectsAsEventsName(this.em, [project.id])).get(project.id)!;
    await this.em.nativeDelete(Project, { id: project.id });
    await this.ctx.record({ kind: 'project.destroyed', authorId: this.ctx.currentUser.id, projectId: project.id, data: gone });
    this.ctx.afterCommit(() => this.ctx.env.repositories.remove(project.repositoryStorage, project.id));
  }

  /** The project's uploaded avatar, by its file name (what `avatar_url` names). */
  async avatar(scoped: ProjectInScope, filename: string): Promise<RawFile> {
    const avatar = await this.em.findOne(ProjectAvatar, { project: scoped.project.id });
    if (!avatar || avatar.filename !== filename) throw new NotFoundError();
    return { content_type: avatar.contentType, data: avatar.data };
  }

  /** GET /projects/:id: the project, with its statistics when asked. */
  async presentOne(scoped: ProjectInScope, options: { statistics?: boolean } = {}): Promise<ProjectShape> {
    return (await this.present([scoped.project], new Map([[scoped.project.id, scoped]]), options))[0];
  }

  /** Projects in the caller's shape, with what they embed loaded once for all of them. */
  async present(
    projects: Project[],
    known = new Map<number, ProjectAccess & { namespace?: Namespace }>(),
    options: { statistics?: boolean } = {},
  ): Promise<ProjectShape[]> {
    return presentProjects(projects, await projectRelations(this.ctx, projects, known, options), await this.ctx.view());
  }
}

/** The project's attributes whose change its update event names. */
const PROJECT_ATTRIBUTES = [
  'name',
  'path',
  'description',
  'defaultBranch',
  'visibility',
  'tagList',
  'ciConfigPath',
  'avatarFilename',
  'issuesEnabled',
  'mergeRequestsEnabled',
  'jobsEnabled',
  'wikiEnabled',
  'snippetsEnabled',
  'containerRegistryEnabled',
  'sharedRunnersEnabled',
  'publicJobs',
  'onlyAllowMergeIfPipelineSucceeds',
  'onlyAllowMergeIfAllDiscussionsAreResolved',
  'lfsEnabled',
  'requestAccessEnabled',
  'printingMergeRequestLinkEnabled',
  'resolveOutdatedDiffDiscussions',
] as const satisfies readonly (keyof Project)[];

/** `defaultBranch` → `default_branch`. */
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
