import type { ReferenceMoved } from '../../events/kinds.js';
import type { Event, PushData } from '../../schemas/events.js';
import type { EventRow } from '../activity/event-store.js';
import { presentUserRef } from './issues.js';
import type { View } from './view.js';

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';

/** What the original's event says was done, in its words (`Event#action_name` of its era). */
function actionName(row: EventRow): string {
  const data = row.data as unknown as ReferenceMoved;
  switch (row.action) {
    case 'pushed':
      return data.before === null ? 'pushed new' : data.after === null ? 'deleted' : 'pushed to';
    case 'closed':
      return 'closed';
    case 'merged':
      return 'accepted';
    case 'joined':
      return 'joined';
    case 'left':
      return 'left';
    case 'expired':
      return 'removed due to membership expiration from';
    case 'destroyed':
      return 'destroyed';
    case 'commented':
      return 'commented on';
    case 'created':
      return row.kind === 'project.created' ? (row.data.imported ? 'imported' : 'created') : 'opened';
    default:
      return 'opened';
  }
}

/** A push's reference, how it moved and its newest commit (the original's `push_data`). */
function presentPushData(row: EventRow): PushData {
  const data = row.data as unknown as ReferenceMoved;
  const tag = data.ref.startsWith(TAG_PREFIX);
  return {
    commit_count: data.commit_count,
    action: data.before === null ? 'created' : data.after === null ? 'removed' : 'pushed',
    ref_type: tag ? 'tag' : 'branch',
    commit_from: data.before,
    commit_to: data.after,
    ref: data.ref.slice((tag ? TAG_PREFIX : BRANCH_PREFIX).length),
    commit_title: data.commit_title,
  };
}

/** An event as the Events API shows it, with the note a comment made and a push's data. */
export function presentEvent(row: EventRow, view: View): Event {
  const note = row.note;
  return {
    project_id: row.project_id,
    action_name: actionName(row),
    target_id: row.target_id,
    target_iid: row.target_iid,
    target_type: row.target_type,
    author_id: row.author_id,
    target_title: row.target_title,
    created_at: new Date(row.created_at).toISOString(),
    ...(note
      ? {
          note: {
            id: note.id,
            type: note.type,
            body: note.body,
            attachment: null,
            author: note.author ? presentUserRef(note.author, view) : presentUserRef(row.author, view),
            created_at: new Date(note.created_at).toISOString(),
            updated_at: new Date(note.updated_at).toISOString(),
            system: note.system,
            noteable_id: note.noteable_id,
            noteable_type: row.data.noteable_type as 'Issue' | 'MergeRequest' | 'Commit',
            noteable_iid: note.noteable_iid,
          },
        }
      : {}),
    author: presentUserRef(row.author, view),
    ...(row.kind === 'push' || row.kind === 'tag_push' ? { push_data: presentPushData(row) } : {}),
    author_username: row.author.username,
  };
}
