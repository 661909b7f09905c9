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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchFilterTakes } from '../src/services/hooks/deliveries.js';
import { GIT_ENV } from './git-http.js';
import { createUser, eventually, hasGit, sharedHosting, type SharedHosting } from './helpers.js';

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

let t: SharedHosting;
let receiver: Server;
let receiverUrl: string;
const received: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
/** Answers to give, in turn, before 200s. */
const failures: number[] = [];
let owner: TestUser;

beforeAll(async () => {
  t = await sharedHosting({ allowLocalRequests: true });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const status = failures.shift() ?? 200;
      if (status === 200) received.push({ headers: request.headers, body: JSON.parse(body) });
      response.writeHead(status).end();
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
  it("delivers a push and a tag push with the original's payload and headers, and retries a delivery the receiver failed", async () => {
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
    await eventually(async () => expect(received.filter((delivery) => projectOf(delivery.body) === project.id)).toHaveLength(3), 20_000);
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
    await eventually(async () => expect(received.filter((delivery) => projectOf(delivery.body) === project.id)).toHaveLength(4), 20_000);
    expect(await t.db.rows.execute(`select id from web_hook_logs where hook_id = ${hookId} and url = 'http://old'`)).toEqual([]);
    expect(tag.headers['x-gitlab-event']).toBe('Tag Push Hook');
    expect(tag.body).toMatchObject({ object_kind: 'tag_push', ref: 'refs/tags/v1.0', after: second.id });
    // The documented tag push leaves out what the original's code sends for both kinds (the push builder's fields).
    expect(shapeOf(tag.body).sort()).toEqual(shapeOf(push.body).sort());
    expect(shapeOf(fixture('tag_push')).every((field) => shapeOf(tag.body).includes(field))).toBe(true);
  }, 30_000);
});

describe('deliveries of issues, merge requests and notes', () => {
  it("delivers each with the original's payload, action and changes; confidential ones only to hooks that ask", async () => {
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
    await eventually(async () => expect(ofProject()).toHaveLength(4), 20_000);
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
    await eventually(async () => expect(ofProject()).toHaveLength(6), 20_000);
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
    await eventually(async () => expect(ofProject()).toHaveLength(11), 20_000);
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
      commit: { id: pushed.id, message: pushed.message, timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/) },
    });
    // The documented note is on a line of the commit's diff, and carries it (`st_diff`); this one is on the whole commit.
    const lineOnly = shapeOf(fixture('note_commit').object_attributes.st_diff).map((field) => `object_attributes.st_diff.${field}`);
    expectOriginalFields(commitNote.body, 'note_commit', lineOnly);
  }, 40_000);
});

describe.runIf(hasGit)('deliveries of git pushes', () => {
  it('delivers a push made with git over HTTP, as any other', async () => {
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
        const found = received.find((each) => projectOf(each.body) === project.id);
        expect(found).toBeDefined();
        return found!;
      }, 20_000);
      expect(delivery.headers['x-gitlab-event']).toBe('Push Hook');
      expect(delivery.body).toMatchObject({ after: head, user_username: owner.username, total_commits_count: 1 });
      expect(delivery.body.commits).toEqual([expect.objectContaining({ id: head, added: ['pushed.txt'], modified: [], removed: [] })]);
    } finally {
      server.close();
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});
