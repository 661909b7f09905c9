import { randomBytes } from 'node:crypto';
import type { TargetKind } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { direction, sql } from '../../db/sql.js';
import { userJsonSql, type UserRef } from './issue-store.js';

/** Notes', award emoji's and time logs' hand-written statements: any work item's, or any note's, by its `(kind, id)`. */

export interface NoteRow {
  id: number;
  body: string;
  system: boolean;
  discussion_id: string;
  type: 'DiscussionNote' | null;
  resolved_at: Date | null;
  resolved_by: UserRef | null;
  target_kind: TargetKind;
  target_id: number;
  author_id: number | null;
  created_at: Date;
  updated_at: Date;
  author: UserRef | null;
}

const NOTE_COLUMNS = sql`nt."id", nt."body", nt."system", nt."discussion_id", nt."type", nt."resolved_at", nt."target_kind", nt."target_id",
  nt."author_id",
  nt."created_at", nt."updated_at",
  (select ${userJsonSql('u')} from "users" u where u."id" = nt."author_id") as "author",
  (select ${userJsonSql('c')} from "users" c where c."id" = nt."resolved_by_id") as "resolved_by"`;

/** A new discussion's ID, of the original's form (40 hex digits). */
export const newDiscussionId = () => randomBytes(20).toString('hex');

/** The same, made by a statement that writes notes for many rows at once. */
export const newDiscussionIdSql = sql`md5(random()::text || clock_timestamp()::text) || substr(md5(random()::text), 1, 8)`;

/**
 * A new note on the target (a system note when `system`); its ID. A note of its own starts a discussion of its own;
 * `discussion` puts it in a thread (a new one, or a reply).
 */
export async function insertNote(
  em: EntityManager,
  note: {
    projectId: number;
    kind: TargetKind;
    targetId: number;
    authorId: number | null;
    body: string;
    system: boolean;
    createdAt: Date;
    discussion?: { id: string; type: 'DiscussionNote' };
  },
): Promise<number> {
  const [row] = await queryRows(
    em,
    sql`insert into "notes" ("project_id", "target_kind", "target_id", "author_id", "body", "system", "discussion_id", "type", "created_at",
      "updated_at")
      values (${note.projectId}, ${note.kind}, ${note.targetId}, ${note.authorId}, ${note.body}, ${note.system},
        ${note.discussion?.id ?? newDiscussionId()}, ${note.discussion?.type ?? null}, ${note.createdAt}, ${note.createdAt})
          returning "id"`,
  );
  return Number(row.id);
}

/** A page of the target's discussions, in the order they began, each with its notes oldest first, and how many there are. */
export async function discussionPage(
  em: EntityManager,
  kind: TargetKind,
  targetId: number,
  page: { limit: number; offset: number },
): Promise<{ total: number; discussions: NoteRow[][] }> {
  const where = sql`nt."target_kind" = ${kind} and nt."target_id" = ${targetId}`;
  const [{ count }] = await queryRows(em, sql`select count(distinct nt."discussion_id")::int as "count" from "notes" nt where ${where}`);
  const rows = (await queryRows(
    em,
    sql`with page as (select nt."discussion_id", min(nt."id") as "first" from "notes" nt where ${where} group by nt."discussion_id"
        order by "first" limit ${page.limit} offset ${page.offset})
      select ${NOTE_COLUMNS}, page."first" from "notes" nt join page on page."discussion_id" = nt."discussion_id" where ${where}
        order by page."first", nt."id"`,
  )) as unknown as (NoteRow & { first: number })[];
  return { total: Number(count), discussions: threads(rows) };
}

/** The notes of one of the target's discussions, oldest first; empty for none. */
export async function discussionNotes(em: EntityManager, kind: TargetKind, targetId: number, discussionId: string): Promise<NoteRow[]> {
  return (await queryRows(
    em,
    sql`select ${NOTE_COLUMNS} from "notes" nt where nt."target_kind" = ${kind} and nt."target_id" = ${targetId}
      and nt."discussion_id" = ${discussionId} order by nt."id"`,
  )) as unknown as NoteRow[];
}

/** Rows of several discussions, in order, as one list of notes per discussion. */
function threads(rows: NoteRow[]): NoteRow[][] {
  const byDiscussion = new Map<string, NoteRow[]>();
  for (const row of rows) byDiscussion.set(row.discussion_id, [...(byDiscussion.get(row.discussion_id) ?? []), row]);
  return [...byDiscussion.values()];
}

/** A discussion becomes a thread (a reply to a note of its own makes it one). */
export async function makeThread(em: EntityManager, discussionId: string): Promise<void> {
  await queryRows(
    em,
    sql`update "notes" set "type" = 'DiscussionNote' where "discussion_id" = ${discussionId} and "type" is null and not "system"`,
  );
}

/**
 * The resolvable notes of a discussion (or the one note `noteId` of it) resolved by the user, or unresolved (null):
 * those that are not, or are, already.
 */
export async function resolveNotes(
  em: EntityManager,
  discussionId: string,
  resolvedBy: number | null,
  now: Date,
  noteId?: number,
): Promise<void> {
  const one = noteId === undefined ? sql`` : sql` and "id" = ${noteId}`;
  await queryRows(
    em,
    resolvedBy === null
      ? sql`update "notes" set "resolved_at" = null, "resolved_by_id" = null
        where "discussion_id" = ${discussionId} and "resolved_at" is not null${one}`
      : sql`update "notes" set "resolved_at" = ${now}, "resolved_by_id" = ${resolvedBy} where "discussion_id" = ${discussionId}
          and "type" = 'DiscussionNote' and not "system" and "target_kind" = 'MergeRequest' and "resolved_at" is null${one}`,
  );
}

/** A page of the target's notes, in the order asked, and how many there are. */
export async function notePage(
  em: EntityManager,
  kind: TargetKind,
  targetId: number,
  order: { orderBy: 'created_at' | 'updated_at'; sort: 'asc' | 'desc' },
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: NoteRow[] }> {
  const where = sql`nt."target_kind" = ${kind} and nt."target_id" = ${targetId}`;
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from "notes" nt where ${where}`);
  const column = order.orderBy === 'updated_at' ? sql`nt."updated_at"` : sql`nt."created_at"`;
  const rows = await queryRows(
    em,
    sql`select ${NOTE_COLUMNS} from "notes" nt where ${where} order by ${column} ${direction(order.sort)}, nt."id" ${direction(order.sort)}
      limit ${page.limit} offset ${page.offset}`,
  );
  return { total: Number(count), rows: rows as unknown as NoteRow[] };
}

/** One of the target's notes; undefined for none. */
export async function findNote(em: EntityManager, kind: TargetKind, targetId: number, noteId: number): Promise<NoteRow | undefined> {
  const [row] = await queryRows(
    em,
    sql`select ${NOTE_COLUMNS} from "notes" nt where nt."target_kind" = ${kind} and nt."target_id" = ${targetId} and nt."id" = ${noteId}`,
  );
  return row as unknown as NoteRow | undefined;
}

export async function updateNoteBody(em: EntityManager, noteId: number, body: string, now: Date): Promise<void> {
  await queryRows(em, sql`update "notes" set "body" = ${body}, "updated_at" = ${now} where "id" = ${noteId}`);
}

/** A note deleted, with the award emoji on it. */
export async function deleteNote(em: EntityManager, noteId: number): Promise<void> {
  await queryRows(em, sql`delete from "award_emoji" where "target_kind" = 'Note' and "target_id" = ${noteId}`);
  await queryRows(em, sql`delete from "notes" where "id" = ${noteId}`);
}

export interface AwardRow {
  id: number;
  name: string;
  user_id: number;
  target_kind: TargetKind;
  target_id: number;
  created_at: Date;
  updated_at: Date;
  user: UserRef;
}

const AWARD_COLUMNS = sql`ae."id", ae."name", ae."user_id", ae."target_kind", ae."target_id", ae."created_at", ae."updated_at",
  (select ${userJsonSql('u')}
    from "users" u where u."id" = ae."user_id") as "user"`;

/** A page of the target's award emoji, oldest first, and how many there are. */
export async function awardPage(
  em: EntityManager,
  kind: TargetKind,
  targetId: number,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: AwardRow[] }> {
  const where = sql`ae."target_kind" = ${kind} and ae."target_id" = ${targetId}`;
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from "award_emoji" ae where ${where}`);
  const rows = await queryRows(
    em,
    sql`select ${AWARD_COLUMNS} from "award_emoji" ae where ${where} order by ae."id" limit ${page.limit} offset ${page.offset}`,
  );
  return { total: Number(count), rows: rows as unknown as AwardRow[] };
}

export async function findAward(em: EntityManager, kind: TargetKind, targetId: number, awardId: number): Promise<AwardRow | undefined> {
  const [row] = await queryRows(
    em,
    sql`select ${AWARD_COLUMNS} from "award_emoji" ae where ae."target_kind" = ${kind} and ae."target_id" = ${targetId}
      and ae."id" = ${awardId}`,
  );
  return row as unknown as AwardRow | undefined;
}

/** The user's award of the emoji to the target; its ID, undefined when the user had awarded it already. */
export async function insertAward(
  em: EntityManager,
  award: { kind: TargetKind; targetId: number; userId: number; name: string; now: Date },
): Promise<number | undefined> {
  const [row] = await queryRows(
    em,
    sql`insert into "award_emoji" ("name", "user_id", "target_kind", "target_id", "created_at", "updated_at")
      values (${award.name}, ${award.userId}, ${award.kind}, ${award.targetId}, ${award.now}, ${award.now}) on conflict do nothing
        returning "id"`,
  );
  return row ? Number(row.id) : undefined;
}

export async function deleteAward(em: EntityManager, awardId: number): Promise<void> {
  await queryRows(em, sql`delete from "award_emoji" where "id" = ${awardId}`);
}

/**
 * What a work item has that its copy in another project takes along (a moved issue): its notes with their award
 * emoji, its own award emoji, in their order, kept as they were written.
 */
export async function copyDiscussion(
  em: EntityManager,
  kind: TargetKind,
  fromId: number,
  to: { projectId: number; targetId: number },
): Promise<void> {
  await queryRows(
    em,
    sql`insert into "award_emoji" ("name", "user_id", "target_kind", "target_id", "created_at", "updated_at")
      select "name", "user_id", "target_kind", ${to.targetId}, "created_at", "updated_at" from "award_emoji"
        where "target_kind" = ${kind} and "target_id" = ${fromId} order by "id"`,
  );
  const notes = await queryRows(
    em,
    sql`with old as (select * from "notes" where "target_kind" = ${kind} and "target_id" = ${fromId}),
      copied as (insert into "notes" ("project_id", "target_kind", "target_id", "author_id", "body", "system", "discussion_id", "type",
        "created_at", "updated_at")
        select ${to.projectId}, "target_kind", ${to.targetId}, "author_id", "body", "system",
          md5("discussion_id" || ' ' || ${to.targetId}::text) || substr(md5("discussion_id"), 1, 8), "type", "created_at", "updated_at"
            from old order by "id" returning "id")
      select (select array_agg("id" order by "id") from old) as "old", (select array_agg("id" order by "id") from copied) as "new"`,
  );
  const [pair] = notes as { old: number[] | null; new: number[] | null }[];
  if (!pair.old?.length) return;
  await queryRows(
    em,
    sql`insert into "award_emoji" ("name", "user_id", "target_kind", "target_id", "created_at", "updated_at")
      select ae."name", ae."user_id", 'Note', m."new", ae."created_at", ae."updated_at" from "award_emoji" ae
      join unnest(${pair.old}::int[], ${pair.new}::int[]) as m("old", "new") on m."old" = ae."target_id" where ae."target_kind" = 'Note'
        order by ae."id"`,
  );
}

/** Time a user logged on a work item (negative: taken back). */
export async function insertTimelog(
  em: EntityManager,
  log: { kind: TargetKind; targetId: number; userId: number; seconds: number; now: Date },
): Promise<void> {
  await queryRows(
    em,
    sql`insert into "timelogs" ("target_kind", "target_id", "user_id", "time_spent", "created_at")
      values (${log.kind}, ${log.targetId}, ${log.userId}, ${log.seconds}, ${log.now})`,
  );
}

/**
 * A merge request's threads with a note unresolved (or the one given), oldest first, as the original quotes them in a
 * follow-up issue: by the first unresolved note (`first`: whether it opens the thread), with how many other notes it has.
 */
export async function unresolvedThreads(
  em: EntityManager,
  mergeRequestId: number,
  discussionId?: string,
): Promise<{ discussion_id: string; note_id: number; body: string; username: string | null; first: boolean; others: number }[]> {
  const one = discussionId === undefined ? sql`` : sql` and nt."discussion_id" = ${discussionId}`;
  return (await queryRows(
    em,
    sql`select t."discussion_id", t."note_id", t."body", t."username", t."note_id" = t."first_id" as "first", t."others" from (
        select distinct on (nt."discussion_id") nt."discussion_id", nt."id" as "note_id", nt."body",
          (select u."username" from "users" u where u."id" = nt."author_id") as "username",
          (select min(f."id") from "notes" f where f."discussion_id" = nt."discussion_id") as "first_id",
          (select count(*)::int - 1 from "notes" r where r."discussion_id" = nt."discussion_id") as "others"
        from "notes" nt where nt."target_kind" = 'MergeRequest' and nt."target_id" = ${mergeRequestId} and nt."type" = 'DiscussionNote'
          and not nt."system" and nt."resolved_at" is null${one}
        order by nt."discussion_id", nt."id") t
      order by t."first_id"`,
  )) as never;
}
