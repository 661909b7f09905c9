import type { Release as ReleaseRow } from '../../db/entities/index.js';
import type { Release } from '../../schemas/tags.js';
import type { Context } from '../context.js';
import { deleteRelease, insertRelease, type NewRelease, releaseNotesOf } from './release-store.js';

/**
 * A tag's release notes as tags are made and deleted: rows written with statements that run at once (not at the ORM's
 * flush), so that a write of a release and a tag writes the row first and moves the tag last (writeRepository).
 */

export const noteOf = (row: ReleaseRow): Release => ({ tag_name: row.tagName, description: row.description });

/** The release notes of some of a project's tags, by tag name: one query. */
export async function releaseNotesOfTags(ctx: Context, projectId: number, tagNames: string[]): Promise<Map<string, Release>> {
  if (!tagNames.length) return new Map();
  const rows = await releaseNotesOf((await ctx.view()).rows, projectId, tagNames);
  return new Map(rows.map((row) => [row.tagName, noteOf(row)]));
}

/**
 * For a tag being made, under the repository's lock: the release a crash left of a deleted tag of that name goes, and
 * the new tag's release, when it has one, is made (the caller its author; null when the tag has one already: two
 * writers racing, the second one gets null).
 */
export async function replaceReleaseOfNewTag(
  ctx: Context,
  projectId: number,
  tagName: string,
  release: NewRelease | null,
): Promise<ReleaseRow | null> {
  await removeReleaseOfTag(ctx, projectId, tagName);
  return release ? insertRelease(ctx.em, projectId, tagName, release, ctx.currentUser.id) : null;
}

/** Deletes the release of a tag; the row it was, or null when there was none. */
export function removeReleaseOfTag(ctx: Context, projectId: number, tagName: string): Promise<ReleaseRow | null> {
  return deleteRelease(ctx.em, projectId, tagName);
}
