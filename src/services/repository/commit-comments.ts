import type { ProjectInScope } from '../../auth/abilities.js';
import type { CommitNote, User } from '../../db/entities/index.js';
import { BadRequestError } from '../../errors.js';
import { changesBetween, diffOf } from '../../git/diff.js';
import type { Commit, Repository } from '../../git/repository.js';
import type { CommitComment, CreateCommitCommentInput } from '../../schemas/commit-statuses.js';
import { pageOf, type Page, type PageQuery } from '../pagination.js';
import { presentUserBasic } from '../present/users.js';
import type { View } from '../present/view.js';
import { commitCommentPage, insertCommitComment } from './comment-store.js';
import { REFUSALS } from './refusals.js';
import { Service } from '../service.js';
import { CommitsService } from './commits.js';

/** A comment in the answer's shape; `author` null once its user is deleted. */
export function presentCommitComment(note: CommitNote, author: User | null, view: View): CommitComment {
  return {
    note: note.note,
    path: note.path ?? null,
    line: note.line ?? null,
    line_type: note.lineType ?? null,
    author: author
      ? { ...presentUserBasic(author, view), email: author.email, created_at: new Date(author.createdAt).toISOString() }
      : null,
    created_at: new Date(note.createdAt).toISOString(),
  };
}

/** The lines a diff adds (numbered in the new file) and removes (numbered in the old file). */
export function changedLines(diff: string): { new: Set<number>; old: Set<number> } {
  const added = new Set<number>();
  const removed = new Set<number>();
  let oldLine = 0;
  let newLine = 0;
  for (const line of diff.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
    } else if (line.startsWith('+')) {
      added.add(newLine++);
    } else if (line.startsWith('-')) {
      removed.add(oldLine++);
    } else if (line.startsWith(' ')) {
      oldLine++;
      newLine++;
    }
  }
  return { new: added, old: removed };
}

export class CommitCommentsService extends Service {
  /** GET /projects/:id/repository/commits/:sha/comments: oldest first; a page costs two statements whatever its size. */
  async list(scoped: ProjectInScope, revision: string, query: PageQuery): Promise<Page<CommitComment>> {
    const commit = await new CommitsService(this.ctx).commitOf(this.ctx.repositoryOf(scoped.project), revision);
    // The page asked for, clamped as every list clamps it.
    const { page, perPage } = pageOf([], query);
    const view = await this.ctx.view();
    const { total, rows } = await commitCommentPage(view.rows, scoped.project.id, commit.oid, page, perPage);
    const items = rows.map((row) => presentCommitComment(row.note, row.author, view));
    return { items, total, page, perPage };
  }

  /**
   * POST /projects/:id/repository/commits/:sha/comments: on the line of `path` that the commit adds (`line_type`
   * `new`, by its number in the new file) or removes (`old`, by its number in the old file), compared with its
   * first parent; on the commit itself (path, line and line type null) when the commit changes no such line, as
   * the original places it whether `sha` is a full SHA, a branch or a tag.
   */
  async create(scoped: ProjectInScope, revision: string, input: CreateCommitCommentInput): Promise<CommitComment> {
    const repo = this.ctx.repositoryOf(scoped.project);
    const commit = await new CommitsService(this.ctx).commitOf(repo, revision);
    if (input.note.trim() === '') throw new BadRequestError(REFUSALS.noteBlank);
    let place: { path: string; line: number; lineType: 'new' | 'old' } | null = null;
    if (input.path !== undefined && input.path !== null) {
      if (input.line === undefined) throw BadRequestError.missing('line');
      const lineType = input.line_type ?? 'new';
      // A null line is no line of any diff: the comment goes on the commit.
      if (input.line !== null && (await this.changesLine(repo, commit, input.path, input.line, lineType)))
        place = { path: input.path, line: input.line, lineType };
    }
    const note = await insertCommitComment(this.ctx.em, {
      projectId: scoped.project.id,
      sha: commit.oid,
      note: input.note,
      place,
      authorId: this.ctx.currentUser.id,
    });
    await this.ctx.record({
      kind: 'note.created',
      authorId: this.ctx.currentUser.id,
      projectId: scoped.project.id,
      // A note's title is its noteable's: the commit's.
      target: { type: 'Note', id: note.id, iid: note.id, title: commit.message.split('\n', 1)[0] },
      data: { noteable_type: 'Commit', noteable_id: null, noteable_iid: null, commit_id: commit.oid },
    });
    return presentCommitComment(note, this.ctx.currentUser as User, await this.ctx.view());
  }

  /** Whether the commit adds (`new`) or removes (`old`) that line of the file, against its first parent. */
  private async changesLine(repo: Repository, commit: Commit, path: string, line: number, lineType: 'new' | 'old'): Promise<boolean> {
    const parentTree = commit.parents.length ? (await repo.readCommit(commit.parents[0])).tree : null;
    const change = (await changesBetween(repo, parentTree, commit.tree)).find((candidate) => candidate.newPath === path);
    if (!change) return false;
    return changedLines((await diffOf(repo, change)).diff)[lineType].has(line);
  }
}
