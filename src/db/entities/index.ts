import { AuthFailure } from './auth-failures.js';
import { AccessToken } from './tokens.js';
import { Email, GpgKey, SshKey } from './keys.js';
import { Job } from './jobs.js';
import { GroupMember, Namespace } from './namespaces.js';
import { GroupGroupLink } from './group-links.js';
import { Project, ProjectAvatar, ProjectGroupLink, ProjectMember, ProjectStar } from './projects.js';
import { CommitNote, CommitStatus, Pipeline, ProtectedBranch, Release } from './repositories.js';
import { Runner, RunnerGroup, RunnerProject } from './runners.js';
import { ApplicationSettingsRow, InstanceSecret } from './settings.js';
import {
  AwardEmoji,
  InternalId,
  Issue,
  IssueAssignee,
  Label,
  LabelLink,
  MergeRequest,
  MergeRequestAssignee,
  Milestone,
  Note,
  Subscription,
  Timelog,
} from './work-items.js';
import { CALLERS_CHANGED_CHANNEL, CustomAttribute, Identity, User, UserAvatar } from './user.js';
import { ENVIRONMENT_STATES, ProjectEnvironment, type EnvironmentState } from './environments.js';

export { CALLERS_CHANGED_CHANNEL };
export {
  AccessToken,
  ApplicationSettingsRow,
  AuthFailure,
  CommitNote,
  CommitStatus,
  InstanceSecret,
  CustomAttribute,
  Email,
  GpgKey,
  GroupMember,
  Identity,
  Job,
  Namespace,
  Pipeline,
  Project,
  ProjectAvatar,
  ProjectGroupLink,
  ProjectMember,
  ProjectStar,
  ProtectedBranch,
  Release,
  SshKey,
  User,
  UserAvatar,
};
export {
  AwardEmoji,
  InternalId,
  Issue,
  IssueAssignee,
  Label,
  LabelLink,
  MergeRequest,
  MergeRequestAssignee,
  Milestone,
  Note,
  Subscription,
  Timelog,
};
export { IID_USAGES, MERGE_REQUEST_STATES, MERGE_STATUSES, TARGET_KINDS, type IidUsage, type TargetKind } from './work-items.js';
export { PIPELINE_STATUSES, type PipelineStatus } from './repositories.js';
export { VISIBILITIES, visibilityRank, type Visibility } from './namespaces.js';
export { IMPORT_STATUSES } from './projects.js';
export { JOB_STATUSES, type JobStatus } from './jobs.js';
export { Runner, RunnerGroup, RunnerProject };
export { GroupGroupLink };
export { RUNNER_ACCESS_LEVELS, RUNNER_TYPES, type RunnerAccessLevel, type RunnerType } from './runners.js';
export { ENVIRONMENT_STATES, ProjectEnvironment, type EnvironmentState };
