import type { Ability, AbilityResource } from '../auth/abilities.js';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors.js';
import { NO_ACCESS } from '../services/ci/runners.js';
import type { Context } from '../services/context.js';
import type { NestedScopeName, PathParameterName, PathParameterTypes, ScopeId, ScopeName } from './params.js';
import { AccessTokensService } from '../services/identity/tokens.js';
import { BranchesService } from '../services/repository/branches.js';
import { GroupsService } from '../services/projects/groups.js';
import { AwardEmojiService } from '../services/work-items/award-emoji.js';
import { IssuesService } from '../services/work-items/issues.js';
import { MergeRequestsService } from '../services/work-items/merge-requests.js';
import { NotesService } from '../services/work-items/notes.js';
import { issueTarget, mergeRequestTarget, type WorkItemTarget } from '../services/work-items/work-item-target.js';
import { NamespacesService } from '../services/projects/namespaces.js';
import { ProjectsService } from '../services/projects/projects.js';
import { RunnersService } from '../services/ci/runners.js';
import { UsersService } from '../services/identity/users.js';

/** A scope whose resource the path's first parameter names. */
interface RootScope<S extends ScopeName, Key extends string, Resource> {
  /** The key under which `run` finds the loaded resource among its parameters. */
  key: Key;
  load(ctx: Context, id: ScopeId<S>): Promise<Resource | null>;
  /** The answer when the resource is missing, or hidden from the caller. */
  notFound(): NotFoundError;
  /** The answer when the route's ability is refused and the resource is not hidden: 403 with the scope's reason, if it has one. */
  forbidden?(): ForbiddenError;
}

/**
 * A scope inside another (src/api/params.ts NESTED_SCOPES): the outer resource is loaded first and must be
 * readable by the caller (`reads`: 404 as the outer scope's otherwise); then the inner one, by its path parameter,
 * from the outer one (the other path parameters at hand: a note's discussion, an award's note).
 */
interface NestedScope<Parent extends ScopeName, Key extends string, ParentResource, Resource> {
  key: Key;
  parent: Parent;
  /** What the caller must be able to do with the outer resource to reach the inner one at all. */
  reads: Ability;
  load(ctx: Context, parent: ParentResource, id: string, params: PathValues): Promise<Resource | null>;
  notFound(): NotFoundError;
  /** As a root scope's. */
  forbidden?(): ForbiddenError | UnauthorizedError;
}

/** A route's path parameters, validated, by name. */
type PathValues = { readonly [Name in PathParameterName]?: PathParameterTypes[Name] };

const scope = <S extends ScopeName, Key extends string, Resource>(_name: S, definition: RootScope<S, Key, Resource>) => definition;

/**
 * How each scope's resource is loaded. The pipeline loads a route's scope before `run` (404 when it is
 * missing), checks the route's ability on it, and hands it to `run`.
 */
const ROOT_SCOPES = {
  user: scope('user', {
    key: 'user',
    load: (ctx, id) => new UsersService(ctx).findByIdOrUsername(id),
    notFound: () => new NotFoundError('User'),
  }),
  userByIdOrUsername: scope('userByIdOrUsername', {
    key: 'user',
    load: (ctx, id) => new UsersService(ctx).findByIdOrUsername(id),
    notFound: () => new NotFoundError('User'),
  }),
  personalAccessToken: scope('personalAccessToken', {
    key: 'token',
    load: (ctx, id) => new AccessTokensService(ctx).findPersonal(id),
    notFound: () => new NotFoundError('Personal Access Token'),
  }),
  project: scope('project', {
    key: 'project',
    load: (ctx, id) => new ProjectsService(ctx).findInScope(id),
    notFound: () => new NotFoundError('Project'),
  }),
  group: scope('group', {
    key: 'group',
    load: (ctx, id) => new GroupsService(ctx).findInScope(id),
    notFound: () => new NotFoundError('Group'),
  }),
  namespace: scope('namespace', {
    key: 'namespace',
    load: (ctx, id) => new NamespacesService(ctx).findInScope(id),
    notFound: () => new NotFoundError('Namespace'),
  }),
  // As the original's runners API refuses (`authenticate_show_runner!` and the others): 403 `No access granted`.
  runner: scope('runner', {
    key: 'runner',
    load: (ctx, id) => new RunnersService(ctx).findInScope(id),
    notFound: () => new NotFoundError('Runner'),
    forbidden: () => new ForbiddenError(NO_ACCESS),
  }),
};

/** The resource a scope of `scopes` loads. */
type Loaded<Scopes, S extends keyof Scopes> = Scopes[S] extends { load(...args: never[]): Promise<infer Resource> }
  ? NonNullable<Resource>
  : never;

/** A scope's definition inside one of `Outer`'s scopes, typed by the resource that one loads. */
const nestedIn =
  <Outer>() =>
  <P extends keyof Outer & ScopeName, Key extends string, Resource>(definition: NestedScope<P, Key, Loaded<Outer, P>, Resource>) =>
    definition;

const nested = nestedIn<typeof ROOT_SCOPES>();

const IN_ROOT_SCOPES = {
  protectedBranch: nested({
    key: 'protection',
    parent: 'project',
    reads: 'read_project',
    load: (ctx, project, name) => new BranchesService(ctx).findProtection(project, name),
    notFound: () => new NotFoundError('404 Not found', { verbatim: true }),
  }),
  issue: nested({
    key: 'issue',
    parent: 'project',
    reads: 'read_project',
    load: (ctx, project, iid) => new IssuesService(ctx).findInScope(project, iid),
    notFound: () => new NotFoundError('Issue'),
  }),
  mergeRequest: nested({
    key: 'mergeRequest',
    parent: 'project',
    reads: 'read_project',
    load: (ctx, project, iid) => new MergeRequestsService(ctx).findInScope(project, iid),
    notFound: () => new NotFoundError('Merge Request'),
  }),
};

const inWorkItem = nestedIn<typeof IN_ROOT_SCOPES>();

/** The scopes inside an issue or a merge request: a note on it, and an emoji awarded to it or to its note. */
function inWorkItemScopes<P extends 'issue' | 'mergeRequest'>(
  parent: P,
  reads: Ability,
  targetOf: (item: Loaded<typeof IN_ROOT_SCOPES, P>) => WorkItemTarget,
) {
  return {
    note: inWorkItem({
      key: 'note',
      parent,
      reads,
      load: (ctx, item, id, params) => new NotesService(ctx).findInScope(targetOf(item), Number(id), params.discussion_id),
      notFound: () => new NotFoundError('Note'),
    }),
    award: inWorkItem({
      key: 'award',
      parent,
      reads,
      load: (ctx, item, id, params) =>
        new AwardEmojiService(ctx).findInScope({ target: targetOf(item), noteId: params.note_id }, Number(id)),
      notFound: () => new NotFoundError('Award Emoji'),
      // As the original's award emoji API refuses another's award: 401.
      forbidden: () => new UnauthorizedError(),
    }),
  };
}

const IN_ISSUE = inWorkItemScopes('issue', 'read_issue', issueTarget);
const IN_MERGE_REQUEST = inWorkItemScopes('mergeRequest', 'read_merge_request', mergeRequestTarget);
const IN_WORK_ITEMS = {
  issueNote: IN_ISSUE.note,
  issueAward: IN_ISSUE.award,
  mergeRequestNote: IN_MERGE_REQUEST.note,
  mergeRequestAward: IN_MERGE_REQUEST.award,
};

const NESTED = { ...IN_ROOT_SCOPES, ...IN_WORK_ITEMS } satisfies Record<NestedScopeName, unknown>;

export const SCOPES = { ...ROOT_SCOPES, ...NESTED };

type Definition<S extends ScopeName> = (typeof SCOPES)[S];
type ScopeResource<S extends ScopeName> = NonNullable<Awaited<ReturnType<Definition<S>['load']>>>;

/** What `run` receives for a scope: `{ user: User }`, `{ token: AccessToken }`. */
// biome-ignore lint/complexity/noBannedTypes: no scope, no members: `{}` adds nothing where the entry is intersected
export type ScopeEntry<S extends ScopeName | undefined> = S extends ScopeName ? { [K in Definition<S>['key']]: ScopeResource<S> } : {};

/** The abilities that apply to a scope's resource. */
export type ScopeAbility<S extends ScopeName | undefined> = S extends ScopeName
  ? { [A in Ability]: ScopeResource<S> extends AbilityResource<A> ? A : never }[Ability]
  : never;
