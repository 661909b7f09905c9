/**
 * An example call of every route, by its group and name in the table: what the table-wide tests (route-table,
 * robustness, validators) call each route with, the fixtures they name made by test/fixtures.ts. Kept out of the
 * route table so that none of it ships; the type fails to check when a route has no example.
 */
import type { Static, TObject } from 'typebox';
import { allRoutes, type RouteTable } from '../src/api/index.js';
import type { PathNames } from '../src/api/params.js';
import type { AnyRoute, RouteSpec } from '../src/api/route.js';

/**
 * What a route's example names in its path: things a test creates before the call (test/fixtures.ts).
 * `user` is a user other than the caller; `sshKey`, `gpgKey`, `email`, `personalToken`, `impersonationToken`,
 * `customAttributeKey` (the key of one of its custom attributes) and `avatarFilename` (the file name of its
 * uploaded avatar) are that user's; `ownSshKey`, `ownGpgKey` and `ownEmail` are the caller's own. `namespace` is
 * that user's namespace (`namespacePath` its path), `project`, `starredProject` and `sharedProject` private projects of its (the last one
 * shared with `group`), `group` a private group it owns, `sharingGroup` another one shared with `group`, and `member` a developer member of
 * `project` and `group`. `repository` is another private project of its, with a first commit (`README.md` on `master`, and a branch
 * `develop` there); in it, `commit` is the head of `master`, `branch` a new branch there, `protectedBranch` the name of master's
 * protection, `filePath` its `README.md`, `newFilePath` a path no file has. `tag` is an annotated tag of `master` with a release there,
 * `tagWithoutRelease` a lightweight tag of it without one. `blob` is the blob of its `README.md`, `pickableCommit` a commit of another
 * branch that `master` lacks (it adds a file), and `archiveFormat` an archive format (`zip`).
 * `issue` is an issue of `project` (its iid; `issueId` its instance-wide ID) that the fixture user opened, `subscribedIssue` another that
 * root subscribed to, `issueNote` a comment of the fixture user's on `issue`, `issueAward` an emoji (`tada`) the fixture
 * user awarded `issue`, and `issueNoteAward` one it awarded `issueNote`. `mergeRequest` is a merge request of the fixture
 * user's in `repository` (its iid), from a branch with a commit into master; `subscribedMergeRequest` another that root subscribed to,
 * `automaticMergeRequest` another set to merge when the pipeline of its head (a pending status) succeeds;
 * `mergeRequestNote` a comment of the fixture user's on it, `mergeRequestAward` and `mergeRequestNoteAward` emoji (`tada`) it awarded them.
 * `issueDiscussion` and `mergeRequestDiscussion` are threads the fixture user started on `issue` and `mergeRequest`, and
 * `issueDiscussionNote` and `mergeRequestDiscussionNote` their first notes.
 * `labelledProject` is another private project of its with a label named `fixture` (`label`, by ID) and one named
 * `followed` that root subscribed to (`subscribedLabel`); `milestone` is a milestone of `project`, `groupMilestone` one of `group`.
 * `environment` is an environment of `project`, available; `hook` a hook of `project`. `receivingHook` is a hook of `repository`
 * delivering to a server of the test's (which takes every delivery), `hookTrigger` a trigger its test may name (`push_events`) and
 * `hookLog` the record of a delivery of it; `groupHook` is a hook of `group` delivering there too, `groupHookLog` the record of one
 * of its deliveries, and `systemHook` a system hook delivering there.
 * `runner` is a specific runner of `project` (registered with its runners token); `borrowedRunner` one of another
 * project of the fixture user's, enabled in `project` too.
 */
export type ExampleFixture =
  | 'user'
  | 'sshKey'
  | 'gpgKey'
  | 'email'
  | 'personalToken'
  | 'impersonationToken'
  | 'customAttributeKey'
  | 'avatarFilename'
  | 'projectAvatarFilename'
  | 'ownSshKey'
  | 'ownGpgKey'
  | 'ownEmail'
  | 'namespace'
  | 'namespacePath'
  | 'project'
  | 'starredProject'
  | 'sharedProject'
  | 'group'
  | 'sharingGroup'
  | 'member'
  | 'repository'
  | 'commit'
  | 'branch'
  | 'protectedBranch'
  | 'tag'
  | 'tagWithoutRelease'
  | 'filePath'
  | 'newFilePath'
  | 'blob'
  | 'pickableCommit'
  | 'archiveFormat'
  | 'issue'
  | 'issueId'
  | 'subscribedIssue'
  | 'issueNote'
  | 'issueAward'
  | 'issueNoteAward'
  | 'mergeRequest'
  | 'subscribedMergeRequest'
  | 'automaticMergeRequest'
  | 'mergeRequestNote'
  | 'mergeRequestAward'
  | 'mergeRequestNoteAward'
  | 'issueDiscussion'
  | 'issueDiscussionNote'
  | 'mergeRequestDiscussion'
  | 'mergeRequestDiscussionNote'
  | 'labelledProject'
  | 'label'
  | 'subscribedLabel'
  | 'milestone'
  | 'groupMilestone'
  | 'environment'
  | 'hook'
  | 'receivingHook'
  | 'hookTrigger'
  | 'hookLog'
  | 'groupHook'
  | 'groupHookLog'
  | 'systemHook'
  | 'runner'
  | 'borrowedRunner';

/** What an example's input can ask the test for: values that must be new at each call, and credentials. */
export interface ExampleTools {
  /** An SSH public key (OpenSSH format) that no user has yet. */
  newSshKey(): string;
  /** An armored GPG public key that no user has yet. */
  newGpgKey(): Promise<string>;
  /** A text no other call of the test has, for usernames and e-mail addresses. */
  unique(): string;
  /** A new user's ID, for the routes that make a user a member. */
  newUser(): Promise<number>;
  /** A new group's ID, for the routes that share a project with one. */
  newGroup(): Promise<number>;
  /** A new private project's ID, made by root, for the routes that move something into a project. */
  newProject(): Promise<number>;
  /** The instance's runners registration token, as it is now (a reset changes it). */
  registrationToken(): Promise<string>;
  /** The token of a new shared runner, for the calls runners make with their own. */
  newRunnerToken(): Promise<string>;
  /** A new specific runner's ID, of a new project of root's, for the route that enables one in another project. */
  newRunner(): Promise<number>;
  /** A user that exists throughout the test, for the routes that sign in. */
  signIn: { login: string; password: string };
}

type ExampleInput<Input extends TObject> = Static<Input> | ((tools: ExampleTools) => Static<Input> | Promise<Static<Input>>);

/**
 * A call of the route that succeeds for an administrator: each path parameter names a fixture, and the input
 * (a value, or made from the tools at each call) validates against the route's input schema. Tests walk the
 * table with it, so that no test keeps a list of routes of its own; a write is safe to run once against
 * fixtures made for it.
 */
type RouteExample<Path extends string, Input extends TObject | undefined> = (PathNames<Path> extends []
  ? { params?: never }
  : { params: { [Name in PathNames<Path>[number]]: ExampleFixture } }) &
  (Input extends TObject
    ? // biome-ignore lint/complexity/noBannedTypes: `{} extends T` asks whether every member of T is optional
      {} extends Static<Input>
      ? { input?: ExampleInput<Input> }
      : { input: ExampleInput<Input> }
    : { input?: never });

/** The example of a route of the table, its path's and input's names checked against the route's. */
type ExampleOf<Route> =
  Route extends RouteSpec<infer Path, infer _Scope, infer Input, infer _Response, infer _Item> ? RouteExample<Path, Input> : never;

/** An example as the tests read it, whatever its route. */
export interface Example {
  params?: Record<string, ExampleFixture>;
  input?: Record<string, unknown> | ((tools: ExampleTools) => Record<string, unknown> | Promise<Record<string, unknown>>);
}

const EXAMPLES: { [Group in keyof RouteTable]: { [Name in keyof RouteTable[Group]]: ExampleOf<RouteTable[Group][Name]> } } = {
  customAttributes: {
    list: { params: { id: 'user' } },
    get: { params: { id: 'user', key: 'customAttributeKey' } },
    set: { params: { id: 'user', key: 'customAttributeKey' }, input: { value: 'green' } },
    delete: { params: { id: 'user', key: 'customAttributeKey' } },
  },
  applicationSettings: {
    get: {},
    update: { input: { sign_in_text: 'Welcome to the forge', session_expire_delay: 10080 } },
  },
  branches: {
    list: { params: { id: 'repository' }, input: { search: 'fixture' } },
    get: { params: { id: 'repository', branch: 'branch' } },
    create: { params: { id: 'repository' }, input: (tools) => ({ branch: `feature-${tools.unique()}`, ref: 'master' }) },
    delete: { params: { id: 'repository', branch: 'branch' } },
    protect: { params: { id: 'repository', branch: 'branch' }, input: { developers_can_push: true } },
    unprotect: { params: { id: 'repository', branch: 'branch' } },
    deleteMerged: { params: { id: 'repository' } },
  },
  protectedBranches: {
    list: { params: { id: 'repository' } },
    get: { params: { id: 'repository', name: 'protectedBranch' } },
    create: {
      params: { id: 'repository' },
      input: (tools) => ({ name: `release-${tools.unique()}/*`, push_access_level: 30, merge_access_level: 40 }),
    },
    delete: { params: { id: 'repository', name: 'protectedBranch' } },
  },
  commitStatuses: {
    list: { params: { id: 'repository', sha: 'commit' }, input: { ref: 'master', all: true } },
    create: {
      params: { id: 'repository', sha: 'commit' },
      input: {
        state: 'success',
        ref: 'master',
        name: 'ci/build',
        target_url: 'https://ci.example.com/builds/1',
        description: 'Passed',
        coverage: 87.5,
      },
    },
  },
  commitComments: {
    list: { params: { id: 'repository', sha: 'commit' } },
    create: { params: { id: 'repository', sha: 'commit' }, input: { note: 'Nice.', path: 'README.md', line: 1, line_type: 'new' } },
  },
  commits: {
    list: { params: { id: 'repository' }, input: { ref_name: 'master', path: 'README.md', with_stats: true } },
    create: {
      params: { id: 'repository' },
      input: (tools) => ({
        branch: 'master',
        commit_message: 'Two files',
        actions: [
          { action: 'create', file_path: `docs/${tools.unique()}.md`, content: '# Docs\n' },
          { action: 'create', file_path: `bin/${tools.unique()}`, content: 'IyEvYmluL3NoCg==', encoding: 'base64' },
        ],
      }),
    },
    get: { params: { id: 'repository', sha: 'commit' } },
  },
  groups: {
    list: { input: { all_available: true, search: 'ex', order_by: 'path', sort: 'desc' } },
    get: { params: { id: 'group' } },
    subgroups: { params: { id: 'group' }, input: { order_by: 'path' } },
    descendantGroups: { params: { id: 'group' }, input: { order_by: 'path', search: 'ex' } },
    projects: { params: { id: 'group' }, input: { include_subgroups: true, order_by: 'name', sort: 'asc' } },
    sharedProjects: { params: { id: 'group' }, input: { order_by: 'name', sort: 'asc', archived: false } },
    share: {
      params: { id: 'group' },
      input: async (tools) => ({ group_id: await tools.newGroup(), group_access: 30, expires_at: '2099-12-31' }),
    },
    unshare: { params: { id: 'sharingGroup', group_id: 'group' } },
    create: {
      input: (tools) => ({
        name: `Group ${tools.unique()}`,
        path: `group-${tools.unique()}`,
        visibility: 'internal',
        description: 'An example',
      }),
    },
    transferProject: { params: { id: 'group', project_id: 'starredProject' } },
    update: { params: { id: 'group' }, input: { description: 'Changed', request_access_enabled: true } },
    delete: { params: { id: 'group' } },
  },
  instance: {
    openapi: {},
    version: {},
    metadata: {},
  },
  sshKeys: {
    list: {},
    get: { params: { key_id: 'ownSshKey' } },
    create: { input: (tools) => ({ title: 'laptop', key: tools.newSshKey() }) },
    delete: { params: { key_id: 'ownSshKey' } },
    listForUser: { params: { id: 'user' } },
    getForUser: { params: { id: 'user', key_id: 'sshKey' } },
    createForUser: { params: { id: 'user' }, input: (tools) => ({ title: 'laptop', key: tools.newSshKey() }) },
    deleteForUser: { params: { id: 'user', key_id: 'sshKey' } },
  },
  gpgKeys: {
    list: {},
    get: { params: { key_id: 'ownGpgKey' } },
    create: { input: async (tools) => ({ key: await tools.newGpgKey() }) },
    delete: { params: { key_id: 'ownGpgKey' } },
    listForUser: { params: { id: 'user' } },
    getForUser: { params: { id: 'user', key_id: 'gpgKey' } },
    createForUser: { params: { id: 'user' }, input: async (tools) => ({ key_id: await tools.newGpgKey() }) },
    deleteForUser: { params: { id: 'user', key_id: 'gpgKey' } },
  },
  emails: {
    list: {},
    get: { params: { email_id: 'ownEmail' } },
    create: { input: (tools) => ({ email: `${tools.unique()}@example.com` }) },
    delete: { params: { email_id: 'ownEmail' } },
    listForUser: { params: { id: 'user' } },
    getForUser: { params: { id: 'user', email_id: 'email' } },
    createForUser: { params: { id: 'user' }, input: (tools) => ({ email: `${tools.unique()}@example.com` }) },
    deleteForUser: { params: { id: 'user', email_id: 'email' } },
  },
  projectMembers: {
    list: { params: { id: 'project' }, input: { query: 'ex' } },
    listAll: { params: { id: 'project' } },
    get: { params: { id: 'project', user_id: 'member' } },
    getAll: { params: { id: 'project', user_id: 'member' } },
    add: { params: { id: 'project' }, input: async (tools) => ({ user_id: await tools.newUser(), access_level: 30 }) },
    edit: { params: { id: 'project', user_id: 'member' }, input: { access_level: 20, expires_at: '2099-12-31' } },
    remove: { params: { id: 'project', user_id: 'member' } },
  },
  groupMembers: {
    list: { params: { id: 'group' }, input: { query: 'ex' } },
    listAll: { params: { id: 'group' } },
    get: { params: { id: 'group', user_id: 'member' } },
    getAll: { params: { id: 'group', user_id: 'member' } },
    add: { params: { id: 'group' }, input: async (tools) => ({ user_id: await tools.newUser(), access_level: 50 }) },
    edit: { params: { id: 'group', user_id: 'member' }, input: { access_level: 40, expires_at: '2099-12-31' } },
    remove: { params: { id: 'group', user_id: 'member' } },
  },
  namespaces: {
    list: { input: { search: 'ex' } },
    exists: { params: { namespace: 'namespacePath' } },
    get: { params: { id: 'namespace' } },
  },
  projects: {
    list: { input: { search: 'example', order_by: 'name', sort: 'asc', membership: true } },
    users: { params: { id: 'project' }, input: { search: 'user' } },
    groups: { params: { id: 'sharedProject' }, input: { with_shared: true, shared_min_access_level: 20, search: 'group' } },
    listOfUser: { params: { user_id: 'user' }, input: { order_by: 'path', sort: 'asc' } },
    create: {
      input: (tools) => ({ name: `Example ${tools.unique()}`, description: 'An example', visibility: 'internal', tag_list: ['example'] }),
    },
    createForUser: { params: { user_id: 'user' }, input: (tools) => ({ name: `For ${tools.unique()}`, default_branch: 'main' }) },
    get: { params: { id: 'project' }, input: { statistics: true } },
    update: { params: { id: 'project' }, input: { description: 'Changed', issues_enabled: false } },
    star: { params: { id: 'project' } },
    unstar: { params: { id: 'starredProject' } },
    avatar: { params: { id: 'project', filename: 'projectAvatarFilename' } },
    fork: { params: { id: 'project' } },
    forks: { params: { id: 'project' }, input: { order_by: 'name', sort: 'asc' } },
    archive: { params: { id: 'project' } },
    unarchive: { params: { id: 'project' } },
    transfer: { params: { id: 'project' }, input: { namespace: 'root' } },
    share: {
      params: { id: 'project' },
      input: async (tools) => ({ group_id: await tools.newGroup(), group_access: 30, expires_at: '2099-12-31' }),
    },
    unshare: { params: { id: 'sharedProject', group_id: 'group' } },
    housekeeping: { params: { id: 'repository' } },
    delete: { params: { id: 'project' } },
  },
  repositoryFiles: {
    get: { params: { id: 'repository', file_path: 'filePath' }, input: { ref: 'master' } },
    raw: { params: { id: 'repository', file_path: 'filePath' }, input: { ref: 'master' } },
    create: {
      params: { id: 'repository', file_path: 'newFilePath' },
      input: { branch: 'master', content: 'Hello\n', commit_message: 'Add a file' },
    },
    update: {
      params: { id: 'repository', file_path: 'filePath' },
      input: (tools) => ({ branch: 'master', content: `Changed ${tools.unique()}\n`, commit_message: 'Change a file' }),
    },
    delete: { params: { id: 'repository', file_path: 'filePath' }, input: { branch: 'master', commit_message: 'Delete a file' } },
  },
  repository: {
    tree: { params: { id: 'repository' }, input: { ref: 'master', recursive: true } },
    blob: { params: { id: 'repository', sha: 'blob' } },
    rawBlob: { params: { id: 'repository', sha: 'blob' } },
    archive: { params: { id: 'repository' }, input: { sha: 'master' } },
    archiveAs: { params: { id: 'repository', format: 'archiveFormat' } },
    compare: { params: { id: 'repository' }, input: { from: 'master', to: 'master' } },
    contributors: { params: { id: 'repository' }, input: { order_by: 'email', sort: 'desc' } },
    commitDiff: { params: { id: 'repository', sha: 'commit' } },
    cherryPick: { params: { id: 'repository', sha: 'pickableCommit' }, input: { branch: 'master' } },
  },
  tags: {
    list: { params: { id: 'repository' }, input: { order_by: 'updated', sort: 'asc' } },
    get: { params: { id: 'repository', tag_name: 'tag' } },
    create: {
      params: { id: 'repository' },
      input: (tools) => ({ tag_name: `v${tools.unique()}`, ref: 'master', message: 'Release', release_description: 'Notes' }),
    },
    delete: { params: { id: 'repository', tag_name: 'tag' } },
    createRelease: { params: { id: 'repository', tag_name: 'tagWithoutRelease' }, input: { description: 'Notes' } },
    updateRelease: { params: { id: 'repository', tag_name: 'tag' }, input: { description: 'Changed notes' } },
  },
  releases: {
    list: { params: { id: 'repository' }, input: { order_by: 'created_at' } },
    get: { params: { id: 'repository', tag_name: 'tag' } },
    create: {
      params: { id: 'repository' },
      input: (tools) => ({ tag_name: `v${tools.unique()}`, ref: 'master', name: 'First release', description: 'Notes' }),
    },
    update: { params: { id: 'repository', tag_name: 'tag' }, input: { name: 'Renamed', description: 'Changed notes' } },
    delete: { params: { id: 'repository', tag_name: 'tag' } },
  },
  personalAccessTokens: {
    list: { params: { user_id: 'user' }, input: { state: 'active' } },
    get: { params: { user_id: 'user', token_id: 'personalToken' } },
    create: { params: { user_id: 'user' }, input: { name: 'deploy', scopes: ['api', 'read_user'], expires_at: '2999-12-31' } },
    revoke: { params: { user_id: 'user', token_id: 'personalToken' } },
    listOwn: { input: { state: 'active' } },
    getOwn: { params: { token_id: 'personalToken' } },
    self: {},
    revokeOwn: { params: { token_id: 'personalToken' } },
  },
  impersonationTokens: {
    list: { params: { user_id: 'user' }, input: { state: 'all' } },
    get: { params: { user_id: 'user', token_id: 'impersonationToken' } },
    create: { params: { user_id: 'user' }, input: { name: 'support', scopes: ['api'] } },
    revoke: { params: { user_id: 'user', token_id: 'impersonationToken' } },
  },
  session: {
    create: { input: (tools) => ({ login: tools.signIn.login, password: tools.signIn.password }) },
  },
  oauth: {
    token: { input: (tools) => ({ grant_type: 'password', username: tools.signIn.login, password: tools.signIn.password }) },
  },
  issues: {
    listAll: { input: { scope: 'all', state: 'opened', labels: ['bug'], order_by: 'updated_at', sort: 'asc', search: 'fixture' } },
    getById: { params: { id: 'issueId' } },
    listForGroup: { params: { id: 'group' }, input: { state: 'all', milestone: 'None', assignee_id: 'None' } },
    list: { params: { id: 'project' }, input: { iids: [1], order_by: 'created_at', my_reaction_emoji: 'Any' } },
    get: { params: { id: 'project', issue_iid: 'issue' } },
    create: {
      params: { id: 'project' },
      input: {
        title: 'A new issue',
        description: 'Made by the example',
        labels: ['bug', 'ui'],
        due_date: '2030-01-31',
        confidential: true,
      },
    },
    update: {
      params: { id: 'project', issue_iid: 'issue' },
      input: { title: 'Changed by the example', state_event: 'close', add_labels: ['triaged'] },
    },
    delete: { params: { id: 'project', issue_iid: 'issue' } },
    move: { params: { id: 'project', issue_iid: 'issue' }, input: async (tools) => ({ to_project_id: await tools.newProject() }) },
    subscribe: { params: { id: 'project', issue_iid: 'issue' } },
    unsubscribe: { params: { id: 'project', issue_iid: 'subscribedIssue' } },
    timeStats: { params: { id: 'project', issue_iid: 'issue' } },
    setTimeEstimate: { params: { id: 'project', issue_iid: 'issue' }, input: { duration: '3h30m' } },
    resetTimeEstimate: { params: { id: 'project', issue_iid: 'issue' } },
    addSpentTime: { params: { id: 'project', issue_iid: 'issue' }, input: { duration: '1h' } },
    resetSpentTime: { params: { id: 'project', issue_iid: 'issue' } },
  },
  labels: {
    list: { params: { id: 'labelledProject' }, input: { search: 'fix', with_counts: true } },
    get: { params: { id: 'labelledProject', label_id: 'label' } },
    create: {
      params: { id: 'labelledProject' },
      input: (tools) => ({ name: `bug ${tools.unique()}`, color: 'red', description: 'Made by the example', priority: 1 }),
    },
    updateByName: { params: { id: 'labelledProject' }, input: { name: 'fixture', new_name: 'renamed', color: '#0a0', priority: null } },
    update: { params: { id: 'labelledProject', label_id: 'label' }, input: { new_name: 'renamed', description: 'Changed by the example' } },
    deleteByName: { params: { id: 'labelledProject' }, input: { name: 'fixture' } },
    delete: { params: { id: 'labelledProject', label_id: 'label' } },
    subscribe: { params: { id: 'labelledProject', label_id: 'label' } },
    unsubscribe: { params: { id: 'labelledProject', label_id: 'subscribedLabel' } },
  },
  milestones: {
    list: { params: { id: 'project' }, input: { state: 'active', iids: [1], search: 'fixture' } },
    get: { params: { id: 'project', milestone_id: 'milestone' } },
    create: {
      params: { id: 'project' },
      input: (tools) => ({
        title: `v${tools.unique()}`,
        description: 'Made by the example',
        start_date: '2030-01-01',
        due_date: '2030-02-01',
      }),
    },
    update: {
      params: { id: 'project', milestone_id: 'milestone' },
      input: { title: 'Renamed by the example', state_event: 'close', due_date: '2031-01-01' },
    },
    delete: { params: { id: 'project', milestone_id: 'milestone' } },
    issues: { params: { id: 'project', milestone_id: 'milestone' } },
    mergeRequests: { params: { id: 'project', milestone_id: 'milestone' } },
  },
  events: {
    list: { input: { action: 'created', target_type: 'issue', sort: 'asc' } },
    listForUser: { params: { id: 'user' }, input: { after: '2020-01-01', before: '2100-01-01' } },
    listForProject: { params: { id: 'project' }, input: { target_type: 'note' } },
  },
  environments: {
    list: { params: { id: 'project' }, input: { search: 'fix', states: 'available' } },
    get: { params: { id: 'project', environment_id: 'environment' } },
    create: {
      params: { id: 'project' },
      input: (tools) => ({ name: `review/${tools.unique()}`, external_url: `https://${tools.unique()}.example.com` }),
    },
    createSingular: {
      params: { id: 'project' },
      input: (tools) => ({ name: `staging ${tools.unique()}`, external_url: `https://${tools.unique()}.example.com/` }),
    },
    update: {
      params: { id: 'project', environment_id: 'environment' },
      input: (tools) => ({ name: `renamed-${tools.unique()}`, external_url: `https://${tools.unique()}.example.com` }),
    },
    delete: { params: { id: 'project', environment_id: 'environment' } },
    stop: { params: { id: 'project', environment_id: 'environment' } },
  },
  projectHooks: {
    list: { params: { id: 'project' } },
    get: { params: { id: 'project', hook_id: 'hook' } },
    create: {
      params: { id: 'project' },
      input: (tools) => ({ url: `https://${tools.unique()}.example.com/hook`, token: 'secret', issues_events: true }),
    },
    update: { params: { id: 'project', hook_id: 'hook' }, input: { note_events: true } },
    delete: { params: { id: 'project', hook_id: 'hook' } },
    test: { params: { id: 'repository', hook_id: 'receivingHook', trigger: 'hookTrigger' } },
    events: { params: { id: 'repository', hook_id: 'receivingHook' }, input: { status: 'successful' } },
    resend: { params: { id: 'repository', hook_id: 'receivingHook', hook_log_id: 'hookLog' } },
  },
  groupHooks: {
    list: { params: { id: 'group' } },
    get: { params: { id: 'group', hook_id: 'groupHook' } },
    create: {
      params: { id: 'group' },
      input: (tools) => ({ url: `https://${tools.unique()}.example.com/hook`, merge_requests_events: true }),
    },
    update: { params: { id: 'group', hook_id: 'groupHook' }, input: { note_events: true } },
    delete: { params: { id: 'group', hook_id: 'groupHook' } },
    events: { params: { id: 'group', hook_id: 'groupHook' } },
    resend: { params: { id: 'group', hook_id: 'groupHook', hook_log_id: 'groupHookLog' } },
  },
  systemHooks: {
    list: {},
    create: { input: (tools) => ({ url: `https://${tools.unique()}.example.com/system`, push_events: true }) },
    test: { params: { hook_id: 'systemHook' } },
    testByPost: { params: { hook_id: 'systemHook' } },
    delete: { params: { hook_id: 'systemHook' } },
  },
  groupMilestones: {
    list: { params: { id: 'group' }, input: { state: 'all', title: 'fixture' } },
    get: { params: { id: 'group', milestone_id: 'groupMilestone' } },
    create: { params: { id: 'group' }, input: (tools) => ({ title: `v${tools.unique()}`, due_date: '2030-02-01' }) },
    update: {
      params: { id: 'group', milestone_id: 'groupMilestone' },
      input: { description: 'Changed by the example', state_event: 'close' },
    },
    delete: { params: { id: 'group', milestone_id: 'groupMilestone' } },
    issues: { params: { id: 'group', milestone_id: 'groupMilestone' } },
    mergeRequests: { params: { id: 'group', milestone_id: 'groupMilestone' } },
  },
  mergeRequests: {
    listAll: { input: { scope: 'all', state: 'opened' } },
    listForGroup: { params: { id: 'group' }, input: { view: 'simple' } },
    list: { params: { id: 'repository' }, input: { state: 'all', order_by: 'updated_at' } },
    get: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    commits: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    changes: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    create: {
      params: { id: 'repository' },
      input: { source_branch: 'develop', target_branch: 'master', title: 'A new merge request', labels: ['review'] },
    },
    update: {
      params: { id: 'repository', merge_request_iid: 'mergeRequest' },
      input: { title: 'Changed by the example', state_event: 'close', labels: ['review'] },
    },
    delete: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    merge: { params: { id: 'repository', merge_request_iid: 'mergeRequest' }, input: { should_remove_source_branch: true } },
    cancelMergeWhenPipelineSucceeds: { params: { id: 'repository', merge_request_iid: 'automaticMergeRequest' } },
    cancelMergeWhenPipelineSucceedsByPost: { params: { id: 'repository', merge_request_iid: 'automaticMergeRequest' } },
    closesIssues: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    subscribe: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    unsubscribe: { params: { id: 'repository', merge_request_iid: 'subscribedMergeRequest' } },
    timeStats: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    setTimeEstimate: { params: { id: 'repository', merge_request_iid: 'mergeRequest' }, input: { duration: '2h' } },
    resetTimeEstimate: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    addSpentTime: { params: { id: 'repository', merge_request_iid: 'mergeRequest' }, input: { duration: '30m' } },
    resetSpentTime: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
  },
  mergeRequestNotes: {
    list: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    get: { params: { id: 'repository', merge_request_iid: 'mergeRequest', note_id: 'mergeRequestNote' } },
    create: { params: { id: 'repository', merge_request_iid: 'mergeRequest' }, input: { body: 'Looks good' } },
    update: {
      params: { id: 'repository', merge_request_iid: 'mergeRequest', note_id: 'mergeRequestNote' },
      input: { body: 'Changed by the example' },
    },
    delete: { params: { id: 'repository', merge_request_iid: 'mergeRequest', note_id: 'mergeRequestNote' } },
  },
  issueDiscussions: {
    list: { params: { id: 'project', issue_iid: 'issue' } },
    get: { params: { id: 'project', issue_iid: 'issue', discussion_id: 'issueDiscussion' } },
    create: { params: { id: 'project', issue_iid: 'issue' }, input: { body: 'A thread' } },
    reply: { params: { id: 'project', issue_iid: 'issue', discussion_id: 'issueDiscussion' }, input: { body: 'A reply' } },
    updateNote: {
      params: { id: 'project', issue_iid: 'issue', discussion_id: 'issueDiscussion', note_id: 'issueDiscussionNote' },
      input: { body: 'Changed' },
    },
    deleteNote: { params: { id: 'project', issue_iid: 'issue', discussion_id: 'issueDiscussion', note_id: 'issueDiscussionNote' } },
  },
  mergeRequestDiscussions: {
    list: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    get: { params: { id: 'repository', merge_request_iid: 'mergeRequest', discussion_id: 'mergeRequestDiscussion' } },
    create: { params: { id: 'repository', merge_request_iid: 'mergeRequest' }, input: { body: 'A thread' } },
    reply: {
      params: { id: 'repository', merge_request_iid: 'mergeRequest', discussion_id: 'mergeRequestDiscussion' },
      input: { body: 'A reply' },
    },
    updateNote: {
      params: {
        id: 'repository',
        merge_request_iid: 'mergeRequest',
        discussion_id: 'mergeRequestDiscussion',
        note_id: 'mergeRequestDiscussionNote',
      },
      input: { resolved: true },
    },
    deleteNote: {
      params: {
        id: 'repository',
        merge_request_iid: 'mergeRequest',
        discussion_id: 'mergeRequestDiscussion',
        note_id: 'mergeRequestDiscussionNote',
      },
    },
    resolve: {
      params: { id: 'repository', merge_request_iid: 'mergeRequest', discussion_id: 'mergeRequestDiscussion' },
      input: { resolved: true },
    },
  },
  mergeRequestAwardEmoji: {
    list: { params: { id: 'repository', merge_request_iid: 'mergeRequest' } },
    get: { params: { id: 'repository', merge_request_iid: 'mergeRequest', award_id: 'mergeRequestAward' } },
    create: { params: { id: 'repository', merge_request_iid: 'mergeRequest' }, input: { name: 'thumbsup' } },
    delete: { params: { id: 'repository', merge_request_iid: 'mergeRequest', award_id: 'mergeRequestAward' } },
    listForNote: { params: { id: 'repository', merge_request_iid: 'mergeRequest', note_id: 'mergeRequestNote' } },
    getForNote: {
      params: { id: 'repository', merge_request_iid: 'mergeRequest', note_id: 'mergeRequestNote', award_id: 'mergeRequestNoteAward' },
    },
    createForNote: {
      params: { id: 'repository', merge_request_iid: 'mergeRequest', note_id: 'mergeRequestNote' },
      input: { name: 'rocket' },
    },
    deleteForNote: {
      params: { id: 'repository', merge_request_iid: 'mergeRequest', note_id: 'mergeRequestNote', award_id: 'mergeRequestNoteAward' },
    },
  },
  issueNotes: {
    list: { params: { id: 'project', issue_iid: 'issue' }, input: { order_by: 'updated_at', sort: 'asc' } },
    get: { params: { id: 'project', issue_iid: 'issue', note_id: 'issueNote' } },
    create: { params: { id: 'project', issue_iid: 'issue' }, input: { body: 'A comment from the example' } },
    update: { params: { id: 'project', issue_iid: 'issue', note_id: 'issueNote' }, input: { body: 'Changed by the example' } },
    delete: { params: { id: 'project', issue_iid: 'issue', note_id: 'issueNote' } },
  },
  awardEmoji: {
    list: { params: { id: 'project', issue_iid: 'issue' } },
    get: { params: { id: 'project', issue_iid: 'issue', award_id: 'issueAward' } },
    create: { params: { id: 'project', issue_iid: 'issue' }, input: { name: 'thumbsup' } },
    delete: { params: { id: 'project', issue_iid: 'issue', award_id: 'issueAward' } },
    listForNote: { params: { id: 'project', issue_iid: 'issue', note_id: 'issueNote' } },
    getForNote: { params: { id: 'project', issue_iid: 'issue', note_id: 'issueNote', award_id: 'issueNoteAward' } },
    createForNote: { params: { id: 'project', issue_iid: 'issue', note_id: 'issueNote' }, input: { name: 'rocket' } },
    deleteForNote: { params: { id: 'project', issue_iid: 'issue', note_id: 'issueNote', award_id: 'issueNoteAward' } },
  },
  runners: {
    list: { input: { scope: 'active', type: 'project_type', status: 'active', tag_list: ['docker'] } },
    all: { input: { scope: 'specific', status: 'active' } },
    get: { params: { id: 'runner' } },
    update: {
      params: { id: 'runner' },
      input: {
        description: 'Changed by the example',
        active: false,
        tag_list: ['docker', 'linux'],
        access_level: 'ref_protected',
        maximum_timeout: 3600,
      },
    },
    delete: { params: { id: 'runner' } },
    register: {
      input: async (tools) => ({
        token: await tools.registrationToken(),
        description: 'Registered by the example',
        tag_list: ['docker'],
        info: { name: 'gitlab-runner', version: '11.4.0' },
      }),
    },
    verify: { input: async (tools) => ({ token: await tools.newRunnerToken(), info: { version: '11.4.2' } }) },
    unregister: { input: async (tools) => ({ token: await tools.newRunnerToken() }) },
    resetRegistrationToken: {},
  },
  projectRunners: {
    list: { params: { id: 'project' }, input: { scope: 'specific' } },
    enable: { params: { id: 'project' }, input: async (tools) => ({ runner_id: await tools.newRunner() }) },
    disable: { params: { id: 'project', runner_id: 'borrowedRunner' } },
  },
  users: {
    list: { input: { search: 'user', order_by: 'username', sort: 'asc' } },
    get: { params: { id: 'user' }, input: { with_custom_attributes: true } },
    current: {},
    create: {
      input: (tools) => {
        const username = tools.unique();
        return { email: `${username}@example.com`, username, name: 'New User', password: 'long-enough-password', skip_confirmation: true };
      },
    },
    update: { params: { id: 'user' }, input: { bio: 'Changed by the example', location: 'Lisbon' } },
    delete: { params: { id: 'user' }, input: { hard_delete: true } },
    block: { params: { id: 'user' } },
    avatar: { params: { id: 'user', filename: 'avatarFilename' } },
    unblock: { params: { id: 'user' } },
  },
};

const byRoute = new Map<AnyRoute, Example>(
  allRoutes().map(({ group, name, route }) => [route, (EXAMPLES as unknown as Record<string, Record<string, Example>>)[group][name]]),
);

/** The example call of a route of the table. */
export function exampleOf(route: AnyRoute): Example {
  const example = byRoute.get(route);
  if (!example) throw new Error(`${route.method} ${route.path} has no example in test/route-examples.ts`);
  return example;
}
