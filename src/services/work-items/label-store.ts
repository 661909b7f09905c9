import type { TargetKind } from '../../db/entities/index.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { empty, sql, type Sql } from '../../db/sql.js';

/** Labels' hand-written statements: a project's labels with their counts, and the labels on work items. */

/** The colour of a label made by naming it on a work item, as the original gives it. */
export const DEFAULT_LABEL_COLOR = '#428BCA';

export interface LabelRow {
  id: number;
  project_id: number;
  title: string;
  color: string;
  description: string | null;
  priority: number | null;
  open_issues_count: number;
  closed_issues_count: number;
  open_merge_requests_count: number;
  /** The viewer's own choice to hear of it; null when it never chose. */
  subscribed: boolean | null;
}

/** Who reads a label's counts: its subscription is its own, and its counts are of the issues it may read. */
export interface LabelViewer {
  userId: number | null;
  /** The issues (aliased `i`, their project `p`) the viewer may read: src/auth/access-levels.ts visibleIssuesSql. */
  visibleIssues: Sql;
  /** Whether the viewer reads the project's merge requests (the labels are the project's). */
  readsMergeRequests: boolean;
}

/** The issues (aliased `i`) carrying the label (aliased `l`) in a state, that the viewer may read, counted. */
const issueCount = (state: 'opened' | 'closed', visible: Sql) =>
  sql`(select count(*)::int from "label_links" ll join "issues" i on i."id" = ll."target_id" join "projects" p on p."id" = i."project_id"
    where ll."label_id" = l."id" and ll."target_kind" = 'Issue' and i."state" = ${state} and i."deleted_at" is null and ${visible})`;

/**
 * A project's labels (aliased `l`) with how many open and closed issues and open merge requests carry them, and the viewer's subscription.
 */
const labelColumns = (viewer: LabelViewer) => sql`l."id", l."project_id", l."title", l."color", l."description", l."priority",
  ${issueCount('opened', viewer.visibleIssues)} as "open_issues_count",
  ${issueCount('closed', viewer.visibleIssues)} as "closed_issues_count",
  ${
    viewer.readsMergeRequests
      ? sql`(select count(*)::int from "label_links" ll join "merge_requests" i on i."id" = ll."target_id"
          where ll."label_id" = l."id" and ll."target_kind" = 'MergeRequest' and i."state" = 'opened' and i."deleted_at" is null)`
      : sql`0`
  } as "open_merge_requests_count",
  (select s."subscribed" from "subscriptions" s where s."target_kind" = 'Label' and s."target_id" = l."id"
    and s."user_id" = ${viewer.userId ?? 0}) as "subscribed"`;

/**
 * A page of a project's labels by name (`search`: a LIKE pattern on the name and the description, as the original's
 * LabelsFinder searches), and how many there are: two statements.
 */
export async function labelPage(
  em: EntityManager,
  projectId: number,
  viewer: LabelViewer,
  search: string | undefined,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: LabelRow[] }> {
  const matches = search ? sql` and (l."title" ilike ${search} or l."description" ilike ${search})` : empty;
  const where = sql`l."project_id" = ${projectId}${matches}`;
  const [{ count }] = await queryRows(em, sql`select count(*)::int as "count" from "labels" l where ${where}`);
  if (Number(count) === 0 || page.offset >= Number(count)) return { total: Number(count), rows: [] };
  const rows = await queryRows(
    em,
    sql`select ${labelColumns(viewer)} from "labels" l where ${where} order by l."title", l."id" limit ${page.limit} offset ${page.offset}`,
  );
  return { total: Number(count), rows: rows as unknown as LabelRow[] };
}

/** One of a project's labels, by ID or by title, with its counts; undefined when there is none. */
export async function findLabel(
  em: EntityManager,
  projectId: number,
  by: { id: number } | { title: string },
  viewer: LabelViewer,
): Promise<LabelRow | undefined> {
  const match = 'id' in by ? sql`l."id" = ${by.id}` : sql`l."title" = ${by.title}`;
  const [row] = await queryRows(em, sql`select ${labelColumns(viewer)} from "labels" l where l."project_id" = ${projectId} and ${match}`);
  return row as unknown as LabelRow | undefined;
}

/** A new label of the project; its ID (undefined when the title is taken). */
export async function insertLabel(
  em: EntityManager,
  label: { projectId: number; title: string; color: string; description: string | null; priority: number | null; now: Date },
): Promise<number | undefined> {
  const [row] = await queryRows(
    em,
    sql`insert into "labels" ("project_id", "title", "color", "description", "priority", "created_at", "updated_at")
      values (${label.projectId}, ${label.title}, ${label.color}, ${label.description}, ${label.priority}, ${label.now}, ${label.now})
      on conflict ("project_id", "title") do nothing returning "id"`,
  );
  return row ? Number(row.id) : undefined;
}

/** A label's columns changed (those given). */
export async function updateLabel(
  em: EntityManager,
  labelId: number,
  changes: { title?: string; color?: string; description?: string | null; priority?: number | null },
  now: Date,
): Promise<void> {
  await queryRows(
    em,
    sql`update "labels" set "updated_at" = ${now}
      ${changes.title !== undefined ? sql`, "title" = ${changes.title}` : empty}
      ${changes.color !== undefined ? sql`, "color" = ${changes.color}` : empty}
      ${changes.description !== undefined ? sql`, "description" = ${changes.description}` : empty}
      ${changes.priority !== undefined ? sql`, "priority" = ${changes.priority}` : empty}
      where "id" = ${labelId}`,
  );
}

/** A label gone, with its links (by the foreign key) and who chose to hear of it (a `(kind, id)` target has no key). */
export async function deleteLabel(em: EntityManager, labelId: number): Promise<void> {
  await queryRows(em, sql`delete from "subscriptions" where "target_kind" = 'Label' and "target_id" = ${labelId}`);
  await queryRows(em, sql`delete from "labels" where "id" = ${labelId}`);
}

/**
 * The project's labels of these titles, made (in the default colour) where the project lacks them, as the
 * original makes a label named on a work item; their IDs in the order of the titles, each title once.
 */
export async function labelIdsOf(
  em: EntityManager,
  projectId: number,
  titles: string[],
  now: Date,
): Promise<{ id: number; title: string }[]> {
  // Names as the original keeps them: trimmed, blank ones dropped.
  const unique = [...new Set(titles.map((title) => title.trim()).filter((title) => title !== ''))];
  if (!unique.length) return [];
  await queryRows(
    em,
    sql`insert into "labels" ("project_id", "title", "color", "created_at", "updated_at")
      select ${projectId}, t, ${DEFAULT_LABEL_COLOR}, ${now}, ${now} from unnest(${unique}::text[]) as t
        on conflict ("project_id", "title") do nothing`,
  );
  const rows = await queryRows(em, sql`select "id", "title" from "labels" where "project_id" = ${projectId} and "title" = any(${unique})`);
  const byTitle = new Map(rows.map((row) => [String(row.title), Number(row.id)]));
  return unique.flatMap((title) => (byTitle.has(title) ? [{ id: byTitle.get(title)!, title }] : []));
}

/** The IDs of the project's labels of these titles that exist. */
export async function existingLabelIds(em: EntityManager, projectId: number, titles: string[]): Promise<number[]> {
  const rows = await queryRows(
    em,
    sql`select "id" from "labels" where "project_id" = ${projectId} and "title" = any(${titles}) order by "title"`,
  );
  return rows.map((row) => Number(row.id));
}

/** The labels on a work item: ID and title, by title. */
export async function labelsOn(em: EntityManager, kind: TargetKind, targetId: number): Promise<{ id: number; title: string }[]> {
  const rows = await queryRows(
    em,
    sql`select l."id", l."title" from "label_links" ll join "labels" l on l."id" = ll."label_id"
      where ll."target_kind" = ${kind} and ll."target_id" = ${targetId} order by l."title"`,
  );
  return rows.map((row) => ({ id: Number(row.id), title: String(row.title) }));
}

/** The labels on a work item made these. */
export async function setLabelLinks(em: EntityManager, kind: TargetKind, targetId: number, labelIds: number[], now: Date): Promise<void> {
  await queryRows(
    em,
    sql`delete from "label_links" where "target_kind" = ${kind} and "target_id" = ${targetId}
      and not ("label_id" = any(${labelIds}::int[]))`,
  );
  if (labelIds.length) {
    await queryRows(
      em,
      sql`insert into "label_links" ("label_id", "target_kind", "target_id", "created_at") select l, ${kind}, ${targetId}, ${now}
        from unnest(${labelIds}::int[]) as l
        on conflict ("target_kind", "target_id", "label_id") do nothing`,
    );
  }
}
