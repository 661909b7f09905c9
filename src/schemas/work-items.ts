import { Type, type Static, type TSchema } from 'typebox';
import { BoundedText, DateOnly, DateTime, DateTimeInput, Int32, LIST_MAX, Nullable, NullableValue } from './common.js';
import { UserBasic } from './users.js';

/**
 * What every work item (issues, and merge requests next) has or is given: milestones, labels, notes, award emoji
 * and time tracking. Shapes as the original's API entities of SPEC.md's era, with the fields later clients read.
 */

const closed = { additionalProperties: false } as const;

/** The longest description or note the original takes (1,000,000 characters, its `text` columns' limit). */
export const TEXT_MAX = 1_000_000;

/** A description or a note: text of at most TEXT_MAX characters. */
export const LongText = (description: string) => Type.String({ maxLength: TEXT_MAX, description });

/** The largest request body of a call that carries a description or a note. */
export const WORK_ITEM_BODY_LIMIT = 4 * TEXT_MAX + 64 * 1024;

export const MilestoneState = Type.Union([Type.Literal('active'), Type.Literal('closed')]);

/** A milestone, of a project (`project_id`) or of a group (`group_id`): embedded in work items, and listed. */
export const Milestone = Type.Object(
  {
    id: Type.Integer(),
    iid: Type.Integer(),
    project_id: Type.Optional(Type.Integer()),
    group_id: Type.Optional(Type.Integer()),
    title: Type.String(),
    description: Nullable(Type.String()),
    state: MilestoneState,
    created_at: DateTime,
    updated_at: DateTime,
    due_date: Nullable(DateOnly),
    start_date: Nullable(DateOnly),
    web_url: Type.String(),
  },
  { ...closed, title: 'Milestone' },
);
export type Milestone = Static<typeof Milestone>;

export const ListMilestonesQuery = Type.Object({
  state: Type.Optional(Type.Union([MilestoneState, Type.Literal('all')], { description: 'active, closed or all (the default)' })),
  iids: Type.Optional(Type.Array(Int32(), { maxItems: LIST_MAX, description: 'only the milestones with these iids' })),
  title: Type.Optional(BoundedText({ description: 'only the milestone of this title' })),
  search: Type.Optional(BoundedText({ description: 'part of the title or the description' })),
});
export type ListMilestonesQuery = Static<typeof ListMilestonesQuery>;

/** A day as an input gives it (`YYYY-MM-DD`), bounded before its format is read. */
export const DayInput = Type.String({ format: 'date', maxLength: 10 });

const milestoneFields = {
  description: Type.Optional(LongText('description')),
  due_date: Type.Optional(Nullable(DayInput)),
  start_date: Type.Optional(Nullable(DayInput)),
};

export const CreateMilestoneInput = Type.Object({ title: BoundedText({ description: 'title' }), ...milestoneFields });
export type CreateMilestoneInput = Static<typeof CreateMilestoneInput>;

export const UpdateMilestoneInput = Type.Object({
  title: Type.Optional(BoundedText({ description: 'title' })),
  ...milestoneFields,
  state_event: Type.Optional(Type.Union([Type.Literal('close'), Type.Literal('activate')], { description: 'close or activate it' })),
});
export type UpdateMilestoneInput = Static<typeof UpdateMilestoneInput>;

/** Time tracking of a work item: seconds, and the original's human forms (`1h 30m`; null for none). */
export const TimeStats = Type.Object(
  {
    time_estimate: Type.Integer(),
    total_time_spent: Type.Integer(),
    human_time_estimate: Nullable(Type.String()),
    human_total_time_spent: Nullable(Type.String()),
  },
  { ...closed, title: 'TimeStats' },
);
export type TimeStats = Static<typeof TimeStats>;

export const TimeEstimateInput = Type.Object({
  duration: BoundedText({ maxLength: 100, description: "a duration in the original's language: `3h30m`, `1w 2d`" }),
});
export type TimeEstimateInput = Static<typeof TimeEstimateInput>;

export const SpentTimeInput = Type.Object({
  duration: BoundedText({ maxLength: 100, description: 'a duration, negative to take time back: `1h`, `-30m`' }),
});
export type SpentTimeInput = Static<typeof SpentTimeInput>;

/** A project's label, with how many work items carry it. */
export const Label = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    color: Type.String(),
    text_color: Type.String(),
    description: Nullable(Type.String()),
    open_issues_count: Type.Integer(),
    closed_issues_count: Type.Integer(),
    open_merge_requests_count: Type.Integer(),
    priority: Nullable(Type.Integer()),
    subscribed: Type.Boolean(),
    is_project_label: Type.Boolean(),
  },
  { ...closed, title: 'Label' },
);
export type Label = Static<typeof Label>;

export const ListLabelsQuery = Type.Object({
  with_counts: Type.Optional(Type.Boolean({ description: 'accepted as later clients send it: the counts are always given' })),
  search: Type.Optional(BoundedText({ description: 'part of the name' })),
});
export type ListLabelsQuery = Static<typeof ListLabelsQuery>;

const labelColor = BoundedText({ maxLength: 64, description: '`#RRGGBB`, `#RGB` or a CSS colour name' });
/** A priority of 0 is one: NullableValue keeps it. */
const labelPriority = NullableValue(
  Int32({ description: "the label's priority: prioritized labels sort first, lowest first; null for none" }),
);

export const CreateLabelInput = Type.Object({
  name: BoundedText({ description: 'name' }),
  color: labelColor,
  description: Type.Optional(Nullable(BoundedText({ maxLength: 10_000 }))),
  priority: Type.Optional(labelPriority),
});
export type CreateLabelInput = Static<typeof CreateLabelInput>;

const labelChanges = {
  new_name: Type.Optional(BoundedText({ description: 'its new name' })),
  color: Type.Optional(labelColor),
  description: Type.Optional(Nullable(BoundedText({ maxLength: 10_000 }))),
  priority: Type.Optional(labelPriority),
};

/** A label's changes, the label named by the path (ID or name: later clients). */
export const UpdateLabelInput = Type.Object(labelChanges);
export type UpdateLabelInput = Static<typeof UpdateLabelInput>;

/** A label's changes, the label named by `name` (SPEC.md's era). */
export const UpdateLabelByNameInput = Type.Object({ name: BoundedText({ description: 'the label to change, by name' }), ...labelChanges });
export type UpdateLabelByNameInput = Static<typeof UpdateLabelByNameInput>;

/** The label to delete, by name (SPEC.md's era; later clients name it in the path). */
export const DeleteLabelInput = Type.Object({ name: BoundedText({ description: 'the label to delete, by name' }) });
export type DeleteLabelInput = Static<typeof DeleteLabelInput>;

export const NoteableType = Type.Union([Type.Literal('Issue'), Type.Literal('MergeRequest')]);

/** A comment on a work item, or a system note recording a change to it. */
/** A note's own fields, as every note shows them (on a work item, in an event), its kind (`type`) beside. */
export const noteFields = <Kind extends TSchema>(type: Kind) => ({
  id: Type.Integer(),
  type,
  body: Type.String(),
  attachment: Type.Null(),
  author: UserBasic,
  created_at: DateTime,
  updated_at: DateTime,
  system: Type.Boolean(),
});

export const Note = Type.Object(
  {
    /** `type`: `DiscussionNote` in a thread of replies; null for a note of its own. */
    ...noteFields(Nullable(Type.Literal('DiscussionNote'))),
    noteable_id: Type.Integer(),
    noteable_type: NoteableType,
    noteable_iid: Type.Integer(),
    /** A note of a merge request's thread is resolvable: then whether it is resolved, and by whom. */
    resolvable: Type.Boolean(),
    resolved: Type.Optional(Type.Boolean()),
    resolved_by: Type.Optional(Nullable(UserBasic)),
    resolved_at: Type.Optional(Nullable(DateTime)),
  },
  { ...closed, title: 'Note' },
);
export type Note = Static<typeof Note>;

/** A discussion: a thread of notes (`individual_note` false) or a note of its own, by the original's 40-hex ID. */
export const Discussion = Type.Object(
  { id: Type.String(), individual_note: Type.Boolean(), notes: Type.Array(Note) },
  { ...closed, title: 'Discussion' },
);
export type Discussion = Static<typeof Discussion>;

export const CreateDiscussionInput = Type.Object({
  body: LongText('the thread’s first note'),
  created_at: Type.Optional(DateTimeInput),
});
export type CreateDiscussionInput = Static<typeof CreateDiscussionInput>;

export const ReplyInput = Type.Object({
  body: LongText('the reply'),
  created_at: Type.Optional(DateTimeInput),
});
export type ReplyInput = Static<typeof ReplyInput>;

/** A note of a thread changed: its text, or (on a merge request) whether it is resolved. */
export const UpdateDiscussionNoteInput = Type.Object({
  body: Type.Optional(LongText('the new text')),
  resolved: Type.Optional(Type.Boolean({ description: 'resolve (true) or unresolve the note, on a merge request' })),
});
export type UpdateDiscussionNoteInput = Static<typeof UpdateDiscussionNoteInput>;

export const ResolveDiscussionInput = Type.Object({
  resolved: Type.Boolean({ description: 'resolve (true) or unresolve the whole thread' }),
});
export type ResolveDiscussionInput = Static<typeof ResolveDiscussionInput>;

export const ListNotesQuery = Type.Object({
  order_by: Type.Optional(
    Type.Union([Type.Literal('created_at'), Type.Literal('updated_at')], { description: 'created_at (default) or updated_at' }),
  ),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'desc (default) or asc' })),
});
export type ListNotesQuery = Static<typeof ListNotesQuery>;

export const CreateNoteInput = Type.Object({
  body: LongText('the comment'),
  created_at: Type.Optional(
    Type.String({ format: 'iso8601', maxLength: 64, description: 'when it was written (administrators and project owners)' }),
  ),
});
export type CreateNoteInput = Static<typeof CreateNoteInput>;

export const UpdateNoteInput = Type.Object({ body: LongText('the comment') });
export type UpdateNoteInput = Static<typeof UpdateNoteInput>;

/** An emoji a user awarded a work item or a note. */
export const AwardEmoji = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    user: UserBasic,
    created_at: DateTime,
    updated_at: DateTime,
    awardable_id: Type.Integer(),
    awardable_type: Type.Union([Type.Literal('Issue'), Type.Literal('MergeRequest'), Type.Literal('Note')]),
  },
  { ...closed, title: 'AwardEmoji' },
);
export type AwardEmoji = Static<typeof AwardEmoji>;

export const CreateAwardEmojiInput = Type.Object({
  name: BoundedText({ maxLength: 128, description: "the emoji's name, without colons: `thumbsup`" }),
});
export type CreateAwardEmojiInput = Static<typeof CreateAwardEmojiInput>;

/** What an issue and a merge request show first, alike: who they are, their text and state, when made and changed. */
export const workItemHeadFields = <State extends TSchema>(state: State) => ({
  id: Type.Integer(),
  iid: Type.Integer(),
  /** Its project (a merge request's target project). */
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state,
  created_at: DateTime,
  updated_at: DateTime,
});

/** A user a list filters by: by ID, or `None` (nobody) or `Any` (somebody), whatever their case. */
const userFilter = (description: string) =>
  Type.Optional(
    Type.Union([Int32(), Type.Literal('None'), Type.Literal('Any'), Type.Literal('none'), Type.Literal('any')], { description }),
  );

/**
 * The filters lists of issues and merge requests take alike (the original's IssuableFinder): `noun` names the items in
 * the descriptions, `list` the list whose default scope is the caller's own.
 */
export const workItemListFilters = (noun: 'issues' | 'requests', list: string) => ({
  labels: Type.Optional(
    Type.Array(BoundedText(), {
      maxItems: LIST_MAX,
      description: `comma-separated names: ${noun} with all of them; \`No Label\` (or \`None\`) for none, \`Any\` for at least one`,
    }),
  ),
  milestone: Type.Optional(BoundedText({ description: 'a milestone title; `None` for none, `Any` for any' })),
  scope: Type.Optional(
    Type.Union(
      [
        Type.Literal('created-by-me'),
        Type.Literal('assigned-to-me'),
        Type.Literal('created_by_me'),
        Type.Literal('assigned_to_me'),
        Type.Literal('all'),
      ],
      { description: `created-by-me (the default of ${list}), assigned-to-me, or all` },
    ),
  ),
  author_id: Type.Optional(Int32({ description: `${noun} opened by this user` })),
  assignee_id: userFilter(`${noun} assigned to this user; \`None\` for unassigned, \`Any\` for assigned`),
  my_reaction_emoji: Type.Optional(
    BoundedText({ maxLength: 128, description: `${noun} the caller reacted to with this emoji; \`None\` or \`Any\`` }),
  ),
  iids: Type.Optional(Type.Array(Int32(), { maxItems: LIST_MAX, description: 'only these iids' })),
  search: Type.Optional(BoundedText({ description: 'part of the title or the description' })),
  created_after: Type.Optional(DateTimeInput),
  created_before: Type.Optional(DateTimeInput),
  updated_after: Type.Optional(DateTimeInput),
  updated_before: Type.Optional(DateTimeInput),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'desc (default) or asc' })),
});
