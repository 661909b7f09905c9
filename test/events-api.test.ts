/**
 * The Events API (GET /events, /users/:id/events, /projects/:id/events) over HTTP and in process: the exact shape of
 * each kind of event as the original's `Event` entity shows it, the filters, the order and the pages, and who sees what
 * (anonymous callers, strangers, guests, reporters, a confidential issue's author, external users, administrators).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event } from '../src/schemas/events.js';
import { createUser, linkHeader, pageHeaders, sharedHosting, type SharedHosting, userReference } from './helpers.js';

const BASE = 'http://forge.test';
let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let guest: User;
let reporter: User;
let stranger: User;
let outsider: User;
let external: User;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: BASE });
  [owner, guest, reporter, stranger, outsider] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t.hosting)));
  external = await createUser(t.hosting, { external: true });
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;
const as = (user: User) => ({ 'PRIVATE-TOKEN': user.token });
const AT = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const SHA = /^[0-9a-f]{40}$/;

/** A project of the owner's, with these members. */
async function project(visibility: 'private' | 'internal' | 'public' = 'private', members: [User, number][] = []): Promise<number> {
  const api = t.hosting.as(owner.id);
  const name = `events-api-${unique()}`;
  const created = await api.projects.create({ name, path: name, visibility });
  for (const [user, level] of members) await api.projectMembers.add(created.id, { user_id: user.id, access_level: level });
  return created.id;
}

/** An event as the API answers it: no target, by `author`, with `fields` over that. */
const event = (author: User, fields: Partial<Event>) => ({
  project_id: null,
  target_id: null,
  target_iid: null,
  target_type: null,
  author_id: author.id,
  target_title: null,
  created_at: AT,
  author: userReference(author, BASE),
  author_username: author.username,
  ...fields,
});

/** The answer of GET `path` (the caller's token, or none), checked to be a 200 list. */
async function list(path: string, caller?: User): Promise<Event[]> {
  const req = t.http.get(`/api/v4${path}`);
  const res = await (caller ? req.set(as(caller)) : req);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** What an event says, briefly: its action and its target (or the push's reference). */
const brief = (events: Event[]) =>
  events.map((shown) =>
    [shown.action_name, shown.target_type ?? shown.push_data?.ref ?? '-', shown.note?.body ?? shown.target_title ?? ''].join(' '),
  );

describe('each kind of event, as the API shows it', () => {
  it('pushes: a new branch, a commit to it, the branch deleted, a tag; with their push_data (HTTP and in process)', async () => {
    const id = await project();
    const api = t.hosting.as(owner.id);
    const start = await t.http
      .post(`/api/v4/projects/${id}/repository/files/README.md`)
      .set(as(owner))
      .send({ branch: 'main', content: '# Events\n', commit_message: 'Start\n\nThe first commit' });
    expect(start.status).toBe(201);
    const [main] = await api.commits.list(id, { ref_name: 'main' });
    const feature = await t.http
      .post(`/api/v4/projects/${id}/repository/commits`)
      .set(as(owner))
      .send({
        branch: 'feature',
        start_branch: 'main',
        commit_message: 'Feature work',
        actions: [{ action: 'create', file_path: 'feature.txt', content: 'f\n' }],
      });
    expect(feature.status).toBe(201);
    const more = await api.commits.create(id, {
      branch: 'feature',
      commit_message: 'More work',
      actions: [{ action: 'create', file_path: 'more.txt', content: 'm\n' }],
    });
    expect((await t.http.delete(`/api/v4/projects/${id}/repository/branches/feature`).set(as(owner))).status).toBe(204);
    const tag = await t.http.post(`/api/v4/projects/${id}/repository/tags`).set(as(owner)).send({ tag_name: 'v1', ref: 'main' });
    expect(tag.status).toBe(201);

    const push = (action_name: string, push_data: Event['push_data']) => event(owner, { project_id: id, action_name, push_data });
    const expected = [
      push('pushed new', {
        commit_count: 1,
        action: 'created',
        ref_type: 'branch',
        commit_from: null,
        commit_to: main.id,
        ref: 'main',
        commit_title: 'Start',
      }),
      push('pushed new', {
        commit_count: 1,
        action: 'created',
        ref_type: 'branch',
        commit_from: null,
        commit_to: feature.body.id,
        ref: 'feature',
        commit_title: 'Feature work',
      }),
      push('pushed to', {
        commit_count: 1,
        action: 'pushed',
        ref_type: 'branch',
        commit_from: feature.body.id,
        commit_to: more.id,
        ref: 'feature',
        commit_title: 'More work',
      }),
      push('deleted', {
        commit_count: 0,
        action: 'removed',
        ref_type: 'branch',
        commit_from: more.id,
        commit_to: null,
        ref: 'feature',
        commit_title: null,
      }),
      push('pushed new', {
        commit_count: 1,
        action: 'created',
        ref_type: 'tag',
        commit_from: null,
        commit_to: main.id,
        ref: 'v1',
        commit_title: 'Start',
      }),
    ];
    const res = await t.http.get(`/api/v4/projects/${id}/events?action=pushed&sort=asc`).set(as(owner));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected);
    expect(res.body[0].push_data.commit_to).toMatch(SHA);
    // In process: the same list, and the same events among the owner's own and among the user's.
    expect(await api.events.listForProject(id, { action: 'pushed', sort: 'asc' })).toEqual(res.body);
    expect(await api.events.list({ action: 'pushed', sort: 'asc' })).toEqual(res.body);
    expect(await t.hosting.as(null).events.listForUser(owner.username, { action: 'pushed', sort: 'asc' })).toEqual([]);
    expect(await t.hosting.events.listForUser(owner.id, { action: 'pushed', sort: 'asc' })).toEqual(res.body);
  });

  it('issues: opened, closed and reopened (`opened`); a change records nothing shown; the title is the issue’s', async () => {
    const id = await project('public');
    const created = await t.http.post(`/api/v4/projects/${id}/issues`).set(as(owner)).send({ title: 'Broken' });
    expect(created.status).toBe(201);
    const { iid, id: issueId } = created.body;
    for (const state_event of ['close', 'reopen']) {
      const res = await t.http.put(`/api/v4/projects/${id}/issues/${iid}`).set(as(owner)).send({ state_event });
      expect(res.status).toBe(200);
    }
    // A change (the title) is no event the API shows; the events show the issue's title as it is now.
    await t.hosting.as(owner.id).issues.update(id, iid, { title: 'Still broken', labels: ['bug'] });
    const issue = (action_name: string) =>
      event(owner, {
        project_id: id,
        action_name,
        target_id: issueId,
        target_iid: iid,
        target_type: 'Issue',
        target_title: 'Still broken',
      });
    const res = await t.http.get(`/api/v4/projects/${id}/events?target_type=issue&sort=asc`);
    expect([res.status, res.body]).toEqual([200, [issue('opened'), issue('closed'), issue('opened')]]);
    expect(await t.hosting.as(null).events.listForProject(id, { target_type: 'issue' })).toEqual([...res.body].reverse());
    // Nothing but the project's creation beside them.
    expect(brief(await list(`/projects/${id}/events`))).toEqual([
      'opened Issue Still broken',
      'closed Issue Still broken',
      'opened Issue Still broken',
      'created - ',
    ]);
  });

  it('merge requests: opened and merged (`accepted`), with the push of the merge commit', async () => {
    const id = await project('public');
    const api = t.hosting.as(owner.id);
    await api.repositoryFiles.create(id, 'README.md', { branch: 'main', content: '# Hi\n', commit_message: 'Start' });
    const work = await api.commits.create(id, {
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'Feature',
      actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }],
    });
    const opened = await t.http
      .post(`/api/v4/projects/${id}/merge_requests`)
      .set(as(owner))
      .send({ source_branch: 'feature', target_branch: 'main', title: 'Add the feature' });
    expect(opened.status).toBe(201);
    const [head] = await api.commits.list(id, { ref_name: 'main' });
    const merged = await t.http.put(`/api/v4/projects/${id}/merge_requests/${opened.body.iid}/merge`).set(as(owner)).send({});
    expect([merged.status, merged.body.state]).toEqual([200, 'merged']);
    const request = (action_name: string) =>
      event(owner, {
        project_id: id,
        action_name,
        target_id: opened.body.id,
        target_iid: opened.body.iid,
        target_type: 'MergeRequest',
        target_title: 'Add the feature',
      });
    const res = await t.http.get(`/api/v4/projects/${id}/events?sort=asc`).set(as(stranger));
    expect(res.status).toBe(200);
    expect(res.body.slice(-3)).toEqual([
      request('opened'),
      request('accepted'),
      event(owner, {
        project_id: id,
        action_name: 'pushed to',
        push_data: {
          commit_count: 2,
          action: 'pushed',
          ref_type: 'branch',
          commit_from: head.id,
          commit_to: merged.body.merge_commit_sha,
          ref: 'main',
          commit_title: "Merge branch 'feature' into 'main'",
        },
      }),
    ]);
    expect(brief(res.body)).toEqual([
      'created - ',
      'pushed new main ',
      'pushed new feature ',
      'opened MergeRequest Add the feature',
      'accepted MergeRequest Add the feature',
      'pushed to main ',
    ]);
    expect(res.body[2].push_data.commit_to).toBe(work.id);
    expect(await t.hosting.as(stranger.id).events.listForProject(id, { target_type: 'merge_request', sort: 'asc' })).toEqual([
      request('opened'),
      request('accepted'),
    ]);
  });

  it('comments on an issue, a merge request and a commit (a diff comment too): `commented on` a Note, with the note', async () => {
    const id = await project('public');
    const api = t.hosting.as(owner.id);
    await api.repositoryFiles.create(id, 'README.md', { branch: 'main', content: '# Hi\n', commit_message: 'Start' });
    await api.commits.create(id, {
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'Feature',
      actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }],
    });
    const issue = await api.issues.create(id, { title: 'Talk' });
    const request = await api.mergeRequests.create(id, { source_branch: 'feature', target_branch: 'main', title: 'Review' });
    const [head] = await api.commits.list(id, { ref_name: 'main' });
    const onIssue = await t.http.post(`/api/v4/projects/${id}/issues/${issue.iid}/notes`).set(as(reporter)).send({ body: 'On the issue' });
    expect(onIssue.status).toBe(201);
    const onRequest = await t.http
      .post(`/api/v4/projects/${id}/merge_requests/${request.iid}/notes`)
      .set(as(owner))
      .send({ body: 'On the request' });
    expect(onRequest.status).toBe(201);
    const onCommit = await t.http
      .post(`/api/v4/projects/${id}/repository/commits/${head.id}/comments`)
      .set(as(owner))
      .send({ note: 'On the commit' });
    expect(onCommit.status).toBe(201);
    const onLine = await t.http
      .post(`/api/v4/projects/${id}/repository/commits/${head.id}/comments`)
      .set(as(owner))
      .send({ note: 'On a line', path: 'README.md', line: 1, line_type: 'new' });
    expect(onLine.status).toBe(201);

    // A note's title is its noteable's (the original's Note delegates `title` to it): the issue's, the request's, the commit's.
    const comment = (author: User, noteId: unknown, title: string, note: Record<string, unknown>) =>
      event(author, {
        project_id: id,
        action_name: 'commented on',
        target_id: noteId as number,
        target_iid: noteId as number,
        target_type: 'Note',
        target_title: title,
        note: {
          id: noteId,
          type: null,
          attachment: null,
          author: userReference(author, BASE),
          created_at: AT,
          updated_at: AT,
          system: false,
          ...note,
        } as Event['note'],
      });
    const res = await t.http.get(`/api/v4/projects/${id}/events?action=commented&sort=asc`);
    expect(res.status).toBe(200);
    const [commitNoteId, lineNoteId] = [res.body[2]?.target_id, res.body[3]?.target_id];
    expect(res.body).toEqual([
      comment(reporter, onIssue.body.id, 'Talk', {
        body: 'On the issue',
        noteable_id: issue.id,
        noteable_type: 'Issue',
        noteable_iid: issue.iid,
      }),
      comment(owner, onRequest.body.id, 'Review', {
        body: 'On the request',
        noteable_id: request.id,
        noteable_type: 'MergeRequest',
        noteable_iid: request.iid,
      }),
      comment(owner, expect.any(Number), 'Start', {
        body: 'On the commit',
        noteable_id: null,
        noteable_type: 'Commit',
        noteable_iid: null,
      }),
      comment(owner, expect.any(Number), 'Start', {
        type: 'DiffNote',
        body: 'On a line',
        noteable_id: null,
        noteable_type: 'Commit',
        noteable_iid: null,
      }),
    ]);
    expect(lineNoteId).not.toBe(commitNoteId);
    // The note as it is now: an edited body shows.
    await api.issueNotes.update(id, issue.iid, onIssue.body.id, { body: 'On the issue, edited' });
    await api.issues.update(id, issue.iid, { title: 'Talk on' });
    const [edited] = await t.hosting.as(reporter.id).events.list({ target_type: 'note' });
    expect([edited.note?.body, edited.target_title]).toEqual(['On the issue, edited', 'Talk on']);
    expect(await t.hosting.events.listForUser(reporter.username, { target_type: 'note' })).toEqual([edited]);
  });

  it('a project created (`created`, no target); members joining and leaving (`joined`, `left`: the member is the author)', async () => {
    const name = `events-api-${unique()}`;
    const created = await t.http.post('/api/v4/projects').set(as(owner)).send({ name, visibility: 'public' });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const added = await t.http.post(`/api/v4/projects/${id}/members`).set(as(owner)).send({ user_id: guest.id, access_level: 10 });
    expect(added.status).toBe(201);
    // A change of level is no event the API shows.
    expect((await t.http.put(`/api/v4/projects/${id}/members/${guest.id}`).set(as(owner)).send({ access_level: 20 })).status).toBe(200);
    expect((await t.http.delete(`/api/v4/projects/${id}/members/${guest.id}`).set(as(owner))).status).toBe(204);
    const res = await t.http.get(`/api/v4/projects/${id}/events`);
    expect([res.status, res.body]).toEqual([
      200,
      [
        event(guest, { project_id: id, action_name: 'left' }),
        event(guest, { project_id: id, action_name: 'joined' }),
        event(owner, { project_id: id, action_name: 'created' }),
      ],
    ]);
    // Among the member's events, by its username.
    expect(await t.hosting.as(null).events.listForUser(guest.username, {})).toEqual(expect.arrayContaining(res.body.slice(0, 2)));
    const group = await t.hosting.as(owner.id).groups.create({ name: `g-${unique()}`, path: `g-${unique()}` });
    await t.hosting.as(owner.id).groupMembers.add(group.id, { user_id: guest.id, access_level: 10 });
    // A group's membership is none of a project's events.
    expect((await list(`/users/${guest.id}/events`, guest)).filter((shown) => shown.project_id === null)).toEqual([]);
  });

  it('milestones: opened, closed, reopened (`opened`) and destroyed; once destroyed their events no longer name it', async () => {
    const id = await project('public');
    const created = await t.http.post(`/api/v4/projects/${id}/milestones`).set(as(owner)).send({ title: 'v1' });
    expect(created.status).toBe(201);
    const milestone = created.body;
    for (const state_event of ['close', 'activate']) {
      expect((await t.http.put(`/api/v4/projects/${id}/milestones/${milestone.id}`).set(as(owner)).send({ state_event })).status).toBe(200);
    }
    const shown = (action_name: string) =>
      event(owner, {
        project_id: id,
        action_name,
        target_id: milestone.id,
        target_iid: milestone.iid,
        target_type: 'Milestone',
        target_title: 'v1',
      });
    expect(await list(`/projects/${id}/events?target_type=milestone&sort=asc`)).toEqual([
      shown('opened'),
      shown('closed'),
      shown('opened'),
    ]);
    expect((await t.http.delete(`/api/v4/projects/${id}/milestones/${milestone.id}`).set(as(owner))).status).toBe(204);
    // As the original: a destroyed milestone's events keep their type and lose their target.
    const gone = (action_name: string) => event(owner, { project_id: id, action_name, target_type: 'Milestone' });
    expect(await list(`/projects/${id}/events?target_type=milestone&sort=asc`)).toEqual([
      gone('opened'),
      gone('closed'),
      gone('opened'),
      gone('destroyed'),
    ]);
    expect(await t.hosting.as(stranger.id).events.listForProject(id, { action: 'destroyed' })).toEqual([gone('destroyed')]);
  });
});

describe('filters, order and pages', () => {
  let id: number;
  let all: Event[];
  beforeAll(async () => {
    id = await project('public');
    const api = t.hosting.as(owner.id);
    await api.repositoryFiles.create(id, 'README.md', { branch: 'main', content: '# Hi\n', commit_message: 'Start' });
    const issue = await api.issues.create(id, { title: 'Filtered' });
    await api.issues.update(id, issue.iid, { state_event: 'close' });
    await api.issueNotes.create(id, issue.iid, { body: 'A comment' });
    await api.milestones.create(id, { title: 'v1' });
    all = await list(`/projects/${id}/events`);
  });

  it('newest first, oldest first with sort=asc', async () => {
    expect(brief(all)).toEqual([
      'opened Milestone v1',
      'commented on Note A comment',
      'closed Issue Filtered',
      'opened Issue Filtered',
      'pushed new main ',
      'created - ',
    ]);
    expect(await list(`/projects/${id}/events?sort=asc`)).toEqual([...all].reverse());
    expect(await list(`/projects/${id}/events?sort=desc`)).toEqual(all);
    const sideways = await t.http.get(`/api/v4/projects/${id}/events?sort=sideways`);
    expect([sideways.status, sideways.body]).toEqual([400, { message: { sort: ['does not have a valid value'] } }]);
  });

  it('action and target_type; a value the original does not list is 400, as its parameters declare them', async () => {
    const cases: [string, string[]][] = [
      ['action=created', ['opened Milestone v1', 'opened Issue Filtered', 'created - ']],
      ['action=pushed', ['pushed new main ']],
      ['action=closed', ['closed Issue Filtered']],
      ['action=commented', ['commented on Note A comment']],
      ['action=merged', []],
      ['target_type=issue', ['closed Issue Filtered', 'opened Issue Filtered']],
      ['target_type=note', ['commented on Note A comment']],
      ['target_type=milestone', ['opened Milestone v1']],
      ['target_type=merge_request', []],
      ['target_type=project', []],
      ['action=created&target_type=issue', ['opened Issue Filtered']],
    ];
    for (const [query, expected] of cases) expect(brief(await list(`/projects/${id}/events?${query}`)), query).toEqual(expected);
    expect(brief(await t.hosting.as(null).events.listForProject(id, { action: 'closed' }))).toEqual(['closed Issue Filtered']);
    for (const query of ['action=exploded', 'target_type=widget', 'action=Created']) {
      const res = await t.http.get(`/api/v4/projects/${id}/events?${query}`);
      const name = query.split('=')[0];
      expect([res.status, res.body], query).toEqual([400, { message: { [name]: ['does not have a valid value'] } }]);
    }
  });

  it('before (before that day began) and after (after that day ended)', async () => {
    // The day the events were made, by their own times (a run at midnight makes no difference).
    const day = all[0].created_at.slice(0, 10);
    expect(all.every((shown) => shown.created_at.startsWith(day))).toBe(true);
    const shift = (days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    const cases: [string, number][] = [
      [`before=${day}`, 0],
      [`before=${shift(1)}`, all.length],
      [`after=${day}`, 0],
      [`after=${shift(-1)}`, all.length],
      [`after=${shift(-1)}&before=${shift(1)}`, all.length],
      [`after=${shift(-2)}&before=${shift(-1)}`, 0],
    ];
    for (const [query, count] of cases) expect((await list(`/projects/${id}/events?${query}`)).length, query).toBe(count);
    expect(await t.hosting.events.listForProject(id, { before: shift(1), after: shift(-1), action: 'pushed' })).toEqual(
      all.filter((shown) => shown.action_name === 'pushed new'),
    );
    for (const query of ['before=not-a-date', 'after=2024-13-01', 'before=2023-02-29']) {
      const res = await t.http.get(`/api/v4/projects/${id}/events?${query}`);
      const name = query.split('=')[0];
      expect([res.status, res.body], query).toEqual([400, { message: { [name]: ['is invalid'] } }]);
    }
    await expect(t.hosting.events.list({ before: 'not-a-date' })).rejects.toMatchObject({ status: 400 });
    // A timestamp's day counts, as Grape reads a Date.
    expect((await list(`/projects/${id}/events?before=${shift(1)}T08:30:00Z`)).length).toBe(all.length);
    expect((await list(`/projects/${id}/events?after=${day}T23:59:00Z`)).length).toBe(0);
  });

  it('pages: Link and X-* headers', async () => {
    const res = await t.http.get(`/api/v4/projects/${id}/events?per_page=2&page=2`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(all.slice(2, 4));
    expect(pageHeaders(res.headers)).toEqual({ total: 6, totalPages: 3, perPage: 2, page: 2, nextPage: 3, prevPage: 1 });
    const links = linkHeader(res.headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev']);
    const next = new URL(links.next);
    expect([next.origin, next.pathname, next.searchParams.get('page'), next.searchParams.get('per_page')]).toEqual([
      BASE,
      `/api/v4/projects/${id}/events`,
      '3',
      '2',
    ]);
    const last = await t.http.get(`/api/v4/projects/${id}/events?per_page=2&page=3&sort=asc`);
    expect(last.body).toEqual([...all].reverse().slice(4));
    expect(pageHeaders(last.headers)).toMatchObject({ page: 3, nextPage: null, prevPage: 2 });
    const inProcess = await t.hosting.events.listForProject(id, { per_page: 2, page: 2 });
    expect([[...inProcess], inProcess.total, inProcess.totalPages]).toEqual([all.slice(2, 4), 6, 3]);
  });
});

describe('who sees what', () => {
  /** A private project: pushes, an issue with a comment, a comment on a commit, a merge request, a milestone. */
  let secret: number;
  /** A public project with a public issue and a confidential one (the outsider's), commented on by the owner. */
  let open: number;
  let confidential: { id: number; iid: number };
  let internal: number;
  beforeAll(async () => {
    const api = t.hosting.as(owner.id);
    secret = await project('private', [
      [guest, 10],
      [reporter, 20],
    ]);
    await api.repositoryFiles.create(secret, 'README.md', { branch: 'main', content: '# Secret\n', commit_message: 'Secret start' });
    const issue = await api.issues.create(secret, { title: 'Secret issue' });
    await t.hosting.as(guest.id).issueNotes.create(secret, issue.iid, { body: 'Guest comment' });
    const [head] = await api.commits.list(secret, { ref_name: 'main' });
    await api.commitComments.create(secret, head.id, { note: 'Commit comment' });
    await api.commits.create(secret, {
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'Secret feature',
      actions: [{ action: 'create', file_path: 'f.txt', content: 'f\n' }],
    });
    const request = await api.mergeRequests.create(secret, { source_branch: 'feature', target_branch: 'main', title: 'Secret request' });
    await api.mergeRequestNotes.create(secret, request.iid, { body: 'Request comment' });
    await api.milestones.create(secret, { title: 'Secret milestone' });

    open = await project('public', [
      [guest, 10],
      [reporter, 20],
    ]);
    await api.repositoryFiles.create(open, 'README.md', { branch: 'main', content: '# Open\n', commit_message: 'Open start' });
    await api.issues.create(open, { title: 'Open issue' });
    confidential = await t.hosting.as(outsider.id).issues.create(open, { title: 'Confidential issue', confidential: true });
    await api.issueNotes.create(open, confidential.iid, { body: 'Confidential comment' });

    internal = await project('internal');
    await api.issues.create(internal, { title: 'Internal issue' });
  });

  const SECRET_ALL = [
    'opened Milestone Secret milestone',
    'commented on Note Request comment',
    'opened MergeRequest Secret request',
    'pushed new feature ',
    'commented on Note Commit comment',
    'commented on Note Guest comment',
    'opened Issue Secret issue',
    'pushed new main ',
    'joined - ',
    'joined - ',
    'created - ',
  ];
  const OPEN_ALL = [
    'commented on Note Confidential comment',
    'opened Issue Confidential issue',
    'opened Issue Open issue',
    'pushed new main ',
    'joined - ',
    'joined - ',
    'created - ',
  ];
  const OPEN_PUBLIC = OPEN_ALL.slice(2);

  it('a private project: 404 to anonymous callers, strangers and external users; guests no code nor requests; reporters all', async () => {
    for (const caller of [undefined, stranger, external]) {
      const req = t.http.get(`/api/v4/projects/${secret}/events`);
      const res = await (caller ? req.set(as(caller)) : req);
      expect([res.status, res.body], caller?.username ?? 'anonymous').toEqual([404, { message: '404 Project Not Found' }]);
    }
    await expect(t.hosting.as(stranger.id).events.listForProject(secret, {})).rejects.toMatchObject({ status: 404 });
    expect(brief(await list(`/projects/${secret}/events`, guest))).toEqual([
      'opened Milestone Secret milestone',
      'commented on Note Guest comment',
      'opened Issue Secret issue',
      'joined - ',
      'joined - ',
      'created - ',
    ]);
    expect(brief(await list(`/projects/${secret}/events`, reporter))).toEqual(SECRET_ALL);
    expect(brief(await t.hosting.as(reporter.id).events.listForProject(secret, {}))).toEqual(SECRET_ALL);
    expect(brief(await t.hosting.events.listForProject(secret, {}))).toEqual(SECRET_ALL);
    // X-Total counts only what the caller sees.
    const paged = await t.http.get(`/api/v4/projects/${secret}/events?per_page=1`).set(as(guest));
    expect(pageHeaders(paged.headers)).toMatchObject({ total: 6, totalPages: 6 });
  });

  it('a public project’s confidential issue: its events and comments on it only to its author, reporters and administrators', async () => {
    for (const caller of [undefined, stranger, external, guest]) {
      expect(brief(await list(`/projects/${open}/events`, caller)), caller?.username ?? 'anonymous').toEqual(OPEN_PUBLIC);
    }
    expect(brief(await t.hosting.as(null).events.listForProject(open, {}))).toEqual(OPEN_PUBLIC);
    for (const caller of [outsider, reporter]) {
      expect(brief(await list(`/projects/${open}/events`, caller)), caller.username).toEqual(OPEN_ALL);
    }
    expect(brief(await t.hosting.events.listForProject(open, {}))).toEqual(OPEN_ALL);
    // Assigned to it: the guest reads it now.
    await t.hosting.as(owner.id).issues.update(open, confidential.iid, { assignee_ids: [guest.id] });
    expect(brief(await list(`/projects/${open}/events`, guest))).toEqual(OPEN_ALL);
    await t.hosting.as(owner.id).issues.update(open, confidential.iid, { assignee_ids: [] });
    expect(brief(await list(`/projects/${open}/events`, guest))).toEqual(OPEN_PUBLIC);
  });

  it('a user’s events: those on projects the caller sees, of what it may read there (by ID or username)', async () => {
    const ownerEvents = (caller?: User) => list(`/users/${owner.id}/events?per_page=100`, caller);
    const inProjects = (events: Event[], ...ids: number[]) => brief(events.filter((shown) => ids.includes(shown.project_id!)));
    for (const caller of [undefined, stranger, external]) {
      const events = await ownerEvents(caller);
      const who = caller?.username ?? 'anonymous';
      expect(inProjects(events, secret), who).toEqual([]);
      // The owner's own: its comment on the confidential issue is not among them.
      expect(inProjects(events, open), who).toEqual(['opened Issue Open issue', 'pushed new main ', 'created - ']);
      expect(inProjects(events, internal), who).toEqual(caller === stranger ? ['opened Issue Internal issue', 'created - '] : []);
    }
    const byGuest = await ownerEvents(guest);
    expect(inProjects(byGuest, secret)).toEqual(['opened Milestone Secret milestone', 'opened Issue Secret issue', 'created - ']);
    const byReporter = await ownerEvents(reporter);
    expect(inProjects(byReporter, secret)).toEqual(SECRET_ALL.filter((line) => !/Guest comment|joined/.test(line)));
    expect(inProjects(byReporter, open)).toEqual([
      'commented on Note Confidential comment',
      'opened Issue Open issue',
      'pushed new main ',
      'created - ',
    ]);
    expect(inProjects(await list(`/users/${owner.username}/events?per_page=100`, reporter), secret, open)).toEqual(
      inProjects(byReporter, secret, open),
    );
    // The confidential issue's author sees it among its own, and a stranger none.
    expect(brief(await list(`/users/${outsider.username}/events`, outsider))).toEqual(['opened Issue Confidential issue']);
    expect(await list(`/users/${outsider.username}/events`, stranger)).toEqual([]);
    expect(await list(`/users/${outsider.id}/events`)).toEqual([]);
    expect(brief(await t.hosting.events.listForUser(outsider.id, {}))).toEqual(['opened Issue Confidential issue']);
    // The guest's comment on the private project, to those who see that project.
    expect(brief(await list(`/users/${guest.username}/events?target_type=note`, stranger))).toEqual([]);
    expect(brief(await list(`/users/${guest.username}/events?target_type=note`, reporter))).toEqual(['commented on Note Guest comment']);
    const missing = await t.http.get('/api/v4/users/no-such-user-at-all/events');
    expect([missing.status, missing.body]).toEqual([404, { message: '404 User Not Found' }]);
    await expect(t.hosting.events.listForUser(999_999, {})).rejects.toMatchObject({ status: 404 });
  });

  it('GET /events: the caller’s own events only; 401 anonymously', async () => {
    const anonymous = await t.http.get('/api/v4/events');
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
    await expect(t.hosting.as(null).events.list({})).rejects.toMatchObject({ status: 401 });
    const guests = await list('/events?per_page=100', guest);
    expect(guests.length).toBeGreaterThan(0);
    expect(guests.every((shown) => shown.author_id === guest.id && shown.author_username === guest.username)).toBe(true);
    expect(brief(guests.filter((shown) => shown.project_id === secret))).toEqual(['commented on Note Guest comment', 'joined - ']);
    expect(brief(await list('/events', outsider))).toEqual(['opened Issue Confidential issue']);
    expect(await list('/events', stranger)).toEqual([]);
    // Root's own: none here (the owner made everything).
    expect(await t.hosting.events.list({})).toEqual([]);
    expect(brief(await t.hosting.as(owner.id).events.list({ per_page: 100 })).length).toBeGreaterThan(SECRET_ALL.length);
  });

  it('an issue deleted: its events and the comments on it are gone for everyone', async () => {
    const id = await project('public', [[reporter, 20]]);
    const api = t.hosting.as(owner.id);
    const issue = await api.issues.create(id, { title: 'Doomed' });
    await t.hosting.as(reporter.id).issueNotes.create(id, issue.iid, { body: 'Doomed comment' });
    await api.issues.update(id, issue.iid, { state_event: 'close' });
    expect(brief(await list(`/projects/${id}/events`))).toEqual([
      'closed Issue Doomed',
      'commented on Note Doomed comment',
      'opened Issue Doomed',
      'joined - ',
      'created - ',
    ]);
    expect((await t.http.delete(`/api/v4/projects/${id}/issues/${issue.iid}`).set(as(owner))).status).toBe(204);
    expect(brief(await list(`/projects/${id}/events`))).toEqual(['joined - ', 'created - ']);
    expect(brief(await t.hosting.events.listForProject(id, {}))).toEqual(['joined - ', 'created - ']);
    expect((await list(`/users/${reporter.id}/events?target_type=note`, reporter)).map((shown) => shown.project_id)).not.toContain(id);
    // A comment deleted is gone too.
    const other = await api.issues.create(id, { title: 'Kept' });
    const note = await api.issueNotes.create(id, other.iid, { body: 'Deleted comment' });
    await api.issueNotes.delete(id, other.iid, note.id);
    expect(brief(await list(`/projects/${id}/events`))).toEqual(['opened Issue Kept', 'joined - ', 'created - ']);
  });
});
