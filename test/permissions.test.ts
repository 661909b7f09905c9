/**
 * Permissions that hold against a caller who tries: a fork never more visible than its source, an archived
 * project read-only to everyone, external users without projects or groups of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, ForbiddenError } from '../src/errors.js';
import { createUser, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const unique = (stem: string) => `${stem}-${process.pid}-${(counter += 1)}`;

/** A project of `owner`'s with one file on master, and a member of it at `level`. */
async function projectWithMember(visibility: 'private' | 'internal' | 'public', level: number) {
  const owner = await createUser(t.hosting);
  const member = await createUser(t.hosting);
  const project = await t.hosting.as(owner.id).projects.create({ name: unique('app'), visibility });
  await t.hosting
    .as(owner.id)
    .repositoryFiles.create(project.id, 'secret.txt', { branch: 'master', content: 'hidden\n', commit_message: 'Add' });
  await t.hosting.as(owner.id).projectMembers.add(project.id, { user_id: member.id, access_level: level });
  return { owner, member, project };
}

describe('a fork is never more visible than its source', () => {
  const refusal = { visibility_level: ['public is not allowed since the fork source project has lower visibility.'] };

  it('forks private as its source, and refuses to be made public or internal (HTTP and in process)', async () => {
    const { member: reporter, project } = await projectWithMember('private', 20);
    const fork = await t.http
      .post(`/api/v4/projects/${project.id}/fork`)
      .set('PRIVATE-TOKEN', reporter.token)
      .send({ visibility: 'public' });
    expect(fork.status).toBe(201);
    expect(fork.body.visibility).toBe('private');
    await t.hosting.backgroundJobs.drain();

    const made = await t.http.put(`/api/v4/projects/${fork.body.id}`).set('PRIVATE-TOKEN', reporter.token).send({ visibility: 'public' });
    expect(made.status).toBe(400);
    expect(made.body).toEqual({ message: refusal });
    const internal = await t.http
      .put(`/api/v4/projects/${fork.body.id}`)
      .set('PRIVATE-TOKEN', reporter.token)
      .send({ visibility: 'internal' });
    expect(internal.status).toBe(400);
    expect(internal.body).toEqual({
      message: { visibility_level: ['internal is not allowed since the fork source project has lower visibility.'] },
    });
    // Not even an administrator.
    await expect(t.hosting.projects.update(fork.body.id, { visibility: 'public' })).rejects.toMatchObject({
      constructor: BadRequestError,
      status: 400,
      messages: refusal,
    });

    // The source's files stay hidden from strangers.
    const anonymous = await t.http.get(`/api/v4/projects/${fork.body.id}/repository/files/secret.txt/raw?ref=master`);
    expect(anonymous.status).toBe(404);
    expect((await t.http.get(`/api/v4/projects/${fork.body.id}`).set('PRIVATE-TOKEN', reporter.token)).body.visibility).toBe('private');
  });

  it('takes the least open of the source, the target group and what was asked for', async () => {
    const { member, project } = await projectWithMember('internal', 30);
    const asked = await t.http
      .post(`/api/v4/projects/${project.id}/fork`)
      .set('PRIVATE-TOKEN', member.token)
      .send({ visibility: 'public', name: unique('up'), path: unique('up') });
    expect(asked.status).toBe(201);
    expect(asked.body.visibility).toBe('internal');
    const lower = await t.hosting
      .as(member.id)
      .projects.fork(project.id, { visibility: 'private', name: unique('down'), path: unique('down') });
    expect(lower.visibility).toBe('private');
    await t.hosting.backgroundJobs.drain();
    // As open as the source, no more.
    const same = await t.http.put(`/api/v4/projects/${lower.id}`).set('PRIVATE-TOKEN', member.token).send({ visibility: 'internal' });
    expect(same.status).toBe(200);
    expect(same.body.visibility).toBe('internal');
  });

  it('leaves the fork network when its source is made less visible (PUT and transfer), as the original unlinks it', async () => {
    const { owner, member, project } = await projectWithMember('public', 30);
    const fork = await t.hosting.as(member.id).projects.fork(project.id, {});
    await t.hosting.backgroundJobs.drain();
    expect((await t.hosting.projects.get(fork.id, {})).forked_from_project?.id).toBe(project.id);

    const lowered = await t.http.put(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', owner.token).send({ visibility: 'private' });
    expect(lowered.status).toBe(200);
    expect(lowered.body.forks_count).toBe(0);
    const unlinked = await t.http.get(`/api/v4/projects/${fork.id}`).set('PRIVATE-TOKEN', member.token);
    expect(unlinked.body.visibility).toBe('public');
    expect(unlinked.body.forked_from_project).toBeUndefined();

    // Transferred into a private group: made private, and unlinked the same way.
    const other = await projectWithMember('public', 30);
    const otherFork = await t.hosting.as(other.member.id).projects.fork(other.project.id, {});
    await t.hosting.backgroundJobs.drain();
    const group = await t.hosting
      .as(other.owner.id)
      .groups.create({ name: unique('closed'), path: unique('closed'), visibility: 'private' });
    const moved = await t.http
      .put(`/api/v4/projects/${other.project.id}/transfer`)
      .set('PRIVATE-TOKEN', other.owner.token)
      .send({ namespace: group.id });
    expect(moved.status).toBe(200);
    expect(moved.body.visibility).toBe('private');
    expect((await t.hosting.projects.get(otherFork.id, {})).forked_from_project).toBeUndefined();
  });
});

describe('an archived project is read-only', () => {
  it(
    'refuses every write to its repository and what is written beside it, to developers, maintainers and administrators, ' +
      'until unarchived',
    async () => {
      const { owner, member: developer, project } = await projectWithMember('private', 30);
      const [head] = await t.hosting.commits.list(project.id, { ref_name: 'master' });
      await t.hosting.as(owner.id).releases.create(project.id, { tag_name: 'v0', ref: 'master', description: 'Before' });
      // master is protected: the developer writes to a branch of its own.
      await t.hosting.as(developer.id).branches.create(project.id, { branch: 'dev', ref: 'master' });
      const archived = await t.http.post(`/api/v4/projects/${project.id}/archive`).set('PRIVATE-TOKEN', owner.token);
      expect(archived.status).toBe(201);
      expect(archived.body.archived).toBe(true);

      const writes: [string, string, Record<string, unknown>][] = [
        ['post', 'repository/files/new.txt', { branch: 'dev', content: 'x', commit_message: 'New' }],
        ['put', 'repository/files/secret.txt', { branch: 'dev', content: 'changed', commit_message: 'Change' }],
        ['delete', 'repository/files/secret.txt', { branch: 'dev', commit_message: 'Delete' }],
        [
          'post',
          'repository/commits',
          { branch: 'dev', commit_message: 'Batch', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] },
        ],
        ['post', 'repository/branches', { branch: 'feature', ref: 'master' }],
        ['delete', 'repository/branches/dev', {}],
        ['delete', 'repository/merged_branches', {}],
        ['post', 'repository/tags', { tag_name: 'v1', ref: 'master' }],
        ['delete', 'repository/tags/v0', {}],
        ['post', 'releases', { tag_name: 'v2', ref: 'master', description: 'Notes' }],
        ['put', 'releases/v0', { description: 'Changed' }],
        ['post', `statuses/${head.id}`, { state: 'success' }],
        ['post', `repository/commits/${head.id}/comments`, { note: 'Nice' }],
        ['post', `repository/commits/${head.id}/cherry_pick`, { branch: 'dev' }],
      ];
      for (const token of [developer.token, owner.token, ROOT_TOKEN]) {
        for (const [method, path, body] of writes) {
          const res = await t.http[method as 'post'](`/api/v4/projects/${project.id}/${path}`).set('PRIVATE-TOKEN', token).send(body);
          expect([res.status, res.body], `${method} ${path}`).toEqual([403, { message: '403 Forbidden' }]);
        }
      }
      await expect(
        t.hosting.repositoryFiles.create(project.id, 'root.txt', { branch: 'master', content: 'x', commit_message: 'As root' }),
      ).rejects.toBeInstanceOf(ForbiddenError);
      await expect(
        t.hosting
          .as(developer.id)
          .repositoryFiles.create(project.id, 'dev.txt', { branch: 'dev', content: 'x', commit_message: 'As developer' }),
      ).rejects.toBeInstanceOf(ForbiddenError);
      await expect(t.hosting.as(developer.id).tags.create(project.id, { tag_name: 'v3', ref: 'master' })).rejects.toBeInstanceOf(
        ForbiddenError,
      );

      // Nothing moved; reads still answer.
      expect((await t.hosting.commits.list(project.id, { ref_name: 'master' })).map((commit) => commit.id)).toEqual([head.id]);
      expect((await t.hosting.commits.list(project.id, { ref_name: 'dev' })).map((commit) => commit.id)).toEqual([head.id]);
      expect((await t.hosting.tags.list(project.id, {})).map((tag) => tag.name)).toEqual(['v0']);
      const file = await t.http
        .get(`/api/v4/projects/${project.id}/repository/files/secret.txt/raw?ref=master`)
        .set('PRIVATE-TOKEN', developer.token);
      expect([file.status, file.text]).toEqual([200, 'hidden\n']);

      const unarchived = await t.http.post(`/api/v4/projects/${project.id}/unarchive`).set('PRIVATE-TOKEN', owner.token);
      expect(unarchived.body.archived).toBe(false);
      const written = await t.http
        .post(`/api/v4/projects/${project.id}/repository/files/new.txt`)
        .set('PRIVATE-TOKEN', developer.token)
        .send(writes[0][2]);
      expect(written.status).toBe(201);
    },
  );

  it('lets the writes that began before the archive finish first, and none after it', async () => {
    const { owner, member: maintainer, project } = await projectWithMember('private', 40);
    const writes = Array.from({ length: 8 }, (_, index) =>
      t.hosting
        .as(maintainer.id)
        .repositoryFiles.create(project.id, `f${index}.txt`, { branch: 'master', content: `${index}`, commit_message: `${index}` })
        .then(
          () => 'written',
          (error: unknown) => (error instanceof ForbiddenError ? 'refused' : Promise.reject(error)),
        ),
    );
    const files = async () =>
      (await t.hosting.repository.tree(project.id, { ref: 'master' })).map((entry) => entry.name).filter((name) => name !== 'secret.txt');
    // What the repository holds once the archive has answered is all it ever holds: no write lands after it.
    const atArchive = await t.hosting
      .as(owner.id)
      .projects.archive(project.id)
      .then(() => files());
    const outcomes = await Promise.all(writes);
    expect(await files()).toEqual(atArchive);
    expect(atArchive.length).toBe(outcomes.filter((outcome) => outcome === 'written').length);
  });
});

describe('external users', () => {
  it('are made without personal projects or top-level groups, as the original forces', async () => {
    const made = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({
        email: `${unique('ext')}@example.com`,
        username: unique('ext'),
        name: 'External',
        password: 'secret-password-1',
        external: true,
        projects_limit: 10,
        can_create_group: true,
      });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false, can_create_project: false });

    const external = await createUser(t.hosting, { external: true });
    const project = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', external.token)
      .send({ name: unique('mine') });
    expect(project.status).toBe(400);
    expect(project.body).toEqual({
      message: { limit_reached: ['Personal project creation is not allowed. Please contact your administrator with questions'] },
    });
    const group = await t.http
      .post('/api/v4/groups')
      .set('PRIVATE-TOKEN', external.token)
      .send({ name: unique('grp'), path: unique('grp') });
    expect(group.status).toBe(403);
    const source = await t.hosting.projects.create({ name: unique('open'), visibility: 'public' });
    const fork = await t.http.post(`/api/v4/projects/${source.id}/fork`).set('PRIVATE-TOKEN', external.token).send({});
    expect(fork.status).toBe(409);
    expect(fork.body.message.limit_reached).toEqual([
      'Personal project creation is not allowed. Please contact your administrator with questions',
    ]);
    await expect(t.hosting.as(external.id).projects.create({ name: unique('mine') })).rejects.toBeInstanceOf(BadRequestError);
    await expect(t.hosting.as(external.id).projects.fork(source.id, {})).rejects.toBeInstanceOf(ConflictError);

    // In a group where it has a role, it may make projects and subgroups.
    const team = await t.hosting.groups.create({ name: unique('team'), path: unique('team') });
    await t.hosting.groupMembers.add(team.id, { user_id: external.id, access_level: 50 });
    const inGroup = await t.http
      .post('/api/v4/projects')
      .set('PRIVATE-TOKEN', external.token)
      .send({ name: unique('work'), namespace_id: team.id });
    expect(inGroup.status).toBe(201);
    const subgroup = await t.http
      .post('/api/v4/groups')
      .set('PRIVATE-TOKEN', external.token)
      .send({ name: unique('sub'), path: unique('sub'), parent_id: team.id });
    expect(subgroup.status).toBe(201);
  });

  it('lose both when an administrator makes them external', async () => {
    const user = await createUser(t.hosting);
    const changed = await t.http.put(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ external: true });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false });
    expect(
      (
        await t.http
          .post('/api/v4/projects')
          .set('PRIVATE-TOKEN', user.token)
          .send({ name: unique('late') })
      ).status,
    ).toBe(400);
    expect(
      (
        await t.http
          .post('/api/v4/groups')
          .set('PRIVATE-TOKEN', user.token)
          .send({ name: unique('late'), path: unique('late') })
      ).status,
    ).toBe(403);
  });
});
