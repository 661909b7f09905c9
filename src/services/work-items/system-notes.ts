import { formatDuration } from './durations.js';

/**
 * The text of the system notes that record a change to a work item, worded as the original's SystemNoteService
 * words them, so that an item's history reads the same in its notes.
 */

/** Rails' `to_sentence`: `a`, `a and b`, `a, b, and c`. */
function sentence(items: string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}

export const statusNote = (state: 'closed' | 'reopened') => state;

/** `added ~1 ~2 and removed ~3 labels`: labels by their ID references. */
export function labelsNote(added: { id: number }[], removed: { id: number }[]): string {
  const parts: string[] = [];
  if (added.length) parts.push(`added ${added.map((label) => `~${label.id}`).join(' ')}`);
  if (added.length && removed.length) parts.push('and');
  if (removed.length) parts.push(`removed ${removed.map((label) => `~${label.id}`).join(' ')}`);
  parts.push(added.length + removed.length === 1 ? 'label' : 'labels');
  return parts.join(' ');
}

/** A milestone's reference: `%3` in its project, `%"Title"` for a group's. */
export const milestoneReference = (milestone: { iid: number; title: string; project_id: number | null }) =>
  milestone.project_id !== null ? `%${milestone.iid}` : `%"${milestone.title}"`;

export const milestoneNote = (milestone: { iid: number; title: string; project_id: number | null } | null) =>
  milestone ? `changed milestone to ${milestoneReference(milestone)}` : 'removed milestone';

/** `assigned to @a and unassigned @b`. */
export function assigneesNote(added: string[], removed: string[]): string {
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${sentence(added.map((username) => `@${username}`))}`);
  if (removed.length) parts.push(`unassigned ${sentence(removed.map((username) => `@${username}`))}`);
  return parts.join(' and ');
}

/** `changed title from **{-old-}** to **{+new+}**`, the changed middle of each marked (their common start and end left as they are). */
export function titleNote(before: string, after: string): string {
  const a = [...before];
  const b = [...after];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const mark = (chars: string[], open: string, close: string) => {
    const middle = chars.slice(start, chars.length - end).join('');
    return `${chars.slice(0, start).join('')}${middle ? `${open}${middle}${close}` : ''}${chars.slice(chars.length - end).join('')}`;
  };
  return `changed title from **${mark(a, '{-', '-}')}** to **${mark(b, '{+', '+}')}**`;
}

export const descriptionNote = () => 'changed the description';

export const confidentialityNote = (confidential: boolean) =>
  confidential ? 'made the issue confidential' : 'made the issue visible to everyone';

export const lockNote = (locked: boolean, kind = 'issue') => `${locked ? 'locked' : 'unlocked'} this ${kind}`;

/** `changed due date to November 30, 2026` (Rails' long date), or `removed due date`. */
export function dueDateNote(day: string | null): string {
  if (!day) return 'removed due date';
  const date = new Date(`${day}T00:00:00Z`);
  const month = date.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });
  return `changed due date to ${month} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

export const timeEstimateNote = (seconds: number) =>
  seconds ? `changed time estimate to ${formatDuration(seconds)}` : 'removed time estimate';

/** `added 1h of time spent`, `subtracted 30m of time spent`, or (a reset) `removed time spent`. */
export function timeSpentNote(seconds: number | 'reset'): string {
  if (seconds === 'reset') return 'removed time spent';
  return `${seconds < 0 ? 'subtracted' : 'added'} ${formatDuration(Math.abs(seconds))} of time spent`;
}

export const movedToNote = (reference: string) => `moved to ${reference}`;
export const movedFromNote = (reference: string) => `moved from ${reference}`;
