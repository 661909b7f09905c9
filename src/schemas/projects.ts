import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, Int32, LIST_MAX, Nullable, Upload } from './common.js';

const closed = { additionalProperties: false } as const;

export const Visibility = Type.Union([Type.Literal('private'), Type.Literal('internal'), Type.Literal('public')]);

/** The namespace a project sits in, as the project shows it; `parent_id` null for a user's namespace and a top-level group. */
const ProjectNamespace = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    path: Type.String(),
    kind: Type.Union([Type.Literal('user'), Type.Literal('group')]),
    full_path: Type.String(),
    parent_id: Nullable(Type.Integer()),
  },
  { ...closed, title: 'ProjectNamespace' },
);

/** The caller's access through one kind of membership: `null` when it has none of that kind. */
const MemberAccess = Nullable(Type.Object({ access_level: Type.Integer(), notification_level: Type.Integer() }, closed));

/** A group a project is shared with. */
const SharedWithGroup = Type.Object({ group_id: Type.Integer(), group_name: Type.String(), group_access_level: Type.Integer() }, closed);

const ProjectLinks = Type.Object(
  {
    self: Type.String(),
    issues: Type.String(),
    merge_requests: Type.String(),
    repo_branches: Type.String(),
    labels: Type.String(),
    events: Type.String(),
    members: Type.String(),
  },
  closed,
);

/** The project a fork was made from, as the fork shows it. */
const ForkedFromProject = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    name_with_namespace: Type.String(),
    path: Type.String(),
    path_with_namespace: Type.String(),
    web_url: Type.String(),
  },
  closed,
);

/** `statistics=true`: what the repository and the project's other storage hold, in bytes (and its commits). */
const ProjectStatistics = Type.Object(
  {
    commit_count: Type.Integer(),
    storage_size: Type.Integer(),
    repository_size: Type.Integer(),
    lfs_objects_size: Type.Integer(),
    job_artifacts_size: Type.Integer(),
  },
  { ...closed, title: 'ProjectStatistics' },
);

/** A project. `owner` is the user of a user's namespace (null in a group's); `forked_from_project` appears on forks. */
export const Project = Type.Object(
  {
    id: Type.Integer(),
    description: Nullable(Type.String()),
    default_branch: Nullable(Type.String()),
    visibility: Visibility,
    ssh_url_to_repo: Type.String(),
    http_url_to_repo: Type.String(),
    web_url: Type.String(),
    tag_list: Type.Array(Type.String()),
    /** `tag_list` as later clients read it. */
    topics: Type.Array(Type.String()),
    owner: Nullable(Type.Object({ id: Type.Integer(), name: Type.String(), created_at: DateTime }, closed)),
    name: Type.String(),
    name_with_namespace: Type.String(),
    path: Type.String(),
    path_with_namespace: Type.String(),
    issues_enabled: Type.Boolean(),
    open_issues_count: Type.Integer(),
    merge_requests_enabled: Type.Boolean(),
    jobs_enabled: Type.Boolean(),
    wiki_enabled: Type.Boolean(),
    snippets_enabled: Type.Boolean(),
    resolve_outdated_diff_discussions: Type.Boolean(),
    container_registry_enabled: Type.Boolean(),
    created_at: DateTime,
    last_activity_at: DateTime,
    creator_id: Nullable(Type.Integer()),
    namespace: ProjectNamespace,
    import_status: Type.String(),
    import_error: Nullable(Type.String()),
    permissions: Type.Object({ project_access: MemberAccess, group_access: MemberAccess }, closed),
    archived: Type.Boolean(),
    avatar_url: Nullable(Type.String()),
    shared_runners_enabled: Type.Boolean(),
    forks_count: Type.Integer(),
    star_count: Type.Integer(),
    public_jobs: Type.Boolean(),
    /** `public_jobs` as later clients read it (go-gitlab's `PublicBuilds`). */
    public_builds: Type.Boolean(),
    shared_with_groups: Type.Array(SharedWithGroup),
    only_allow_merge_if_pipeline_succeeds: Type.Boolean(),
    only_allow_merge_if_all_discussions_are_resolved: Type.Boolean(),
    printing_merge_requests_link_enabled: Type.Boolean(),
    /** The same, spelled as requests spell it and later clients read it. */
    printing_merge_request_link_enabled: Type.Boolean(),
    request_access_enabled: Type.Boolean(),
    lfs_enabled: Type.Boolean(),
    ci_config_path: Nullable(Type.String()),
    /** The token runners register with: for the project's maintainers and owners, and administrators. */
    runners_token: Type.Optional(Type.String()),
    forked_from_project: Type.Optional(ForkedFromProject),
    statistics: Type.Optional(ProjectStatistics),
    _links: ProjectLinks,
  },
  { ...closed, title: 'Project' },
);
export type Project = Static<typeof Project>;

const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

/** The settings a project is created and updated with, beside its name and path. */
const settingsFields = {
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  issues_enabled: flag('issues'),
  merge_requests_enabled: flag('merge requests'),
  jobs_enabled: flag('CI jobs'),
  wiki_enabled: flag('the wiki'),
  snippets_enabled: flag('snippets'),
  resolve_outdated_diff_discussions: flag('resolve discussions on lines a push changed'),
  container_registry_enabled: flag('the container registry'),
  shared_runners_enabled: flag('shared runners'),
  public_jobs: flag('job logs for non-members'),
  public_builds: flag('`public_jobs` as later clients send it'),
  only_allow_merge_if_pipeline_succeeds: flag('merge only when the pipeline succeeded'),
  only_allow_merge_if_all_discussions_are_resolved: flag('merge only when every discussion is resolved'),
  lfs_enabled: flag('Git LFS'),
  request_access_enabled: flag('users may ask for access'),
  visibility: Type.Optional(Visibility),
  tag_list: Type.Optional(Type.Array(BoundedText(), { maxItems: LIST_MAX })),
  topics: Type.Optional(Type.Array(BoundedText(), { maxItems: LIST_MAX, description: '`tag_list` as later clients send it' })),
  ci_config_path: Type.Optional(BoundedText()),
  avatar: Type.Optional(Upload),
};

/** The settings a project is created and updated with: what creating and changing a project share. */
export const ProjectSettingsInput = Type.Object(settingsFields);
export type ProjectSettingsInput = Static<typeof ProjectSettingsInput>;

/** A repository to clone into a new project, by a job (credentials in it stay sealed: docs/jobs.md). */
const importUrl = Type.Optional(Type.String({ maxLength: 2048, description: 'an HTTP(S) URL of a git repository to import' }));

/** A first commit adding README.md on the default branch (not with `import_url`, whose repository is the import's). */
const initializeWithReadme = flag('a first commit on the default branch adding README.md (its name and description)');

export const CreateProjectInput = Type.Object({
  name: Type.Optional(BoundedText({ description: 'required without `path`' })),
  path: Type.Optional(BoundedText({ description: 'required without `name`; made from the name when omitted' })),
  namespace_id: Type.Optional(Int32({ description: "the namespace (the caller's own by default)" })),
  import_url: importUrl,
  initialize_with_readme: initializeWithReadme,
  /** The request spelling; the answer spells it `printing_merge_requests_link_enabled`. */
  printing_merge_request_link_enabled: flag('show the link to create or view a merge request after a push'),
  ...settingsFields,
});
export type CreateProjectInput = Static<typeof CreateProjectInput>;

/** `simple=true`: the project's identity and URLs only. */
export const ProjectSimple = Type.Object(
  {
    id: Type.Integer(),
    description: Nullable(Type.String()),
    default_branch: Nullable(Type.String()),
    tag_list: Type.Array(Type.String()),
    ssh_url_to_repo: Type.String(),
    http_url_to_repo: Type.String(),
    web_url: Type.String(),
    name: Type.String(),
    name_with_namespace: Type.String(),
    path: Type.String(),
    path_with_namespace: Type.String(),
    star_count: Type.Integer(),
    forks_count: Type.Integer(),
    created_at: DateTime,
    last_activity_at: DateTime,
  },
  { ...closed, title: 'ProjectSimple' },
);
export type ProjectSimple = Static<typeof ProjectSimple>;

const filter = (description: string) => Type.Optional(Type.Boolean({ description }));

/** The filters of the project lists (GET /projects, and later a user's, a group's and a project's forks). */
export const ListProjectsQuery = Type.Object({
  archived: filter('archived projects only (true) or none of them (false)'),
  visibility: Type.Optional(Visibility),
  order_by: Type.Optional(
    Type.Union([
      Type.Literal('id'),
      Type.Literal('name'),
      Type.Literal('path'),
      Type.Literal('created_at'),
      Type.Literal('updated_at'),
      Type.Literal('last_activity_at'),
    ]),
  ),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  search: Type.Optional(BoundedText({ description: 'part of the name, the path or the description' })),
  simple: filter('only the identity and URLs of each project'),
  owned: filter("projects in the caller's namespace and in groups it owns"),
  statistics: filter('with each project’s statistics (for its reporters and above)'),
  membership: filter('projects the caller is a member of'),
  starred: filter('projects the caller starred'),
  with_issues_enabled: filter('projects with issues enabled'),
  with_merge_requests_enabled: filter('projects with merge requests enabled'),
});
export type ListProjectsQuery = Static<typeof ListProjectsQuery>;

/** The specification marks `name` required; clients send only what changed: at least one parameter is. */
export const UpdateProjectInput = Type.Object({
  name: Type.Optional(BoundedText()),
  path: Type.Optional(BoundedText()),
  default_branch: Type.Optional(BoundedText()),
  ...settingsFields,
});
export type UpdateProjectInput = Static<typeof UpdateProjectInput>;

export const ListProjectUsersQuery = Type.Object({
  search: Type.Optional(BoundedText({ description: 'part of the name or the username' })),
});
export type ListProjectUsersQuery = Static<typeof ListProjectUsersQuery>;

/** POST /projects/user/:user_id: a name is required; `default_branch` names the branch HEAD points at (`master` by default). */
export const CreateProjectForUserInput = Type.Object({
  name: BoundedText(),
  import_url: importUrl,
  initialize_with_readme: initializeWithReadme,
  path: Type.Optional(BoundedText()),
  default_branch: Type.Optional(BoundedText()),
  printing_merge_request_link_enabled: flag('show the link to create or view a merge request after a push'),
  ...settingsFields,
});
export type CreateProjectForUserInput = Static<typeof CreateProjectForUserInput>;

export const GetProjectQuery = Type.Object({
  statistics: Type.Optional(Type.Boolean({ description: 'with the statistics (for its reporters and above)' })),
});
export type GetProjectQuery = Static<typeof GetProjectQuery>;

/** The namespace a project moves to, by ID or full path (twenty levels of 255 characters at most). */
export const TransferProjectInput = Type.Object({
  namespace: Type.Union([Int32(), BoundedText({ maxLength: 20 * 256 })], { description: 'the namespace’s ID or full path' }),
});
export type TransferProjectInput = Static<typeof TransferProjectInput>;

/** POST /projects/:id/fork: where to, and (as later clients send them) the fork's own name and path. */
export const ForkProjectInput = Type.Object({
  namespace: Type.Optional(
    Type.Union([Int32(), BoundedText({ maxLength: 20 * 256 })], {
      description: "the namespace to fork into, by ID or full path (the caller's own by default)",
    }),
  ),
  name: Type.Optional(BoundedText()),
  path: Type.Optional(BoundedText()),
  // Never more open than the source (nor the target group): a fork does not publish what its source hides.
  visibility: Type.Optional(Visibility),
});
export type ForkProjectInput = Static<typeof ForkProjectInput>;
