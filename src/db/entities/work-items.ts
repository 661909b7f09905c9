import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, day, refersTo, timestamps } from './columns.js';
import { Namespace } from './namespaces.js';
import { Project } from './projects.js';
import { User } from './user.js';

/**
 * Work items (issues and merge requests) and what any of them has: labels, a milestone, notes, award emoji,
 * subscriptions and spent time. What several kinds share is one table with a `(kind, id)` target, as the original
 * keeps its Noteable, Awardable, Subscribable and TimeTrackable concerns.
 */

/** The kinds a note, an award emoji, a label link, a subscription or a time log may belong to, by the original's names. */
export const TARGET_KINDS = ['Issue', 'MergeRequest', 'Note'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** What an `iid` counts: a project's issues, merge requests or milestones, a group's milestones. */
export const IID_USAGES = ['issues', 'merge_requests', 'milestones', 'group_milestones'] as const;
export type IidUsage = (typeof IID_USAGES)[number];

/**
 * The last `iid` given out per project (or group) and usage. A new work item takes the next one with one
 * `insert ... on conflict do update ... returning` inside its transaction: the row's lock orders concurrent
 * writers, in any number of processes, and a rolled-back write gives its number back.
 */
export const InternalId = defineEntity({
  name: 'InternalId',
  tableName: 'internal_ids',
  indexes: [
    {
      name: 'internal_ids_scope_index',
      expression:
        'create unique index "internal_ids_scope_index" on "internal_ids" ("usage", coalesce("project_id", 0), coalesce("namespace_id", ' +
        '0))',
    },
  ],
  properties: {
    id: p.integer().primary(),
    usage: p.enum(IID_USAGES),
    project: belongsTo(Project).nullable().index(),
    namespace: belongsTo(Namespace).nullable().index(),
    lastValue: p.integer(),
  },
});
export type InternalId = InferEntity<typeof InternalId>;

/** A project's milestone, or a group's (which the projects of the group and of its subgroups may use). */
export const Milestone = defineEntity({
  name: 'Milestone',
  tableName: 'milestones',
  indexes: [
    {
      name: 'milestones_project_title_index',
      expression:
        'create unique index "milestones_project_title_index" on "milestones" ("project_id", "title") where "project_id" is not null',
    },
    {
      name: 'milestones_group_title_index',
      expression: 'create unique index "milestones_group_title_index" on "milestones" ("group_id", "title") where "group_id" is not null',
    },
    {
      name: 'milestones_title_trgm_index',
      expression: 'create index "milestones_title_trgm_index" on "milestones" using gin ("title" gin_trgm_ops)',
    },
  ],
  properties: {
    id: p.integer().primary(),
    iid: p.integer(),
    project: belongsTo(Project).nullable().index(),
    group: belongsTo(Namespace).nullable().index(),
    title: p.string().length(255),
    description: p.text().nullable(),
    state: p.enum(['active', 'closed'] as const).default('active'),
    dueDate: day().nullable(),
    startDate: day().nullable(),
    ...timestamps(),
  },
});
export type Milestone = InferEntity<typeof Milestone>;

/** A project's label. Titles are unique in the project, as the original's are. */
export const Label = defineEntity({
  name: 'Label',
  tableName: 'labels',
  uniques: [{ properties: ['project', 'title'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    title: p.string().length(255),
    /** `#RRGGBB` (or `#RGB`) as given, a CSS colour name made hex. */
    color: p.string().length(7),
    description: p.text().nullable(),
    /** Prioritized labels sort first, lowest number first; null for none. */
    priority: p.integer().nullable(),
    ...timestamps(),
  },
});
export type Label = InferEntity<typeof Label>;

/** A label on a work item. */
export const LabelLink = defineEntity({
  name: 'LabelLink',
  tableName: 'label_links',
  uniques: [{ properties: ['targetKind', 'targetId', 'label'] }],
  properties: {
    id: p.integer().primary(),
    label: belongsTo(Label).index(),
    targetKind: p.enum(TARGET_KINDS),
    targetId: p.integer(),
    createdAt: createdAt(),
  },
});
export type LabelLink = InferEntity<typeof LabelLink>;

/**
 * Open issues of a project, counted as the original shows them (`open_issues_count`): all of them to those who
 * may read confidential issues, the others without the confidential ones. Counted by the database as issues
 * change (created, closed, reopened, moved away, made confidential or not, deleted), so that a project list reads
 * two columns rather than counting.
 */
const countOpenIssues = {
  name: 'count_open_issues',
  timing: 'after' as const,
  events: ['insert' as const, 'update' as const, 'delete' as const],
  forEach: 'row' as const,
  body:
    `if tg_op <> 'INSERT' and old."state" = 'opened' and old."deleted_at" is null and (tg_op = 'DELETE' or new."state" <> 'opened' ` +
    `or new."deleted_at" is not null or new."confidential" <> old."confidential" or new."project_id" <> old."project_id") then
  update "projects" set "open_issues_count" = "open_issues_count" - 1, ` +
    `"open_confidential_issues_count" = "open_confidential_issues_count" - old."confidential"::int where "id" = old."project_id";
end if;
if tg_op <> 'DELETE' and new."state" = 'opened' and new."deleted_at" is null and (tg_op = 'INSERT' or old."state" <> 'opened' or ` +
    `old."deleted_at" is not null or new."confidential" <> old."confidential" or new."project_id" <> old."project_id") then
  update "projects" set "open_issues_count" = "open_issues_count" + 1, ` +
    `"open_confidential_issues_count" = "open_confidential_issues_count" + new."confidential"::int where "id" = new."project_id";
end if;
return null;`,
};

/**
 * An issue of a project. `iid` numbers it in its project; a deleted issue keeps its row (`deletedAt`), left out
 * of every list and count, and its number is never given again.
 */
export const Issue = defineEntity({
  name: 'Issue',
  tableName: 'issues',
  uniques: [{ properties: ['project', 'iid'] }],
  indexes: [
    // A project's page in either order, of one state or of all.
    { properties: ['project', 'state', 'createdAt'] },
    { properties: ['project', 'createdAt'] },
    { properties: ['project', 'updatedAt'] },
    { properties: ['createdAt'] },
    { properties: ['updatedAt'] },
    // `search` matches the title and the description as one text (issue-store.ts): one index, whose statistics
    // let the planner see how few rows a pattern keeps.
    {
      name: 'issues_live_project_id_index',
      expression: `create index "issues_live_project_id_index" on "issues" ("project_id") where "deleted_at" is null`,
    },
    {
      name: 'issues_search_trgm_index',
      expression:
        `create index "issues_search_trgm_index" on "issues" ` + `using gin (("title" || ' ' || coalesce("description", '')) gin_trgm_ops)`,
    },
  ],
  triggers: [countOpenIssues],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project),
    iid: p.integer(),
    title: p.string().length(255),
    description: p.text().nullable(),
    state: p.enum(['opened', 'closed'] as const).default('opened'),
    author: refersTo(User).index(),
    confidential: p.boolean().default(false),
    discussionLocked: p.boolean().default(false),
    dueDate: day().nullable().index(),
    milestone: refersTo(Milestone).index(),
    closedAt: p.datetime().nullable(),
    closedBy: refersTo(User).index(),
    /** Where it was moved to (it is closed here). */
    movedTo: () => refersTo(Issue).index(),
    /** Seconds; 0 for no estimate. */
    timeEstimate: p.integer().default(0),
    /** Seconds: the sum of its time logs, kept with them. */
    totalTimeSpent: p.integer().default(0),
    relativePosition: p.integer().nullable(),
    deletedAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type Issue = InferEntity<typeof Issue>;

/** Who an issue is assigned to, in the order they were assigned. */
export const IssueAssignee = defineEntity({
  name: 'IssueAssignee',
  tableName: 'issue_assignees',
  uniques: [{ properties: ['issue', 'user'] }],
  properties: {
    id: p.integer().primary(),
    issue: belongsTo(Issue),
    user: belongsTo(User).index(),
  },
});
export type IssueAssignee = InferEntity<typeof IssueAssignee>;

/** The states of a merge request: `locked` is the original's state while a merge is under way (shown, never kept here). */
export const MERGE_REQUEST_STATES = ['opened', 'closed', 'merged', 'locked'] as const;
/** Whether a merge request's source merges into its target without conflict, as last checked for its two heads. */
export const MERGE_STATUSES = ['unchecked', 'can_be_merged', 'cannot_be_merged'] as const;

/**
 * A merge request of a project (the target) from a branch of the same project or of a fork of it (the source).
 * `headSha` is the source branch's head and `startSha` the target branch's, as the rules of a moving reference's
 * event (services/repository/reference-rules.ts) last set them; `baseSha`, their merge base, and `mergeStatus` are
 * worked out from the two when first asked (null and `unchecked` until then). Only one open merge request per
 * source branch and target branch.
 */
export const MergeRequest = defineEntity({
  name: 'MergeRequest',
  tableName: 'merge_requests',
  uniques: [{ properties: ['project', 'iid'] }],
  indexes: [
    { properties: ['project', 'state', 'createdAt'] },
    { properties: ['project', 'createdAt'] },
    { properties: ['project', 'updatedAt'] },
    { properties: ['createdAt'] },
    { properties: ['updatedAt'] },
    // What a moving branch finds: the open requests from it, and those into it.
    { properties: ['sourceProject', 'sourceBranch'] },
    { properties: ['project', 'targetBranch'] },
    {
      name: 'merge_requests_open_pair_index',
      expression:
        `create unique index "merge_requests_open_pair_index" on "merge_requests" ("source_project_id", "source_branch", ` +
        `"project_id", "target_branch") where "state" = 'opened' and "deleted_at" is null`,
    },
    {
      name: 'merge_requests_live_project_id_index',
      expression: `create index "merge_requests_live_project_id_index" on "merge_requests" ("project_id") where "deleted_at" is null`,
    },
    {
      name: 'merge_requests_search_trgm_index',
      expression:
        `create index "merge_requests_search_trgm_index" on "merge_requests" ` +
        `using gin (("title" || ' ' || coalesce("description", '')) gin_trgm_ops)`,
    },
  ],
  properties: {
    id: p.integer().primary(),
    /** The target project. */
    project: belongsTo(Project),
    iid: p.integer(),
    sourceProject: refersTo(Project),
    sourceBranch: p.string().length(255),
    targetBranch: p.string().length(255),
    title: p.string().length(255),
    description: p.text().nullable(),
    state: p.enum(MERGE_REQUEST_STATES).default('opened'),
    author: refersTo(User).index(),
    milestone: refersTo(Milestone).index(),
    discussionLocked: p.boolean().default(false),
    mergeStatus: p.enum(MERGE_STATUSES).default('unchecked'),
    headSha: p.string().length(40).nullable(),
    startSha: p.string().length(40).nullable(),
    baseSha: p.string().length(40).nullable(),
    mergeCommitSha: p.string().length(40).nullable(),
    mergedBy: refersTo(User).index(),
    mergedAt: p.datetime().nullable(),
    closedBy: refersTo(User).index(),
    closedAt: p.datetime().nullable(),
    /** Set to merge by itself once its head's pipeline succeeds, by `mergeUser`, with these parameters. */
    mergeWhenPipelineSucceeds: p.boolean().default(false),
    mergeUser: refersTo(User).index(),
    mergeCommitMessage: p.text().nullable(),
    /** Asked for when merging (null: not asked). */
    shouldRemoveSourceBranch: p.boolean().nullable(),
    /** Asked for by its author or a maintainer (`remove_source_branch`). */
    forceRemoveSourceBranch: p.boolean().default(false),
    timeEstimate: p.integer().default(0),
    totalTimeSpent: p.integer().default(0),
    deletedAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type MergeRequest = InferEntity<typeof MergeRequest>;

/** Who a merge request is assigned to, in the order they were assigned. */
export const MergeRequestAssignee = defineEntity({
  name: 'MergeRequestAssignee',
  tableName: 'merge_request_assignees',
  uniques: [{ properties: ['mergeRequest', 'user'] }],
  properties: {
    id: p.integer().primary(),
    mergeRequest: belongsTo(MergeRequest),
    user: belongsTo(User).index(),
  },
});
export type MergeRequestAssignee = InferEntity<typeof MergeRequestAssignee>;

/**
 * A comment on a work item, or a system note recording a change to it (`system`). Each belongs to a discussion (the
 * original's 40-hex ID): a thread of replies started with `type` `DiscussionNote`, or a note of its own. A merge
 * request's threads are resolvable: resolved once, by whom.
 */
export const Note = defineEntity({
  name: 'Note',
  tableName: 'notes',
  indexes: [{ properties: ['targetKind', 'targetId', 'createdAt'] }, { properties: ['discussionId'] }],
  properties: {
    id: p.integer().primary(),
    project: belongsTo(Project).index(),
    targetKind: p.enum(TARGET_KINDS),
    targetId: p.integer(),
    author: refersTo(User).index(),
    body: p.text(),
    system: p.boolean().default(false),
    discussionId: p.string().length(40),
    /** `DiscussionNote` for a note of a thread; null for a note of its own. */
    type: p.string().length(32).nullable(),
    resolvedAt: p.datetime().nullable(),
    resolvedBy: refersTo(User).index(),
    ...timestamps(),
  },
});
export type Note = InferEntity<typeof Note>;

/** An emoji a user awarded a work item or a note: one of each name per user. */
export const AwardEmoji = defineEntity({
  name: 'AwardEmoji',
  tableName: 'award_emoji',
  uniques: [{ properties: ['targetKind', 'targetId', 'user', 'name'] }],
  indexes: [{ properties: ['user', 'name'] }],
  properties: {
    id: p.integer().primary(),
    name: p.string().length(255),
    user: belongsTo(User),
    targetKind: p.enum(TARGET_KINDS),
    targetId: p.integer(),
    ...timestamps(),
  },
});
export type AwardEmoji = InferEntity<typeof AwardEmoji>;

/**
 * A user's own choice to hear, or not, of a work item or a label. Without one, a work item's participants (its
 * author, assignees and commenters) and the subscribers of its labels hear of it.
 */
export const Subscription = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  uniques: [{ properties: ['targetKind', 'targetId', 'user'] }],
  properties: {
    id: p.integer().primary(),
    user: belongsTo(User).index(),
    targetKind: p.enum(['Issue', 'MergeRequest', 'Label'] as const),
    targetId: p.integer(),
    subscribed: p.boolean(),
    ...timestamps(),
  },
});
export type Subscription = InferEntity<typeof Subscription>;

/** Time a user spent on a work item (negative: time taken back); the item's total is their sum. */
export const Timelog = defineEntity({
  name: 'Timelog',
  tableName: 'timelogs',
  indexes: [{ properties: ['targetKind', 'targetId'] }],
  properties: {
    id: p.integer().primary(),
    targetKind: p.enum(TARGET_KINDS),
    targetId: p.integer(),
    user: refersTo(User).index(),
    timeSpent: p.integer(),
    createdAt: createdAt(),
  },
});
export type Timelog = InferEntity<typeof Timelog>;
