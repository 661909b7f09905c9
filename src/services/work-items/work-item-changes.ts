import type { EntityManager } from '../../db/orm.js';
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

/** The labels replaced (`labels`), added to and taken from; the system note of the change, if any. */
export async function relabel(
  em: EntityManager,
  target: { kind: WorkItemKind; id: number; projectId: number },
  input: { labels?: string[]; add_labels?: string[]; remove_labels?: string[] },
  now: Date,
): Promise<string[]> {
  if (input.labels === undefined && !input.add_labels?.length && !input.remove_labels?.length) return [];
  const current = await labelsOn(em, target.kind, target.id);
  let titles = input.labels ?? current.map((label) => label.title);
  if (input.add_labels) titles = [...titles, ...input.add_labels];
  if (input.remove_labels) titles = titles.filter((title) => !input.remove_labels!.includes(title));
  const wanted = await labelIdsOf(em, target.projectId, titles, now);
  const added = wanted.filter((label) => !current.some((old) => old.id === label.id));
  const removed = current.filter((label) => !wanted.some((kept) => kept.id === label.id));
  if (!added.length && !removed.length) return [];
  await setLabelLinks(
    em,
    target.kind,
    target.id,
    wanted.map((label) => label.id),
    now,
  );
  return [labelsNote(added, removed)];
}

/** The assignees made these users (those that exist); the system note of the change, if any. */
export async function reassign(
  em: EntityManager,
  target: { kind: WorkItemKind; id: number },
  old: number[],
  wanted: number[],
): Promise<string[]> {
  const userIds = await existingUserIds(em, wanted);
  if (userIds.join() === old.join()) return [];
  await (target.kind === 'Issue' ? setAssignees : setMergeRequestAssignees)(em, target.id, userIds);
  const users = await userRefs(em, [...new Set([...userIds, ...old])]);
  const added = userIds.filter((id) => !old.includes(id)).map((id) => users.get(id)!.username);
  const removed = old.filter((id) => !userIds.includes(id)).map((id) => users.get(id)?.username ?? 'ghost');
  return added.length || removed.length ? [assigneesNote(added, removed)] : [];
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

/** The assignees and the labels changed by those who manage the work item (as the original filters them), with their notes. */
export async function peopleAndLabelChanges(
  em: EntityManager,
  target: { kind: WorkItemKind; id: number; projectId: number },
  before: { assignees: { id: number }[] },
  input: { assignee_ids?: number[]; assignee_id?: number | null; labels?: string[]; add_labels?: string[]; remove_labels?: string[] },
  now: Date,
): Promise<{ notes: string[]; assignees: boolean; labels: boolean }> {
  const assignees = assigneeIdsOf(input);
  const old = before.assignees.map((user) => user.id);
  const assigneeNotes = assignees === undefined ? [] : await reassign(em, target, old, assignees);
  const labelNotes = await relabel(em, target, input, now);
  return { notes: [...assigneeNotes, ...labelNotes], assignees: assigneeNotes.length > 0, labels: labelNotes.length > 0 };
}

/**
 * The end of a work item's update: its columns written (with `updated_at`) when anything changed, each change's system
 * note by the caller, and its events: closed or reopened when its state changed so, and `updated` with the attributes
 * it changed otherwise.
 */
export async function finishUpdate<Columns extends { state?: string; title?: string; updated_at?: Date }>(
  ctx: Context,
  kind: 'Issue' | 'MergeRequest',
  item: { id: number; iid: number; title: string; projectId: number },
  change: { columns: Columns; notes: string[]; assignees: boolean; labels: boolean; now: Date; updatedAt?: Date },
  write: (columns: Columns) => Promise<void>,
): Promise<void> {
  const { columns, notes } = change;
  const changes = changedAttributes(columns, { assignees: change.assignees, labels: change.labels }).filter(
    (name) => !['head_sha', 'start_sha', 'merge_when_pipeline_succeeds'].includes(name),
  );
  // A given `updated_at` (an import's) is written even alone.
  if (notes.length || Object.keys(columns).length || change.updatedAt) {
    columns.updated_at = change.updatedAt ?? change.now;
    await write(columns);
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
  if (columns.state === 'closed') await recordWorkItemEvent(ctx, `${prefix}.closed`, shown, {});
  if (columns.state === 'opened') await recordWorkItemEvent(ctx, `${prefix}.reopened`, shown, {});
  if (changes.length) await recordWorkItemEvent(ctx, `${prefix}.updated`, shown, { changes });
}
