import { recordNoteEvent } from './work-item-events.js';
import { can, type IssueInScope, type NoteInScope } from '../../auth/abilities.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { CreateNoteInput, ListNotesQuery, Note, UpdateNoteInput } from '../../schemas/work-items.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { ghostUser, presentUserRef } from '../present/issues.js';
import type { View } from '../present/view.js';
import { Service } from '../service.js';
import { deleteNote, findNote, insertNote, notePage, updateNoteBody, type NoteRow } from './note-store.js';
import { touch } from './work-item-store.js';
import { projectOf, type WorkItemTarget } from './work-item-target.js';

/** A note a route names: the work item it is on, who wrote it (for its policy) and the note itself. */
export interface NoteInWorkItem extends NoteInScope {
  noteable: WorkItemTarget;
  row: NoteRow;
}

/** An issue a route names: its scope, with its ID and iid. */
export type IssueTarget = IssueInScope & { id: number; iid: number };

/** A note as the API shows it; a merge request's thread notes with whether they are resolved. */
export function presentNote(note: NoteRow, iid: number, view: View): Note {
  const resolvable = note.type === 'DiscussionNote' && note.target_kind === 'MergeRequest' && !note.system;
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: note.author ? presentUserRef(note.author, view) : ghostUser(view),
    created_at: new Date(note.created_at).toISOString(),
    updated_at: new Date(note.updated_at).toISOString(),
    system: note.system,
    noteable_id: note.target_id,
    noteable_type: note.target_kind as Note['noteable_type'],
    noteable_iid: iid,
    resolvable,
    ...(resolvable
      ? {
          resolved: note.resolved_at !== null,
          resolved_by: note.resolved_by ? presentUserRef(note.resolved_by, view) : null,
          resolved_at: note.resolved_at ? new Date(note.resolved_at).toISOString() : null,
        }
      : {}),
  };
}

/** A note's body must say something. */
export function checkBody(body: string): void {
  if (body.trim() === '') throw BadRequestError.invalid('note', "can't be blank");
}

/**
 * Notes on issues and merge requests: comments listed, read, written, changed and deleted (system notes are written by the changes they
 * record).
 */
export class NotesService extends Service {
  /** GET .../notes: newest first unless asked otherwise, system notes among them. */
  async list(target: WorkItemTarget, query: ListNotesQuery & PageQuery): Promise<Page<Note>> {
    const view = await this.ctx.view();
    const { page, perPage, offset } = pageRequest(query);
    const order = { orderBy: query.order_by ?? 'created_at', sort: query.sort ?? 'desc' } as const;
    const { total, rows } = await notePage(view.rows, target.kind, target.id, order, { limit: perPage, offset });
    return { items: rows.map((row) => presentNote(row, target.iid, view)), total, page, perPage };
  }

  async get(target: WorkItemTarget, noteId: number): Promise<Note> {
    const view = await this.ctx.view();
    return presentNote(await this.noteOf(target, noteId), target.iid, view);
  }

  /**
   * POST .../notes: a comment by the caller (while the discussion is locked, by project members only);
   * `created_at` is kept for administrators and project owners, as for issues. Commenting touches the work item.
   */
  async create(target: WorkItemTarget, input: CreateNoteInput): Promise<Note> {
    checkBody(input.body);
    const id = await this.comment(target, input);
    return presentNote((await findNote(this.ctx.em, target.kind, target.id, id))!, target.iid, await this.ctx.view());
  }

  /**
   * A note by the caller on the work item (in a thread when `discussion` names one), which it touches: `created_at` kept
   * for administrators and project owners, as for issues; the comment's event recorded. Its ID.
   */
  async comment(
    target: WorkItemTarget,
    input: { body: string; created_at?: string },
    discussion?: { id: string; type: 'DiscussionNote' },
  ): Promise<number> {
    const now = this.ctx.now();
    const project = projectOf(target);
    const createdAt = input.created_at && can(this.ctx.caller, 'set_issue_timestamps', project) ? new Date(input.created_at) : now;
    const id = await insertNote(this.ctx.em, {
      projectId: project.project.id,
      kind: target.kind,
      targetId: target.id,
      authorId: this.ctx.currentUser.id,
      body: input.body,
      system: false,
      createdAt,
      discussion,
    });
    await touch(this.ctx.em, target, now);
    await recordNoteEvent(this.ctx, target, id);
    return id;
  }

  /**
   * The note a path names on the work item (the nested scope of `.../notes/:note_id`), with what it is on; null
   * for none, and for a note of another discussion than the path's.
   */
  async findInScope(target: WorkItemTarget, noteId: number, discussionId?: string): Promise<NoteInWorkItem | null> {
    const row = await findNote((await this.ctx.view()).rows, target.kind, target.id, noteId);
    if (!row || (discussionId !== undefined && row.discussion_id !== discussionId)) return null;
    return { noteable: target, note: { authorId: row.author_id, system: row.system }, row };
  }

  /** PUT .../notes/:note_id: a comment's text, changed (its author, the project's maintainers and administrators). */
  async update({ noteable, row }: NoteInWorkItem, input: UpdateNoteInput): Promise<Note> {
    checkBody(input.body);
    await updateNoteBody(this.ctx.em, row.id, input.body, this.ctx.now());
    return presentNote((await findNote(this.ctx.em, noteable.kind, noteable.id, row.id))!, noteable.iid, await this.ctx.view());
  }

  /** DELETE .../notes/:note_id: as changing it. */
  async delete({ row }: NoteInWorkItem): Promise<void> {
    await deleteNote(this.ctx.em, row.id);
  }

  /** The work item's note of that ID; 404 `Note Not Found` for none. */
  async noteOf(target: WorkItemTarget, noteId: number): Promise<NoteRow> {
    const note = await findNote((await this.ctx.view()).rows, target.kind, target.id, noteId);
    if (!note) throw new NotFoundError('Note');
    return note;
  }
}
