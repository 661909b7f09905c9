/**
 * The bare handler's GET /projects/:id/merge_requests and GET /projects/:id/merge_requests/:iid (bench/lib/bare.ts
 * routes them): the statements forgekit runs, written as forgekit writes them (src/services/work-items/merge-request-store.ts,
 * issue-store.ts's subscription and participation, status-store.ts's pipeline, protected-branch-store.ts) so that
 * bench/requests.ts can check they are the same, and the rows made into the same JSON by hand
 * (src/services/present/merge-requests.ts). For a reporter of the project (the benchmark's reader): it reads every
 * merge request and merges none, so `user.can_merge` is false whatever protects the target branch.
 *
 * The single GET reads the repository too: the changes count, from the merge base to the source branch's head.
 * Here that is isomorphic-git's readCommit and readTree, the commits' trees and the trees' entries kept in the
 * process as forgekit keeps them (objects never change: what is kept is never stale), and the two trees compared
 * as forgekit compares them (src/git/diff.ts: directories walked where they differ, exact renames paired). A merge
 * request whose merge base or merge status is still to be worked out (forgekit then tries the merge and writes
 * them) is not handled: the benchmark's has them worked out, by forgekit's first GET if not before.
 */
import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { fixedSql, sql } from '../../src/db/sql.ts';
import { formatDuration } from '../../src/services/work-items/durations.ts';
import { projectSql, type ProjectsCaller } from './bare-projects.ts';
import type { Row, SqlClient } from './sql.ts';

/** A reporter's access level: the least that reads a private project's merge requests; a developer's: the least that merges. */
const REPORTER = 20;
const DEVELOPER = 30;

/** A user's columns (aliased `alias`) as a JSON object, as issue-store.ts's userJsonSql writes it; with when the user joined. */
const userJson = (alias: string) => {
  const u = fixedSql(`"${alias}"`);
  return sql`json_build_object('id', ${u}."id", 'name', ${u}."name", 'username', ${u}."username", 'state', ${u}."state",
    'email', ${u}."email", 'avatarFilename', ${u}."avatar_filename")`;
};
const userWithDateJson = (alias: string) =>
  sql`(${userJson(alias)}::jsonb || jsonb_build_object('createdAt', ${fixedSql(`"${alias}"`)}."created_at"))`;

const milestoneJson = sql`(to_jsonb(m) || jsonb_build_object('web_path', case when m."project_id" is not null
  then (select mn."full_path" || '/' || mp."path" from "projects" mp join "namespaces" mn on mn."id" = mp."namespace_id"
    where mp."id" = m."project_id") || '/milestones/' || m."iid"
  else 'groups/' || (select g."full_path" from "namespaces" g where g."id" = m."group_id") || '/-/milestones/' || m."iid" end))`;

/** A merge request and all it embeds, a subquery per relation and row (merge-request-store.ts's MERGE_REQUEST_COLUMNS). */
const COLUMNS = sql`i."id", i."iid", i."project_id", i."source_project_id", i."source_branch", i."target_branch", i."title",
  i."description",
  i."state", i."discussion_locked", i."merge_status", i."head_sha", i."start_sha", i."base_sha", i."merge_commit_sha", i."merged_at",
    i."closed_at",
  i."merge_when_pipeline_succeeds", i."merge_commit_message", i."should_remove_source_branch", i."force_remove_source_branch",
  i."time_estimate", i."total_time_spent", i."created_at", i."updated_at", i."author_id",
  n."full_path" || '/' || p."path" as "project_path", n."full_path" as "namespace_path",
  (select coalesce(json_agg(l."title" order by l."title"), '[]') from "label_links" ll join "labels" l on l."id" = ll."label_id"
    where ll."target_kind" = 'MergeRequest' and ll."target_id" = i."id") as "labels",
  (select coalesce(json_agg(${userWithDateJson('au')} order by ma."id"), '[]') from "merge_request_assignees" ma join "users" au
    on au."id" = ma."user_id"
    where ma."merge_request_id" = i."id") as "assignees",
  (select ${userWithDateJson('a')} from "users" a where a."id" = i."author_id") as "author",
  (select ${userJson('mb')} from "users" mb where mb."id" = i."merged_by_id") as "merged_by",
  (select ${userJson('c')} from "users" c where c."id" = i."closed_by_id") as "closed_by",
  (select ${userJson('mu')} from "users" mu where mu."id" = i."merge_user_id") as "merge_user",
  (select ${milestoneJson} from "milestones" m where m."id" = i."milestone_id") as "milestone",
  (select count(*)::int from "notes" nt where nt."target_kind" = 'MergeRequest' and nt."target_id" = i."id"
    and not nt."system") as "user_notes_count",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'MergeRequest' and ae."target_id" = i."id"
    and ae."name" = 'thumbsup') as "upvotes",
  (select count(*)::int from "award_emoji" ae where ae."target_kind" = 'MergeRequest' and ae."target_id" = i."id"
    and ae."name" = 'thumbsdown') as "downvotes",
  case when p."only_allow_merge_if_all_discussions_are_resolved" then coalesce((select false from "notes" nt
    where nt."target_kind" = 'MergeRequest' and nt."target_id" = i."id" and nt."type" = 'DiscussionNote' and not nt."system"
    and nt."resolved_at" is null limit 1), true) else true end as "blocking_discussions_resolved"`;

const FROM = sql`"merge_requests" i join "projects" p on p."id" = i."project_id" join "namespaces" n on n."id" = p."namespace_id"`;

/** Not deleted, merge requests enabled (visibleMergeRequestsSql in a project), the project's. */
const where = (projectId: number) => sql`i."deleted_at" is null and p."merge_requests_enabled" and i."project_id" = ${projectId}`;

export const mergeRequestSql = {
  count: (projectId: number) => sql`select count(*)::int as "count" from ${FROM} where ${where(projectId)}`,
  /** Newest first (`order_by=created_at`, `sort=desc`: the defaults); the offset bound even when 0, as forgekit binds it. */
  page: (projectId: number, limit: number, offset: number) =>
    sql`select ${COLUMNS} from ${FROM} where ${where(projectId)} order by i."created_at" desc, i."id" desc limit ${limit} offset ${offset}`,
  /** What deciding on a merge request needs (findMergeRequestFacts): the merge request scope of `/merge_requests/:iid`. */
  facts: (projectId: number, iid: number) =>
    sql`select i."id", i."iid", i."author_id" as "authorId", i."discussion_locked" as "discussionLocked",
      array(select ma."user_id" from "merge_request_assignees" ma where ma."merge_request_id" = i."id" order by ma."id") as "assigneeIds"
      from "merge_requests" i where i."project_id" = ${projectId} and i."iid" = ${iid} and i."deleted_at" is null`,
  one: (id: number) => sql`select ${COLUMNS} from ${FROM} where i."id" = ${id}`,
  pipeline: (projectId: number, sha: string) =>
    sql`select "id", "ref", "sha", "status" from "pipelines" where "project_id" = ${projectId} and "sha" = ${sha} order by "id" desc
      limit 1`,
  subscription: (id: number, user: number) =>
    sql`select "subscribed" from "subscriptions" where "target_kind" = ${'MergeRequest'} and "target_id" = ${id} and "user_id" = ${user}`,
  participates: (id: number, user: number) =>
    sql`select (exists (select 1 from "notes" nt where nt."target_kind" = ${'MergeRequest'} and nt."target_id" = ${id}
      and nt."author_id" = ${user} and not nt."system")
      or exists (select 1 from "merge_requests" i where i."id" = ${id} and i."author_id" = ${user})
      or exists (select 1 from "merge_request_assignees" ma where ma."merge_request_id" = ${id} and ma."user_id" = ${user})
      or exists (select 1 from "label_links" ll join "subscriptions" s
        on s."target_kind" = 'Label' and s."target_id" = ll."label_id" and s."user_id" = ${user} and s."subscribed"
        where ll."target_kind" = ${'MergeRequest'} and ll."target_id" = ${id})) as "participates"`,
  protections: (projectId: number) =>
    sql`select "name", "push_access_level" as "pushAccessLevel", "merge_access_level" as "mergeAccessLevel" from "protected_branches"
      where "project_id" = ${projectId}`,
};

/** A timestamp as PostgreSQL's text (`2026-11-23 05:11:11+00`) or as `to_jsonb` writes it, in JSON's form. */
const iso = (text: string) => new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();

/** A draft's title (merge-request-store.ts's DRAFT_TITLE). */
const DRAFT_TITLE = /^\s*(\[(wip|draft)\]\s*|(wip|draft):\s*|\(draft\)\s*|draft\s+-\s+)/i;

/** How the JSON is made: the external URL, and whether users without an avatar get the avatar service's. */
export interface MergeRequestsView {
  baseUrl: string;
  avatarService: boolean;
  /** The MD5 avatar URL of an email (bench/lib/bare.ts's). */
  gravatar: (email: string) => string;
  /** A project's repository, a bare one. */
  repositoryPath: (projectId: number) => string;
}

function userRef(user: Row, view: MergeRequestsView) {
  const avatar = user.avatarFilename
    ? `${view.baseUrl}/uploads/-/system/user/avatar/${user.id}/${encodeURIComponent(user.avatarFilename)}`
    : view.avatarService
      ? view.gravatar(user.email)
      : null;
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state,
    avatar_url: avatar,
    web_url: `${view.baseUrl}/${user.username}`,
  };
}

const userWithEmail = (user: Row, view: MergeRequestsView) => ({
  ...userRef(user, view),
  email: user.email,
  created_at: iso(user.createdAt),
});

/** What forgekit shows for an author whose account is gone. */
const GHOST = { id: 0, name: 'Ghost User', username: 'ghost', state: 'active', email: 'ghost@localhost', avatarFilename: null };

function taskCompletion(description: string | null) {
  if (!description) return { count: 0, completed_count: 0 };
  const tasks = description.match(/^[ \t]*(?:[-+*]|\d+[.)])[ \t]+\[[ xX]\]/gm) ?? [];
  return { count: tasks.length, completed_count: tasks.filter((task) => /\[[xX]\]$/.test(task)).length };
}

/** A merge request as lists show it (presentMergeRequestBasic), its fields in the same order. */
function presentBasic(row: Row, view: MergeRequestsView) {
  const assignees = row.assignees.map((user: Row) => userWithEmail(user, view));
  const draft = DRAFT_TITLE.test(row.title);
  const milestone = row.milestone;
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    merged_by: row.merged_by ? userRef(row.merged_by, view) : null,
    merged_at: row.merged_at ? iso(row.merged_at) : null,
    closed_by: row.closed_by ? userRef(row.closed_by, view) : null,
    closed_at: row.closed_at ? iso(row.closed_at) : null,
    target_branch: row.target_branch,
    source_branch: row.source_branch,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    author: row.author
      ? userWithEmail(row.author, view)
      : { ...userRef(GHOST, view), email: 'ghost@localhost', created_at: iso(row.created_at) },
    assignee: assignees[0] ?? null,
    assignees,
    reviewers: [],
    source_project_id: row.source_project_id,
    target_project_id: row.project_id,
    labels: row.labels,
    work_in_progress: draft,
    draft,
    milestone: milestone
      ? {
          id: milestone.id,
          iid: milestone.iid,
          ...(milestone.project_id !== null ? { project_id: milestone.project_id } : { group_id: milestone.group_id }),
          title: milestone.title,
          description: milestone.description,
          state: milestone.state,
          created_at: iso(milestone.created_at),
          updated_at: iso(milestone.updated_at),
          due_date: milestone.due_date,
          start_date: milestone.start_date,
          web_url: `${view.baseUrl}/${milestone.web_path}`,
        }
      : null,
    merge_when_pipeline_succeeds: row.merge_when_pipeline_succeeds,
    merge_status: row.merge_status,
    sha: row.head_sha,
    merge_commit_sha: row.merge_commit_sha,
    squash_commit_sha: null,
    user_notes_count: row.user_notes_count,
    discussion_locked: row.discussion_locked,
    should_remove_source_branch: row.should_remove_source_branch,
    force_remove_source_branch: row.force_remove_source_branch,
    allow_collaboration: false,
    allow_maintainer_to_push: false,
    web_url: `${view.baseUrl}/${row.project_path}/merge_requests/${row.iid}`,
    reference: `!${row.iid}`,
    // Shown from its own project: the relative reference is the short one.
    references: { short: `!${row.iid}`, relative: `!${row.iid}`, full: `${row.project_path}!${row.iid}` },
    time_stats: {
      time_estimate: row.time_estimate,
      total_time_spent: row.total_time_spent,
      human_time_estimate: formatDuration(row.time_estimate),
      human_total_time_spent: formatDuration(row.total_time_spent),
    },
    squash: false,
    task_completion_status: taskCompletion(row.description),
    has_conflicts: row.merge_status === 'cannot_be_merged',
    blocking_discussions_resolved: row.blocking_discussions_resolved,
  };
}

// ---- The repository: the changes count.

/** The most files `changes_count` counts: past it, `"1000+"`. */
const CHANGES_LIMIT = 1000;
/** How many commits' trees and trees' entries are kept (forgekit keeps 50,000 and 20,000 per repository). */
const KEPT = 20_000;

interface Entry {
  mode: string;
  oid: string;
  type: string;
}

/** A map that forgets its oldest entries past KEPT. */
class Kept<V> {
  private readonly map = new Map<string, V>();
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    if (this.map.size >= KEPT) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }
}

/** One repository's reads, with isomorphic-git's pack cache and the parsed objects kept. */
class RepositoryReads {
  private readonly gitdir: string;
  private readonly cache = {};
  private readonly commitTrees = new Kept<string>();
  private readonly trees = new Kept<Map<string, Entry>>();

  constructor(gitdir: string) {
    this.gitdir = gitdir;
  }

  async treeOf(commit: string): Promise<string> {
    let tree = this.commitTrees.get(commit);
    if (tree === undefined) {
      tree = (await git.readCommit({ fs, gitdir: this.gitdir, oid: commit, cache: this.cache })).commit.tree;
      this.commitTrees.set(commit, tree);
    }
    return tree;
  }

  async entries(tree: string): Promise<Map<string, Entry>> {
    let entries = this.trees.get(tree);
    if (!entries) {
      const read = await git.readTree({ fs, gitdir: this.gitdir, oid: tree, cache: this.cache });
      entries = new Map(read.tree.map((entry) => [entry.path, { mode: entry.mode, oid: entry.oid, type: entry.type }]));
      this.trees.set(tree, entries);
    }
    return entries;
  }

  /** How many files differ between the trees, an exact rename (a file deleted, its content added elsewhere) counted once. */
  async changesCount(oldTree: string | null, newTree: string): Promise<number> {
    const deleted: string[] = [];
    const added = new Set<string>();
    let count = 0;
    const compare = async (before: string | null, after: string | null): Promise<void> => {
      if (before === after) return;
      const old = before ? await this.entries(before) : new Map<string, Entry>();
      const next = after ? await this.entries(after) : new Map<string, Entry>();
      for (const name of new Set([...old.keys(), ...next.keys()])) {
        const a = old.get(name);
        const b = next.get(name);
        if (a && b && a.oid === b.oid && a.mode === b.mode) continue;
        const [aTree, bTree] = [a?.type === 'tree', b?.type === 'tree'];
        if (aTree || bTree) {
          if (a && !aTree) {
            count++;
            deleted.push(a.oid);
          }
          await compare(aTree ? a!.oid : null, bTree ? b!.oid : null);
          if (b && !bTree) {
            count++;
            added.add(b.oid);
          }
          continue;
        }
        count++;
        if (!a) added.add(b!.oid);
        else if (!b) deleted.push(a.oid);
      }
    };
    await compare(oldTree, newTree);
    // Each added content takes one deleted file of the same content: a rename, one change of two.
    for (const oid of deleted) if (added.delete(oid)) count--;
    return count;
  }
}

const repositories = new Map<string, RepositoryReads>();
const repositoryOf = (gitdir: string) => {
  let reads = repositories.get(gitdir);
  if (!reads) repositories.set(gitdir, (reads = new RepositoryReads(gitdir)));
  return reads;
};

// ---- The requests.

/** The project with the caller's levels (statement 1 of both requests): null when the caller may not see it. */
async function projectOf(db: SqlClient, caller: ProjectsCaller, projectId: number): Promise<Row | null> {
  const [scope] = await db.query(projectSql.one(caller.user, projectId));
  if (!scope) return null;
  const { project } = scope;
  const readable = project.visibility === 'public' || (project.visibility === 'internal' && !caller.external) || scope.access_level >= 10;
  if (!readable) return null;
  if (scope.access_level !== REPORTER) throw new Error('the bare merge requests are for reporters');
  return scope;
}

/**
 * GET /projects/:id/merge_requests: a page of the project's merge requests, newest first, and how many; null when the caller may not see
 * the project.
 */
export async function listMergeRequests(
  db: SqlClient,
  caller: ProjectsCaller,
  projectId: number,
  perPage: number,
  page: number,
  view: MergeRequestsView,
): Promise<{ items: Row[]; total: number } | null> {
  const scope = await projectOf(db, caller, projectId);
  if (!scope) return null;
  // Disabled: a list of none, with no statement.
  if (!scope.project.merge_requests_enabled) return { items: [], total: 0 };
  const [{ count }] = await db.query(mergeRequestSql.count(projectId));
  const offset = (page - 1) * perPage;
  if (count === 0 || offset >= count) return { items: [], total: count };
  const rows = await db.query(mergeRequestSql.page(projectId, perPage, offset));
  return { items: rows.map((row) => presentBasic(row, view)), total: count };
}

/**
 * GET /projects/:id/merge_requests/:iid: the merge request; null when the caller may not see the project, undefined when there is no such
 * request.
 */
export async function getMergeRequest(
  db: SqlClient,
  caller: ProjectsCaller,
  projectId: number,
  iid: number,
  view: MergeRequestsView,
): Promise<Row | null | undefined> {
  const scope = await projectOf(db, caller, projectId);
  if (!scope) return null;
  const [facts] = await db.query(mergeRequestSql.facts(projectId, iid));
  if (!facts) return undefined;
  if (!scope.project.merge_requests_enabled)
    throw new Error('the bare GET /merge_requests/:iid is for projects with merge requests enabled');
  const [row] = await db.query(mergeRequestSql.one(facts.id));
  if (row.state === 'opened' && row.head_sha && row.start_sha && (row.base_sha === null || row.merge_status === 'unchecked')) {
    throw new Error(`merge request ${iid}: its merge base and status are still to be worked out`);
  }
  let changes: number | null = null;
  if (row.base_sha !== null && row.head_sha !== null) {
    const repo = repositoryOf(view.repositoryPath(projectId));
    const [baseTree, headTree] = await Promise.all([repo.treeOf(row.base_sha), repo.treeOf(row.head_sha)]);
    changes = await repo.changesCount(baseTree, headTree);
  }
  const [pipeline] =
    row.source_project_id !== null && row.head_sha ? await db.query(mergeRequestSql.pipeline(row.source_project_id, row.head_sha)) : [];
  if (pipeline && row.source_project_id !== projectId)
    throw new Error('the bare GET /merge_requests/:iid shows pipelines of the same project only');
  const [choice] = await db.query(mergeRequestSql.subscription(row.id, caller.user));
  const subscribed = choice
    ? Boolean(choice.subscribed)
    : Boolean((await db.query(mergeRequestSql.participates(row.id, caller.user)))[0].participates);
  // A reporter merges nothing (no protection lets a level below a developer's push or merge); the protections are read all the same.
  if (row.state === 'opened') await db.query(mergeRequestSql.protections(projectId));
  const canMerge = row.state === 'opened' && scope.access_level >= DEVELOPER;
  const webPath = `${scope.namespace.full_path}/${scope.project.path}`;
  return {
    ...presentBasic(row, view),
    subscribed,
    changes_count: changes === null ? null : `${Math.min(changes, CHANGES_LIMIT)}${changes > CHANGES_LIMIT ? '+' : ''}`,
    merge_user: row.merge_user ? userRef(row.merge_user, view) : null,
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    pipeline: pipeline ? { ...pipeline, ref: pipeline.ref ?? '', web_url: `${view.baseUrl}/${webPath}/pipelines/${pipeline.id}` } : null,
    head_pipeline: null,
    diff_refs: row.head_sha ? { base_sha: row.base_sha, head_sha: row.head_sha, start_sha: row.start_sha } : null,
    merge_error: null,
    first_contribution: false,
    user: { can_merge: canMerge },
    approvals_before_merge: null,
  };
}
