import type { AnyRecordedEvent, RecordedEvent } from '../../events/bus.js';
import type { ChangedValues } from '../../events/kinds.js';
import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { formatDuration } from '../work-items/durations.js';
import { commitPayload, hookTime, hookTimes, projectPayload, type HookProject, type HookUser, type PayloadContext } from './payloads.js';

type Row = Record<string, unknown>;

// The original's issue, merge request and note payloads (lib/gitlab/hook_data/*_builder.rb and
// lib/gitlab/data_builder/note.rb of its 10.2–11.0 era), field for field, with what later versions add beside
// (`assignees` of merge requests, `user.id`). The work item is read when the delivery is made: its attributes are
// those it has then, its `changes` those the event recorded.

/** The actions of issues' and merge requests' payloads, by event. */
const ACTIONS: Partial<Record<AnyRecordedEvent['kind'], string>> = {
  'issue.opened': 'open',
  'issue.updated': 'update',
  'issue.closed': 'close',
  'issue.moved': 'close',
  'issue.reopened': 'reopen',
  'merge_request.opened': 'open',
  'merge_request.updated': 'update',
  'merge_request.closed': 'close',
  'merge_request.reopened': 'reopen',
  'merge_request.merged': 'merge',
};

export const actionOf = (kind: AnyRecordedEvent['kind']): string | undefined => ACTIONS[kind];

/** The `repository` object of issue, merge request and note payloads (the short one). */
function shortRepository(project: HookProject, context: PayloadContext) {
  const { web_url, git_http_url } = projectPayload(project, context.baseUrl);
  return { name: project.name, url: git_http_url, description: project.description ?? '', homepage: web_url };
}

const userAttributes = (user: HookUser) => ({
  id: user.id,
  name: user.name,
  username: user.username,
  avatar_url: user.avatar_url,
  email: user.email,
});

/**
 * In one statement: the labels on a work item, by title, and those a change of it named, as payloads show them
 * (`Label#hook_attrs`), by ID.
 */
async function labelsOf(em: EntityManager, kind: 'Issue' | 'MergeRequest', id: number, changed: number[]) {
  const rows = await queryRows(
    em,
    sql`select l.id, l.title, l.color, l.project_id, l.created_at, l.updated_at, l.description,
        exists (select 1 from label_links ll where ll.label_id = l.id and ll.target_kind = ${kind} and ll.target_id = ${id}) as linked
      from labels l
      where l.id = any(${changed}::int[])
        or l.id in (select label_id from label_links where target_kind = ${kind} and target_id = ${id})
      order by l.title`,
  );
  const byId = new Map(
    rows.map((row) => [
      row.id as number,
      {
        id: row.id,
        title: row.title,
        color: row.color,
        project_id: row.project_id,
        created_at: hookTime(row.created_at),
        updated_at: hookTime(row.updated_at),
        template: false,
        description: row.description ?? null,
        type: 'ProjectLabel',
        group_id: null,
      } as Record<string, unknown>,
    ]),
  );
  return { on: rows.filter((row) => row.linked).map((row) => byId.get(row.id as number)!), byId };
}

/** The IDs of a change's labels or users, before and after. */
const changedIds = (values: ChangedValues | undefined, name: string): number[] =>
  values?.[name] ? [...(values[name].previous as number[]), ...(values[name].current as number[])] : [];

/** The `changes` of an issue's or a merge request's payload: each column before and after; labels and assignees shown. */
function changesPayload(
  values: ChangedValues | undefined,
  labels: Map<number, Record<string, unknown>>,
  users: Map<number, HookUser>,
  singleAssignee: boolean,
): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const shown = <T>(ids: unknown, of: Map<number, T>) => (ids as number[]).flatMap((id) => (of.has(id) ? [of.get(id)!] : []));
  for (const [name, { previous, current }] of Object.entries(values ?? {})) {
    if (name === 'labels') changes.labels = { previous: shown(previous, labels), current: shown(current, labels) };
    else if (name === 'assignees') {
      const change = {
        previous: shown(previous, users).map(userAttributes),
        current: shown(current, users).map(userAttributes),
      };
      // The era's merge requests had one assignee: its change is `assignee`; later clients read `assignees` too.
      if (singleAssignee) changes.assignee = { previous: change.previous[0] ?? null, current: change.current[0] ?? null };
      changes.assignees = change;
    } else if (name.endsWith('_at')) changes[name] = { previous: hookTime(previous), current: hookTime(current) };
    else changes[name] = { previous, current };
  }
  return changes;
}

/** What every issue or merge request payload reads beside the item: its labels and the users it names. */
async function related(
  em: EntityManager,
  context: PayloadContext,
  kind: 'Issue' | 'MergeRequest',
  id: number,
  assigneeIds: number[],
  values: ChangedValues | undefined,
) {
  const labels = await labelsOf(em, kind, id, changedIds(values, 'labels'));
  const users = await context.users(em, [...assigneeIds, ...changedIds(values, 'assignees')]);
  return { labels: labels.on, labelsById: labels.byId, users };
}

const timeAttributes = (row: Row) => ({
  time_estimate: row.time_estimate as number,
  total_time_spent: row.total_time_spent as number,
  human_time_estimate: formatDuration(row.time_estimate as number),
  human_total_time_spent: formatDuration(row.total_time_spent as number),
});

/** An issue's or a merge request's row, with its assignees' IDs in the order they were assigned. */
async function workItemRow(em: EntityManager, kind: 'Issue' | 'MergeRequest', id: number): Promise<Row | undefined> {
  const [row] = await queryRows(
    em,
    kind === 'Issue'
      ? sql`select i.*, array(select user_id from issue_assignees where issue_id = i.id order by id) as assignee_ids
          from issues i where i.id = ${id}`
      : sql`select m.*, array(select user_id from merge_request_assignees where merge_request_id = m.id order by id) as assignee_ids
          from merge_requests m where m.id = ${id}`,
  );
  return row;
}

/** An issue as issue and note payloads show it (`Issue#hook_attrs`), without `action`. */
function issueAttributes(row: Row, project: HookProject, context: PayloadContext) {
  const assigneeIds = row.assignee_ids as number[];
  return {
    id: row.id as number,
    iid: row.iid as number,
    title: row.title as string,
    description: (row.description as string | null) ?? null,
    state: row.state as string,
    confidential: row.confidential as boolean,
    discussion_locked: row.discussion_locked as boolean,
    project_id: row.project_id as number,
    author_id: (row.author_id as number | null) ?? null,
    assignee_ids: assigneeIds,
    assignee_id: assigneeIds[0] ?? null,
    milestone_id: (row.milestone_id as number | null) ?? null,
    moved_to_id: (row.moved_to_id as number | null) ?? null,
    relative_position: (row.relative_position as number | null) ?? null,
    due_date: row.due_date ? String(row.due_date).slice(0, 10) : null,
    last_edited_at: null,
    last_edited_by_id: null,
    updated_by_id: null,
    ...hookTimes(row, ['created_at', 'updated_at', 'closed_at']),
    ...timeAttributes(row),
    url: `${context.baseUrl}/${project.path_with_namespace}/issues/${row.iid}`,
  };
}

/** An issue event (`object_kind` `issue`); undefined when the issue is gone. */
export async function issuePayload(
  em: EntityManager,
  event: RecordedEvent<`issue.${string}` & AnyRecordedEvent['kind']>,
  project: HookProject,
  context: PayloadContext,
) {
  const row = event.target_id ? await workItemRow(em, 'Issue', event.target_id) : undefined;
  if (!row) return undefined;
  const values = 'values' in event.data ? (event.data.values as ChangedValues | undefined) : undefined;
  const {
    labels,
    labelsById: labelMap,
    users,
  } = await related(em, context, 'Issue', row.id as number, row.assignee_ids as number[], values);
  const user = await context.user(em, event.author_id);
  const assignees = (row.assignee_ids as number[]).flatMap((id) => (users.has(id) ? [userAttributes(users.get(id)!)] : []));
  return {
    payload: {
      object_kind: 'issue',
      event_type: row.confidential ? 'confidential_issue' : 'issue',
      user: user ? userAttributes(user) : null,
      project: projectPayload(project, context.baseUrl),
      repository: shortRepository(project, context),
      object_attributes: { ...issueAttributes(row, project, context), action: actionOf(event.kind) },
      labels,
      changes: changesPayload(values, labelMap, users, false),
      ...(assignees.length ? { assignees, assignee: assignees[0] } : {}),
    },
    confidential: row.confidential as boolean,
  };
}

/** A merge request as merge request and note payloads show it (`MergeRequest#hook_attrs`), without `action`. */
async function mergeRequestAttributes(em: EntityManager, row: Row, project: HookProject, context: PayloadContext) {
  const assigneeIds = row.assignee_ids as number[];
  const sourceId = (row.source_project_id as number | null) ?? null;
  const source = sourceId === project.id ? project : sourceId === null ? null : await context.project(em, sourceId);
  let lastCommit = null;
  if (source && row.head_sha) {
    const repo = context.repository(source);
    lastCommit = await commitPayload(repo, row.head_sha as string, `${context.baseUrl}/${source.path_with_namespace}`).catch(() => null);
  }
  const title = row.title as string;
  return {
    id: row.id as number,
    iid: row.iid as number,
    target_branch: row.target_branch as string,
    source_branch: row.source_branch as string,
    source_project_id: sourceId,
    target_project_id: row.project_id as number,
    author_id: (row.author_id as number | null) ?? null,
    assignee_id: assigneeIds[0] ?? null,
    assignee_ids: assigneeIds,
    title,
    description: (row.description as string | null) ?? '',
    state: row.state as string,
    merge_status: row.merge_status as string,
    milestone_id: (row.milestone_id as number | null) ?? null,
    merge_commit_sha: (row.merge_commit_sha as string | null) ?? null,
    merge_error: null,
    merge_params: { force_remove_source_branch: row.force_remove_source_branch ? '1' : '0' },
    merge_user_id: (row.merge_user_id as number | null) ?? null,
    merge_when_pipeline_succeeds: row.merge_when_pipeline_succeeds as boolean,
    head_pipeline_id: null,
    last_edited_at: null,
    last_edited_by_id: null,
    updated_by_id: null,
    ...hookTimes(row, ['created_at', 'updated_at']),
    ...timeAttributes(row),
    url: `${context.baseUrl}/${project.path_with_namespace}/merge_requests/${row.iid}`,
    source: source ? projectPayload(source, context.baseUrl) : null,
    target: projectPayload(project, context.baseUrl),
    last_commit: lastCommit,
    work_in_progress: /^\s*(\[wip\]|wip:|\[draft\]|draft:|\(draft\))/i.test(title),
  };
}

/**
 * A merge request event (`object_kind` `merge_request`), or its source branch pushed (`action` `update` with
 * `oldrev`, as the original refreshes it); undefined when it is gone.
 */
export async function mergeRequestPayload(
  em: EntityManager,
  event: { kind: AnyRecordedEvent['kind']; author_id: number | null; mergeRequestId: number; values?: ChangedValues; oldrev?: string },
  project: HookProject,
  context: PayloadContext,
) {
  const row = await workItemRow(em, 'MergeRequest', event.mergeRequestId);
  if (!row) return undefined;
  const {
    labels,
    labelsById: labelMap,
    users,
  } = await related(em, context, 'MergeRequest', row.id as number, row.assignee_ids as number[], event.values);
  const user = await context.user(em, event.author_id);
  const assignees = (row.assignee_ids as number[]).flatMap((id) => (users.has(id) ? [userAttributes(users.get(id)!)] : []));
  const attributes = await mergeRequestAttributes(em, row, project, context);
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: user ? userAttributes(user) : null,
    project: projectPayload(project, context.baseUrl),
    repository: shortRepository(project, context),
    object_attributes: {
      ...attributes,
      action: event.oldrev ? 'update' : actionOf(event.kind),
      ...(event.oldrev ? { oldrev: event.oldrev } : {}),
    },
    labels,
    changes: changesPayload(event.values, labelMap, users, true),
    ...(assignees.length ? { assignee: assignees[0], assignees } : {}),
  };
}

/** A comment (`object_kind` `note`) with what it is on; undefined when it or that is gone. */
export async function notePayload(em: EntityManager, event: RecordedEvent<'note.created'>, project: HookProject, context: PayloadContext) {
  const noteId = event.target_id;
  if (!noteId) return undefined;
  const webUrl = `${context.baseUrl}/${project.path_with_namespace}`;
  const { noteable_type: noteableType, noteable_id: noteableId, commit_id: commitId } = event.data;
  const user = await context.user(em, event.author_id);
  const common = {
    object_kind: 'note',
    user: user ? userAttributes(user) : null,
    project_id: project.id,
    project: projectPayload(project, context.baseUrl),
    repository: shortRepository(project, context),
  };
  if (noteableType === 'Commit') {
    const [note] = await queryRows(em, sql`select * from commit_notes where id = ${noteId}`);
    if (!note || !commitId) return undefined;
    const commit = await commitPayload(context.repository(project), commitId, webUrl).catch(() => null);
    return {
      payload: {
        ...common,
        event_type: 'note',
        object_attributes: {
          id: note.id,
          note: note.note,
          noteable_type: 'Commit',
          author_id: note.author_id ?? null,
          ...hookTimes(note, ['created_at', 'updated_at']),
          project_id: project.id,
          attachment: null,
          line_code: null,
          commit_id: commitId,
          noteable_id: null,
          system: false,
          st_diff: null,
          type: null,
          position: null,
          original_position: null,
          resolved_at: null,
          resolved_by_id: null,
          discussion_id: null,
          updated_by_id: null,
          url: `${webUrl}/commit/${commitId}#note_${note.id}`,
        },
        commit,
      },
      confidential: false,
    };
  }
  const [note] = await queryRows(em, sql`select * from notes where id = ${noteId}`);
  if (!note || noteableId === null) return undefined;
  let noteable: { issue: object } | { merge_request: object };
  let confidential = false;
  let path: string;
  if (noteableType === 'Issue') {
    const issue = await workItemRow(em, 'Issue', noteableId);
    if (!issue) return undefined;
    confidential = issue.confidential as boolean;
    noteable = { issue: issueAttributes(issue, project, context) };
    path = `issues/${issue.iid}`;
  } else {
    const request = await workItemRow(em, 'MergeRequest', noteableId);
    if (!request) return undefined;
    noteable = { merge_request: await mergeRequestAttributes(em, request, project, context) };
    path = `merge_requests/${request.iid}`;
  }
  return {
    payload: {
      ...common,
      event_type: confidential ? 'confidential_note' : 'note',
      object_attributes: {
        id: note.id,
        note: note.body,
        noteable_type: noteableType,
        author_id: note.author_id ?? null,
        ...hookTimes(note, ['created_at', 'updated_at', 'resolved_at']),
        project_id: project.id,
        attachment: null,
        line_code: null,
        commit_id: null,
        noteable_id: noteableId,
        system: note.system,
        st_diff: null,
        type: note.type ?? null,
        position: null,
        original_position: null,
        resolved_by_id: note.resolved_by_id ?? null,
        discussion_id: note.discussion_id,
        updated_by_id: null,
        url: `${webUrl}/${path}#note_${note.id}`,
      },
      ...noteable,
    },
    confidential,
  };
}
