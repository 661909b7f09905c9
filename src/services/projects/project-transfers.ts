import { findGroupInScope } from './namespace-store.js';
import { can, type ProjectInScope } from '../../auth/abilities.js';
import { isMemberLevel } from '../../auth/levels.js';
import { Namespace, Project, ProjectGroupLink, visibilityRank } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import { takenAttribute } from '../../db/unique.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { ProjectGroupLink as ProjectGroupLinkShape, ShareProjectInput } from '../../schemas/members.js';
import type { Project as ProjectShape, TransferProjectInput } from '../../schemas/projects.js';
import { memberExpiry } from './members.js';
import { Problems } from '../identity/user-validation.js';
import { checkTaken, mayCreateProjectsIn, unlinkForks, visibleNamespace } from './project-rules.js';
import { insertShare, projectThen } from './project-store.js';
import { Service } from '../service.js';
import { ProjectsService } from './projects.js';

/** Projects moved to another namespace, and shared with groups. */
export class ProjectTransfersService extends Service {
  /** PUT /projects/:id/transfer (its owners): the project moved to a namespace the caller may create projects in. */
  async transfer(scoped: ProjectInScope, input: TransferProjectInput): Promise<ProjectShape> {
    const target = await visibleNamespace(this.ctx, input.namespace);
    if (!target) throw new NotFoundError('Namespace');
    const project = await this.moveTo(scoped, target);
    const event = { authorId: this.ctx.currentUser.id, projectId: project.id };
    const oldPath = `${scoped.namespace.fullPath}/${project.path}`;
    await this.ctx.record({
      ...event,
      kind: 'project.transferred',
      data: { old_path: oldPath, ...(await projectThen(this.em, project.id)) },
    });
    // The caller's levels on it may have changed with its namespace.
    return (await new ProjectsService(this.ctx).present([project]))[0];
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
    if (!(await mayCreateProjectsIn(this.ctx, namespace))) throw refuse('Transfer failed, please contact an admin.');
    const problems = new Problems();
    await checkTaken(this.ctx, problems, namespace, project.name, project.path, project.id);
    if (problems.any) throw refuse('Project with same name or path in target namespace already exists');
    if (namespace.kind === 'group' && visibilityRank(project.visibility) > visibilityRank(namespace.visibility)) {
      project.visibility = namespace.visibility;
      await unlinkForks(this.ctx, project);
      const changes = ['visibility', 'forked_from_id'];
      const data = { changes, ...(await projectThen(this.em, project.id)) };
      await this.ctx.record({ kind: 'project.updated', authorId: this.ctx.currentUser.id, projectId: project.id, data });
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
    if (!isMemberLevel('project', input.group_access)) throw BadRequestError.invalid('group_access', 'does not have a valid value');
    const expiresAt = memberExpiry(input.expires_at, this.ctx.today());
    const group = await findGroupInScope(this.ctx, input.group_id);
    if (!group || !can(this.ctx.caller, 'read_group', group)) throw new NotFoundError('Group');
    if (scoped.namespace.traversalIds.includes(group.group.id))
      throw new ConflictError('Project cannot be shared with the group it is in or one of its ancestors.');
    const id = await insertShare(this.em, scoped.project.id, group.group.id, input.group_access, expiresAt, this.ctx.now());
    if (id === undefined) throw new ConflictError('Group already shared with this group');
    return { id, project_id: scoped.project.id, group_id: group.group.id, group_access: input.group_access, expires_at: expiresAt };
  }

  /** DELETE /projects/:id/share/:group_id (its maintainers): the share taken back. */
  async unshare(scoped: ProjectInScope, groupId: number): Promise<void> {
    const removed = await this.em.nativeDelete(ProjectGroupLink, { project: scoped.project.id, group: groupId });
    if (!removed) throw new NotFoundError('Group Link');
  }
}
