import type { RecordedEvent } from '../../events/bus.js';
import { changesBetween } from '../../git/diff.js';
import type { Repository } from '../../git/repository.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import type { EntityManager } from '../../db/orm.js';
import { dateWithOffset } from '../present/commits.js';

// The original's webhook payloads (lib/gitlab/data_builder/push.rb of its 10.x–11.0 era), field for field, built once
// per event for every hook that receives it. URLs start from the instance's base URL.

/** The visibility levels the payloads give (the original's Gitlab::VisibilityLevel). */
const VISIBILITY_LEVELS: Record<string, number> = { private: 0, internal: 10, public: 20 };

/** A project as payloads describe it, with its repository: read once per event. */
export interface HookProject {
  id: number;
  name: string;
  description: string | null;
  path_with_namespace: string;
  namespace: string;
  visibility: string;
  default_branch: string | null;
  avatar_url: string | null;
  /** Where its repository is (not part of any payload). */
  repository_storage: string;
}

export async function hookProject(em: EntityManager, projectId: number, baseUrl: string): Promise<HookProject | null> {
  const [row] = await queryRows(
    em,
    sql`select p.id, p.name, p.description, p.path, p.visibility, p.default_branch, p.avatar_filename, p.repository_storage,
        n.full_path, n.name as namespace_name
      from projects p join namespaces n on n.id = p.namespace_id where p.id = ${projectId}`,
  );
  if (!row) return null;
  const avatar = row.avatar_filename as string | null;
  return {
    id: row.id as number,
    name: row.name as string,
    description: (row.description as string | null) ?? null,
    path_with_namespace: `${row.full_path}/${row.path}`,
    namespace: row.namespace_name as string,
    visibility: row.visibility as string,
    default_branch: (row.default_branch as string | null) ?? null,
    avatar_url: avatar ? `${baseUrl}/uploads/-/system/project/avatar/${row.id}/${encodeURIComponent(avatar)}` : null,
    repository_storage: row.repository_storage as string,
  };
}

/** The `project` object of every project payload. */
export function projectPayload(project: HookProject, baseUrl: string) {
  const webUrl = `${baseUrl}/${project.path_with_namespace}`;
  const sshUrl = `git@${new URL(baseUrl).hostname}:${project.path_with_namespace}.git`;
  return {
    id: project.id,
    name: project.name,
    description: project.description ?? '',
    web_url: webUrl,
    avatar_url: project.avatar_url,
    git_ssh_url: sshUrl,
    git_http_url: `${webUrl}.git`,
    namespace: project.namespace,
    visibility_level: VISIBILITY_LEVELS[project.visibility] ?? 0,
    path_with_namespace: project.path_with_namespace,
    default_branch: project.default_branch,
    homepage: webUrl,
    url: sshUrl,
    ssh_url: sshUrl,
    http_url: `${webUrl}.git`,
  };
}

/** The `repository` object of push payloads. */
function repositoryPayload(project: HookProject, baseUrl: string) {
  const { web_url, git_ssh_url, git_http_url, visibility_level } = projectPayload(project, baseUrl);
  return {
    name: project.name,
    url: git_ssh_url,
    description: project.description ?? '',
    homepage: web_url,
    git_http_url,
    git_ssh_url,
    visibility_level,
  };
}

/** A user as payloads name one. */
export interface HookUser {
  id: number;
  name: string;
  username: string;
  email: string;
  avatar_url: string | null;
}

/**
 * What building payloads reads besides the event, shared by the payloads of one event: users and projects (read once
 * each), repositories, where URLs start.
 */
export interface PayloadContext {
  baseUrl: string;
  user(em: EntityManager, userId: number | null): Promise<HookUser | null>;
  users(em: EntityManager, userIds: number[]): Promise<Map<number, HookUser>>;
  project(em: EntityManager, projectId: number): Promise<HookProject | null>;
  repository(project: HookProject): Repository;
}

/** A time copied from the database, as the original's queued deliveries show it (`2015-05-17 18:08:09 UTC`). */
export function hookTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return `${new Date(value as string).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Those columns of a row as hookTime shows them. */
export function hookTimes<K extends string>(row: Record<string, unknown>, columns: readonly K[]): Record<K, string | null> {
  return Object.fromEntries(columns.map((column) => [column, hookTime(row[column])])) as Record<K, string | null>;
}

/** A commit's time as payloads show it: ISO 8601 in its own offset, to the second (Ruby's `xmlschema`). */
const commitTime = (signature: Parameters<typeof dateWithOffset>[0]) => dateWithOffset(signature).replace(/\.\d{3}(?=[+-])/, '');

/** A commit as payloads embed it (`Commit#hook_attrs`): the merge request's last commit, a commented commit. */
export async function commitPayload(repo: Repository, oid: string, projectWebUrl: string) {
  const commit = await repo.readCommit(oid);
  return {
    id: commit.oid,
    message: commit.message,
    timestamp: commitTime(commit.committer),
    url: `${projectWebUrl}/commit/${commit.oid}`,
    author: { name: commit.author.name, email: commit.author.email },
  };
}

/**
 * A push or tag push (`object_kind` `push`, `tag_push`): its commits, oldest first, the newest 20 of them at most (as
 * the event keeps them), each with the paths it added, modified and removed against its first parent.
 */
export async function pushPayload(
  event: RecordedEvent<'push' | 'tag_push'>,
  project: HookProject,
  user: HookUser | null,
  repo: Repository,
  baseUrl: string,
) {
  const { ref, before, after, commit_count: total, commits: newestFirst } = event.data;
  const webUrl = `${baseUrl}/${project.path_with_namespace}`;
  const commits = [];
  for (const oid of [...newestFirst].reverse()) {
    const commit = await repo.readCommit(oid);
    const parent = commit.parents[0] ? await repo.readCommit(commit.parents[0]) : null;
    const changes = await changesBetween(repo, parent?.tree ?? null, commit.tree);
    commits.push({
      id: commit.oid,
      message: commit.message,
      timestamp: commitTime(commit.committer),
      url: `${webUrl}/commit/${commit.oid}`,
      author: { name: commit.author.name, email: commit.author.email },
      added: changes.filter((change) => change.status === 'added' || change.status === 'renamed').map((change) => change.newPath),
      modified: changes.filter((change) => change.status === 'modified').map((change) => change.newPath),
      removed: changes.filter((change) => change.status === 'deleted').map((change) => change.oldPath),
    });
  }
  const zero = '0'.repeat(40);
  return {
    object_kind: event.kind,
    event_name: event.kind,
    before: before ?? zero,
    after: after ?? zero,
    ref,
    checkout_sha: after,
    message: null,
    user_id: user?.id ?? null,
    user_name: user?.name ?? null,
    user_username: user?.username ?? null,
    user_email: user?.email ?? null,
    user_avatar: user?.avatar_url ?? null,
    project_id: project.id,
    project: projectPayload(project, baseUrl),
    commits,
    total_commits_count: total,
    repository: repositoryPayload(project, baseUrl),
  };
}

/**
 * A system hook's `repository_update`: a project's references moved (one delivery per reference moved, as forgekit
 * records each).
 */
export function repositoryUpdatePayload(
  event: RecordedEvent<'push' | 'tag_push'>,
  project: HookProject,
  user: HookUser | null,
  baseUrl: string,
) {
  const zero = '0'.repeat(40);
  return {
    event_name: 'repository_update',
    user_id: user?.id ?? null,
    user_name: user?.name ?? null,
    user_email: user?.email ?? null,
    user_avatar: user?.avatar_url ?? null,
    project_id: project.id,
    project: projectPayload(project, baseUrl),
    changes: [{ before: event.data.before ?? zero, after: event.data.after ?? zero, ref: event.data.ref }],
    refs: [event.data.ref],
  };
}
