import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import type { AnyRecordedEvent, RecordedEvent } from '../../events/bus.js';
import type { HookTestTrigger } from '../../schemas/hooks.js';
import { pushPayload, type HookProject, type PayloadContext } from './payloads.js';
import { pipelinePayload } from './pipeline-payloads.js';
import { issuePayload, mergeRequestPayload, notePayload } from './work-item-payloads.js';

// What a hook's test sends (`POST /projects/:id/hooks/:hook_id/test/:trigger`, the original's TestHooks): a payload of
// the trigger's kind made from the project's latest of that kind, or the original's words for a project without one.

/** The triggers a test may name, with the `X-Gitlab-Event` of each and the name its delivery is recorded under. */
export const TEST_TRIGGERS = {
  push_events: { event: 'Push Hook', trigger: 'push_hooks' },
  tag_push_events: { event: 'Tag Push Hook', trigger: 'tag_push_hooks' },
  issues_events: { event: 'Issue Hook', trigger: 'issue_hooks' },
  confidential_issues_events: { event: 'Confidential Issue Hook', trigger: 'confidential_issue_hooks' },
  note_events: { event: 'Note Hook', trigger: 'note_hooks' },
  confidential_note_events: { event: 'Confidential Note Hook', trigger: 'confidential_note_hooks' },
  merge_requests_events: { event: 'Merge Request Hook', trigger: 'merge_request_hooks' },
  pipeline_events: { event: 'Pipeline Hook', trigger: 'pipeline_hooks' },
  job_events: { event: 'Job Hook', trigger: 'job_hooks' },
  wiki_page_events: { event: 'Wiki Page Hook', trigger: 'wiki_page_hooks' },
} as const satisfies Record<HookTestTrigger, { event: string; trigger: string }>;

/** The commits a sample push names (the original's `build_sample`). */
const SAMPLE_COMMITS = 3;

/** An event as the test makes it up: recorded nowhere, by the caller, `now`. */
function madeUp<K extends AnyRecordedEvent['kind']>(
  kind: K,
  authorId: number,
  now: Date,
  fields: Partial<RecordedEvent<K>>,
): RecordedEvent<K> {
  return {
    id: 0,
    kind,
    action: null,
    author_id: authorId,
    project_id: null,
    group_id: null,
    target_type: null,
    target_id: null,
    target_iid: null,
    target_title: null,
    issue_id: null,
    merge_request_id: null,
    data: {} as never,
    created_at: now.toISOString(),
    ...fields,
  } as RecordedEvent<K>;
}

/** The sample payload of a trigger; a string says what the project lacks for one (the original's 422 message). */
export async function samplePayload(
  em: EntityManager,
  trigger: HookTestTrigger,
  project: HookProject,
  userId: number,
  context: PayloadContext,
  now: Date,
): Promise<object | string> {
  const repo = context.repository(project);
  const user = await context.user(em, userId);
  const latest = async (statement: ReturnType<typeof sql>) => (await queryRows(em, statement))[0]?.id as number | undefined;
  switch (trigger) {
    case 'push_events': {
      const head = project.default_branch ? await repo.branch(project.default_branch) : null;
      if (!head) return 'Ensure the project has at least one commit.';
      const commits = [head];
      while (commits.length < SAMPLE_COMMITS) {
        const [parent] = (await repo.readCommit(commits.at(-1)!)).parents;
        if (!parent) break;
        commits.push(parent);
      }
      const data = {
        ref: `refs/heads/${project.default_branch}`,
        before: commits.at(-1)!,
        after: head,
        commit_count: commits.length,
        commits,
        commit_title: null,
      };
      return pushPayload(madeUp('push', userId, now, { data }), project, user, repo, context.baseUrl);
    }
    case 'tag_push_events': {
      const tags = await repo.tags();
      if (!tags.length) return 'Ensure the project has tags.';
      const tag = tags.at(-1)!;
      const after = await repo.resolveCommit(tag.oid);
      const data = { ref: `refs/tags/${tag.name}`, before: null, after, commit_count: 0, commits: [], commit_title: null };
      return pushPayload(madeUp('tag_push', userId, now, { data }), project, user, repo, context.baseUrl);
    }
    case 'issues_events':
    case 'confidential_issues_events': {
      const issueId = await latest(
        sql`select id from issues where project_id = ${project.id} and deleted_at is null order by id desc limit 1`,
      );
      if (issueId === undefined) return 'Ensure the project has issues.';
      return (await issuePayload(em, madeUp('issue.opened', userId, now, { target_id: issueId }), project, context))!.payload;
    }
    case 'merge_requests_events': {
      const requestId = await latest(
        sql`select id from merge_requests where project_id = ${project.id} and deleted_at is null order by id desc limit 1`,
      );
      if (requestId === undefined) return 'Ensure the project has merge requests.';
      return (await mergeRequestPayload(
        em,
        { kind: 'merge_request.opened', author_id: userId, mergeRequestId: requestId },
        project,
        context,
      ))!;
    }
    case 'note_events':
    case 'confidential_note_events': {
      const [note] = await queryRows(
        em,
        sql`select id, target_kind, target_id from notes where project_id = ${project.id} and not system order by id desc limit 1`,
      );
      if (!note) return 'Ensure the project has notes.';
      const data = {
        noteable_type: note.target_kind as 'Issue' | 'MergeRequest',
        noteable_id: note.target_id as number,
        noteable_iid: null,
        commit_id: null,
      };
      return (await notePayload(em, madeUp('note.created', userId, now, { target_id: note.id as number, data }), project, context))!
        .payload;
    }
    case 'pipeline_events': {
      const pipelineId = await latest(sql`select id from pipelines where project_id = ${project.id} order by id desc limit 1`);
      if (pipelineId === undefined) return 'Ensure the project has CI pipelines.';
      return (await pipelinePayload(em, pipelineId, project, context))!;
    }
    // forgekit runs no jobs and keeps no wiki: a project has none of either, as the original says of such a project.
    case 'job_events':
      return 'Ensure the project has CI jobs.';
    case 'wiki_page_events':
      return 'Ensure the wiki is enabled and has pages.';
  }
}
