/** Every entity, and what their files export beside them, from one place (each resource's module names its own). */
export { AuthFailure } from './auth-failures.js';
export { ENVIRONMENT_STATES, ProjectEnvironment, type EnvironmentState } from './environments.js';
export { GroupGroupLink } from './group-links.js';
export { JOB_STATUSES, Job, type JobStatus } from './jobs.js';
export { Email, GpgKey, SshKey } from './keys.js';
export { GroupMember, Namespace, VISIBILITIES, visibilityRank, type Visibility } from './namespaces.js';
export { IMPORT_STATUSES, Project, ProjectAvatar, ProjectGroupLink, ProjectMember, ProjectStar } from './projects.js';
export { CommitNote, CommitStatus, PIPELINE_STATUSES, Pipeline, ProtectedBranch, Release, type PipelineStatus } from './repositories.js';
export {
  RUNNER_ACCESS_LEVELS,
  RUNNER_TYPES,
  Runner,
  RunnerGroup,
  RunnerProject,
  type RunnerAccessLevel,
  type RunnerType,
} from './runners.js';
export { ApplicationSettingsRow, InstanceSecret } from './settings.js';
export { AccessToken } from './tokens.js';
export { CALLERS_CHANGED_CHANNEL, CustomAttribute, Identity, User, UserAvatar } from './user.js';
export {
  AwardEmoji,
  IID_USAGES,
  InternalId,
  Issue,
  IssueAssignee,
  Label,
  LabelLink,
  MERGE_REQUEST_STATES,
  MERGE_STATUSES,
  MergeRequest,
  MergeRequestAssignee,
  Milestone,
  Note,
  Subscription,
  TARGET_KINDS,
  Timelog,
  type IidUsage,
  type TargetKind,
} from './work-items.js';
