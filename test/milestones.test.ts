import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ForbiddenError, NotFoundError } from '../src/errors.js';
import { createUser, linkHeader, pageHeaders, queriesOf, ROOT_TOKEN, sharedHosting, type SharedHosting } from './helpers.js';

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

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;

/** A project of the owner's (in its namespace, or in a group) with a developer and a reporter. */
async function project(options: { visibility?: 'private' | 'public'; namespaceId?: number } = {}): Promise<{ id: number; path: string }> {
  const api = t.hosting.as(owner.id);
  const name = `milestones-${unique()}`;
  const created = await api.projects.create({
    name,
    path: name,
    visibility: options.visibility ?? 'private',
    namespace_id: options.namespaceId,
  });
  await api.projectMembers.add(created.id, { user_id: developer.id, access_level: 30 });
  await api.projectMembers.add(created.id, { user_id: reporter.id, access_level: 20 });
  return { id: created.id, path: created.path_with_namespace };
}

/** A group of the owner's with a developer and a reporter (of the group, and so of its projects and subgroups). */
async function group(options: { visibility?: 'private' | 'public'; parentId?: number } = {}): Promise<{ id: number; fullPath: string }> {
  const api = t.hosting.as(owner.id);
  const path = `group-${unique()}`;
  const created = await api.groups.create({ name: path, path, visibility: options.visibility ?? 'private', parent_id: options.parentId });
  if (options.parentId === undefined) {
    await api.groupMembers.add(created.id, { user_id: developer.id, access_level: 30 });
    await api.groupMembers.add(created.id, { user_id: reporter.id, access_level: 20 });
  }
  return { id: created.id, fullPath: created.full_path };
}

const as = (user: User) => ({ 'PRIVATE-TOKEN': user.token });
const milestonesUrl = (id: number) => `/api/v4/projects/${id}/milestones`;
const groupMilestonesUrl = (id: number) => `/api/v4/groups/${id}/milestones`;
const titles = (body: { title: string }[]) => body.map((milestone) => milestone.title);
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /projects/:id/milestones', () => {
  it('answers 201 with the milestone and the project’s next iid; the title stripped', async () => {
    const { id, path } = await project();
    const res = await t.http
      .post(milestonesUrl(id))
      .set(as(developer))
      .send({ title: ' v1.0 ', description: 'The first', start_date: '2030-01-01', due_date: '2030-02-01' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      iid: 1,
      project_id: id,
      title: 'v1.0',
      description: 'The first',
      state: 'active',
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at,
      due_date: '2030-02-01',
      start_date: '2030-01-01',
      web_url: `http://forge.test/${path}/milestones/1`,
    });
    const second = await t.hosting.as(developer.id).milestones.create(id, { title: 'v2.0' });
    expect([second.iid, second.description, second.due_date, second.start_date]).toEqual([2, null, null, null]);
    // Numbered per project.
    const other = await project();
    expect((await t.hosting.milestones.create(other.id, { title: 'v1.0' })).iid).toBe(1);
  });

  it(
    'answers 400 `Failed to create milestone {...}` for a title taken here or by the group, ' +
      'a blank title, a due date before the start',
    async () => {
      const parent = await group();
      const { id } = await project({ namespaceId: parent.id });
      await t.hosting.milestones.create(id, { title: 'v1.0' });
      await t.hosting.groupMilestones.create(parent.id, { title: 'Q1' });
      const post = (body: Record<string, unknown>) => t.http.post(milestonesUrl(id)).set(as(developer)).send(body);
      for (const title of ['v1.0', 'Q1', ' Q1 ']) {
        const res = await post({ title });
        expect([res.status, res.body], title).toEqual([
          400,
          { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' },
        ]);
      }
      const blank = await post({ title: '  ' });
      expect([blank.status, blank.body]).toEqual([400, { message: 'Failed to create milestone {:title=>["can\'t be blank"]}' }]);
      const dates = await post({ title: 'v1.0', start_date: '2030-02-01', due_date: '2030-02-01' });
      expect([dates.status, dates.body]).toEqual([
        400,
        {
          message:
            'Failed to create milestone {:title=>["already being used for another group or project milestone."], ' +
            ':due_date=>["must be greater than start date"]}',
        },
      ]);
      const badDate = await post({ title: 'v3', due_date: '2030-02-30' });
      expect([badDate.status, badDate.body]).toEqual([400, { message: { due_date: ['is invalid'] } }]);
      const missing = await post({ description: 'No title' });
      expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "title" not given' }]);
      await expect(t.hosting.milestones.create(id, { title: 'Q1' })).rejects.toThrow(BadRequestError);
      expect(titles(await t.hosting.milestones.list(id))).toEqual(['v1.0']);
    },
  );

  it('is for developers and above: 403 to a reporter, 404 to a stranger, 401 without authentication', async () => {
    const { id } = await project();
    const reporterRes = await t.http.post(milestonesUrl(id)).set(as(reporter)).send({ title: 'v1' });
    expect([reporterRes.status, reporterRes.body]).toEqual([403, { message: '403 Forbidden' }]);
    const strangerRes = await t.http.post(milestonesUrl(id)).set(as(stranger)).send({ title: 'v1' });
    expect([strangerRes.status, strangerRes.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const anonymous = await t.http.post(milestonesUrl(id)).send({ title: 'v1' });
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
    await expect(t.hosting.as(reporter.id).milestones.create(id, { title: 'v1' })).rejects.toThrow(ForbiddenError);
    expect(await t.hosting.milestones.list(id)).toEqual([]);
  });
});

describe('GET /projects/:id/milestones', () => {
  it('lists the project’s milestones newest first, all states by default; by `state`, `iids`, `title` and `search`', async () => {
    const { id } = await project({ visibility: 'public' });
    const api = t.hosting.as(developer.id);
    await api.milestones.create(id, { title: 'v1.0', description: 'Old' });
    await api.milestones.create(id, { title: 'v1.1' });
    const v2 = await api.milestones.create(id, { title: 'v2.0', description: 'The big one' });
    await api.milestones.update(id, (await api.milestones.list(id, { title: 'v1.0' }))[0].id, { state_event: 'close' });
    const list = (query: Record<string, unknown> = {}, user = stranger) => t.http.get(milestonesUrl(id)).query(query).set(as(user));
    const all = await list();
    expect([all.status, titles(all.body)]).toEqual([200, ['v2.0', 'v1.1', 'v1.0']]);
    expect(titles((await list({ state: 'active' })).body)).toEqual(['v2.0', 'v1.1']);
    expect(titles((await list({ state: 'closed' })).body)).toEqual(['v1.0']);
    expect(titles((await list({ state: 'all' })).body)).toEqual(['v2.0', 'v1.1', 'v1.0']);
    expect(titles((await list({ 'iids[]': [1, 3] })).body)).toEqual(['v2.0', 'v1.0']);
    expect(titles((await list({ iids: '2' })).body)).toEqual(['v1.1']);
    expect(titles((await list({ title: 'v1' })).body)).toEqual([]);
    expect(titles((await list({ title: 'v1.1' })).body)).toEqual(['v1.1']);
    expect(titles((await list({ search: 'BIG' })).body)).toEqual(['v2.0']);
    expect(titles((await list({ search: 'v1.' })).body)).toEqual(['v1.1', 'v1.0']);
    const bad = await list({ state: 'opened' });
    expect([bad.status, bad.body]).toEqual([400, { message: { state: ['does not have a valid value'] } }]);
    const anonymous = await t.http.get(milestonesUrl(id));
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
    const inProcess = await t.hosting.as(stranger.id).milestones.list(id, { per_page: 1, state: 'active' });
    expect([titles(inProcess), inProcess.total, inProcess.totalPages]).toEqual([['v2.0'], 2, 2]);
    expect(inProcess[0]).toEqual(v2);
  });

  it('pages with the Link and X-* headers, 404 to a stranger to a private project, in a constant number of statements', async () => {
    const { id } = await project();
    await t.hosting.milestones.create(id, { title: 'first' });
    const one = await queriesOf(t.db, () => t.http.get(milestonesUrl(id)).set(as(reporter)));
    for (let n = 2; n <= 5; n += 1) await t.hosting.milestones.create(id, { title: `m${n}` });
    const res = await t.http.get(milestonesUrl(id)).query({ per_page: 2, page: 2 }).set(as(reporter));
    expect(titles(res.body)).toEqual(['m3', 'm2']);
    expect(pageHeaders(res.headers)).toEqual({ total: 5, totalPages: 3, perPage: 2, page: 2, nextPage: 3, prevPage: 1 });
    expect(Object.keys(linkHeader(res.headers.link)).sort()).toEqual(['first', 'last', 'next', 'prev']);
    const many = await queriesOf(t.db, () => t.http.get(milestonesUrl(id)).set(as(reporter)));
    expect(many.length).toBe(one.length);
    const hidden = await t.http.get(milestonesUrl(id)).set(as(stranger));
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
    await expect(t.hosting.as(stranger.id).milestones.list(id)).rejects.toThrow(NotFoundError);
  });
});

describe('GET /projects/:id/milestones/:milestone_id', () => {
  it('answers one of the project’s milestones; `404 Not found` for another project’s or a group’s', async () => {
    const parent = await group();
    const { id } = await project({ namespaceId: parent.id });
    const other = await project();
    const mine = await t.hosting.milestones.create(id, { title: 'v1' });
    const theirs = await t.hosting.milestones.create(other.id, { title: 'v1' });
    const groups = await t.hosting.groupMilestones.create(parent.id, { title: 'Q1' });
    const res = await t.http.get(`${milestonesUrl(id)}/${mine.id}`).set(as(reporter));
    expect([res.status, res.body]).toEqual([200, mine]);
    for (const milestone of [theirs.id, groups.id, 999999]) {
      const missing = await t.http.get(`${milestonesUrl(id)}/${milestone}`).set(as(owner));
      expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }]);
    }
    const word = await t.http.get(`${milestonesUrl(id)}/latest`).set(as(owner));
    expect([word.status, word.body]).toEqual([400, { message: { milestone_id: ['is invalid'] } }]);
    await expect(t.hosting.milestones.get(id, theirs.id)).rejects.toThrow(NotFoundError);
    expect((await t.http.get(`${milestonesUrl(id)}/${mine.id}`).set(as(stranger))).status).toBe(404);
  });
});

describe('PUT /projects/:id/milestones/:milestone_id', () => {
  it('changes the title, description and dates; closes and activates it', async () => {
    const { id } = await project();
    const v1 = await t.hosting.milestones.create(id, { title: 'v1', start_date: '2030-01-01' });
    const res = await t.http
      .put(`${milestonesUrl(id)}/${v1.id}`)
      .set(as(developer))
      .send({ title: 'v1.0', description: 'First', due_date: '2030-03-01', state_event: 'close' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...v1,
      title: 'v1.0',
      description: 'First',
      due_date: '2030-03-01',
      state: 'closed',
      updated_at: expect.stringMatching(ISO),
    });
    // Closing a closed one changes nothing of its state; activating opens it again; a null date is none.
    expect((await t.hosting.as(developer.id).milestones.update(id, v1.id, { state_event: 'close' })).state).toBe('closed');
    const active = await t.hosting.as(developer.id).milestones.update(id, v1.id, { state_event: 'activate', start_date: null, title: ' ' });
    expect([active.state, active.start_date, active.title]).toEqual(['active', null, 'v1.0']);
  });

  it('answers 400 without a change, for a taken title or a due date before the start; 404 for another’s; 403 to a reporter', async () => {
    const { id } = await project();
    const other = await project();
    const v1 = await t.hosting.milestones.create(id, { title: 'v1', start_date: '2030-05-01' });
    await t.hosting.milestones.create(id, { title: 'v2' });
    const theirs = await t.hosting.milestones.create(other.id, { title: 'v3' });
    const put = (milestone: number, body: Record<string, unknown>, user = developer) =>
      t.http
        .put(`${milestonesUrl(id)}/${milestone}`)
        .set(as(user))
        .send(body);
    const nothing = await put(v1.id, {});
    expect([nothing.status, nothing.body]).toEqual([
      400,
      {
        message:
          '400 (Bad request) "title, description, start_date, due_date, state_event" are missing, at least one parameter must be provided',
      },
    ]);
    const taken = await put(v1.id, { title: 'v2' });
    expect([taken.status, taken.body]).toEqual([
      400,
      { message: 'Failed to update milestone {:title=>["already being used for another group or project milestone."]}' },
    ]);
    const early = await put(v1.id, { due_date: '2030-04-30' });
    expect([early.status, early.body]).toEqual([
      400,
      { message: 'Failed to update milestone {:due_date=>["must be greater than start date"]}' },
    ]);
    // Its own title again is no conflict.
    expect((await put(v1.id, { title: 'v1' })).status).toBe(200);
    const elsewhere = await put(theirs.id, { title: 'mine' });
    expect([elsewhere.status, elsewhere.body]).toEqual([404, { message: '404 Not found' }]);
    const reporterRes = await put(v1.id, { title: 'x' }, reporter);
    expect([reporterRes.status, reporterRes.body]).toEqual([403, { message: '403 Forbidden' }]);
    const badEvent = await put(v1.id, { state_event: 'reopen' });
    expect([badEvent.status, badEvent.body]).toEqual([400, { message: { state_event: ['does not have a valid value'] } }]);
    expect((await t.hosting.milestones.get(id, v1.id)).title).toBe('v1');
  });
});

describe('DELETE /projects/:id/milestones/:milestone_id', () => {
  it('deletes the milestone (204): its issues lose it, each with the system note `removed milestone`', async () => {
    const { id } = await project();
    const api = t.hosting.as(owner.id);
    const v1 = await api.milestones.create(id, { title: 'v1' });
    const issue = await api.issues.create(id, { title: 'Planned', milestone_id: v1.id });
    expect(issue.milestone).toEqual(v1);
    const other = await api.issues.create(id, { title: 'Unplanned' });
    const res = await t.http.delete(`${milestonesUrl(id)}/${v1.id}`).set(as(developer));
    expect([res.status, res.body]).toEqual([204, {}]);
    expect(await api.milestones.list(id)).toEqual([]);
    const after = await api.issues.get(id, issue.iid);
    expect(after.milestone).toBeNull();
    const notes = await api.issueNotes.list(id, issue.iid);
    expect(notes.map((note) => [note.body, note.system, note.author.id])).toEqual([['removed milestone', true, developer.id]]);
    expect(await api.issueNotes.list(id, other.iid)).toEqual([]);
    const again = await t.http.delete(`${milestonesUrl(id)}/${v1.id}`).set(as(developer));
    expect([again.status, again.body]).toEqual([404, { message: '404 Not found' }]);
  });

  it('is for developers: 403 to a reporter, 404 to a stranger', async () => {
    const { id } = await project();
    const v1 = await t.hosting.milestones.create(id, { title: 'v1' });
    expect((await t.http.delete(`${milestonesUrl(id)}/${v1.id}`).set(as(reporter))).status).toBe(403);
    expect((await t.http.delete(`${milestonesUrl(id)}/${v1.id}`).set(as(stranger))).status).toBe(404);
    await expect(t.hosting.as(reporter.id).milestones.delete(id, v1.id)).rejects.toThrow(ForbiddenError);
    expect(await t.hosting.milestones.get(id, v1.id)).toEqual(v1);
  });
});

describe('GET /projects/:id/milestones/:milestone_id/issues', () => {
  it('lists the issues with the milestone that the caller may read, by their labels’ priority, paged', async () => {
    const { id } = await project();
    const api = t.hosting.as(owner.id);
    const v1 = await api.milestones.create(id, { title: 'v1' });
    const v2 = await api.milestones.create(id, { title: 'v2' });
    await api.labels.create(id, { name: 'urgent', color: 'red', priority: 1 });
    await api.labels.create(id, { name: 'later', color: 'grey', priority: 5 });
    const plain = await api.issues.create(id, { title: 'Plain', milestone_id: v1.id });
    const later = await api.issues.create(id, { title: 'Later', milestone_id: v1.id, labels: ['later'] });
    const urgent = await api.issues.create(id, { title: 'Urgent', milestone_id: v1.id, labels: ['urgent'] });
    const secret = await api.issues.create(id, { title: 'Secret', milestone_id: v1.id, confidential: true });
    await api.issues.create(id, { title: 'Elsewhere', milestone_id: v2.id });
    await api.issues.create(id, { title: 'None' });
    const issuesUrl = `${milestonesUrl(id)}/${v1.id}/issues`;
    const byReporter = await t.http.get(issuesUrl).set(as(reporter));
    expect([byReporter.status, byReporter.body.map((issue: { title: string }) => issue.title)]).toEqual([
      200,
      ['Urgent', 'Later', 'Secret', 'Plain'],
    ]);
    expect(byReporter.body[0]).toEqual(await api.issues.list(id, { iids: [urgent.iid] }).then((list) => list[0]));
    const guest = await createUser(t.hosting);
    await api.projectMembers.add(id, { user_id: guest.id, access_level: 10 });
    const byGuest = await t.hosting.as(guest.id).milestones.issues(id, v1.id);
    expect([byGuest.map((issue) => issue.id), byGuest.total]).toEqual([[urgent.id, later.id, plain.id], 3]);
    expect(byGuest.some((issue) => issue.id === secret.id)).toBe(false);
    const paged = await t.http.get(issuesUrl).query({ per_page: 1, page: 2 }).set(as(reporter));
    expect([paged.body.map((issue: { id: number }) => issue.id), pageHeaders(paged.headers).total]).toEqual([[later.id], 4]);
    const missing = await t.http.get(`${milestonesUrl(id)}/999999/issues`).set(as(reporter));
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Not found' }]);
    expect((await t.http.get(issuesUrl).set(as(stranger))).status).toBe(404);
    expect((await t.http.get(issuesUrl)).status).toBe(401);
  });
});

describe('group milestones', () => {
  it(
    'are made by the group’s developers with the group’s next iid (201), ' + '403 to a reporter, 404 to a stranger, 401 anonymous',
    async () => {
      const { id, fullPath } = await group();
      const res = await t.http.post(groupMilestonesUrl(id)).set(as(developer)).send({ title: 'Q1', due_date: '2030-03-31' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: res.body.id,
        iid: 1,
        group_id: id,
        title: 'Q1',
        description: null,
        state: 'active',
        created_at: expect.stringMatching(ISO),
        updated_at: res.body.created_at,
        due_date: '2030-03-31',
        start_date: null,
        web_url: `http://forge.test/groups/${fullPath}/-/milestones/1`,
      });
      expect((await t.hosting.as(owner.id).groupMilestones.create(id, { title: 'Q2' })).iid).toBe(2);
      const reporterRes = await t.http.post(groupMilestonesUrl(id)).set(as(reporter)).send({ title: 'Q3' });
      expect([reporterRes.status, reporterRes.body]).toEqual([403, { message: '403 Forbidden' }]);
      const strangerRes = await t.http.post(groupMilestonesUrl(id)).set(as(stranger)).send({ title: 'Q3' });
      expect([strangerRes.status, strangerRes.body]).toEqual([404, { message: '404 Group Not Found' }]);
      const anonymous = await t.http.get(groupMilestonesUrl(id));
      expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
      await expect(t.hosting.as(reporter.id).groupMilestones.create(id, { title: 'Q3' })).rejects.toThrow(ForbiddenError);
      // A subgroup's developers are the group's: theirs to manage there too.
      const sub = await group({ parentId: id });
      expect((await t.hosting.as(developer.id).groupMilestones.create(sub.id, { title: 'Q1' })).group_id).toBe(sub.id);
    },
  );

  it('keep titles apart from the group’s projects’ milestones', async () => {
    const parent = await group();
    const { id } = await project({ namespaceId: parent.id });
    await t.hosting.milestones.create(id, { title: 'v1' });
    const res = await t.http.post(groupMilestonesUrl(parent.id)).set(as(developer)).send({ title: 'v1' });
    expect([res.status, res.body]).toEqual([
      400,
      { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' },
    ]);
  });

  it('are listed, read, changed and deleted as a project’s, by whoever may read the group', async () => {
    const { id } = await group({ visibility: 'public' });
    const other = await group();
    const api = t.hosting.as(developer.id);
    const q1 = await api.groupMilestones.create(id, { title: 'Q1', description: 'Winter' });
    const q2 = await api.groupMilestones.create(id, { title: 'Q2' });
    const foreign = await t.hosting.groupMilestones.create(other.id, { title: 'Q1' });
    const list = await t.http.get(groupMilestonesUrl(id)).query({ search: 'q' }).set(as(stranger));
    expect([list.status, list.body]).toEqual([200, [q2, q1]]);
    expect(pageHeaders(list.headers).total).toBe(2);
    const read = await t.http.get(`${groupMilestonesUrl(id)}/${q1.id}`).set(as(stranger));
    expect([read.status, read.body]).toEqual([200, q1]);
    const foreignRes = await t.http.get(`${groupMilestonesUrl(id)}/${foreign.id}`).set(as(developer));
    expect([foreignRes.status, foreignRes.body]).toEqual([404, { message: '404 Not found' }]);
    const hidden = await t.http.get(groupMilestonesUrl(other.id)).set(as(stranger));
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Group Not Found' }]);
    const changed = await t.http
      .put(`${groupMilestonesUrl(id)}/${q1.id}`)
      .set(as(developer))
      .send({ state_event: 'close', title: 'Q1 2030' });
    expect([changed.status, changed.body.state, changed.body.title]).toEqual([200, 'closed', 'Q1 2030']);
    expect(titles(await t.hosting.groupMilestones.list(id, { state: 'closed' }))).toEqual(['Q1 2030']);
    expect(
      (
        await t.http
          .put(`${groupMilestonesUrl(id)}/${q1.id}`)
          .set(as(stranger))
          .send({ title: 'x' })
      ).status,
    ).toBe(403);
    const nothing = await t.http
      .put(`${groupMilestonesUrl(id)}/${q1.id}`)
      .set(as(developer))
      .send({});
    expect(nothing.status).toBe(400);
    const deleted = await t.http.delete(`${groupMilestonesUrl(id)}/${q2.id}`).set(as(developer));
    expect(deleted.status).toBe(204);
    expect((await t.http.delete(`${groupMilestonesUrl(id)}/${q2.id}`).set(as(developer))).status).toBe(404);
    expect(titles(await t.hosting.groupMilestones.list(id))).toEqual(['Q1 2030']);
    // Administrators manage any group's.
    const byRoot = await t.http
      .put(`${groupMilestonesUrl(other.id)}/${foreign.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ description: 'Set by root' });
    expect([byRoot.status, byRoot.body.description]).toEqual([200, 'Set by root']);
  });

  it(
    'are the milestones of issues in the group’s projects and its subgroups’; ' + 'their issue list shows those the caller may read',
    async () => {
      const parent = await group({ visibility: 'public' });
      const sub = await group({ visibility: 'public', parentId: parent.id });
      const open = await project({ visibility: 'public', namespaceId: parent.id });
      const nested = await project({ visibility: 'public', namespaceId: sub.id });
      const closed = await project({ visibility: 'private', namespaceId: sub.id });
      const outside = await project({ visibility: 'public' });
      const api = t.hosting.as(owner.id);
      const q1 = await api.groupMilestones.create(parent.id, { title: 'Q1' });
      const first = await api.issues.create(open.id, { title: 'In the group', milestone_id: q1.id });
      expect(first.milestone).toEqual(q1);
      expect(first.milestone?.group_id).toBe(parent.id);
      const second = await api.issues.create(nested.id, { title: 'In the subgroup', milestone_id: q1.id });
      expect(second.milestone?.id).toBe(q1.id);
      const hidden = await api.issues.create(closed.id, { title: 'Private', milestone_id: q1.id });
      // A project outside the group cannot take it.
      expect((await api.issues.create(outside.id, { title: 'Outside', milestone_id: q1.id })).milestone).toBeNull();
      const ids = (body: { id: number }[]) => body.map((issue) => issue.id).sort((a, b) => a - b);
      const issuesUrl = `${groupMilestonesUrl(parent.id)}/${q1.id}/issues`;
      const byStranger = await t.http.get(issuesUrl).set(as(stranger));
      expect([byStranger.status, ids(byStranger.body)]).toEqual([200, [first.id, second.id]]);
      expect(ids(await t.hosting.as(reporter.id).groupMilestones.issues(parent.id, q1.id))).toEqual([first.id, second.id, hidden.id]);
      expect(ids((await t.http.get(issuesUrl).set('PRIVATE-TOKEN', ROOT_TOKEN)).body)).toEqual([first.id, second.id, hidden.id]);
      // Deleting it takes it from every project's issues.
      await t.hosting.as(developer.id).groupMilestones.delete(parent.id, q1.id);
      expect((await api.issues.get(nested.id, second.iid)).milestone).toBeNull();
      expect((await api.issueNotes.list(nested.id, second.iid)).map((note) => note.body)).toEqual(['removed milestone']);
    },
  );
});
