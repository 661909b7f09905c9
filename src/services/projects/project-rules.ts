import { findGroupInScope } from './namespace-store.js';
import { can } from '../../auth/abilities.js';
import { type Namespace, Project, ProjectAvatar, type User, visibilityRank, type Visibility } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import type { SettingsValues } from '../../schemas/settings.js';
import type { CreateProjectInput, UpdateProjectInput } from '../../schemas/projects.js';
import { importUrlProblem } from './import-url.js';
import type { Context } from '../context.js';
import { type Problems, TAKEN } from '../identity/user-validation.js';
import { projectVisibility, takenInNamespace } from './project-store.js';
import { NamespacesService } from './namespaces.js';

/**
 * The rules a project is made, changed and moved by (names and paths, visibility, limits, what is taken), as the
 * original validates a project: shared by creation, updates and transfers.
 */

/** The original's rules for names and paths (Gitlab::Regex of its era), with its messages. */
const NAME_RULE = /^[\p{L}\p{N}\u{00A9}-\u{1f9c0}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1f9c0}_. ]*$/u;
const NAME_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";
const PATH_RULE = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;
const PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

/** A name and a path by the original's rules; `undefined` is one not given (an update that keeps it). */
export function checkNameAndPath(problems: Problems, name: string | undefined, path: string | undefined): void {
  if (name !== undefined) {
    if (name.trim() === '') problems.add('name', "can't be blank");
    else if (!NAME_RULE.test(name)) problems.add('name', NAME_MESSAGE);
  }
  if (path === '') problems.add('path', "can't be blank");
  else if (path !== undefined && (!PATH_RULE.test(path) || path.endsWith('.git') || path.endsWith('.atom')))
    problems.add('path', PATH_MESSAGE);
}

/** A path made from a name, as the original makes one: lowercased, each run of other characters a dash. */
export const pathFromName = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '-')
    .replace(/^[-.]+|-+$/g, '');

/**
 * An `import_url`: a URL the job can clone over HTTP(S), whose host resolves to public addresses only unless
 * local requests are allowed, with the original's messages (src/services/projects/import-url.ts).
 */
export async function checkImportUrl(problems: Problems, importUrl: string, allowLocalRequests: boolean): Promise<void> {
  const problem = await importUrlProblem(importUrl, allowLocalRequests);
  if (problem) problems.add('import_url', problem);
}

/** The least open of some visibilities. */
export const leastOpen = (visibilities: Visibility[]): Visibility =>
  visibilities.reduce((least, next) => (visibilityRank(next) < visibilityRank(least) ? next : least));

/** The request's settings as the entity names them (the request spells one of them differently). */
export const SETTINGS = {
  issues_enabled: 'issuesEnabled',
  merge_requests_enabled: 'mergeRequestsEnabled',
  jobs_enabled: 'jobsEnabled',
  wiki_enabled: 'wikiEnabled',
  snippets_enabled: 'snippetsEnabled',
  resolve_outdated_diff_discussions: 'resolveOutdatedDiffDiscussions',
  container_registry_enabled: 'containerRegistryEnabled',
  shared_runners_enabled: 'sharedRunnersEnabled',
  // The later spelling first: given both, the specification's wins.
  public_builds: 'publicJobs',
  public_jobs: 'publicJobs',
  only_allow_merge_if_pipeline_succeeds: 'onlyAllowMergeIfPipelineSucceeds',
  only_allow_merge_if_all_discussions_are_resolved: 'onlyAllowMergeIfAllDiscussionsAreResolved',
  lfs_enabled: 'lfsEnabled',
  request_access_enabled: 'requestAccessEnabled',
  printing_merge_request_link_enabled: 'printingMergeRequestLinkEnabled',
} as const;

/** `restricted_visibility_levels` (levels that only administrators may give a project); a project is no more open than its group. */
export function checkVisibility(
  ctx: Context,
  problems: Problems,
  visibility: Visibility,
  settings: SettingsValues,
  namespace: Namespace,
): void {
  if (!can(ctx.caller, 'admin_all_resources') && settings.restricted_visibility_levels?.includes(visibility)) {
    problems.add('visibility_level', `${visibility} has been restricted by your GitLab administrator`);
  }
  if (namespace.kind === 'group' && visibilityRank(visibility) > visibilityRank(namespace.visibility)) {
    problems.add('visibility_level', `${visibility} is not allowed in a ${namespace.visibility} group.`);
  }
}

/** A fork is no more open than its source (`visibility_level_allowed_as_fork`). */
export async function checkVisibilityAsFork(ctx: Context, problems: Problems, project: Project, visibility: Visibility): Promise<void> {
  if (!project.forkedFrom) return;
  const source = await projectVisibility(ctx.em, keyOf(project.forkedFrom));
  if (source && visibilityRank(visibility) > visibilityRank(source)) {
    problems.add('visibility_level', `${visibility} is not allowed since the fork source project has lower visibility.`);
  }
}

/**
 * A project made less visible leaves its fork network, as the original's UnlinkForkService does: it is no
 * longer its source's fork, and its forks (which may be more open than it is now) are no longer its forks.
 */
export async function unlinkForks(ctx: Context, project: Project): Promise<void> {
  project.forkedFrom = null;
  await ctx.em.nativeUpdate(Project, { forkedFrom: project.id }, { forkedFrom: null });
}

/** Name and path are each unique in the namespace, regardless of case (`except`: the project being renamed). */
export async function checkTaken(
  ctx: Context,
  problems: Problems,
  namespace: Namespace,
  name: string,
  path: string,
  except = 0,
): Promise<void> {
  const taken = await takenInNamespace(ctx.em, namespace, name, path, except);
  if (taken.name) problems.add('name', TAKEN);
  if (taken.path) problems.add('path', TAKEN);
}

/** A user's `projects_limit` bounds the projects in its own namespace. */
export async function checkLimit(ctx: Context, problems: Problems, user: User): Promise<void> {
  const owned = await ctx.em.count(Project, { namespace: { owner: user.id } });
  if (user.projectsLimit === 0)
    problems.add('limit_reached', 'Personal project creation is not allowed. Please contact your administrator with questions');
  else if (owned >= user.projectsLimit)
    problems.add('limit_reached', `Your project limit is ${user.projectsLimit} projects! Please contact your administrator to increase it`);
}

/**
 * A namespace by ID or full path that the caller may see: its own, any group it sees (though only its members see it in GET /namespaces);
 * null otherwise.
 */
export async function visibleNamespace(ctx: Context, idOrPath: number | string): Promise<Namespace | null> {
  const target = await new NamespacesService(ctx).findInScope(idOrPath);
  if (!target) return null;
  if (can(ctx.caller, 'read_namespace', target)) return target.namespace;
  const group = target.namespace.kind === 'group' ? await findGroupInScope(ctx, target.namespace.id) : null;
  return group && can(ctx.caller, 'read_group', group) ? target.namespace : null;
}

/** Whether the caller may put projects in the namespace (namespacePolicy's `create_projects`). */
export async function mayCreateProjectsIn(ctx: Context, namespace: Namespace): Promise<boolean> {
  const scoped = await new NamespacesService(ctx).findInScope(namespace.id);
  return scoped !== null && can(ctx.caller, 'create_projects', scoped);
}

export function setProjectAvatar(ctx: Context, project: Project, avatar: NonNullable<CreateProjectInput['avatar']>): void {
  ctx.em.create(ProjectAvatar, { project, filename: avatar.filename, contentType: avatar.content_type, data: Buffer.from(avatar.data) });
}

export function settingsOf(
  input: CreateProjectInput | UpdateProjectInput,
): Partial<Record<(typeof SETTINGS)[keyof typeof SETTINGS], boolean>> {
  const settings: Partial<Record<(typeof SETTINGS)[keyof typeof SETTINGS], boolean>> = {};
  for (const [parameter, property] of Object.entries(SETTINGS)) {
    const value = (input as Partial<Record<keyof typeof SETTINGS, boolean>>)[parameter as keyof typeof SETTINGS];
    if (value !== undefined) settings[property] = value;
  }
  return settings;
}
