import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, Int32, LIST_MAX, Nullable } from './common.js';

const closed = { additionalProperties: false } as const;

/** What a runner is to the instance: shared by every project, a group's, or specific to the projects it is enabled in. */
export const RunnerType = Type.Union([Type.Literal('instance_type'), Type.Literal('group_type'), Type.Literal('project_type')], {
  title: 'RunnerType',
});

/** Which refs' jobs a runner takes: any, or protected branches and tags only. */
export const RunnerAccessLevel = Type.Union([Type.Literal('not_protected'), Type.Literal('ref_protected')], { title: 'RunnerAccessLevel' });

/**
 * `online` (contacted within the last hour, and active), `offline` (active, contacted longer ago), `paused` (not
 * active), `not_connected` (never contacted since it registered), as the original says it.
 */
export const RunnerStatus = Type.Union(
  [Type.Literal('online'), Type.Literal('offline'), Type.Literal('paused'), Type.Literal('not_connected')],
  { title: 'RunnerStatus' },
);

const runnerFields = {
  id: Type.Integer(),
  description: Type.String(),
  /** Where it last reached the instance from (registering or verifying); null before that. */
  ip_address: Nullable(Type.String()),
  active: Type.Boolean(),
  /** Later clients' spelling: not active. */
  paused: Type.Boolean(),
  is_shared: Type.Boolean(),
  /** The name the runner gave (`info[name]`), if it gave one. */
  name: Nullable(Type.String()),
  /** Contacted within the last hour. */
  online: Type.Boolean(),
  status: RunnerStatus,
};

/** A runner in a list, and as enabling it in a project answers. */
export const Runner = Type.Object(runnerFields, { ...closed, title: 'Runner' });
export type Runner = Static<typeof Runner>;

/** A project a runner is enabled in, as its detail shows it. */
export const RunnerProject = Type.Object(
  { id: Type.Integer(), name: Type.String(), name_with_namespace: Type.String(), path: Type.String(), path_with_namespace: Type.String() },
  { ...closed, title: 'RunnerProject' },
);
export type RunnerProject = Static<typeof RunnerProject>;

/** A group runner's group, as its detail shows it. */
export const RunnerGroup = Type.Object(
  { id: Type.Integer(), name: Type.String(), web_url: Type.String() },
  { ...closed, title: 'RunnerGroup' },
);
export type RunnerGroup = Static<typeof RunnerGroup>;

/**
 * A runner with everything it said of itself, how it takes jobs, its projects and its group (those the caller is a
 * member of; all of them for administrators), and its token for administrators and those who maintain everything it
 * belongs to (not for a shared runner's other readers).
 */
export const RunnerDetails = Type.Object(
  {
    ...runnerFields,
    runner_type: RunnerType,
    tag_list: Type.Array(Type.String()),
    run_untagged: Type.Boolean(),
    locked: Type.Boolean(),
    /** Seconds; null: the project's own timeout. */
    maximum_timeout: Nullable(Type.Integer()),
    access_level: RunnerAccessLevel,
    version: Nullable(Type.String()),
    revision: Nullable(Type.String()),
    platform: Nullable(Type.String()),
    architecture: Nullable(Type.String()),
    contacted_at: Nullable(DateTime),
    token: Type.Optional(Type.String()),
    projects: Type.Array(RunnerProject),
    groups: Type.Array(RunnerGroup),
  },
  { ...closed, title: 'RunnerDetails' },
);
export type RunnerDetails = Static<typeof RunnerDetails>;

/** A new runner: its ID and the token it authenticates with, shown this once. */
export const RunnerRegistration = Type.Object({ id: Type.Integer(), token: Type.String() }, { ...closed, title: 'RunnerRegistration' });
export type RunnerRegistration = Static<typeof RunnerRegistration>;

/** The instance's new registration token (later clients' reset call); it does not expire. */
export const RegistrationTokenReset = Type.Object(
  { token: Type.String(), token_expires_at: Type.Null() },
  { ...closed, title: 'RegistrationTokenReset' },
);
export type RegistrationTokenReset = Static<typeof RegistrationTokenReset>;

/** POST /runners/verify answers 200 with the number 200 as its body, as the original does. */
export const RunnerVerified = Type.Literal(200, { title: 'RunnerVerified' });
export type RunnerVerified = Static<typeof RunnerVerified>;

const tagList = (description: string) => Type.Optional(Type.Array(BoundedText(), { maxItems: LIST_MAX, description }));

/** The filters later clients send beside `scope`. */
const listFilters = {
  type: Type.Optional(RunnerType),
  status: Type.Optional(
    Type.Union(
      [
        Type.Literal('active'),
        Type.Literal('paused'),
        Type.Literal('online'),
        Type.Literal('offline'),
        Type.Literal('never_contacted'),
        Type.Literal('stale'),
      ],
      { description: 'later clients also ask for never_contacted and stale (made or last contacted over three months ago) runners' },
    ),
  ),
  tag_list: tagList('runners that have all these tags (an array, or comma-separated)'),
  paused: Type.Optional(Type.Boolean({ description: 'paused runners (true) or active ones (false), as later clients ask' })),
};

/** GET /runners: the caller's own runners by `scope`, `type`, `status` and tags. */
export const ListRunnersQuery = Type.Object({
  scope: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('online')], { description: 'active, paused or online' }),
  ),
  ...listFilters,
});
export type ListRunnersQuery = Static<typeof ListRunnersQuery>;

/** GET /runners/all and GET /projects/:id/runners: `scope` may also pick specific or shared runners. */
export const ListAllRunnersQuery = Type.Object({
  scope: Type.Optional(
    Type.Union([Type.Literal('specific'), Type.Literal('shared'), Type.Literal('active'), Type.Literal('paused'), Type.Literal('online')], {
      description: 'specific, shared, active, paused or online',
    }),
  ),
  ...listFilters,
});
export type ListAllRunnersQuery = Static<typeof ListAllRunnersQuery>;

/** How a runner takes jobs: what registering sets and changing it changes. */
const runnerSettings = {
  description: Type.Optional(BoundedText()),
  active: Type.Optional(Type.Boolean()),
  paused: Type.Optional(Type.Boolean({ description: "later clients' spelling of not `active` (not both)" })),
  tag_list: tagList('the full set of its tags (an array, or comma-separated)'),
  run_untagged: Type.Optional(Type.Boolean({ description: 'takes jobs without tags too' })),
  locked: Type.Optional(Type.Boolean({ description: 'may not be enabled in other projects' })),
  access_level: Type.Optional(RunnerAccessLevel),
  maximum_timeout: Type.Optional(Int32({ description: 'seconds, at least 600' })),
};

/** PUT /runners/:id: at least one attribute; `tag_list` is the full set of tags that must end up assigned. */
export const UpdateRunnerInput = Type.Object(runnerSettings);
export type UpdateRunnerInput = Static<typeof UpdateRunnerInput>;

/** What a runner says of itself when it registers or reaches the instance. */
export const RunnerInfo = Type.Object(
  {
    name: Type.Optional(BoundedText()),
    version: Type.Optional(BoundedText()),
    revision: Type.Optional(BoundedText()),
    platform: Type.Optional(BoundedText()),
    architecture: Type.Optional(BoundedText()),
  },
  { title: 'RunnerInfo' },
);
export type RunnerInfo = Static<typeof RunnerInfo>;

/** POST /runners: a registration token (the instance's, a project's or a group's) and how the runner takes jobs. */
export const RegisterRunnerInput = Type.Object({
  token: BoundedText({ description: 'registration token: the instance’s, a project’s or a group’s' }),
  info: Type.Optional(RunnerInfo),
  ...runnerSettings,
});
export type RegisterRunnerInput = Static<typeof RegisterRunnerInput>;

/** POST /runners/verify: the runner's own token, and what it says of itself. */
export const VerifyRunnerInput = Type.Object({
  token: BoundedText({ description: 'the runner’s authentication token' }),
  info: Type.Optional(RunnerInfo),
});
export type VerifyRunnerInput = Static<typeof VerifyRunnerInput>;

/** DELETE /runners: the runner's own token. */
export const UnregisterRunnerInput = Type.Object({ token: BoundedText({ description: 'the runner’s authentication token' }) });
export type UnregisterRunnerInput = Static<typeof UnregisterRunnerInput>;

/** POST /projects/:id/runners. */
export const EnableRunnerInput = Type.Object({ runner_id: Int32({ description: 'the runner to enable in the project' }) });
export type EnableRunnerInput = Static<typeof EnableRunnerInput>;
