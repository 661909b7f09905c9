import { gemoji } from 'gemoji';
import type { AwardInScope } from '../../auth/abilities.js';
import type { TargetKind } from '../../db/entities/index.js';
import { NotFoundError } from '../../errors.js';
import type { AwardEmoji, CreateAwardEmojiInput } from '../../schemas/work-items.js';
import { pageRequest, type Page, type PageQuery } from '../pagination.js';
import { presentUserRef } from '../present/issues.js';
import type { View } from '../present/view.js';
import { Service } from '../service.js';
import { awardPage, deleteAward, findAward, insertAward, type AwardRow } from './note-store.js';
import { authorOf, type WorkItemTarget } from './work-item-target.js';
import { NotesService } from './notes.js';

/** Every emoji name (and alias) there is, as the original's list of emoji. */
const EMOJI_NAMES = new Set(gemoji.flatMap((emoji) => emoji.names));

/** The votes: what `upvotes` and `downvotes` count. */
const VOTES = new Set(['thumbsup', 'thumbsdown']);

/** A name as the original keeps it: `+1` and `-1` are the votes' own names. */
const normalized = (name: string) => (name === '+1' ? 'thumbsup' : name === '-1' ? 'thumbsdown' : name);

function presentAward(award: AwardRow, view: View): AwardEmoji {
  return {
    id: award.id,
    name: award.name,
    user: presentUserRef(award.user, view),
    created_at: new Date(award.created_at).toISOString(),
    updated_at: new Date(award.updated_at).toISOString(),
    awardable_id: award.target_id,
    awardable_type: award.target_kind,
  };
}

/** An award a route names: what it is on, who awarded it (for its policy) and the award itself. */
export interface AwardInWorkItem extends AwardInScope {
  row: AwardRow;
}

/** What an award route names: an issue or a merge request, or a note on one. */
export interface Awardable {
  target: WorkItemTarget;
  /** The note on it, by ID; the work item itself when absent. */
  noteId?: number;
}

/** Award emoji on issues, merge requests and their notes: listed, read, awarded (one of each name per user), taken back. */
export class AwardEmojiService extends Service {
  /** The target's kind and ID: the note's (which must be the work item's: 404 `Note Not Found` otherwise), or the work item's. */
  private async target(awardable: Awardable): Promise<{ kind: TargetKind; id: number; authorId: number | null }> {
    if (awardable.noteId === undefined)
      return { kind: awardable.target.kind, id: awardable.target.id, authorId: authorOf(awardable.target) };
    const note = await new NotesService(this.ctx).noteOf(awardable.target, awardable.noteId);
    return { kind: 'Note', id: note.id, authorId: note.author_id };
  }

  async list(awardable: Awardable, query: PageQuery): Promise<Page<AwardEmoji>> {
    const view = await this.ctx.view();
    const target = await this.target(awardable);
    const { page, perPage, offset } = pageRequest(query);
    const { total, rows } = await awardPage(view.rows, target.kind, target.id, { limit: perPage, offset });
    return { items: rows.map((row) => presentAward(row, view)), total, page, perPage };
  }

  async get(awardable: Awardable, awardId: number): Promise<AwardEmoji> {
    const view = await this.ctx.view();
    const target = await this.target(awardable);
    const award = await findAward(view.rows, target.kind, target.id, awardId);
    if (!award) throw new NotFoundError('Award Emoji');
    return presentAward(award, view);
  }

  /**
   * POST .../award_emoji: the caller's award of an emoji by name. As the original answers: 404 for a name that is
   * no emoji, for an emoji the caller awarded already, and for a vote on what the caller wrote itself.
   */
  async create(awardable: Awardable, input: CreateAwardEmojiInput): Promise<AwardEmoji> {
    const target = await this.target(awardable);
    const user = this.ctx.currentUser;
    const name = normalized(input.name);
    if (!EMOJI_NAMES.has(input.name))
      throw new NotFoundError('404 Award Emoji {:name=>["is not included in the list"]} Not Found', { verbatim: true });
    if (VOTES.has(name) && target.authorId === user.id) throw new NotFoundError('Award Emoji');
    const em = this.ctx.em;
    const id = await insertAward(em, { kind: target.kind, targetId: target.id, userId: user.id, name, now: this.ctx.now() });
    if (id === undefined) throw new NotFoundError('404 Award Emoji {:name=>["has already been taken"]} Not Found', { verbatim: true });
    return presentAward((await findAward(em, target.kind, target.id, id))!, await this.ctx.view());
  }

  /**
   * The award a path names (the nested scope of `.../award_emoji/:award_id`), with what it is on; null for none.
   * On a note, the note must be the work item's (404 `Note Not Found` otherwise).
   */
  async findInScope(awardable: Awardable, awardId: number): Promise<AwardInWorkItem | null> {
    const target = await this.target(awardable);
    const row = await findAward((await this.ctx.view()).rows, target.kind, target.id, awardId);
    return row ? { awardable: awardable.target, award: { userId: row.user_id }, row } : null;
  }

  /** DELETE .../award_emoji/:award_id: taken back (by whoever awarded it, or an administrator: 401 for others). */
  async delete({ row }: AwardInWorkItem): Promise<void> {
    await deleteAward(this.ctx.em, row.id);
  }
}
