import { AddMemberInput, EditMemberInput, ListMembersQuery, Member } from '../schemas/members.js';
import type { MembersOf } from '../services/projects/members.js';
import { defineRoute } from './route.js';
import type { ScopeAbility, ScopeEntry } from './scopes.js';
import { MembersService } from '../services/projects/members.js';
import { defineModule } from './module.js';
import * as membersSchemas from '../schemas/members.js';
import * as projectsTables from '../db/entities/projects.js';
import * as namespacesTables from '../db/entities/namespaces.js';

/** What differs between a project's member routes and a group's. */
interface MembersSource<Base extends string, Scope extends 'project' | 'group'> {
  base: Base;
  scope: Scope;
  /** Who may see the members (everyone who sees the source), and who may change them. */
  reads: ScopeAbility<Scope>;
  administers: ScopeAbility<Scope>;
  /** `a project`, `a group`; who administers its members, as the summaries say it. */
  noun: string;
  administrators: string;
  /** The summaries' notes on its last owner (a group keeps one). */
  lastOwner: string;
  of(params: ScopeEntry<Scope>): MembersOf;
}

/**
 * The member routes of a kind of source, written once: a project's and a group's are the same routes on another
 * scope (`/projects/:id/members...`, `/groups/:id/members...`), as the original serves both.
 */
function memberRoutes<const Base extends string, const Scope extends 'project' | 'group'>(source: MembersSource<Base, Scope>) {
  const { base, scope, reads, administers, noun } = source;
  const userId = (params: object) => (params as { user_id: number }).user_id;
  return {
    list: defineRoute({
      method: 'GET',
      path: `${base}/members`,
      summary: `The own members of ${noun}`,
      auth: 'user',
      scope,
      ability: reads,
      input: ListMembersQuery,
      list: Member,
      run: (ctx, params, input) => new MembersService(ctx).list(source.of(params), input, false),
    }),
    listAll: defineRoute({
      method: 'GET',
      path: `${base}/members/all`,
      summary: `The members of ${noun} with those of the groups above it, each at its highest level`,
      auth: 'user',
      scope,
      ability: reads,
      input: ListMembersQuery,
      list: Member,
      run: (ctx, params, input) => new MembersService(ctx).list(source.of(params), input, true),
    }),
    get: defineRoute({
      method: 'GET',
      path: `${base}/members/:user_id`,
      summary: `A member's own membership of ${noun}`,
      auth: 'user',
      scope,
      ability: reads,
      response: Member,
      run: (ctx, params) => new MembersService(ctx).get(source.of(params), userId(params), false),
    }),
    getAll: defineRoute({
      method: 'GET',
      path: `${base}/members/all/:user_id`,
      summary: `A user's highest membership of ${noun} or of a group above it`,
      auth: 'user',
      scope,
      ability: reads,
      response: Member,
      run: (ctx, params) => new MembersService(ctx).get(source.of(params), userId(params), true),
    }),
    add: defineRoute({
      method: 'POST',
      path: `${base}/members`,
      summary: `Make a user a member of ${noun} (${source.administrators})`,
      auth: 'user',
      scope,
      ability: administers,
      input: AddMemberInput,
      response: Member,
      run: (ctx, params, input) => new MembersService(ctx).add(source.of(params), input),
    }),
    edit: defineRoute({
      method: 'PUT',
      path: `${base}/members/:user_id`,
      summary: `Change a member's level or last day (${source.administrators})${source.lastOwner}`,
      auth: 'user',
      scope,
      ability: administers,
      input: EditMemberInput,
      response: Member,
      run: (ctx, params, input) => new MembersService(ctx).edit(source.of(params), userId(params), input),
    }),
    remove: defineRoute({
      method: 'DELETE',
      path: `${base}/members/:user_id`,
      summary: `Remove a member from ${noun} (${source.administrators}), or leave it${source.lastOwner}`,
      auth: 'user',
      scope,
      ability: reads,
      run: (ctx, params) => new MembersService(ctx).remove(source.of(params), userId(params)),
    }),
  };
}

export const projectMembers = memberRoutes({
  base: '/projects/:id',
  scope: 'project',
  reads: 'read_project',
  administers: 'admin_project_member',
  noun: 'a project',
  administrators: 'its maintainers',
  lastOwner: '',
  of: ({ project }) => ({ kind: 'project', scoped: project }),
});

export const groupMembers = memberRoutes({
  base: '/groups/:id',
  scope: 'group',
  reads: 'read_group',
  administers: 'admin_group_member',
  noun: 'a group',
  administrators: 'its owners',
  lastOwner: '; not its last owner',
  of: ({ group }) => ({ kind: 'group', scoped: group }),
});

export const membersModule = defineModule({
  routes: { projectMembers, groupMembers },
  descriptions: {
    projectMembers: 'Members of projects: who has which access level on a project, until when',
    groupMembers: 'Members of groups: who has which access level on a group, its subgroups and its projects',
  },
  schemas: { ...membersSchemas },
  entities: [projectsTables.ProjectMember, namespacesTables.GroupMember],
});
