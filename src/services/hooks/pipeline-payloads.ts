import type { EntityManager } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { commitPayload, hookTimes, projectPayload, type HookProject, type HookUser, type PayloadContext } from './payloads.js';

// The original's pipeline payload (lib/gitlab/data_builder/pipeline.rb of its 10.x–11.0 era), for the pipelines
// forgekit keeps: those its commit statuses make, each status one of the pipeline's `builds`.

/** The original's `detailed_status` of a status (its badge's words). */
const DETAILED: Record<string, string> = { success: 'passed', failed: 'failed', canceled: 'canceled', skipped: 'skipped' };

const shortUser = (user: HookUser | undefined) => (user ? { name: user.name, username: user.username, avatar_url: user.avatar_url } : null);

/** A pipeline's payload (`object_kind` `pipeline`), as it is now; undefined when it is gone. */
export async function pipelinePayload(em: EntityManager, pipelineId: number, project: HookProject, context: PayloadContext) {
  const [pipeline] = await queryRows(em, sql`select * from pipelines where id = ${pipelineId}`);
  if (!pipeline) return undefined;
  // The latest status of each name, in the order they were first posted (the pipeline's builds).
  const statuses = await queryRows(
    em,
    sql`select * from (select distinct on (name) * from commit_statuses where pipeline_id = ${pipelineId} order by name, id desc) latest
      order by id`,
  );
  const users = await context.users(em, [pipeline.user_id as number, ...statuses.map((status) => status.author_id as number)]);
  const repo = context.repository(project);
  const ref = (pipeline.ref as string | null) ?? '';
  const webUrl = `${context.baseUrl}/${project.path_with_namespace}`;
  const started = pipeline.started_at ? new Date(pipeline.started_at as string).getTime() : null;
  const finished = pipeline.finished_at ? new Date(pipeline.finished_at as string).getTime() : null;
  const status = pipeline.status as string;
  // The original's project of pipelines: without the older fields the others keep.
  const { homepage: _homepage, url: _url, ssh_url: _ssh, http_url: _http, ...projectAttributes } = projectPayload(project, context.baseUrl);
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: pipeline.id as number,
      ref,
      tag: ref !== '' && (await repo.tag(ref)) !== null,
      sha: pipeline.sha as string,
      // Its pipelines come from statuses, not from pushes: no push before it.
      before_sha: '0'.repeat(40),
      status,
      detailed_status: DETAILED[status] ?? status,
      stages: [...new Set(statuses.map((each) => each.stage as string))],
      ...hookTimes(pipeline, ['created_at', 'finished_at']),
      duration: started !== null && finished !== null ? Math.round((finished - started) / 1000) : null,
    },
    user: shortUser(users.get(pipeline.user_id as number)),
    project: { ...projectAttributes, ci_config_path: null },
    commit: await commitPayload(repo, pipeline.sha as string, webUrl).catch(() => null),
    builds: statuses.map((each) => ({
      id: each.id as number,
      stage: each.stage as string,
      name: each.name as string,
      status: each.status as string,
      ...hookTimes(each, ['created_at', 'started_at', 'finished_at']),
      when: each.status === 'manual' ? 'manual' : 'on_success',
      manual: each.status === 'manual',
      user: shortUser(users.get(each.author_id as number)),
      runner: null,
      artifacts_file: { filename: null, size: null },
    })),
  };
}
