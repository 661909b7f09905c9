import { can } from '../../auth/abilities.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { CreateDiscussionInput, Discussion, Note, ReplyInput, UpdateDiscussionNoteInput } from '../../schemas/work-items.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import type { View } from '../present/view.js';
import { Service } from '../service.js';
import { discussionNotes, discussionPage, findNote, makeThread, newDiscussionId, resolveNotes, type NoteRow } from './note-store.js';
import { checkBody, presentNote } from './notes.js';
import type { WorkItemTarget } from './work-item-target.js';
import { NotesService, type NoteInWorkItem } from './notes.js';

/** A discussion as the API shows it. */
function presentDiscussion(notes: NoteRow[], iid: number, view: View): Discussion {
  return { id: notes[0].discussion_id, individual_note: notes[0].type === null, notes: notes.map((note) => presentNote(note, iid, view)) };
}

/**
 * Discussions of issues and merge requests, as later clients read them: every note is in one, a thread of replies
 * (started here, or made one by a reply to a note of its own) or a note of its own. A merge request's threads are
 * resolvable: by the request's author and developers and above, a thread at once or note by note.
 */
export class DiscussionsService extends Service {
  /** GET .../discussions: in the order they began, each with its notes oldest first. */
  async list(target: WorkItemTarget, query: PageQuery): Promise<Page<Discussion>> {
    const view = await this.ctx.view();
    const { page, perPage, offset } = pageRequest(query);
    const { total, discussions } = await discussionPage(view.rows, target.kind, target.id, { limit: perPage, offset });
    return { items: discussions.map((notes) => presentDiscussion(notes, target.iid, view)), total, page, perPage };
  }

  /** GET .../discussions/:discussion_id. */
  async get(target: WorkItemTarget, discussionId: string): Promise<Discussion> {
    const view = await this.ctx.view();
    return presentDiscussion(await this.notesOf(target, discussionId), target.iid, view);
  }

  /** POST .../discussions: a new thread, its first note by the caller. */
  async create(target: WorkItemTarget, input: CreateDiscussionInput): Promise<Discussion> {
    checkBody(input.body);
    const discussion = { id: newDiscussionId(), type: 'DiscussionNote' as const };
    await new NotesService(this.ctx).comment(target, input, discussion);
    return presentDiscussion(await discussionNotes(this.ctx.em, target.kind, target.id, discussion.id), target.iid, await this.ctx.view());
  }

  /** POST .../discussions/:discussion_id/notes: a reply; a note of its own becomes a thread. */
  async reply(target: WorkItemTarget, discussionId: string, input: ReplyInput): Promise<Note> {
    checkBody(input.body);
    const [first] = await this.notesOf(target, discussionId);
    if (first.system) throw new BadRequestError('400 (Bad request) "discussion" is a system note: it takes no reply');
    await makeThread(this.ctx.em, discussionId);
    const id = await new NotesService(this.ctx).comment(target, input, { id: discussionId, type: 'DiscussionNote' });
    return presentNote((await findNote(this.ctx.em, target.kind, target.id, id))!, target.iid, await this.ctx.view());
  }

  /**
   * PUT .../discussions/:discussion_id/notes/:note_id: its text (as a note's, `admin_note`), or whether it is resolved
   * (a merge request's, `resolve_merge_request_discussion`): one route, the ability the input's.
   */
  async updateNote(note: NoteInWorkItem, input: UpdateDiscussionNoteInput): Promise<Note> {
    if ((input.body === undefined) === (input.resolved === undefined))
      throw new BadRequestError('400 (Bad request) "body" or "resolved" must be given, not both');
    if (input.body !== undefined) {
      checkBody(input.body);
      if (!can(this.ctx.caller, 'admin_note', note)) throw new ForbiddenError();
      return new NotesService(this.ctx).update(note, { body: input.body });
    }
    const { noteable: target, row } = note;
    this.checkResolve(target, row);
    await resolveNotes(this.ctx.em, row.discussion_id, input.resolved ? this.ctx.currentUser.id : null, this.ctx.now(), row.id);
    return presentNote((await findNote(this.ctx.em, target.kind, target.id, row.id))!, target.iid, await this.ctx.view());
  }

  /** PUT /merge_requests/:iid/discussions/:discussion_id: the whole thread resolved (`resolved`) or unresolved. */
  async resolve(target: WorkItemTarget, discussionId: string, resolved: boolean): Promise<Discussion> {
    const notes = await this.notesOf(target, discussionId);
    this.checkResolve(target, notes[0]);
    await resolveNotes(this.ctx.em, discussionId, resolved ? this.ctx.currentUser.id : null, this.ctx.now());
    return presentDiscussion(await discussionNotes(this.ctx.em, target.kind, target.id, discussionId), target.iid, await this.ctx.view());
  }

  /** 400 for a note that is not resolvable, 403 for a caller who may not resolve the merge request's threads. */
  private checkResolve(target: WorkItemTarget, note: NoteRow): void {
    if (target.kind !== 'MergeRequest' || note.type !== 'DiscussionNote' || note.system)
      throw BadRequestError.invalid('resolved', 'is not resolvable');
    if (!can(this.ctx.caller, 'resolve_merge_request_discussion', target.scope)) throw new ForbiddenError();
  }

  /** The discussion's notes; 404 `Discussion Not Found` for none. */
  private async notesOf(target: WorkItemTarget, discussionId: string): Promise<NoteRow[]> {
    const notes = await discussionNotes((await this.ctx.view()).rows, target.kind, target.id, discussionId);
    if (!notes.length) throw new NotFoundError('Discussion');
    return notes;
  }
}
