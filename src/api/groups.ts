import { Type } from 'typebox';
import {
  CreateGroupInput,
  Group,
  GroupDetail,
  ListGroupProjectsQuery,
  ListGroupsQuery,
  ShareGroupInput,
  UpdateGroupInput,
} from '../schemas/groups.js';
import { ListProjectsQuery, Project, ProjectSimple } from '../schemas/projects.js';
import { Accepted, accepted } from './projects.js';
import { defineRoute } from './route.js';
import { groupRoute } from './scoped.js';
import { GroupSharesService } from '../services/projects/group-shares.js';
import { GroupsService } from '../services/projects/groups.js';
import { ProjectsService } from '../services/projects/projects.js';
import { defineModule } from './module.js';
import * as groupsSchemas from '../schemas/groups.js';
import * as namespacesTables from '../db/entities/namespaces.js';
import * as groupLinksTables from '../db/entities/group-links.js';

export const groups = {
  list: defineRoute({
    method: 'GET',
    path: '/groups',
    summary: 'The groups the caller is a member of (and those above and below them); with all_available every group it may see',
    auth: 'public',
    input: ListGroupsQuery,
    list: Group,
    run: (ctx, _params, input) => new GroupsService(ctx).list(input),
  }),
  get: groupRoute({
    method: 'GET',
    path: '',
    summary: 'A group, by ID or URL-encoded full path, with the projects in it and those shared with it',
    ability: 'read_group',
    response: GroupDetail,
    run: (ctx, { group }) => new GroupsService(ctx).detail(group.group, group),
  }),
  subgroups: groupRoute({
    method: 'GET',
    path: '/subgroups',
    summary: "A group's subgroups that the caller may see, with the group list's filters (as later clients ask for them)",
    ability: 'read_group',
    input: ListGroupsQuery,
    list: Group,
    run: (ctx, { group }, input) => new GroupsService(ctx).list(input, group.group),
  }),
  descendantGroups: groupRoute({
    method: 'GET',
    path: '/descendant_groups',
    summary:
      "Every group below a group (subgroups, theirs, ...) that the caller may see, with the group list's filters (as later clients ask " +
      'for them)',
    ability: 'read_group',
    input: ListGroupsQuery,
    list: Group,
    run: (ctx, { group }, input) => new GroupsService(ctx).list(input, group.group, { descendants: true }),
  }),
  projects: groupRoute({
    method: 'GET',
    path: '/projects',
    summary: "A group's projects and those shared with it that the caller may see, with the project list's filters",
    ability: 'read_group',
    input: ListGroupProjectsQuery,
    list: Type.Union([Project, ProjectSimple]),
    run: (ctx, { group }, input) => new GroupsService(ctx).projects(group.group, input),
  }),
  sharedProjects: groupRoute({
    method: 'GET',
    path: '/projects/shared',
    summary: "The projects shared with a group that the caller may see, with the project list's filters (as later clients ask for them)",
    ability: 'read_group',
    input: ListProjectsQuery,
    list: Type.Union([Project, ProjectSimple]),
    run: (ctx, { group }, input) => new GroupSharesService(ctx).sharedProjects(group.group, input),
  }),
  share: groupRoute({
    method: 'POST',
    path: '/share',
    summary:
      "Share a group with another group: the other's members reach it, its subgroups and their projects up to group_access (its owners; " +
      'as later clients ask)',
    ability: 'read_group',
    input: ShareGroupInput,
    response: GroupDetail,
    run: (ctx, { group }, input) => new GroupSharesService(ctx).share(group, input),
  }),
  unshare: groupRoute({
    method: 'DELETE',
    path: '/share/:group_id',
    summary: 'Stop sharing a group with another group (its owners)',
    ability: 'admin_group_member',
    run: (ctx, { group, group_id }) => new GroupSharesService(ctx).unshare(group, group_id),
  }),
  create: defineRoute({
    method: 'POST',
    path: '/groups',
    summary: 'Create a group (users who may create groups) or a subgroup (owners of its parent); the caller is its owner',
    auth: 'user',
    input: CreateGroupInput,
    response: GroupDetail,
    run: (ctx, _params, input) => new GroupsService(ctx).create(input),
  }),
  transferProject: groupRoute({
    method: 'POST',
    path: '/projects/:project_id',
    summary: 'Move a project into the group (administrators)',
    auth: 'admin',
    ability: 'read_group',
    response: GroupDetail,
    run: async (ctx, { group, project_id }) =>
      new GroupsService(ctx).transferProject(group, await new ProjectsService(ctx).findInScopeOrFail(project_id)),
  }),
  update: groupRoute({
    method: 'PUT',
    path: '',
    summary: "Change a group's name, path or settings (its owners)",
    ability: 'admin_group',
    input: UpdateGroupInput,
    response: GroupDetail,
    run: (ctx, { group }, input) => new GroupsService(ctx).update(group, input),
  }),
  delete: groupRoute({
    method: 'DELETE',
    path: '',
    summary: 'Delete a group with its subgroups and projects (its owners); answers 202 as the original does',
    ability: 'admin_group',
    status: 202,
    response: Accepted,
    run: (ctx, { group }) => accepted(new GroupsService(ctx).delete(group)),
  }),
};

export const groupsModule = defineModule({
  routes: { groups },
  descriptions: {
    groups: 'Groups: nested namespaces of projects, whose members’ levels their subgroups and projects inherit',
  },
  schemas: { ...groupsSchemas },
  entities: [namespacesTables.Namespace, groupLinksTables.GroupGroupLink],
  migrations: [() => import('../db/migrations/Migration20261127000002_group_links.js')],
});
