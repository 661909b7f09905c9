import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, NotModifiedError } from '../src/errors.js';
import { createUser, linkHeader, pageHeaders, queriesOf, ROOT_TOKEN, sharedHosting, type SharedHosting } from './helpers.js';

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
async function project(visibility: 'private' | 'public' = 'private'): Promise<number> {
  const api = t.hosting.as(owner.id);
  counter += 1;
  const { id } = await api.projects.create({ name: `Labels ${counter}`, path: `labels-${process.pid}-${counter}`, visibility });
  await api.projectMembers.add(id, { user_id: reporter.id, access_level: 20 });
  await api.projectMembers.add(id, { user_id: guest.id, access_level: 10 });
  return id;
}

const as = (user: User) => ({ 'PRIVATE-TOKEN': user.token });
const labelsUrl = (id: number) => `/api/v4/projects/${id}/labels`;
const labelUrl = (id: number, label: number | string) => `${labelsUrl(id)}/${encodeURIComponent(String(label))}`;
const names = (body: { name: string }[]) => body.map((label) => label.name);

/** A label as answers show it, with no issues and no subscription unless told. */
const shown = (fields: { id: number; name: string; color: string; text_color?: string } & Record<string, unknown>) => ({
  description: null,
  open_issues_count: 0,
  closed_issues_count: 0,
  open_merge_requests_count: 0,
  priority: null,
  subscribed: false,
  is_project_label: true,
  text_color: '#FFFFFF',
  ...fields,
});

describe('POST /projects/:id/labels', () => {
  it('answers 201 with the label: a colour name made hex, a hex colour kept as given, the text colour for it', async () => {
    const id = await project();
    const res = await t.http
      .post(labelsUrl(id))
      .set(as(reporter))
      .send({ name: 'bug', color: 'Red', description: 'Something is broken', priority: 2 });
    expect([res.status, res.body]).toEqual([
      201,
      shown({ id: res.body.id, name: 'bug', color: '#FF0000', description: 'Something is broken', priority: 2 }),
    ]);
    const light = await t.http.post(labelsUrl(id)).set(as(reporter)).send({ name: 'docs', color: ' #eee ' });
    expect([light.status, light.body]).toEqual([201, shown({ id: light.body.id, name: 'docs', color: '#eee', text_color: '#333333' })]);
    // In process, the same; a priority of 0 is one.
    const ui = await t.hosting.as(owner.id).labels.create(id, { name: 'ui', color: '#0033CC', priority: 0 });
    expect(ui).toEqual(shown({ id: ui.id, name: 'ui', color: '#0033CC', priority: 0 }));
    // A form's empty priority is none.
    const form = await t.http.post(labelsUrl(id)).set(as(reporter)).type('form').send({ name: 'api', color: '#0033CC', priority: '' });
    expect([form.status, form.body.priority]).toEqual([201, null]);
  });

  it('answers 409 for a name the project has, 400 with the validation messages for a bad colour or name', async () => {
    const id = await project();
    await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000' });
    const taken = await t.http.post(labelsUrl(id)).set(as(reporter)).send({ name: 'bug', color: '#00FF00' });
    expect([taken.status, taken.body]).toEqual([409, { message: 'Label already exists' }]);
    // Only the name as given counts there; stripped, it is the validation's.
    const spaced = await t.http.post(labelsUrl(id)).set(as(reporter)).send({ name: ' bug ', color: '#00FF00' });
    expect([spaced.status, spaced.body]).toEqual([400, { message: { title: ['has already been taken'] } }]);
    const badColor = await t.http.post(labelsUrl(id)).set(as(reporter)).send({ name: 'ui', color: '#GGGGGG' });
    expect([badColor.status, badColor.body]).toEqual([400, { message: { color: ['must be a valid color code'] } }]);
    const both = await t.http.post(labelsUrl(id)).set(as(reporter)).send({ name: 'a,b', color: 'reddish' });
    expect([both.status, both.body]).toEqual([400, { message: { color: ['must be a valid color code'], title: ['is invalid'] } }]);
    const blank = await t.http.post(labelsUrl(id)).set(as(reporter)).send({ name: '  ', color: '#123' });
    expect([blank.status, blank.body]).toEqual([400, { message: { title: ["can't be blank", 'is invalid'] } }]);
    const missing = await t.http.post(labelsUrl(id)).set(as(reporter)).send({ name: 'ui' });
    expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "color" not given' }]);
    await expect(t.hosting.labels.create(id, { name: 'bug', color: 'blue' })).rejects.toThrow(ConflictError);
    await expect(t.hosting.labels.create(id, { name: 'x', color: 'cyan' })).rejects.toThrow(BadRequestError);
    expect(names(await t.hosting.labels.list(id))).toEqual(['bug']);
  });

  it(
    'is for reporters and above: 403 to a guest, 404 to a stranger, ' + '401 without authentication; nothing in an archived project',
    async () => {
      const id = await project();
      const guestRes = await t.http.post(labelsUrl(id)).set(as(guest)).send({ name: 'bug', color: '#FF0000' });
      expect([guestRes.status, guestRes.body]).toEqual([403, { message: '403 Forbidden' }]);
      const strangerRes = await t.http.post(labelsUrl(id)).set(as(stranger)).send({ name: 'bug', color: '#FF0000' });
      expect([strangerRes.status, strangerRes.body]).toEqual([404, { message: '404 Project Not Found' }]);
      const anonymous = await t.http.post(labelsUrl(id)).send({ name: 'bug', color: '#FF0000' });
      expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
      await expect(t.hosting.as(guest.id).labels.create(id, { name: 'bug', color: '#FF0000' })).rejects.toThrow(ForbiddenError);
      await t.hosting.as(owner.id).projects.archive(id);
      const archived = await t.http.post(labelsUrl(id)).set(as(owner)).send({ name: 'bug', color: '#FF0000' });
      expect(archived.status).toBe(403);
      expect(await t.hosting.labels.list(id)).toEqual([]);
    },
  );
});

describe('GET /projects/:id/labels', () => {
  it(
    'lists the labels by name to whoever may read the project; `search` in the name and description; 401 anonymous, ' +
      'even of a public project',
    async () => {
      const id = await project('public');
      for (const [name, description] of [
        ['bug', 'Broken'],
        ['UI', null],
        ['api', 'The REST interface'],
        ['feature', null],
      ]) {
        await t.hosting.labels.create(id, { name: name!, color: '#428BCA', description });
      }
      const list = (user: User, query: Record<string, unknown> = {}) => t.http.get(labelsUrl(id)).query(query).set(as(user));
      const all = await list(stranger);
      expect([all.status, names(all.body)]).toEqual([200, ['UI', 'api', 'bug', 'feature']]);
      expect(names((await list(guest, { search: 'u' })).body)).toEqual(['UI', 'bug', 'feature']);
      expect(names((await list(guest, { search: 'rest' })).body)).toEqual(['api']);
      expect(names((await list(guest, { search: '%' })).body)).toEqual([]);
      expect((await list(guest, { with_counts: true })).body).toHaveLength(4);
      const anonymous = await t.http.get(labelsUrl(id));
      expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
      const inProcess = await t.hosting.as(guest.id).labels.list(id, { per_page: 2, search: 'e' });
      expect([names(inProcess), inProcess.total]).toEqual([['api', 'bug'], 3]);
    },
  );

  it('answers 404 to a stranger to a private project, and pages with the Link and X-* headers', async () => {
    const id = await project();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await t.hosting.labels.create(id, { name, color: '#000' });
    const hidden = await t.http.get(labelsUrl(id)).set(as(stranger));
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
    await expect(t.hosting.as(stranger.id).labels.list(id)).rejects.toThrow(NotFoundError);
    const res = await t.http.get(labelsUrl(id)).query({ per_page: 2, page: 2 }).set(as(guest));
    expect(names(res.body)).toEqual(['c', 'd']);
    expect(pageHeaders(res.headers)).toEqual({ total: 5, totalPages: 3, perPage: 2, page: 2, nextPage: 3, prevPage: 1 });
    expect(Object.keys(linkHeader(res.headers.link)).sort()).toEqual(['first', 'last', 'next', 'prev']);
    const past = await t.http.get(labelsUrl(id)).query({ page: 9 }).set(as(guest));
    expect([past.status, past.body, past.headers['x-total']]).toEqual([200, [], '5']);
  });

  it('counts the open and closed issues that carry each label, of those the caller may read', async () => {
    const id = await project();
    const api = t.hosting.as(owner.id);
    await api.labels.create(id, { name: 'bug', color: '#FF0000' });
    await api.issues.create(id, { title: 'One', labels: ['bug', 'ui'] });
    await api.issues.create(id, { title: 'Two', labels: ['bug'] });
    const closed = await api.issues.create(id, { title: 'Three', labels: ['bug'] });
    await api.issues.update(id, closed.iid, { state_event: 'close' });
    await api.issues.create(id, { title: 'Secret', labels: ['bug'], confidential: true });
    const deleted = await api.issues.create(id, { title: 'Gone', labels: ['ui'] });
    await api.issues.delete(id, deleted.iid);
    const counts = (labels: { name: string; open_issues_count: number; closed_issues_count: number }[]) =>
      Object.fromEntries(labels.map((label) => [label.name, [label.open_issues_count, label.closed_issues_count]]));
    // A label named on an issue is made with the original's default colour.
    const byReporter = await t.http.get(labelsUrl(id)).set(as(reporter));
    expect(counts(byReporter.body)).toEqual({ bug: [3, 1], ui: [1, 0] });
    expect(byReporter.body[1].color).toBe('#428BCA');
    // A guest reads no confidential issue of others.
    expect(counts((await t.http.get(labelsUrl(id)).set(as(guest))).body)).toEqual({ bug: [2, 1], ui: [1, 0] });
    expect(counts(await t.hosting.labels.list(id))).toEqual({ bug: [3, 1], ui: [1, 0] });
    expect((await t.hosting.as(guest.id).labels.get(id, 'bug')).open_issues_count).toBe(2);
  });

  it('costs the same few statements for many labels as for one', async () => {
    const id = await project();
    await t.hosting.labels.create(id, { name: 'only', color: '#000' });
    const one = await queriesOf(t.db, () => t.http.get(labelsUrl(id)).set(as(guest)));
    for (let n = 0; n < 30; n += 1) await t.hosting.labels.create(id, { name: `label ${n}`, color: '#000' });
    await t.hosting.issues.create(id, { title: 'Labelled', labels: ['label 1', 'label 2'] });
    const many = await queriesOf(t.db, () => t.http.get(labelsUrl(id)).set(as(guest)));
    expect(many.length).toBe(one.length);
  });
});

describe('GET /projects/:id/labels/:label_id', () => {
  it('answers one label by ID or by name (an ID first), 404 for another project’s', async () => {
    const id = await project();
    const other = await project();
    const bug = await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000' });
    const slashed = await t.hosting.labels.create(id, { name: 'team/web ui', color: '#FF0000' });
    const foreign = await t.hosting.labels.create(other, { name: 'elsewhere', color: '#FF0000' });
    // A label named after an ID another label has: the ID wins, as the original looks it up.
    const numeric = await t.hosting.labels.create(id, { name: String(bug.id), color: '#000000' });
    for (const [key, want] of [
      [bug.id, bug],
      ['bug', bug],
      ['team/web ui', slashed],
      [String(bug.id), bug],
      [String(numeric.id), numeric],
    ] as const) {
      const res = await t.http.get(labelUrl(id, key)).set(as(guest));
      expect([res.status, res.body], String(key)).toEqual([200, want]);
    }
    const foreignRes = await t.http.get(labelUrl(id, foreign.id)).set(as(owner));
    expect([foreignRes.status, foreignRes.body]).toEqual([404, { message: '404 Label Not Found' }]);
    const huge = await t.http.get(labelUrl(id, '99999999999')).set(as(owner));
    expect([huge.status, huge.body]).toEqual([404, { message: '404 Label Not Found' }]);
    await expect(t.hosting.labels.get(id, 'nothing')).rejects.toThrow(NotFoundError);
  });
});

describe('PUT /projects/:id/labels', () => {
  it('changes the label named `name`: its name, colour, description and priority', async () => {
    const id = await project();
    const bug = await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000', priority: 3 });
    const res = await t.http
      .put(labelsUrl(id))
      .set(as(reporter))
      .send({ name: 'bug', new_name: ' defect ', color: 'white', description: 'Broken', priority: null });
    expect([res.status, res.body]).toEqual([
      200,
      shown({ id: bug.id, name: 'defect', color: '#FFFFFF', text_color: '#333333', description: 'Broken' }),
    ]);
    // A blank new name is no name; the rest changes.
    const blank = await t.hosting.as(reporter.id).labels.updateByName(id, { name: 'defect', new_name: '', priority: 1 });
    expect([blank.name, blank.priority]).toEqual(['defect', 1]);
  });

  it('answers 400 without a change, 404 `Label not found`, 400 for a taken name or a bad colour, 403 to a guest', async () => {
    const id = await project();
    await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000' });
    await t.hosting.labels.create(id, { name: 'ui', color: '#FF0000' });
    const nothing = await t.http.put(labelsUrl(id)).set(as(reporter)).send({ name: 'bug' });
    expect([nothing.status, nothing.body]).toEqual([
      400,
      { message: '400 (Bad request) "new_name, color, description, priority" are missing, at least one parameter must be provided' },
    ]);
    const unnamed = await t.http.put(labelsUrl(id)).set(as(reporter)).send({ color: '#000' });
    expect([unnamed.status, unnamed.body]).toEqual([400, { message: '400 (Bad request) "name" not given' }]);
    const missing = await t.http.put(labelsUrl(id)).set(as(reporter)).send({ name: 'nothing', color: '#000' });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Label not found Not Found' }]);
    const taken = await t.http.put(labelsUrl(id)).set(as(reporter)).send({ name: 'bug', new_name: 'ui', color: 'nocolour' });
    expect([taken.status, taken.body]).toEqual([
      400,
      { message: { color: ['must be a valid color code'], title: ['has already been taken'] } },
    ]);
    const comma = await t.http.put(labelsUrl(id)).set(as(reporter)).send({ name: 'bug', new_name: 'a,b' });
    expect([comma.status, comma.body]).toEqual([400, { message: { title: ['is invalid'] } }]);
    // Its own name again is no conflict.
    expect((await t.http.put(labelsUrl(id)).set(as(reporter)).send({ name: 'bug', new_name: 'bug' })).status).toBe(200);
    const guestRes = await t.http.put(labelsUrl(id)).set(as(guest)).send({ name: 'bug', color: '#000' });
    expect([guestRes.status, guestRes.body]).toEqual([403, { message: '403 Forbidden' }]);
    const anonymous = await t.http.put(labelsUrl(id)).send({ name: 'bug', color: '#000' });
    expect(anonymous.status).toBe(401);
    expect((await t.hosting.labels.get(id, 'bug')).color).toBe('#FF0000');
  });
});

describe('PUT /projects/:id/labels/:label_id', () => {
  it('changes a label named by ID or name in the path, as later clients do; 404 `Label Not Found`', async () => {
    const id = await project();
    const other = await project();
    const bug = await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000' });
    const foreign = await t.hosting.labels.create(other, { name: 'bug', color: '#FF0000' });
    const byId = await t.http.put(labelUrl(id, bug.id)).set(as(reporter)).send({ new_name: 'kind/bug' });
    expect([byId.status, byId.body]).toEqual([200, { ...bug, name: 'kind/bug' }]);
    const byName = await t.http.put(labelUrl(id, 'kind/bug')).set(as(reporter)).send({ description: 'Broken' });
    expect([byName.status, byName.body]).toEqual([200, { ...bug, name: 'kind/bug', description: 'Broken' }]);
    expect(await t.hosting.labels.update(id, bug.id, { color: 'navy' })).toEqual({
      ...bug,
      name: 'kind/bug',
      description: 'Broken',
      color: '#000080',
    });
    const elsewhere = await t.http.put(labelUrl(id, foreign.id)).set(as(reporter)).send({ color: '#000' });
    expect([elsewhere.status, elsewhere.body]).toEqual([404, { message: '404 Label Not Found' }]);
    const nothing = await t.http.put(labelUrl(id, bug.id)).set(as(reporter)).send({});
    expect(nothing.status).toBe(400);
    expect((await t.http.put(labelUrl(id, bug.id)).set(as(guest)).send({ color: '#000' })).status).toBe(403);
    expect((await t.http.put(labelUrl(id, bug.id)).set(as(stranger)).send({ color: '#000' })).status).toBe(404);
    expect((await t.hosting.labels.get(other, 'bug')).color).toBe('#FF0000');
  });
});

describe('DELETE /projects/:id/labels', () => {
  it('deletes the label named `name` (204), or the one the path names; it leaves every issue', async () => {
    const id = await project();
    const api = t.hosting.as(owner.id);
    await api.labels.create(id, { name: 'bug', color: '#FF0000' });
    const ui = await api.labels.create(id, { name: 'ui', color: '#FF0000' });
    await api.labels.subscribe(id, 'ui');
    const issue = await api.issues.create(id, { title: 'One', labels: ['bug', 'ui', 'api'] });
    const byName = await t.http.delete(labelsUrl(id)).query({ name: 'bug' }).set(as(reporter));
    expect([byName.status, byName.body]).toEqual([204, {}]);
    const byPath = await t.http.delete(labelUrl(id, ui.id)).set(as(reporter));
    expect(byPath.status).toBe(204);
    await t.hosting.as(reporter.id).labels.delete(id, 'api');
    expect((await api.issues.get(id, issue.iid)).labels).toEqual([]);
    expect(await t.hosting.labels.list(id)).toEqual([]);
    // Nothing of its subscription is left to a label made again under the same name.
    const again = await api.labels.create(id, { name: 'ui', color: '#FF0000' });
    expect(again.subscribed).toBe(false);
  });

  it('answers 404 `Label Not Found`, 400 without a name, 403 to a guest', async () => {
    const id = await project();
    await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000' });
    const missing = await t.http.delete(labelsUrl(id)).send({ name: 'nothing' }).set(as(reporter));
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Label Not Found' }]);
    const missingPath = await t.http.delete(labelUrl(id, 'nothing')).set(as(reporter));
    expect([missingPath.status, missingPath.body]).toEqual([404, { message: '404 Label Not Found' }]);
    const unnamed = await t.http.delete(labelsUrl(id)).set(as(reporter));
    expect([unnamed.status, unnamed.body]).toEqual([400, { message: '400 (Bad request) "name" not given' }]);
    expect((await t.http.delete(labelsUrl(id)).query({ name: 'bug' }).set(as(guest))).status).toBe(403);
    await expect(t.hosting.as(guest.id).labels.deleteByName(id, { name: 'bug' })).rejects.toThrow(ForbiddenError);
    expect(names(await t.hosting.labels.list(id))).toEqual(['bug']);
  });
});

describe('POST /projects/:id/labels/:label_id/subscribe and /unsubscribe', () => {
  it('subscribe the caller (201, `subscribed` true; 304 when it is already) and unsubscribe it (201; 304 when it is not)', async () => {
    const id = await project();
    const bug = await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000' });
    const subscribe = (label: number | string, user: User) => t.http.post(`${labelUrl(id, label)}/subscribe`).set(as(user));
    const unsubscribe = (label: number | string, user: User) => t.http.post(`${labelUrl(id, label)}/unsubscribe`).set(as(user));
    const first = await subscribe(bug.id, guest);
    expect([first.status, first.body]).toEqual([201, { ...bug, subscribed: true }]);
    const again = await subscribe('bug', guest);
    expect([again.status, again.text]).toEqual([304, '']);
    // Each caller's own.
    expect((await t.http.get(labelUrl(id, 'bug')).set(as(reporter))).body.subscribed).toBe(false);
    expect((await t.http.get(labelsUrl(id)).set(as(guest))).body[0].subscribed).toBe(true);
    const off = await unsubscribe('bug', guest);
    expect([off.status, off.body]).toEqual([201, { ...bug, subscribed: false }]);
    expect((await unsubscribe(bug.id, guest)).status).toBe(304);
    expect((await unsubscribe(bug.id, reporter)).status).toBe(304);
    await expect(t.hosting.as(reporter.id).labels.unsubscribe(id, bug.id)).rejects.toThrow(NotModifiedError);
    expect((await t.hosting.as(reporter.id).labels.subscribe(id, 'bug')).subscribed).toBe(true);
    const missing = await subscribe('nothing', guest);
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Label Not Found' }]);
    expect((await subscribe(bug.id, stranger)).status).toBe(404);
    expect((await t.http.post(`${labelUrl(id, bug.id)}/subscribe`)).status).toBe(401);
  });

  it('are open to administrators on any project', async () => {
    const id = await project();
    await t.hosting.labels.create(id, { name: 'bug', color: '#FF0000' });
    const res = await t.http.post(`${labelUrl(id, 'bug')}/subscribe`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([res.status, res.body.subscribed]).toEqual([201, true]);
  });
});
