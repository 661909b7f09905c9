/**
 * A test double's seeds (src/testing/seed.ts): every kind made in one transaction and read back as the API shows it,
 * the ids, tokens and URLs answered working; refusals naming the attribute and leaving nothing behind; `reset()` back to
 * the seeded state; `POST /-/forgekit/seed`; `forgekit serve --seed` (dist/cli.js).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { environmentOf } from '../src/hosting.js';
import type { MergeRequest, SeedDescription, SeedResult } from '../src/index.js';
import { createUser, migratedDataDir, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';
import { listeningOn, Processes, runGathering } from './processes.js';

let t: TestHosting;

beforeAll(async () => {
  t = await startHosting();
  // What each block starts from: a seed becomes the baseline reset() returns to.
  await t.hosting.snapshot('empty');
});
afterAll(() => t.close());

const ALICE_TOKEN = 'alice-token-0001';

/** Every kind a seed makes. */
const everyKind: SeedDescription = {
  users: [
    { username: 'alice', name: 'Alice', token: ALICE_TOKEN },
    { username: 'bob', email: 'Bob@Example.com', password: 'bob-password-0001', token_scopes: ['read_api'] },
  ],
  groups: [
    {
      path: 'acme',
      name: 'Acme',
      visibility: 'internal',
      members: [{ user: 'alice', access_level: 50 }],
      hooks: [{ url: 'https://hooks.example.com/acme', push_events: false }],
    },
    { path: 'team', parent: 'acme', visibility: 'internal', runners: [{ description: 'group runner' }] },
    { path: 'loose' },
  ],
  projects: [
    {
      name: 'App',
      namespace: 'acme/team',
      description: 'The app',
      visibility: 'internal',
      default_branch: 'main',
      members: [{ user: 'bob', access_level: 40 }],
      labels: [{ name: 'bug', color: 'red', description: 'Something is wrong', priority: 1 }],
      milestones: [
        { title: 'v1', due_date: '2030-01-01' },
        { title: 'v0', state: 'closed' },
      ],
      commits: [
        { branch: 'main', message: 'Start', files: [{ path: 'README.md', content: '# App\n' }] },
        {
          branch: 'feature',
          start_branch: 'main',
          message: 'Feature',
          author: 'bob',
          files: [{ path: 'src/app.js', content: 'run();\n' }],
        },
        { branch: 'main', message: 'Readme again', files: [{ path: 'README.md', content: 'IyBBcHAgMgo=', encoding: 'base64' }] },
      ],
      branches: [{ branch: 'feature-copy', ref: 'feature' }],
      tags: [{ tag_name: 'v1.0', ref: 'main', message: 'First release' }],
      issues: [
        {
          title: 'First',
          description: 'It breaks',
          author: 'alice',
          assignees: ['bob', 'alice'],
          labels: ['bug', 'triage'],
          milestone: 'v1',
          due_date: '2030-02-01',
          notes: [{ body: 'Seen it too', author: 'bob' }, { body: 'Fixing' }],
        },
        { title: 'Second', state: 'closed', confidential: true },
        { title: 'Third', confidential: true, discussion_locked: true },
      ],
      merge_requests: [
        {
          title: 'Add the feature',
          description: 'Adds it',
          author: 'bob',
          source_branch: 'feature',
          assignees: ['alice'],
          labels: ['bug'],
          milestone: 'v1',
        },
        { title: 'Closed one', source_branch: 'feature-copy', state: 'closed', notes: [{ body: 'Not now', author: 'alice' }] },
      ],
      hooks: [{ url: 'https://hooks.example.com/app', note_events: true, push_events: false }],
      runners: [{ description: 'project runner', tag_list: ['docker'], run_untagged: false }],
    },
    { path: 'solo', namespace: 'alice' },
  ],
  runners: [{ description: 'shared runner' }],
  hooks: [{ url: 'https://hooks.example.com/system', repository_update_events: false }],
};

describe('a seed', () => {
  let made: SeedResult;
  // At the host in-process answers have (`http://localhost`), so that URLs compare.
  const as = (token: string, path: string) => t.http.get(`/api/v4${path}`).set('PRIVATE-TOKEN', token).set('Host', 'localhost');
  const root = (path: string) => as(ROOT_TOKEN, path);

  beforeAll(async () => {
    await t.hosting.restore('empty');
    made = await t.hosting.seed(everyKind);
  });

  it('records no event: no hook hears of it, and the Events API starts empty', async () => {
    expect(await t.hosting.hooks.deliveries()).toEqual([]);
    expect((await root(`/projects/${made.projects[0].id}/events`)).body).toEqual([]);
  });

  it('makes users whose tokens answer with their scopes, with their namespaces', async () => {
    const [alice, bob] = made.users;
    expect(alice).toEqual({ id: alice.id, username: 'alice', web_url: 'http://localhost/alice', token: ALICE_TOKEN });
    expect(bob.token).toMatch(/^[A-Za-z0-9]{20}$/);
    const me = await as(ALICE_TOKEN, '/user');
    expect([me.status, me.body.username, me.body.name, me.body.email]).toEqual([200, 'alice', 'Alice', 'alice@example.com']);
    expect((await as(bob.token, '/user')).body).toMatchObject({ id: bob.id, username: 'bob', email: 'bob@example.com' });
    // read_api: reads, but no writes.
    expect((await t.http.post('/api/v4/projects').set('PRIVATE-TOKEN', bob.token).send({ name: 'x' })).status).toBe(403);
    const session = await t.http.post('/api/v4/session').send({ login: 'bob', password: 'bob-password-0001' });
    expect(session.status).toBe(201);
    expect((await root('/namespaces/alice')).body).toMatchObject({ kind: 'user', full_path: 'alice' });
    const tokens = await t.hosting.personalAccessTokens.list(alice.id);
    expect(tokens.map((token) => [token.name, token.scopes])).toEqual([['seed', ['api']]]);
  });

  it('makes groups with their members (root owns one that lists no owner), hooks and runners', async () => {
    const [acme, team, loose] = made.groups;
    expect(acme).toMatchObject({ full_path: 'acme', web_url: 'http://localhost/groups/acme', hooks: [{ id: expect.any(Number) }] });
    expect((await root(`/groups/${acme.id}/members`)).body.map((member: { username: string }) => member.username)).toEqual(['alice']);
    expect(
      (await root('/groups/loose/members')).body.map((member: { username: string; access_level: number }) => [
        member.username,
        member.access_level,
      ]),
    ).toEqual([['root', 50]]);
    const subgroup = await as(ALICE_TOKEN, `/groups/${encodeURIComponent('acme/team')}`);
    expect(subgroup.body).toMatchObject({
      id: team.id,
      full_path: 'acme/team',
      full_name: 'Acme / team',
      parent_id: acme.id,
      visibility: 'internal',
    });
    expect((await root(`/groups/${acme.id}`)).body).toMatchObject({ name: 'Acme', visibility: 'internal' });
    expect((await root(`/groups/${acme.id}/hooks/${acme.hooks[0].id}`)).body.url).toBe('https://hooks.example.com/acme');
    expect(loose.id).toBeGreaterThan(team.id);
    const runner = await t.hosting.runners.get(team.runners[0].id);
    expect(runner).toMatchObject({ description: 'group runner', runner_type: 'group_type', token: team.runners[0].token });
  });

  it('makes projects with their repositories, members, labels and milestones', async () => {
    const [app, solo] = made.projects;
    expect(app).toMatchObject({
      path_with_namespace: 'acme/team/app',
      web_url: 'http://localhost/acme/team/app',
      http_url_to_repo: 'http://localhost/acme/team/app.git',
      default_branch: 'main',
    });
    const project = (await root(`/projects/${app.id}`)).body;
    expect(project).toMatchObject({
      name: 'App',
      description: 'The app',
      visibility: 'internal',
      default_branch: 'main',
      web_url: app.web_url,
      http_url_to_repo: app.http_url_to_repo,
      runners_token: app.runners_token,
      open_issues_count: 2,
    });
    // The first branch, protected as the settings say; the files as the commits left them.
    expect((await root(`/projects/${app.id}/protected_branches`)).body.map((branch: { name: string }) => branch.name)).toEqual(['main']);
    const readme = await t.hosting.repositoryFiles.get(app.id, 'README.md', { ref: 'main' });
    expect(Buffer.from(readme.content, 'base64').toString()).toBe('# App 2\n');
    const commits = await t.hosting.commits.list(app.id, { ref_name: 'feature' });
    expect(commits.map((commit) => [commit.title, commit.author_name])).toEqual([
      ['Feature', 'bob'],
      ['Start', 'Administrator'],
    ]);
    expect(app.commits.map((commit) => commit.id)).toEqual([
      commits[1].id,
      commits[0].id,
      (await t.hosting.branches.get(app.id, 'main')).commit.id,
    ]);
    expect((await t.hosting.branches.list(app.id)).map((branch) => branch.name).sort()).toEqual(['feature', 'feature-copy', 'main']);
    expect(await t.hosting.tags.get(app.id, 'v1.0')).toMatchObject({ message: 'First release', target: expect.any(String) });
    // In a user's namespace, its user is a maintainer; elsewhere the members listed.
    expect(
      (await root(`/projects/${app.id}/members`)).body.map((member: { username: string; access_level: number }) => [
        member.username,
        member.access_level,
      ]),
    ).toEqual([['bob', 40]]);
    expect((await root(`/projects/${solo.id}/members`)).body.map((member: { username: string }) => member.username)).toEqual(['alice']);
    expect(solo).toMatchObject({ path_with_namespace: 'alice/solo', default_branch: null, commits: [] });
    expect((await root(`/projects/${solo.id}`)).body).toMatchObject({ name: 'solo', creator_id: made.users[0].id, default_branch: null });
    const labels = (await root(`/projects/${app.id}/labels`)).body;
    expect(
      labels.map((label: { name: string; color: string; priority: number | null }) => [label.name, label.color, label.priority]),
    ).toEqual([
      ['bug', '#FF0000', 1],
      ['triage', '#428BCA', null],
    ]);
    expect(app.labels.map((label) => label.name)).toEqual(['bug', 'triage']);
    const milestones = await t.hosting.milestones.list(app.id, {});
    expect(milestones.map((milestone) => [milestone.iid, milestone.title, milestone.state, milestone.due_date]).sort()).toEqual([
      [1, 'v1', 'active', '2030-01-01'],
      [2, 'v0', 'closed', null],
    ]);
    // The iid counters go on after the seed's.
    expect((await t.hosting.milestones.create(app.id, { title: 'v2' })).iid).toBe(3);
  });

  it('makes issues and their notes as the issues API shows them, their iid counter going on after them', async () => {
    const app = made.projects[0];
    const [first, second] = app.issues;
    expect(first).toEqual({
      id: first.id,
      iid: 1,
      web_url: 'http://localhost/acme/team/app/issues/1',
      notes: [{ id: expect.any(Number) }, { id: expect.any(Number) }],
    });
    const issue = (await root(`/projects/${app.id}/issues/1`)).body;
    expect(issue).toMatchObject({
      id: first.id,
      title: 'First',
      description: 'It breaks',
      state: 'opened',
      author: { username: 'alice' },
      labels: ['bug', 'triage'],
      milestone: { title: 'v1' },
      due_date: '2030-02-01',
      user_notes_count: 2,
      web_url: first.web_url,
    });
    expect(issue.assignees.map((user: { username: string }) => user.username)).toEqual(['bob', 'alice']);
    expect((await root(`/projects/${app.id}/issues/2`)).body).toMatchObject({
      id: second.id,
      state: 'closed',
      confidential: true,
      closed_by: { username: 'root' },
    });
    expect((await root(`/projects/${app.id}/issues/3`)).body).toMatchObject({ confidential: true, discussion_locked: true });
    const notes = (await root(`/projects/${app.id}/issues/1/notes?sort=asc`)).body;
    expect(
      notes.map((note: { id: number; body: string; author: { username: string } }) => [note.id, note.body, note.author.username]),
    ).toEqual([
      [first.notes[0].id, 'Seen it too', 'bob'],
      [first.notes[1].id, 'Fixing', 'root'],
    ]);
    // Listed, filtered and counted as any other issue.
    expect((await t.hosting.issues.list(app.id, { labels: ['bug'] })).map((listed) => listed.iid)).toEqual([1]);
    expect(
      (await as(made.users[1].token, `/projects/${app.id}/issues?state=opened`)).body.map((listed: { iid: number }) => listed.iid),
    ).toEqual([3, 1]);
    expect((await t.hosting.issues.create(app.id, { title: 'Fourth' })).iid).toBe(4);
    expect((await root(`/projects/${app.id}`)).body.open_issues_count).toBe(3);
  });

  it('makes merge requests that read back exactly as ones the API opens', async () => {
    const app = made.projects[0];
    const [opened, closed] = app.merge_requests;
    expect(opened).toEqual({ id: opened.id, iid: 1, web_url: 'http://localhost/acme/team/app/merge_requests/1', notes: [] });
    // The same request from a branch at the same commit, opened through the API by the same author.
    await t.hosting.branches.create(app.id, { branch: 'feature-again', ref: 'feature' });
    const bob = t.hosting.as(made.users[1].id);
    const milestone = (await t.hosting.milestones.list(app.id, { title: 'v1' }))[0];
    const byApi = await bob.mergeRequests.create(app.id, {
      title: 'Add the feature',
      description: 'Adds it',
      source_branch: 'feature-again',
      target_branch: 'main',
      assignee_ids: [made.users[0].id],
      labels: ['bug'],
      milestone_id: milestone.id,
    });
    const alike = (request: MergeRequest) => {
      const { id, iid, source_branch, web_url, reference, references, created_at, updated_at, ...rest } = request;
      return rest;
    };
    const seeded = await t.hosting.mergeRequests.get(app.id, opened.iid);
    expect(seeded.merge_status).toBe('can_be_merged');
    expect(seeded.diff_refs).toEqual(byApi.diff_refs);
    expect(alike(seeded)).toEqual(alike(await t.hosting.mergeRequests.get(app.id, byApi.iid)));
    const overHttp = await root(`/projects/${app.id}/merge_requests/${opened.iid}`);
    expect(alike(overHttp.body)).toEqual(alike((await root(`/projects/${app.id}/merge_requests/${byApi.iid}`)).body));
    expect(overHttp.body).toMatchObject({ id: opened.id, web_url: opened.web_url, source_branch: 'feature' });
    expect(
      (await root(`/projects/${app.id}/merge_requests/${opened.iid}/changes`)).body.changes.map(
        (change: { new_path: string }) => change.new_path,
      ),
    ).toEqual(['src/app.js']);

    expect((await root(`/projects/${app.id}/merge_requests/${closed.iid}`)).body).toMatchObject({
      state: 'closed',
      closed_by: { username: 'root' },
    });
    const notes = (await root(`/projects/${app.id}/merge_requests/${closed.iid}/notes`)).body;
    expect(notes.map((note: { id: number; body: string }) => [note.id, note.body])).toEqual([[closed.notes[0].id, 'Not now']]);
  });

  it('makes hooks and runners, whose tokens register and verify', async () => {
    const app = made.projects[0];
    expect((await root(`/projects/${app.id}/hooks/${app.hooks[0].id}`)).body).toMatchObject({
      url: 'https://hooks.example.com/app',
      note_events: true,
      push_events: false,
    });
    expect((await root('/hooks')).body.map((hook: { id: number; url: string }) => [hook.id, hook.url])).toEqual([
      [made.hooks[0].id, 'https://hooks.example.com/system'],
    ]);
    for (const runner of [app.runners[0], made.runners[0], made.groups[1].runners[0]])
      expect((await t.http.post('/api/v4/runners/verify').send({ token: runner.token })).status).toBe(200);
    expect(await t.hosting.runners.get(app.runners[0].id)).toMatchObject({
      runner_type: 'project_type',
      tag_list: ['docker'],
      run_untagged: false,
    });
    expect(await t.hosting.runners.get(made.runners[0].id)).toMatchObject({ runner_type: 'instance_type', description: 'shared runner' });
    // The answered registration token registers more.
    for (const token of [app.runners_token, made.groups[0].runners_token])
      expect((await t.http.post('/api/v4/runners').send({ token, description: 'another' })).status).toBe(201);
  });
});

describe('a seed refused', () => {
  const storage = () => Object.values(environmentOf(t.hosting).storages)[0];
  /** The repositories in the storage, by their hashed paths. */
  const repositories = () => {
    const found: string[] = [];
    const walk = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true }))
        if (entry.name.endsWith('.git')) found.push(entry.name);
        else if (entry.isDirectory()) walk(join(directory, entry.name));
    };
    walk(storage());
    return found.sort();
  };

  beforeAll(() => t.hosting.restore('empty'));

  it('names the attribute, and changes nothing', async () => {
    const before = { users: (await t.hosting.users.list({})).length, repositories: repositories() };
    const refusal = async (description: unknown) => {
      const error = await t.hosting.seed(description as SeedDescription).then(
        () => undefined,
        (failure: { status: number; messages: unknown }) => failure,
      );
      expect(error?.status).toBe(400);
      return error!.messages;
    };
    expect(await refusal({ users: [{ username: 'root' }] })).toEqual({ 'users[0][username]': ['has already been taken'] });
    expect(await refusal({ users: [{ username: 'carol' }, { username: 'Carol', email: 'carol2@example.com' }] })).toEqual({
      'users[1][username]': ['has already been taken'],
    });
    expect(await refusal({ users: [{ username: 'dave', email: 'admin@example.com', password: 'short' }] })).toEqual({
      'users[0][email]': ['has already been taken'],
      'users[0][password]': ['is too short (minimum is 8 characters)'],
    });
    expect(await refusal({ projects: [{ name: 'A' }, { name: 'B', namespace: 'nobody' }] })).toEqual({
      'projects[1][namespace]': ['does not name a user or a group of the seed or of the instance'],
    });
    expect(await refusal({ groups: [{ path: 'child', parent: 'later' }, { path: 'later' }] })).toEqual({
      'groups[0][parent]': ['does not name a group made earlier in the seed, nor one of the instance'],
    });
    expect(
      await refusal({ groups: [{ path: 'g', visibility: 'private' }], projects: [{ name: 'P', namespace: 'g', visibility: 'public' }] }),
    ).toEqual({
      'projects[0][visibility]': ['public is not allowed in a private group.'],
    });
    expect(
      await refusal({
        projects: [
          {
            name: 'P',
            labels: [{ name: 'x', color: 'nocolour' }],
            issues: [{ title: 'I', milestone: 'none', assignees: ['ghost'], notes: [{ body: ' ' }] }],
          },
        ],
      }),
    ).toEqual({
      'projects[0][labels][0][color]': ['must be a valid color code'],
      'projects[0][issues][0][milestone]': ['does not name a milestone of the project'],
      'projects[0][issues][0][assignees][0]': ['does not name a user of the seed or of the instance'],
      'projects[0][issues][0][notes][0][body]': ["can't be blank"],
    });
    // The schema's own refusals name the attribute the same way.
    await expect(t.hosting.seed({ projects: [{ name: 'P', issues: [{}] }] } as unknown as SeedDescription)).rejects.toMatchObject({
      status: 400,
      message: '400 (Bad request) "projects[0][issues][0][title]" not given',
    });
    expect(await refusal({ projects: [{ name: 'P', visibility: 'secret' }] })).toEqual({
      'projects[0][visibility]': ['does not have a valid value'],
    });
    // Found once the memberships are written: a level below one from a group above.
    expect(
      await refusal({
        users: [{ username: 'ivy' }],
        groups: [
          { path: 'top', members: [{ user: 'ivy', access_level: 50 }] },
          { path: 'sub', parent: 'top', members: [{ user: 'ivy', access_level: 30 }] },
        ],
        projects: [{ name: 'P', namespace: 'top/sub', members: [{ user: 'ivy', access_level: 20 }] }],
      }),
    ).toEqual({
      'groups[1][members][0][access_level]': ['should be greater than or equal to Owner inherited membership from group top'],
      'projects[0][members][0][access_level]': ['should be greater than or equal to Owner inherited membership from group top'],
    });
    // Lists within lists are bounded in all, before anything is read.
    const issues = Array.from({ length: 100_001 }, () => ({ title: 'Many' }));
    expect(await refusal({ projects: [{ name: 'P', issues }] })).toEqual({ base: ['is too large (at most 100000 items in all)'] });
    expect({ users: (await t.hosting.users.list({})).length, repositories: repositories() }).toEqual(before);
  });

  it('leaves nothing behind when an item late in it fails: rows, repositories, and the state reset() returns to', async () => {
    const usersBefore = (await t.hosting.users.list({})).length;
    const projectsBefore = (await t.hosting.projects.list({})).length;
    const reposBefore = repositories();
    const late: SeedDescription = {
      users: [{ username: 'erin' }],
      groups: [{ path: 'erins' }],
      projects: [
        {
          name: 'Fine',
          namespace: 'erin',
          issues: [{ title: 'An issue' }],
          commits: [{ branch: 'master', message: 'One', files: [{ path: 'a', content: 'a' }] }],
        },
        {
          name: 'Broken',
          namespace: 'erins',
          commits: [{ branch: 'master', message: 'One', files: [{ path: 'a', content: 'a' }] }],
          merge_requests: [{ title: 'From nowhere', source_branch: 'missing' }],
        },
      ],
    };
    await expect(t.hosting.seed(late)).rejects.toMatchObject({
      status: 400,
      messages: { 'projects[1][merge_requests][0][source_branch]': ['does not exist'] },
    });
    expect((await t.hosting.users.list({})).length).toBe(usersBefore);
    expect((await t.hosting.projects.list({})).length).toBe(projectsBefore);
    expect(await t.hosting.groups.list({})).toEqual([]);
    expect(repositories()).toEqual(reposBefore);
    await t.hosting.reset();
    expect((await t.hosting.users.list({})).length).toBe(usersBefore);

    // Once mended, the same seed is made whole, in repositories of its own.
    late.projects![1].merge_requests = [];
    const made = await t.hosting.seed(late);
    expect(repositories()).toHaveLength(reposBefore.length + 2);
    expect((await t.hosting.issues.list(made.projects[0].id, {})).map((issue) => issue.iid)).toEqual([1]);
  });
});

describe('reset() after a seed', () => {
  it('returns to the seeded state, and another seed to its own', async () => {
    await t.hosting.restore('empty');
    const made = await t.hosting.seed({
      users: [{ username: 'frank', token: 'frank-token-0001' }],
      projects: [{ name: 'Kept', namespace: 'frank', issues: [{ title: 'Kept' }] }],
    });
    const projectId = made.projects[0].id;
    await t.hosting.issues.create(projectId, { title: 'Later' });
    const stranger = await createUser(t.hosting);
    await t.hosting.projects.delete(projectId);
    await t.hosting.reset();
    expect((await t.hosting.issues.list(projectId, {})).map((issue) => issue.title)).toEqual(['Kept']);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', 'frank-token-0001')).body.username).toBe('frank');
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', stranger.token)).status).toBe(401);
    // The seed's own state is unlisted, as the first start's is.
    const kept = await t.http.get('/-/forgekit/snapshots').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(kept.body.map((snapshot: { name: string }) => snapshot.name)).toEqual(['empty']);

    // A later seed adds to it, and becomes the baseline in turn.
    await t.hosting.seed({ projects: [{ name: 'Added', namespace: 'frank' }] });
    await t.hosting.issues.create(projectId, { title: 'Gone again' });
    await t.hosting.reset();
    expect((await t.hosting.projects.list({ search: 'Added' })).map((project) => project.name)).toEqual(['Added']);
    expect((await t.hosting.issues.list(projectId, {})).map((issue) => issue.title)).toEqual(['Kept']);
  });

  it('goes back to the first start instead when asked, in process and over HTTP, which is the baseline from then on', async () => {
    await t.hosting.seed({ users: [{ username: 'gina', token: 'gina-token-0001' }] });
    await t.hosting.reset({ toFirstStart: true });
    expect((await t.hosting.users.list({})).map((user) => user.username)).toEqual(['root']);
    await createUser(t.hosting);
    await t.hosting.reset();
    expect((await t.hosting.users.list({})).map((user) => user.username)).toEqual(['root']);

    await t.hosting.seed({ users: [{ username: 'gina', token: 'gina-token-0001' }] });
    const plain = await t.http.post('/-/forgekit/reset').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(plain.status).toBe(204);
    expect((await t.hosting.users.list({})).map((user) => user.username)).toEqual(['gina', 'root']);
    const first = await t.http.post('/-/forgekit/reset').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ toFirstStart: true });
    expect(first.status).toBe(204);
    expect((await t.hosting.users.list({})).map((user) => user.username)).toEqual(['root']);
  });
});

describe('POST /-/forgekit/seed', () => {
  it('answers 201 with what it made, for administrators of a test double', async () => {
    await t.hosting.restore('empty');
    const user = await createUser(t.hosting);
    const seed = (token?: string) => {
      const request = t.http.post('/-/forgekit/seed');
      return (token ? request.set('PRIVATE-TOKEN', token) : request).send({
        users: [{ username: 'gina' }],
        // The instance's own users are named as the seed's are.
        projects: [
          {
            path: 'web',
            namespace: 'gina',
            members: [{ user: user.username, access_level: 30 }],
            commits: [
              { branch: 'master', message: 'By a user of the instance', author: user.username, files: [{ path: 'a', content: 'a' }] },
            ],
          },
        ],
      });
    };
    expect((await seed()).status).toBe(401);
    expect((await seed(user.token)).status).toBe(403);
    const res = await seed(ROOT_TOKEN).set('Host', 'forge.test:8443');
    expect(res.status).toBe(201);
    expect(res.body.projects[0]).toMatchObject({ path_with_namespace: 'gina/web', web_url: 'http://forge.test:8443/gina/web' });
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', res.body.users[0].token)).body.username).toBe('gina');
    const [commit] = await t.hosting.commits.list(res.body.projects[0].id, {});
    expect([commit.author_name, commit.author_email]).toEqual([`User ${user.username.slice(4)}`, user.email]);
    expect((await t.hosting.projectMembers.get(res.body.projects[0].id, user.id)).access_level).toBe(30);
    const refused = await seed(ROOT_TOKEN);
    expect([refused.status, refused.body]).toEqual([
      400,
      { message: { 'users[0][username]': ['has already been taken'], 'users[0][email]': ['has already been taken'] } },
    ]);
  });

  it('is not served, and hosting.seed throws, outside the test-double mode', async () => {
    const plain = await startHosting({ testDouble: false });
    try {
      expect((await plain.http.post('/-/forgekit/seed').set('PRIVATE-TOKEN', ROOT_TOKEN).send({})).status).toBe(404);
      await expect(plain.hosting.seed({})).rejects.toThrow(/not a test double/);
    } finally {
      await plain.close();
    }
  });
});

// The embedded database's, as the CLI's own tests: not again in the PostgreSQL suite.
describe.skipIf(Boolean(process.env.FORGEKIT_TEST_DATABASE_URL))('forgekit serve --seed', { timeout: 120_000 }, () => {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  const processes = new Processes();
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'forgekit-seed-'));
  });
  afterEach(() => processes.stopAll());
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const serve = (file: string, ...flags: string[]) => {
    const dataDir = migratedDataDir(join(directory, `data-${Math.random().toString(36).slice(2)}`));
    const port = String(20000 + Math.floor(Math.random() * 20000));
    return runGathering(processes, process.execPath, [cli, 'serve', '--port', port, '--data-dir', dataDir, '--seed', file, ...flags], {
      env: { ...process.env, DATABASE_URL: '', FORGEKIT_ROOT_PASSWORD: 'seed-root-password' },
    });
  };
  const file = (name: string, description: unknown) => {
    const path = join(directory, name);
    writeFileSync(path, JSON.stringify(description));
    return path;
  };

  it('serves a test double that starts from the seed, and says the tokens it made', async () => {
    const server = serve(
      file('seed.json', {
        users: [{ username: 'hana', token: 'hana-token-0001' }, { username: 'ivan' }],
        projects: [{ path: 'app', namespace: 'hana' }],
      }),
    );
    const url = await listeningOn(server);
    expect(server.output()).toContain('forgekit: seeded from');
    expect(server.output()).toContain('2 users, 0 groups, 1 project');
    const ivan = /ivan's token: ([A-Za-z0-9]{20})/.exec(server.output())?.[1];
    expect(server.output()).not.toContain("hana's token");
    const me = await fetch(`${url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': ivan! } });
    expect(((await me.json()) as { username: string }).username).toBe('ivan');
    const project = await fetch(`${url}/api/v4/projects/hana%2Fapp`, { headers: { 'PRIVATE-TOKEN': 'hana-token-0001' } });
    expect(project.status).toBe(200);
    // A test double: its control surface is served.
    const session = await fetch(`${url}/api/v4/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'root', password: 'seed-root-password' }),
    });
    const { private_token: rootToken } = (await session.json()) as { private_token: string };
    expect((await fetch(`${url}/-/forgekit/snapshots`, { headers: { 'PRIVATE-TOKEN': rootToken } })).status).toBe(200);
  });

  it('stops with the attribute a seed refused, and refuses a file that is not a seed before opening anything', async () => {
    const refused = serve(file('bad.json', { projects: [{ name: 'P', namespace: 'nobody' }] }));
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('projects[0][namespace]');
    const malformed = serve(file('malformed.json', { users: [{}] }));
    expect(await malformed.exited).toBe(1);
    expect(malformed.output()).toContain('"users[0][username]" not given');
    const missing = serve(join(directory, 'missing.json'));
    expect(await missing.exited).toBe(1);
    expect(missing.output()).toMatch(/--seed .*missing\.json: cannot be read \(ENOENT\)/);
  });
});
