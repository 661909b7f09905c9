import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { createUser, hasGit, pageHeaders, queriesOf, ROOT_TOKEN, type SharedHosting, sharedHosting, userReference } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let developer: User;
let reporter: User;
let stranger: User;

const BASE = 'http://forge.test';

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: BASE });
  [owner, developer, reporter, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const unique = (stem: string) => `${stem}-${process.pid}-${(counter += 1)}`;
const as = (user: User) => ({ 'PRIVATE-TOKEN': user.token });
const url = (projectId: number, rest = '') => `/api/v4/projects/${projectId}/merge_requests${rest}`;

/** A private project of the owner's with a developer and a reporter: README.md on master, and a branch `feature` adding a file. */
async function project(visibility: 'private' | 'public' = 'private') {
  const api = t.hosting.as(owner.id);
  const created = await api.projects.create({ name: unique('mr'), visibility });
  await api.projectMembers.add(created.id, { user_id: developer.id, access_level: 30 });
  await api.projectMembers.add(created.id, { user_id: reporter.id, access_level: 20 });
  await api.commits.create(created.id, {
    branch: 'master',
    commit_message: 'Initial commit',
    actions: [{ action: 'create', file_path: 'README.md', content: 'one\ntwo\nthree\n' }],
  });
  await api.commits.create(created.id, {
    branch: 'feature',
    start_branch: 'master',
    commit_message: 'Add the feature\n\nCloses #1',
    actions: [{ action: 'create', file_path: 'feature.txt', content: 'feature\n' }],
  });
  // master is protected as default_branch_protection says (maintainers only); the tests of protections make their own.
  await api.protectedBranches.delete(created.id, 'master');
  return { id: created.id, path: created.path_with_namespace, gitdir: join(t.storage, RepositoryStore.relativePath(created.id)) };
}

const git = (gitdir: string, args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args])
    .toString()
    .trim();

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SHA = /^[0-9a-f]{40}$/;

const withEmail = (user: User) => ({ ...userReference(user, BASE), email: user.email, created_at: expect.stringMatching(ISO) });

describe('POST /projects/:id/merge_requests', () => {
  it('answers 201 with every field of SPEC.md: the next iid, the source head as sha, the branches, the author with e-mail', async () => {
    const p = await project();
    const head = (await t.hosting.commits.get(p.id, 'feature')).id;
    const res = await t.http.post(url(p.id)).set(as(developer)).send({
      source_branch: 'feature',
      target_branch: 'master',
      title: 'Add a feature',
      description: 'It adds',
      labels: 'one,two',
      assignee_id: reporter.id,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      iid: 1,
      project_id: p.id,
      source_project_id: p.id,
      target_project_id: p.id,
      title: 'Add a feature',
      description: 'It adds',
      state: 'opened',
      source_branch: 'feature',
      target_branch: 'master',
      upvotes: 0,
      downvotes: 0,
      author: withEmail(developer),
      assignee: withEmail(reporter),
      assignees: [withEmail(reporter)],
      labels: ['one', 'two'],
      work_in_progress: false,
      milestone: null,
      merge_when_pipeline_succeeds: false,
      merge_status: 'can_be_merged',
      subscribed: true,
      sha: head,
      merge_commit_sha: null,
      user_notes_count: 0,
      should_remove_source_branch: null,
      force_remove_source_branch: false,
      web_url: `${BASE}/${p.path}/merge_requests/1`,
      discussion_locked: false,
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      changes_count: '1',
      user: { can_merge: true },
      merged_by: null,
      merged_at: null,
      closed_by: null,
      closed_at: null,
    });
    expect(res.body.diff_refs).toEqual({
      base_sha: (await t.hosting.commits.get(p.id, 'master')).id,
      head_sha: head,
      start_sha: (await t.hosting.commits.get(p.id, 'master')).id,
    });
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.references).toEqual({ short: '!1', relative: '!1', full: `${p.path}!1` });
    expect((await t.http.get('/api/v4/merge_requests').set(as(developer))).body[0].references.relative).toBe(`${p.path}!1`);
    // Later clients ask for the target's commits the source lacks.
    await t.hosting.as(owner.id).commits.create(p.id, {
      branch: 'master',
      commit_message: 'Ahead',
      actions: [{ action: 'create', file_path: 'ahead.txt', content: 'a\n' }],
    });
    const diverged = await t.http
      .get(url(p.id, '/1'))
      .query({ include_diverged_commits_count: true, include_rebase_in_progress: true })
      .set(as(developer));
    expect([diverged.body.diverged_commits_count, diverged.body.rebase_in_progress]).toEqual([1, false]);
  });

  it(
    'refuses the same branch (400), a branch that does not exist (400), ' + 'and a second open request of the same branches (409)',
    async () => {
      const p = await project();
      const post = (body: object) =>
        t.http
          .post(url(p.id))
          .set(as(developer))
          .send({ title: 'T', ...body });
      expect((await post({ source_branch: 'master', target_branch: 'master' })).body).toEqual({
        message: { validate_branches: ["You can't use same project/branch for source and target"] },
      });
      expect((await post({ source_branch: 'master', target_branch: 'master' })).status).toBe(400);
      const missing = await post({ source_branch: 'nothing', target_branch: 'master' });
      expect([missing.status, missing.body]).toEqual([400, { message: { source_branch: ['does not exist'] } }]);
      const missingTarget = await post({ source_branch: 'feature', target_branch: 'nothing' });
      expect([missingTarget.status, missingTarget.body]).toEqual([400, { message: { target_branch: ['does not exist'] } }]);
      expect((await post({ source_branch: 'feature', target_branch: 'master' })).status).toBe(201);
      const again = await post({ source_branch: 'feature', target_branch: 'master' });
      expect([again.status, again.body]).toEqual([
        409,
        { message: 'Another open merge request already exists for this source branch: !1' },
      ]);
      const missingTitle = await t.http.post(url(p.id)).set(as(developer)).send({ source_branch: 'feature', target_branch: 'master' });
      expect(missingTitle.status).toBe(400);
    },
  );

  it('is refused to reporters (403) and hidden from strangers (404)', async () => {
    const p = await project();
    const body = { source_branch: 'feature', target_branch: 'master', title: 'T' };
    expect((await t.http.post(url(p.id)).set(as(reporter)).send(body)).status).toBe(403);
    expect((await t.http.post(url(p.id)).set(as(stranger)).send(body)).status).toBe(404);
    expect((await t.http.post(url(p.id)).send(body)).status).toBe(401);
  });
});

describe('GET merge requests', () => {
  it('lists a project’s requests with the filters of SPEC.md, paginated', async () => {
    const p = await project();
    const api = t.hosting.as(developer.id);
    await api.commits.create(p.id, {
      branch: 'other',
      start_branch: 'master',
      commit_message: 'Other',
      actions: [{ action: 'create', file_path: 'other.txt', content: 'x\n' }],
    });
    const first = await api.mergeRequests.create(p.id, {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'First',
      labels: ['bug'],
    });
    const second = await t.hosting
      .as(owner.id)
      .mergeRequests.create(p.id, { source_branch: 'other', target_branch: 'master', title: 'WIP: Second', assignee_ids: [reporter.id] });
    await t.hosting.as(owner.id).mergeRequests.update(p.id, first.iid, { state_event: 'close' });
    const list = async (query: object) => {
      const res = await t.http.get(url(p.id)).query(query).set(as(reporter));
      expect(res.status).toBe(200);
      return res.body.map((mr: { iid: number }) => mr.iid);
    };
    expect(await list({})).toEqual([2, 1]);
    expect(await list({ state: 'opened' })).toEqual([2]);
    expect(await list({ state: 'closed' })).toEqual([1]);
    expect(await list({ sort: 'asc' })).toEqual([1, 2]);
    expect(await list({ labels: 'bug' })).toEqual([1]);
    expect(await list({ labels: 'None' })).toEqual([2]);
    expect(await list({ author_id: developer.id })).toEqual([1]);
    expect(await list({ assignee_id: reporter.id })).toEqual([2]);
    expect(await list({ assignee_id: 'None' })).toEqual([1]);
    expect(await list({ 'iids[]': 2 })).toEqual([2]);
    expect(await list({ search: 'second' })).toEqual([2]);
    expect(await list({ source_branch: 'feature' })).toEqual([1]);
    expect(await list({ wip: 'yes' })).toEqual([2]);
    expect(await list({ wip: 'no' })).toEqual([1]);
    expect(await list({ scope: 'assigned-to-me' })).toEqual([2]);
    const simple = await t.http.get(url(p.id)).query({ view: 'simple', state: 'opened' }).set(as(reporter));
    expect(simple.body).toEqual([
      {
        id: second.id,
        iid: 2,
        project_id: p.id,
        title: 'WIP: Second',
        description: null,
        state: 'opened',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        web_url: `${BASE}/${p.path}/merge_requests/2`,
      },
    ]);
    const paged = await t.http.get(url(p.id)).query({ per_page: 1 }).set(as(reporter));
    expect(pageHeaders(paged.headers)).toMatchObject({ total: 2, totalPages: 2, perPage: 1, page: 1, nextPage: 2 });
    expect(paged.headers.link).toContain('rel="next"');
    const full = (await t.http.get(url(p.id)).query({ state: 'opened' }).set(as(reporter))).body[0];
    expect(full).toMatchObject({ work_in_progress: true, assignees: [withEmail(reporter)], author: withEmail(owner) });
    // The label's count is of the open merge requests that carry it; the milestone lists its requests.
    await t.hosting.as(owner.id).mergeRequests.update(p.id, 2, { labels: ['bug'] });
    const labels = (await t.http.get(`/api/v4/projects/${p.id}/labels`).set(as(reporter))).body;
    expect(labels.find((label: { name: string }) => label.name === 'bug')).toMatchObject({ open_merge_requests_count: 1 });
    const milestone = await t.hosting.as(owner.id).milestones.create(p.id, { title: 'v1' });
    await t.hosting.as(owner.id).mergeRequests.update(p.id, 2, { milestone_id: milestone.id });
    const planned = await t.http.get(`/api/v4/projects/${p.id}/milestones/${milestone.id}/merge_requests`).set(as(reporter));
    expect([planned.status, planned.body.map((mr: { iid: number; milestone: { id: number } }) => [mr.iid, mr.milestone.id])]).toEqual([
      200,
      [[2, milestone.id]],
    ]);
    expect(await list({ milestone: 'v1' })).toEqual([2]);
  });

  it(
    'GET /merge_requests shows the caller’s own by default, ' + 'every readable one with scope=all, nothing of projects it may not read',
    async () => {
      const p = await project();
      await t.hosting
        .as(developer.id)
        .mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: unique('Mine') });
      const mine = await t.http.get('/api/v4/merge_requests').set(as(developer));
      expect(mine.body.some((mr: { project_id: number }) => mr.project_id === p.id)).toBe(true);
      const reporters = await t.http.get('/api/v4/merge_requests').set(as(reporter));
      expect(reporters.body.some((mr: { project_id: number }) => mr.project_id === p.id)).toBe(false);
      const all = await t.http.get('/api/v4/merge_requests').query({ scope: 'all' }).set(as(reporter));
      expect(all.body.some((mr: { project_id: number }) => mr.project_id === p.id)).toBe(true);
      const strangers = await t.http.get('/api/v4/merge_requests').query({ scope: 'all' }).set(as(stranger));
      expect(strangers.body.some((mr: { project_id: number }) => mr.project_id === p.id)).toBe(false);
      expect((await t.http.get('/api/v4/merge_requests')).status).toBe(401);
    },
  );

  it('answers a page of 50 in a constant number of statements', async () => {
    const p = await project();
    const api = t.hosting.as(developer.id);
    for (let i = 0; i < 5; i++) {
      await api.branches.create(p.id, { branch: `b${i}`, ref: 'feature' });
      await api.mergeRequests.create(p.id, {
        source_branch: `b${i}`,
        target_branch: 'master',
        title: `MR ${i}`,
        labels: ['x'],
        assignee_ids: [reporter.id],
      });
    }
    const few = await queriesOf(t.db, () => t.http.get(url(p.id)).query({ per_page: 2 }).set(as(reporter)));
    const many = await queriesOf(t.db, () => t.http.get(url(p.id)).query({ per_page: 50 }).set(as(reporter)));
    expect(many.length).toBe(few.length);
  });

  it('one request: 404 for an unknown iid, for a stranger, and for reporters of a project whose merge requests are disabled', async () => {
    const p = await project();
    const { iid } = await t.hosting
      .as(developer.id)
      .mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'T' });
    expect((await t.http.get(url(p.id, `/${iid}`)).set(as(reporter))).status).toBe(200);
    expect((await t.http.get(url(p.id, '/99')).set(as(reporter))).body).toEqual({ message: '404 Merge Request Not Found' });
    expect((await t.http.get(url(p.id, `/${iid}`)).set(as(stranger))).status).toBe(404);
    await t.hosting.as(owner.id).projects.update(p.id, { merge_requests_enabled: false });
    expect((await t.http.get(url(p.id, `/${iid}`)).set(as(reporter))).status).toBe(404);
  });
});

describe('commits and changes', () => {
  it('lists the source branch’s commits the target lacks, newest first, and the changes from the merge base', async () => {
    const p = await project();
    const api = t.hosting.as(developer.id);
    await api.commits.create(p.id, {
      branch: 'feature',
      commit_message: 'Change the readme',
      actions: [{ action: 'update', file_path: 'README.md', content: 'one\n2\nthree\n' }],
    });
    // The target moves on too: its commit is no part of the request.
    await api.commits.create(p.id, {
      branch: 'master',
      commit_message: 'On master',
      actions: [{ action: 'create', file_path: 'master.txt', content: 'm\n' }],
    });
    const { iid } = await api.mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'T' });
    const commits = await t.http.get(url(p.id, `/${iid}/commits`)).set(as(reporter));
    expect(commits.status).toBe(200);
    expect(commits.body.map((commit: { title: string }) => commit.title)).toEqual(['Change the readme', 'Add the feature']);
    expect(commits.body[0]).toMatchObject({
      id: expect.stringMatching(SHA),
      short_id: expect.any(String),
      author_name: expect.any(String),
      author_email: developer.email,
      created_at: expect.any(String),
      message: 'Change the readme\n',
    });
    const changes = await t.http.get(url(p.id, `/${iid}/changes`)).set(as(reporter));
    expect(changes.status).toBe(200);
    expect(changes.body.changes.map((change: { new_path: string }) => change.new_path).sort()).toEqual(['README.md', 'feature.txt']);
    expect(changes.body.changes.find((change: { new_path: string }) => change.new_path === 'README.md')).toMatchObject({
      diff: '@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n',
      new_file: false,
    });
    expect(changes.body.changes_count).toBe('2');
  });

  it('follow the source branch when it moves (sha, diff_refs, merge status), through the one event of a moving branch', async () => {
    const p = await project();
    const api = t.hosting.as(developer.id);
    const { iid } = await api.mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'T' });
    const moved = await api.commits.create(p.id, {
      branch: 'feature',
      commit_message: 'More',
      actions: [{ action: 'update', file_path: 'README.md', content: 'changed on feature\n' }],
    });
    const listed = (await t.http.get(url(p.id)).set(as(reporter))).body[0];
    expect([listed.sha, listed.merge_status]).toEqual([moved.id, 'unchecked']);
    // A change of master to the same line: now a conflict.
    const master = await api.commits.create(p.id, {
      branch: 'master',
      commit_message: 'Conflict',
      actions: [{ action: 'update', file_path: 'README.md', content: 'changed on master\n' }],
    });
    const one = (await t.http.get(url(p.id, `/${iid}`)).set(as(reporter))).body;
    expect([one.sha, one.merge_status, one.diff_refs.head_sha, one.diff_refs.start_sha]).toEqual([
      moved.id,
      'cannot_be_merged',
      moved.id,
      master.id,
    ]);
    const merge = await t.http.put(url(p.id, `/${iid}/merge`)).set(as(developer));
    expect([merge.status, merge.body]).toEqual([405, { message: 'Branch cannot be merged' }]);
  });
});

describe('PUT merge requests', () => {
  it('needs one attribute (400), changes the title, closes and reopens with system notes', async () => {
    const p = await project();
    const { iid } = await t.hosting
      .as(developer.id)
      .mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'T' });
    expect(
      (
        await t.http
          .put(url(p.id, `/${iid}`))
          .set(as(developer))
          .send({})
      ).status,
    ).toBe(400);
    const closed = await t.http
      .put(url(p.id, `/${iid}`))
      .set(as(developer))
      .send({ state_event: 'close', title: 'Renamed' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      state: 'closed',
      title: 'Renamed',
      closed_by: { id: developer.id },
      closed_at: expect.stringMatching(ISO),
    });
    const reopened = await t.http
      .put(url(p.id, `/${iid}`))
      .set(as(developer))
      .send({ state_event: 'reopen' });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_by: null, closed_at: null });
    expect(
      (
        await t.http
          .put(url(p.id, `/${iid}`))
          .set(as(reporter))
          .send({ title: 'No' })
      ).status,
    ).toBe(403);
  });
});

describe('PUT .../merge', () => {
  it(
    'makes a real merge commit on the target branch (two parents, ' + 'the original’s message) and removes the source branch when asked',
    async () => {
      const p = await project();
      const api = t.hosting.as(developer.id);
      const issue = await t.hosting.as(owner.id).issues.create(p.id, { title: 'To close' });
      await api.commits.create(p.id, {
        branch: 'master',
        commit_message: 'Master moves on',
        actions: [{ action: 'create', file_path: 'master.txt', content: 'm\n' }],
      });
      const { iid } = await api.mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'Add a feature' });
      const start = (await t.hosting.commits.get(p.id, 'master')).id;
      const head = (await t.hosting.commits.get(p.id, 'feature')).id;
      expect((await t.http.put(url(p.id, `/${iid}/merge`)).set(as(reporter))).status).toBe(401);
      const wrongSha = await t.http
        .put(url(p.id, `/${iid}/merge`))
        .set(as(developer))
        .send({ sha: start });
      expect([wrongSha.status, wrongSha.body]).toEqual([409, { message: 'SHA does not match HEAD of source branch' }]);
      const res = await t.http
        .put(url(p.id, `/${iid}/merge`))
        .set(as(developer))
        .send({ sha: head, should_remove_source_branch: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        state: 'merged',
        merged_by: { id: developer.id },
        merged_at: expect.stringMatching(ISO),
        merge_commit_sha: expect.stringMatching(SHA),
        should_remove_source_branch: true,
      });
      const merge = await t.hosting.commits.get(p.id, 'master');
      expect(merge.id).toBe(res.body.merge_commit_sha);
      expect(merge.parent_ids).toEqual([start, head]);
      expect(merge.message).toBe(
        `Merge branch 'feature' into 'master'\n\nAdd a feature\n\nCloses #${issue.iid}\n\nSee merge request ${p.path}!${iid}\n`,
      );
      expect((await t.http.get(`/api/v4/projects/${p.id}/repository/branches/feature`).set(as(developer))).status).toBe(404);
      // The issue its commit closes is closed, with a note naming the request.
      expect((await t.hosting.issues.get(p.id, issue.iid)).state).toBe('closed');
      const notes = await t.hosting.issueNotes.list(p.id, issue.iid);
      expect(notes.map((note) => note.body)).toContain(`closed via merge request !${iid}`);
      // Merged: 406 from then on.
      const again = await t.http.put(url(p.id, `/${iid}/merge`)).set(as(developer));
      expect([again.status, again.body]).toEqual([406, { message: 'Method Not Allowed' }]);
      if (hasGit) {
        expect(git(p.gitdir, ['rev-list', '--parents', '-n', '1', 'master'])).toBe(`${merge.id} ${start} ${head}`);
        execFileSync('git', ['--git-dir', p.gitdir, 'fsck', '--full']);
        expect(git(p.gitdir, ['show', 'master:feature.txt'])).toBe('feature');
      }
    },
  );

  it('merges once under ten concurrent calls: the others answer 406', async () => {
    const p = await project();
    const { iid } = await t.hosting
      .as(developer.id)
      .mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'Race' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => t.http.put(url(p.id, `/${iid}/merge`)).set(as(developer))));
    expect(answers.map((res) => res.status).sort()).toEqual([200, ...Array(9).fill(406)]);
    const master = await t.hosting.commits.get(p.id, 'master');
    expect(master.parent_ids).toHaveLength(2);
    expect((await t.hosting.repository.compare(p.id, { from: master.parent_ids[0], to: 'master' })).commits).toHaveLength(2);
  });

  it('keeps a commit to the target branch made during a merge: both land, or the merge answers its error', async () => {
    const p = await project();
    const api = t.hosting.as(developer.id);
    const { iid } = await api.mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'Race' });
    const [merged, committed] = await Promise.allSettled([
      api.mergeRequests.merge(p.id, iid, {}),
      api.commits.create(p.id, {
        branch: 'master',
        commit_message: 'Meanwhile',
        actions: [{ action: 'create', file_path: 'meanwhile.txt', content: 'm\n' }],
      }),
    ]);
    expect(committed.status).toBe('fulfilled');
    const tree = (await t.hosting.repository.tree(p.id, { ref: 'master' })).map((entry) => entry.name);
    expect(tree).toContain('meanwhile.txt');
    if (merged.status === 'fulfilled') expect(tree).toContain('feature.txt');
  });

  it('is refused on a draft (405) and on protected targets to developers whose protection does not let them merge (401)', async () => {
    const p = await project();
    const api = t.hosting.as(developer.id);
    const draft = await api.mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'Draft: not yet' });
    expect((await t.http.put(url(p.id, `/${draft.iid}/merge`)).set(as(developer))).status).toBe(405);
    await t.http
      .put(url(p.id, `/${draft.iid}`))
      .set(as(developer))
      .send({ title: 'Ready' });
    await t.hosting.as(owner.id).protectedBranches.create(p.id, { name: 'master', push_access_level: 40, merge_access_level: 40 });
    expect((await t.http.put(url(p.id, `/${draft.iid}/merge`)).set(as(developer))).status).toBe(401);
    expect((await t.http.get(url(p.id, `/${draft.iid}`)).set(as(developer))).body.user).toEqual({ can_merge: false });
    expect((await t.http.put(url(p.id, `/${draft.iid}/merge`)).set(as(owner))).status).toBe(200);
  });
});

describe('closes_issues, subscriptions, delete', () => {
  it('lists the open issues the description and commits close, that the caller may read', async () => {
    const p = await project();
    const api = t.hosting.as(owner.id);
    const [one, two, three] = [
      await api.issues.create(p.id, { title: 'One' }),
      await api.issues.create(p.id, { title: 'Two' }),
      await api.issues.create(p.id, { title: 'Three' }),
    ];
    await api.issues.update(p.id, three.iid, { state_event: 'close' });
    const { iid } = await api.mergeRequests.create(p.id, {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'T',
      description: `Fixes #${two.iid} and #${three.iid}; see #99`,
    });
    const res = await t.http.get(url(p.id, `/${iid}/closes_issues`)).set(as(reporter));
    expect(res.status).toBe(200);
    expect(res.body.map((issue: { iid: number }) => issue.iid)).toEqual([two.iid, one.iid]);
  });

  it('subscribes (304 twice) and is deleted by owners only', async () => {
    const p = await project();
    const { iid } = await t.hosting
      .as(developer.id)
      .mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'T' });
    expect((await t.http.post(url(p.id, `/${iid}/subscribe`)).set(as(reporter))).body.subscribed).toBe(true);
    expect((await t.http.post(url(p.id, `/${iid}/subscribe`)).set(as(reporter))).status).toBe(304);
    expect((await t.http.post(url(p.id, `/${iid}/unsubscribe`)).set(as(reporter))).body.subscribed).toBe(false);
    expect((await t.http.delete(url(p.id, `/${iid}`)).set(as(developer))).status).toBe(403);
    expect((await t.http.delete(url(p.id, `/${iid}`)).set(as(owner))).status).toBe(204);
    expect((await t.http.get(url(p.id, `/${iid}`)).set(as(owner))).status).toBe(404);
    expect((await t.http.get(url(p.id)).set({ 'PRIVATE-TOKEN': ROOT_TOKEN })).body).toEqual([]);
  });
});

describe('from a fork', () => {
  it('opens into the upstream only, and merges: the fork’s commits in the upstream repository, checked by native git', async () => {
    const upstream = await project('public');
    const forker = await createUser(t.hosting);
    const fork = await t.hosting.as(forker.id).projects.fork(upstream.id, {});
    await t.hosting.backgroundJobs.drain();
    const forkApi = t.hosting.as(forker.id);
    await forkApi.commits.create(fork.id, {
      branch: 'fix',
      start_branch: 'master',
      commit_message: 'A fix from the fork',
      actions: [{ action: 'create', file_path: 'fix/deep/fix.txt', content: 'fixed\n' }],
    });
    const other = await t.hosting.as(owner.id).projects.create({ name: unique('other'), visibility: 'public' });
    const refused = await t.http
      .post(url(fork.id))
      .set(as(forker))
      .send({ source_branch: 'fix', target_branch: 'master', title: 'T', target_project_id: other.id });
    expect([refused.status, refused.body]).toEqual([
      400,
      { message: { validate_fork: ['Source project is not a fork of the target project'] } },
    ]);
    const created = await t.http
      .post(url(fork.id))
      .set(as(forker))
      .send({ source_branch: 'fix', target_branch: 'master', title: 'A fix', target_project_id: upstream.id });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      project_id: upstream.id,
      source_project_id: fork.id,
      target_project_id: upstream.id,
      merge_status: 'can_be_merged',
      changes_count: '1',
    });
    const iid = created.body.iid;
    expect(
      (await t.http.get(url(upstream.id, `/${iid}/commits`)).set(as(reporter))).body.map((commit: { title: string }) => commit.title),
    ).toEqual(['A fix from the fork']);
    // The forker may not merge into the upstream; its developer may.
    expect((await t.http.put(url(upstream.id, `/${iid}/merge`)).set(as(forker))).status).toBe(401);
    const merged = await t.http.put(url(upstream.id, `/${iid}/merge`)).set(as(developer));
    expect(merged.status).toBe(200);
    const master = await t.hosting.commits.get(upstream.id, 'master');
    expect(master.parent_ids).toHaveLength(2);
    if (hasGit) {
      execFileSync('git', ['--git-dir', upstream.gitdir, 'fsck', '--full']);
      expect(git(upstream.gitdir, ['show', 'master:fix/deep/fix.txt'])).toBe('fixed');
      expect(git(upstream.gitdir, ['rev-list', '--parents', '-n', '1', 'master']).split(' ')).toHaveLength(3);
    }
  });
});

describe('discussions', () => {
  it(
    'threads notes, resolves them (the author and developers), blocks the merge until resolved when the project asks, ' +
      'and follows up in an issue',
    async () => {
      const p = await project();
      const api = t.hosting.as(developer.id);
      await t.hosting.as(owner.id).projects.update(p.id, { only_allow_merge_if_all_discussions_are_resolved: true });
      const { iid } = await api.mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'Discussed' });
      const discussions = (rest = '') => url(p.id, `/${iid}/discussions${rest}`);
      const started = await t.http.post(discussions()).set(as(reporter)).send({ body: 'Why this?' });
      expect(started.status).toBe(201);
      expect(started.body).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{40}$/),
        individual_note: false,
        notes: [{ body: 'Why this?', type: 'DiscussionNote', resolvable: true, resolved: false, resolved_by: null }],
      });
      const id = started.body.id;
      const reply = await t.http
        .post(discussions(`/${id}/notes`))
        .set(as(developer))
        .send({ body: 'Because.' });
      expect([reply.status, reply.body.type, reply.body.resolvable]).toEqual([201, 'DiscussionNote', true]);
      // A note of its own is a discussion of its own.
      await api.mergeRequestNotes.create(p.id, iid, { body: 'Plain note' });
      const listed = await t.http.get(discussions()).set(as(reporter));
      expect(
        listed.body.map((discussion: { individual_note: boolean; notes: unknown[] }) => [
          discussion.individual_note,
          discussion.notes.length,
        ]),
      ).toEqual([
        [false, 2],
        [true, 1],
      ]);
      expect((await t.http.get(url(p.id, `/${iid}`)).set(as(reporter))).body.blocking_discussions_resolved).toBe(false);
      expect((await t.http.put(url(p.id, `/${iid}/merge`)).set(as(developer))).status).toBe(405);
      // Reporters may not resolve; the author and developers may.
      expect(
        (
          await t.http
            .put(discussions(`/${id}`))
            .set(as(reporter))
            .send({ resolved: true })
        ).status,
      ).toBe(403);
      const resolved = await t.http
        .put(discussions(`/${id}`))
        .set(as(developer))
        .send({ resolved: true });
      expect(resolved.status).toBe(200);
      expect(
        resolved.body.notes.every(
          (note: { resolved: boolean; resolved_by: { id: number } }) => note.resolved && note.resolved_by.id === developer.id,
        ),
      ).toBe(true);
      const unresolved = await t.http
        .put(discussions(`/${id}/notes/${reply.body.id}`))
        .set(as(developer))
        .send({ resolved: false });
      expect([unresolved.status, unresolved.body.resolved]).toEqual([200, false]);
      expect((await t.http.get(discussions('/0000000000000000000000000000000000000000')).set(as(reporter))).body).toEqual({
        message: '404 Discussion Not Found',
      });
      // A follow-up issue takes the unresolved thread over and resolves it.
      // The original's API requires a title here too.
      const untitled = await t.http
        .post(`/api/v4/projects/${p.id}/issues`)
        .set(as(developer))
        .send({ merge_request_to_resolve_discussions_of: iid });
      expect([untitled.status, untitled.body]).toEqual([400, { message: '400 (Bad request) "title" not given' }]);
      // Each thread is quoted by its first unresolved note (here a reply, then a later thread's reply), oldest thread first.
      const later = await t.http.post(discussions()).set(as(reporter)).send({ body: 'And this?' });
      const laterReply = await t.http
        .post(discussions(`/${later.body.id}/notes`))
        .set(as(reporter))
        .send({ body: 'Line one\nLine two' });
      await t.http
        .put(discussions(`/${later.body.id}/notes/${later.body.notes[0].id}`))
        .set(as(developer))
        .send({ resolved: true });
      const issue = await t.http
        .post(`/api/v4/projects/${p.id}/issues`)
        .set(as(developer))
        .send({ title: 'Follow it up', merge_request_to_resolve_discussions_of: iid });
      expect(issue.status).toBe(201);
      const webUrl = `${BASE}/${p.path}/merge_requests/${iid}`;
      expect([issue.body.title, issue.body.description]).toEqual([
        'Follow it up',
        `The following discussions from !${iid} should be addressed:\n\n` +
          `- [ ] @${developer.username} commented on a [discussion](${webUrl}#note_${reply.body.id}):  (+1 comment)\n\n    > Because.\n\n` +
          `- [ ] @${reporter.username} commented on a [discussion](${webUrl}#note_${laterReply.body.id}):  (+1 comment)\n\n` +
          '    > Line one\n    > Line two',
      ]);
      const none = await t.http
        .post(`/api/v4/projects/${p.id}/issues`)
        .set(as(developer))
        .send({ title: 'Nothing left', merge_request_to_resolve_discussions_of: iid });
      expect(none.body.description).toBe(`There are no unresolved discussions. Review the conversation in !${iid}`);
      expect((await t.http.get(url(p.id, `/${iid}`)).set(as(reporter))).body.blocking_discussions_resolved).toBe(true);
      expect((await t.http.put(url(p.id, `/${iid}/merge`)).set(as(developer))).status).toBe(200);
    },
  );

  it('threads on issues are not resolvable', async () => {
    const p = await project();
    const issue = await t.hosting.as(owner.id).issues.create(p.id, { title: 'Talk' });
    const started = await t.http.post(`/api/v4/projects/${p.id}/issues/${issue.iid}/discussions`).set(as(reporter)).send({ body: 'Hello' });
    expect(started.body.notes[0]).toMatchObject({ type: 'DiscussionNote', resolvable: false });
    expect(started.body.notes[0]).not.toHaveProperty('resolved');
    const refused = await t.http
      .put(`/api/v4/projects/${p.id}/issues/${issue.iid}/discussions/${started.body.id}/notes/${started.body.notes[0].id}`)
      .set(as(owner))
      .send({ resolved: true });
    expect([refused.status, refused.body]).toEqual([400, { message: { resolved: ['is not resolvable'] } }]);
  });
});

describe('merge when pipeline succeeds', () => {
  it('waits for a running pipeline, merges by itself once a status turns it green, and not when it fails', async () => {
    const p = await project();
    const api = t.hosting.as(developer.id);
    const { iid, sha } = await api.mergeRequests.create(p.id, { source_branch: 'feature', target_branch: 'master', title: 'Automatic' });
    await api.commitStatuses.create(p.id, sha!, { state: 'running', name: 'test' });
    const set = await t.http
      .put(url(p.id, `/${iid}/merge`))
      .set(as(developer))
      .send({ merge_when_pipeline_succeeds: true });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      state: 'opened',
      merge_when_pipeline_succeeds: true,
      merge_user: { id: developer.id },
      pipeline: { status: 'running', sha },
    });
    const cancelled = await t.http.post(url(p.id, `/${iid}/cancel_merge_when_pipeline_succeeds`)).set(as(developer));
    expect([cancelled.status, cancelled.body.merge_when_pipeline_succeeds]).toEqual([200, false]);
    const again = await t.http.put(url(p.id, `/${iid}/cancel_merge_when_pipeline_succeeds`)).set(as(developer));
    expect([again.status, again.body]).toEqual([406, { message: '406 Not Acceptable' }]);
    expect((await t.http.put(url(p.id, `/${iid}/cancel_merge_when_pipeline_succeeds`)).set(as(reporter))).status).toBe(401);
    await t.http
      .put(url(p.id, `/${iid}/merge`))
      .set(as(developer))
      .send({ merge_when_pipeline_succeeds: true });
    await api.commitStatuses.create(p.id, sha!, { state: 'success', name: 'test' });
    await t.hosting.backgroundJobs.drain();
    const merged = await t.hosting.mergeRequests.get(p.id, iid);
    expect([merged.state, merged.merged_by?.id]).toEqual(['merged', developer.id]);
    expect((await t.http.put(url(p.id, `/${iid}/cancel_merge_when_pipeline_succeeds`)).set(as(developer))).status).toBe(405);

    // A failed pipeline merges nothing.
    await api.commits.create(p.id, {
      branch: 'second',
      start_branch: 'master',
      commit_message: 'Second',
      actions: [{ action: 'create', file_path: 'second.txt', content: '2\n' }],
    });
    const second = await api.mergeRequests.create(p.id, { source_branch: 'second', target_branch: 'master', title: 'Fails' });
    await api.commitStatuses.create(p.id, second.sha!, { state: 'pending', name: 'test' });
    await api.mergeRequests.merge(p.id, second.iid, { merge_when_pipeline_succeeds: true });
    await api.commitStatuses.create(p.id, second.sha!, { state: 'failed', name: 'test' });
    await t.hosting.backgroundJobs.drain();
    expect((await t.hosting.mergeRequests.get(p.id, second.iid)).state).toBe('opened');
  });
});
