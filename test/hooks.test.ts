/**
 * Project hooks (src/api/hooks.ts): managed by a project's maintainers, their URLs checked as the original checks them,
 * and deliveries of pushes and tag pushes with the original's payloads and headers (test/fixtures/webhooks), retried
 * when the receiver fails.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentOf } from '../src/hosting.js';
import { queryRows } from '../src/db/rows.js';
import { sql } from '../src/db/sql.js';
import { EVENT_COLUMNS, recordedEvent } from '../src/events/statements.js';
import { branchFilterTakes } from '../src/services/hooks/deliveries.js';
import { systemPayload } from '../src/services/hooks/system-payloads.js';
import { GIT_ENV } from './git-http.js';
import { newSshKey } from './fixtures.js';
import { createUser, eventually, hasGit, ROOT_TOKEN, sharedHosting, type SharedHosting } from './helpers.js';

type TestUser = Awaited<ReturnType<typeof createUser>>;

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/webhooks/${name}.json`, import.meta.url), 'utf8'));

/** The keys of an object, and of each object in it, as paths: what "field for field" compares. */
function shapeOf(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.length ? shapeOf(value[0], `${prefix}[]`) : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [`${prefix}${key}`, ...shapeOf(inner, `${prefix}${key}.`)]);
}

/**
 * Whether every field of the original's documented payload (but those it documents wrongly) is in the delivery's;
 * its `changes` are what one change made, and are compared apart.
 */
function expectOriginalFields(body: unknown, name: string, stale: string[] = []): void {
  const ours = new Set(shapeOf(body));
  const missing = shapeOf(fixture(name)).filter((field) => !ours.has(field) && !stale.includes(field) && !field.startsWith('changes.'));
  expect(missing).toEqual([]);
}

/** The project a delivery is about. */
const projectOf = (body: Record<string, unknown>) => (body.project_id ?? (body.project as { id?: number } | undefined)?.id) as number;

/** How long a delivery may take to arrive on a machine loaded by other suites (CI runs two at once). */
const DELIVERED_WITHIN = 60_000;

let t: SharedHosting;
let receiver: Server;
let receiverUrl: string;
const received: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
/** Answers to give, in turn, before 200s. */
const failures: number[] = [];
/** Deliveries to `?held` URLs, answered once let go. */
const held: (() => void)[] = [];
/** Query strings of hook URLs whose deliveries fail (500) while they are here. */
const failing = new Set<string>();
let owner: TestUser;

beforeAll(async () => {
  t = await sharedHosting({ allowLocalRequests: true });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const query = request.url?.split('?')[1] ?? '';
      const status = failing.has(query) ? 500 : (failures.shift() ?? 200);
      const answer = () => {
        if (status === 200) received.push({ headers: request.headers, body: JSON.parse(body) });
        response.writeHead(status).end();
      };
      // `?held`: a receiver that answers only once let go.
      if (query === 'held') held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  owner = await createUser(t.hosting);
});

afterAll(async () => {
  receiver?.close();
  await t?.close();
});

describe('project hooks', () => {
  it('are managed by maintainers, answer without their token, and refuse a URL that is not http(s)', async () => {
    const developer = await createUser(t.hosting);
    const api = t.hosting.as(owner.id);
    const project = await api.projects.create({ name: 'Hooked' });
    await api.projectMembers.add(project.id, { user_id: developer.id, access_level: 30 });
    const created = await t.http
      .post(`/api/v4/projects/${project.id}/hooks`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ url: 'https://hooks.example.com/a', token: 'secret', issues_events: true });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: 'https://hooks.example.com/a',
      project_id: project.id,
      push_events: true,
      push_events_branch_filter: null,
      tag_push_events: false,
      issues_events: true,
      confidential_issues_events: false,
      merge_requests_events: false,
      note_events: false,
      confidential_note_events: false,
      job_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      alert_status: 'executable',
      disabled_until: null,
      created_at: expect.any(String),
    });
    const id = created.body.id;
    const listed = await t.http.get(`/api/v4/projects/${project.id}/hooks`).set('PRIVATE-TOKEN', owner.token);
    expect([listed.status, listed.body, listed.headers['x-total']]).toEqual([200, [created.body], '1']);
    // Later clients send only what changes; the era's send the URL again.
    const changed = await t.http
      .put(`/api/v4/projects/${project.id}/hooks/${id}`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ push_events: false });
    expect(changed.body).toMatchObject({ push_events: false, url: 'https://hooks.example.com/a', issues_events: true });
    const moved = await t.http
      .put(`/api/v4/projects/${project.id}/hooks/${id}`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ url: 'https://hooks.example.com/b' });
    expect(moved.body.url).toBe('https://hooks.example.com/b');

    expect((await t.http.get(`/api/v4/projects/${project.id}/hooks`).set('PRIVATE-TOKEN', developer.token)).status).toBe(403);
    const other = await api.projects.create({ name: 'Other' });
    expect((await t.http.get(`/api/v4/projects/${other.id}/hooks/${id}`).set('PRIVATE-TOKEN', owner.token)).body).toEqual({
      message: '404 Hook Not Found',
    });
    const wrong = await t.http
      .post(`/api/v4/projects/${project.id}/hooks`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ url: 'ftp://example.com/' });
    expect([wrong.status, wrong.body]).toEqual([400, { message: { url: ['is blocked: Only allowed protocols are http, https'] } }]);
    const deleted = await t.http.delete(`/api/v4/projects/${project.id}/hooks/${id}`).set('PRIVATE-TOKEN', owner.token);
    expect(deleted.status).toBe(204);
    expect((await t.http.get(`/api/v4/projects/${project.id}/hooks/${id}`).set('PRIVATE-TOKEN', owner.token)).status).toBe(404);
  });

  it('takes branches by a filter of a name or a wildcard', () => {
    expect(branchFilterTakes(null, 'main')).toBe(true);
    expect(branchFilterTakes('main', 'main')).toBe(true);
    expect(branchFilterTakes('main', 'mainline')).toBe(false);
    expect(branchFilterTakes('release/*', 'release/1.0')).toBe(true);
    expect(branchFilterTakes('release/*', 'feature/1.0')).toBe(false);
  });
});

describe('deliveries', () => {
  it(
    "delivers a push and a tag push with the original's payload and headers, and retries a delivery the receiver failed",
    async () => {
      const api = t.hosting.as(owner.id);
      const project = await api.projects.create({ name: 'Delivered' });
      await api.projectHooks.create(project.id, { url: receiverUrl, token: 'hook-secret', tag_push_events: true });
      // The receiver fails the first delivery's first try: it arrives on the next, before the others.
      failures.push(500);
      await api.commits.create(project.id, {
        branch: 'master',
        commit_message: 'First\n\nwith a body',
        actions: [{ action: 'create', file_path: 'README.md', content: '# hi\n' }],
      });
      const second = await api.commits.create(project.id, {
        branch: 'master',
        commit_message: 'Second',
        actions: [
          { action: 'update', file_path: 'README.md', content: '# hello\n' },
          { action: 'create', file_path: 'src/a.txt', content: 'a\n' },
        ],
      });
      await api.tags.create(project.id, { tag_name: 'v1.0', ref: 'master' });
      await eventually(
        async () => expect(received.filter((delivery) => projectOf(delivery.body) === project.id)).toHaveLength(3),
        DELIVERED_WITHIN,
      );
      const [first, push, tag] = received.filter((delivery) => projectOf(delivery.body) === project.id);

      expect(first.headers).toMatchObject({
        'content-type': 'application/json',
        'x-gitlab-event': 'Push Hook',
        'x-gitlab-token': 'hook-secret',
        'x-gitlab-event-uuid': expect.stringMatching(/^[0-9a-f-]{36}$/),
        'user-agent': expect.stringMatching(/^GitLab\//),
      });
      // Field for field with the original's documented push (its `event_name` and `message` beside, as its code sends).
      expect(shapeOf(push.body).sort()).toEqual([...shapeOf(fixture('push')), 'event_name', 'message'].sort());
      expect(push.body).toMatchObject({
        object_kind: 'push',
        ref: 'refs/heads/master',
        after: second.id,
        checkout_sha: second.id,
        user_username: owner.username,
        total_commits_count: 1,
        project: { id: project.id, path_with_namespace: `${owner.username}/delivered`, visibility_level: 0, default_branch: 'master' },
        repository: { name: 'Delivered' },
      });
      expect(push.body.commits).toEqual([
        expect.objectContaining({ id: second.id, message: second.message, added: ['src/a.txt'], modified: ['README.md'], removed: [] }),
      ]);
      expect(first.body).toMatchObject({ before: '0'.repeat(40), total_commits_count: 1 });
      // Each delivery recorded (once its answer is in: just after the receiver has it); the failed try of the first came
      // again, and arrived.
      await eventually(async () => {
        const logs = await t.db.rows.execute(
          `select trigger, status, attempts, response_status from web_hook_logs l join web_hooks h on h.id = l.hook_id
          where h.project_id = ${project.id} order by l.id`,
        );
        expect(logs).toEqual([
          { trigger: 'push_hooks', status: 'delivered', attempts: 2, response_status: '200' },
          { trigger: 'push_hooks', status: 'delivered', attempts: 1, response_status: '200' },
          { trigger: 'tag_push_hooks', status: 'delivered', attempts: 1, response_status: '200' },
        ]);
      });
      // A settled delivery's record goes once two days old, when the hook's job next runs.
      const [{ hook_id: hookId }] = await t.db.rows.execute(`select id as hook_id from web_hooks where project_id = ${project.id}`);
      await t.db.rows.execute(
        `insert into web_hook_logs (hook_id, trigger, url, request_headers, request_data, status, created_at, updated_at)
       values (${hookId}, 'push_hooks', 'http://old', '{}', '{}', 'delivered', now() - interval '3 days', now() - interval '3 days')`,
      );
      await api.commits.create(project.id, {
        branch: 'master',
        commit_message: 'Third',
        actions: [{ action: 'create', file_path: 'third.txt', content: '3\n' }],
      });
      await eventually(
        async () => expect(received.filter((delivery) => projectOf(delivery.body) === project.id)).toHaveLength(4),
        DELIVERED_WITHIN,
      );
      expect(await t.db.rows.execute(`select id from web_hook_logs where hook_id = ${hookId} and url = 'http://old'`)).toEqual([]);
      expect(tag.headers['x-gitlab-event']).toBe('Tag Push Hook');
      expect(tag.body).toMatchObject({ object_kind: 'tag_push', ref: 'refs/tags/v1.0', after: second.id });
      // The documented tag push leaves out what the original's code sends for both kinds (the push builder's fields).
      expect(shapeOf(tag.body).sort()).toEqual(shapeOf(push.body).sort());
      expect(shapeOf(fixture('tag_push')).every((field) => shapeOf(tag.body).includes(field))).toBe(true);
    },
    3 * DELIVERED_WITHIN,
  );
});

describe('deliveries of issues, merge requests and notes', () => {
  it(
    "delivers each with the original's payload, action and changes; confidential ones only to hooks that ask",
    async () => {
      const api = t.hosting.as(owner.id);
      const project = await api.projects.create({ name: 'Tracked' });
      await api.commits.create(project.id, {
        branch: 'master',
        commit_message: 'Base',
        actions: [{ action: 'create', file_path: 'README.md', content: '# base\n' }],
      });
      const flags = { push_events: false, issues_events: true, merge_requests_events: true, note_events: true };
      await api.projectHooks.create(project.id, { url: receiverUrl, token: 'tracked', ...flags });
      const ofProject = () => received.filter((delivery) => projectOf(delivery.body) === project.id);

      await api.labels.create(project.id, { name: 'bug', color: '#ff0000' });
      await api.labels.create(project.id, { name: 'api', color: '#00ff00' });
      const issue = await api.issues.create(project.id, { title: 'Broken', labels: ['bug'], assignee_ids: [owner.id] });
      await api.issues.update(project.id, issue.iid, { labels: ['api'], title: 'Broken badly' });
      await api.issues.update(project.id, issue.iid, { state_event: 'close' });
      await api.issues.create(project.id, { title: 'Secret', confidential: true });
      await api.issueNotes.create(project.id, issue.iid, { body: 'Seen it' });
      await eventually(async () => expect(ofProject()).toHaveLength(4), DELIVERED_WITHIN);
      const [opened, updated, closed, note] = ofProject();

      expect(opened.headers).toMatchObject({ 'x-gitlab-event': 'Issue Hook', 'x-gitlab-token': 'tracked' });
      // The documentation's `position` and `branch_name` are older than its era's code, which no longer sent them.
      expectOriginalFields(opened.body, 'issue', ['object_attributes.position', 'object_attributes.branch_name']);
      expect(opened.body).toMatchObject({
        object_kind: 'issue',
        event_type: 'issue',
        user: { id: owner.id, username: owner.username },
        project: { id: project.id, path_with_namespace: `${owner.username}/tracked` },
        object_attributes: {
          id: issue.id,
          iid: issue.iid,
          action: 'open',
          assignee_ids: [owner.id],
          assignee_id: owner.id,
          url: expect.stringMatching(new RegExp(`/${owner.username}/tracked/issues/${issue.iid}$`)),
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
        },
        assignees: [{ username: owner.username }],
        changes: {},
      });
      expect(updated.body.object_attributes).toMatchObject({ action: 'update' });
      const changes = updated.body.changes as Record<string, { previous: unknown; current: unknown }>;
      expect(changes.title).toEqual({ previous: 'Broken', current: 'Broken badly' });
      expect(changes.labels).toEqual({
        previous: [expect.objectContaining({ title: 'bug', color: '#ff0000', project_id: project.id, type: 'ProjectLabel' })],
        current: [expect.objectContaining({ title: 'api', color: '#00ff00' })],
      });
      expect(shapeOf(changes.labels)).toEqual(shapeOf(fixture('issue').changes.labels));
      expect(changes.updated_at).toEqual({ previous: expect.stringMatching(/ UTC$/), current: expect.stringMatching(/ UTC$/) });
      expect(closed.body).toMatchObject({ object_attributes: { action: 'close', state: 'closed' } });
      expect((closed.body.changes as Record<string, unknown>).state).toEqual({ previous: 'opened', current: 'closed' });

      expect(note.headers['x-gitlab-event']).toBe('Note Hook');
      expectOriginalFields(note.body, 'note_issue', ['issue.position', 'issue.branch_name']);
      expect(note.body).toMatchObject({
        object_kind: 'note',
        event_type: 'note',
        project_id: project.id,
        object_attributes: { note: 'Seen it', noteable_type: 'Issue', noteable_id: issue.id, system: false },
        issue: { id: issue.id, iid: issue.iid, state: 'closed' },
      });
      expect((note.body.object_attributes as { url: string }).url).toMatch(/\/issues\/\d+#note_\d+$/);

      // Confidential ones go to a hook that asks for them, under their own name.
      await api.projectHooks.create(project.id, {
        url: `${receiverUrl}?confidential`,
        push_events: false,
        confidential_issues_events: true,
        confidential_note_events: true,
      });
      const secret = await api.issues.create(project.id, { title: 'Also secret', confidential: true });
      await api.issueNotes.create(project.id, secret.iid, { body: 'Hush' });
      await eventually(async () => expect(ofProject()).toHaveLength(6), DELIVERED_WITHIN);
      const [confidential, confidentialNote] = ofProject().slice(4);
      expect(confidential.headers['x-gitlab-event']).toBe('Confidential Issue Hook');
      expect(confidential.body).toMatchObject({
        event_type: 'confidential_issue',
        object_attributes: { iid: secret.iid, confidential: true },
      });
      expect(confidentialNote.headers['x-gitlab-event']).toBe('Confidential Note Hook');
      expect(confidentialNote.body).toMatchObject({ event_type: 'confidential_note', object_attributes: { note: 'Hush' } });

      // A merge request opened, its source branch pushed, merged; a comment on a commit.
      await api.branches.create(project.id, { branch: 'topic', ref: 'master' });
      const request = await api.mergeRequests.create(project.id, {
        source_branch: 'topic',
        target_branch: 'master',
        title: 'WIP: Topic',
        labels: ['bug'],
      });
      const pushed = await api.commits.create(project.id, {
        branch: 'topic',
        commit_message: 'On topic',
        actions: [{ action: 'create', file_path: 'topic.txt', content: 'topic\n' }],
      });
      await eventually(async () => expect((await api.mergeRequests.get(project.id, request.iid)).sha).toBe(pushed.id));
      await api.mergeRequests.update(project.id, request.iid, { title: 'Topic' });
      await api.mergeRequests.merge(project.id, request.iid, {});
      await api.commitComments.create(project.id, pushed.id, { note: 'Nice commit' });
      await eventually(async () => expect(ofProject()).toHaveLength(11), DELIVERED_WITHIN);
      const [open, refreshed, retitled, merged, commitNote] = ofProject().slice(6);
      expect(open.headers['x-gitlab-event']).toBe('Merge Request Hook');
      // The documentation nests `assignee` in `object_attributes`; the era's code sent it beside them.
      expectOriginalFields(open.body, 'merge_request', [
        'object_attributes.assignee',
        'object_attributes.assignee.name',
        'object_attributes.assignee.username',
        'object_attributes.assignee.avatar_url',
        'object_attributes.last_commit',
        'object_attributes.last_commit.id',
        'object_attributes.last_commit.message',
        'object_attributes.last_commit.timestamp',
        'object_attributes.last_commit.url',
        'object_attributes.last_commit.author',
        'object_attributes.last_commit.author.name',
        'object_attributes.last_commit.author.email',
      ]);
      expect(open.body).toMatchObject({
        object_kind: 'merge_request',
        object_attributes: {
          iid: request.iid,
          action: 'open',
          source_branch: 'topic',
          target_branch: 'master',
          work_in_progress: true,
          source: { path_with_namespace: `${owner.username}/tracked` },
          target: { path_with_namespace: `${owner.username}/tracked` },
        },
      });
      expect(refreshed.body).toMatchObject({ object_attributes: { action: 'update', oldrev: expect.stringMatching(/^[0-9a-f]{40}$/) } });
      expect(refreshed.body.object_attributes).toMatchObject({ last_commit: { id: pushed.id, message: pushed.message } });
      expect(retitled.body).toMatchObject({
        object_attributes: { action: 'update' },
        changes: { title: { previous: 'WIP: Topic', current: 'Topic' } },
      });
      expect(merged.body).toMatchObject({ object_attributes: { action: 'merge', state: 'merged', work_in_progress: false } });
      expect(commitNote.body).toMatchObject({
        object_kind: 'note',
        object_attributes: { note: 'Nice commit', noteable_type: 'Commit', commit_id: pushed.id },
        commit: {
          id: pushed.id,
          message: pushed.message,
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/),
        },
      });
      // The documented note is on a line of the commit's diff, and carries it (`st_diff`); this one is on the whole commit.
      const lineOnly = shapeOf(fixture('note_commit').object_attributes.st_diff).map((field) => `object_attributes.st_diff.${field}`);
      expectOriginalFields(commitNote.body, 'note_commit', lineOnly);
    },
    4 * DELIVERED_WITHIN,
  );
});

describe('system hooks', () => {
  it(
    'are administrators’, hear of what happens across the instance with the original’s system payloads, and test at once',
    async () => {
      const admin = t.hosting;
      const normal = await createUser(t.hosting);
      const refused = await t.http.get('/api/v4/hooks').set('PRIVATE-TOKEN', normal.token);
      expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }]);
      const created = await t.http
        .post('/api/v4/hooks')
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({ url: `${receiverUrl}?system`, token: 'sys' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        url: `${receiverUrl}?system`,
        push_events: false,
        tag_push_events: false,
        merge_requests_events: false,
        repository_update_events: true,
        enable_ssl_verification: true,
        created_at: expect.any(String),
      });
      const listed = await t.http.get('/api/v4/hooks').set('PRIVATE-TOKEN', ROOT_TOKEN);
      expect(listed.body).toContainEqual(created.body);
      const hookId = created.body.id as number;

      // The test: the original's made-up project_create, sent at once and answered.
      const tested = await t.http.get(`/api/v4/hooks/${hookId}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
      expect([tested.status, tested.body]).toEqual([200, fixture('system_hook_test')]);
      const test = received.find((delivery) => delivery.body.owner_email === 'example@gitlabhq.com');
      expect(test?.headers).toMatchObject({ 'x-gitlab-event': 'System Hook', 'x-gitlab-token': 'sys' });

      // What happens to users, projects, memberships, keys and groups.
      const user = await createUser(admin, { name: 'Sys Tem' });
      const api = admin.as(user.id);
      const project = await api.projects.create({ name: 'Systemic', visibility: 'internal' });
      await api.projects.update(project.id, { path: 'systemic-renamed' });
      await api.projectMembers.add(project.id, { user_id: normal.id, access_level: 40 });
      await api.projectMembers.remove(project.id, normal.id);
      const group = await admin.groups.create({ name: 'Sys Group', path: `sys-group-${user.id}` });
      await admin.groupMembers.add(group.id, { user_id: user.id, access_level: 30 });
      const key = await api.sshKeys.create({ title: 'laptop', key: newSshKey() });
      await api.sshKeys.delete(key.id);
      await api.projects.delete(project.id);
      await admin.groups.delete(group.id);
      await admin.users.delete(user.id);

      const deliveries = await t.hosting.hooks.deliveries({ hook_id: hookId, trigger: 'system_hooks' });
      const events = deliveries
        .map((delivery) => delivery.request_data as Record<string, unknown>)
        // This test's, and not the made-up one of the hook's test.
        .filter((data) => data.owner_email !== 'example@gitlabhq.com')
        .filter(
          (data) =>
            data.user_id === user.id || data.project_id === project.id || data.group_id === group.id || data.username === user.username,
        );
      expect(events.map((data) => data.event_name)).toEqual([
        'user_create',
        'project_create',
        'project_rename',
        'user_add_to_team',
        'user_remove_from_team',
        'group_create',
        // Its maker, then the member added.
        'user_add_to_group',
        'user_add_to_group',
        'key_create',
        'key_destroy',
        'project_destroy',
        'group_destroy',
        'user_destroy',
      ]);
      const byName = (name: string) => events.find((data) => data.event_name === name)!;
      // Field for field with the original's documented system payloads.
      for (const name of events.map((data) => data.event_name as string)) expectOriginalFields(byName(name), name);
      expect(byName('user_create')).toMatchObject({ name: 'Sys Tem', username: user.username, email: user.email, user_id: user.id });
      expect(byName('project_create')).toMatchObject({
        name: 'Systemic',
        path: 'systemic',
        path_with_namespace: `${user.username}/systemic`,
        owner_name: 'Sys Tem',
        owner_email: user.email,
        project_visibility: 'internal',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
      expect(byName('project_rename')).toMatchObject({
        path: 'systemic-renamed',
        path_with_namespace: `${user.username}/systemic-renamed`,
        old_path_with_namespace: `${user.username}/systemic`,
      });
      expect(byName('user_add_to_team')).toMatchObject({ access_level: 'Maintainer', project_access: 'Maintainer', user_id: normal.id });
      expect(events.filter((data) => data.event_name === 'user_add_to_group')[1]).toMatchObject({
        group_access: 'Developer',
        group_name: 'Sys Group',
        user_username: user.username,
      });
      expect(byName('key_destroy')).toMatchObject({ id: key.id, username: user.username, key: key.key });
      expect(byName('project_destroy')).toMatchObject({
        path_with_namespace: `${user.username}/systemic-renamed`,
        owner_email: user.email,
      });
      expect(byName('group_destroy')).toMatchObject({ name: 'Sys Group', full_path: `sys-group-${user.id}`, owner_name: null });
      expect(byName('user_destroy')).toMatchObject({ username: user.username, email: user.email, name: 'Sys Tem' });
      // Sent to the receiver as recorded, with the system hooks' header.
      await eventually(async () => {
        const sent = received.filter((delivery) => delivery.body.event_name === 'user_destroy' && delivery.body.user_id === user.id);
        expect(sent.map((delivery) => delivery.headers['x-gitlab-event'])).toEqual(['System Hook']);
      }, DELIVERED_WITHIN);

      expect((await t.http.delete(`/api/v4/hooks/${hookId}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(204);
      expect((await t.http.get(`/api/v4/hooks/${hookId}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
    },
    4 * DELIVERED_WITHIN,
  );

  it('name a project, a user and a group removed before their earlier events are delivered, as their removals recorded them', async () => {
    const user = await createUser(t.hosting, { name: 'Soon Gone' });
    const project = await t.hosting.as(user.id).projects.create({ name: 'Fleeting' });
    await t.hosting.projectMembers.add(project.id, { user_id: owner.id, access_level: 30 });
    const group = await t.hosting.groups.create({ name: 'Fleeting group', path: `fleeting-${user.id}` });
    await t.hosting.groupMembers.add(group.id, { user_id: user.id, access_level: 30 });
    await t.hosting.projects.delete(project.id);
    await t.hosting.groups.delete(group.id);
    await t.hosting.users.delete(user.id);
    // The payloads of the earlier events, made now, as a consumer that comes to them late makes them.
    const { db } = environmentOf(t.hosting);
    const rows = await queryRows(
      db.rows,
      sql`select ${EVENT_COLUMNS} from events e where (e.kind = 'user.created' and e.target_id = ${user.id})
        or (e.kind = 'member.added' and (e.project_id = ${project.id} or e.group_id = ${group.id})) order by e.id`,
    );
    const payloads = await Promise.all(rows.map((row) => systemPayload(db.rows, recordedEvent(row))));
    expect(payloads.map((payload) => payload?.event_name)).toEqual([
      'user_create',
      'user_add_to_team',
      'user_add_to_group',
      'user_add_to_group',
    ]);
    expect(payloads[0]).toMatchObject({ name: 'Soon Gone', username: user.username, email: user.email, user_id: user.id });
    expect(payloads[1]).toMatchObject({
      project_name: 'Fleeting',
      project_path: 'fleeting',
      project_path_with_namespace: `${user.username}/fleeting`,
      user_id: owner.id,
    });
    expect(payloads[3]).toMatchObject({
      group_name: 'Fleeting group',
      group_path: `fleeting-${user.id}`,
      user_username: user.username,
      user_name: 'Soon Gone',
    });
  });

  it('hear of pushes, tag pushes, merge requests and repository updates only as they ask', async () => {
    const hook = await t.hosting.systemHooks.create({ url: `${receiverUrl}?pushes`, push_events: true, merge_requests_events: true });
    const api = t.hosting.as(owner.id);
    const project = await api.projects.create({ name: 'Systemically pushed' });
    const commit = await api.commits.create(project.id, {
      branch: 'master',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }],
    });
    await api.tags.create(project.id, { tag_name: 'v1', ref: 'master' });
    const deliveries = await t.hosting.hooks.deliveries({ hook_id: hook.id });
    const mine = deliveries.filter((delivery) => projectOf(delivery.request_data) === project.id);
    expect(mine.map((delivery) => [delivery.trigger, delivery.request_headers['X-Gitlab-Event']])).toEqual([
      ['system_hooks', 'System Hook'],
      ['push_hooks', 'System Hook'],
      ['repository_update_hooks', 'System Hook'],
      ['repository_update_hooks', 'System Hook'],
    ]);
    expect(mine[0].request_data).toMatchObject({ event_name: 'project_create' });
    expect(mine[1].request_data).toMatchObject({ object_kind: 'push', after: commit.id });
    const update = mine[2].request_data;
    expectOriginalFields(update, 'repository_update');
    expect(update).toMatchObject({
      event_name: 'repository_update',
      user_id: owner.id,
      project_id: project.id,
      changes: [{ before: '0'.repeat(40), after: commit.id, ref: 'refs/heads/master' }],
      refs: ['refs/heads/master'],
    });
    await t.hosting.systemHooks.delete(hook.id);
  });
});

describe('group hooks', () => {
  it('hear of every project of the group and of its subgroups, and are its owners’', async () => {
    const api = t.hosting.as(owner.id);
    const group = await api.groups.create({ name: 'Hooked group', path: `hooked-${owner.id}` });
    const subgroup = await api.groups.create({ name: 'Inner', path: 'inner', parent_id: group.id });
    const developer = await createUser(t.hosting);
    await api.groupMembers.add(group.id, { user_id: developer.id, access_level: 40 });
    const refused = await t.http.post(`/api/v4/groups/${group.id}/hooks`).set('PRIVATE-TOKEN', developer.token).send({ url: receiverUrl });
    expect(refused.status).toBe(403);
    const created = await t.http
      .post(`/api/v4/groups/${group.id}/hooks`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ url: `${receiverUrl}?group`, issues_events: true, push_events: false });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ group_id: group.id, issues_events: true, push_events: false, alert_status: 'executable' });
    const project = await api.projects.create({ name: 'Deep', namespace_id: subgroup.id });
    const issue = await api.issues.create(project.id, { title: 'Heard above' });
    const [delivery] = await t.hosting.hooks.deliveries({ hook_id: created.body.id });
    expect(delivery).toMatchObject({
      trigger: 'issue_hooks',
      request_headers: { 'X-Gitlab-Event': 'Issue Hook' },
      request_data: { object_kind: 'issue', object_attributes: { iid: issue.iid, action: 'open' }, project: { id: project.id } },
    });
    const listed = await t.http.get(`/api/v4/groups/${group.id}/hooks`).set('PRIVATE-TOKEN', owner.token);
    expect([listed.status, listed.body]).toEqual([200, [created.body]]);
    expect((await t.http.delete(`/api/v4/groups/${group.id}/hooks/${created.body.id}`).set('PRIVATE-TOKEN', owner.token)).status).toBe(204);
  });
});

describe('testing a hook, and the record of its deliveries', () => {
  it('sends a sample of a trigger at once, lists what was sent, and sends it again', async () => {
    const api = t.hosting.as(owner.id);
    const project = await api.projects.create({ name: 'Tested' });
    const hook = await api.projectHooks.create(project.id, { url: `${receiverUrl}?tested`, token: 'tested', push_events: false });
    const path = `/api/v4/projects/${project.id}/hooks/${hook.id}`;
    const empty = await t.http.post(`${path}/test/push_events`).set('PRIVATE-TOKEN', owner.token);
    expect([empty.status, empty.body]).toEqual([422, { message: 'Ensure the project has at least one commit.' }]);
    const wrong = await t.http.post(`${path}/test/nothing_events`).set('PRIVATE-TOKEN', owner.token);
    expect(wrong.status).toBe(400);
    const commits = [];
    for (const name of ['a', 'b', 'c', 'd'])
      commits.push(
        await api.commits.create(project.id, {
          branch: 'master',
          commit_message: `Add ${name}`,
          actions: [{ action: 'create', file_path: `${name}.txt`, content: `${name}\n` }],
        }),
      );
    await t.hosting.hooks.deliveries();
    const before = received.length;
    const tested = await t.http.post(`${path}/test/push_events`).set('PRIVATE-TOKEN', owner.token);
    expect([tested.status, tested.body]).toEqual([201, { message: '201 Created' }]);
    // Sent before the answer: the newest three commits of the default branch, as the original's sample.
    const sample = received.slice(before).find((delivery) => delivery.headers['x-gitlab-token'] === 'tested')!;
    expect(sample.headers).toMatchObject({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'tested' });
    expect(sample.body).toMatchObject({ object_kind: 'push', before: commits[1].id, after: commits[3].id, total_commits_count: 3 });
    expect((sample.body.commits as { id: string }[]).map((commit) => commit.id)).toEqual(
      [commits[3].id, commits[2].id, commits[1].id].reverse(),
    );
    const noIssues = await t.http.post(`${path}/test/issues_events`).set('PRIVATE-TOKEN', owner.token);
    expect([noIssues.status, noIssues.body]).toEqual([422, { message: 'Ensure the project has issues.' }]);

    // The record: newest first, the test's delivery among them, as sent.
    const events = await t.http.get(`${path}/events`).set('PRIVATE-TOKEN', owner.token);
    expect(events.status).toBe(200);
    expect(events.headers['x-total']).toBe('1');
    expect(events.body[0]).toEqual({
      id: expect.any(Number),
      url: `${receiverUrl}?tested`,
      trigger: 'push_hooks',
      request_headers: {
        'Content-Type': 'application/json',
        'X-Gitlab-Event': 'Push Hook',
        'User-Agent': expect.stringMatching(/^GitLab\//),
      },
      request_data: sample.body,
      response_headers: expect.any(Object),
      response_body: '',
      execution_duration: expect.any(Number),
      response_status: '200',
      status: 'delivered',
      attempts: 1,
      created_at: expect.any(String),
    });
    const failed = await t.http.get(`${path}/events?status=server_failure`).set('PRIVATE-TOKEN', owner.token);
    expect([failed.status, failed.body]).toEqual([200, []]);
    const resent = await t.http.post(`${path}/events/${events.body[0].id}/resend`).set('PRIVATE-TOKEN', owner.token);
    expect([resent.status, resent.body]).toEqual([201, { response_status: 200 }]);
    expect(received.at(-1)!.body).toEqual(sample.body);
    const missing = await t.http.post(`${path}/events/0/resend`).set('PRIVATE-TOKEN', owner.token);
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Web Hook Log Not Found' }]);
    // A receiver that fails the test: 422 with its status.
    failures.push(500);
    const refused = await t.http.post(`${path}/test/push_events`).set('PRIVATE-TOKEN', owner.token);
    expect([refused.status, refused.body]).toEqual([422, { message: 'Response status: 500' }]);
  });

  it(
    'leaves a hook that keeps failing alone for a while, and takes it back once a delivery succeeds',
    async () => {
      const api = t.hosting.as(owner.id);
      const project = await api.projects.create({ name: 'Failing' });
      const hook = await api.projectHooks.create(project.id, { url: `${receiverUrl}?failing`, issues_events: true, push_events: false });
      // Three failed tries in a row already: the next failure leaves it alone.
      await t.db.rows.execute(`update web_hooks set recent_failures = 3 where id = ${hook.id}`);
      failing.add('failing');
      await api.issues.create(project.id, { title: 'Fails' });
      const disabled = await eventually(async () => {
        const got = await api.projectHooks.get(project.id, hook.id);
        expect(got.alert_status).toBe('temporarily_disabled');
        return got;
      }, DELIVERED_WITHIN);
      // For a minute from its failed try (the fourth in a row).
      const [failed] = await t.db.rows.execute(`select updated_at from web_hook_logs where hook_id = ${hook.id}`);
      expect(new Date(disabled.disabled_until!).getTime() - new Date(failed.updated_at).getTime()).toBeGreaterThanOrEqual(60_000);
      // Meanwhile its events make no deliveries.
      await api.issues.create(project.id, { title: 'Not delivered' });
      expect((await t.hosting.hooks.deliveries({ hook_id: hook.id })).map((delivery) => delivery.request_data.object_attributes)).toEqual([
        expect.objectContaining({ title: 'Fails' }),
      ]);
      // Its delivery job waits until then; once its time is up, the pending delivery's next try succeeds, and it is back.
      const waiting = await eventually(async () => {
        const [job] = await t.db.rows.execute(
          `select id, run_at from jobs where kind = 'web_hook_delivery' and status = 'queued' and payload = '{"hookId":${hook.id}}'`,
        );
        expect(new Date(job.run_at).toISOString()).toBe(disabled.disabled_until);
        return job;
      });
      failing.delete('failing');
      await t.db.rows.execute(`update web_hooks set disabled_until = now() where id = ${hook.id}`);
      await t.db.rows.execute(`delete from jobs where id = ${waiting.id}`);
      await environmentOf(t.hosting).jobs.enqueue(t.db.rows, 'web_hook_delivery', { hookId: hook.id });
      await eventually(async () => {
        expect((await t.hosting.hooks.deliveries({ hook_id: hook.id }))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
        // Its count of failures goes back to none just after the delivery's record.
        expect((await t.db.rows.execute(`select recent_failures from web_hooks where id = ${hook.id}`))[0]).toEqual({ recent_failures: 0 });
      }, DELIVERED_WITHIN);
      expect(await api.projectHooks.get(project.id, hook.id)).toMatchObject({ alert_status: 'executable', disabled_until: null });
    },
    3 * DELIVERED_WITHIN,
  );
});

describe('deliveries of pipelines', () => {
  it("delivers a pipeline's changes of status, its statuses as its builds, with the original's payload", async () => {
    const api = t.hosting.as(owner.id);
    const project = await api.projects.create({ name: 'Piped' });
    const commit = await api.commits.create(project.id, {
      branch: 'master',
      commit_message: 'Build me',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a\n' }],
    });
    const hook = await api.projectHooks.create(project.id, { url: receiverUrl, push_events: false, pipeline_events: true });
    await api.commitStatuses.create(project.id, commit.id, { state: 'running', name: 'build', ref: 'master' });
    await api.commitStatuses.create(project.id, commit.id, { state: 'success', name: 'build', ref: 'master' });
    const deliveries = await t.hosting.hooks.deliveries({ hook_id: hook.id });
    expect(deliveries.map((delivery) => [delivery.trigger, delivery.request_headers['X-Gitlab-Event']])).toEqual([
      ['pipeline_hooks', 'Pipeline Hook'],
      ['pipeline_hooks', 'Pipeline Hook'],
    ]);
    const passed = deliveries[1].request_data;
    // The documented example's builds were made by a runner (their `when` and `manual` alike): every field is here.
    expectOriginalFields(passed, 'pipeline');
    expect(passed).toMatchObject({
      object_kind: 'pipeline',
      object_attributes: { ref: 'master', tag: false, sha: commit.id, status: 'success', detailed_status: 'passed', stages: ['external'] },
      user: { username: owner.username },
      project: { id: project.id, path_with_namespace: `${owner.username}/piped` },
      commit: { id: commit.id, message: commit.message },
      builds: [{ stage: 'external', name: 'build', status: 'success', when: 'on_success', manual: false, runner: null }],
    });
    const tested = await t.http
      .post(`/api/v4/projects/${project.id}/hooks/${hook.id}/test/pipeline_events`)
      .set('PRIVATE-TOKEN', owner.token);
    expect([tested.status, tested.body]).toEqual([201, { message: '201 Created' }]);
  });
});

describe('a slow receiver', () => {
  it(
    'delays no other hook',
    async () => {
      const api = t.hosting.as(owner.id);
      const project = await api.projects.create({ name: 'Slow and fast' });
      const slow = await api.projectHooks.create(project.id, { url: `${receiverUrl}?held`, issues_events: true, push_events: false });
      await api.projectHooks.create(project.id, { url: `${receiverUrl}?fast`, issues_events: true, push_events: false });
      const issues: { iid: number }[] = [];
      for (const title of ['One', 'Two', 'Three']) issues.push(await api.issues.create(project.id, { title }));
      const iids = () =>
        received
          .filter((delivery) => projectOf(delivery.body) === project.id && delivery.headers['x-gitlab-event'] === 'Issue Hook')
          .map((delivery) => (delivery.body.object_attributes as { iid: number }).iid);
      // Every fast delivery arrives while the slow receiver holds its first (on a PostgreSQL server shared with other
      // suites' databases, after their long transactions: the record is read below the server's oldest one).
      await eventually(async () => expect(iids()).toEqual(issues.map((issue) => issue.iid)), DELIVERED_WITHIN);
      expect(held).toHaveLength(1);
      expect((await t.hosting.hooks.deliveries({ hook_id: slow.id })).map((delivery) => delivery.status)).toEqual([
        'pending',
        'pending',
        'pending',
      ]);
      // Let go, the slow one gets its three in order.
      await eventually(async () => {
        for (const answer of held.splice(0)) answer();
        expect(iids()).toEqual([...issues, ...issues].map((issue) => issue.iid));
      }, DELIVERED_WITHIN);
    },
    3 * DELIVERED_WITHIN,
  );
});

describe('deliveries in process', () => {
  it('are made when the process has no copy of the settings (read in the consumer’s own transaction)', async () => {
    const project = await t.hosting.projects.create({ name: 'Settings read anew' });
    const hook = await t.hosting.projectHooks.create(project.id, { url: 'https://bot.example.com/hook', issues_events: true });
    // No copy kept while a write that may change them is open (a pretended one): the consumer reads them, as it does
    // when the process's copy is ten seconds old, through its own transaction (on the embedded database, the one
    // connection: a read through another would wait for it for ever).
    const settings = environmentOf(t.hosting).settings;
    const writing = {};
    settings.changing(writing);
    try {
      await t.hosting.issues.create(project.id, { title: 'Still delivered' });
      expect((await t.hosting.hooks.deliveries({ hook_id: hook.id })).map((delivery) => delivery.trigger)).toEqual(['issue_hooks']);
    } finally {
      (settings as unknown as { writers: Set<unknown> }).writers.delete(writing);
    }
  });

  it.runIf(process.env.FORGEKIT_TEST_DATABASE_URL)(
    'are made while a transaction of another database on the same PostgreSQL server runs on',
    async () => {
      // The server's base database, where a transaction that has written holds its ID, as another application's would.
      const other = new pg.Client({ connectionString: process.env.FORGEKIT_TEST_DATABASE_URL });
      await other.connect();
      try {
        await other.query('begin');
        await other.query('select pg_current_xact_id()');
        const project = await t.hosting.projects.create({ name: 'Beside another database' });
        const hook = await t.hosting.projectHooks.create(project.id, { url: 'https://bot.example.com/hook', issues_events: true });
        await t.hosting.issues.create(project.id, { title: 'Not held back' });
        expect((await t.hosting.hooks.deliveries({ hook_id: hook.id })).map((delivery) => delivery.trigger)).toEqual(['issue_hooks']);
      } finally {
        await other.end();
      }
    },
  );

  it('are read with hosting.hooks.deliveries, without a receiver (docs/hooks.md)', async () => {
    const project = await t.hosting.projects.create({ name: 'bot-test' });
    await t.hosting.projectHooks.create(project.id, { url: 'https://bot.example.com/hook', issues_events: true, push_events: false });
    await t.hosting.issues.create(project.id, { title: 'Hello' });
    const [delivery, ...more] = await t.hosting.hooks.deliveries({ project_id: project.id, trigger: 'issue_hooks' });
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({
      hook_id: expect.any(Number),
      url: 'https://bot.example.com/hook',
      trigger: 'issue_hooks',
      request_headers: { 'Content-Type': 'application/json', 'X-Gitlab-Event': 'Issue Hook' },
      request_data: { object_kind: 'issue', object_attributes: { title: 'Hello', action: 'open' } },
    });
  });
});

describe.runIf(hasGit)('deliveries of git pushes', () => {
  it(
    'delivers a push made with git over HTTP, as any other',
    async () => {
      const api = t.hosting.as(owner.id);
      const project = await api.projects.create({ name: 'Pushed to' });
      await api.commits.create(project.id, {
        branch: 'master',
        commit_message: 'Base',
        actions: [{ action: 'create', file_path: 'README.md', content: '# base\n' }],
      });
      const server = t.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const work = mkdtempSync(join(tmpdir(), 'forgekit-hooks-'));
      try {
        const { port } = server.address() as AddressInfo;
        const url = `http://oauth2:${owner.token}@127.0.0.1:${port}/${owner.username}/pushed-to.git`;
        // git runs apart from the event loop, which serves it.
        const git = (args: string[]) =>
          new Promise<number | null>((resolve) => spawn('git', args, { cwd: work, env: GIT_ENV, stdio: 'ignore' }).on('close', resolve));
        expect(await git(['clone', '--quiet', url, 'clone'])).toBe(0);
        await api.projectHooks.create(project.id, { url: receiverUrl });
        writeFileSync(join(work, 'clone', 'pushed.txt'), 'pushed\n');
        execFileSync('git', ['-C', join(work, 'clone'), 'add', '.'], { env: GIT_ENV });
        execFileSync('git', ['-C', join(work, 'clone'), 'commit', '--quiet', '-m', 'Pushed with git'], { env: GIT_ENV });
        expect(await git(['-C', 'clone', 'push', '--quiet', 'origin', 'master'])).toBe(0);
        const head = execFileSync('git', ['-C', join(work, 'clone'), 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
        const delivery = await eventually(async () => {
          const found = received.find((each) => projectOf(each.body) === project.id && each.headers['x-gitlab-event'] === 'Push Hook');
          expect(found).toBeDefined();
          return found!;
        }, DELIVERED_WITHIN);
        expect(delivery.headers['x-gitlab-event']).toBe('Push Hook');
        expect(delivery.body).toMatchObject({ after: head, user_username: owner.username, total_commits_count: 1 });
        expect(delivery.body.commits).toEqual([expect.objectContaining({ id: head, added: ['pushed.txt'], modified: [], removed: [] })]);
      } finally {
        server.close();
        rmSync(work, { recursive: true, force: true });
      }
    },
    2 * DELIVERED_WITHIN,
  );
});
