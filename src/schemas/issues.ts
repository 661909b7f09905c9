import { Type, type Static } from 'typebox';
import { BoundedText, DateOnly, DateTime, DateTimeInput, Int32, LIST_MAX, Nullable, NullableValue } from './common.js';
import { UserBasic } from './users.js';
import { DayInput, LongText, Milestone, TimeStats, workItemHeadFields, workItemListFilters } from './work-items.js';

const closed = { additionalProperties: false } as const;

export const IssueState = Type.Union([Type.Literal('opened'), Type.Literal('closed')]);

/** An issue as lists show it. */
const basicFields = {
  ...workItemHeadFields(IssueState),
  closed_at: Nullable(DateTime),
  closed_by: Nullable(UserBasic),
  /** The issue it was moved to (it is closed here); null for none. */
  moved_to_id: Nullable(Type.Integer()),
  labels: Type.Array(Type.String()),
  milestone: Nullable(Milestone),
  assignees: Type.Array(UserBasic),
  /** Deprecated: the first of `assignees`. */
  assignee: Nullable(UserBasic),
  author: UserBasic,
  user_notes_count: Type.Integer(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  due_date: Nullable(DateOnly),
  confidential: Type.Boolean(),
  discussion_locked: Type.Boolean(),
  web_url: Type.String(),
  time_stats: TimeStats,
};

export const IssueBasic = Type.Object(basicFields, { ...closed, title: 'IssueBasic' });
export type IssueBasic = Static<typeof IssueBasic>;

/** One issue (read, created, changed, moved, subscribed to): with the viewer's subscription and its links. */
export const Issue = Type.Object(
  {
    ...basicFields,
    subscribed: Type.Boolean(),
    _links: Type.Object({ self: Type.String(), notes: Type.String(), award_emoji: Type.String(), project: Type.String() }, closed),
  },
  { ...closed, title: 'Issue' },
);
export type Issue = Static<typeof Issue>;

/** `None` and `Any` (and the original's era's `No+Label`, read as `No Label`) beside names and IDs. */
export const ListIssuesQuery = Type.Object({
  state: Type.Optional(Type.Union([IssueState, Type.Literal('all')], { description: 'opened, closed, or all (default)' })),
  ...workItemListFilters('issues', 'GET /issues'),
  order_by: Type.Optional(
    Type.Union(
      [
        Type.Literal('created_at'),
        Type.Literal('updated_at'),
        Type.Literal('priority'),
        Type.Literal('due_date'),
        Type.Literal('relative_position'),
      ],
      {
        description: 'created_at (default), updated_at, priority, due_date or relative_position',
      },
    ),
  ),
  confidential: Type.Optional(Type.Boolean({ description: 'only confidential issues, or only the others' })),
});
export type ListIssuesQuery = Static<typeof ListIssuesQuery>;

const labelsInput = (description: string) => Type.Optional(Type.Array(BoundedText(), { maxItems: LIST_MAX, description }));

const issueFields = {
  description: Type.Optional(Nullable(LongText('description'))),
  confidential: Type.Optional(Type.Boolean()),
  assignee_ids: Type.Optional(Type.Array(Int32(), { maxItems: LIST_MAX, description: 'the assignees; [] for none' })),
  assignee_id: Type.Optional(NullableValue(Int32({ description: 'one assignee, as older clients give it; 0 or null for none' }))),
  milestone_id: Type.Optional(NullableValue(Int32({ description: 'a milestone of the project or of its groups; 0 or null for none' }))),
  labels: labelsInput('comma-separated label names; a name the project lacks makes the label'),
  due_date: Type.Optional(Nullable(DayInput)),
  discussion_locked: Type.Optional(Type.Boolean({ description: 'when true, only project members may comment' })),
};

export const CreateIssueInput = Type.Object({
  title: BoundedText({ description: 'title' }),
  ...issueFields,
  created_at: Type.Optional(DateTimeInput),
  merge_request_to_resolve_discussions_of: Type.Optional(
    Int32({
      description: 'a merge request (iid) whose unresolved threads the issue takes over: a default description, the threads resolved',
    }),
  ),
  discussion_to_resolve: Type.Optional(
    Type.String({ pattern: '^[0-9a-f]{40}$', maxLength: 40, description: 'only this thread of that merge request' }),
  ),
});
export type CreateIssueInput = Static<typeof CreateIssueInput>;

export const UpdateIssueInput = Type.Object({
  title: Type.Optional(BoundedText({ description: 'title' })),
  ...issueFields,
  add_labels: labelsInput('labels to add'),
  remove_labels: labelsInput('labels to take off'),
  state_event: Type.Optional(Type.Union([Type.Literal('close'), Type.Literal('reopen')])),
  updated_at: Type.Optional(DateTimeInput),
});
export type UpdateIssueInput = Static<typeof UpdateIssueInput>;

export const MoveIssueInput = Type.Object({ to_project_id: Int32({ description: 'the project to move it to' }) });
export type MoveIssueInput = Static<typeof MoveIssueInput>;
