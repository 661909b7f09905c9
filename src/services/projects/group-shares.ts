import type { FilterQuery } from '@mikro-orm/core';
import { can, type GroupInScope, type ProjectInScope } from '../../auth/abilities.js';
import { isMemberLevel } from '../../auth/levels.js';
import { GroupGroupLink, Namespace } from '../../db/entities/index.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { GroupDetail, GroupShare, ListProjectGroupsQuery, PublicGroup, ShareGroupInput } from '../../schemas/groups.js';
import type { ListProjectsQuery, Project as ProjectShape, ProjectSimple } from '../../schemas/projects.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import { likePattern } from '../search.js';
import { Service } from '../service.js';
import { memberExpiry } from './members.js';
import { insertGroupShare, projectGroupsWhere, sharesOfGroup } from './group-link-store.js';
import { findGroupInScope, sharedWith } from './namespace-store.js';
import { GroupsService } from './groups.js';
import { ProjectsService } from './projects.js';

/**
 * Groups shared with groups and projects with groups, as later clients read and make them: a group's shares
 * (POST/DELETE /groups/:id/share, `shared_with_groups`), the projects shared with a group, a project's groups.
 * The access a share gives is worked out with every other level, in src/auth/access-levels.ts.
 */
export class GroupSharesService extends Service {
  /** The groups the group is shared with that the caller may see (shares that have not expired), oldest share first. */
  sharedWith(groupId: number): Promise<GroupShare[]> {
    return sharesOfGroup(this.em, groupId, this.ctx.caller, this.ctx.today());
  }

  /**
   * POST /groups/:id/share: the group shared with another (`group_id`): the other's members (and those of the groups
   * above it) reach this group, its subgroups and their projects, at most at `group_access`, until `expires_at`.
   * As the original: a group the caller may not see is 404 `Group Not Found`; sharing a group whose members it may not
   * administer, 404 `Not Found`; a share that exists, 409. Answers the group's details.
   */
  async share(scoped: GroupInScope, input: ShareGroupInput): Promise<GroupDetail> {
    if (!isMemberLevel('group', input.group_access)) throw BadRequestError.invalid('group_access', 'does not have a valid value');
    const expiresAt = memberExpiry(input.expires_at, this.ctx.today());
    const other = await findGroupInScope(this.ctx, input.group_id);
    if (!other || !can(this.ctx.caller, 'read_group', other)) throw new NotFoundError('Group');
    if (!can(this.ctx.caller, 'admin_group_member', scoped)) throw new NotFoundError('Not Found', { verbatim: true });
    const made = await insertGroupShare(this.em, scoped.group.id, other.group.id, input.group_access, expiresAt, this.ctx.now());
    if (made === undefined) throw new ConflictError('Shared group The group has already been shared with this group');
    return new GroupsService(this.ctx).detail(scoped.group, scoped);
  }

  /** DELETE /groups/:id/share/:group_id (those who administer its members): the share taken back; 404 when there is none. */
  async unshare(scoped: GroupInScope, groupId: number): Promise<void> {
    const removed = await this.em.nativeDelete(GroupGroupLink, { sharedGroup: scoped.group.id, sharedWithGroup: groupId });
    if (!removed) throw new NotFoundError();
  }

  /** GET /groups/:id/projects/shared: the projects shared with the group that the caller may see, with the project list's filters. */
  sharedProjects(group: Namespace, query: ListProjectsQuery & PageQuery): Promise<Page<ProjectShape | ProjectSimple>> {
    return new ProjectsService(this.ctx).list(query, sharedWith(group.id, this.ctx.today()));
  }

  /**
   * GET /projects/:id/groups: the project's group and the groups above it; with `with_shared`, the groups the
   * project is shared with (`shared_min_access_level`: by shares giving at least that; `shared_visible_only`: those
   * the caller may see), newest group first, as the original's Projects::GroupsFinder lists them.
   */
  async ofProject(scoped: ProjectInScope, query: ListProjectGroupsQuery & PageQuery): Promise<Page<PublicGroup>> {
    const shared = query.with_shared ? { minimum: query.shared_min_access_level, visibleOnly: query.shared_visible_only } : undefined;
    const where: FilterQuery<Namespace>[] = [
      { kind: 'group' },
      projectGroupsWhere(scoped.project.id, this.ctx.caller, this.ctx.today(), shared),
    ];
    if (query.skip_groups?.length) where.push({ id: { $nin: query.skip_groups } });
    if (query.search) {
      const pattern = likePattern(query.search);
      where.push({ $or: [{ name: { $ilike: pattern } }, { path: { $ilike: pattern } }] });
    }
    const page = await findPage(this.em, Namespace, { $and: where }, { id: 'desc' }, query, { plainRows: true });
    const groups = await new GroupsService(this.ctx).present(page.items);
    return {
      ...page,
      items: groups.map((group) => ({
        id: group.id,
        web_url: group.web_url,
        name: group.name,
        avatar_url: group.avatar_url,
        full_name: group.full_name,
        full_path: group.full_path,
      })),
    };
  }
}
