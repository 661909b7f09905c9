import { Type, type Static } from 'typebox';
import { BoundedText, DateTime, Int32, LIST_MAX, Nullable, NullableValue, REF_MAX } from './common.js';
import { Commit } from './commits.js';
import { Diff } from './repository.js';
import { UserBasic } from './users.js';
import { LongText, Milestone, TimeStats, workItemHeadFields, workItemListFilters } from './work-items.js';

const closed = { additionalProperties: false } as const;

/** A merge request's author and assignees: user references with their e-mail address and when they joined (SPEC.md). */
export const UserWithEmail = Type.Object(
  { ...UserBasic.properties, email: Type.String(), created_at: DateTime },
  { ...closed, title: 'UserWithEmail' },
);
export type UserWithEmail = Static<typeof UserWithEmail>;

export const MergeRequestState = Type.Union([
  Type.Literal('opened'),
  Type.Literal('closed'),
  Type.Literal('merged'),
  Type.Literal('locked'),
]);

/** A merge request as lists show it. */
const basicFields = {
  ...workItemHeadFields(MergeRequestState),
  merged_by: Nullable(UserBasic),
  merged_at: Nullable(DateTime),
  closed_by: Nullable(UserBasic),
  closed_at: Nullable(DateTime),
  target_branch: Type.String(),
  source_branch: Type.String(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  author: UserWithEmail,
  /** The first of `assignees`. */
  assignee: Nullable(UserWithEmail),
  assignees: Type.Array(UserWithEmail),
  reviewers: Type.Array(UserBasic, { description: 'always empty: reviewers came after SPEC.md’s era' }),
  /** The fork's ID for a request from a fork; else the target's. Null once the source project is gone. */
  source_project_id: Nullable(Type.Integer()),
  target_project_id: Type.Integer(),
  labels: Type.Array(Type.String()),
  /** From a `WIP:`, `[WIP]`, `Draft:` or `[Draft]` at the start of the title (or `(Draft)`, `Draft -`). */
  work_in_progress: Type.Boolean(),
  draft: Type.Boolean(),
  milestone: Nullable(Milestone),
  merge_when_pipeline_succeeds: Type.Boolean(),
  merge_status: Type.Union([Type.Literal('unchecked'), Type.Literal('can_be_merged'), Type.Literal('cannot_be_merged')]),
  /** The source branch's head. */
  sha: Nullable(Type.String()),
  merge_commit_sha: Nullable(Type.String()),
  squash_commit_sha: Type.Null(),
  user_notes_count: Type.Integer(),
  discussion_locked: Type.Boolean(),
  should_remove_source_branch: Nullable(Type.Boolean()),
  force_remove_source_branch: Type.Boolean(),
  allow_collaboration: Type.Boolean(),
  allow_maintainer_to_push: Type.Boolean(),
  web_url: Type.String(),
  /** `!iid`, and as later clients read them: short, relative to the project's namespace, full. */
  reference: Type.String(),
  references: Type.Object({ short: Type.String(), relative: Type.String(), full: Type.String() }, closed),
  time_stats: TimeStats,
  squash: Type.Boolean(),
  task_completion_status: Type.Object({ count: Type.Integer(), completed_count: Type.Integer() }, closed),
  has_conflicts: Type.Boolean(),
  blocking_discussions_resolved: Type.Boolean(),
};

export const MergeRequestBasic = Type.Object(basicFields, { ...closed, title: 'MergeRequestBasic' });
export type MergeRequestBasic = Static<typeof MergeRequestBasic>;

/** `view=simple`: the request's numbers, URL, title, description and state. */
export const MergeRequestSimple = Type.Object(
  { ...workItemHeadFields(MergeRequestState), web_url: Type.String() },
  { ...closed, title: 'MergeRequestSimple' },
);
export type MergeRequestSimple = Static<typeof MergeRequestSimple>;

const detailFields = {
  ...basicFields,
  subscribed: Type.Boolean(),
  /** The number of files changed, as a string as the original writes it (`"1000+"` past its limit); null before it is known. */
  changes_count: Nullable(Type.String()),
  merge_user: Nullable(UserBasic),
  latest_build_started_at: Type.Null(),
  latest_build_finished_at: Type.Null(),
  first_deployed_to_production_at: Type.Null(),
  pipeline: Nullable(
    Type.Object({ id: Type.Integer(), sha: Type.String(), ref: Type.String(), status: Type.String(), web_url: Type.String() }, closed),
  ),
  head_pipeline: Type.Null(),
  diff_refs: Nullable(
    Type.Object({ base_sha: Nullable(Type.String()), head_sha: Nullable(Type.String()), start_sha: Nullable(Type.String()) }, closed),
  ),
  merge_error: Type.Null(),
  first_contribution: Type.Boolean(),
  user: Type.Object({ can_merge: Type.Boolean() }, closed),
  approvals_before_merge: Type.Null(),
  diverged_commits_count: Type.Optional(Type.Integer()),
  rebase_in_progress: Type.Optional(Type.Boolean()),
};

/** One merge request, with the viewer's subscription, what merging it involves, and whether the viewer may. */
export const MergeRequest = Type.Object(detailFields, { ...closed, title: 'MergeRequest' });
export type MergeRequest = Static<typeof MergeRequest>;

/** One merge request with its changes from the merge base (`GET .../changes`). */
export const MergeRequestChanges = Type.Object(
  { ...detailFields, changes: Type.Array(Diff), overflow: Type.Boolean({ description: 'whether files were left out past the limits' }) },
  { ...closed, title: 'MergeRequestChanges' },
);
export type MergeRequestChanges = Static<typeof MergeRequestChanges>;

/** A commit of a merge request: the commit as repository lists show it. */
export const MergeRequestCommit = Commit;

/** `None` and `Any` beside user IDs. */
export const ListMergeRequestsQuery = Type.Object({
  state: Type.Optional(
    Type.Union([MergeRequestState, Type.Literal('all')], { description: 'opened, closed, merged, locked, or all (default)' }),
  ),
  ...workItemListFilters('requests', 'GET /merge_requests'),
  order_by: Type.Optional(
    Type.Union([Type.Literal('created_at'), Type.Literal('updated_at')], { description: 'created_at (default) or updated_at' }),
  ),
  view: Type.Optional(Type.Literal('simple', { description: '`simple`: only the request’s numbers, URL, title, description and state' })),
  source_branch: Type.Optional(BoundedText({ maxLength: REF_MAX, description: 'requests from this branch' })),
  target_branch: Type.Optional(BoundedText({ maxLength: REF_MAX, description: 'requests into this branch' })),
  wip: Type.Optional(Type.Union([Type.Literal('yes'), Type.Literal('no')], { description: '`yes`: drafts only; `no`: the others' })),
});
export type ListMergeRequestsQuery = Static<typeof ListMergeRequestsQuery>;

export const GetMergeRequestQuery = Type.Object({
  include_diverged_commits_count: Type.Optional(
    Type.Boolean({ description: 'also `diverged_commits_count`: the target branch’s commits the source branch lacks' }),
  ),
  include_rebase_in_progress: Type.Optional(
    Type.Boolean({ description: 'also `rebase_in_progress` (always false: forgekit rebases nothing)' }),
  ),
  render_html: Type.Optional(Type.Boolean({ description: 'accepted as later clients send it; no HTML is rendered' })),
});
export type GetMergeRequestQuery = Static<typeof GetMergeRequestQuery>;

const labelsInput = (description: string) => Type.Optional(Type.Array(BoundedText(), { maxItems: LIST_MAX, description }));

const changeableFields = {
  description: Type.Optional(Nullable(LongText('description'))),
  assignee_id: Type.Optional(NullableValue(Int32({ description: 'one assignee; 0 or null for none' }))),
  assignee_ids: Type.Optional(
    Type.Array(Int32(), { maxItems: LIST_MAX, description: 'the assignees, as later clients give them; [] for none' }),
  ),
  milestone_id: Type.Optional(NullableValue(Int32({ description: 'a milestone of the project or of its groups; 0 or null for none' }))),
  labels: labelsInput('comma-separated label names; a name the project lacks makes the label'),
  remove_source_branch: Type.Optional(Type.Boolean({ description: 'remove the source branch once merged' })),
};

export const CreateMergeRequestInput = Type.Object({
  source_branch: BoundedText({ maxLength: REF_MAX, description: 'the branch to merge' }),
  target_branch: BoundedText({ maxLength: REF_MAX, description: 'the branch to merge into' }),
  title: BoundedText({ description: 'title' }),
  target_project_id: Type.Optional(Int32({ description: 'the project to merge into: this project or, from a fork, its upstream' })),
  ...changeableFields,
});
export type CreateMergeRequestInput = Static<typeof CreateMergeRequestInput>;

export const UpdateMergeRequestInput = Type.Object({
  target_branch: Type.Optional(BoundedText({ maxLength: REF_MAX, description: 'the branch to merge into' })),
  title: Type.Optional(BoundedText({ description: 'title' })),
  ...changeableFields,
  add_labels: labelsInput('labels to add'),
  remove_labels: labelsInput('labels to take off'),
  state_event: Type.Optional(Type.Union([Type.Literal('close'), Type.Literal('reopen')])),
  discussion_locked: Type.Optional(Type.Boolean({ description: 'when true, only project members may comment' })),
});
export type UpdateMergeRequestInput = Static<typeof UpdateMergeRequestInput>;

export const MergeInput = Type.Object({
  merge_commit_message: Type.Optional(
    LongText('the merge commit’s message (the original’s default: "Merge branch ’a’ into ’b’", the title, the request)'),
  ),
  should_remove_source_branch: Type.Optional(Type.Boolean({ description: 'remove the source branch once merged' })),
  merge_when_pipeline_succeeds: Type.Optional(Type.Boolean({ description: 'merge once the head’s pipeline succeeds (while it runs)' })),
  sha: Type.Optional(
    BoundedText({ maxLength: 64, description: 'the source branch’s head as the caller saw it: a different head refuses the merge (409)' }),
  ),
});
export type MergeInput = Static<typeof MergeInput>;
