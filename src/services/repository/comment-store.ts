import { CommitNote, User } from '../../db/entities/index.js';
import { clockOf } from '../../clock.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows, rowAs } from '../../db/rows.js';
import { sql } from '../../db/sql.js';

/** Commit comments' hand-written statements (the `commit_notes` of a project's commits). */

/** A page of the commit's comments, oldest first, each with its author (null once deleted), and how many there are: two statements. */
export async function commitCommentPage(
  em: EntityManager,
  projectId: number,
  sha: string,
  page: number,
  perPage: number,
): Promise<{ total: number; rows: { note: CommitNote; author: User | null }[] }> {
  const ofCommit = sql`n."project_id" = ${projectId} and n."commit_sha" = ${sha}`;
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from "commit_notes" n where ${ofCommit}`);
  const rows = await queryRows(
    em,
    sql`select to_jsonb(n) as "note", to_jsonb(u) as "author" from "commit_notes" n left join "users" u on u."id" = n."author_id"
     where ${ofCommit} order by n."created_at", n."id" limit ${perPage} offset ${(page - 1) * perPage}`,
  );
  return {
    total: Number(count),
    rows: rows.map((row) => ({ note: rowAs(em, CommitNote, row.note), author: row.author ? rowAs(em, User, row.author) : null })),
  };
}

/** A new comment on the commit: on a line of a file (`place`), or on the commit itself (null). */
export async function insertCommitComment(
  em: EntityManager,
  comment: {
    projectId: number;
    sha: string;
    note: string;
    place: { path: string; line: number; lineType: 'new' | 'old' } | null;
    authorId: number;
  },
): Promise<CommitNote> {
  const { place } = comment;
  const now = clockOf(em).now();
  const [row] = await queryRows(
    em,
    sql`insert into "commit_notes" ("project_id", "commit_sha", "note", "path", "line", "line_type", "author_id", "created_at",
      "updated_at")
     values (${comment.projectId}, ${comment.sha}, ${comment.note}, ${place?.path ?? null}, ${place?.line ?? null},
       ${place?.lineType ?? null}, ${comment.authorId}, ${now}, ${now})
     returning *`,
  );
  return rowAs(em, CommitNote, row);
}
