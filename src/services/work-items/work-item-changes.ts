import type { EntityManager } from '../../db/orm.js';
import type { ChangedValue, ChangedValues } from '../../events/kinds.js';
import type { Context } from '../context.js';
import { insertNote } from './note-store.js';
import { changedAttributes, recordWorkItemEvent } from './work-item-events.js';
import { existingUserIds, setAssignees, userRefs } from './issue-store.js';
import { labelIdsOf, labelsOn, setLabelLinks } from './label-store.js';
import { setMergeRequestAssignees } from './merge-request-store.js';
import { findUsableMilestone } from './milestone-store.js';
import { assigneesNote, descriptionNote, labelsNote, milestoneNote, titleNote } from './system-notes.js';
import { BadRequestError } from '../../errors.js';
import type { WorkItemKind } from './work-item-store.js';

/** What issues and merge requests change alike: their labels and their assignees, each change with its system note. */

/** A change of a list of IDs (labels, assignees), with its system note. */
interface IdsChange extends ChangedValue {
  previous: number[];
  current: number[];
  note: string;
}

/** The labels replaced (`labels`), added to and taken from; the change, if any. */
export async function relabel(
  em: EntityManager,
  target: { kind: WorkItemKind; id: number; projectId: number },
  input: { labels?: string[]; add_labels?: string[]; remove_labels?: string[] },
  now: Date,
): Promise<IdsChange | null> {
  if (input.labels === undefined && !input.add_labels?.length && !input.remove_labels?.length) return null;
  const old = await labelsOn(em, target.kind, target.id);
  let titles = input.labels ?? old.map((label) => label.title);
  if (input.add_labels) titles = [...titles, ...input.add_labels];
  if (input.remove_labels) titles = titles.filter((title) => !input.remove_labels!.includes(title));
  const wanted = await labelIdsOf(em, target.projectId, titles, now);
  const added = wanted.filter((label) => !old.some((had) => had.id === label.id));
  const removed = old.filter((label) => !wanted.some((kept) => kept.id === label.id));
  if (!added.length && !removed.length) return null;
  const current = wanted.map((label) => label.id);
  await setLabelLinks(em, target.kind, target.id, current, now);
  return { previous: old.map((label) => label.id), current, note: labelsNote(added, removed) };
}

/** The assignees made these users (those that exist); the change, if any. */
export async function reassign(
  em: EntityManager,
  target: { kind: WorkItemKind; id: number },
  old: number[],
  wanted: number[],
): Promise<IdsChange | null> {
  const userIds = await existingUserIds(em, wanted);
  if (userIds.join() === old.join()) return null;
  await (target.kind === 'Issue' ? setAssignees : setMergeRequestAssignees)(em, target.id, userIds);
  const users = await userRefs(em, [...new Set([...userIds, ...old])]);
  const added = userIds.filter((id) => !old.includes(id)).map((id) => users.get(id)!.username);
  const removed = old.filter((id) => !userIds.includes(id)).map((id) => users.get(id)?.username ?? 'ghost');
  return added.length || removed.length ? { previous: old, current: userIds, note: assigneesNote(added, removed) } : null;
}

/** The assignees an input names: `assignee_ids`, else `assignee_id` (0 or null for none); undefined when neither is given. */
export function assigneeIdsOf(input: { assignee_ids?: number[]; assignee_id?: number | null }): number[] | undefined {
  if (input.assignee_ids !== undefined) return [...new Set(input.assignee_ids.filter((id) => id > 0))];
  if (input.assignee_id !== undefined) return input.assignee_id ? [input.assignee_id] : [];
  return undefined;
}

/**
 * What an update asks checked before anything is read: at least one attribute (else the original's 400 naming the
 * attributes it takes, `accepted`), and a title that says something.
 */
export function checkUpdate(input: { title?: string }, accepted: string): void {
  if (Object.values(input).every((value) => value === undefined)) {
    throw new BadRequestError(`400 (Bad request) "${accepted}" are missing, at least one parameter must be provided`);
  }
  if (input.title !== undefined) checkTitle(input.title);
}

/** A title must say something, as the original validates it. */
export function checkTitle(title: string): void {
  if (title.trim() === '') throw BadRequestError.invalid('title', "can't be blank");
}

/** The title and the description changed (those given that differ), with their system notes. */
export function textChanges(
  before: { title: string; description: string | null },
  input: { title?: string; description?: string | null },
): { columns: { title?: string; description?: string | null }; notes: string[] } {
  const columns: { title?: string; description?: string | null } = {};
  const notes: string[] = [];
  if (input.title !== undefined && input.title !== before.title) {
    columns.title = input.title;
    notes.push(titleNote(before.title, input.title));
  }
  if (input.description !== undefined && (input.description ?? null) !== before.description) {
    columns.description = input.description ?? null;
    notes.push(descriptionNote());
  }
  return { columns, notes };
}

/** The milestone changed to one the project may use (0 or null: none), with its system note; nothing when it is the same. */
export async function milestoneChange(
  em: EntityManager,
  projectId: number,
  before: { id: number } | null,
  milestoneId: number | null,
): Promise<{ milestone_id: number | null; note: string } | null> {
  const milestone = milestoneId ? ((await findUsableMilestone(em, projectId, milestoneId)) ?? null) : null;
  if ((milestone?.id ?? null) === (before?.id ?? null)) return null;
  return { milestone_id: milestone?.id ?? null, note: milestoneNote(milestone) };
}

/** What changed of a work item's assignees and labels: each change (null: none). */
export interface PeopleAndLabels {
  assignees: IdsChange | null;
  labels: IdsChange | null;
}

export const NO_PEOPLE_OR_LABELS: PeopleAndLabels = { assignees: null, labels: null };

/** The assignees and the labels changed by those who manage the work item (as the original filters them), with their notes. */
export async function peopleAndLabelChanges(
  em: EntityManager,
  target: { kind: WorkItemKind; id: number; projectId: number },
  before: { assignees: { id: number }[] },
  input: { assignee_ids?: number[]; assignee_id?: number | null; labels?: string[]; add_labels?: string[]; remove_labels?: string[] },
  now: Date,
): Promise<PeopleAndLabels> {
  const wanted = assigneeIdsOf(input);
  const old = before.assignees.map((user) => user.id);
  const assignees = wanted === undefined ? null : await reassign(em, target, old, wanted);
  return { assignees, labels: await relabel(em, target, input, now) };
}

/** A column's value as the record keeps it: times (`*_at`, as a Date or as the database's text) as ISO 8601. */
function recorded(name: string, value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' && name.endsWith('_at')) return new Date(value).toISOString();
  return value ?? null;
}

/** Columns no hook shows among a change's values: the merge request's heads, found again on every push. */
const UNSHOWN_COLUMNS = ['head_sha', 'start_sha', 'base_sha'];

/**
 * The end of a work item's update: its columns written (with `updated_at`) when anything changed, each change's system
 * note by the caller, and its events: closed or reopened when its state changed so, and `updated` with the attributes
 * it changed otherwise.
 */
export async function finishUpdate<Columns extends { state?: string; title?: string; updated_at?: Date }>(
  ctx: Context,
  kind: 'Issue' | 'MergeRequest',
  item: { id: number; iid: number; title: string; projectId: number },
  change: PeopleAndLabels & {
    /** The work item as it was, by column (its milestone as `milestone`). */
    before: { milestone: { id: number } | null };
    columns: Columns;
    notes: string[];
    now: Date;
    updatedAt?: Date;
  },
  write: (columns: Columns) => Promise<void>,
): Promise<void> {
  const { columns, before } = change;
  const notes = [...change.notes, ...[change.assignees, change.labels].flatMap((ids) => (ids ? [ids.note] : []))];
  const changes = changedAttributes(columns, { assignees: !!change.assignees, labels: !!change.labels }).filter(
    (name) => !['head_sha', 'start_sha', 'merge_when_pipeline_succeeds'].includes(name),
  );
  // A given `updated_at` (an import's) is written even alone.
  if (notes.length || Object.keys(columns).length || change.updatedAt) {
    columns.updated_at = change.updatedAt ?? change.now;
    await write(columns);
  }
  const values: ChangedValues = {};
  for (const [name, current] of Object.entries(columns)) {
    if (UNSHOWN_COLUMNS.includes(name)) continue;
    const previous = name === 'milestone_id' ? (before.milestone?.id ?? null) : (before as Record<string, unknown>)[name];
    values[name] = { previous: recorded(name, previous), current: recorded(name, current) };
  }
  for (const name of ['assignees', 'labels'] as const) {
    const ids = change[name];
    if (ids) values[name] = { previous: ids.previous, current: ids.current };
  }
  for (const body of notes) {
    await insertNote(ctx.em, {
      projectId: item.projectId,
      kind,
      targetId: item.id,
      authorId: ctx.currentUser.id,
      body,
      system: true,
      createdAt: change.now,
    });
  }
  const shown = { ...item, title: columns.title ?? item.title };
  const prefix = kind === 'Issue' ? 'issue' : 'merge_request';
  if (columns.state === 'closed') await recordWorkItemEvent(ctx, `${prefix}.closed`, shown, { values });
  if (columns.state === 'opened') await recordWorkItemEvent(ctx, `${prefix}.reopened`, shown, { values });
  if (changes.length) await recordWorkItemEvent(ctx, `${prefix}.updated`, shown, { changes, values });
}
