/**
 * The one record of what happens (src/events/): each write the original announces records exactly its events, in its
 * transaction (a failed write none); rules run in that transaction; embedders hear of committed events; deferred
 * consumers read them all, in order; the rules of moving branches and of forks leaving their network.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/rows.js';
import { sql } from '../src/db/sql.js';
import type { RecordedEvent } from '../src/events/bus.js';
import { type DeferredConsumer, EventDispatcher } from '../src/events/dispatcher.js';
import { EVENT_KINDS, type EventKind } from '../src/events/kinds.js';
import { environmentOf } from '../src/hosting.js';
import { silentLogger } from '../src/logger.js';
import { createUser, sharedHosting, startHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let other: User;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  [owner, other] = await Promise.all([createUser(t.hosting), createUser(t.hosting)]);
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;
const asOwner = () => t.hosting.as(owner.id);

/** The events a piece of work records, as a subscriber to every kind hears of them (the work's result beside them). */
async function recorded<T>(work: () => Promise<T>): Promise<{ result: T; events: RecordedEvent[] }> {
  const events: RecordedEvent[] = [];
  const stop = t.hosting.events.subscribe('*', (event) => {
    events.push(event);
  });
  try {
    return { result: await work(), events };
  } finally {
    stop();
  }
}

const kinds = (events: RecordedEvent[]) => events.map((event) => event.kind);

/** How many events the record holds. */
async function recordSize(): Promise<number> {
  const [{ count }] = await t.db.rows.execute('select count(*)::int as "count" from "events"');
  return count as number;
}

/** A project of the owner's with a first commit on `main`. */
async function project(options: { visibility?: 'private' | 'internal' | 'public' } = {}) {
  const name = `events-${unique()}`;
  const created = await asOwner().projects.create({ name, path: name, visibility: options.visibility ?? 'private' });
  await asOwner().repositoryFiles.create(created.id, 'README.md', { branch: 'main', content: '# Events\n', commit_message: 'Start' });
  return created;
}

/** A commit on a branch (made from `main` when new). */
const commit = (projectId: number, branch: string, path: string, message = `Change ${path}`) =>
  asOwner().commits.create(projectId, {
    branch,
    ...(branch === 'main' ? {} : { start_branch: 'main' }),
    commit_message: message,
    actions: [{ action: 'create', file_path: path, content: `${path}\n` }],
  });

describe('every write records exactly its events, with the original’s fields', () => {
  it('pushes: a branch’s first commit, a commit, a new branch, a deleted branch, a tag made and deleted', async () => {
    const name = `events-${unique()}`;
    const { id } = await asOwner().projects.create({ name, path: name });
    const first = await recorded(() =>
      asOwner().repositoryFiles.create(id, 'README.md', { branch: 'main', content: '# Hi\n', commit_message: 'Start here\n\nwith a body' }),
    );
    expect(kinds(first.events)).toEqual(['push']);
    const [push] = first.events as RecordedEvent<'push'>[];
    expect(push).toMatchObject({ author_id: owner.id, project_id: id, action: 'pushed', target_type: null, target_id: null });
    expect(push.data).toMatchObject({
      ref: 'refs/heads/main',
      before: null,
      commit_count: 1,
      commit_title: 'Start here',
      first_branch: true,
    });
    const head = push.data.after!;

    const second = await recorded(() => commit(id, 'main', 'a.txt', `${'A very long title '.repeat(5)}\n\nBody`));
    const [moved] = second.events as RecordedEvent<'push'>[];
    expect(kinds(second.events)).toEqual(['push']);
    expect(moved.data).toMatchObject({ before: head, after: second.result.id, commit_count: 1, commits: [second.result.id] });
    // Cut at 70 characters as the original cuts a push's commit title.
    expect(moved.data.commit_title).toBe(`${'A very long title '.repeat(4).slice(0, 67)}...`);
    expect(moved.data.first_branch).toBeUndefined();

    const branch = await recorded(() => asOwner().branches.create(id, { branch: 'topic', ref: 'main' }));
    expect(kinds(branch.events)).toEqual(['push']);
    expect(branch.events[0].data).toMatchObject({ ref: 'refs/heads/topic', before: null, after: second.result.id, commit_count: 0 });

    const deleted = await recorded(() => asOwner().branches.delete(id, 'topic'));
    expect(deleted.events[0].data).toMatchObject({ ref: 'refs/heads/topic', before: second.result.id, after: null, commit_count: 0 });

    const tag = await recorded(() => asOwner().tags.create(id, { tag_name: 'v1', ref: 'main', message: 'One' }));
    expect(kinds(tag.events)).toEqual(['tag_push']);
    expect(tag.events[0].data).toMatchObject({ ref: 'refs/tags/v1', before: null, commit_count: 1, commits: [second.result.id] });
    const untagged = await recorded(() => asOwner().tags.delete(id, 'v1'));
    expect(kinds(untagged.events)).toEqual(['tag_push']);
    expect(untagged.events[0].data).toMatchObject({ ref: 'refs/tags/v1', after: null, commit_count: 0 });
  });

  it('issues: opened, updated, closed, reopened, moved (the new one opened), deleted', async () => {
    const { id } = await project();
    const opened = await recorded(() => asOwner().issues.create(id, { title: 'Broken' }));
    const issue = opened.result;
    expect(kinds(opened.events)).toEqual(['issue.opened']);
    expect(opened.events[0]).toMatchObject({
      author_id: owner.id,
      project_id: id,
      action: 'created',
      target_type: 'Issue',
      target_id: issue.id,
      target_iid: issue.iid,
      target_title: 'Broken',
      issue_id: issue.id,
    });
    const updated = await recorded(() => asOwner().issues.update(id, issue.iid, { title: 'Still broken', labels: ['bug'] }));
    expect(kinds(updated.events)).toEqual(['issue.updated']);
    expect(updated.events[0]).toMatchObject({ action: null, target_title: 'Still broken', data: { changes: ['title', 'labels'] } });
    const closed = await recorded(() => asOwner().issues.update(id, issue.iid, { state_event: 'close' }));
    expect(kinds(closed.events)).toEqual(['issue.closed']);
    expect(closed.events[0].action).toBe('closed');
    const reopened = await recorded(() => asOwner().issues.update(id, issue.iid, { state_event: 'reopen' }));
    expect(kinds(reopened.events)).toEqual(['issue.reopened']);
    const elsewhere = await project();
    const moved = await recorded(() => asOwner().issues.move(id, issue.iid, { to_project_id: elsewhere.id }));
    expect(kinds(moved.events)).toEqual(['issue.moved', 'issue.opened']);
    expect(moved.events[0]).toMatchObject({
      project_id: id,
      target_id: issue.id,
      action: 'closed',
      data: { moved_to_id: moved.result.id },
    });
    expect(moved.events[1]).toMatchObject({ project_id: elsewhere.id, target_id: moved.result.id, target_iid: moved.result.iid });
    const deleted = await recorded(() => asOwner().issues.delete(elsewhere.id, moved.result.iid));
    expect(kinds(deleted.events)).toEqual(['issue.deleted']);
    // Nothing to change: nothing recorded.
    expect(kinds((await recorded(() => asOwner().issues.update(id, issue.iid, { title: 'Still broken' }))).events)).toEqual([]);
  });

  it('merge requests: opened, updated, closed, reopened, merged (with the push of its merge commit), deleted', async () => {
    const { id } = await project();
    await commit(id, 'feature', 'feature.txt');
    const opened = await recorded(() =>
      asOwner().mergeRequests.create(id, { source_branch: 'feature', target_branch: 'main', title: 'Feature' }),
    );
    const request = opened.result;
    expect(kinds(opened.events)).toEqual(['merge_request.opened']);
    expect(opened.events[0]).toMatchObject({
      action: 'created',
      target_type: 'MergeRequest',
      target_id: request.id,
      target_iid: request.iid,
      merge_request_id: request.id,
    });
    const updated = await recorded(() => asOwner().mergeRequests.update(id, request.iid, { description: 'All of it' }));
    // What changed, before and after, by column (the hooks' `changes`).
    const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(updated.events.map((event) => [event.kind, event.data])).toEqual([
      [
        'merge_request.updated',
        {
          changes: ['description'],
          values: { description: { previous: null, current: 'All of it' }, updated_at: { previous: at, current: at } },
        },
      ],
    ]);
    expect(kinds((await recorded(() => asOwner().mergeRequests.update(id, request.iid, { state_event: 'close' }))).events)).toEqual([
      'merge_request.closed',
    ]);
    expect(kinds((await recorded(() => asOwner().mergeRequests.update(id, request.iid, { state_event: 'reopen' }))).events)).toEqual([
      'merge_request.reopened',
    ]);
    const merged = await recorded(() => asOwner().mergeRequests.merge(id, request.iid, {}));
    expect(kinds(merged.events)).toEqual(['merge_request.merged', 'push']);
    expect(merged.events[0]).toMatchObject({ action: 'merged', data: { merge_commit_sha: merged.result.merge_commit_sha } });
    expect(merged.events[1].data).toMatchObject({ ref: 'refs/heads/main', after: merged.result.merge_commit_sha, commit_count: 2 });
    const deleted = await recorded(() => asOwner().mergeRequests.delete(id, request.iid));
    expect(kinds(deleted.events)).toEqual(['merge_request.deleted']);
  });

  it('notes: on issues, merge requests and commits, in threads and replies; system notes record nothing', async () => {
    const { id } = await project();
    const issue = await asOwner().issues.create(id, { title: 'Talk' });
    const note = await recorded(() => asOwner().issueNotes.create(id, issue.iid, { body: 'First' }));
    expect(kinds(note.events)).toEqual(['note.created']);
    expect(note.events[0]).toMatchObject({
      action: 'commented',
      target_type: 'Note',
      target_id: note.result.id,
      target_iid: note.result.id,
      target_title: null,
      issue_id: issue.id,
      data: { noteable_type: 'Issue', noteable_id: issue.id, noteable_iid: issue.iid, commit_id: null },
    });
    const thread = await recorded(() => asOwner().issueDiscussions.create(id, issue.iid, { body: 'A thread' }));
    expect(kinds(thread.events)).toEqual(['note.created']);
    const reply = await recorded(() => asOwner().issueDiscussions.reply(id, issue.iid, thread.result.id, { body: 'A reply' }));
    expect(kinds(reply.events)).toEqual(['note.created']);
    await commit(id, 'feature', 'f.txt');
    const request = await asOwner().mergeRequests.create(id, { source_branch: 'feature', target_branch: 'main', title: 'Talk too' });
    const onRequest = await recorded(() => asOwner().mergeRequestNotes.create(id, request.iid, { body: 'On the request' }));
    expect(onRequest.events[0]).toMatchObject({ merge_request_id: request.id, data: { noteable_type: 'MergeRequest' } });
    const [head] = await asOwner().commits.list(id, { ref_name: 'main' });
    const onCommit = await recorded(() => asOwner().commitComments.create(id, head.id, { note: 'On the commit' }));
    expect(onCommit.events.map((event) => event.data)).toEqual([
      { noteable_type: 'Commit', noteable_id: null, noteable_iid: null, commit_id: head.id },
    ]);
    // A label change makes a system note: the issue's update is the event.
    const labelled = await recorded(() => asOwner().issues.update(id, issue.iid, { labels: ['talk'] }));
    expect(kinds(labelled.events)).toEqual(['issue.updated']);
  });

  it('milestones: created, closed, reopened, destroyed; of a group too', async () => {
    const { id } = await project();
    const created = await recorded(() => asOwner().milestones.create(id, { title: 'v1' }));
    expect(created.events[0]).toMatchObject({
      kind: 'milestone.created',
      action: 'created',
      project_id: id,
      target_type: 'Milestone',
      target_id: created.result.id,
      target_iid: created.result.iid,
      target_title: 'v1',
    });
    const closed = await recorded(() => asOwner().milestones.update(id, created.result.id, { state_event: 'close' }));
    const reopened = await recorded(() => asOwner().milestones.update(id, created.result.id, { state_event: 'activate' }));
    const destroyed = await recorded(() => asOwner().milestones.delete(id, created.result.id));
    expect([...kinds(closed.events), ...kinds(reopened.events), ...kinds(destroyed.events)]).toEqual([
      'milestone.closed',
      'milestone.reopened',
      'milestone.destroyed',
    ]);
    const group = await asOwner().groups.create({ name: `g-${unique()}`, path: `g-${unique()}` });
    const ofGroup = await recorded(() => asOwner().groupMilestones.create(group.id, { title: 'v2' }));
    expect(ofGroup.events[0]).toMatchObject({ kind: 'milestone.created', project_id: null, group_id: group.id });
  });

  it('projects: created, updated, renamed, transferred, destroyed', async () => {
    const name = `events-${unique()}`;
    const created = await recorded(() => asOwner().projects.create({ name, path: name }));
    expect(kinds(created.events)).toEqual(['project.created']);
    // Each keeps the project as it left it: what a system hook's payload names, however late it is made.
    const asLeft = (path: string, namespace: { full_path: string; name: string; email: string }) => ({
      path_with_namespace: `${namespace.full_path}/${path}`,
      name,
      path,
      visibility: 'private',
      owner_name: namespace.name,
      owner_email: namespace.email,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const ownNamespace = { full_path: owner.username, name: expect.any(String), email: owner.email };
    expect(created.events[0]).toMatchObject({
      action: 'created',
      project_id: created.result.id,
      target_type: null,
      data: { forked_from_id: null, project: asLeft(name, ownNamespace) },
    });
    const id = created.result.id;
    const updated = await recorded(() => asOwner().projects.update(id, { description: 'Described', issues_enabled: false }));
    expect(updated.events.map((event) => [event.kind, event.data])).toEqual([
      ['project.updated', { changes: ['description', 'issues_enabled'], project: asLeft(name, ownNamespace) }],
    ]);
    const renamed = await recorded(() => asOwner().projects.update(id, { path: `${name}-renamed` }));
    expect(renamed.events.map((event) => [event.kind, event.data])).toEqual([
      ['project.updated', { changes: ['path'], project: asLeft(`${name}-renamed`, ownNamespace) }],
      ['project.renamed', { old_path: `${owner.username}/${name}`, project: asLeft(`${name}-renamed`, ownNamespace) }],
    ]);
    const group = await asOwner().groups.create({ name: `g-${unique()}`, path: `g-${unique()}` });
    const groupNamespace = { full_path: group.full_path, name: group.name, email: '' };
    const transferred = await recorded(() => asOwner().projects.transfer(id, { namespace: group.id }));
    expect(transferred.events.map((event) => [event.kind, event.data])).toEqual([
      ['project.transferred', { old_path: `${owner.username}/${name}-renamed`, project: asLeft(`${name}-renamed`, groupNamespace) }],
    ]);
    const destroyed = await recorded(() => asOwner().projects.delete(id));
    // As it was: what a system hook's project_destroy names.
    expect(destroyed.events.map((event) => [event.kind, event.data])).toEqual([
      ['project.destroyed', asLeft(`${name}-renamed`, groupNamespace)],
    ]);
  });

  it('pipelines: their status changed by the commit statuses posted, from what', async () => {
    const { id } = await project();
    const sha = (await asOwner().commits.get(id, 'main')).id;
    const pending = await recorded(() => asOwner().commitStatuses.create(id, sha, { state: 'pending', name: 'ci', ref: 'main' }));
    expect(pending.events).toMatchObject([
      { kind: 'pipeline.updated', action: null, author_id: owner.id, project_id: id, target_type: 'Pipeline', data: { status: 'pending' } },
    ]);
    const pipelineId = pending.events[0].target_id;
    // Another status that leaves it pending changes nothing; success does.
    expect(
      (await recorded(() => asOwner().commitStatuses.create(id, sha, { state: 'pending', name: 'lint', ref: 'main' }))).events,
    ).toEqual([]);
    // One of two passed: it runs.
    const half = await recorded(() => asOwner().commitStatuses.create(id, sha, { state: 'success', name: 'lint', ref: 'main' }));
    expect(half.events.map((event) => event.data)).toEqual([{ status: 'running', previous_status: 'pending' }]);
    const passed = await recorded(() => asOwner().commitStatuses.create(id, sha, { state: 'success', name: 'ci', ref: 'main' }));
    expect(passed.events.map((event) => [event.kind, event.target_id, event.data])).toEqual([
      ['pipeline.updated', pipelineId, { status: 'success', previous_status: 'running' }],
    ]);
  });

  it('members of projects and groups: added, updated, removed, the member as author', async () => {
    const { id } = await project();
    const added = await recorded(() => asOwner().projectMembers.add(id, { user_id: other.id, access_level: 30 }));
    expect(added.events).toMatchObject([
      { kind: 'member.added', action: 'joined', author_id: other.id, project_id: id, data: { source_type: 'Project', access_level: 30 } },
    ]);
    const changed = await recorded(() => asOwner().projectMembers.edit(id, other.id, { access_level: 40 }));
    expect(changed.events).toMatchObject([{ kind: 'member.updated', action: null, data: { access_level: 40 } }]);
    const removed = await recorded(() => asOwner().projectMembers.remove(id, other.id));
    expect(removed.events).toMatchObject([{ kind: 'member.removed', action: 'left', author_id: other.id }]);
    const group = await asOwner().groups.create({ name: `g-${unique()}`, path: `g-${unique()}` });
    const joined = await recorded(() => asOwner().groupMembers.add(group.id, { user_id: other.id, access_level: 10 }));
    expect(joined.events).toMatchObject([{ kind: 'member.added', action: null, group_id: group.id, project_id: null }]);
  });

  it('users, groups and SSH keys: made, renamed, removed', async () => {
    const username = `events${unique().replace('-', 'x')}`;
    const made = await recorded(() =>
      t.hosting.users.create({ email: `${username}@example.com`, username, name: 'Evented', password: 'secret-password-1' }),
    );
    expect(made.events).toMatchObject([{ kind: 'user.created', author_id: 1, target_type: 'User', target_id: made.result.id }]);
    const renamed = await recorded(() => t.hosting.users.update(made.result.id, { username: `${username}x` }));
    expect(renamed.events).toMatchObject([{ kind: 'user.renamed', data: { old_path: username } }]);
    const key = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
    const blob = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), key.subarray(-32)]);
    const openssh = `ssh-ed25519 ${blob.toString('base64')}`;
    const keyed = await recorded(() => t.hosting.as(made.result.id).sshKeys.create({ title: 'laptop', key: openssh }));
    expect(keyed.events).toMatchObject([
      { kind: 'key.created', author_id: made.result.id, target_type: 'Key', data: { user_id: made.result.id } },
    ]);
    const unkeyed = await recorded(() => t.hosting.as(made.result.id).sshKeys.delete(keyed.result.id));
    expect(kinds(unkeyed.events)).toEqual(['key.destroyed']);
    const gone = await recorded(() => t.hosting.users.delete(made.result.id));
    expect(gone.events).toMatchObject([{ kind: 'user.destroyed', data: { username: `${username}x` } }]);

    const path = `g-${unique()}`;
    const group = await recorded(() => asOwner().groups.create({ name: path, path }));
    expect(kinds(group.events)).toEqual(['group.created', 'member.added']);
    const moved = await recorded(() => asOwner().groups.update(group.result.id, { path: `${path}-moved` }));
    expect(moved.events).toMatchObject([{ kind: 'group.renamed', group_id: group.result.id, data: { old_path: path } }]);
    const inside = await asOwner().projects.create({ name: 'inside', path: 'inside', namespace_id: group.result.id });
    const removed = await recorded(() => asOwner().groups.delete(group.result.id));
    expect(removed.events.map((event) => [event.kind, event.data])).toEqual([
      ['project.destroyed', expect.objectContaining({ path_with_namespace: `${path}-moved/inside`, name: 'inside', owner_name: path })],
      ['group.destroyed', { full_path: `${path}-moved`, name: path, created_at: expect.any(String) }],
    ]);
    expect(removed.events[0].project_id).toBe(inside.id);
  });

  it('covers every kind of event there is', () => {
    // The tests above, by kind: a new kind needs a test of its own.
    const tested: EventKind[] = [
      ...['push', 'tag_push'],
      ...['issue.opened', 'issue.updated', 'issue.closed', 'issue.reopened', 'issue.moved', 'issue.deleted'],
      ...['merge_request.opened', 'merge_request.updated', 'merge_request.closed', 'merge_request.reopened', 'merge_request.merged'],
      ...['merge_request.deleted', 'note.created', 'milestone.created', 'milestone.closed', 'milestone.reopened', 'milestone.destroyed'],
      ...['project.created', 'project.updated', 'project.renamed', 'project.transferred', 'project.destroyed'],
      ...['member.added', 'member.updated', 'member.removed', 'user.created', 'user.renamed', 'user.destroyed'],
      ...['group.created', 'group.renamed', 'group.destroyed', 'key.created', 'key.destroyed', 'pipeline.updated'],
    ] as EventKind[];
    expect([...tested].sort()).toEqual([...EVENT_KINDS].sort());
  });
});

describe('what commits was recorded, what rolls back never was', () => {
  it('a refused write records nothing', async () => {
    const { id } = await project();
    const before = await recordSize();
    await expect(asOwner().issues.create(id, { title: '   ' })).rejects.toMatchObject({ status: 400 });
    await expect(t.hosting.as(other.id).issues.create(id, { title: 'Not mine' })).rejects.toMatchObject({ status: 404 });
    expect(await recordSize()).toBe(before);
  });

  it('a rule that fails fails the write: neither the issue nor its event is there', async () => {
    const { id } = await project();
    const stop = environmentOf(t.hosting).events.rule(['issue.opened'], async () => {
      throw new Error('a rule failed');
    });
    const heard: RecordedEvent[] = [];
    const listening = t.hosting.events.subscribe('*', (event) => {
      heard.push(event);
    });
    const before = await recordSize();
    try {
      await expect(asOwner().issues.create(id, { title: 'Never' })).rejects.toThrow('a rule failed');
    } finally {
      stop();
      listening();
    }
    expect([await recordSize(), heard, await asOwner().issues.list(id)]).toEqual([before, [], []]);
  });

  it('a subscriber that throws is logged and the write stands', async () => {
    const errors: string[] = [];
    const own = await startHosting({ logger: { info() {}, warn() {}, error: (message: string) => errors.push(message) } });
    try {
      own.hosting.events.subscribe('issue.opened', () => {
        throw new Error('the subscriber failed');
      });
      const heard: string[] = [];
      own.hosting.events.subscribe('*', (event) => {
        heard.push(event.kind);
      });
      const created = await own.hosting.projects.create({ name: 'subscribed' });
      const issue = await own.hosting.issues.create(created.id, { title: 'Stands' });
      expect(await own.hosting.issues.get(created.id, issue.iid)).toMatchObject({ title: 'Stands' });
      expect(errors).toEqual(['forgekit: a subscriber to issue.opened events failed']);
      expect(heard).toEqual(['project.created', 'issue.opened']);
    } finally {
      await own.close();
    }
  });
});

describe('deferred consumers', () => {
  it('see every committed event of their kinds, in order, once each; one that fails is tried again', async () => {
    const own = await startHosting({});
    try {
      const seen: string[] = [];
      let failures = 1;
      own.hosting.events.consume({
        name: 'test-consumer',
        kinds: ['issue.opened', 'issue.closed'],
        async handle(event) {
          if (event.kind === 'issue.closed' && failures-- > 0) throw new Error('not yet');
          seen.push(`${event.kind} ${event.target_title}`);
        },
      });
      const { id } = await own.hosting.projects.create({ name: 'consumed' });
      for (const title of ['one', 'two', 'three']) await own.hosting.issues.create(id, { title });
      await own.hosting.issues.update(id, 2, { state_event: 'close' });
      await own.hosting.issues.create(id, { title: 'four' });
      await own.hosting.backgroundJobs.drain();
      expect(seen).toEqual(['issue.opened one', 'issue.opened two', 'issue.opened three', 'issue.closed two', 'issue.opened four']);
    } finally {
      await own.close();
    }
  });
});

describe('a transactional deferred consumer', () => {
  it('handles a batch in one transaction; one that fails is undone whole and handled again an event at a time', async () => {
    const own = await startHosting({});
    try {
      const { db } = environmentOf(own.hosting);
      const dispatcher = new EventDispatcher(db, silentLogger);
      dispatcher.start();
      await queryRows(db.rows, sql`create table consumed (id serial primary key, what text not null)`);
      const write = (em: Parameters<DeferredConsumer['handle']>[1], what: string) =>
        queryRows(em, sql`insert into consumed (what) values (${what})`);
      const batches: number[][] = [];
      let failures = 1;
      dispatcher.add({
        name: 'transactional-consumer',
        kinds: ['push', 'issue.closed'],
        transactional: true,
        async prepare(events) {
          batches.push(events.map((event) => event.id));
        },
        async handle(event, em) {
          await write(em, `${event.kind} ${event.target_id ?? ''}`.trim());
          if (event.kind === 'issue.closed' && event.target_id === second.id && failures-- > 0) throw new Error('not yet');
        },
        async flush(em) {
          await write(em, 'flushed');
        },
      });
      const { id } = await own.hosting.projects.create({ name: 'consumed' });
      const first = await own.hosting.issues.create(id, { title: 'One' });
      const second = await own.hosting.issues.create(id, { title: 'Two' });
      const change = (message: string) =>
        own.hosting.commits.create(id, {
          branch: 'master',
          commit_message: message,
          actions: [{ action: 'create', file_path: `${batches.length}-${message.length}.txt`, content: 'x\n' }],
        });
      await change('First');
      await dispatcher.drain();
      // One write, three events: the push and the two issues it closes.
      await change(`Fix\n\nFixes #${first.iid} and #${second.iid}`);
      await dispatcher.drain();
      const rows = await queryRows(db.rows, sql`select what from consumed order by id`);
      expect(rows.map((row) => row.what)).toEqual([
        'push',
        'flushed',
        // The batch of three failed at the second issue and was undone: its events one at a time, each once.
        'push',
        'flushed',
        `issue.closed ${first.id}`,
        'flushed',
        `issue.closed ${second.id}`,
        'flushed',
      ]);
      expect(batches.map((batch) => batch.length)).toEqual([1, 3, 1, 1, 1]);
      await dispatcher.close();
    } finally {
      await own.close();
    }
  });
});

describe('the rules of moving branches and of forks', () => {
  it('a branch that now has an open merge request’s source head merges that request, without a merge commit', async () => {
    const { id } = await project();
    const feature = await commit(id, 'feature', 'feature.txt');
    await asOwner().branches.create(id, { branch: 'feature-copy', ref: 'feature' });
    const first = await asOwner().mergeRequests.create(id, { source_branch: 'feature', target_branch: 'main', title: 'First' });
    const copy = await asOwner().mergeRequests.create(id, { source_branch: 'feature-copy', target_branch: 'main', title: 'Copy' });
    const merged = await recorded(() => asOwner().mergeRequests.merge(id, first.iid, {}));
    expect(kinds(merged.events)).toEqual(['merge_request.merged', 'push', 'merge_request.merged']);
    expect(merged.events[2]).toMatchObject({ target_id: copy.id, author_id: owner.id, data: { merge_commit_sha: null } });
    const after = await asOwner().mergeRequests.get(id, copy.iid);
    expect(after).toMatchObject({ state: 'merged', merge_commit_sha: null, sha: feature.id, merged_by: { id: owner.id } });
    const notes = await asOwner().mergeRequestNotes.list(id, copy.iid);
    expect(notes.map((note) => note.body)).toEqual(['merged']);
  });

  it('a merge asked for when the target has the source’s head already merges it without a second merge commit', async () => {
    const { id } = await project();
    await asOwner().branches.create(id, { branch: 'behind', ref: 'main' });
    const ahead = await commit(id, 'main', 'ahead.txt');
    const request = await asOwner().mergeRequests.create(id, { source_branch: 'behind', target_branch: 'main', title: 'Behind' });
    const merged = await recorded(() => asOwner().mergeRequests.merge(id, request.iid, {}));
    expect(kinds(merged.events)).toEqual(['merge_request.merged']);
    expect(merged.result).toMatchObject({ state: 'merged', merge_commit_sha: null });
    expect((await asOwner().branches.get(id, 'main')).commit.id).toBe(ahead.id);
    await expect(asOwner().mergeRequests.merge(id, request.iid, {})).rejects.toMatchObject({ status: 406 });
  });

  it('commits that reach the default branch close the issues they name; elsewhere they close nothing', async () => {
    const { id } = await project();
    const [one, two, three] = [
      await asOwner().issues.create(id, { title: 'One' }),
      await asOwner().issues.create(id, { title: 'Two' }),
    ].concat(await asOwner().issues.create(id, { title: 'Three' }));
    const elsewhere = await recorded(() => commit(id, 'topic', 'topic.txt', `Topic\n\nCloses #${three.iid}`));
    expect(kinds(elsewhere.events)).toEqual(['push']);
    const pushed = await recorded(() => commit(id, 'main', 'fix.txt', `Fix both\n\nFixes #${one.iid} and #${two.iid}`));
    expect(kinds(pushed.events)).toEqual(['push', 'issue.closed', 'issue.closed']);
    expect(pushed.events.slice(1).map((event) => event.target_id)).toEqual([one.id, two.id]);
    const closed = await asOwner().issues.get(id, one.iid);
    expect(closed).toMatchObject({ state: 'closed', closed_by: { id: owner.id } });
    const notes = await asOwner().issueNotes.list(id, one.iid);
    expect(notes.map((note) => note.body)).toEqual([`closed via commit ${pushed.result.id}`]);
    expect((await asOwner().issues.get(id, three.iid)).state).toBe('opened');
  });

  it('a merge into the default branch closes the issues the request names, by the request', async () => {
    const { id } = await project();
    const issue = await asOwner().issues.create(id, { title: 'Fixed by a request' });
    await commit(id, 'fix', 'fix.txt', `Fix\n\nCloses #${issue.iid}`);
    const request = await asOwner().mergeRequests.create(id, { source_branch: 'fix', target_branch: 'main', title: 'Fix' });
    const merged = await recorded(() => asOwner().mergeRequests.merge(id, request.iid, {}));
    expect(kinds(merged.events)).toEqual(['merge_request.merged', 'issue.closed', 'push']);
    const notes = await asOwner().issueNotes.list(id, issue.iid);
    expect(notes.map((note) => note.body)).toEqual([`closed via merge request !${request.iid}`]);
  });

  it('a fork made private, or that leaves its network, closes its open merge requests into its source', async () => {
    const upstream = await project({ visibility: 'public' });
    const fork = await t.hosting.as(other.id).projects.fork(upstream.id, {});
    await t.hosting.backgroundJobs.drain();
    const forker = t.hosting.as(other.id);
    await forker.commits.create(fork.id, {
      branch: 'feature',
      start_branch: 'main',
      commit_message: 'From the fork',
      actions: [{ action: 'create', file_path: 'fork.txt', content: 'fork\n' }],
    });
    const request = await forker.mergeRequests.create(fork.id, {
      source_branch: 'feature',
      target_branch: 'main',
      target_project_id: upstream.id,
      title: 'From a fork',
    });
    const hidden = await recorded(() => forker.projects.update(fork.id, { visibility: 'private' }));
    expect(kinds(hidden.events)).toEqual(['project.updated', 'merge_request.closed']);
    expect(hidden.events[0].data).toMatchObject({ changes: ['visibility', 'forked_from_id'], project: { visibility: 'private' } });
    expect(await asOwner().mergeRequests.get(upstream.id, request.iid)).toMatchObject({ state: 'closed', closed_by: { id: other.id } });
  });
});
