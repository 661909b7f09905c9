import { can, type IssueInScope, type IssueNoteInScope } from '../../auth/abilities.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { CreateNoteInput, ListNotesQuery, Note, UpdateNoteInput } from '../../schemas/work-items.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { ghostUser, presentUserRef } from '../present/issues.js';
import type { View } from '../present/view.js';
import { Service } from '../service.js';
import { updateIssue } from './issue-store.js';
import { deleteNote, findNote, insertNote, notePage, updateNoteBody, type NoteRow } from './note-store.js';

/** An issue a note route names: its scope, with its ID and iid. */
export type IssueTarget = IssueInScope & { id: number; iid: number };

/** A note as the API shows it. */
export function presentNote(note: NoteRow, iid: number, view: View): Note {
  return {
    id: note.id,
    type: null,
    body: note.body,
    attachment: null,
    author: note.author ? presentUserRef(note.author, view) : ghostUser(view),
    created_at: new Date(note.created_at).toISOString(),
    updated_at: new Date(note.updated_at).toISOString(),
    system: note.system,
    noteable_id: note.target_id,
    noteable_type: note.target_kind as Note['noteable_type'],
    noteable_iid: iid,
    resolvable: false,
  };
}

/** A note's body must say something. */
function checkBody(body: string): void {
  if (body.trim() === '') throw BadRequestError.invalid('note', "can't be blank");
}

/** Notes on issues: comments listed, read, written, changed and deleted (system notes are written by the changes they record). */
export class NotesService extends Service {
  /** GET .../issues/:issue_iid/notes: newest first unless asked otherwise, system notes among them. */
  async listForIssue(issue: IssueTarget, query: ListNotesQuery & PageQuery): Promise<Page<Note>> {
    const view = await this.ctx.view();
    const { page, perPage, offset } = pageRequest(query);
    const order = { orderBy: query.order_by ?? 'created_at', sort: query.sort ?? 'desc' } as const;
    const { total, rows } = await notePage(view.rows, 'Issue', issue.id, order, { limit: perPage, offset });
    return { items: rows.map((row) => presentNote(row, issue.iid, view)), total, page, perPage };
  }

  async getForIssue(issue: IssueTarget, noteId: number): Promise<Note> {
    const view = await this.ctx.view();
    return presentNote(await this.noteOf(issue, noteId), issue.iid, view);
  }

  /**
   * POST .../issues/:issue_iid/notes: a comment by the caller (while the discussion is locked, by project members
   * only); `created_at` is kept for administrators and project owners, as for issues. Commenting touches the issue.
   */
  async createForIssue(issue: IssueTarget, input: CreateNoteInput): Promise<Note> {
    checkBody(input.body);
    const now = new Date();
    const createdAt = input.created_at && can(this.ctx.caller, 'set_issue_timestamps', issue.project) ? new Date(input.created_at) : now;
    const id = await insertNote(this.ctx.em, {
      projectId: issue.project.project.id,
      kind: 'Issue',
      targetId: issue.id,
      authorId: this.ctx.currentUser.id,
      body: input.body,
      system: false,
      createdAt,
    });
    await updateIssue(this.ctx.em, issue.id, { updated_at: now });
    return presentNote((await findNote(this.ctx.em, 'Issue', issue.id, id))!, issue.iid, await this.ctx.view());
  }

  /** PUT .../notes/:note_id: its author, the project's maintainers and administrators change a comment. */
  async updateForIssue(issue: IssueTarget, noteId: number, input: UpdateNoteInput): Promise<Note> {
    checkBody(input.body);
    const note = await this.administered(issue, noteId);
    await updateNoteBody(this.ctx.em, note.id, input.body, new Date());
    return presentNote((await findNote(this.ctx.em, 'Issue', issue.id, note.id))!, issue.iid, await this.ctx.view());
  }

  /** DELETE .../notes/:note_id: as changing it. */
  async deleteForIssue(issue: IssueTarget, noteId: number): Promise<void> {
    const note = await this.administered(issue, noteId);
    await deleteNote(this.ctx.em, note.id);
  }

  /** The issue's note of that ID; 404 `Note Not Found` for none. */
  async noteOf(issue: IssueTarget, noteId: number): Promise<NoteRow> {
    const note = await findNote((await this.ctx.view()).rows, 'Issue', issue.id, noteId);
    if (!note) throw new NotFoundError('Note');
    return note;
  }

  /** The note, when the caller may change it (403 otherwise). */
  private async administered(issue: IssueTarget, noteId: number): Promise<NoteRow> {
    const note = await this.noteOf(issue, noteId);
    const scoped: IssueNoteInScope = { issue, note: { authorId: note.author_id, system: note.system } };
    if (!can(this.ctx.caller, 'admin_note', scoped)) throw new ForbiddenError();
    return note;
  }
}
