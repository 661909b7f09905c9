import { Type, type Static } from 'typebox';
import { EVENT_ACTIONS, EVENT_KINDS } from '../events/kinds.js';
import { DateTime, Nullable } from './common.js';
import { UserBasic } from './users.js';
import { noteFields } from './work-items.js';

const closed = { additionalProperties: false } as const;

/** The note a `commented on` event shows: on an issue, a merge request or a commit. */
export const EventNote = Type.Object(
  {
    ...noteFields(Nullable(Type.String())),
    /** The issue's or merge request's ID; null on a commit. */
    noteable_id: Nullable(Type.Integer()),
    noteable_type: Type.Union([Type.Literal('Issue'), Type.Literal('MergeRequest'), Type.Literal('Commit')]),
    noteable_iid: Nullable(Type.Integer()),
  },
  { ...closed, title: 'EventNote' },
);
export type EventNote = Static<typeof EventNote>;

/** What a push event tells: the reference, how it moved, and its newest commit's title. */
export const PushData = Type.Object(
  {
    commit_count: Type.Integer(),
    /** `pushed` (moved), `created` or `removed`. */
    action: Type.Union([Type.Literal('pushed'), Type.Literal('created'), Type.Literal('removed')]),
    ref_type: Type.Union([Type.Literal('branch'), Type.Literal('tag')]),
    commit_from: Nullable(Type.String()),
    commit_to: Nullable(Type.String()),
    /** The branch's or tag's name. */
    ref: Type.String(),
    commit_title: Nullable(Type.String()),
  },
  { ...closed, title: 'PushData' },
);
export type PushData = Static<typeof PushData>;

/** An event as the Events API shows it (the original's `Event` entity of its era). */
export const Event = Type.Object(
  {
    project_id: Nullable(Type.Integer()),
    /**
     * What happened, in the original's words: `opened`, `closed`, `accepted`, `pushed to`, `pushed new`, `deleted`, `commented on`,
     * `joined`, ...
     */
    action_name: Type.String(),
    target_id: Nullable(Type.Integer()),
    /** The target's iid (its ID for a target without one); null without a target. */
    target_iid: Nullable(Type.Integer()),
    /** `Issue`, `MergeRequest`, `Note`, `DiffNote`, `Milestone`; null for pushes, projects and memberships. */
    target_type: Nullable(Type.String()),
    author_id: Type.Integer(),
    target_title: Nullable(Type.String()),
    created_at: DateTime,
    note: Type.Optional(EventNote),
    author: UserBasic,
    push_data: Type.Optional(PushData),
    author_username: Type.String(),
  },
  { ...closed, title: 'Event' },
);
export type Event = Static<typeof Event>;

export const EventActionName = Type.Enum(EVENT_ACTIONS, {
  description: 'created, updated, closed, reopened, pushed, commented, merged, joined, left, destroyed or expired',
});

/** The Events API's target types, as its `target_type` filter names them. */
export const EVENT_TARGET_TYPES = ['issue', 'milestone', 'merge_request', 'note', 'project', 'snippet', 'user'] as const;

/** A day the Events API filters by: a date, or a timestamp whose date counts (Grape's `Date` takes either). */
const EventDay = Type.String({ format: 'iso8601', maxLength: 64, description: 'date (`2027-01-05`), or a timestamp whose date counts' });

/**
 * The Events API's filters, as the original declares them: an `action` and a `target_type` of its lists (400
 * otherwise); dates are days (`before`: created before that day began; `after`: after that day ended).
 */
export const ListEventsQuery = Type.Object({
  action: Type.Optional(EventActionName),
  target_type: Type.Optional(
    Type.Enum(EVENT_TARGET_TYPES, { description: 'issue, milestone, merge_request, note, project, snippet or user' }),
  ),
  before: Type.Optional(EventDay),
  after: Type.Optional(EventDay),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'by creation, newest first unless `asc`' })),
});
export type ListEventsQuery = Static<typeof ListEventsQuery>;

/** An event as forgekit recorded it: what embedders' subscribers and consumers receive (`hosting.events`). */
export const RecordedEvent = Type.Object(
  {
    id: Type.Integer(),
    kind: Type.Enum(EVENT_KINDS),
    /** The Events API's action; null for an event it does not show. */
    action: Nullable(EventActionName),
    author_id: Nullable(Type.Integer()),
    project_id: Nullable(Type.Integer()),
    group_id: Nullable(Type.Integer()),
    target_type: Nullable(Type.String()),
    target_id: Nullable(Type.Integer()),
    target_iid: Nullable(Type.Integer()),
    target_title: Nullable(Type.String()),
    issue_id: Nullable(Type.Integer()),
    merge_request_id: Nullable(Type.Integer()),
    /** What the kind tells beside (a push's references and commits, the attributes an update changed). */
    data: Type.Record(Type.String(), Type.Unknown()),
    created_at: DateTime,
  },
  { ...closed, title: 'RecordedEvent' },
);
