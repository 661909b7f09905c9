import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt } from './columns.js';

/**
 * The record of what happened (src/events/): one row per domain event, appended in the transaction of the write
 * that made it happen and never changed. Its IDs are plain columns, not references: the record outlives the
 * project, the user or the note it speaks of (a project's destruction is an event of that project), and readers
 * join what still exists.
 *
 * `xid` is the inserting transaction's ID: the deferred consumers read the record in the order transactions took
 * their IDs, only below the oldest one still running, so that no event committed late is ever passed over
 * (src/events/dispatcher.ts).
 */
export const DomainEvent = defineEntity({
  name: 'DomainEvent',
  tableName: 'events',
  indexes: [
    // The Events API: a project's, an author's, and everyone's (the primary key), newest first.
    {
      name: 'events_project_index',
      expression: 'create index "events_project_index" on "events" ("project_id", "id") where "action" is not null',
    },
    {
      name: 'events_author_index',
      expression: 'create index "events_author_index" on "events" ("author_id", "id") where "action" is not null',
    },
    // The deferred consumers' cursors.
    { name: 'events_transaction_index', expression: 'create index "events_transaction_index" on "events" ("xid", "id")' },
    // What a removal recorded, found by what it removed (system hooks' payloads of earlier events).
    {
      name: 'events_project_destroyed_index',
      expression: `create index "events_project_destroyed_index" on "events" ("project_id") where "kind" = 'project.destroyed'`,
    },
    {
      name: 'events_user_destroyed_index',
      expression: `create index "events_user_destroyed_index" on "events" ("target_id") where "kind" = 'user.destroyed'`,
    },
    {
      name: 'events_group_destroyed_index',
      expression: `create index "events_group_destroyed_index" on "events" ("group_id") where "kind" = 'group.destroyed'`,
    },
  ],
  properties: {
    id: p.integer().primary(),
    /** What happened: `push`, `issue.opened`, ... (src/events/kinds.ts). */
    kind: p.string().length(64),
    /** The Events API's action (`created`, `pushed`, `commented`, ...); null for an event that API does not show. */
    action: p.string().length(16).nullable(),
    authorId: p.integer().nullable(),
    projectId: p.integer().nullable(),
    groupId: p.integer().nullable(),
    /** What the event is about, as the original names it (`Issue`, `MergeRequest`, `Note`, `DiffNote`, `Milestone`, `User`, `Key`...). */
    targetType: p.string().length(32).nullable(),
    targetId: p.integer().nullable(),
    targetIid: p.integer().nullable(),
    targetTitle: p.text().nullable(),
    /** The issue or the merge request the event concerns (its own, or the one a note is on): who may see it follows theirs. */
    issueId: p.integer().nullable(),
    mergeRequestId: p.integer().nullable(),
    /** What else the kind tells (a push's references and commits, an update's changed attributes). */
    data: p.json<Record<string, unknown>>(),
    xid: p.bigint().defaultRaw('((pg_current_xact_id())::text)::bigint'),
    createdAt: createdAt(),
  },
});
export type DomainEvent = InferEntity<typeof DomainEvent>;

/** How far each deferred consumer has read the record: the transaction and the event it handled last. */
export const EventCursor = defineEntity({
  name: 'EventCursor',
  tableName: 'event_cursors',
  properties: {
    consumer: p.string().length(64).primary(),
    xid: p.bigint(),
    eventId: p.integer(),
    updatedAt: p.datetime(),
  },
});
export type EventCursor = InferEntity<typeof EventCursor>;
