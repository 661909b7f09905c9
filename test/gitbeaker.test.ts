import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { Gitlab } from '@gitbeaker/rest';
import sshpk from 'sshpk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

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

const sshKey = () => sshpk.parseKey(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh');

describe('@gitbeaker/rest against forgekit', () => {
  it('manages users', async () => {
    const created = await root.Users.create({ email: 'gb@example.com', username: 'gitbeaker', name: 'Gitbeaker', password: 'long-enough-1', skipConfirmation: true });
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
    const created = await root.RepositoryFiles.create(project.id, 'docs/read me.md', 'main', 'IyBIZWxsbwo=', 'Add the readme', { encoding: 'base64', authorName: 'Gitbeaker', authorEmail: 'gb@example.com' });
    expect(created).toMatchObject({ file_path: 'docs/read me.md', branch: 'main' });
    const file = await root.RepositoryFiles.show(project.id, 'docs/read me.md', 'main');
    expect([Buffer.from(file.content as string, 'base64').toString(), file.last_commit_id]).toEqual(['# Hello\n', file.commit_id]);
    expect(await root.RepositoryFiles.showRaw(project.id, 'docs/read me.md', 'main')).toBe('# Hello\n');
    await root.RepositoryFiles.edit(project.id, 'docs/read me.md', 'main', '# Changed\n', 'Change it', { lastCommitId: file.last_commit_id as string });
    const stale = await root.RepositoryFiles.edit(project.id, 'docs/read me.md', 'main', '# Again\n', 'Stale', { lastCommitId: file.last_commit_id as string }).catch((failure: unknown) => failure);
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
    expect([issue.iid, issue.state, issue.labels, issue.due_date, issue.subscribed]).toEqual([1, 'opened', ['bug', 'ui'], '2030-01-31', true]);
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

  it('surfaces errors with the status and body the original service gives', async () => {
    const error = await root.Users.show(424242).catch((failure: unknown) => failure);
    expect((error as { cause: { response: { status: number } } }).cause.response.status).toBe(404);
    expect((error as { cause: { description: string } }).cause.description).toBe('404 User Not Found');
  });
});
