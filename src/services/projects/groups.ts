import { sharesOfGroup } from './group-link-store.js';
import { projectsAsEventsName } from './project-store.js';
import type { FilterQuery } from '@mikro-orm/core';
import { can, type GroupInScope, type ProjectInScope } from '../../auth/abilities.js';
import { memberGroupsSql, ownedGroupsSql, visibleGroupsSql } from '../../auth/access-levels.js';
import { CREATOR_LEVELS } from '../../auth/levels.js';
import { newRunnersToken } from '../../auth/secret-box.js';
import { GroupMember, Namespace, type Project, VISIBILITIES, visibilityRank, type Visibility } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.js';
import type {
  CreateGroupInput,
  Group as GroupShape,
  GroupDetail,
  ListGroupProjectsQuery,
  ListGroupsQuery,
  UpdateGroupInput,
} from '../../schemas/groups.js';
import type { Project as ProjectShape, ProjectSimple } from '../../schemas/projects.js';
import { setTraversalIds } from './namespaces.js';
import {
  descendantsOf,
  findGroupInScope,
  groupsWhere,
  inGroupOrBelow,
  moreOpenContents,
  projectsBelow,
  projectsOfGroups,
  renameDescendants,
  sharedWith,
  siblingTaken,
} from './namespace-store.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { presentGroups } from '../present/groups.js';
import { likePattern } from '../search.js';
import { checkNamespacePath, Problems, TAKEN } from '../identity/user-validation.js';
import { Service } from '../service.js';
import { ProjectTransfersService } from './project-transfers.js';
import { ProjectsService } from './projects.js';

/** The original's rule for group names (Gitlab::Regex of its era), with its message. */
const NAME_RULE = /^[\p{L}\p{N}\u{00A9}-\u{1f9c0}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1f9c0}_(). ]*$/u;
const NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

/** How deep groups nest, as in the original: twenty levels. */
const MAX_DEPTH = 20;

/** The projects a group's details show of each kind (its own, those shared with it), newest first. */
const DETAIL_PROJECTS = 100;

/** Groups: nested namespaces of projects, with members whose levels their subgroups and projects inherit. */
export class GroupsService extends Service {
  /** A group by ID or full path (any case), with the caller's level on it and whether it may see it. */
  findInScope(idOrPath: number | string): Promise<GroupInScope | null> {
    return findGroupInScope(this.ctx, idOrPath);
  }

  /**
   * GET /groups: the groups the caller reaches by membership (with their subgroups and the groups above them);
   * with `all_available` every group it may see, which is what administrators and anonymous callers get by default,
   * and what GET /groups/:id/subgroups (with `parent`) gives of the group's subgroups.
   */
  async list(query: ListGroupsQuery & PageQuery, parent?: Namespace, options: { descendants?: boolean } = {}): Promise<Page<GroupShape>> {
    const caller = this.ctx.caller;
    const today = this.ctx.today();
    const where: FilterQuery<Namespace>[] = [{ kind: 'group' }];
    // A group's subgroups (or, GET /groups/:id/descendant_groups, every group below it): every one the caller may see, unless it asks for
    // its own only.
    const allByDefault = can(caller, 'read_all_resources') || parent !== undefined;
    if (parent && options.descendants) where.push(descendantsOf(parent.id));
    else if (parent) where.push({ parent: parent.id });
    if (query.owned) where.push(groupsWhere(ownedGroupsSql(caller, today)));
    else if (!caller.user || query.all_available || (allByDefault && query.all_available === undefined))
      where.push(groupsWhere(visibleGroupsSql(caller, today)));
    else where.push(groupsWhere(memberGroupsSql(caller, today)));
    if (query.skip_groups?.length) where.push({ id: { $nin: query.skip_groups } });
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }] });
    }
    const direction: 'asc' | 'desc' = query.sort === 'desc' ? 'desc' : 'asc';
    const orderField = query.order_by ?? 'name';
    const orderBy = orderField === 'id' ? { id: direction } : { [orderField]: direction, id: direction };
    const page = await findPage(this.em, Namespace, { $and: where }, orderBy, query, { plainRows: true });
    return { ...page, items: await this.present(page.items, { statistics: query.statistics }) };
  }

  /** Groups as the caller sees them; with `statistics` (administrators), what each one's projects store. */
  async present(groups: Namespace[], options: { statistics?: boolean } = {}): Promise<GroupShape[]> {
    const view = await this.ctx.view();
    if (!options.statistics || !can(this.ctx.caller, 'read_all_resources') || !groups.length) return presentGroups(groups, view);
    const groupIds = groups.map((group) => group.id);
    const projects = await projectsOfGroups(view.rows, groupIds);
    const sizes = await Promise.all(projects.map((project) => this.ctx.env.repositories.size(project.repositoryStorage, project.id)));
    const statistics = new Map<number, number>();
    projects.forEach((project, index) => {
      const group = Number(project.namespace);
      statistics.set(group, (statistics.get(group) ?? 0) + sizes[index]);
    });
    return presentGroups(groups, view, statistics);
  }

  /**
   * GET /groups/:id: the group with the projects in it and those shared with it that the caller may see, and its
   * runners token for those who administer it (`scoped`: the caller's levels on it, read again when not given).
   */
  async detail(group: Namespace, scoped?: GroupInScope): Promise<GroupDetail> {
    const newest = { per_page: DETAIL_PROJECTS, order_by: 'created_at', sort: 'desc' } as const;
    const [shape] = await this.present([group]);
    const projects = await new ProjectsService(this.ctx).list(newest, { namespace: group.id });
    const shared = await new ProjectsService(this.ctx).list(newest, sharedWith(group.id, this.ctx.today()));
    const runnersToken = await this.runnersToken(scoped ?? (await this.findInScope(group.id)));
    return {
      ...shape,
      ...(runnersToken === undefined ? {} : { runners_token: runnersToken }),
      projects: projects.items as ProjectShape[],
      shared_projects: shared.items as ProjectShape[],
      shared_with_groups: await sharesOfGroup(this.em, group.id, this.ctx.caller, this.ctx.today()),
    };
  }

  /** The group's runners token, for those who administer it. */
  private async runnersToken(scoped: GroupInScope | null): Promise<string | undefined> {
    const sealed = scoped?.group.runnersTokenSealed;
    if (!sealed || !can(this.ctx.caller, 'admin_group', scoped)) return undefined;
    try {
      return this.ctx.env.secrets.open(sealed);
    } catch {
      this.ctx.env.logger.error('forgekit: a runners token could not be opened: is the secret key the one it was sealed with?', {
        group: scoped.group.id,
      });
      return undefined;
    }
  }

  /** GET /groups/:id/projects: its projects and (unless `with_shared=false`) those shared with it, with the project list's filters. */
  projects(group: Namespace, query: ListGroupProjectsQuery & PageQuery): Promise<Page<ProjectShape | ProjectSimple>> {
    const own: FilterQuery<Project> = query.include_subgroups ? inGroupOrBelow(group.id) : { namespace: group.id };
    return new ProjectsService(this.ctx).list(
      query,
      query.with_shared === false ? own : { $or: [own, sharedWith(group.id, this.ctx.today())] },
    );
  }

  /** POST /groups: a group (a subgroup with `parent_id`) whose creator is its owner. */
  async create(input: CreateGroupInput): Promise<GroupDetail> {
    const caller = this.ctx.caller;
    let parent: Namespace | null = null;
    if (input.parent_id !== undefined) {
      const scoped = await this.findInScope(input.parent_id);
      if (!scoped || !can(caller, 'read_group', scoped)) throw new NotFoundError('Group');
      if (!can(caller, 'create_subgroup', scoped)) throw new ForbiddenError();
      parent = scoped.group;
    } else if (!can(caller, 'create_group')) {
      throw new ForbiddenError();
    }
    const settings = await this.ctx.settings();
    const visibility = input.visibility ?? (settings.default_group_visibility as Visibility);
    const problems = new Problems();
    await this.checkNameAndPath(problems, parent, input.name, input.path);
    this.checkVisibility(problems, visibility, parent, settings.restricted_visibility_levels);
    if (parent && parent.traversalIds.length >= MAX_DEPTH) problems.add('parent_id', 'has too deep level of nesting');
    if (problems.any) throw new BadRequestError(problems.messages);

    const group = this.em.create(Namespace, {
      kind: 'group',
      name: input.name,
      path: input.path,
      fullPath: parent ? `${parent.fullPath}/${input.path}` : input.path,
      fullName: parent ? `${parent.fullName} / ${input.name}` : input.name,
      parent: parent?.id ?? null,
      traversalIds: [],
      description: input.description ?? '',
      visibility,
      lfsEnabled: input.lfs_enabled ?? true,
      requestAccessEnabled: input.request_access_enabled ?? false,
      // Its token for registering runners, as a project's: sealed, with its digest.
      ...newRunnersToken(this.ctx.env.secrets),
    });
    this.em.create(GroupMember, { group, user: this.ctx.user, accessLevel: CREATOR_LEVELS.group });
    await this.flush();
    setTraversalIds(group, parent);
    await this.flush();
    const author = this.ctx.currentUser.id;
    await this.ctx.record({ kind: 'group.created', authorId: author, groupId: group.id, data: {} });
    const membership = { source_type: 'Group' as const, user_id: author, access_level: CREATOR_LEVELS.group };
    await this.ctx.record({ kind: 'member.added', authorId: author, groupId: group.id, data: membership });
    return this.detail(group);
  }

  /** PUT /groups/:id (its owners): a new name or path carries down to its subgroups' full names and paths. */
  async update(scoped: GroupInScope, input: UpdateGroupInput): Promise<GroupDetail> {
    if (Object.values(input).every((value) => value === undefined)) {
      throw new BadRequestError('400 (Bad request) at least one parameter must be provided');
    }
    const group = await this.em.findOneOrFail(Namespace, { id: scoped.group.id });
    const parent = group.parent ? await this.em.findOneOrFail(Namespace, { id: keyOf(group.parent) }) : null;
    const problems = new Problems();
    const renamed = input.name !== undefined && input.name !== group.name;
    const moved = input.path !== undefined && input.path !== group.path;
    if (renamed || moved)
      await this.checkNameAndPath(problems, parent, renamed ? input.name : undefined, moved ? input.path : undefined, group);
    if (input.visibility !== undefined && input.visibility !== group.visibility) {
      this.checkVisibility(problems, input.visibility, parent, (await this.ctx.settings()).restricted_visibility_levels);
      await this.checkVisibilityOfContents(problems, group, input.visibility);
    }
    if (problems.any) throw new BadRequestError(problems.messages);

    const oldPath = group.fullPath;
    const oldName = group.fullName;
    if (input.name !== undefined) group.name = input.name;
    if (input.path !== undefined) group.path = input.path;
    group.fullPath = parent ? `${parent.fullPath}/${group.path}` : group.path;
    group.fullName = parent ? `${parent.fullName} / ${group.name}` : group.name;
    if (input.description !== undefined) group.description = input.description;
    if (input.visibility !== undefined) group.visibility = input.visibility;
    if (input.lfs_enabled !== undefined) group.lfsEnabled = input.lfs_enabled;
    if (input.request_access_enabled !== undefined) group.requestAccessEnabled = input.request_access_enabled;
    await this.flush();
    if (group.fullPath !== oldPath || group.fullName !== oldName) {
      await renameDescendants(this.em, group, oldPath, oldName);
    }
    if (group.fullPath !== oldPath) {
      await this.ctx.record({ kind: 'group.renamed', authorId: this.ctx.currentUser.id, groupId: group.id, data: { old_path: oldPath } });
    }
    return this.detail(group);
  }

  /** DELETE /groups/:id (its owners): the group, its subgroups and every project in them; their repositories once that is committed. */
  async delete(scoped: GroupInScope): Promise<void> {
    const { group } = scoped;
    const projects = await projectsBelow(this.em, group);
    const gone = await projectsAsEventsName(
      this.em,
      projects.map((project) => project.id),
    );
    // The subgroups go with it (their parent's foreign key cascades), and their projects with them.
    await this.em.nativeDelete(Namespace, { id: group.id });
    const author = this.ctx.currentUser.id;
    for (const project of projects) {
      this.ctx.afterCommit(() => this.ctx.env.repositories.remove(project.repository_storage, project.id));
      await this.ctx.record({ kind: 'project.destroyed', authorId: author, projectId: project.id, data: gone.get(project.id)! });
    }
    const data = { full_path: group.fullPath, name: group.name, created_at: group.createdAt.toISOString() };
    await this.ctx.record({ kind: 'group.destroyed', authorId: author, groupId: group.id, data });
  }

  /** POST /groups/:id/projects/:project_id (administrators): the project moved into the group. */
  async transferProject(scoped: GroupInScope, project: ProjectInScope): Promise<GroupDetail> {
    await new ProjectTransfersService(this.ctx).moveTo(project, scoped.group);
    return this.detail(scoped.group, scoped);
  }

  /**
   * A name and a path by the original's rules, each unique among the group's siblings (`undefined`: one that is
   * not changing); a top-level group's path also among users' namespaces.
   */
  private async checkNameAndPath(
    problems: Problems,
    parent: Namespace | null,
    name: string | undefined,
    path: string | undefined,
    except?: Namespace,
  ): Promise<void> {
    if (name !== undefined) {
      if (name.trim() === '') problems.add('name', "can't be blank");
      else if (!NAME_RULE.test(name)) problems.add('name', NAME_MESSAGE);
      else if (await siblingTaken(this.em, parent, 'name', name, except)) problems.add('name', TAKEN);
    }
    if (path !== undefined) {
      checkNamespacePath(problems, 'path', path, parent === null);
      if (!problems.messages.path && (await siblingTaken(this.em, parent, 'path', path, except))) problems.add('path', TAKEN);
    }
  }

  /** `restricted_visibility_levels` (for all but administrators), and a subgroup is no more open than its parent. */
  private checkVisibility(
    problems: Problems,
    visibility: Visibility,
    parent: Namespace | null,
    restricted: readonly string[] | null,
  ): void {
    if (!can(this.ctx.caller, 'admin_all_resources') && restricted?.includes(visibility))
      problems.add('visibility_level', `${visibility} has been restricted by your GitLab administrator`);
    if (parent && visibilityRank(visibility) > visibilityRank(parent.visibility)) {
      problems.add('visibility_level', `${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`);
    }
  }

  /** A group is no more closed than the projects and subgroups in it. */
  private async checkVisibilityOfContents(problems: Problems, group: Namespace, visibility: Visibility): Promise<void> {
    const more = VISIBILITIES.slice(visibilityRank(visibility) + 1);
    if (!more.length) return;
    const found = await moreOpenContents(this.em, group, more);
    if (found.projects)
      problems.add('visibility_level', `${visibility} is not allowed since this group contains projects with higher visibility.`);
    if (found.subgroups)
      problems.add('visibility_level', `${visibility} is not allowed since there are sub-groups with higher visibility.`);
  }

  private flush(): Promise<void> {
    return this.em.flush().catch((error: unknown) => {
      // A sibling made the same path between the check and the write.
      throw takenAttribute(error) === 'path' ? BadRequestError.invalid('path', TAKEN) : error;
    });
  }
}
