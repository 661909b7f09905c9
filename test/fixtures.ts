/**
 * What route examples (the `example` of each route in src/api/) name: the fixtures, made in a test's
 * database when an example first names them, and the tools an example's input draws on.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as openpgp from 'openpgp';
import qs from 'qs';
import sshpk from 'sshpk';
import type { Test } from 'supertest';
import type { AnyRoute } from '../src/api/route.js';
import { exampleOf, type ExampleFixture, type ExampleTools } from './route-examples.js';
import { createUser, type TestHosting } from './helpers.js';

export type TestUser = Awaited<ReturnType<typeof createUser>>;

/** Whose `own…` fixtures an example names: the administrator's (root) or the normal user's. */
export type Owner = 'admin' | 'normal';

export const newSshKey = () =>
  sshpk.parseKey(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string, 'pem').toString('ssh');

export const newGpgKey = async () =>
  (await openpgp.generateKey({ userIDs: [{ name: 'Example', email: 'example@example.com' }], format: 'armored' })).publicKey;

/** A one-pixel PNG: the avatar of the fixture user. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** The hooks' receiver (FixtureSet#receiver), one per test process. */
let receiving: Promise<string> | undefined;

let counter = 0;
/** Letters and digits, so that it makes a valid username and the local part of an address. */
const unique = () => `ex${process.pid}n${(counter += 1)}`;

/** The tools an example's input gets; without a test hosting (no database), new users and groups are a plausible ID. */
export const exampleTools = (signIn: { login: string; password: string }, t?: TestHosting): ExampleTools => ({
  newSshKey,
  newGpgKey,
  unique,
  newUser: async () => (t ? (await createUser(t.hosting)).id : 2),
  newGroup: async () =>
    t ? (await t.hosting.groups.create({ name: `Group ${unique()}`, path: `group-${unique()}`, visibility: 'public' })).id : 2,
  newProject: async () => (t ? (await t.hosting.projects.create({ name: `Project ${unique()}`, visibility: 'private' })).id : 2),
  registrationToken: async () => (t ? (await t.hosting.applicationSettings.get()).runners_registration_token : 'aRegistrationToken01'),
  newRunnerToken: async () =>
    t
      ? (await t.hosting.runners.register({ token: (await t.hosting.applicationSettings.get()).runners_registration_token })).token
      : 'aRunnerToken00000001',
  newRunner: async () => {
    if (!t) return 2;
    const project = await t.hosting.projects.create({ name: `Runners ${unique()}`, visibility: 'private' });
    return (await t.hosting.runners.register({ token: project.runners_token!, description: 'To enable' })).id;
  },
  signIn,
});

/**
 * One set of the fixtures examples name, each made when first named and then kept. Calls that only read can
 * share a set; a write that succeeds may use up what it names (a deleted key, a revoked token), so each such
 * call gets a set of its own.
 */
export class FixtureSet {
  private readonly made = new Map<string, Promise<number | string>>();

  constructor(
    private readonly t: TestHosting,
    /** The normal user whose `own…` fixtures the normal caller's examples name. */
    private readonly normal: TestUser,
  ) {}

  /**
   * Where the hooks of the fixtures deliver: a server of the test's own that takes every delivery (local addresses
   * allowed for hooks, as an administrator may allow them).
   */
  private async receiver(): Promise<string> {
    await this.t.hosting.applicationSettings.update({ allow_local_requests_from_web_hooks_and_services: true });
    receiving ??= new Promise((resolve) => {
      const server = createServer((request, response) => {
        request.resume();
        request.on('end', () => response.writeHead(200).end());
      });
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
      });
    });
    return receiving;
  }

  /** How many fixtures it has made. */
  get size(): number {
    return this.made.size;
  }

  /** The fixture's id (or key, or file name) as a path names it. */
  value(name: ExampleFixture, owner: Owner): Promise<number | string> {
    const memo = name.startsWith('own') ? `${name}:${owner}` : name;
    let value = this.made.get(memo);
    if (!value) {
      value = this.make(name, owner);
      this.made.set(memo, value);
    }
    return value;
  }

  /** A merge request of the fixture user's in `repository`: a branch of its own with a commit, into master. */
  private async newMergeRequest(owner: Owner, title: string): Promise<{ project: number; iid: number }> {
    const root = this.t.hosting;
    const project = Number(await this.value('repository', owner));
    const branch = `topic-${unique()}`;
    await root.commits.create(project, {
      branch,
      start_branch: 'master',
      commit_message: 'A change to merge',
      actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'Merged\n' }],
    });
    const user = Number(await this.value('user', owner));
    const { iid } = await root
      .as(user)
      .mergeRequests.create(project, { source_branch: branch, target_branch: 'master', title: `${title} ${unique()}` });
    return { project, iid };
  }

  private async make(name: ExampleFixture, owner: Owner): Promise<number | string> {
    const root = this.t.hosting;
    // The caller's own things are made as the caller: in process, root unless told otherwise.
    const own = owner === 'admin' ? root : root.as(this.normal.id);
    const user = async () => Number(await this.value('user', owner));
    switch (name) {
      case 'user':
        return (await createUser(root)).id;
      case 'sshKey':
        return (await root.sshKeys.createForUser(await user(), { title: 'fixture', key: newSshKey() })).id;
      case 'gpgKey':
        return (await root.gpgKeys.createForUser(await user(), { key: await newGpgKey() })).id;
      case 'email':
        return (await root.emails.createForUser(await user(), { email: `${unique()}@example.com` })).id;
      case 'personalToken':
        return (await root.personalAccessTokens.create(await user(), { name: 'fixture', scopes: ['api'] })).id;
      case 'impersonationToken':
        return (await root.impersonationTokens.create(await user(), { name: 'fixture', scopes: ['api'] })).id;
      case 'customAttributeKey':
        return (await root.customAttributes.set(await user(), 'colour', { value: 'blue' })).key;
      case 'avatarFilename':
        await root.users.update(await user(), { avatar: { filename: 'avatar.png', content_type: 'image/png', data: PNG } });
        return 'avatar.png';
      case 'namespace': {
        // The fixture user's own namespace (administrators see every namespace).
        const { username } = await root.users.get(await user());
        return (await root.namespaces.list({ search: username })).find((namespace) => namespace.path === username)!.id;
      }
      case 'project':
        // A private project of the fixture user's.
        return (await root.as(await user()).projects.create({ name: `Fixture ${unique()}`, visibility: 'private' })).id;
      case 'starredProject': {
        // Another of the fixture user's private projects, which root (the administrator, who sees it) has starred.
        const { id } = await root.as(await user()).projects.create({ name: `Starred ${unique()}`, visibility: 'private' });
        await root.projects.star(id);
        return id;
      }
      case 'projectAvatarFilename':
        await root.projects.update(Number(await this.value('project', owner)), {
          avatar: { filename: 'logo.png', content_type: 'image/png', data: PNG },
        });
        return 'logo.png';
      case 'sharedProject': {
        // Another of the fixture user's private projects, shared with the fixture group.
        const { id } = await root.as(await user()).projects.create({ name: `Shared ${unique()}`, visibility: 'private' });
        await root.projects.share(id, { group_id: Number(await this.value('group', owner)), group_access: 30 });
        return id;
      }
      case 'namespacePath': {
        // The fixture user's own namespace's path: its username.
        return (await root.users.get(await user())).username;
      }
      case 'sharingGroup': {
        // Another private group of the fixture user's, shared with the fixture group.
        const name = `Sharing ${unique()}`;
        const { id } = await root
          .as(await user())
          .groups.create({ name, path: name.replace(' ', '-').toLowerCase(), visibility: 'private' });
        await root.groups.share(id, { group_id: Number(await this.value('group', owner)), group_access: 30 });
        return id;
      }
      case 'group': {
        // A private group the fixture user made, and so owns.
        const name = `Group ${unique()}`;
        return (await root.as(await user()).groups.create({ name, path: name.replace(' ', '-').toLowerCase(), visibility: 'private' })).id;
      }
      case 'member': {
        // A developer of the fixture project and the fixture group.
        const { id } = await createUser(root);
        await root.projectMembers.add(Number(await this.value('project', owner)), { user_id: id, access_level: 30 });
        await root.groupMembers.add(Number(await this.value('group', owner)), { user_id: id, access_level: 30 });
        return id;
      }
      case 'repository': {
        // A private project of the fixture user's, whose repository has a first commit: README.md on master.
        const { id } = await root.as(await user()).projects.create({ name: `Repository ${unique()}`, visibility: 'private' });
        await root.commits.create(id, {
          branch: 'master',
          commit_message: 'Initial commit',
          actions: [{ action: 'create', file_path: 'README.md', content: '# Fixture\n' }],
        });
        // A second branch, for a merge request into master.
        await root.branches.create(id, { branch: 'develop', ref: 'master' });
        return id;
      }
      case 'commit':
        return (await root.commits.get(Number(await this.value('repository', owner)), 'master')).id;
      case 'branch': {
        const name = `fixture-${unique()}`;
        await root.branches.create(Number(await this.value('repository', owner)), { branch: name, ref: 'master' });
        return name;
      }
      case 'protectedBranch':
        // master, the first branch, is protected as default_branch_protection says.
        await this.value('repository', owner);
        return 'master';
      case 'tag': {
        const name = `v-${unique()}`;
        await root.tags.create(Number(await this.value('repository', owner)), {
          tag_name: name,
          ref: 'master',
          message: 'Fixture release',
          release_description: 'Fixture notes',
        });
        return name;
      }
      case 'tagWithoutRelease': {
        const name = `light/${unique()}`;
        await root.tags.create(Number(await this.value('repository', owner)), { tag_name: name, ref: 'master' });
        return name;
      }
      case 'filePath':
        await this.value('repository', owner);
        return 'README.md';
      case 'newFilePath':
        await this.value('repository', owner);
        return `new/${unique()}.txt`;
      case 'blob': {
        const id = Number(await this.value('repository', owner));
        return (await root.repositoryFiles.get(id, 'README.md', { ref: 'master' })).blob_id;
      }
      case 'pickableCommit': {
        // A commit on a branch of its own that adds a file master lacks: picking it onto master changes master.
        const id = Number(await this.value('repository', owner));
        const branch = `pick-${unique()}`;
        const actions = [{ action: 'create' as const, file_path: `picked/${unique()}.txt`, content: 'Picked\n' }];
        return (await root.commits.create(id, { branch, start_branch: 'master', commit_message: 'A commit to pick', actions })).id;
      }
      case 'archiveFormat':
        return 'zip';
      case 'issue':
        return (await root.as(await user()).issues.create(Number(await this.value('project', owner)), { title: `Fixture ${unique()}` }))
          .iid;
      case 'issueId':
        return (await root.issues.get(Number(await this.value('project', owner)), Number(await this.value('issue', owner)))).id;
      case 'subscribedIssue': {
        const project = Number(await this.value('project', owner));
        const { iid } = await root.as(await user()).issues.create(project, { title: `Followed ${unique()}` });
        await root.issues.subscribe(project, iid);
        return iid;
      }
      case 'issueNote':
        return (
          await root
            .as(await user())
            .issueNotes.create(Number(await this.value('project', owner)), Number(await this.value('issue', owner)), {
              body: 'Fixture comment',
            })
        ).id;
      case 'issueAward':
        return (
          await root
            .as(await user())
            .awardEmoji.create(Number(await this.value('project', owner)), Number(await this.value('issue', owner)), { name: 'tada' })
        ).id;
      case 'issueNoteAward': {
        const [project, issue, note] = await Promise.all([
          this.value('project', owner),
          this.value('issue', owner),
          this.value('issueNote', owner),
        ]);
        return (await root.as(await user()).awardEmoji.createForNote(Number(project), Number(issue), Number(note), { name: 'tada' })).id;
      }
      case 'mergeRequest':
        return (await this.newMergeRequest(owner, 'Fixture')).iid;
      case 'subscribedMergeRequest': {
        const { project, iid } = await this.newMergeRequest(owner, 'Followed');
        await root.mergeRequests.subscribe(project, iid);
        return iid;
      }
      case 'automaticMergeRequest': {
        const { project, iid } = await this.newMergeRequest(owner, 'Automatic');
        const head = (await root.mergeRequests.get(project, iid)).sha!;
        await root.commitStatuses.create(project, head, { state: 'pending', name: 'ci' });
        await root.mergeRequests.merge(project, iid, { merge_when_pipeline_succeeds: true });
        return iid;
      }
      case 'mergeRequestNote': {
        const [project, iid] = await Promise.all([this.value('repository', owner), this.value('mergeRequest', owner)]);
        return (await root.as(await user()).mergeRequestNotes.create(Number(project), Number(iid), { body: 'Fixture comment' })).id;
      }
      case 'mergeRequestAward': {
        const [project, iid] = await Promise.all([this.value('repository', owner), this.value('mergeRequest', owner)]);
        return (await root.as(await user()).mergeRequestAwardEmoji.create(Number(project), Number(iid), { name: 'tada' })).id;
      }
      case 'mergeRequestNoteAward': {
        const [project, iid, note] = await Promise.all([
          this.value('repository', owner),
          this.value('mergeRequest', owner),
          this.value('mergeRequestNote', owner),
        ]);
        return (
          await root.as(await user()).mergeRequestAwardEmoji.createForNote(Number(project), Number(iid), Number(note), { name: 'tada' })
        ).id;
      }
      case 'issueDiscussion': {
        const [project, iid] = await Promise.all([this.value('project', owner), this.value('issue', owner)]);
        return (await root.as(await user()).issueDiscussions.create(Number(project), Number(iid), { body: 'Fixture thread' })).id;
      }
      case 'issueDiscussionNote': {
        const [project, iid, discussion] = await Promise.all([
          this.value('project', owner),
          this.value('issue', owner),
          this.value('issueDiscussion', owner),
        ]);
        return (await root.issueDiscussions.get(Number(project), Number(iid), String(discussion))).notes[0].id;
      }
      case 'mergeRequestDiscussion': {
        const [project, iid] = await Promise.all([this.value('repository', owner), this.value('mergeRequest', owner)]);
        return (await root.as(await user()).mergeRequestDiscussions.create(Number(project), Number(iid), { body: 'Fixture thread' })).id;
      }
      case 'mergeRequestDiscussionNote': {
        const [project, iid, discussion] = await Promise.all([
          this.value('repository', owner),
          this.value('mergeRequest', owner),
          this.value('mergeRequestDiscussion', owner),
        ]);
        return (await root.mergeRequestDiscussions.get(Number(project), Number(iid), String(discussion))).notes[0].id;
      }
      case 'labelledProject': {
        const { id } = await root.as(await user()).projects.create({ name: `Labelled ${unique()}`, visibility: 'private' });
        await root.as(await user()).labels.create(id, { name: 'fixture', color: '#428BCA', description: 'A fixture' });
        return id;
      }
      case 'label':
        return (await root.labels.get(Number(await this.value('labelledProject', owner)), 'fixture')).id;
      case 'subscribedLabel': {
        const project = Number(await this.value('labelledProject', owner));
        const { id } = await root.as(await user()).labels.create(project, { name: 'followed', color: 'teal' });
        await root.labels.subscribe(project, id);
        return id;
      }
      case 'milestone':
        return (await root.as(await user()).milestones.create(Number(await this.value('project', owner)), { title: `Fixture ${unique()}` }))
          .id;
      case 'groupMilestone':
        return (
          await root.as(await user()).groupMilestones.create(Number(await this.value('group', owner)), { title: `Fixture ${unique()}` })
        ).id;
      case 'environment':
        return (
          await root.as(await user()).environments.create(Number(await this.value('project', owner)), { name: `fixture/${unique()}` })
        ).id;
      case 'hook':
        return (
          await root.as(await user()).projectHooks.create(Number(await this.value('project', owner)), {
            url: `https://hooks-${unique()}.example.com/fixture`,
          })
        ).id;
      case 'systemHook':
        return (await root.systemHooks.create({ url: await this.receiver() })).id;
      case 'groupHook':
        return (await root.as(await user()).groupHooks.create(Number(await this.value('group', owner)), { url: await this.receiver() })).id;
      case 'receivingHook':
        return (
          await root.as(await user()).projectHooks.create(Number(await this.value('repository', owner)), { url: await this.receiver() })
        ).id;
      case 'hookTrigger':
        return 'push_events';
      case 'hookLog': {
        // A delivery's record: the receiving hook's test, which records what it sent.
        const project = Number(await this.value('repository', owner));
        const hook = Number(await this.value('receivingHook', owner));
        await root.projectHooks.test(project, hook, 'push_events');
        return (await root.projectHooks.events(project, hook, {}))[0].id;
      }
      case 'groupHookLog': {
        const hook = Number(await this.value('groupHook', owner));
        const [{ id }] = await this.t.db.rows.execute(
          `insert into web_hook_logs (hook_id, trigger, url, request_headers, request_data, status, created_at, updated_at)
           values (${hook}, 'push_hooks', 'http://fixture', '{"X-Gitlab-Event":"Push Hook"}', '{"object_kind":"push"}', 'delivered',
             now(), now()) returning id`,
        );
        return id;
      }
      case 'runner': {
        // A specific runner of the fixture project, registered with its runners token (which root, an administrator, sees).
        const { runners_token } = await root.projects.get(Number(await this.value('project', owner)));
        return (await root.runners.register({ token: runners_token!, description: `Fixture ${unique()}`, tag_list: ['docker'] })).id;
      }
      case 'borrowedRunner': {
        // A runner of another project of the fixture user's, enabled in the fixture project too (so it may leave it).
        const other = await root.as(await user()).projects.create({ name: `Runners ${unique()}`, visibility: 'private' });
        const { id } = await root.runners.register({
          token: (await root.projects.get(other.id)).runners_token!,
          description: `Borrowed ${unique()}`,
        });
        await root.projectRunners.enable(Number(await this.value('project', owner)), { runner_id: id });
        return id;
      }
      case 'ownSshKey':
        return (await own.sshKeys.create({ title: 'own', key: newSshKey() })).id;
      case 'ownGpgKey':
        return (await own.gpgKeys.create({ key: await newGpgKey() })).id;
      case 'ownEmail':
        return (await own.emails.create({ email: `${unique()}@example.com` })).id;
    }
  }
}

/** A route's example made concrete: its path parameters' values and its input. */
export interface ExampleCall {
  params: Record<string, number | string>;
  input: Record<string, unknown>;
}

export async function exampleInput(route: AnyRoute, tools: ExampleTools): Promise<Record<string, unknown>> {
  const input = exampleOf(route).input;
  return typeof input === 'function' ? await input(tools) : { ...input };
}

/** The values of the route's path parameters: its example's fixtures, made in `fixtures` as `owner` names them. */
export async function exampleParams(route: AnyRoute, fixtures: FixtureSet, owner: Owner): Promise<Record<string, number | string>> {
  const params: Record<string, number | string> = {};
  for (const [name, fixture] of Object.entries(exampleOf(route).params ?? {})) params[name] = await fixtures.value(fixture, owner);
  return params;
}

/** The route's example: its fixtures as `owner` names them, and its input made anew. */
export async function exampleCall(route: AnyRoute, fixtures: FixtureSet, owner: Owner, tools: ExampleTools): Promise<ExampleCall> {
  return { params: await exampleParams(route, fixtures, owner), input: await exampleInput(route, tools) };
}

/** The URL of a call, each parameter given as its path segment (already encoded where it should be). */
export const urlOf = (route: AnyRoute, segments: Record<string, string>) =>
  (route.root ? '' : '/api/v4') + route.path.replace(/:([A-Za-z_]+)/g, (_match, name: string) => segments[name]);

export const segmentsOf = (params: Record<string, number | string>) =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [name, encodeURIComponent(String(value))]));

/** The call over HTTP as a client makes it: the input in the query string of a GET, as a JSON body otherwise. */
export function sendCall(t: TestHosting, route: AnyRoute, call: ExampleCall, headers: Record<string, string>): Test {
  const verb = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
  const url = urlOf(route, segmentsOf(call.params));
  if (route.method === 'GET') {
    const query = qs.stringify(call.input);
    return t.http.get(query ? `${url}?${query}` : url).set(headers);
  }
  return t.http[verb](url).set(headers).send(call.input);
}
