import type { AddressInfo } from 'node:net';
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { type EventSchema, Gitlab } from '@gitbeaker/rest';
import sshpk from 'sshpk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentOf } from '../src/hosting.js';
import { GIT_ENV } from './git-http.js';
import { hasGit, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

/** A discussion's notes: gitbeaker types them as a union whose camel-cased half has no `map`. */
const notesOf = (discussion: { notes?: unknown }) => discussion.notes as Record<string, unknown>[];

// A real client of the original service, unchanged, against forgekit over HTTP.
let t: TestHosting;
let server: Server;
let root: InstanceType<typeof Gitlab>;
let host: string;

beforeAll(async () => {
  t = await sharedHosting();
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  root = new Gitlab({ host, token: ROOT_TOKEN });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

const sshKey = () =>
  sshpk.parseKey(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh');

describe('@gitbeaker/rest against forgekit', () => {
  it('manages users', async () => {
    const created = await root.Users.create({
      email: 'gb@example.com',
      username: 'gitbeaker',
      name: 'Gitbeaker',
      password: 'long-enough-1',
      skipConfirmation: true,
    });
    expect(created).toMatchObject({ username: 'gitbeaker', email: 'gb@example.com', is_admin: false });
    expect(created.confirmed_at).toEqual(expect.any(String));
    const shown = await root.Users.show(created.id);
    expect(shown.username).toBe('gitbeaker');
    const edited = await root.Users.edit(created.id, { bio: 'from gitbeaker' });
    expect(edited.bio).toBe('from gitbeaker');
    const all = await root.Users.all({ perPage: 1 });
    expect(all.map((user) => user.username).sort()).toEqual(['gitbeaker', 'root']);
    const me = await root.Users.showCurrentUser();
    expect(me.username).toBe('root');
    await root.Users.block(created.id);
    expect((await root.Users.show(created.id)).state).toBe('blocked');
    await root.Users.unblock(created.id);
    expect((await root.Users.show(created.id)).state).toBe('active');
  });

  it('creates tokens, and a client with a new token acts as its user', async () => {
    const [user] = await root.Users.all({ username: 'gitbeaker' });
    const pat = await root.Users.createPersonalAccessToken(user.id, 'gb', ['api']);
    expect(pat.token).toEqual(expect.any(String));
    const asUser = new Gitlab({ host, token: pat.token as string });
    expect((await asUser.Users.showCurrentUser()).username).toBe('gitbeaker');
    const impersonation = await root.UserImpersonationTokens.create(user.id, 'imp', ['api']);
    expect(impersonation.impersonation).toBe(true);
    expect((await root.UserImpersonationTokens.all(user.id)).map((token) => token.name)).toEqual(['imp']);
    await root.UserImpersonationTokens.revoke(user.id, impersonation.id);
    expect((await root.UserImpersonationTokens.show(user.id, impersonation.id)).revoked).toBe(true);
  });

  it('manages keys, e-mails and custom attributes', async () => {
    const [user] = await root.Users.all({ username: 'gitbeaker' });
    const key = await root.UserSSHKeys.create('laptop', sshKey(), { userId: user.id });
    expect(key.title).toBe('laptop');
    expect((await root.UserSSHKeys.all({ userId: user.id })).map((item) => item.id)).toEqual([key.id]);
    await root.UserSSHKeys.remove(key.id, { userId: user.id });
    expect(await root.UserSSHKeys.all({ userId: user.id })).toEqual([]);

    const email = await root.UserEmails.create('gb.second@example.com', { userId: user.id });
    expect(email.email).toBe('gb.second@example.com');
    expect((await root.UserEmails.all({ userId: user.id })).map((item) => item.email)).toEqual(['gb.second@example.com']);

    await root.UserCustomAttributes.set(user.id, 'team', 'tools');
    expect(await root.UserCustomAttributes.show(user.id, 'team')).toEqual({ key: 'team', value: 'tools' });
    expect(await root.UserCustomAttributes.all(user.id)).toEqual([{ key: 'team', value: 'tools' }]);
    await root.UserCustomAttributes.remove(user.id, 'team');
    expect(await root.UserCustomAttributes.all(user.id)).toEqual([]);
  });

  it('reads and changes application settings', async () => {
    const settings = await root.ApplicationSettings.show();
    expect(settings.default_projects_limit).toBe(100000);
    const changed = await root.ApplicationSettings.edit({ signupEnabled: false });
    expect(changed.signup_enabled).toBe(false);
  });

  it('writes and reads a repository: files, batch commits, branches and their protection', async () => {
    const project = await root.Projects.create({ name: 'gitbeaker-repo' });
    const created = await root.RepositoryFiles.create(project.id, 'docs/read me.md', 'main', 'IyBIZWxsbwo=', 'Add the readme', {
      encoding: 'base64',
      authorName: 'Gitbeaker',
      authorEmail: 'gb@example.com',
    });
    expect(created).toMatchObject({ file_path: 'docs/read me.md', branch: 'main' });
    const file = await root.RepositoryFiles.show(project.id, 'docs/read me.md', 'main');
    expect([Buffer.from(file.content as string, 'base64').toString(), file.last_commit_id]).toEqual(['# Hello\n', file.commit_id]);
    expect(await root.RepositoryFiles.showRaw(project.id, 'docs/read me.md', 'main')).toBe('# Hello\n');
    await root.RepositoryFiles.edit(project.id, 'docs/read me.md', 'main', '# Changed\n', 'Change it', {
      lastCommitId: file.last_commit_id as string,
    });
    const stale = await root.RepositoryFiles.edit(project.id, 'docs/read me.md', 'main', '# Again\n', 'Stale', {
      lastCommitId: file.last_commit_id as string,
    }).catch((failure: unknown) => failure);
    expect((stale as { cause: { response: { status: number } } }).cause.response.status).toBe(400);
    const commit = await root.Commits.create(project.id, 'main', 'Batch', [
      { action: 'create', filePath: 'bin/run', content: '#!/bin/sh\n' },
      // gitbeaker's type lacks it; sent as written.
      { action: 'chmod', filePath: 'bin/run', execute_filemode: true } as never,
      { action: 'move', filePath: 'docs/README.md', previousPath: 'docs/read me.md' },
    ]);
    expect(commit.stats).toEqual({ additions: 1, deletions: 0, total: 1 });
    // gitbeaker follows every page's Link to the end.
    const history = await root.Commits.all(project.id, { refName: 'main', perPage: 1 });
    expect(history.map((item) => item.title)).toEqual(['Batch', 'Change it', 'Add the readme']);
    expect((await root.Commits.show(project.id, 'main')).id).toBe(commit.id);
    await root.RepositoryFiles.remove(project.id, 'bin/run', 'main', 'Remove it');
    expect((await root.Commits.show(project.id, 'main')).title).toBe('Remove it');
    // The default branch's authors by e-mail, by commits ascending.
    const me = await root.Users.showCurrentUser();
    expect(await root.Repositories.allContributors(project.id)).toEqual([
      { name: 'Gitbeaker', email: 'gb@example.com', commits: 1, additions: 0, deletions: 0 },
      { name: me.name, email: me.email, commits: 3, additions: 0, deletions: 0 },
    ]);
    expect(
      (await root.Repositories.allContributors(project.id, { orderBy: 'email', sort: 'desc' })).map((contributor) => contributor.email),
    ).toEqual(['gb@example.com', me.email as string].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? 1 : -1)));

    const branch = await root.Branches.create(project.id, 'feature/gb', 'main');
    expect([branch.name, branch.merged, branch.protected]).toEqual(['feature/gb', false, false]);
    expect((await root.Branches.all(project.id, { search: 'feature' })).map((item) => item.name)).toEqual(['feature/gb']);
    expect((await root.Branches.show(project.id, 'feature/gb')).commit.id).toBe((await root.Commits.show(project.id, 'main')).id);
    // Everything in the query string, as gitbeaker sends it: the levels arrive as text.
    const protection = await root.ProtectedBranches.protect(project.id, 'feature/*', { pushAccessLevel: 30, mergeAccessLevel: 40 });
    expect(protection.push_access_levels).toEqual([{ access_level: 30, access_level_description: 'Developers + Maintainers' }]);
    expect((await root.Branches.show(project.id, 'feature/gb')).protected).toBe(true);
    await root.ProtectedBranches.unprotect(project.id, 'feature/*');
    await root.Branches.remove(project.id, 'feature/gb');
    expect((await root.Branches.all(project.id)).map((item) => item.name)).toEqual(['main']);
  });

  it('opens, lists, changes, discusses, times and moves issues', async () => {
    const project = await root.Projects.create({ name: 'gitbeaker-issues' });
    const target = await root.Projects.create({ name: 'gitbeaker-issues-target' });
    const issue = await root.Issues.create(project.id, 'Crash', { description: 'It crashes', labels: 'bug,ui', dueDate: '2030-01-31' });
    expect([issue.iid, issue.state, issue.labels, issue.due_date, issue.subscribed]).toEqual([
      1,
      'opened',
      ['bug', 'ui'],
      '2030-01-31',
      true,
    ]);
    await root.Issues.create(project.id, 'Feature', { confidential: true });
    // gitbeaker follows every page's Link to the end.
    expect((await root.Issues.all({ projectId: project.id, perPage: 1 })).map((item) => item.iid)).toEqual([2, 1]);
    expect((await root.Issues.all({ projectId: project.id, labels: 'bug' })).map((item) => item.iid)).toEqual([1]);
    const closed = await root.Issues.edit(project.id, 1, { stateEvent: 'close', addLabels: 'triaged' });
    expect([closed.state, closed.labels]).toEqual(['closed', ['bug', 'triaged', 'ui']]);
    expect((await root.Issues.show(issue.id)).iid).toBe(1);
    expect((await root.Issues.show(1, { projectId: project.id })).state).toBe('closed');
    const note = await root.IssueNotes.create(project.id, 1, 'From gitbeaker');
    expect([note.body, note.system]).toEqual(['From gitbeaker', false]);
    expect((await root.IssueNotes.all(project.id, 1)).map((item) => item.body)).toContain('From gitbeaker');
    const award = await root.IssueAwardEmojis.award(project.id, 1, 'rocket');
    expect((await root.IssueAwardEmojis.all(project.id, 1)).map((item) => item.name)).toEqual(['rocket']);
    await root.IssueAwardEmojis.remove(project.id, 1, award.id);
    expect((await root.Issues.addTimeEstimate(project.id, 1, '1d')).human_time_estimate).toBe('1d');
    expect((await root.Issues.addSpentTime(project.id, 1, '30m')).total_time_spent).toBe(1800);
    expect((await root.Issues.showTimeStats(project.id, 1)).human_total_time_spent).toBe('30m');
    expect((await root.Issues.unsubscribe(project.id, 1)).subscribed).toBe(false);
    const moved = await root.Issues.move(project.id, 1, target.id);
    expect([moved.project_id, moved.iid, moved.title]).toEqual([target.id, 1, 'Crash']);
    await root.Issues.remove(project.id, 2);
    expect(await root.Issues.all({ projectId: project.id, state: 'opened' })).toEqual([]);
  });

  it('manages labels and milestones of projects and groups', async () => {
    const project = await root.Projects.create({ name: 'gitbeaker-planning' });
    const group = await root.Groups.create('gitbeaker-planning', 'gitbeaker-planning');
    const label = await root.ProjectLabels.create(project.id, 'team/web', 'red', { description: 'Web', priority: 1 });
    expect([label.name, label.color, label.text_color, label.priority]).toEqual(['team/web', '#FF0000', '#FFFFFF', 1]);
    expect((await root.ProjectLabels.show(project.id, 'team/web')).id).toBe(label.id);
    expect((await root.ProjectLabels.edit(project.id, label.id, { newName: 'team/ui' })).name).toBe('team/ui');
    const edited = await root.ProjectLabels.edit(project.id, 'team/ui', { color: '#00f' });
    expect([edited.name, edited.color]).toEqual(['team/ui', '#00f']);
    expect((await root.ProjectLabels.all(project.id, { withCounts: true })).map((item) => item.name)).toEqual(['team/ui']);
    await root.ProjectLabels.remove(project.id, 'team/ui');
    expect(await root.ProjectLabels.all(project.id)).toEqual([]);

    const milestone = await root.ProjectMilestones.create(project.id, 'v1.0', { dueDate: '2030-06-30' });
    expect([milestone.iid, milestone.title, milestone.due_date, milestone.state]).toEqual([1, 'v1.0', '2030-06-30', 'active']);
    const closed = await root.ProjectMilestones.edit(project.id, milestone.id, { stateEvent: 'close' });
    expect(closed.state).toBe('closed');
    expect((await root.ProjectMilestones.all(project.id, { state: 'closed' })).map((item) => item.id)).toEqual([milestone.id]);
    const issue = await root.Issues.create(project.id, 'Planned', { milestoneId: milestone.id });
    expect((await root.ProjectMilestones.allAssignedIssues(project.id, milestone.id)).map((item) => item.id)).toEqual([issue.id]);
    await root.ProjectMilestones.remove(project.id, milestone.id);
    expect(await root.ProjectMilestones.all(project.id)).toEqual([]);

    const quarter = await root.GroupMilestones.create(group.id, 'Q1');
    expect([quarter.group_id, (await root.GroupMilestones.show(group.id, quarter.id)).title]).toEqual([group.id, 'Q1']);
    expect((await root.GroupMilestones.edit(group.id, quarter.id, { description: 'First quarter' })).description).toBe('First quarter');
    expect((await root.GroupMilestones.all(group.id)).map((item) => item.title)).toEqual(['Q1']);
    expect(await root.GroupMilestones.allAssignedIssues(group.id, quarter.id)).toEqual([]);
    await root.GroupMilestones.remove(group.id, quarter.id);
    expect(await root.GroupMilestones.all(group.id)).toEqual([]);
  });

  it(
    'opens, lists, reviews, discusses and merges merge requests: from a branch, from a fork, when the pipeline succeeds, ' +
      'and once its threads are resolved',
    async () => {
      const client = async (username: string) => {
        const user = await root.Users.create({
          email: `${username}@example.com`,
          username,
          name: username,
          password: 'long-enough-1',
          skipConfirmation: true,
        });
        const pat = await root.Users.createPersonalAccessToken(user.id, username, ['api']);
        return { user, api: new Gitlab({ host, token: pat.token as string }) };
      };
      const refusal = (call: Promise<unknown>) =>
        call.then(
          () => 'succeeded',
          (failure: { cause: { response: { status: number }; description: string } }) => [
            failure.cause.response.status,
            failure.cause.description,
          ],
        );
      const dev = await client('gb-mr-dev');
      const reporter = await client('gb-mr-reporter');
      const project = await root.Projects.create({ name: 'gitbeaker-mr' });
      await root.ProjectMembers.add(project.id, 30, { userId: dev.user.id });
      await root.ProjectMembers.add(project.id, 20, { userId: reporter.user.id });
      // master, the first branch, is protected for maintainers (default_branch_protection): root merges.
      await root.RepositoryFiles.create(project.id, 'README.md', 'master', 'one\ntwo\nthree\n', 'Initial commit');
      const start = (await root.Commits.show(project.id, 'master')).id;
      const issue = await root.Issues.create(project.id, 'To close');
      const first = await dev.api.Commits.create(
        project.id,
        'gb-feature',
        'Add the feature',
        [{ action: 'create', filePath: 'feature.txt', content: 'feature\n' }],
        { startBranch: 'master' },
      );
      const head = await dev.api.Commits.create(project.id, 'gb-feature', 'Change the readme', [
        { action: 'update', filePath: 'README.md', content: 'one\n2\nthree\n' },
      ]);
      await dev.api.Commits.create(
        project.id,
        'gb-draft',
        'Draft work',
        [{ action: 'create', filePath: 'draft.txt', content: 'draft\n' }],
        {
          startBranch: 'master',
        },
      );
      await dev.api.Commits.create(
        project.id,
        'gb-conflict',
        'Another readme',
        [{ action: 'update', filePath: 'README.md', content: 'one\ndeux\nthree\n' }],
        { startBranch: 'master' },
      );

      const description = `It adds a feature.\n\nCloses #${issue.iid}`;
      const mr = await dev.api.MergeRequests.create(project.id, 'gb-feature', 'master', 'Add a feature', {
        description,
        labels: 'feature,ui',
        assigneeId: reporter.user.id,
      });
      expect(mr).toMatchObject({
        iid: 1,
        project_id: project.id,
        source_project_id: project.id,
        target_project_id: project.id,
        title: 'Add a feature',
        description,
        state: 'opened',
        source_branch: 'gb-feature',
        target_branch: 'master',
        labels: ['feature', 'ui'],
        author: { username: 'gb-mr-dev' },
        assignee: { username: 'gb-mr-reporter' },
        sha: head.id,
        merge_commit_sha: null,
        work_in_progress: false,
        draft: false,
        merge_when_pipeline_succeeds: false,
        subscribed: true,
        user_notes_count: 0,
      });
      const draft = await dev.api.MergeRequests.create(project.id, 'gb-draft', 'master', 'Draft: Second');
      expect([draft.iid, draft.draft, draft.assignee]).toEqual([2, true, null]);
      expect(await refusal(dev.api.MergeRequests.create(project.id, 'gb-feature', 'master', 'Again'))).toEqual([
        409,
        'Another open merge request already exists for this source branch: !1',
      ]);

      const iids = (items: { iid: number }[]) => items.map((item) => item.iid);
      // gitbeaker follows every page's Link to the end.
      expect(iids(await root.MergeRequests.all({ projectId: project.id, perPage: 1 }))).toEqual([2, 1]);
      expect(iids(await root.MergeRequests.all({ projectId: project.id, state: 'opened' }))).toEqual([2, 1]);
      expect(iids(await root.MergeRequests.all({ projectId: project.id, state: 'merged' }))).toEqual([]);
      expect(iids(await root.MergeRequests.all({ projectId: project.id, labels: 'feature,ui' }))).toEqual([1]);
      expect(iids(await root.MergeRequests.all({ projectId: project.id, search: 'second' }))).toEqual([2]);
      expect(iids(await root.MergeRequests.all({ projectId: project.id, wip: 'yes' }))).toEqual([2]);
      expect(iids(await root.MergeRequests.all({ projectId: project.id, iids: [1] }))).toEqual([1]);
      expect(iids(await root.MergeRequests.all({ projectId: project.id, assigneeId: 'None' }))).toEqual([2]);
      expect(iids(await reporter.api.MergeRequests.all({ projectId: project.id, scope: 'assigned_to_me' }))).toEqual([1]);
      expect(iids(await dev.api.MergeRequests.all())).toEqual([2, 1]);
      const simple = await root.MergeRequests.all({ projectId: project.id, view: 'simple', labels: 'ui' });
      expect(simple.map((item) => Object.keys(item).sort())).toEqual([
        ['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url'],
      ]);

      const shown = await reporter.api.MergeRequests.show(project.id, 1);
      expect([shown.sha, shown.merge_status, shown.diff_refs, shown.user]).toEqual([
        head.id,
        'can_be_merged',
        { base_sha: start, head_sha: head.id, start_sha: start },
        { can_merge: false },
      ]);
      // gitbeaker types changes_count as a string, as the original writes it.
      expect(shown.changes_count).toBe('2');
      expect((await reporter.api.MergeRequests.allCommits(project.id, 1)).map((commit) => [commit.id, commit.title])).toEqual([
        [head.id, 'Change the readme'],
        [first.id, 'Add the feature'],
      ]);
      // (gitbeaker warns that GET .../changes is deprecated since GitLab 15.7: it is the call of the era.)
      const changes = await reporter.api.MergeRequests.showChanges(project.id, 1);
      expect(changes.changes.map((change) => [change.new_path, change.new_file]).sort()).toEqual([
        ['README.md', false],
        ['feature.txt', true],
      ]);
      expect(changes.changes.find((change) => change.new_path === 'README.md')?.diff).toBe('@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n');
      expect([changes.changes_count, changes.overflow]).toEqual(['2', false]);
      expect((await reporter.api.MergeRequests.allIssuesClosed(project.id, 1)).map((item) => item.iid)).toEqual([issue.iid]);

      const closed = await root.MergeRequests.edit(project.id, 1, { title: 'Add a feature, ready', stateEvent: 'close' });
      expect(closed).toMatchObject({ state: 'closed', title: 'Add a feature, ready', closed_by: { username: 'root' } });
      const reopened = await root.MergeRequests.edit(project.id, 1, { stateEvent: 'reopen' });
      expect([reopened.state, reopened.closed_by, reopened.closed_at]).toEqual(['opened', null, null]);
      expect((await dev.api.MergeRequests.unsubscribe(project.id, 1)).subscribed).toBe(false);
      expect(await refusal(dev.api.MergeRequests.unsubscribe(project.id, 1))).toEqual([304, expect.anything()]);
      expect((await dev.api.MergeRequests.subscribe(project.id, 1)).subscribed).toBe(true);
      expect((await root.MergeRequests.setTimeEstimate(project.id, 1, '1w')).human_time_estimate).toBe('1w');
      expect((await root.MergeRequests.addSpentTime(project.id, 1, '1h30m')).total_time_spent).toBe(5400);
      expect(await root.MergeRequests.showTimeStats(project.id, 1)).toEqual({
        time_estimate: 144000,
        total_time_spent: 5400,
        human_time_estimate: '1w',
        human_total_time_spent: '1h 30m',
      });
      expect((await root.MergeRequests.resetSpentTime(project.id, 1)).total_time_spent).toBe(0);
      expect((await root.MergeRequests.resetTimeEstimate(project.id, 1)).time_estimate).toBe(0);

      const award = await reporter.api.MergeRequestAwardEmojis.award(project.id, 1, 'thumbsup');
      expect([award.name, award.awardable_type, award.awardable_id]).toEqual(['thumbsup', 'MergeRequest', mr.id]);
      expect((await root.MergeRequests.show(project.id, 1)).upvotes).toBe(1);
      expect((await root.MergeRequestAwardEmojis.all(project.id, 1)).map((item) => item.id)).toEqual([award.id]);
      await reporter.api.MergeRequestAwardEmojis.remove(project.id, 1, award.id);
      expect(await root.MergeRequestAwardEmojis.all(project.id, 1)).toEqual([]);
      const note = await root.MergeRequestNotes.create(project.id, 1, 'Looks right');
      expect([note.body, note.system, note.noteable_type, note.noteable_iid]).toEqual(['Looks right', false, 'MergeRequest', 1]);
      const noteAward = await reporter.api.MergeRequestNoteAwardEmojis.award(project.id, 1, note.id, 'tada');
      expect([noteAward.awardable_type, noteAward.awardable_id]).toEqual(['Note', note.id]);
      expect((await root.MergeRequestNoteAwardEmojis.all(project.id, 1, note.id)).map((item) => item.name)).toEqual(['tada']);
      expect((await root.MergeRequestNotes.edit(project.id, 1, note.id, { body: 'Looks right to me' })).body).toBe('Looks right to me');
      const extra = await root.MergeRequestNotes.create(project.id, 1, 'Never mind');
      await root.MergeRequestNotes.remove(project.id, 1, extra.id);
      expect(await refusal(root.MergeRequestNotes.show(project.id, 1, extra.id))).toEqual([404, '404 Note Not Found']);
      const notes = await root.MergeRequestNotes.all(project.id, 1, { sort: 'asc' });
      expect(notes.map((item) => [item.system, item.body])).toEqual([
        [true, 'changed title from **Add a feature** to **Add a feature{+, ready+}**'],
        [true, 'closed'],
        [true, 'reopened'],
        [true, 'changed time estimate to 1w'],
        [true, 'added 1h 30m of time spent'],
        [true, 'removed time spent'],
        [true, 'removed time estimate'],
        [false, 'Looks right to me'],
      ]);

      expect(await refusal(dev.api.MergeRequests.merge(project.id, 1))).toEqual([401, '401 Unauthorized']);
      expect(await refusal(root.MergeRequests.merge(project.id, 1, { sha: start }))).toEqual([
        409,
        'SHA does not match HEAD of source branch',
      ]);
      const merged = await root.MergeRequests.merge(project.id, 1, { sha: head.id, shouldRemoveSourceBranch: true });
      expect(merged).toMatchObject({ state: 'merged', merged_by: { username: 'root' }, should_remove_source_branch: true });
      const mergeCommit = await root.Commits.show(project.id, 'master');
      expect([merged.merge_commit_sha, mergeCommit.parent_ids]).toEqual([mergeCommit.id, [start, head.id]]);
      expect(await refusal(root.Branches.show(project.id, 'gb-feature'))).toEqual([404, '404 Branch Not Found']);
      expect((await root.Issues.show(issue.iid, { projectId: project.id })).state).toBe('closed');
      expect(await refusal(root.MergeRequests.merge(project.id, 1))).toEqual([406, 'Method Not Allowed']);
      const conflict = await dev.api.MergeRequests.create(project.id, 'gb-conflict', 'master', 'Another readme');
      expect((await root.MergeRequests.show(project.id, conflict.iid)).merge_status).toBe('cannot_be_merged');
      expect(await refusal(root.MergeRequests.merge(project.id, conflict.iid))).toEqual([405, 'Branch cannot be merged']);

      // From a fork into its upstream, merged by a maintainer of the upstream.
      const forker = await client('gb-mr-forker');
      const maintainer = await client('gb-mr-maintainer');
      const upstream = await root.Projects.create({ name: 'gitbeaker-mr-upstream', visibility: 'public' });
      await root.ProjectMembers.add(upstream.id, 40, { userId: maintainer.user.id });
      await root.RepositoryFiles.create(upstream.id, 'README.md', 'master', 'Upstream\n', 'Initial commit');
      const upstreamStart = (await root.Commits.show(upstream.id, 'master')).id;
      const fork = await forker.api.Projects.fork(upstream.id);
      expect([fork.path_with_namespace, (fork.forked_from_project as { id: number }).id]).toEqual([
        'gb-mr-forker/gitbeaker-mr-upstream',
        upstream.id,
      ]);
      // The repository is copied in the background: import_status turns `finished`.
      await t.hosting.backgroundJobs.drain();
      expect((await forker.api.Projects.show(fork.id)).import_status).toBe('finished');
      const fix = await forker.api.Commits.create(
        fork.id,
        'gb-fix',
        'A fix from the fork',
        [{ action: 'create', filePath: 'fix.txt', content: 'fixed\n' }],
        { startBranch: 'master' },
      );
      const fromFork = await forker.api.MergeRequests.create(fork.id, 'gb-fix', 'master', 'A fix', { targetProjectId: upstream.id });
      expect([fromFork.project_id, fromFork.source_project_id, fromFork.target_project_id, fromFork.sha]).toEqual([
        upstream.id,
        fork.id,
        upstream.id,
        fix.id,
      ]);
      expect((await maintainer.api.MergeRequests.allCommits(upstream.id, fromFork.iid)).map((commit) => commit.id)).toEqual([fix.id]);
      expect(await refusal(forker.api.MergeRequests.merge(upstream.id, fromFork.iid))).toEqual([401, '401 Unauthorized']);
      const forkMerged = await maintainer.api.MergeRequests.merge(upstream.id, fromFork.iid);
      expect(forkMerged).toMatchObject({ state: 'merged', merged_by: { username: 'gb-mr-maintainer' } });
      expect((await root.Commits.show(upstream.id, forkMerged.merge_commit_sha as string)).parent_ids).toEqual([upstreamStart, fix.id]);

      // Merge when the pipeline succeeds.
      const autoHead = await root.Commits.create(
        project.id,
        'gb-auto',
        'Automatic',
        [{ action: 'create', filePath: 'auto.txt', content: 'auto\n' }],
        { startBranch: 'master' },
      );
      const auto = await root.MergeRequests.create(project.id, 'gb-auto', 'master', 'Merged automatically');
      await root.Commits.editStatus(project.id, autoHead.id, 'pending', { name: 'gb-ci', ref: 'gb-auto' });
      const waiting = await root.MergeRequests.merge(project.id, auto.iid, { mergeWhenPipelineSucceeds: true });
      expect([waiting.state, waiting.merge_when_pipeline_succeeds, waiting.pipeline?.status]).toEqual(['opened', true, 'pending']);
      expect((await root.MergeRequests.cancelOnPipelineSuccess(project.id, auto.iid)).merge_when_pipeline_succeeds).toBe(false);
      expect(await refusal(root.MergeRequests.cancelOnPipelineSuccess(project.id, auto.iid))).toEqual([406, '406 Not Acceptable']);
      expect((await root.MergeRequests.merge(project.id, auto.iid, { mergeWhenPipelineSucceeds: true })).merge_when_pipeline_succeeds).toBe(
        true,
      );
      await root.Commits.editStatus(project.id, autoHead.id, 'success', { name: 'gb-ci', ref: 'gb-auto' });
      await t.hosting.backgroundJobs.drain();
      const automatic = await root.MergeRequests.show(project.id, auto.iid);
      expect(automatic).toMatchObject({
        merged_by: { username: 'root' },
        merge_commit_sha: (await root.Commits.show(project.id, 'master')).id,
      });
      expect((await root.Commits.show(project.id, automatic.merge_commit_sha as string)).parent_ids).toEqual([mergeCommit.id, autoHead.id]);
      expect(await refusal(root.MergeRequests.cancelOnPipelineSuccess(project.id, auto.iid))).toEqual([405, '405 Method Not Allowed']);

      // Discussions: a thread, a reply in it, and a note of its own, which is a discussion of its own.
      await dev.api.Commits.create(project.id, 'gb-talk', 'Talk it over', [{ action: 'create', filePath: 'talk.txt', content: 'talk\n' }], {
        startBranch: 'master',
      });
      const talk = await dev.api.MergeRequests.create(project.id, 'gb-talk', 'master', 'Talk it over');
      const blocking = async () => (await root.MergeRequests.show(project.id, talk.iid)).blocking_discussions_resolved;
      const thread = await reporter.api.MergeRequestDiscussions.create(project.id, talk.iid, 'Why this?');
      expect(thread).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{40}$/),
        individual_note: false,
        notes: [
          {
            body: 'Why this?',
            type: 'DiscussionNote',
            author: { username: 'gb-mr-reporter' },
            noteable_type: 'MergeRequest',
            noteable_iid: talk.iid,
            resolvable: true,
            resolved: false,
            resolved_by: null,
            resolved_at: null,
          },
        ],
      });
      const opening = thread.notes![0];
      const reply = await dev.api.MergeRequestDiscussions.addNote(project.id, talk.iid, thread.id, 'Because.');
      expect([reply.body, reply.type, reply.author.username, reply.resolvable, reply.resolved]).toEqual([
        'Because.',
        'DiscussionNote',
        'gb-mr-dev',
        true,
        false,
      ]);
      const plain = await root.MergeRequestNotes.create(project.id, talk.iid, 'Plain note');
      const discussions = await root.MergeRequestDiscussions.all(project.id, talk.iid);
      expect(
        discussions.map((discussion) => [
          discussion.id,
          discussion.individual_note,
          notesOf(discussion).map((note) => [note.id, note.body, note.type, note.resolvable]),
        ]),
      ).toEqual([
        [
          thread.id,
          false,
          [
            [opening.id, 'Why this?', 'DiscussionNote', true],
            [reply.id, 'Because.', 'DiscussionNote', true],
          ],
        ],
        [discussions[1].id, true, [[plain.id, 'Plain note', null, false]]],
      ]);
      expect(
        (await dev.api.MergeRequestDiscussions.editNote(project.id, talk.iid, thread.id, reply.id, { body: 'Because it is needed.' })).body,
      ).toBe('Because it is needed.');
      const shownThread = await root.MergeRequestDiscussions.show(project.id, talk.iid, thread.id);
      expect([shownThread.id, shownThread.individual_note, notesOf(shownThread).map((note) => note.body)]).toEqual([
        thread.id,
        false,
        ['Why this?', 'Because it is needed.'],
      ]);
      expect(await refusal(root.MergeRequestDiscussions.show(project.id, talk.iid, '0'.repeat(40)))).toEqual([
        404,
        '404 Discussion Not Found',
      ]);
      // The original answers true for a project that does not ask for resolved discussions.
      expect(await blocking()).toBe(true);
      // The project asks for resolved discussions: the unresolved thread blocks the merge.
      expect(
        (await root.Projects.edit(project.id, { onlyAllowMergeIfAllDiscussionsAreResolved: true }))
          .only_allow_merge_if_all_discussions_are_resolved,
      ).toBe(true);
      expect(await blocking()).toBe(false);
      expect(await refusal(root.MergeRequests.merge(project.id, talk.iid))).toEqual([405, 'Branch cannot be merged']);
      // A reporter who is not the request's author may not resolve; its author (a developer) resolves the thread.
      expect(await refusal(reporter.api.MergeRequestDiscussions.resolve(project.id, talk.iid, thread.id, true))).toEqual([
        403,
        '403 Forbidden',
      ]);
      const resolved = await dev.api.MergeRequestDiscussions.resolve(project.id, talk.iid, thread.id, true);
      expect(
        notesOf(resolved).map((note) => [
          note.id,
          note.resolved,
          (note.resolved_by as { username: string } | null)?.username,
          typeof note.resolved_at,
        ]),
      ).toEqual([
        [opening.id, true, 'gb-mr-dev', 'string'],
        [reply.id, true, 'gb-mr-dev', 'string'],
      ]);
      expect(await blocking()).toBe(true);
      const unresolved = await root.MergeRequestDiscussions.editNote(project.id, talk.iid, thread.id, opening.id, { resolved: false });
      expect([unresolved.id, unresolved.resolved, unresolved.resolved_by, unresolved.resolved_at]).toEqual([opening.id, false, null, null]);
      expect(notesOf(await root.MergeRequestDiscussions.show(project.id, talk.iid, thread.id)).map((note) => note.resolved)).toEqual([
        false,
        true,
      ]);
      expect(await blocking()).toBe(false);
      await root.MergeRequestDiscussions.removeNote(project.id, talk.iid, discussions[1].id, plain.id);
      expect((await root.MergeRequestDiscussions.all(project.id, talk.iid)).map((discussion) => discussion.id)).toEqual([thread.id]);
      // A follow-up issue takes the unresolved thread over and resolves it (gitbeaker requires a title, as the original does).
      const followUp = await dev.api.Issues.create(project.id, 'Follow it up', { mergeRequestToResolveDiscussionsOf: talk.iid });
      expect([followUp.title, followUp.description]).toEqual([
        'Follow it up',
        `The following discussion from !${talk.iid} should be addressed:\n\n- [ ] @gb-mr-reporter started a [discussion](${talk.web_url}` +
          `#note_${opening.id}):  (+1 comment)\n\n    > Why this?`,
      ]);
      const followedUp = await root.MergeRequestDiscussions.show(project.id, talk.iid, thread.id);
      expect(notesOf(followedUp).map((note) => [note.resolved, (note.resolved_by as { username: string } | null)?.username])).toEqual([
        [true, 'gb-mr-dev'],
        [true, 'gb-mr-dev'],
      ]);
      expect(await blocking()).toBe(true);
      expect((await root.MergeRequests.merge(project.id, talk.iid)).state).toBe('merged');
      // Threads of issues are not resolvable.
      const talkIssue = await root.Issues.create(project.id, 'Talk');
      const issueThread = await reporter.api.IssueDiscussions.create(project.id, talkIssue.iid, 'Hello');
      expect([
        issueThread.individual_note,
        notesOf(issueThread).map((note) => [note.body, note.type, note.noteable_type, note.resolvable, 'resolved' in note]),
      ]).toEqual([false, [['Hello', 'DiscussionNote', 'Issue', false, false]]]);
      const issueReply = await root.IssueDiscussions.addNote(project.id, talkIssue.iid, issueThread.id, 'Hi');
      expect([issueReply.body, issueReply.type, issueReply.resolvable]).toEqual(['Hi', 'DiscussionNote', false]);
      expect(notesOf(await root.IssueDiscussions.show(project.id, talkIssue.iid, issueThread.id)).map((note) => note.body)).toEqual([
        'Hello',
        'Hi',
      ]);
    },
  );

  it('creates, lists, shows, edits, stops and removes environments', async () => {
    const project = await root.Projects.create({ name: 'gitbeaker-environments' });
    const production = await root.Environments.create(project.id, 'production', { externalUrl: 'https://prod.example.com' });
    expect(production).toEqual({
      id: production.id,
      name: 'production',
      slug: 'production',
      external_url: 'https://prod.example.com',
      state: 'available',
      last_deployment: null,
    });
    const review = await root.Environments.create(project.id, 'Review/gb-1');
    expect(review.slug).toMatch(/^review-gb-1-[a-z0-9]{6}$/);
    const taken = await root.Environments.create(project.id, 'Review/gb-1').catch((failure: unknown) => failure);
    expect((taken as { cause: { response: { status: number } } }).cause.response.status).toBe(400);
    expect((taken as { cause: { description: string } }).cause.description).toBe('{"name":["has already been taken"]}');

    expect((await root.Environments.all(project.id)).map((item) => [item.name, item.state])).toEqual([
      ['production', 'available'],
      ['Review/gb-1', 'available'],
    ]);
    expect((await root.Environments.all(project.id, { search: 'review' })).map((item) => item.id)).toEqual([review.id]);
    expect((await root.Environments.all(project.id, { name: 'production' })).map((item) => item.id)).toEqual([production.id]);
    expect((await root.Environments.all(project.id, { perPage: 1, maxPages: 2 })).map((item) => item.name)).toEqual([
      'production',
      'Review/gb-1',
    ]);
    const shown = await root.Environments.show(project.id, review.id);
    expect([shown.name, shown.slug, shown.external_url, shown.last_deployment]).toEqual(['Review/gb-1', review.slug, null, null]);

    // gitbeaker 43 types `edit` without `name` (later versions stopped renaming); the service renames, keeping the slug.
    const edited = await root.Environments.edit(project.id, review.id, {
      externalUrl: 'https://review.example.com',
      name: 'review/gb-renamed',
    } as { externalUrl: string });
    expect([edited.name, edited.slug, edited.external_url]).toEqual(['review/gb-renamed', review.slug, 'https://review.example.com']);
    const stopped = await root.Environments.stop(project.id, review.id);
    expect([stopped.id, stopped.state]).toEqual([review.id, 'stopped']);
    expect((await root.Environments.all(project.id, { states: 'stopped' })).map((item) => item.name)).toEqual(['review/gb-renamed']);
    await root.Environments.remove(project.id, review.id);
    await root.Environments.remove(project.id, production.id);
    expect(await root.Environments.all(project.id)).toEqual([]);
    const gone = await root.Environments.show(project.id, review.id).catch((failure: unknown) => failure);
    expect((gone as { cause: { description: string } }).cause.description).toBe('404 Not found');
  });

  it("shares groups with groups, and lists descendant groups, a project's groups and a group's shared projects", async () => {
    const status = (call: Promise<unknown>) =>
      call.then(
        () => 200,
        (failure: { cause: { response: { status: number } } }) => failure.cause.response.status,
      );
    const user = await root.Users.create({
      email: 'gb-shares@example.com',
      username: 'gb-shares',
      name: 'gb-shares',
      password: 'long-enough-1',
      skipConfirmation: true,
    });
    const pat = await root.Users.createPersonalAccessToken(user.id, 'gb-shares', ['api']);
    const member = new Gitlab({ host, token: pat.token as string });
    const parent = await root.Groups.create('gb-share-parent', 'gb-share-parent', { visibility: 'private' });
    const child = await root.Groups.create('gb-share-child', 'gb-share-child', { parentId: parent.id, visibility: 'private' });
    const grandchild = await root.Groups.create('gb-share-grandchild', 'gb-share-grandchild', {
      parentId: child.id,
      visibility: 'private',
    });
    const team = await root.Groups.create('gb-share-team', 'gb-share-team', { visibility: 'private' });
    await root.GroupMembers.add(team.id, 30, { userId: user.id });
    const project = await root.Projects.create({ name: 'gb-shared-project', namespaceId: child.id, visibility: 'private' });
    expect(await status(member.Projects.show(project.id))).toBe(404);

    // The team's members reach the parent group's projects, up to the share's level.
    const shared = await root.Groups.share(parent.id, team.id, 20, {});
    expect(
      (shared.shared_with_groups as { group_id: number; group_access_level: number }[]).map((link) => [
        link.group_id,
        link.group_access_level,
      ]),
    ).toEqual([[team.id, 20]]);
    const seen = await member.Projects.show(project.id);
    expect([seen.id, (seen.permissions as { group_access: unknown }).group_access]).toEqual([project.id, null]);
    expect(await status(root.Groups.share(parent.id, team.id, 20, {}))).toBe(409);

    expect((await root.Groups.allDescendantGroups(parent.id, {})).map((group) => group.id).sort()).toEqual(
      [child.id, grandchild.id].sort(),
    );
    expect((await root.Projects.allGroups(project.id)).map((group) => group.id).sort()).toEqual([parent.id, child.id].sort());
    await root.Projects.share(project.id, team.id, 30);
    expect((await root.Projects.allGroups(project.id, { withShared: true })).map((group) => group.id).sort()).toEqual(
      [parent.id, child.id, team.id].sort(),
    );
    expect((await root.Groups.allSharedProjects(team.id)).map((item) => item.id)).toEqual([project.id]);

    await root.Projects.unshare(project.id, team.id);
    await root.Groups.unshare(parent.id, team.id, {});
    expect(await status(member.Projects.show(project.id))).toBe(404);
    expect(await status(root.Groups.unshare(parent.id, team.id, {}))).toBe(404);
  });

  it('registers, verifies, lists, changes, enables, disables and removes runners', async () => {
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => 'succeeded',
        (failure: { cause: { response: { status: number }; description: string } }) => [
          failure.cause.response.status,
          failure.cause.description,
        ],
      );
    const user = await root.Users.create({
      email: 'gb-runners@example.com',
      username: 'gb-runners',
      name: 'gb-runners',
      password: 'long-enough-1',
      skipConfirmation: true,
    });
    const pat = await root.Users.createPersonalAccessToken(user.id, 'gb-runners', ['api']);
    const owner = new Gitlab({ host, token: pat.token as string });
    const first = await owner.Projects.create({ name: 'gb-runners-one' });
    const second = await owner.Projects.create({ name: 'gb-runners-two' });
    const registration = (await root.ApplicationSettings.show()).runners_registration_token as string;

    // Registered as gitlab-runner registers, with the project's runners token and the instance's.
    const runner = await root.Runners.register(first.runners_token as string, {
      description: 'gb-runner',
      tagList: ['docker', 'linux'],
      runUntagged: false,
      info: { name: 'gitlab-runner', version: '11.4.2' },
    });
    expect(runner).toEqual({ id: expect.any(Number), token: expect.stringMatching(/^[A-Za-z0-9]{20}$/) });
    const shared = await root.Runners.create(registration, { description: 'gb-shared' });
    expect(await refusal(root.Runners.register('gb-unknown'))).toEqual([403, '403 Forbidden']);

    // Its token verified (gitbeaker sends what it is given): that is its contact.
    await root.Runners.verify({ token: runner.token } as Parameters<typeof root.Runners.verify>[0]);
    const shown = await owner.Runners.show(runner.id);
    expect(shown).toMatchObject({
      description: 'gb-runner',
      is_shared: false,
      runner_type: 'project_type',
      tag_list: ['docker', 'linux'],
      run_untagged: false,
      name: 'gitlab-runner',
      version: '11.4.2',
      token: runner.token,
      online: true,
      status: 'online',
    });
    expect(shown.projects.map((project) => project.id)).toEqual([first.id]);
    expect(await refusal(root.Runners.verify({ token: 'gb-unknown' } as Parameters<typeof root.Runners.verify>[0]))).toEqual([
      403,
      '403 Forbidden',
    ]);

    // Lists: the owner's own (by scope), every runner for root (by type).
    expect((await owner.Runners.all({ owned: true })).map((listed) => listed.id)).toEqual([runner.id]);
    expect((await owner.Runners.all({ owned: true, status: 'paused' })).map((listed) => listed.id)).toEqual([]);
    expect((await root.Runners.all({ type: 'instance_type', perPage: 100 })).map((listed) => listed.id)).toContain(shared.id);
    expect((await root.Runners.all({ tagList: ['docker', 'linux'], perPage: 100 })).map((listed) => listed.id)).toEqual([runner.id]);
    expect(await refusal(owner.Runners.all())).toEqual([403, '403 Forbidden']);

    // Changed: tag_list is the full set of its tags.
    const edited = await owner.Runners.edit(runner.id, {
      description: 'gb-runner changed',
      tagList: ['ruby'],
      active: false,
      accessLevel: 'ref_protected',
      maximumTimeout: 3600,
    });
    expect(edited).toMatchObject({
      description: 'gb-runner changed',
      tag_list: ['ruby'],
      active: false,
      status: 'paused',
      access_level: 'ref_protected',
      maximum_timeout: 3600,
    });
    expect(await refusal(owner.Runners.edit(shared.id, { active: false }))).toEqual([403, '403 Forbidden - No access granted']);

    // Enabled in the owner's second project, listed there, disabled; never in its only project.
    expect(await owner.Runners.enable(second.id, runner.id)).toMatchObject({ id: runner.id, is_shared: false });
    expect(await refusal(owner.Runners.enable(second.id, runner.id))).toEqual([
      400,
      '{"assign_to":["Validation failed: Runner has already been taken"]}',
    ]);
    expect(await refusal(owner.Runners.enable(second.id, shared.id))).toEqual([403, '403 Forbidden - No access granted']);
    expect((await owner.Runners.all({ projectId: second.id })).map((listed) => listed.id)).toEqual(
      expect.arrayContaining([runner.id, shared.id]),
    );
    expect(await refusal(owner.Runners.remove({ runnerId: runner.id }))).toEqual([
      403,
      '403 Forbidden - Runner associated with more than one project',
    ]);
    await owner.Runners.disable(second.id, runner.id);
    expect((await owner.Runners.show(runner.id)).projects.map((project) => project.id)).toEqual([first.id]);
    expect(await refusal(owner.Runners.disable(first.id, runner.id))).toEqual([
      403,
      '403 Forbidden - Only one project associated with the runner. Please remove the runner instead',
    ]);

    // Removed by its owner, and by a runner with its own token.
    await owner.Runners.remove({ runnerId: runner.id });
    expect(await refusal(root.Runners.show(runner.id))).toEqual([404, '404 Runner Not Found']);
    await root.Runners.remove({ token: shared.token });
    expect(await refusal(root.Runners.show(shared.id))).toEqual([404, '404 Runner Not Found']);
  });

  it("lists a project's, a user's and the caller's events: action names, push_data, notes, filters and pages", async () => {
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => 'succeeded',
        (failure: { cause: { response: { status: number }; description: string } }) => [
          failure.cause.response.status,
          failure.cause.description,
        ],
      );
    const client = async (username: string) => {
      const user = await root.Users.create({
        email: `${username}@example.com`,
        username,
        name: username,
        password: 'long-enough-1',
        skipConfirmation: true,
      });
      const pat = await root.Users.createPersonalAccessToken(user.id, username, ['api']);
      return { user, api: new Gitlab({ host, token: pat.token as string }) };
    };
    /** gitbeaker types a client's answers as either casing's; the service's are snake_case. */
    const eventsOf = (events: unknown) => events as EventSchema[];
    /** Each event's action, target type and author, as the original's Events API words them. */
    const brief = (events: unknown) =>
      eventsOf(events).map((event) => `${event.action_name}|${event.target_type}|${event.author_username}`);

    const { user: member, api: asMember } = await client('gb-events-member');
    const project = await root.Projects.create({ name: 'gb-events', visibility: 'private' });
    await root.ProjectMembers.add(project.id, 20, { userId: member.id });
    // Two pushes through the API: the first makes the branch, the second moves it.
    await root.RepositoryFiles.create(project.id, 'README.md', 'main', '# Events\n', 'Start the events');
    const first = await root.Commits.show(project.id, 'main');
    const second = await root.Commits.create(project.id, 'main', 'Add the notes\n\nWith a body.', [
      { action: 'create', filePath: 'NOTES.md', content: 'notes\n' },
    ]);
    // An issue opened by root, commented on by the member, closed by root.
    const issue = await root.Issues.create(project.id, 'gb-events issue');
    const note = await asMember.IssueNotes.create(project.id, issue.iid, 'gb-events comment');
    await root.Issues.edit(project.id, issue.iid, { stateEvent: 'close' });

    // The project's events, newest first; oldest first with sort: 'asc'.
    const events = eventsOf(await root.Events.all({ projectId: project.id }));
    expect(brief(events)).toEqual([
      'closed|Issue|root',
      'commented on|Note|gb-events-member',
      'opened|Issue|root',
      'pushed to|null|root',
      'pushed new|null|root',
      'joined|null|gb-events-member',
      'created|null|root',
    ]);
    for (const event of events) {
      expect([event.project_id, event.author_id, event.author.id, event.author.username]).toEqual([
        project.id,
        event.author_id,
        event.author_id,
        event.author_username,
      ]);
      // Made after the project, by now on the instance's clock.
      expect(Date.parse(event.created_at)).toBeGreaterThanOrEqual(Date.parse(project.created_at as string));
      expect(Date.parse(event.created_at)).toBeLessThanOrEqual(t.hosting.clock.now().getTime());
      expect(['note' in event, 'push_data' in event]).toEqual([
        event.action_name === 'commented on',
        event.action_name.startsWith('pushed'),
      ]);
    }
    expect([events[5].author_id, events[5].target_id, events[5].target_title]).toEqual([member.id, null, null]);
    expect(brief(await root.Events.all({ projectId: project.id, sort: 'asc' }))).toEqual(brief(events).reverse());

    // By action: the pushes, with their push_data.
    const pushes = eventsOf(await root.Events.all({ projectId: project.id, action: 'pushed' }));
    expect(pushes.map((event) => [event.action_name, event.target_id, event.target_iid, event.target_title, event.push_data])).toEqual([
      [
        'pushed to',
        null,
        null,
        null,
        {
          commit_count: 1,
          action: 'pushed',
          ref_type: 'branch',
          commit_from: first.id,
          commit_to: second.id,
          ref: 'main',
          commit_title: 'Add the notes',
        },
      ],
      [
        'pushed new',
        null,
        null,
        null,
        {
          commit_count: 1,
          action: 'created',
          ref_type: 'branch',
          commit_from: null,
          commit_to: first.id,
          ref: 'main',
          commit_title: 'Start the events',
        },
      ],
    ]);
    // By target type: the issue's events; a comment, with its note.
    const onIssue = eventsOf(await root.Events.all({ projectId: project.id, targetType: 'issue' }));
    expect(onIssue.map((event) => [event.action_name, event.target_id, event.target_iid, event.target_title])).toEqual([
      ['closed', issue.id, issue.iid, 'gb-events issue'],
      ['opened', issue.id, issue.iid, 'gb-events issue'],
    ]);
    const [comment, ...others] = eventsOf(await root.Events.all({ projectId: project.id, action: 'commented', targetType: 'note' }));
    expect(others).toEqual([]);
    expect([comment.action_name, comment.target_type, comment.target_id, comment.target_iid]).toEqual([
      'commented on',
      'Note',
      note.id,
      note.id,
    ]);
    expect(comment.note).toMatchObject({
      id: note.id,
      type: null,
      body: 'gb-events comment',
      attachment: null,
      system: false,
      noteable_id: issue.id,
      noteable_type: 'Issue',
      noteable_iid: issue.iid,
      author: { id: member.id, username: 'gb-events-member' },
    });
    expect(await root.Events.all({ projectId: project.id, action: 'merged' })).toEqual([]);
    // By day: before a day began, after it ended.
    const day = (shift: number) => new Date(Date.parse(events[0].created_at) + shift * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    expect((await root.Events.all({ projectId: project.id, after: day(-1), before: day(1) })).length).toBe(events.length);
    expect(await root.Events.all({ projectId: project.id, before: day(0) })).toEqual([]);
    expect(await root.Events.all({ projectId: project.id, after: day(0) })).toEqual([]);

    // Pages: gitbeaker follows each page's Link (which keeps the filters) to the end, or up to maxPages; one page with showExpanded.
    expect(brief(await root.Events.all({ projectId: project.id, perPage: 2 }))).toEqual(brief(events));
    expect(brief(await root.Events.all({ projectId: project.id, targetType: 'issue', perPage: 1 }))).toEqual(brief(onIssue));
    expect(brief(await root.Events.all({ projectId: project.id, perPage: 2, maxPages: 2 }))).toEqual(brief(events).slice(0, 4));
    const { data, paginationInfo } = await root.Events.all({ projectId: project.id, perPage: 2, page: 2, showExpanded: true });
    expect([brief(data), paginationInfo]).toEqual([
      brief(events).slice(2, 4),
      { total: 7, next: 3, current: 2, previous: 1, perPage: 2, totalPages: 4 },
    ]);

    // A user's events (by ID or username), and the caller's own.
    const theirs = ['commented on|Note|gb-events-member', 'joined|null|gb-events-member'];
    expect(brief(await root.Events.all({ userId: member.id }))).toEqual(theirs);
    expect(brief(await root.Events.all({ userId: 'gb-events-member', action: 'commented' }))).toEqual(theirs.slice(0, 1));
    expect(brief(await root.Users.allEvents(member.id, { targetType: 'note' }))).toEqual(theirs.slice(0, 1));
    expect(brief(await asMember.Events.all())).toEqual(theirs);
    expect(brief(await root.Events.all({ targetType: 'issue', perPage: 2, page: 1 }))).toEqual(brief(onIssue));

    // A stranger sees none of a private project's events; anonymously, GET /events is refused.
    const { api: stranger } = await client('gb-events-stranger');
    expect(await refusal(stranger.Events.all({ projectId: project.id }))).toEqual([404, '404 Project Not Found']);
    expect(await stranger.Events.all({ userId: member.id })).toEqual([]);
    expect(await refusal(new Gitlab({ host }).Events.all())).toEqual([401, '401 Unauthorized']);
  });

  it('surfaces errors with the status and body the original service gives', async () => {
    const error = await root.Users.show(424242).catch((failure: unknown) => failure);
    expect((error as { cause: { response: { status: number } } }).cause.response.status).toBe(404);
    expect((error as { cause: { description: string } }).cause.description).toBe('404 User Not Found');
  });

  it("adds, lists, shows, edits and removes a project's hooks, and the system hooks", async () => {
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => 'succeeded',
        (failure: { cause: { response: { status: number }; description: string } }) => [
          failure.cause.response.status,
          failure.cause.description,
        ],
      );
    const developer = await root.Users.create({
      email: 'gb-hooks-dev@example.com',
      username: 'gb-hooks-dev',
      name: 'gb-hooks-dev',
      password: 'long-enough-1',
      skipConfirmation: true,
    });
    const asDeveloper = new Gitlab({
      host,
      token: (await root.Users.createPersonalAccessToken(developer.id, 'gb', ['api'])).token as string,
    });
    const project = await root.Projects.create({ name: 'gitbeaker-hooks' });
    await root.ProjectMembers.add(project.id, 30, { userId: developer.id });

    const url = 'http://gb-hooks.example.com/receive';
    const hook = await root.ProjectHooks.add(project.id, url, {
      token: 'gb-hook-secret',
      pushEvents: true,
      issuesEvents: true,
      mergeRequestsEvents: true,
      noteEvents: true,
    });
    // Its token is never answered back.
    expect(hook).toEqual({
      id: expect.any(Number),
      url,
      project_id: project.id,
      push_events: true,
      push_events_branch_filter: null,
      tag_push_events: false,
      issues_events: true,
      confidential_issues_events: false,
      merge_requests_events: true,
      note_events: true,
      confidential_note_events: false,
      job_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      alert_status: 'executable',
      disabled_until: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
    expect(await root.ProjectHooks.all(project.id)).toEqual([hook]);
    expect(await root.ProjectHooks.show(project.id, hook.id)).toEqual(hook);
    // gitbeaker sends the URL again with what changes; the rest stays.
    const moved = 'http://gb-hooks.example.com/moved';
    const edited = await root.ProjectHooks.edit(project.id, hook.id, moved, {
      pushEvents: false,
      tagPushEvents: true,
      pushEventsBranchFilter: 'release/*',
    });
    expect(edited).toEqual({ ...hook, url: moved, push_events: false, tag_push_events: true, push_events_branch_filter: 'release/*' });
    expect(await root.ProjectHooks.show(project.id, hook.id)).toEqual(edited);

    expect(await refusal(asDeveloper.ProjectHooks.all(project.id))).toEqual([403, '403 Forbidden']);
    expect(await refusal(root.ProjectHooks.add(project.id, 'ftp://gb-hooks.example.com/'))).toEqual([
      400,
      '{"url":["is blocked: Only allowed protocols are http, https"]}',
    ]);
    expect(await refusal(root.ProjectHooks.add(project.id, `${host}/receive`))).toEqual([
      400,
      '{"url":["is blocked: Requests to localhost are not allowed"]}',
    ]);
    await root.ProjectHooks.remove(project.id, hook.id);
    expect(await root.ProjectHooks.all(project.id)).toEqual([]);
    expect(await refusal(root.ProjectHooks.show(project.id, hook.id))).toEqual([404, '404 Hook Not Found']);

    // System hooks (administrators'). gitbeaker 43's `show` and `test` POST /hooks/:id, as later versions test a system
    // hook (the era tests it with GET /hooks/:id): both test it.
    const system = await root.SystemHooks.add('http://gb-system.example.com/receive', {
      token: 'gb-system-secret',
      pushEvents: true,
      mergeRequestsEvents: true,
      repositoryUpdateEvents: false,
    });
    expect(system).toEqual({
      id: expect.any(Number),
      url: 'http://gb-system.example.com/receive',
      push_events: true,
      tag_push_events: false,
      merge_requests_events: true,
      repository_update_events: false,
      enable_ssl_verification: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
    const other = await root.SystemHooks.add('https://gb-system.example.com/other');
    expect(other).toMatchObject({
      push_events: false,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: true,
    });
    expect(await root.SystemHooks.all()).toEqual([system, other]);
    const sample = {
      project_id: 1,
      owner_email: 'example@gitlabhq.com',
      owner_name: 'Someone',
      name: 'Ruby',
      path: 'ruby',
      event_name: 'project_create',
    };
    expect(await root.SystemHooks.test(system.id)).toEqual(sample);
    expect(await root.SystemHooks.show(system.id)).toEqual(sample);
    expect(await refusal(asDeveloper.SystemHooks.all())).toEqual([403, '403 Forbidden']);
    expect(await refusal(asDeveloper.SystemHooks.add('http://gb-system.example.com/mine'))).toEqual([403, '403 Forbidden']);
    await root.SystemHooks.remove(system.id);
    await root.SystemHooks.remove(other.id);
    expect(await root.SystemHooks.all()).toEqual([]);
    expect(await refusal(root.SystemHooks.remove(system.id))).toEqual([404, '404 Hook Not Found']);
  });
});

describe.runIf(hasGit)('@gitbeaker/rest and native git against forgekit, heard by a project hook', () => {
  it('delivers in order what gitbeaker and git do: pushes, an issue opened, commented on and closed, a merge request merged', async () => {
    const received: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(body) });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const work = mkdtempSync(join(tmpdir(), 'forgekit-gitbeaker-hooks-'));
    // A receiver on this machine: the application setting allows it.
    expect((await root.ApplicationSettings.show()).allow_local_requests_from_web_hooks_and_services).toBe(false);
    await root.ApplicationSettings.edit({ allowLocalRequestsFromWebHooksAndServices: true });
    try {
      const project = await root.Projects.create({ name: 'gitbeaker-hooked' });
      const hook = await root.ProjectHooks.add(project.id, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, {
        token: 'gb-hooked-secret',
        pushEvents: true,
        issuesEvents: true,
        mergeRequestsEvents: true,
        noteEvents: true,
      });
      expect(hook.project_id).toBe(project.id);

      await root.RepositoryFiles.create(project.id, 'README.md', 'master', '# Hooked\n', 'Initial commit');
      const initial = (await root.Commits.show(project.id, 'master')).id;
      const topic = await root.Commits.create(
        project.id,
        'gb-topic',
        'On topic',
        [{ action: 'create', filePath: 'topic.txt', content: 'topic\n' }],
        { startBranch: 'master' },
      );
      const issue = await root.Issues.create(project.id, 'Heard by a hook');
      const mr = await root.MergeRequests.create(project.id, 'gb-topic', 'master', 'Topic');
      const merged = await root.MergeRequests.accept(project.id, mr.iid);
      expect([merged.state, merged.merge_commit_sha]).toEqual(['merged', expect.stringMatching(/^[0-9a-f]{40}$/)]);
      const note = await root.IssueNotes.create(project.id, issue.iid, 'Noted by gitbeaker');
      expect((await root.Issues.edit(project.id, issue.iid, { stateEvent: 'close' })).state).toBe('closed');

      // git runs apart from the event loop, which serves it.
      const git = (args: string[]) =>
        new Promise<number | null>((resolve) => spawn('git', args, { cwd: work, env: GIT_ENV, stdio: 'ignore' }).on('close', resolve));
      const remote = `http://oauth2:${ROOT_TOKEN}@${new URL(host).host}/root/gitbeaker-hooked.git`;
      expect(await git(['clone', '--quiet', remote, 'clone'])).toBe(0);
      writeFileSync(join(work, 'clone', 'pushed.txt'), 'pushed\n');
      execFileSync('git', ['-C', join(work, 'clone'), 'add', '.'], { env: GIT_ENV });
      execFileSync('git', ['-C', join(work, 'clone'), 'commit', '--quiet', '-m', 'Pushed with git'], { env: GIT_ENV });
      expect(await git(['-C', 'clone', 'push', '--quiet', 'origin', 'master'])).toBe(0);
      const pushed = execFileSync('git', ['-C', join(work, 'clone'), 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

      // Every event's deliveries made and sent.
      await t.hosting.backgroundJobs.drain();
      await environmentOf(t.hosting).jobs.drain({ everyKind: true });
      expect(received.length).toBeGreaterThanOrEqual(9);
      // Every event has made its deliveries by now: these nine are all the hook has.
      expect((await t.hosting.hooks.deliveries({ hook_id: hook.id })).map((delivery) => delivery.trigger)).toEqual([
        'push_hooks',
        'push_hooks',
        'issue_hooks',
        'merge_request_hooks',
        'merge_request_hooks',
        'push_hooks',
        'note_hooks',
        'issue_hooks',
        'push_hooks',
      ]);
      expect(received.map(({ headers }) => headers['x-gitlab-event'])).toEqual([
        'Push Hook',
        'Push Hook',
        'Issue Hook',
        'Merge Request Hook',
        'Merge Request Hook',
        'Push Hook',
        'Note Hook',
        'Issue Hook',
        'Push Hook',
      ]);
      for (const { headers } of received) {
        expect(headers).toMatchObject({
          'content-type': 'application/json',
          'x-gitlab-token': 'gb-hooked-secret',
          'x-gitlab-event-uuid': expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        });
      }
      expect(new Set(received.map(({ headers }) => headers['x-gitlab-event-uuid'])).size).toBe(9);
      // What each delivery is about is fixed by its event; the state of an issue or a merge request is read when the
      // delivery is made, so only the final ones (merged, closed) are asserted.
      const zero = '0'.repeat(40);
      const byRoot = { user: { username: 'root' }, project: { id: project.id, path_with_namespace: 'root/gitbeaker-hooked' } };
      expect(received.map(({ body }) => body)).toMatchObject([
        { object_kind: 'push', ref: 'refs/heads/master', before: zero, after: initial, user_username: 'root', total_commits_count: 1 },
        {
          object_kind: 'push',
          ref: 'refs/heads/gb-topic',
          before: zero,
          after: topic.id,
          total_commits_count: 1,
          commits: [{ id: topic.id, added: ['topic.txt'], modified: [], removed: [] }],
        },
        { object_kind: 'issue', ...byRoot, object_attributes: { id: issue.id, iid: issue.iid, action: 'open', title: 'Heard by a hook' } },
        {
          object_kind: 'merge_request',
          ...byRoot,
          object_attributes: { iid: mr.iid, action: 'open', source_branch: 'gb-topic', target_branch: 'master', title: 'Topic' },
        },
        { object_kind: 'merge_request', ...byRoot, object_attributes: { iid: mr.iid, action: 'merge', state: 'merged' } },
        { object_kind: 'push', ref: 'refs/heads/master', before: initial, after: merged.merge_commit_sha, total_commits_count: 2 },
        {
          object_kind: 'note',
          ...byRoot,
          object_attributes: { id: note.id, note: 'Noted by gitbeaker', noteable_type: 'Issue', system: false },
          issue: { iid: issue.iid },
        },
        { object_kind: 'issue', ...byRoot, object_attributes: { iid: issue.iid, action: 'close', state: 'closed' } },
        {
          object_kind: 'push',
          ref: 'refs/heads/master',
          before: merged.merge_commit_sha,
          after: pushed,
          user_username: 'root',
          total_commits_count: 1,
          commits: [{ id: pushed, message: 'Pushed with git\n', added: ['pushed.txt'], modified: [], removed: [] }],
        },
      ]);
    } finally {
      await root.ApplicationSettings.edit({ allowLocalRequestsFromWebHooksAndServices: false });
      receiver.closeAllConnections();
      receiver.close();
      rmSync(work, { recursive: true, force: true });
    }
  }, 120_000);
});
