import { can } from '../../auth/abilities.js';
import type { Namespace, Project, User } from '../../db/entities/index.js';
import { keyOf } from '../../db/rows.js';
import type { Project as ProjectShape, ProjectSimple } from '../../schemas/projects.js';
import type { View } from './view.js';

/** The viewer's levels on a project (src/auth/policies/project.ts ProjectInScope). */
type ProjectAccess = { accessLevel: number; projectAccess: number | null; groupAccess: number | null };

/** What a page of projects embeds, loaded once for the page (services/projects/projects.ts). */
export interface ProjectRelations {
  namespaces: Map<number, Namespace>;
  /** The users of users' namespaces, by user ID. */
  owners: Map<number, Pick<User, 'id' | 'name' | 'createdAt'>>;
  forksCount: Map<number, number>;
  starCount: Map<number, number>;
  sharedWithGroups: Map<number, { group_id: number; group_name: string; group_access_level: number }[]>;
  forkedFrom: Map<number, Project & { namespace: Namespace }>;
  /** The caller's levels, by project: all of them, its own membership's and its groups' (inherited). */
  access: Map<number, ProjectAccess>;
  /** Measured from the repositories when asked, for the projects whose statistics the caller may read. */
  statistics: Map<number, { commitCount: number; repositorySize: number }>;
  /** The runners tokens the caller may see (a project's maintainers and owners, administrators). */
  runnersTokens: Map<number, string>;
}

/** A notification level of "global", the default of a membership (the original's value 3). */
const NOTIFICATION_GLOBAL = 3;

const memberAccess = (level: number | null | undefined) =>
  level ? { access_level: level, notification_level: NOTIFICATION_GLOBAL } : null;

const fullPathOf = (project: Pick<Project, 'path'>, namespace: Pick<Namespace, 'fullPath'>) => `${namespace.fullPath}/${project.path}`;

/** A project's page: its `web_url`, where the URLs of its commits, branches and files start. */
export const projectWebUrl = (project: Pick<Project, 'path'>, namespace: Pick<Namespace, 'fullPath'>, baseUrl: string) =>
  `${baseUrl}/${fullPathOf(project, namespace)}`;
const fullNameOf = (project: Project, namespace: Namespace) => `${namespace.fullName} / ${project.name}`;

/** The host of the base URL, for the SSH clone URL. */
const hostOf = (baseUrl: string) => new URL(baseUrl).hostname;

/** Its open issues as the viewer counts them: the confidential ones only for those who may read them. */
function openIssuesCount(project: Project, namespace: Namespace, access: ProjectAccess | undefined, view: View): number {
  const scoped = {
    project,
    namespace,
    accessLevel: access?.accessLevel ?? 0,
    projectAccess: access?.projectAccess ?? null,
    groupAccess: access?.groupAccess ?? null,
  };
  const all = project.openIssuesCount ?? 0;
  return can(view.caller, 'read_confidential_issues', scoped) ? all : all - (project.openConfidentialIssuesCount ?? 0);
}

export function presentProjects(projects: Project[], relations: ProjectRelations, view: View): ProjectShape[] {
  return projects.map((project) => {
    const namespace = relations.namespaces.get(keyOf(project.namespace))!;
    const pathWithNamespace = fullPathOf(project, namespace);
    const webUrl = `${view.baseUrl}/${pathWithNamespace}`;
    const self = `${view.baseUrl}/api/v4/projects/${project.id}`;
    const owner = namespace.owner ? relations.owners.get(keyOf(namespace.owner)) : undefined;
    const access = relations.access.get(project.id);
    const forkedFrom = relations.forkedFrom.get(project.id);
    const shape: ProjectShape = {
      id: project.id,
      description: project.description ?? null,
      default_branch: project.defaultBranch ?? null,
      visibility: project.visibility,
      ssh_url_to_repo: `git@${hostOf(view.baseUrl)}:${pathWithNamespace}.git`,
      http_url_to_repo: `${webUrl}.git`,
      web_url: webUrl,
      tag_list: project.tagList ?? [],
      topics: project.tagList ?? [],
      owner: owner ? { id: owner.id, name: owner.name, created_at: owner.createdAt.toISOString() } : null,
      name: project.name,
      name_with_namespace: fullNameOf(project, namespace),
      path: project.path,
      path_with_namespace: pathWithNamespace,
      issues_enabled: project.issuesEnabled,
      open_issues_count: openIssuesCount(project, namespace, access, view),
      merge_requests_enabled: project.mergeRequestsEnabled,
      jobs_enabled: project.jobsEnabled,
      wiki_enabled: project.wikiEnabled,
      snippets_enabled: project.snippetsEnabled,
      resolve_outdated_diff_discussions: project.resolveOutdatedDiffDiscussions,
      container_registry_enabled: project.containerRegistryEnabled,
      created_at: project.createdAt.toISOString(),
      last_activity_at: project.lastActivityAt.toISOString(),
      creator_id: project.creator ? keyOf(project.creator) : null,
      namespace: {
        id: namespace.id,
        name: namespace.name,
        path: namespace.path,
        kind: namespace.kind,
        full_path: namespace.fullPath,
        parent_id: namespace.parent ? keyOf(namespace.parent) : null,
      },
      import_status: project.importStatus,
      import_error: project.importError ?? null,
      permissions: { project_access: memberAccess(access?.projectAccess), group_access: memberAccess(access?.groupAccess) },
      archived: project.archived,
      avatar_url: project.avatarFilename
        ? `${view.baseUrl}/uploads/-/system/project/avatar/${project.id}/${encodeURIComponent(project.avatarFilename)}`
        : null,
      shared_runners_enabled: project.sharedRunnersEnabled,
      forks_count: relations.forksCount.get(project.id) ?? 0,
      star_count: relations.starCount.get(project.id) ?? 0,
      public_jobs: project.publicJobs,
      public_builds: project.publicJobs,
      shared_with_groups: relations.sharedWithGroups.get(project.id) ?? [],
      only_allow_merge_if_pipeline_succeeds: project.onlyAllowMergeIfPipelineSucceeds,
      only_allow_merge_if_all_discussions_are_resolved: project.onlyAllowMergeIfAllDiscussionsAreResolved,
      printing_merge_requests_link_enabled: project.printingMergeRequestLinkEnabled,
      printing_merge_request_link_enabled: project.printingMergeRequestLinkEnabled,
      request_access_enabled: project.requestAccessEnabled,
      lfs_enabled: project.lfsEnabled,
      ci_config_path: project.ciConfigPath ?? null,
      _links: {
        self,
        issues: `${self}/issues`,
        merge_requests: `${self}/merge_requests`,
        repo_branches: `${self}/repository/branches`,
        labels: `${self}/labels`,
        events: `${self}/events`,
        members: `${self}/members`,
      },
    };
    const runnersToken = relations.runnersTokens.get(project.id);
    if (runnersToken !== undefined) shape.runners_token = runnersToken;
    const statistics = relations.statistics.get(project.id);
    if (statistics) {
      // Nothing but the repository takes storage yet: no LFS objects, no job artifacts.
      shape.statistics = {
        commit_count: statistics.commitCount,
        storage_size: statistics.repositorySize,
        repository_size: statistics.repositorySize,
        lfs_objects_size: 0,
        job_artifacts_size: 0,
      };
    }
    if (forkedFrom) {
      shape.forked_from_project = {
        id: forkedFrom.id,
        name: forkedFrom.name,
        name_with_namespace: fullNameOf(forkedFrom, forkedFrom.namespace),
        path: forkedFrom.path,
        path_with_namespace: fullPathOf(forkedFrom, forkedFrom.namespace),
        web_url: `${view.baseUrl}/${fullPathOf(forkedFrom, forkedFrom.namespace)}`,
      };
    }
    return shape;
  });
}

/** `simple=true`: each project's identity and URLs. */
export function presentProjectsSimple(projects: Project[], relations: ProjectRelations, view: View): ProjectSimple[] {
  return presentProjects(projects, relations, view).map((project) => ({
    id: project.id,
    description: project.description,
    default_branch: project.default_branch,
    tag_list: project.tag_list,
    ssh_url_to_repo: project.ssh_url_to_repo,
    http_url_to_repo: project.http_url_to_repo,
    web_url: project.web_url,
    name: project.name,
    name_with_namespace: project.name_with_namespace,
    path: project.path,
    path_with_namespace: project.path_with_namespace,
    star_count: project.star_count,
    forks_count: project.forks_count,
    created_at: project.created_at,
    last_activity_at: project.last_activity_at,
  }));
}
