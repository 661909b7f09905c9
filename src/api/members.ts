import { AddMemberInput, EditMemberInput, ListMembersQuery, Member } from '../schemas/members.js';
import { defineRoute } from './route.js';

export const projectMembers = {
  list: defineRoute({
    method: 'GET', path: '/projects/:id/members', summary: "A project's own members", auth: 'user',
    scope: 'project', ability: 'read_project', input: ListMembersQuery, list: Member,
    example: { params: { id: 'project' }, input: { query: 'ex' } },
    run: (ctx, { project }, input) => ctx.members.list({ kind: 'project', scoped: project }, input, false),
  }),
  listAll: defineRoute({
    method: 'GET', path: '/projects/:id/members/all', summary: "A project's members with those of the groups above it, each at its highest level", auth: 'user',
    scope: 'project', ability: 'read_project', input: ListMembersQuery, list: Member,
    example: { params: { id: 'project' } },
    run: (ctx, { project }, input) => ctx.members.list({ kind: 'project', scoped: project }, input, true),
  }),
  get: defineRoute({
    method: 'GET', path: '/projects/:id/members/:user_id', summary: "A project member's own membership", auth: 'user',
    scope: 'project', ability: 'read_project', response: Member,
    example: { params: { id: 'project', user_id: 'member' } },
    run: (ctx, { project, user_id }) => ctx.members.get({ kind: 'project', scoped: project }, user_id, false),
  }),
  getAll: defineRoute({
    method: 'GET', path: '/projects/:id/members/all/:user_id', summary: "A user's highest membership of a project or of a group above it", auth: 'user',
    scope: 'project', ability: 'read_project', response: Member,
    example: { params: { id: 'project', user_id: 'member' } },
    run: (ctx, { project, user_id }) => ctx.members.get({ kind: 'project', scoped: project }, user_id, true),
  }),
  add: defineRoute({
    method: 'POST', path: '/projects/:id/members', summary: 'Make a user a member of a project (its maintainers)', auth: 'user',
    scope: 'project', ability: 'admin_project_member', input: AddMemberInput, response: Member,
    example: { params: { id: 'project' }, input: async (tools) => ({ user_id: await tools.newUser(), access_level: 30 }) },
    run: (ctx, { project }, input) => ctx.members.add({ kind: 'project', scoped: project }, input),
  }),
  edit: defineRoute({
    method: 'PUT', path: '/projects/:id/members/:user_id', summary: "Change a project member's level or last day (its maintainers)", auth: 'user',
    scope: 'project', ability: 'admin_project_member', input: EditMemberInput, response: Member,
    example: { params: { id: 'project', user_id: 'member' }, input: { access_level: 20, expires_at: '2099-12-31' } },
    run: (ctx, { project, user_id }, input) => ctx.members.edit({ kind: 'project', scoped: project }, user_id, input),
  }),
  remove: defineRoute({
    method: 'DELETE', path: '/projects/:id/members/:user_id', summary: 'Remove a member from a project (its maintainers), or leave it', auth: 'user',
    scope: 'project', ability: 'read_project',
    example: { params: { id: 'project', user_id: 'member' } },
    run: (ctx, { project, user_id }) => ctx.members.remove({ kind: 'project', scoped: project }, user_id),
  }),
};

export const groupMembers = {
  list: defineRoute({
    method: 'GET', path: '/groups/:id/members', summary: "A group's own members", auth: 'user',
    scope: 'group', ability: 'read_group', input: ListMembersQuery, list: Member,
    example: { params: { id: 'group' }, input: { query: 'ex' } },
    run: (ctx, { group }, input) => ctx.members.list({ kind: 'group', scoped: group }, input, false),
  }),
  listAll: defineRoute({
    method: 'GET', path: '/groups/:id/members/all', summary: "A group's members with those of the groups above it, each at its highest level", auth: 'user',
    scope: 'group', ability: 'read_group', input: ListMembersQuery, list: Member,
    example: { params: { id: 'group' } },
    run: (ctx, { group }, input) => ctx.members.list({ kind: 'group', scoped: group }, input, true),
  }),
  get: defineRoute({
    method: 'GET', path: '/groups/:id/members/:user_id', summary: "A group member's own membership", auth: 'user',
    scope: 'group', ability: 'read_group', response: Member,
    example: { params: { id: 'group', user_id: 'member' } },
    run: (ctx, { group, user_id }) => ctx.members.get({ kind: 'group', scoped: group }, user_id, false),
  }),
  getAll: defineRoute({
    method: 'GET', path: '/groups/:id/members/all/:user_id', summary: "A user's highest membership of a group or of a group above it", auth: 'user',
    scope: 'group', ability: 'read_group', response: Member,
    example: { params: { id: 'group', user_id: 'member' } },
    run: (ctx, { group, user_id }) => ctx.members.get({ kind: 'group', scoped: group }, user_id, true),
  }),
  add: defineRoute({
    method: 'POST', path: '/groups/:id/members', summary: 'Make a user a member of a group (its owners)', auth: 'user',
    scope: 'group', ability: 'admin_group_member', input: AddMemberInput, response: Member,
    example: { params: { id: 'group' }, input: async (tools) => ({ user_id: await tools.newUser(), access_level: 50 }) },
    run: (ctx, { group }, input) => ctx.members.add({ kind: 'group', scoped: group }, input),
  }),
  edit: defineRoute({
    method: 'PUT', path: '/groups/:id/members/:user_id', summary: "Change a group member's level or last day (its owners); its last owner stays one", auth: 'user',
    scope: 'group', ability: 'admin_group_member', input: EditMemberInput, response: Member,
    example: { params: { id: 'group', user_id: 'member' }, input: { access_level: 40, expires_at: '2099-12-31' } },
    run: (ctx, { group, user_id }, input) => ctx.members.edit({ kind: 'group', scoped: group }, user_id, input),
  }),
  remove: defineRoute({
    method: 'DELETE', path: '/groups/:id/members/:user_id', summary: 'Remove a member from a group (its owners), or leave it; not its last owner', auth: 'user',
    scope: 'group', ability: 'read_group',
    example: { params: { id: 'group', user_id: 'member' } },
    run: (ctx, { group, user_id }) => ctx.members.remove({ kind: 'group', scoped: group }, user_id),
  }),
};
