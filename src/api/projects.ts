import { Type } from 'typebox';
import { ListProjectGroupsQuery, PublicGroup } from '../schemas/groups.js';
import { ProjectGroupLink, ShareProjectInput } from '../schemas/members.js';
import {
  CreateProjectForUserInput,
  CreateProjectInput,
  GetProjectQuery,
  ListProjectsQuery,
  ListProjectUsersQuery,
  Project,
  ProjectSimple,
  ForkProjectInput,
  TransferProjectInput,
  UpdateProjectInput,
} from '../schemas/projects.js';
import { UserBasic } from '../schemas/users.js';
import { RawFile } from '../schemas/common.js';
import { AVATAR_BODY_LIMIT, defineRoute } from './route.js';
import { projectRoute } from './scoped.js';
import { GroupSharesService } from '../services/projects/group-shares.js';
import { ProjectCreationService } from '../services/projects/project-creation.js';
import { ProjectTransfersService } from '../services/projects/project-transfers.js';
import { ProjectsService } from '../services/projects/projects.js';
import { HousekeepingService } from '../services/repository/housekeeping.js';
import { redirectRules } from '../services/projects/redirect-routes.js';
import { defineModule } from './module.js';
import * as projectsSchemas from '../schemas/projects.js';
import * as projectsTables from '../db/entities/projects.js';
import * as jobsTables from '../db/entities/jobs.js';

/** The original deletes a project in the background and answers at once; forgekit has deleted it by then. */
export const Accepted = Type.Object({ message: Type.Literal('202 Accepted') }, { additionalProperties: false });

/** The answer Accepted, once the work is done. */
export async function accepted(work: Promise<void>) {
  await work;
  return { message: '202 Accepted' as const };
}

export const projects = {
  list: defineRoute({
    method: 'GET',
    path: '/projects',
    summary: 'The projects the caller may see (public ones without a token), with filters and ordering',
    auth: 'public',
    input: ListProjectsQuery,
    list: Type.Union([Project, ProjectSimple]),
    run: (ctx, _params, input) => new ProjectsService(ctx).list(input),
  }),
  users: projectRoute({
    method: 'GET',
    path: '/users',
    summary: 'The users with access to a project (members, its groups’ and its shares’ members)',
    ability: 'read_project',
    input: ListProjectUsersQuery,
    list: UserBasic,
    run: (ctx, { project }, input) => new ProjectsService(ctx).users(project, input),
  }),
  groups: projectRoute({
    method: 'GET',
    path: '/groups',
    summary:
      'The project’s group and the groups above it, newest first; with `with_shared`, the groups it is shared with (as later clients ask)',
    ability: 'read_project',
    input: ListProjectGroupsQuery,
    list: PublicGroup,
    run: (ctx, { project }, input) => new GroupSharesService(ctx).ofProject(project, input),
  }),
  listOfUser: defineRoute({
    method: 'GET',
    path: '/users/:user_id/projects',
    summary: "The projects in a user's namespace (by ID or username) that the caller may see, with the list's filters",
    auth: 'public',
    scope: 'userByIdOrUsername',
    input: ListProjectsQuery,
    list: Type.Union([Project, ProjectSimple]),
    run: (ctx, { user }, input) => new ProjectsService(ctx).listOfUser(user, input),
  }),
  create: defineRoute({
    method: 'POST',
    path: '/projects',
    summary: "Create a project, with an empty repository, in the caller's namespace or one of its groups",
    auth: 'user',
    input: CreateProjectInput,
    response: Project,
    bodyLimit: AVATAR_BODY_LIMIT,
    run: (ctx, _params, input) => new ProjectCreationService(ctx).create(input),
  }),
  createForUser: defineRoute({
    method: 'POST',
    path: '/projects/user/:user_id',
    summary: "Create a project in a user's namespace, as the user (administrators)",
    auth: 'admin',
    scope: 'user',
    input: CreateProjectForUserInput,
    response: Project,
    bodyLimit: AVATAR_BODY_LIMIT,
    run: (ctx, { user }, input) => new ProjectCreationService(ctx).createForUser(user, input),
  }),
  get: projectRoute({
    method: 'GET',
    path: '',
    summary: 'A project, by ID or URL-encoded full path; a private one only for its members',
    ability: 'read_project',
    input: GetProjectQuery,
    response: Project,
    run: (ctx, { project }, input) => new ProjectsService(ctx).presentOne(project, input),
  }),
  update: projectRoute({
    method: 'PUT',
    path: '',
    summary: "Change a project's settings (maintainers); rename it or change its visibility (owners)",
    ability: 'admin_project',
    input: UpdateProjectInput,
    response: Project,
    bodyLimit: AVATAR_BODY_LIMIT,
    run: (ctx, { project }, input) => new ProjectsService(ctx).update(project, input),
  }),
  star: projectRoute({
    method: 'POST',
    path: '/star',
    summary: 'Star a project; 304 when the caller has already',
    ability: 'read_project',
    response: Project,
    run: (ctx, { project }) => new ProjectsService(ctx).star(project),
  }),
  unstar: projectRoute({
    method: 'POST',
    path: '/unstar',
    summary: 'Take back a star; 304 when the caller has none on it',
    ability: 'read_project',
    response: Project,
    run: (ctx, { project }) => new ProjectsService(ctx).unstar(project),
  }),
  avatar: defineRoute({
    method: 'GET',
    path: '/uploads/-/system/project/avatar/:id/:filename',
    root: true,
    raw: true,
    keepsJsonSuffix: true,
    summary: "A project's uploaded avatar, the target of its `avatar_url`, for whoever may see the project; served beside /api/v4",
    auth: 'public',
    scope: 'project',
    ability: 'read_project',
    response: RawFile,
    run: (ctx, { project, filename }) => new ProjectsService(ctx).avatar(project, filename),
  }),
  fork: projectRoute({
    method: 'POST',
    path: '/fork',
    summary:
      'Fork a project into a namespace the caller may create projects in (its own by default); the repository is copied by a background ' +
      'job (import_status)',
    ability: 'fork_project',
    input: ForkProjectInput,
    response: Project,
    run: (ctx, { project }, input) => new ProjectCreationService(ctx).fork(project, input),
  }),
  forks: projectRoute({
    method: 'GET',
    path: '/forks',
    summary: "The forks of a project that the caller may see, with the project list's filters",
    ability: 'read_project',
    input: ListProjectsQuery,
    list: Type.Union([Project, ProjectSimple]),
    run: (ctx, { project }, input) => new ProjectsService(ctx).list(input, { forkedFrom: project.project.id }),
  }),
  archive: projectRoute({
    method: 'POST',
    path: '/archive',
    summary: 'Archive a project (its maintainers): the archived filter finds it',
    ability: 'admin_project',
    response: Project,
    run: (ctx, { project }) => new ProjectsService(ctx).setArchived(project, true),
  }),
  unarchive: projectRoute({
    method: 'POST',
    path: '/unarchive',
    summary: 'Take a project out of the archive (its maintainers)',
    ability: 'admin_project',
    response: Project,
    run: (ctx, { project }) => new ProjectsService(ctx).setArchived(project, false),
  }),
  transfer: projectRoute({
    method: 'PUT',
    path: '/transfer',
    summary: 'Move a project to another namespace the caller may create projects in (its owners)',
    ability: 'change_namespace',
    input: TransferProjectInput,
    response: Project,
    run: (ctx, { project }, input) => new ProjectTransfersService(ctx).transfer(project, input),
  }),
  share: projectRoute({
    method: 'POST',
    path: '/share',
    summary: "Share a project with a group: its members get up to group_access (the project's maintainers)",
    ability: 'admin_project',
    input: ShareProjectInput,
    response: ProjectGroupLink,
    run: (ctx, { project }, input) => new ProjectTransfersService(ctx).share(project, input),
  }),
  unshare: projectRoute({
    method: 'DELETE',
    path: '/share/:group_id',
    summary: 'Stop sharing a project with a group (its maintainers)',
    ability: 'admin_project',
    run: (ctx, { project, group_id }) => new ProjectTransfersService(ctx).unshare(project, group_id),
  }),
  housekeeping: projectRoute({
    method: 'POST',
    path: '/housekeeping',
    summary:
      'Queue the repository’s housekeeping (its maintainers): objects packed, unreachable ones pruned after two weeks, ' +
      'its commit-graph written; answers the job’s ID, 409 while one is queued or running',
    ability: 'admin_project',
    response: Type.String(),
    run: (ctx, { project }) => new HousekeepingService(ctx).start(project),
  }),
  delete: projectRoute({
    method: 'DELETE',
    path: '',
    summary: 'Delete a project and its repository (its owners and administrators); answers 202 as the original does',
    ability: 'remove_project',
    status: 202,
    response: Accepted,
    run: (ctx, { project }) => accepted(new ProjectsService(ctx).delete(project)),
  }),
};

export const projectsModule = defineModule({
  routes: { projects },
  descriptions: {
    projects:
      'Projects: created with an empty repository, read by whoever may see them, shared with groups, moved and deleted by their owners',
  },
  schemas: { ...projectsSchemas },
  entities: [
    projectsTables.Project,
    projectsTables.ProjectAvatar,
    projectsTables.ProjectStar,
    projectsTables.ProjectGroupLink,
    projectsTables.RedirectRoute,
    jobsTables.Job,
  ],
  migrations: [
    () => import('../db/migrations/Migration20261123000001_namespaces_projects.js'),
    () => import('../db/migrations/Migration20261123000002_jobs.js'),
    () => import('../db/migrations/Migration20261123000005_project_avatars.js'),
    () => import('../db/migrations/Migration20261128000001_housekeeping.js'),
  ],
  rules: redirectRules,
});
