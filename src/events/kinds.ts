/**
 * What forgekit records as it happens (DESIGN.md "One record of what happens"): every kind of event, what each
 * carries, and which of them the original's Events API shows, under which action.
 */

/** A reference that moved: a branch (`push`) or a tag (`tag_push`) made, moved or deleted. */
export interface ReferenceMoved {
  /** The full name (`refs/heads/main`). */
  ref: string;
  /** The commit it pointed at before (null: made now) and after (null: deleted). */
  before: string | null;
  after: string | null;
  /** How many commits it brought that were not there before (for a new branch: that no other branch had). */
  commit_count: number;
  /** The newest of them, at most PUSH_COMMITS_KEPT, newest first. */
  commits: string[];
  /** The newest one's title (its message's first line, at most 70 characters as the original cuts it); null for none. */
  commit_title: string | null;
  /** The first branch made in an empty repository (it becomes the default branch). */
  first_branch?: boolean;
}

/** One attribute's value before and after a change. */
export interface ChangedValue {
  previous: unknown;
  current: unknown;
}

/**
 * What a change wrote, by column (`title`, `state`, `milestone_id`, `updated_at`, ...; `labels` and `assignees` as
 * IDs), before and after: the hooks' `changes`.
 */
export type ChangedValues = Record<string, ChangedValue>;

/** The attributes a change touched, by the names the API gives them (`title`, `labels`, `state`, ...), and their values. */
export interface Changed {
  changes: string[];
  values?: ChangedValues;
}

/** A work item closed or reopened: the columns that wrote, before and after. */
export interface StateChanged {
  values?: ChangedValues;
}

/** A project as it was when it went (a system hook's `project_destroy` names it). */
export interface ProjectGone {
  path_with_namespace: string;
  name?: string;
  path?: string;
  visibility?: string;
  owner_name?: string;
  owner_email?: string;
  created_at?: string;
  updated_at?: string;
}

/** A note: what it is on. */
export interface NoteMade {
  noteable_type: 'Issue' | 'MergeRequest' | 'Commit';
  /** The or merge request's ID; null for a commit. */
  noteable_id: number | null;
  noteable_iid: number | null;
  /** The commit, for a note on one. */
  commit_id: string | null;
}

/** A membership of a project or a group. */
export interface Membership {
  source_type: 'Project' | 'Group';
  user_id: number;
  access_level: number;
}

/** A path that changed (a project or group renamed or moved, a user renamed): from where. */
export interface Moved {
  old_path: string;
}

/** The project as the event left it: system hooks' payloads name it so, whenever they are made. */
export interface ProjectThen {
  project?: ProjectGone;
}

/** What each kind of event carries beside its author, project, group and target. */
export interface EventData {
  push: ReferenceMoved;
  tag_push: ReferenceMoved;
  'issue.opened': object;
  'issue.updated': Changed;
  'issue.closed': StateChanged;
  'issue.reopened': StateChanged;
  /** The issue moved to another project (which opens a new issue there): where it went. */
  'issue.moved': { moved_to_id: number };
  'issue.deleted': object;
  'merge_request.opened': object;
  'merge_request.updated': Changed;
  'merge_request.closed': StateChanged;
  'merge_request.reopened': StateChanged;
  /** Merged by a merge commit (null: its source was found in the target already, and nothing was made). */
  'merge_request.merged': { merge_commit_sha: string | null };
  'merge_request.deleted': object;
  'note.created': NoteMade;
  'milestone.created': object;
  'milestone.closed': object;
  'milestone.reopened': object;
  'milestone.destroyed': object;
  'project.created': { forked_from_id: number | null } & ProjectThen;
  'project.updated': Changed & ProjectThen;
  'project.renamed': Moved & ProjectThen;
  'project.transferred': Moved & ProjectThen;
  'project.destroyed': ProjectGone;
  'member.added': Membership;
  'member.updated': Membership;
  'member.removed': Membership;
  'user.created': object;
  'user.renamed': Moved;
  'user.destroyed': { username: string; name?: string; email?: string; created_at?: string };
  'group.created': object;
  'group.renamed': Moved;
  'group.destroyed': { full_path: string; name?: string; created_at?: string };
  /** The key's text, which a system hook's `key_create` and `key_destroy` carry. */
  'key.created': { user_id: number; key?: string };
  'key.destroyed': { user_id: number; key?: string };
  /** A pipeline's status changed (its commit statuses' posted): from what. */
  'pipeline.updated': { status: string; previous_status: string };
}

export type EventKind = keyof EventData;

/** Every kind, in one list (the schemas' enum and the tests walk it). */
export const EVENT_KINDS = [
  'push',
  'tag_push',
  'issue.opened',
  'issue.updated',
  'issue.closed',
  'issue.reopened',
  'issue.moved',
  'issue.deleted',
  'merge_request.opened',
  'merge_request.updated',
  'merge_request.closed',
  'merge_request.reopened',
  'merge_request.merged',
  'merge_request.deleted',
  'note.created',
  'milestone.created',
  'milestone.closed',
  'milestone.reopened',
  'milestone.destroyed',
  'project.created',
  'project.updated',
  'project.renamed',
  'project.transferred',
  'project.destroyed',
  'member.added',
  'member.updated',
  'member.removed',
  'user.created',
  'user.renamed',
  'user.destroyed',
  'group.created',
  'group.renamed',
  'group.destroyed',
  'key.created',
  'key.destroyed',
  'pipeline.updated',
] as const satisfies readonly EventKind[];

/** The Events API's actions, as its `action` filter names them. */
export const EVENT_ACTIONS = [
  'created',
  'updated',
  'closed',
  'reopened',
  'pushed',
  'commented',
  'merged',
  'joined',
  'left',
  'destroyed',
  'expired',
] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

/**
 * The action under which the Events API shows a kind, as the original's event service records them: opening,
 * closing, reopening and merging work items, comments, pushes, a project made, members joining and leaving a
 * project, milestones. The rest (changes, system events) reach subscribers and hooks only.
 */
export function eventAction(kind: EventKind, data: unknown): EventAction | null {
  switch (kind) {
    case 'push':
    case 'tag_push':
      return 'pushed';
    case 'issue.opened':
    case 'merge_request.opened':
    case 'milestone.created':
    case 'project.created':
      return 'created';
    case 'issue.closed':
    case 'issue.moved':
    case 'merge_request.closed':
    case 'milestone.closed':
      return 'closed';
    case 'issue.reopened':
    case 'merge_request.reopened':
    case 'milestone.reopened':
      return 'reopened';
    case 'merge_request.merged':
      return 'merged';
    case 'note.created':
      return 'commented';
    case 'milestone.destroyed':
      return 'destroyed';
    case 'member.added':
      return (data as Membership).source_type === 'Project' ? 'joined' : null;
    case 'member.removed':
      return (data as Membership).source_type === 'Project' ? 'left' : null;
    default:
      return null;
  }
}

/** The most commits a push event names (the original's hooks show the newest 20). */
export const PUSH_COMMITS_KEPT = 20;
