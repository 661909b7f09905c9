import type { TargetKind } from '../../db/entities/index.js';
import type { EventData, EventKind } from '../../events/kinds.js';
import type { Context } from '../context.js';
import { projectOf, type WorkItemTarget } from './work-item-target.js';

/** A work item as its events name it. */
export interface WorkItemOfEvent {
  id: number;
  iid: number;
  title: string;
  projectId: number;
}

type WorkItemEventKind = Extract<EventKind, `issue.${string}` | `merge_request.${string}`>;

/** Records an event of an issue or a merge request, by the caller, with the item as its target. */
export function recordWorkItemEvent<K extends WorkItemEventKind>(
  ctx: Context,
  kind: K,
  item: WorkItemOfEvent,
  data: EventData[K],
): Promise<unknown> {
  const type: TargetKind = kind.startsWith('issue.') ? 'Issue' : 'MergeRequest';
  return ctx.record({
    kind,
    authorId: ctx.currentUser.id,
    projectId: item.projectId,
    target: { type, id: item.id, iid: item.iid, title: item.title },
    ...(type === 'Issue' ? { issueId: item.id } : { mergeRequestId: item.id }),
    data,
  });
}

/** What a change of a work item's columns touched, by the API's names (the state's and the timestamps' aside). */
export function changedAttributes(columns: object, also: Record<string, boolean>): string[] {
  const kept = Object.keys(columns)
    .filter((name) => !['state', 'closed_at', 'closed_by_id', 'updated_at', 'merge_status', 'base_sha'].includes(name))
    .map((name) => (name === 'milestone_id' ? 'milestone' : name));
  return [...kept, ...Object.entries(also).flatMap(([name, changed]) => (changed ? [name] : []))];
}

/** Records the comment a caller made on an issue or a merge request (system notes make no event, as in the original). */
export function recordNoteEvent(ctx: Context, target: WorkItemTarget, noteId: number): Promise<unknown> {
  return ctx.record({
    kind: 'note.created',
    authorId: ctx.currentUser.id,
    projectId: projectOf(target).project.id,
    target: { type: 'Note', id: noteId, iid: noteId, title: null },
    ...(target.kind === 'Issue' ? { issueId: target.id } : { mergeRequestId: target.id }),
    data: { noteable_type: target.kind, noteable_id: target.id, noteable_iid: target.iid, commit_id: null },
  });
}
