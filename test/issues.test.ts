import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, NotFoundError } from '../src/errors.js';
import { createUser, pageHeaders, queriesOf, ROOT_TOKEN, type SharedHosting, sharedHosting, userReference } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let reporter: User;
let guest: User;
let stranger: User;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
/** A project of the owner's with a reporter and a guest. */
async function project(visibility: 'private' | 'internal' | 'public' = 'private'): Promise<{ id: number; path: string }> {
  const api = t.hosting.as(owner.id);
  counter += 1;
  const created = await api.projects.create({ name: `Issues ${counter}`, path: `issues-${process.pid}-${counter}`, visibility });
  await api.projectMembers.add(created.id, { user_id: reporter.id, access_level: 20 });
  await api.projectMembers.add(created.id, { user_id: guest.id, access_level: 10 });
  return { id: created.id, path: created.path_with_namespace };
}

const as = (user: User) => ({ 'PRIVATE-TOKEN': user.token });
const issuesUrl = (id: number) => `/api/v4/projects/${id}/issues`;

const reference = (user: User) => userReference(user, 'http://forge.test');

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /projects/:id/issues', () => {
  it('answers 201 with the issue: the next iid, the author, every field of SPEC.md', async () => {
    const { id, path } = await project();
    const res = await t.http
      .post(issuesUrl(id))
      .set(as(reporter))
      .send({ title: 'Crash on start', description: 'It crashes', labels: 'bug,ui', due_date: '2030-01-31', assignee_ids: [guest.id] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      iid: 1,
      project_id: id,
      title: 'Crash on start',
      description: 'It crashes',
      state: 'opened',
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at,
      closed_at: null,
      closed_by: null,
      moved_to_id: null,
      labels: ['bug', 'ui'],
      milestone: null,
      assignees: [reference(guest)],
      assignee: reference(guest),
      author: reference(reporter),
      user_notes_count: 0,
      upvotes: 0,
      downvotes: 0,
      due_date: '2030-01-31',
      confidential: false,
      discussion_locked: false,
      web_url: `http://forge.test/${path}/issues/1`,
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      subscribed: true,
      _links: {
        self: `http://forge.test/api/v4/projects/${id}/issues/1`,
        notes: `http://forge.test/api/v4/projects/${id}/issues/1/notes`,
        award_emoji: `http://forge.test/api/v4/projects/${id}/issues/1/award_emoji`,
        project: `http://forge.test/api/v4/projects/${id}`,
      },
    });
    const second = await t.http.post(issuesUrl(id)).set(as(reporter)).send({ title: 'Second' });
    expect([second.status, second.body.iid]).toEqual([201, 2]);
  });

  it('drops labels, milestone, assignees and due date from a guest, as the original filters them', async () => {
    const { id } = await project();
    const res = await t.http
      .post(issuesUrl(id))
      .set(as(guest))
      .send({ title: 'From a guest', labels: 'bug', assignee_ids: [guest.id], due_date: '2030-01-31' });
    expect(res.status).toBe(201);
    expect([res.body.labels, res.body.assignees, res.body.due_date]).toEqual([[], [], null]);
  });

  it('keeps `created_at` for the owner and administrators only', async () => {
    const { id } = await project();
    const mine = await t.http.post(issuesUrl(id)).set(as(owner)).send({ title: 'Imported', created_at: '2016-03-04T05:06:07Z' });
    expect(mine.body.created_at).toBe('2016-03-04T05:06:07.000Z');
    const theirs = await t.http.post(issuesUrl(id)).set(as(reporter)).send({ title: 'Not imported', created_at: '2016-03-04T05:06:07Z' });
    expect(theirs.body.created_at).not.toBe('2016-03-04T05:06:07.000Z');
  });

  it(
    'answers 400 naming a missing title, 401 without authentication, 404 to a stranger of a private project, ' +
      '403 when issues are disabled',
    async () => {
      const { id } = await project();
      expect((await t.http.post(issuesUrl(id)).set(as(reporter)).send({})).body).toEqual({
        message: '400 (Bad request) "title" not given',
      });
      expect((await t.http.post(issuesUrl(id)).send({ title: 'x' })).status).toBe(401);
      expect(
        await t.http
          .post(issuesUrl(id))
          .set(as(stranger))
          .send({ title: 'x' })
          .then((res) => [res.status, res.body]),
      ).toEqual([404, { message: '404 Project Not Found' }]);
      await t.hosting.projects.update(id, { issues_enabled: false });
      expect((await t.http.post(issuesUrl(id)).set(as(reporter)).send({ title: 'x' })).status).toBe(403);
      expect((await t.http.get(`${issuesUrl(id)}/1`).set(as(reporter))).status).toBe(404);
      const list = await t.http.get(issuesUrl(id)).set(as(reporter));
      expect([list.status, list.body]).toEqual([200, []]);
    },
  );

  it('gives 50 concurrent creates in one project the iids 1 to 50', async () => {
    const { id } = await project();
    const api = t.hosting.as(reporter.id);
    const created = await Promise.all(Array.from({ length: 50 }, (_, index) => api.issues.create(id, { title: `Race ${index}` })));
    expect(created.map((issue) => issue.iid).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
  });
});

describe('GET /projects/:id/issues and /issues, /groups/:id/issues', () => {
  it(
    'filters by state, labels (all of them, none, any), milestone, ' + 'author, assignee, iids, search, dates; orders and paginates',
    async () => {
      const { id } = await project();
      const api = t.hosting.as(reporter.id);
      const bug = await api.issues.create(id, { title: 'Bug in parser', labels: ['bug', 'parser'] });
      const feature = await api.issues.create(id, {
        title: 'Feature',
        description: 'Needs a PARSER rewrite',
        labels: ['feature'],
        assignee_ids: [guest.id],
      });
      const plain = await t.hosting.as(guest.id).issues.create(id, { title: 'Plain' });
      await api.issues.update(id, feature.iid, { state_event: 'close' });
      const iids = async (query: Record<string, unknown>, user: User = reporter) => {
        const res = await t.http.get(issuesUrl(id)).set(as(user)).query(query);
        expect(res.status).toBe(200);
        return res.body.map((issue: { iid: number }) => issue.iid);
      };
      expect(await iids({})).toEqual([plain.iid, feature.iid, bug.iid]);
      expect(await iids({ state: 'opened' })).toEqual([plain.iid, bug.iid]);
      expect(await iids({ state: 'closed' })).toEqual([feature.iid]);
      expect(await iids({ labels: 'bug,parser' })).toEqual([bug.iid]);
      expect(await iids({ labels: 'bug,feature' })).toEqual([]);
      expect(await iids({ labels: 'No+Label' })).toEqual([plain.iid]);
      expect(await iids({ labels: 'No Label' })).toEqual([plain.iid]);
      expect(await iids({ labels: 'None' })).toEqual([plain.iid]);
      expect(await iids({ labels: 'Any' })).toEqual([feature.iid, bug.iid]);
      expect(await iids({ author_id: guest.id })).toEqual([plain.iid]);
      expect(await iids({ assignee_id: guest.id })).toEqual([feature.iid]);
      expect(await iids({ assignee_id: 'None' })).toEqual([plain.iid, bug.iid]);
      expect(await iids({ assignee_id: 'Any' })).toEqual([feature.iid]);
      expect(await iids({ 'iids[]': [bug.iid, plain.iid] })).toEqual([plain.iid, bug.iid]);
      expect(await iids({ search: 'parser' })).toEqual([feature.iid, bug.iid]);
      expect(await iids({ milestone: 'None' })).toEqual([plain.iid, feature.iid, bug.iid]);
      expect(await iids({ milestone: 'Any' })).toEqual([]);
      expect(await iids({ order_by: 'created_at', sort: 'asc' })).toEqual([bug.iid, feature.iid, plain.iid]);
      expect(await iids({ order_by: 'updated_at', sort: 'desc' })).toEqual([feature.iid, plain.iid, bug.iid]);
      expect(await iids({ created_after: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
      expect(await iids({ created_before: new Date(Date.now() + 60_000).toISOString() })).toHaveLength(3);
      expect(await iids({ scope: 'created-by-me' })).toEqual([feature.iid, bug.iid]);
      expect(await iids({ scope: 'assigned_to_me' }, guest)).toEqual([feature.iid]);
      const page = await t.http.get(issuesUrl(id)).set(as(reporter)).query({ per_page: 2, page: 2 });
      expect(pageHeaders(page.headers)).toEqual({ total: 3, totalPages: 2, perPage: 2, page: 2, nextPage: null, prevPage: 1 });
      expect(page.body.map((issue: { iid: number }) => issue.iid)).toEqual([bug.iid]);
    },
  );

  it(
    'GET /issues shows the caller’s own issues by default, ' + '`scope=all` every one it may read; /groups/:id/issues the group’s',
    async () => {
      const group = await t.hosting
        .as(owner.id)
        .groups.create({ name: `Issues group ${process.pid}`, path: `issues-group-${process.pid}`, visibility: 'private' });
      const { id } = await t.hosting.as(owner.id).projects.create({ name: 'In a group', namespace_id: group.id, visibility: 'private' });
      await t.hosting.as(owner.id).groupMembers.add(group.id, { user_id: reporter.id, access_level: 20 });
      const mine = await t.hosting.as(reporter.id).issues.create(id, { title: 'Mine in the group' });
      const theirs = await t.hosting.as(owner.id).issues.create(id, { title: 'Theirs in the group' });
      const own = await t.http.get('/api/v4/issues').set(as(reporter)).query({ per_page: 100 });
      expect(own.body.map((issue: { id: number }) => issue.id)).toContain(mine.id);
      expect(own.body.map((issue: { id: number }) => issue.id)).not.toContain(theirs.id);
      const all = await t.http.get('/api/v4/issues').set(as(reporter)).query({ scope: 'all', per_page: 100 });
      expect(all.body.map((issue: { id: number }) => issue.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
      const byGroup = await t.http.get(`/api/v4/groups/${group.id}/issues`).set(as(reporter));
      expect(byGroup.body.map((issue: { id: number }) => issue.id)).toEqual([theirs.id, mine.id]);
      expect((await t.http.get(`/api/v4/groups/${group.id}/issues`).set(as(stranger))).status).toBe(404);
      const strangers = await t.http.get('/api/v4/issues').set(as(stranger)).query({ scope: 'all', per_page: 100 });
      expect(strangers.body.map((issue: { id: number }) => issue.id)).not.toContain(theirs.id);
      expect((await t.http.get('/api/v4/issues')).status).toBe(401);
    },
  );

  it('GET /issues/:id finds any issue for administrators; 403 for others', async () => {
    const { id } = await project();
    const issue = await t.hosting.as(reporter.id).issues.create(id, { title: 'By global ID' });
    const res = await t.http.get(`/api/v4/issues/${issue.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([res.status, res.body.iid, res.body.project_id]).toEqual([200, issue.iid, id]);
    expect((await t.http.get(`/api/v4/issues/${issue.id}`).set(as(reporter))).status).toBe(403);
    expect((await t.http.get('/api/v4/issues/999999').set('PRIVATE-TOKEN', ROOT_TOKEN)).body).toEqual({ message: '404 Issue Not Found' });
  });

  it('answers a page of 100 issues with labels, milestone, assignees, votes and notes in a constant number of statements', async () => {
    const { id } = await project();
    const api = t.hosting.as(reporter.id);
    const list = () => t.http.get(issuesUrl(id)).set(as(reporter)).query({ per_page: 100 });
    const add = async (count: number) => {
      for (let index = 0; index < count; index++) {
        const issue = await api.issues.create(id, { title: `Listed ${index}`, labels: ['a', 'b'], assignee_ids: [guest.id, reporter.id] });
        await t.hosting.as(guest.id).awardEmoji.create(id, issue.iid, { name: 'thumbsup' });
        await api.issueNotes.create(id, issue.iid, { body: 'Noted' });
      }
    };
    await add(2);
    await list();
    const few = await queriesOf(t.db, list);
    await add(18);
    // Once more first: the adding may outlast the caller's token kept in the process (10 s).
    await list();
    const many = await queriesOf(t.db, list);
    const body = (await list()).body;
    expect(body).toHaveLength(20);
    expect(body[0]).toMatchObject({
      labels: ['a', 'b'],
      upvotes: 1,
      user_notes_count: 1,
      assignees: [reference(guest), reference(reporter)],
    });
    expect(many.length).toBe(few.length);
  });
});

describe('confidential issues', () => {
  it('are read only by their author, assignees, reporters and above, and administrators: in reads, lists, counts and search', async () => {
    const { id } = await project('public');
    const secret = await t.hosting.as(guest.id).issues.create(id, { title: 'Secret hole', confidential: true });
    await t.hosting.as(reporter.id).issues.create(id, { title: 'Open hole' });
    const read = async (user: User) => (await t.http.get(`${issuesUrl(id)}/${secret.iid}`).set(as(user))).status;
    expect([await read(guest), await read(reporter), await read(owner), await read(stranger)]).toEqual([200, 200, 200, 404]);
    const listed = async (user: User) => {
      const res = await t.http.get(issuesUrl(id)).set(as(user)).query({ search: 'hole' });
      return [Number(res.headers['x-total']), res.body.length];
    };
    expect(await listed(stranger)).toEqual([1, 1]);
    expect(await listed(reporter)).toEqual([2, 2]);
    expect(await listed(guest)).toEqual([2, 2]);
    const count = async (user: User) => (await t.http.get(`/api/v4/projects/${id}`).set(as(user))).body.open_issues_count;
    expect([await count(stranger), await count(reporter)]).toEqual([1, 2]);
    // Assigned to the stranger: it reads it now.
    await t.hosting.as(owner.id).issues.update(id, secret.iid, { assignee_ids: [stranger.id] });
    expect(await read(stranger)).toBe(200);
  });
});

describe('PUT /projects/:id/issues/:issue_iid', () => {
  it('closes and reopens (closed_at, closed_by), relabels, reassigns, and records each change in a system note', async () => {
    const { id } = await project();
    const api = t.hosting.as(reporter.id);
    const issue = await api.issues.create(id, { title: 'Old title', labels: ['a'] });
    const closed = await t.http
      .put(`${issuesUrl(id)}/${issue.iid}`)
      .set(as(reporter))
      .send({ state_event: 'close', title: 'New title', labels: 'b,c', assignee_ids: [guest.id] });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      state: 'closed',
      closed_at: expect.stringMatching(ISO),
      closed_by: reference(reporter),
      title: 'New title',
      labels: ['b', 'c'],
      assignee: reference(guest),
    });
    const notes = await t.http
      .get(`${issuesUrl(id)}/${issue.iid}/notes`)
      .set(as(reporter))
      .query({ sort: 'asc' });
    const bodies = notes.body.map((note: { body: string; system: boolean }) => [note.body, note.system]);
    expect(bodies.map(([body]: [string]) => body)).toEqual([
      'changed title from **{-Old-} title** to **{+New+} title**',
      'closed',
      `assigned to @${guest.username}`,
      expect.stringMatching(/^added ~\d+ ~\d+ and removed ~\d+ labels$/),
    ]);
    expect(bodies.every(([, system]: [string, boolean]) => system)).toBe(true);
    const reopened = await api.issues.update(id, issue.iid, { state_event: 'reopen', add_labels: ['d'], remove_labels: ['b'] });
    expect([reopened.state, reopened.closed_at, reopened.closed_by, reopened.labels]).toEqual(['opened', null, null, ['c', 'd']]);
    const cleared = await api.issues.update(id, issue.iid, { assignee_ids: [], labels: [] });
    expect([cleared.assignees, cleared.assignee, cleared.labels]).toEqual([[], null, []]);
    // Older clients' single assignee: an ID, and 0 (kept a number by the schema, not made null) for none.
    await api.issues.update(id, issue.iid, { assignee_id: guest.id });
    const unassigned = await t.http
      .put(`${issuesUrl(id)}/${issue.iid}`)
      .set(as(reporter))
      .send({ assignee_id: 0 });
    expect([unassigned.status, unassigned.body.assignees]).toEqual([200, []]);
  });

  it('answers 400 when nothing is given, 403 to a guest who is neither author nor assignee, 404 for another project’s iid', async () => {
    const { id } = await project();
    const { id: other } = await project();
    const issue = await t.hosting.as(reporter.id).issues.create(id, { title: 'Guarded' });
    const empty = await t.http
      .put(`${issuesUrl(id)}/${issue.iid}`)
      .set(as(reporter))
      .send({});
    expect([empty.status, empty.body.message]).toEqual([400, expect.stringContaining('at least one parameter must be provided')]);
    expect(
      (
        await t.http
          .put(`${issuesUrl(id)}/${issue.iid}`)
          .set(as(guest))
          .send({ title: 'x' })
      ).status,
    ).toBe(403);
    expect(
      (
        await t.http
          .put(`${issuesUrl(other)}/${issue.iid + 5}`)
          .set(as(reporter))
          .send({ title: 'x' })
      ).body,
    ).toEqual({ message: '404 Issue Not Found' });
  });

  it('keeps open_issues_count right through close, reopen, confidentiality changes and delete', async () => {
    const { id } = await project();
    const api = t.hosting.as(owner.id);
    const count = async () => (await t.hosting.as(guest.id).projects.get(id)).open_issues_count;
    const first = await api.issues.create(id, { title: 'One' });
    const second = await api.issues.create(id, { title: 'Two', confidential: true });
    expect([await count(), (await api.projects.get(id)).open_issues_count]).toEqual([1, 2]);
    await api.issues.update(id, first.iid, { state_event: 'close' });
    expect(await count()).toBe(0);
    await api.issues.update(id, second.iid, { confidential: false });
    expect(await count()).toBe(1);
    await api.issues.update(id, first.iid, { state_event: 'reopen' });
    expect(await count()).toBe(2);
    const deleted = await t.http.delete(`${issuesUrl(id)}/${first.iid}`).set(as(owner));
    expect(deleted.status).toBe(204);
    expect(await count()).toBe(1);
    expect((await t.http.get(`${issuesUrl(id)}/${first.iid}`).set(as(owner))).status).toBe(404);
    expect((await t.http.delete(`${issuesUrl(id)}/${second.iid}`).set(as(reporter))).status).toBe(403);
  });
});

describe('POST /projects/:id/issues/:issue_iid/move', () => {
  it(
    'makes a new issue in the target with the author, notes and award emoji; ' + 'keeps same-named labels; closes the original with a note',
    async () => {
      const from = await project();
      const to = await project();
      const api = t.hosting.as(owner.id);
      await api.issues.create(to.id, { title: 'Makes the label', labels: ['bug'] });
      const issue = await t.hosting.as(reporter.id).issues.create(from.id, { title: 'Moving', labels: ['bug', 'only-here'] });
      await t.hosting.as(guest.id).issueNotes.create(from.id, issue.iid, { body: 'A comment' });
      await t.hosting.as(guest.id).awardEmoji.create(from.id, issue.iid, { name: 'thumbsup' });
      const res = await t.http
        .post(`${issuesUrl(from.id)}/${issue.iid}/move`)
        .set(as(owner))
        .send({ to_project_id: to.id });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        project_id: to.id,
        iid: 2,
        title: 'Moving',
        author: reference(reporter),
        labels: ['bug'],
        upvotes: 1,
        user_notes_count: 1,
        state: 'opened',
      });
      const old = await api.issues.get(from.id, issue.iid);
      expect(old.state).toBe('closed');
      const oldNotes = await api.issueNotes.list(from.id, issue.iid);
      expect(oldNotes.map((note) => note.body)).toContain(`moved to ${to.path}#2`);
      const newNotes = await api.issueNotes.list(to.id, 2);
      expect(newNotes.map((note) => note.body)).toEqual(expect.arrayContaining(['A comment', `moved from ${from.path}#${issue.iid}`]));
    },
  );

  it('answers 400 for the same project and without permission in the target', async () => {
    const from = await project();
    const issue = await t.hosting.as(reporter.id).issues.create(from.id, { title: 'Staying' });
    const same = await t.http
      .post(`${issuesUrl(from.id)}/${issue.iid}/move`)
      .set(as(owner))
      .send({ to_project_id: from.id });
    expect([same.status, same.body]).toEqual([400, { message: 'Cannot move issue to project it originates from!' }]);
    const { id: foreign } = await t.hosting.as(stranger.id).projects.create({ name: `Foreign ${process.pid}`, visibility: 'private' });
    const denied = await t.http
      .post(`${issuesUrl(from.id)}/${issue.iid}/move`)
      .set(as(owner))
      .send({ to_project_id: foreign });
    expect([denied.status, denied.body]).toEqual([400, { message: 'Cannot move issue due to insufficient permissions!' }]);
    await expect(t.hosting.as(owner.id).issues.move(from.id, issue.iid, { to_project_id: from.id })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});

describe('subscriptions', () => {
  it('subscribe answers 201 with subscribed true, then 304; unsubscribe 201, then 304', async () => {
    const { id } = await project();
    const issue = await t.hosting.as(reporter.id).issues.create(id, { title: 'Followed' });
    const url = `${issuesUrl(id)}/${issue.iid}`;
    const first = await t.http.post(`${url}/subscribe`).set(as(owner));
    expect([first.status, first.body.subscribed]).toEqual([201, true]);
    expect((await t.http.post(`${url}/subscribe`).set(as(owner))).status).toBe(304);
    expect((await t.http.get(url).set(as(owner))).body.subscribed).toBe(true);
    const off = await t.http.post(`${url}/unsubscribe`).set(as(owner));
    expect([off.status, off.body.subscribed]).toEqual([201, false]);
    expect((await t.http.post(`${url}/unsubscribe`).set(as(owner))).status).toBe(304);
    // The author hears of its issue until it unsubscribes.
    expect((await t.http.post(`${url}/subscribe`).set(as(reporter))).status).toBe(304);
  });
});

describe('notes on issues', () => {
  it('lists, reads, creates, updates and deletes comments; counts them in user_notes_count', async () => {
    const { id } = await project();
    const issue = await t.hosting.as(reporter.id).issues.create(id, { title: 'Discussed' });
    const url = `${issuesUrl(id)}/${issue.iid}/notes`;
    const created = await t.http.post(url).set(as(guest)).send({ body: 'First!' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      type: null,
      body: 'First!',
      attachment: null,
      author: reference(guest),
      created_at: expect.stringMatching(ISO),
      updated_at: created.body.created_at,
      system: false,
      noteable_id: issue.id,
      noteable_type: 'Issue',
      noteable_iid: issue.iid,
      resolvable: false,
    });
    expect((await t.http.get(`${url}/${created.body.id}`).set(as(reporter))).body.body).toBe('First!');
    expect((await t.http.put(`${url}/${created.body.id}`).set(as(reporter)).send({ body: 'Edited' })).status).toBe(403);
    const edited = await t.http.put(`${url}/${created.body.id}`).set(as(guest)).send({ body: 'Edited' });
    expect([edited.status, edited.body.body]).toEqual([200, 'Edited']);
    expect((await t.http.post(url).set(as(guest)).send({ body: '  ' })).body).toEqual({ message: { note: ["can't be blank"] } });
    expect((await t.hosting.as(owner.id).issues.get(id, issue.iid)).user_notes_count).toBe(1);
    expect((await t.http.delete(`${url}/${created.body.id}`).set(as(owner))).status).toBe(204);
    expect((await t.http.get(`${url}/${created.body.id}`).set(as(owner))).body).toEqual({ message: '404 Note Not Found' });
  });

  it('on a locked discussion only project members comment', async () => {
    const { id } = await project('public');
    const issue = await t.hosting.as(reporter.id).issues.create(id, { title: 'Locked', discussion_locked: true });
    expect(
      (
        await t.http
          .post(`${issuesUrl(id)}/${issue.iid}/notes`)
          .set(as(stranger))
          .send({ body: 'Me too' })
      ).status,
    ).toBe(403);
    expect(
      (
        await t.http
          .post(`${issuesUrl(id)}/${issue.iid}/notes`)
          .set(as(guest))
          .send({ body: 'Member' })
      ).status,
    ).toBe(201);
  });
});

describe('award emoji', () => {
  it('awards, lists, reads and removes emoji on issues and notes; counts votes; filters by my_reaction_emoji', async () => {
    const { id } = await project();
    const issue = await t.hosting.as(reporter.id).issues.create(id, { title: 'Voted' });
    const url = `${issuesUrl(id)}/${issue.iid}/award_emoji`;
    const award = await t.http.post(url).set(as(guest)).send({ name: 'thumbsup' });
    expect(award.status).toBe(201);
    expect(award.body).toEqual({
      id: award.body.id,
      name: 'thumbsup',
      user: reference(guest),
      created_at: expect.stringMatching(ISO),
      updated_at: award.body.created_at,
      awardable_id: issue.id,
      awardable_type: 'Issue',
    });
    expect((await t.http.post(url).set(as(guest)).send({ name: 'thumbsup' })).status).toBe(404);
    expect((await t.http.post(url).set(as(guest)).send({ name: 'not-an-emoji' })).status).toBe(404);
    expect((await t.http.post(url).set(as(reporter)).send({ name: 'thumbsdown' })).status).toBe(404);
    await t.http.post(url).set(as(owner)).send({ name: '-1' });
    expect(await t.hosting.as(owner.id).issues.get(id, issue.iid)).toMatchObject({ upvotes: 1, downvotes: 1 });
    const mine = await t.http.get(issuesUrl(id)).set(as(guest)).query({ my_reaction_emoji: 'thumbsup' });
    expect(mine.body.map((item: { iid: number }) => item.iid)).toEqual([issue.iid]);
    expect((await t.http.get(issuesUrl(id)).set(as(guest)).query({ my_reaction_emoji: 'None' })).body).toEqual([]);
    expect((await t.http.get(url).set(as(reporter))).body).toHaveLength(2);
    expect((await t.http.delete(`${url}/${award.body.id}`).set(as(reporter))).status).toBe(401);
    expect((await t.http.delete(`${url}/${award.body.id}`).set(as(guest))).status).toBe(204);
    const note = await t.hosting.as(reporter.id).issueNotes.create(id, issue.iid, { body: 'Awarded' });
    const onNote = await t.http
      .post(`${issuesUrl(id)}/${issue.iid}/notes/${note.id}/award_emoji`)
      .set(as(guest))
      .send({ name: 'tada' });
    expect([onNote.status, onNote.body.awardable_type, onNote.body.awardable_id]).toEqual([201, 'Note', note.id]);
    const onNoteUrl = `${issuesUrl(id)}/${issue.iid}/notes/${note.id}/award_emoji/${onNote.body.id}`;
    // Another's award: 401 as the original answers, even to the note's author; a note elsewhere: 404.
    const refused = await t.http.delete(onNoteUrl).set(as(reporter));
    expect([refused.status, refused.body]).toEqual([401, { message: '401 Unauthorized' }]);
    const elsewhere = await t.http
      .delete(`${issuesUrl(id)}/${issue.iid}/notes/${note.id + 1000}/award_emoji/${onNote.body.id}`)
      .set(as(guest));
    expect([elsewhere.status, elsewhere.body]).toEqual([404, { message: '404 Note Not Found' }]);
    expect((await t.http.delete(onNoteUrl).set(as(guest))).status).toBe(204);
    expect((await t.http.delete(onNoteUrl).set(as(guest))).body).toEqual({ message: '404 Award Emoji Not Found' });
    expect((await t.http.get(`${issuesUrl(id)}/${issue.iid}/notes/${note.id + 1000}/award_emoji`).set(as(guest))).body).toEqual({
      message: '404 Note Not Found',
    });
  });
});

describe('time tracking', () => {
  it('sets and resets the estimate, adds and takes back spent time, in the original’s duration language', async () => {
    const { id } = await project();
    const issue = await t.hosting.as(reporter.id).issues.create(id, { title: 'Timed' });
    const url = `${issuesUrl(id)}/${issue.iid}`;
    const estimate = await t.http.post(`${url}/time_estimate`).set(as(reporter)).send({ duration: '3h30m' });
    expect([estimate.status, estimate.body]).toEqual([
      200,
      { time_estimate: 12600, total_time_spent: 0, human_time_estimate: '3h 30m', human_total_time_spent: null },
    ]);
    const spent = await t.http.post(`${url}/add_spent_time`).set(as(reporter)).send({ duration: '1w 2d' });
    expect([spent.status, spent.body.total_time_spent, spent.body.human_total_time_spent]).toEqual([201, 7 * 8 * 3600, '1w 2d']);
    const back = await t.http.post(`${url}/add_spent_time`).set(as(reporter)).send({ duration: '-2d' });
    expect(back.body.human_total_time_spent).toBe('1w');
    expect((await t.http.post(`${url}/add_spent_time`).set(as(reporter)).send({ duration: '-3w' })).body).toEqual({
      message: { base: ['Time to subtract exceeds the total time spent'] },
    });
    expect((await t.http.post(`${url}/time_estimate`).set(as(reporter)).send({ duration: 'soon' })).body).toEqual({
      message: { time_estimate: ['has an invalid format'] },
    });
    expect((await t.http.get(`${url}/time_stats`).set(as(guest))).body).toEqual({
      time_estimate: 12600,
      total_time_spent: 5 * 8 * 3600,
      human_time_estimate: '3h 30m',
      human_total_time_spent: '1w',
    });
    expect((await t.http.post(`${url}/reset_spent_time`).set(as(reporter))).body.total_time_spent).toBe(0);
    expect((await t.http.post(`${url}/reset_time_estimate`).set(as(reporter))).body.time_estimate).toBe(0);
    expect((await t.http.post(`${url}/time_estimate`).set(as(guest)).send({ duration: '1h' })).status).toBe(403);
    const notes = (await t.hosting.as(owner.id).issueNotes.list(id, issue.iid, { sort: 'asc' })).map((note) => note.body);
    expect(notes).toEqual([
      'changed time estimate to 3h 30m',
      'added 1w 2d of time spent',
      'subtracted 2d of time spent',
      'removed time spent',
      'removed time estimate',
    ]);
  });
});

describe('in process', () => {
  it('raises the same errors as HTTP answers', async () => {
    const { id } = await project();
    await expect(t.hosting.as(reporter.id).issues.get(id, 999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.hosting.as(stranger.id).issues.list(id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('hostile input', () => {
  it('refuses a blank title with the validation map; drops blank label names; never answers 500', async () => {
    const { id } = await project();
    expect((await t.http.post(issuesUrl(id)).set(as(reporter)).send({ title: '   ' })).body).toEqual({
      message: { title: ["can't be blank"] },
    });
    const issue = await t.http
      .post(issuesUrl(id))
      .set(as(reporter))
      .send({ title: 'Labels', labels: ['  spaced  ', '', ' '] });
    expect([issue.status, issue.body.labels]).toEqual([201, ['spaced']]);
    for (const query of [
      { assignee_id: 'someone' },
      { 'iids[]': 'x' },
      { order_by: 'title' },
      { created_after: 'yesterday' },
      { labels: 'a'.repeat(300) },
    ]) {
      expect((await t.http.get(issuesUrl(id)).set(as(reporter)).query(query)).status).toBe(400);
    }
    expect(
      (
        await t.http
          .post(`${issuesUrl(id)}/${issue.body.iid}/time_estimate`)
          .set(as(reporter))
          .send({ duration: `${'9'.repeat(50)}w` })
      ).status,
    ).toBe(400);
    expect((await t.http.get(`${issuesUrl(id)}/99999999999`).set(as(reporter))).status).toBe(400);
  });
});
