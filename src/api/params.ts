import { Type, type Static } from 'typebox';
import { BoundedText, FILE_PATH_MAX, Int32, REF_MAX } from '../schemas/common.js';
import { HookTestTrigger } from '../schemas/hooks.js';
import { ArchiveFormat } from '../schemas/repository.js';

/**
 * Every path parameter, by the name routes use for it: a route's parameter schema is made from its path.
 * A parameter that names a route's scope (the user of `/users/:id/keys`) takes its schema from the scope.
 */
/** The longest full path: groups nest twenty deep, each path of at most 255 characters. */
const FULL_PATH_MAX = 20 * 256;

export const PATH_PARAMETERS = {
  id: Int32({ description: 'ID' }),
  user_id: Int32({ description: 'user ID' }),
  key_id: Int32({ description: 'key ID' }),
  email_id: Int32({ description: 'e-mail address ID' }),
  token_id: Int32({ description: 'token ID' }),
  /** A custom attribute's key (a 255-character column). */
  key: BoundedText({ description: 'custom attribute key' }),
  /** An uploaded file's name, as it was uploaded (a 255-character column). */
  filename: BoundedText({ description: 'file name' }),
  project_id: Int32({ description: 'project ID' }),
  group_id: Int32({ description: 'group ID' }),
  /** A branch's name (URL-encoded in a path: `feature%2Fx`). */
  branch: BoundedText({ maxLength: REF_MAX, description: 'branch name' }),
  /** A tag's name (URL-encoded in a path). */
  tag_name: BoundedText({ maxLength: REF_MAX, description: 'tag name' }),
  /** A commit: its object ID (full or abbreviated), or a branch or tag name. */
  sha: BoundedText({ maxLength: REF_MAX, description: 'commit SHA, or branch or tag name' }),
  /** A protected branch's name or pattern (`release%2F*`). */
  name: BoundedText({ description: 'protected branch name or pattern' }),
  /** A file's full path in the repository, URL-encoded (`lib%2Fclass.rb`). */
  file_path: BoundedText({ maxLength: FILE_PATH_MAX, description: 'URL-encoded full path of the file' }),
  /** A work item's number in its project. */
  issue_iid: Int32({ description: "the issue's iid" }),
  merge_request_iid: Int32({ description: "the merge request's iid" }),
  note_id: Int32({ description: 'note ID' }),
  /** A discussion, by the original's 40-hex ID. */
  discussion_id: Type.String({ pattern: '^[0-9a-f]{40}$', maxLength: 40, description: 'discussion ID' }),
  award_id: Int32({ description: 'award emoji ID' }),
  /** A label by ID or, as later clients name it, by its (URL-encoded) name. */
  label_id: Type.Union([Int32(), BoundedText()], { description: 'label ID or name' }),
  milestone_id: Int32({ description: 'milestone ID' }),
  runner_id: Int32({ description: 'runner ID' }),
  environment_id: Int32({ description: 'environment ID' }),
  hook_id: Int32({ description: 'hook ID' }),
  hook_log_id: Int32({ description: 'the ID of a hook delivery’s record (a hook event)' }),
  trigger: HookTestTrigger,
  /** A namespace's path (one part of a full path), as GET /namespaces/:namespace/exists asks of it. */
  namespace: BoundedText({ description: 'namespace path' }),
  /** An archive's format, the suffix of `archive.:format`. */
  format: ArchiveFormat,
};

/**
 * The resources a route's path can name (its scope, loaded before the route runs: src/api/scopes.ts), by
 * the schema of the path parameter that names them.
 */
export const SCOPE_PARAMETERS = {
  user: Int32({ description: 'user ID' }),
  /** A user named by ID or, as newer clients name it on some routes, by username. */
  userByIdOrUsername: Type.Union([Int32(), BoundedText()], { description: 'user ID or username' }),
  personalAccessToken: Int32({ description: 'token ID' }),
  /** By ID or by full path (`group/subgroup`, URL-encoded in a path): twenty levels of 255 characters at most. */
  namespace: Type.Union([Int32(), BoundedText({ maxLength: FULL_PATH_MAX })], { description: 'namespace ID or full path' }),
  /** By ID or by full path (`group/subgroup`, URL-encoded in a path). */
  group: Type.Union([Int32(), BoundedText({ maxLength: FULL_PATH_MAX })], { description: 'group ID or URL-encoded full path' }),
  /** By ID or by full path (`group/project`, URL-encoded in a path). */
  project: Type.Union([Int32(), BoundedText({ maxLength: FULL_PATH_MAX + 256 })], { description: 'project ID or URL-encoded full path' }),
  runner: Int32({ description: 'runner ID' }),
};

/**
 * Scopes inside another (a project's protected branch, an issue by `iid`, a note on it): the path's first parameter
 * names the outermost scope's resource, and each scope inside it the parameter it names (PATH_PARAMETERS's schema).
 */
export const NESTED_SCOPES = {
  protectedBranch: { parent: 'project', parameter: 'name' },
  issue: { parent: 'project', parameter: 'issue_iid' },
  mergeRequest: { parent: 'project', parameter: 'merge_request_iid' },
  issueNote: { parent: 'issue', parameter: 'note_id' },
  mergeRequestNote: { parent: 'mergeRequest', parameter: 'note_id' },
  issueAward: { parent: 'issue', parameter: 'award_id' },
  mergeRequestAward: { parent: 'mergeRequest', parameter: 'award_id' },
} as const satisfies Record<string, { parent: string; parameter: keyof typeof PATH_PARAMETERS }>;

export type NestedScopeName = keyof typeof NESTED_SCOPES;
export type RootScopeName = keyof typeof SCOPE_PARAMETERS;
export type ScopeName = RootScopeName | NestedScopeName;
/** The scope a scope is in, outermost: `project` for an issue's note. */
export type RootScopeOf<S extends ScopeName> = S extends NestedScopeName ? RootScopeOf<(typeof NESTED_SCOPES)[S]['parent']> : S;
/** What the path's first parameter of a route of the scope holds: the (outermost) resource's ID. */
export type ScopeId<S extends ScopeName> = Static<(typeof SCOPE_PARAMETERS)[RootScopeOf<S>]>;

/** The outermost scope of a scope: itself, or the one its parents lead to. */
export function rootScopeOf(scope: ScopeName): RootScopeName {
  let name: ScopeName = scope;
  while (name in NESTED_SCOPES) name = NESTED_SCOPES[name as NestedScopeName].parent;
  return name as RootScopeName;
}

/** The schema of the path's first parameter of a route of the scope. */
export const scopeParameter = (scope: ScopeName) => SCOPE_PARAMETERS[rootScopeOf(scope)];

export type PathParameterName = keyof typeof PATH_PARAMETERS;
export type PathParameterTypes = { [Name in PathParameterName]: Static<(typeof PATH_PARAMETERS)[Name]> };

/** `/users/:id/keys/:key_id` → `['id', 'key_id']`, as types. */
export type PathNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? [Name, ...PathNames<Rest>]
  : P extends `${string}:${infer Name}`
    ? [Name]
    : [];

/** The names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]);
}

export const isPathParameter = (name: string): name is PathParameterName => Object.hasOwn(PATH_PARAMETERS, name);
