import { Release, User } from '../../db/entities/index.js';
import { clockOf } from '../../clock.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows, readRows, rowAs } from '../../db/rows.js';
import { direction, identifier, join, sql } from '../../db/sql.js';

/** Releases' hand-written statements: the notes kept beside a project's tags, one per tag name. */

/** What a new release holds beside its tag's name. */
export interface NewRelease {
  description: string;
  /** The commit its tag names (null for a tag of something else). */
  sha: string | null;
  /** The tag's name when not given. */
  name?: string;
  /** Now when not given. */
  releasedAt?: Date;
}

/** What an update of a release changes; what is undefined stays. */
export interface ReleaseChanges {
  name?: string;
  description?: string;
  releasedAt?: Date;
}

/** The tag name and description of the releases of some of the project's tags. */
export function releaseNotesOf(em: EntityManager, projectId: number, tagNames: string[]): Promise<Release[]> {
  return readRows(
    em,
    Release,
    sql`select "tag_name", "description" from "releases" where "project_id" = ${projectId} and "tag_name" = any(${tagNames}::text[])`,
  );
}

/** A tag's release, or null. */
export async function findRelease(em: EntityManager, projectId: number, tagName: string): Promise<Release | null> {
  const [row] = await readRows(em, Release, sql`select * from "releases" where "project_id" = ${projectId} and "tag_name" = ${tagName}`);
  return row ?? null;
}

/**
 * The IDs of the releases of the tags named, ordered by `orderBy` (then by ID) in `sort`'s direction. The names go
 * as one array value: a repository may have more tags than a statement may have parameters.
 */
export async function releaseIdsOfTags(
  em: EntityManager,
  projectId: number,
  tagNames: string[],
  orderBy: 'created_at' | 'released_at',
  sort: 'asc' | 'desc',
): Promise<number[]> {
  const column = identifier(orderBy, ['created_at', 'released_at']);
  const order = direction(sort);
  const ids = await queryRows(
    em,
    sql`select "id" from "releases" where "project_id" = ${projectId} and "tag_name" = any(${tagNames}::text[])
      order by ${column} ${order}, "id" ${order}`,
  );
  return ids.map((row) => row.id as number);
}

/** Releases by ID, in no order; those deleted since are missing. */
export async function releasesByIds(em: EntityManager, ids: number[]): Promise<Release[]> {
  return ids.length ? readRows(em, Release, sql`select * from "releases" where "id" = any(${ids})`) : [];
}

/** What the releases API shows of releases' authors. */
export async function releaseAuthors(em: EntityManager, authorIds: number[]): Promise<User[]> {
  return authorIds.length
    ? readRows(
        em,
        User,
        sql`select "id", "name", "username", "state", "email", "avatar_filename" from "users" where "id" = any(${authorIds})`,
      )
    : [];
}

/** A new release of a tag, by its author; null when the tag has one (two writers racing: the second one gets null). */
export async function insertRelease(
  em: EntityManager,
  projectId: number,
  tagName: string,
  release: NewRelease,
  authorId: number,
): Promise<Release | null> {
  const now = clockOf(em).now();
  const [row] = await queryRows(
    em,
    sql`insert into "releases" ("project_id", "tag_name", "name", "description", "sha", "author_id", "created_at", "updated_at",
      "released_at")
     values (${projectId}, ${tagName}, ${release.name ?? tagName}, ${release.description}, ${release.sha}, ${authorId}, ${now}, ${now},
       ${release.releasedAt ?? now})
     on conflict ("project_id", "tag_name") do nothing returning *`,
  );
  return row ? rowAs(em, Release, row) : null;
}

/** Changes a tag's release; null when it has none. */
export async function updateRelease(
  em: EntityManager,
  projectId: number,
  tagName: string,
  changes: ReleaseChanges,
): Promise<Release | null> {
  const columns = { name: changes.name, description: changes.description, released_at: changes.releasedAt, updated_at: clockOf(em).now() };
  // The columns are `columns`' own keys: a fixed set.
  const names = Object.keys(columns) as (keyof typeof columns)[];
  const given = names.filter((name) => columns[name] !== undefined).map((name) => sql`${identifier(name, names)} = ${columns[name]}`);
  const [row] = await queryRows(
    em,
    sql`update "releases" set ${join(given, ', ')} where "project_id" = ${projectId} and "tag_name" = ${tagName} returning *`,
  );
  return row ? rowAs(em, Release, row) : null;
}

/** Deletes the release of a tag; the row it was, or null when there was none. */
export async function deleteRelease(em: EntityManager, projectId: number, tagName: string): Promise<Release | null> {
  const [row] = await queryRows(em, sql`delete from "releases" where "project_id" = ${projectId} and "tag_name" = ${tagName} returning *`);
  return row ? rowAs(em, Release, row) : null;
}
