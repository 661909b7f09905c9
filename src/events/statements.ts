import { type Sql, sql } from '../db/sql.js';
import type { AnyRecordedEvent, NewEvent } from './bus.js';
import { eventAction } from './kinds.js';

/** The record's statements: what the bus writes, and what its readers read (the dispatcher, a benchmark's bare handler). */

/** The record's columns, as statements read them into a RecordedEvent. */
export const EVENT_COLUMNS = sql`e."id", e."kind", e."action", e."author_id", e."project_id", e."group_id", e."target_type", e."target_id",
  e."target_iid", e."target_title", e."issue_id", e."merge_request_id", e."data", e."created_at"`;

/** The statement that appends an event to the record, made at `createdAt`, answering its columns. */
export function eventInsertSql(event: NewEvent, createdAt: Date): Sql {
  const target = event.target ?? null;
  return sql`insert into "events" as e ("kind", "action", "author_id", "project_id", "group_id", "target_type", "target_id", "target_iid",
      "target_title", "issue_id", "merge_request_id", "data", "created_at")
    values (${event.kind}, ${eventAction(event.kind, event.data)}, ${event.authorId}, ${event.projectId ?? null}, ${event.groupId ?? null},
      ${target?.type ?? null}, ${target?.id ?? null}, ${target?.iid ?? null}, ${target?.title ?? null}, ${event.issueId ?? null},
      ${event.mergeRequestId ?? null}, ${JSON.stringify(event.data)}::jsonb, ${createdAt})
    returning ${EVENT_COLUMNS}`;
}

/** A row of EVENT_COLUMNS as a RecordedEvent. */
export function recordedEvent(row: Record<string, unknown>): AnyRecordedEvent {
  const data = typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
  const created = row.created_at instanceof Date ? row.created_at : new Date(row.created_at as string);
  return { ...(row as unknown as AnyRecordedEvent), data, created_at: created.toISOString() };
}
