import { Type, type Static } from 'typebox';
import { CreateBranchInput } from './branches.js';
import { Encoding, MESSAGE_MAX, CONTENT_MAX } from './commits.js';
import { BoundedText, FILE_PATH_MAX, Int32, LIST_MAX, Nullable, PASSWORD_MAX, REF_MAX, STRING_MAX } from './common.js';
import { CreateProjectHookInput, CreateSystemHookInput } from './hooks.js';
import { Visibility } from './projects.js';
import { RunnerRegistration, UpdateRunnerInput } from './runners.js';
import { CreateTagInput } from './tags.js';
import { TokenScope } from './tokens.js';
import { DayInput, LongText } from './work-items.js';

// A test double's seed (docs/testing.md "Seeds"): an instance's first state described as plain data, made in one
// transaction by `hosting.seed()`, `POST /-/forgekit/seed` or `forgekit serve --seed`. Items name one another by what
// a person would write (a username, a group's full path, a label's name, a milestone's title, a branch), never by IDs,
// which the seed answers. Every list and text is bounded; src/testing/seed.ts bounds the items in all.

const closed = { additionalProperties: false } as const;

/** The most items a top-level list holds (users, groups, projects), and a project's issues. */
export const SEED_LIST_MAX = 10_000;
/** The most items a list within an item holds (a project's merge requests, labels, commits, a commit's files, ...). */
const NESTED_MAX = 1_000;
/** A group's or a project's hooks and runners. */
const FEW_MAX = 100;

const username = (description: string) => BoundedText({ description: `${description}: a username, the seed's or the instance's` });

/** A user, with a personal access token the seed answers. */
export const SeedUser = Type.Object({
  username: BoundedText(),
  name: Type.Optional(BoundedText({ maxLength: 128, description: 'the username when omitted' })),
  email: Type.Optional(BoundedText({ description: '`<username>@example.com` when omitted' })),
  password: Type.Optional(
    BoundedText({ maxLength: PASSWORD_MAX, description: 'none when omitted: the user signs in with its token (hashing costs some 50 ms)' }),
  ),
  admin: Type.Optional(Type.Boolean()),
  external: Type.Optional(Type.Boolean()),
  token: Type.Optional(
    Type.String({
      minLength: 8,
      maxLength: STRING_MAX,
      description: 'its personal access token, to know it beforehand (a new random one when omitted)',
    }),
  ),
  token_scopes: Type.Optional(Type.Array(TokenScope, { minItems: 1, maxItems: LIST_MAX, description: "its token's scopes (`api`)" })),
});
export type SeedUser = Static<typeof SeedUser>;

/** A membership: guest 10, reporter 20, developer 30, maintainer 40, owner 50 (groups only). */
export const SeedMember = Type.Object({
  user: username('the member'),
  access_level: Type.Union([Type.Literal(10), Type.Literal(20), Type.Literal(30), Type.Literal(40), Type.Literal(50)]),
});
export type SeedMember = Static<typeof SeedMember>;

const members = Type.Optional(Type.Array(SeedMember, { maxItems: NESTED_MAX }));
/** Runners of the instance, a group or a project, registered with its registration token: the seed answers their own tokens. */
const runners = Type.Optional(Type.Array(UpdateRunnerInput, { maxItems: FEW_MAX }));

/**
 * A group (a subgroup with `parent`). Its members are those listed; a group none of whose members (nor its parents')
 * owns it gets root as its owner, as a group always has one.
 */
export const SeedGroup = Type.Object({
  path: BoundedText(),
  name: Type.Optional(BoundedText({ description: 'the path when omitted' })),
  parent: Type.Optional(
    BoundedText({ maxLength: 2048, description: "the parent's full path: a group earlier in the seed, or the instance's" }),
  ),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  visibility: Type.Optional(Visibility),
  members,
  hooks: Type.Optional(Type.Array(CreateProjectHookInput, { maxItems: FEW_MAX })),
  runners,
});
export type SeedGroup = Static<typeof SeedGroup>;

export const SeedLabel = Type.Object({
  name: BoundedText(),
  color: Type.Optional(BoundedText({ maxLength: 64, description: '`#RRGGBB`, `#RGB` or a CSS colour name (`#428BCA`)' })),
  description: Type.Optional(BoundedText({ maxLength: 10_000 })),
  priority: Type.Optional(Int32({ description: 'prioritized labels sort first, lowest first' })),
});
export type SeedLabel = Static<typeof SeedLabel>;

export const SeedMilestone = Type.Object({
  title: BoundedText(),
  description: Type.Optional(LongText('description')),
  state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('closed')])),
  start_date: Type.Optional(DayInput),
  due_date: Type.Optional(DayInput),
});
export type SeedMilestone = Static<typeof SeedMilestone>;

/** A file as a commit writes it: made, or changed when the branch has it. */
export const SeedFile = Type.Object({
  path: BoundedText({ maxLength: FILE_PATH_MAX }),
  content: Type.String({ maxLength: CONTENT_MAX }),
  encoding: Type.Optional(Encoding),
});
export type SeedFile = Static<typeof SeedFile>;

/** A commit on a branch, in the order given; a new branch starts from `start_branch` (the first commit needs none). */
export const SeedCommit = Type.Object({
  branch: BoundedText({ maxLength: REF_MAX }),
  start_branch: Type.Optional(BoundedText({ maxLength: REF_MAX })),
  message: Type.String({ maxLength: MESSAGE_MAX }),
  author: Type.Optional(username('its author and committer (root when omitted)')),
  files: Type.Array(SeedFile, { minItems: 1, maxItems: NESTED_MAX }),
});
export type SeedCommit = Static<typeof SeedCommit>;

/** A comment on an issue or a merge request. */
export const SeedNote = Type.Object({
  body: LongText('the comment'),
  author: Type.Optional(username('its author (root when omitted)')),
});
export type SeedNote = Static<typeof SeedNote>;

const notes = Type.Optional(Type.Array(SeedNote, { maxItems: NESTED_MAX }));
const workItemFields = {
  title: BoundedText(),
  description: Type.Optional(LongText('description')),
  author: Type.Optional(username('its author (root when omitted)')),
  assignees: Type.Optional(Type.Array(username('an assignee'), { maxItems: LIST_MAX })),
  labels: Type.Optional(Type.Array(BoundedText(), { maxItems: LIST_MAX, description: "labels' names: a name the project lacks makes it" })),
  milestone: Type.Optional(BoundedText({ description: "a milestone's title, of the project's" })),
  state: Type.Optional(Type.Union([Type.Literal('opened'), Type.Literal('closed')])),
  discussion_locked: Type.Optional(Type.Boolean()),
  notes,
};

/** An issue: the project's issues take iids 1, 2, ... in the order given. */
export const SeedIssue = Type.Object({
  ...workItemFields,
  confidential: Type.Optional(Type.Boolean()),
  due_date: Type.Optional(DayInput),
});
export type SeedIssue = Static<typeof SeedIssue>;

/** A merge request between two branches of its project, once its commits, branches and tags are made. */
export const SeedMergeRequest = Type.Object({
  ...workItemFields,
  source_branch: BoundedText({ maxLength: REF_MAX }),
  target_branch: Type.Optional(BoundedText({ maxLength: REF_MAX, description: "the project's default branch when omitted" })),
  remove_source_branch: Type.Optional(Type.Boolean()),
});
export type SeedMergeRequest = Static<typeof SeedMergeRequest>;

/**
 * A project, with its repository's commits, then its branches and tags, then its work items. Its namespace's user (in
 * a user's namespace) is its maintainer, as the API makes it.
 */
export const SeedProject = Type.Object({
  name: Type.Optional(BoundedText({ description: 'the path when omitted' })),
  path: Type.Optional(BoundedText({ description: 'made from the name when omitted' })),
  namespace: Type.Optional(
    BoundedText({ maxLength: 2048, description: "a username or a group's full path, the seed's or the instance's (root's when omitted)" }),
  ),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  visibility: Type.Optional(Visibility),
  default_branch: Type.Optional(BoundedText({ maxLength: REF_MAX, description: "HEAD's branch until the first is made (`master`)" })),
  members,
  labels: Type.Optional(Type.Array(SeedLabel, { maxItems: NESTED_MAX })),
  milestones: Type.Optional(Type.Array(SeedMilestone, { maxItems: NESTED_MAX })),
  commits: Type.Optional(Type.Array(SeedCommit, { maxItems: NESTED_MAX })),
  branches: Type.Optional(Type.Array(CreateBranchInput, { maxItems: NESTED_MAX })),
  tags: Type.Optional(Type.Array(CreateTagInput, { maxItems: NESTED_MAX })),
  issues: Type.Optional(Type.Array(SeedIssue, { maxItems: SEED_LIST_MAX })),
  merge_requests: Type.Optional(Type.Array(SeedMergeRequest, { maxItems: NESTED_MAX })),
  hooks: Type.Optional(Type.Array(CreateProjectHookInput, { maxItems: FEW_MAX })),
  runners,
});
export type SeedProject = Static<typeof SeedProject>;

/** What a seed makes: users first, then groups (parents before subgroups), projects, and the instance's runners and system hooks. */
export const SeedDescription = Type.Object({
  users: Type.Optional(Type.Array(SeedUser, { maxItems: SEED_LIST_MAX })),
  groups: Type.Optional(Type.Array(SeedGroup, { maxItems: SEED_LIST_MAX })),
  projects: Type.Optional(Type.Array(SeedProject, { maxItems: SEED_LIST_MAX })),
  runners: Type.Optional(
    Type.Array(UpdateRunnerInput, { maxItems: NESTED_MAX, description: "shared runners, registered with the instance's token" }),
  ),
  hooks: Type.Optional(Type.Array(CreateSystemHookInput, { maxItems: FEW_MAX, description: 'system hooks' })),
});
export type SeedDescription = Static<typeof SeedDescription>;

// What a seed answers: each item made, in the order (and the nesting) of the description.

const id = Type.Integer();
const webUrl = Type.String();

/** A hook or a note made: its ID. */
export const SeededItem = Type.Object({ id }, { ...closed, title: 'SeededItem' });
export type SeededItem = Static<typeof SeededItem>;

export const SeededUser = Type.Object(
  { id, username: Type.String(), web_url: webUrl, token: Type.String({ description: 'its personal access token' }) },
  { ...closed, title: 'SeededUser' },
);
export type SeededUser = Static<typeof SeededUser>;

export const SeededGroup = Type.Object(
  {
    id,
    full_path: Type.String(),
    web_url: webUrl,
    runners_token: Type.String({ description: "registers the group's runners" }),
    hooks: Type.Array(SeededItem),
    runners: Type.Array(RunnerRegistration),
  },
  { ...closed, title: 'SeededGroup' },
);
export type SeededGroup = Static<typeof SeededGroup>;

export const SeededWorkItem = Type.Object(
  { id, iid: Type.Integer(), web_url: webUrl, notes: Type.Array(SeededItem) },
  { ...closed, title: 'SeededWorkItem' },
);
export type SeededWorkItem = Static<typeof SeededWorkItem>;

export const SeededProject = Type.Object(
  {
    id,
    path_with_namespace: Type.String(),
    web_url: webUrl,
    http_url_to_repo: Type.String(),
    runners_token: Type.String({ description: "registers the project's runners" }),
    default_branch: Nullable(Type.String()),
    labels: Type.Array(Type.Object({ id, name: Type.String() }, closed)),
    milestones: Type.Array(Type.Object({ id, iid: Type.Integer(), title: Type.String() }, closed)),
    commits: Type.Array(Type.Object({ id: Type.String({ description: 'its SHA' }) }, closed)),
    issues: Type.Array(SeededWorkItem),
    merge_requests: Type.Array(SeededWorkItem),
    hooks: Type.Array(SeededItem),
    runners: Type.Array(RunnerRegistration),
  },
  { ...closed, title: 'SeededProject' },
);
export type SeededProject = Static<typeof SeededProject>;

export const SeedResult = Type.Object(
  {
    users: Type.Array(SeededUser),
    groups: Type.Array(SeededGroup),
    projects: Type.Array(SeededProject),
    runners: Type.Array(RunnerRegistration),
    hooks: Type.Array(SeededItem),
  },
  { ...closed, title: 'SeedResult' },
);
export type SeedResult = Static<typeof SeedResult>;
