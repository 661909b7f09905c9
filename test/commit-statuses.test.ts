import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/rows.js';
import { sql } from '../src/db/sql.js';
import { BadRequestError, NotFoundError } from '../src/errors.js';
import { compositeStatus, pipelineTransition, type LatestStatus } from '../src/services/repository/commit-statuses.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { createUser, pageHeaders, queriesOf, type SharedHosting, sharedHosting, userReference } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let developer: User;
let reporter: User;
let stranger: User;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  [owner, developer, reporter, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

const statusUrl = (id: number, sha: string) => `/api/v4/projects/${id}/statuses/${encodeURIComponent(sha)}`;
const statusesUrl = (id: number, sha: string) => `/api/v4/projects/${id}/repository/commits/${encodeURIComponent(sha)}/statuses`;

/** A project with one commit on master; its developer and reporter are members. */
async function project(visibility: 'private' | 'public' = 'private'): Promise<{ id: number; sha: string }> {
  const api = t.hosting.as(owner.id);
  const { id } = await api.projects.create({ name: `Statuses ${Math.random().toString(36).slice(2)}`, visibility });
  await api.projectMembers.add(id, { user_id: developer.id, access_level: 30 });
  await api.projectMembers.add(id, { user_id: reporter.id, access_level: 20 });
  const commit = await api.commits.create(id, {
    branch: 'master',
    commit_message: 'First',
    actions: [{ action: 'create', file_path: 'README.md', content: 'hello\n' }],
  });
  return { id, sha: commit.id };
}

const post = (id: number, sha: string, body: Record<string, unknown>, user: User = developer) =>
  t.http.post(statusUrl(id, sha)).set('PRIVATE-TOKEN', user.token).send(body);

const reference = (user: User) => userReference(user, 'http://forge.test');

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /projects/:id/statuses/:sha', () => {
  it('answers 201 with the status, on the ref given, in the commit’s pipeline for that ref', async () => {
    const { id, sha } = await project();
    const res = await post(id, sha, {
      state: 'success',
      ref: 'master',
      name: 'ci/build',
      target_url: 'https://ci.example.com/1',
      description: 'Passed',
      coverage: 87.5,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      sha,
      ref: 'master',
      status: 'success',
      name: 'ci/build',
      target_url: 'https://ci.example.com/1',
      description: 'Passed',
      created_at: res.body.created_at,
      started_at: null,
      finished_at: res.body.finished_at,
      allow_failure: false,
      coverage: 87.5,
      author: reference(developer),
      pipeline_id: res.body.pipeline_id,
    });
    expect([res.body.created_at, res.body.finished_at]).toEqual([expect.stringMatching(ISO), expect.stringMatching(ISO)]);
    const commit = await t.http.get(`/api/v4/projects/${id}/repository/commits/${sha}`).set('PRIVATE-TOKEN', reporter.token);
    expect([commit.body.status, commit.body.last_pipeline]).toEqual([
      'success',
      { id: res.body.pipeline_id, ref: 'master', sha, status: 'success' },
    ]);
  });

  it('names the status by `name`, else `context`, else `default`; takes a branch name or an abbreviated SHA for the commit', async () => {
    const { id, sha } = await project();
    const names = [];
    for (const body of [{ name: 'n', context: 'c' }, { context: 'c' }, {}])
      names.push((await post(id, sha, { state: 'success', ...body })).body.name);
    expect(names).toEqual(['n', 'c', 'default']);
    const byBranch = await post(id, 'master', { state: 'pending', name: 'by-branch' });
    const byPrefix = await post(id, sha.slice(0, 8), { state: 'pending', name: 'by-prefix' });
    expect([byBranch.status, byBranch.body.sha, byPrefix.status, byPrefix.body.sha]).toEqual([201, sha, 201, sha]);
  });

  it('files a status given no ref under the first branch, by name, that has the commit; 404 when none has it', async () => {
    const { id, sha } = await project();
    const api = t.hosting.as(owner.id);
    await api.branches.create(id, { branch: 'zeta', ref: 'master' });
    await api.branches.create(id, { branch: 'alpha', ref: 'master' });
    const onFeature = await api.commits.create(id, {
      branch: 'feature',
      start_branch: 'master',
      commit_message: 'F',
      actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }],
    });
    expect((await post(id, sha, { state: 'success' })).body.ref).toBe('alpha');
    expect((await post(id, onFeature.id, { state: 'success' })).body.ref).toBe('feature');
    // A commit no branch has (its branch deleted): only a ref given files it.
    const lost = await api.commits.create(id, {
      branch: 'lost',
      start_branch: 'master',
      commit_message: 'L',
      actions: [{ action: 'create', file_path: 'l.txt', content: 'l' }],
    });
    await api.branches.delete(id, 'lost');
    const none = await post(id, lost.id, { state: 'success' });
    expect([none.status, none.body]).toEqual([404, { message: '404 References for commit Not Found' }]);
    expect((await post(id, lost.id, { state: 'success', ref: 'lost' })).status).toBe(201);
  });

  it('updates the caller’s pending or running status of that name; a finished one is followed by a new status', async () => {
    const { id, sha } = await project();
    const pending = await post(id, sha, {
      state: 'pending',
      name: 'ci',
      ref: 'master',
      description: 'Queued',
      target_url: 'https://ci.example.com/7',
      coverage: 10,
    });
    expect([pending.body.status, pending.body.started_at, pending.body.finished_at]).toEqual(['pending', null, null]);
    const running = await post(id, sha, { state: 'running', name: 'ci', ref: 'master', description: 'Running' });
    expect([running.body.id, running.body.status, running.body.started_at, running.body.finished_at]).toEqual([
      pending.body.id,
      'running',
      expect.stringMatching(ISO),
      null,
    ]);
    const success = await post(id, sha, { state: 'success', name: 'ci', ref: 'master', coverage: 90.25 });
    expect(success.body).toEqual({
      ...running.body,
      status: 'success',
      description: 'Running',
      target_url: 'https://ci.example.com/7',
      coverage: 90.25,
      finished_at: expect.stringMatching(ISO),
    });
    // Finished: the next post of the name is a new status, the latest of its name.
    const again = await post(id, sha, { state: 'pending', name: 'ci', ref: 'master' });
    expect([again.status, again.body.id > success.body.id, again.body.pipeline_id, again.body.description]).toEqual([
      201,
      true,
      success.body.pipeline_id,
      null,
    ]);
    const latest = await t.http.get(statusesUrl(id, sha)).set('PRIVATE-TOKEN', reporter.token);
    expect(latest.body.map((status: { id: number }) => status.id)).toEqual([again.body.id]);
    // Another user's status of the same name is its own.
    const owners = await post(id, sha, { state: 'pending', name: 'ci', ref: 'master' }, owner);
    expect([owners.status, owners.body.id > again.body.id, owners.body.author.id]).toEqual([201, true, owner.id]);
  });

  it('refuses the transitions the original refuses, with its words, and changes nothing', async () => {
    const { id, sha } = await project();
    const at = (state: string, description?: string) =>
      post(id, sha, { state, name: 'ci', ref: 'master', ...(description ? { description } : {}) });
    expect((await at('pending', 'first')).status).toBe(201);
    expect([(await at('pending')).status, (await at('pending')).body]).toEqual([400, { message: REFUSALS.enqueueFromPending }]);
    expect((await at('running')).status).toBe(201);
    for (const [state, message] of [
      ['running', REFUSALS.runFromRunning],
      ['pending', REFUSALS.enqueueFromRunning],
    ]) {
      const res = await at(state, 'changed');
      expect([state, res.status, res.body]).toEqual([state, 400, { message }]);
    }
    const [status] = (await t.http.get(statusesUrl(id, sha)).set('PRIVATE-TOKEN', reporter.token)).body;
    expect([status.status, status.description]).toEqual(['running', 'first']);
    await expect(
      t.hosting.as(developer.id).commitStatuses.create(id, sha, { state: 'running', name: 'ci', ref: 'master' }),
    ).rejects.toThrow(BadRequestError);
    for (const state of ['success', 'failed', 'canceled']) {
      // A finished status takes anything: it is followed by a new one.
      expect((await at(state)).status).toBe(201);
    }
  });

  it('answers 400 for a missing or invalid state, name, URL or coverage, and 404 for an unknown commit', async () => {
    const { id, sha } = await project();
    const cases: [Record<string, unknown>, unknown][] = [
      [{}, '400 (Bad request) "state" not given'],
      [{ state: 'done' }, { state: ['does not have a valid value'] }],
      [{ state: 'created' }, { state: ['does not have a valid value'] }],
      [{ state: 'success', coverage: 100.5 }, { coverage: ['must be less than or equal to 100'] }],
      [{ state: 'success', coverage: -1 }, { coverage: ['must be greater than or equal to 0'] }],
      [{ state: 'success', coverage: 'most' }, { coverage: ['is invalid'] }],
      [{ state: 'success', target_url: 'not a url' }, { target_url: ['must be a valid URL'] }],
      [{ state: 'success', target_url: 'ftp://ci.example.com/1' }, { target_url: ['must be a valid URL'] }],
      [
        { state: 'success', target_url: `https://ci.example.com/${'x'.repeat(250)}` },
        { target_url: ['is too long (maximum is 255 characters)'] },
      ],
      [{ state: 'success', name: ' ' }, { name: ["can't be blank"] }],
    ];
    for (const [body, message] of cases) {
      const res = await post(id, sha, body);
      expect([JSON.stringify(body), res.status, res.body]).toEqual([JSON.stringify(body), 400, { message }]);
    }
    for (const unknown of ['f'.repeat(40), 'no-such-branch']) {
      const res = await post(id, unknown, { state: 'success' });
      expect([res.status, res.body]).toEqual([404, { message: '404 Commit Not Found' }]);
    }
    await expect(t.hosting.as(developer.id).commitStatuses.create(id, 'f'.repeat(40), { state: 'success' })).rejects.toThrow(NotFoundError);
    expect(await t.hosting.commitStatuses.list(id, sha, { all: true })).toEqual([]);
  });

  it(
    'takes `pipeline_id` (later clients): that pipeline of the commit, ' + 'whose ref is the default; another ID makes a new pipeline',
    async () => {
      const { id, sha } = await project();
      const first = await post(id, sha, { state: 'success', ref: 'master', name: 'a' });
      const named = await post(id, sha, { state: 'failed', name: 'b', pipeline_id: first.body.pipeline_id });
      expect([named.body.pipeline_id, named.body.ref]).toEqual([first.body.pipeline_id, 'master']);
      const other = await post(id, sha, { state: 'success', name: 'c', ref: 'master', pipeline_id: first.body.pipeline_id + 1000 });
      expect(other.body.pipeline_id).not.toBe(first.body.pipeline_id);
    },
  );

  it('lets developers post, not reporters; a private project is 404 to a stranger; anonymous callers must sign in', async () => {
    const { id, sha } = await project();
    expect((await post(id, sha, { state: 'success' }, reporter)).body).toEqual({ message: '403 Forbidden' });
    expect((await post(id, sha, { state: 'success' }, reporter)).status).toBe(403);
    const hidden = await post(id, sha, { state: 'success' }, stranger);
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const open = await project('public');
    expect((await post(open.id, open.sha, { state: 'success' }, stranger)).status).toBe(403);
    const anonymous = await t.http.post(statusUrl(open.id, open.sha)).send({ state: 'success' });
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });
});

describe('the pipeline a commit’s statuses make', () => {
  const commitOf = async (id: number, sha: string) =>
    (await t.http.get(`/api/v4/projects/${id}/repository/commits/${sha}`).set('PRIVATE-TOKEN', reporter.token)).body;
  const pipelineRow = async (pipelineId: number) =>
    (await queryRows(t.db.rows, sql`select "status", "started_at", "finished_at" from "pipelines" where "id" = ${pipelineId}`))[0] as {
      status: string;
      started_at: string | null;
      finished_at: string | null;
    };

  it('is the composite of its latest statuses, kept in the commit’s `status` and `last_pipeline`', async () => {
    const { id, sha } = await project();
    const steps: [Record<string, unknown>, string][] = [
      [{ name: 'build', state: 'pending' }, 'pending'],
      [{ name: 'test', state: 'pending' }, 'pending'],
      [{ name: 'build', state: 'running' }, 'running'],
      [{ name: 'build', state: 'success' }, 'running'],
      [{ name: 'test', state: 'failed' }, 'failed'],
      // A new status of the name replaces the failed one in the composite.
      [{ name: 'test', state: 'success' }, 'success'],
      // A new pending status makes a finished pipeline run again.
      [{ name: 'deploy', state: 'pending' }, 'running'],
      [{ name: 'deploy', state: 'canceled' }, 'canceled'],
      [{ name: 'deploy', state: 'success' }, 'success'],
    ];
    let pipelineId = 0;
    for (const [body, expected] of steps) {
      const res = await post(id, sha, { ref: 'master', ...body });
      pipelineId = res.body.pipeline_id;
      const commit = await commitOf(id, sha);
      expect([JSON.stringify(body), res.status, commit.status, commit.last_pipeline]).toEqual([
        JSON.stringify(body),
        201,
        expected,
        { id: pipelineId, ref: 'master', sha, status: expected },
      ]);
    }
    const row = await pipelineRow(pipelineId);
    expect([row.status, row.started_at !== null, row.finished_at !== null]).toEqual(['success', true, true]);
  });

  it('sets the pipeline’s start when it first runs and its end when it finishes', async () => {
    const { id, sha } = await project();
    const pending = await post(id, sha, { ref: 'master', name: 'a', state: 'pending' });
    expect(await pipelineRow(pending.body.pipeline_id)).toEqual({ status: 'pending', started_at: null, finished_at: null });
    await post(id, sha, { ref: 'master', name: 'a', state: 'running' });
    const running = await pipelineRow(pending.body.pipeline_id);
    expect([running.status, running.started_at !== null, running.finished_at]).toEqual(['running', true, null]);
    await post(id, sha, { ref: 'master', name: 'a', state: 'failed' });
    const failed = await pipelineRow(pending.body.pipeline_id);
    expect([failed.status, failed.started_at, failed.finished_at !== null]).toEqual(['failed', running.started_at, true]);
  });

  it('leaves out failures that are allowed', async () => {
    const { id, sha } = await project();
    const lint = await post(id, sha, { ref: 'master', name: 'lint', state: 'failed' });
    expect((await commitOf(id, sha)).status).toBe('failed');
    // No endpoint posts an allowed failure: the column is the original's, set here by hand.
    await queryRows(t.db.rows, sql`update "commit_statuses" set "allow_failure" = true where "id" = ${lint.body.id}`);
    await post(id, sha, { ref: 'master', name: 'build', state: 'success' });
    expect((await commitOf(id, sha)).status).toBe('success');
    const [shown] = await t.hosting.commitStatuses.list(id, sha, { name: 'lint' });
    expect([shown.status, shown.allow_failure]).toEqual(['failed', true]);
  });

  it('is one per commit and ref: the commit shows its latest pipeline', async () => {
    const { id, sha } = await project();
    await t.hosting.as(owner.id).branches.create(id, { branch: 'feature', ref: 'master' });
    const onMaster = await post(id, sha, { ref: 'master', state: 'failed' });
    const onFeature = await post(id, sha, { ref: 'feature', state: 'success' });
    expect(onFeature.body.pipeline_id).not.toBe(onMaster.body.pipeline_id);
    expect((await commitOf(id, sha)).last_pipeline).toEqual({ id: onFeature.body.pipeline_id, ref: 'feature', sha, status: 'success' });
    const again = await post(id, sha, { ref: 'master', name: 'other', state: 'success' });
    expect(again.body.pipeline_id).toBe(onMaster.body.pipeline_id);
  });

  it('takes concurrent posts for one commit and ref in turn: one pipeline, composed from all of them', async () => {
    const { id, sha } = await project();
    const api = t.hosting.as(developer.id);
    const states = ['success', 'success', 'failed', 'success', 'running', 'success', 'success', 'success', 'pending', 'success'] as const;
    const posted = await Promise.all(
      states.map((state, index) => api.commitStatuses.create(id, sha, { state, ref: 'master', name: `job-${index}` })),
    );
    expect(new Set(posted.map((status) => status.pipeline_id)).size).toBe(1);
    const pipelines = await queryRows(t.db.rows, sql`select "status" from "pipelines" where "project_id" = ${id}`);
    expect(pipelines).toEqual([{ status: 'running' }]);
  });

  it('composes as the original does', () => {
    const of = (...states: (string | [string, boolean])[]): LatestStatus[] =>
      states.map(
        (state) =>
          (Array.isArray(state) ? { status: state[0], allowFailure: state[1] } : { status: state, allowFailure: false }) as LatestStatus,
      );
    const cases: [LatestStatus[], string][] = [
      [of('success', 'success'), 'success'],
      [of('success', 'failed'), 'failed'],
      [of('success', ['failed', true]), 'success'],
      [of(['failed', true]), 'success'],
      [of(['canceled', true], 'running'), 'running'],
      [of('success', 'running'), 'running'],
      [of('success', 'pending'), 'running'],
      [of('pending', 'pending'), 'pending'],
      [of('created', 'pending'), 'pending'],
      [of('created'), 'created'],
      [of('created', 'success'), 'running'],
      [of('success', 'canceled'), 'canceled'],
      [of('canceled', 'failed'), 'failed'],
      [of('skipped'), 'skipped'],
      [of('success', 'skipped'), 'success'],
      [of('manual', 'success'), 'manual'],
      [of(), 'skipped'],
    ];
    for (const [statuses, expected] of cases)
      expect([JSON.stringify(statuses), compositeStatus(statuses)]).toEqual([JSON.stringify(statuses), expected]);
    const now = new Date(0);
    expect(pipelineTransition('created', 'running', now)).toEqual({ status: 'running', startedAt: now });
    expect(pipelineTransition('success', 'pending', now)).toEqual({ status: 'running' });
    expect(pipelineTransition('running', 'pending', now)).toEqual({ status: 'running' });
    expect(pipelineTransition('running', 'created', now)).toEqual({ status: 'running' });
    expect(pipelineTransition('running', 'failed', now)).toEqual({ status: 'failed', finishedAt: now });
  });
});

describe('GET /projects/:id/repository/commits/:sha/statuses', () => {
  it('lists the latest status of each name in each pipeline, oldest first, or all with all=true; by ref, stage and name', async () => {
    const { id, sha } = await project();
    await t.hosting.as(owner.id).branches.create(id, { branch: 'feature', ref: 'master' });
    const a1 = await post(id, sha, { ref: 'master', name: 'a', state: 'failed' });
    const b = await post(id, sha, { ref: 'master', name: 'b', state: 'success' });
    const a2 = await post(id, sha, { ref: 'master', name: 'a', state: 'success' });
    const f = await post(id, sha, { ref: 'feature', name: 'a', state: 'running' });
    const ids = async (query: Record<string, unknown>, revision = sha) =>
      (await t.http.get(statusesUrl(id, revision)).query(query).set('PRIVATE-TOKEN', reporter.token)).body.map(
        (status: { id: number }) => status.id,
      );
    expect(await ids({})).toEqual([b.body.id, a2.body.id, f.body.id]);
    expect(await ids({ all: true })).toEqual([a1.body.id, b.body.id, a2.body.id, f.body.id]);
    expect(await ids({ all: 'True' })).toEqual([a1.body.id, b.body.id, a2.body.id, f.body.id]);
    expect(await ids({ ref: 'master' })).toEqual([b.body.id, a2.body.id]);
    expect(await ids({ ref: 'feature' })).toEqual([f.body.id]);
    expect(await ids({ name: 'a', all: true })).toEqual([a1.body.id, a2.body.id, f.body.id]);
    expect(await ids({ name: 'a', ref: 'master' })).toEqual([a2.body.id]);
    expect(await ids({ stage: 'external' })).toEqual([b.body.id, a2.body.id, f.body.id]);
    expect(await ids({ stage: 'test' })).toEqual([]);
    expect(await ids({ name: '' })).toEqual([b.body.id, a2.body.id, f.body.id]);
    // The commit by branch name lists the same; another commit has none.
    expect(await ids({}, 'master')).toEqual([b.body.id, a2.body.id, f.body.id]);
    const later = await t.hosting
      .as(owner.id)
      .commits.create(id, { branch: 'master', commit_message: 'Later', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] });
    expect(await ids({}, later.id)).toEqual([]);
    const shown = await t.http.get(statusesUrl(id, sha)).query({ name: 'b' }).set('PRIVATE-TOKEN', reporter.token);
    expect(shown.body).toEqual([b.body]);
    const missing = await t.http.get(statusesUrl(id, 'f'.repeat(40))).set('PRIVATE-TOKEN', reporter.token);
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Commit Not Found' }]);
  });

  it('is paginated, and a page costs the same statements whatever its size', async () => {
    const { id, sha } = await project();
    const api = t.hosting.as(developer.id);
    for (let index = 0; index < 32; index++)
      await api.commitStatuses.create(id, sha, { state: 'success', ref: 'master', name: `job-${String(index).padStart(2, '0')}` });
    const page = await t.http.get(statusesUrl(id, sha)).query({ per_page: 5, page: 2 }).set('PRIVATE-TOKEN', reporter.token);
    expect(page.body.map((status: { name: string }) => status.name)).toEqual(['job-05', 'job-06', 'job-07', 'job-08', 'job-09']);
    expect(pageHeaders(page.headers)).toEqual({ total: 32, totalPages: 7, perPage: 5, page: 2, nextPage: 3, prevPage: 1 });
    const reader = t.hosting.as(reporter.id);
    await reader.commitStatuses.list(id, sha, { per_page: 3 });
    const small = await queriesOf(t.db, () => reader.commitStatuses.list(id, sha, { per_page: 3 }));
    const large = await queriesOf(t.db, async () => expect(await reader.commitStatuses.list(id, sha, { per_page: 30 })).toHaveLength(30));
    expect(small.filter((statement) => statement.includes('"commit_statuses"'))).toHaveLength(2);
    expect(large.length).toBe(small.length);
  });

  it('is read by reporters, by anyone for a public project, and is 404 to a stranger of a private one', async () => {
    const { id, sha } = await project();
    await post(id, sha, { state: 'success', ref: 'master' });
    expect((await t.http.get(statusesUrl(id, sha)).set('PRIVATE-TOKEN', reporter.token)).body).toHaveLength(1);
    const hidden = await t.http.get(statusesUrl(id, sha)).set('PRIVATE-TOKEN', stranger.token);
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const open = await project('public');
    await post(open.id, open.sha, { state: 'success', ref: 'master' });
    const anonymous = await t.http.get(statusesUrl(open.id, open.sha));
    expect([anonymous.status, anonymous.body.length]).toEqual([200, 1]);
  });
});

describe('a deleted author', () => {
  it('leaves its statuses, author null, whether the deletion is hard or not', async () => {
    const { id, sha } = await project();
    for (const hard of [false, true]) {
      const leaving = await createUser(t.hosting);
      await t.hosting.as(owner.id).projectMembers.add(id, { user_id: leaving.id, access_level: 30 });
      const posted = await post(id, sha, { state: 'success', ref: 'master', name: `by-${leaving.username}` }, leaving);
      await t.hosting.users.delete(leaving.id, { hard_delete: hard });
      const [shown] = await t.hosting.commitStatuses.list(id, sha, { name: `by-${leaving.username}` });
      expect([hard, shown]).toEqual([hard, { ...posted.body, author: null }]);
    }
  });
});
