/**
 * The merge requests benchmark's data (bench/requests.ts): a private project of root's, made through the API, of
 * which the reader is a reporter, and MERGE_REQUESTS merge requests written with bulk SQL, each from a branch of its
 * own that is really in the project's repository.
 *
 * The repository (native git, replacing the project's new empty one): `main`, a generated history of HISTORY
 * commits (bench/lib/history-repository.ts), and a branch `mr-<n>` for every merge request n: one commit off one of
 * main's last 20 first-parent commits (`main~(n % 20)`) adding one to three files under `changes/`; written by
 * `git fast-import`, the references packed.
 *
 * In SQL, as the issues' data set: 20 users, the project's 10 labels and 5 milestones, and the merge requests, with
 * the columns forgekit's own create writes (title, description, the heads of both branches, `force_remove_source_branch`,
 * a milestone) and those later calls write: every fourth merged (by one of the users, `merge_commit_sha` main's head:
 * a commit of the repository, not a merge of that branch), every eighth from the second closed, the rest open; of the
 * open ones four in five with their merge base (the branch's fork point) and `can_be_merged` worked out as a GET
 * leaves them, every fifth `unchecked` as created; every thirteenth a draft, a task list in every sixth description,
 * none in every fifth; each with two labels, one or two assignees (two on every third), a milestone on every third,
 * 1 to 4 notes (the first a system note on even iids; the second a resolvable thread, unresolved, on every ninth,
 * resolved on every eighteenth), thumbsup from 0 to 4 users, thumbsdown on every seventh and a heart on every tenth;
 * every 250th by a deleted author, some with an estimate or time spent, some to remove their source branch.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { HostingService } from 'forgekit';
import { sql } from '../../src/db/sql.ts';
import { writeHistoryRepository } from './history-repository.ts';
import type { SqlClient } from './sql.ts';

export const MERGE_REQUESTS = 20_000;
/** The commits of main's history. */
const HISTORY = 500;
/** How far back along main the branches leave it: `main~(n % FORK_POINTS)`. */
const FORK_POINTS = 20;
/**
 * The merge request GET /projects/:id/merge_requests/:iid reads: open, worked out, with a milestone, two assignees, an unresolved thread.
 */
export const ONE_MERGE_REQUEST = 9_999;

function git(gitdir: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd: gitdir, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr || result.status}`);
  return result.stdout.trim();
}

/**
 * The repository at `gitdir` (a new one): main's history, then the branches; main's head, and for each merge
 * request (index n - 1) its branch's head and its fork point.
 */
export async function writeMergeRequestsRepository(gitdir: string): Promise<{ main: string; heads: string[]; forks: string[] }> {
  rmSync(gitdir, { recursive: true, force: true });
  await writeHistoryRepository(gitdir, HISTORY);
  const points = git(gitdir, ['rev-list', '--first-parent', `-${FORK_POINTS}`, 'main']).split('\n');
  const marks = join(gitdir, 'bench-marks');
  const importer = spawn('git', ['fast-import', '--quiet', '--done', `--export-marks=${marks}`], {
    cwd: gitdir,
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => importer.on('close', resolve));
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const when = Date.UTC(2026, 0, 1) / 1000;
  const forks: string[] = [];
  let chunk = '';
  for (let n = 1; n <= MERGE_REQUESTS; n++) {
    const fork = points[n % FORK_POINTS];
    forks.push(fork);
    let text =
      `commit refs/heads/mr-${n}\nmark :${n}\nauthor Developer ${1 + (n % 20)} <developer${1 + (n % 20)}@example.com> ` +
      `${when + n * 3600} +0000\n`;
    text +=
      `committer Developer ${1 + (n % 20)} <developer${1 + (n % 20)}@example.com> ${when + n * 3600} ` +
      `+0000\n${data(`Change ${n}\n\nWhat merge request ${n} brings.\n`)}from ${fork}\n`;
    for (let file = 0; file <= n % 3; file++)
      text +=
        `M 100644 inline changes/${n % 100}/mr-${n}-${file}.md\n` + `${data(`# Change ${n}, part ${file}\n\nSome text of change ${n}.\n`)}`;
    chunk += text;
    if (chunk.length > 1 << 20) {
      if (!importer.stdin.write(chunk)) await new Promise((resolve) => importer.stdin.once('drain', resolve));
      chunk = '';
    }
  }
  importer.stdin.end(`${chunk}done\n`);
  const status = await exited;
  if (status !== 0) throw new Error(`git fast-import exited with ${status}`);
  git(gitdir, ['pack-refs', '--all', '--prune']);
  const byMark = new Map(
    readFileSync(marks, 'utf8')
      .trim()
      .split('\n')
      .map((line) => [Number(line.slice(1, line.indexOf(' '))), line.slice(line.indexOf(' ') + 1)]),
  );
  rmSync(marks);
  return { main: points[0], heads: Array.from({ length: MERGE_REQUESTS }, (_, index) => byMark.get(index + 1)!), forks };
}

/**
 * The project (the first of its database: its ID is `projectId`), its repository at `gitdir` (where forgekit made
 * it), the reader a reporter, and the merge requests.
 */
export async function seedMergeRequests(
  db: SqlClient,
  hosting: HostingService,
  readerId: number,
  projectId: number,
  gitdir: (id: number) => string,
): Promise<void> {
  const project = await hosting.projects.create({ name: 'Merge requests', visibility: 'private' });
  if (project.id !== projectId) throw new Error(`the merge requests' project is ${project.id}, not ${projectId}`);
  await hosting.projectMembers.add(project.id, { user_id: readerId, access_level: 20 });
  const { main, heads, forks } = await writeMergeRequestsRepository(gitdir(project.id));
  await hosting.projects.update(project.id, { default_branch: 'main' });

  const stamp = sql`timestamptz '2026-01-01 00:00:00+00'`;
  await db.query(
    sql`insert into "users" ("username", "username_lower", "name", "email", "projects_limit", "confirmed_at", "created_at", "updated_at")
     select 'developer' || n, 'developer' || n, 'Developer ' || n, 'developer' || n || '@example.com', 100000, ${stamp}, ${stamp}, ${stamp}
       from generate_series(1, 20) as n`,
  );
  await db.query(
    sql`insert into "labels" ("project_id", "title", "color", "created_at", "updated_at")
     select ${projectId}::int, t, '#428bca', ${stamp}, ${stamp}
     from unnest(array['bug', 'feature', 'documentation', 'performance', 'security', 'ui', 'backend', 'database', 'api', 'tests']) as t`,
  );
  await db.query(
    sql`insert into "milestones" ("iid", "project_id", "title", "description", "state", "due_date", "start_date", "created_at",
      "updated_at")
     select k, ${projectId}::int, 'v1.' || k, 'Release 1.' || k, case when k = 1 then 'closed' else 'active' end, '2026-0' || k || '-28',
       case when k % 2 = 0 then '2026-0' || k || '-01' end, ${stamp}, ${stamp}
     from generate_series(1, 5) as k`,
  );
  await db.query(
    sql`insert into "internal_ids" ("usage", "project_id", "last_value")
      values ('merge_requests', ${projectId}::int, ${MERGE_REQUESTS}::int), ('milestones', ${projectId}::int, 5)`,
  );
  // `u`: the 20 users' IDs; `m`: the milestones'; `h` and `f`: the branches' heads and fork points, by iid.
  const users = sql`(select array_agg("id" order by "id") as u from "users" where "username" like 'developer%') as us`;
  await db.query(
    sql`insert into "merge_requests" ("project_id", "iid", "source_project_id", "source_branch", "target_branch", "title", "description",
      "state",
       "author_id", "milestone_id", "discussion_locked", "merge_status", "head_sha", "start_sha", "base_sha", "merge_commit_sha",
         "merged_by_id", "merged_at",
       "closed_by_id", "closed_at", "should_remove_source_branch", "force_remove_source_branch", "time_estimate", "total_time_spent",
         "created_at", "updated_at")
     select ${projectId}::int, n, ${projectId}::int, 'mr-' || n, 'main',
       case when n % 13 = 0 then 'Draft: ' else '' end || 'Change ' || n || ': ' || (array['fix', 'speed up', 'document', 'test',
         'refactor'])[1 + n % 5] || ' part ' || n % 100,
       case when n % 5 = 0 then null when n % 6 = 0 then E'What change ' || n ||
         E' does.\n\n- [x] write it\n- [ ] test it\n- [ ] document it'
         else 'What merge request ' || n || ' is about, in a sentence or two.' end,
       st, case when n % 250 = 0 then null else u[1 + n % 20] end, case when n % 3 = 0 then m[1 + n % 5] end, n % 97 = 0,
       case when st = 'opened' and n % 5 = 0 then 'unchecked' else 'can_be_merged' end, h[n], ${main}, case when st = 'opened' and n % 5 = 0
         then null else f[n] end,
       case when st = 'merged' then ${main} end, case when st = 'merged' then u[1 + (n + 5) % 20] end,
       case when st = 'merged' then ${stamp} + n * interval '1 hour' + interval '1 day' end,
       case when st = 'closed' then u[1 + (n + 3) % 20] end, case when st = 'closed'
         then ${stamp} + n * interval '1 hour' + interval '2 days' end,
       case when n % 3 = 0 then true end, n % 2 = 0,
       case when n % 7 = 0 then 3600 * (n % 40) else 0 end, case when n % 11 = 0 then 1800 * (n % 13) else 0 end,
       ${stamp} + n * interval '1 hour', ${stamp} + n * interval '1 hour' + (n % 50) * interval '1 minute'
     from generate_series(1, ${MERGE_REQUESTS}::int) as n, ${users},
       (select array_agg("id" order by "iid") as m from "milestones" where "project_id" = ${projectId}) as ms,
       (select ${heads}::text[] as h, ${forks}::text[] as f) as shas,
       lateral (select case when n % 4 = 0 then 'merged' when n % 8 = 2 then 'closed' else 'opened' end as st) as states`,
  );
  // Two different labels: the second 1 to 9 after the first.
  await db.query(
    sql`insert into "label_links" ("label_id", "target_kind", "target_id", "created_at")
     select l[1 + k], 'MergeRequest', i."id", ${stamp} from "merge_requests" i, (select array_agg("id" order by "id") as l
       from "labels") as ls,
       lateral (values (i."iid" % 10), ((i."iid" % 10 + 1 + i."iid" % 9) % 10)) as v(k)`,
  );
  await db.query(
    sql`insert into "merge_request_assignees" ("merge_request_id", "user_id")
     select i."id", u[1 + (i."iid" * 3 + s) % 20] from "merge_requests" i, ${users}, generate_series(0, 7, 7) as s
       where s = 0 or i."iid" % 3 = 0
     order by i."id", s`,
  );
  // Each note a discussion of its own but the resolvable threads (`DiscussionNote`), IDs of the original's form.
  await db.query(
    sql`insert into "notes" ("project_id", "target_kind", "target_id", "author_id", "body", "system", "discussion_id", "type",
      "resolved_at", "resolved_by_id",
       "created_at", "updated_at")
     select ${projectId}::int, 'MergeRequest', i."id", u[1 + (i."iid" + k) % 20],
       case when k = 1 and i."iid" % 2 = 0 then 'added ' || (1 + i."iid" % 3) || ' commit'
         else 'Comment ' || k || ' on merge request ' || i."iid" end,
       k = 1 and i."iid" % 2 = 0, md5('merge request ' || i."id" || ' note ' || k) || substr(md5('discussion ' || i."id" || ' ' || k), 1,
         8),
       case when k = 2 and i."iid" % 9 = 0 then 'DiscussionNote' end,
       case when k = 2 and i."iid" % 18 = 0 then i."created_at" + interval '1 hour' end, case when k = 2 and i."iid" % 18 = 0
         then u[1 + i."iid" % 20] end,
       i."created_at" + k * interval '1 minute', i."created_at" + k * interval '1 minute'
     from "merge_requests" i, ${users}, generate_series(1, 4) as k where k <= 1 + i."iid" % 4 or (k = 2 and i."iid" % 9 = 0)`,
  );
  await db.query(
    sql`insert into "award_emoji" ("name", "user_id", "target_kind", "target_id", "created_at", "updated_at")
     select 'thumbsup', u[k], 'MergeRequest', i."id", ${stamp}, ${stamp} from "merge_requests" i, ${users}, generate_series(1, 4) as k
       where k <= i."iid" % 5
     union all select 'thumbsdown', u[20], 'MergeRequest', i."id", ${stamp}, ${stamp} from "merge_requests" i, ${users}
       where i."iid" % 7 = 0
     union all select 'heart', u[19], 'MergeRequest', i."id", ${stamp}, ${stamp} from "merge_requests" i, ${users} where i."iid" % 10 = 0`,
  );
  await db.query(sql`analyze`);
}
