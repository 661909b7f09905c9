import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, pageHeaders, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
});
afterAll(() => t.close());

let counter = 0;
const unique = (stem: string) => `${stem}-${process.pid}-${(counter += 1)}`;
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

describe('project members', () => {
  it('are added, read, changed and removed by its maintainers, in the shape of SPEC’s member', async () => {
    const owner = await createUser(t.hosting);
    const joiner = await createUser(t.hosting);
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('members') });
    const base = `/api/v4/projects/${project.id}/members`;

    const added = await t.http
      .post(base)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ user_id: joiner.id, access_level: 30, expires_at: '2099-06-30' });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      id: joiner.id,
      name: expect.any(String),
      username: joiner.username,
      state: 'active',
      avatar_url: expect.any(String),
      web_url: `http://forge.test/${joiner.username}`,
      access_level: 30,
      expires_at: '2099-06-30',
    });
    // The owner of a personal project is its maintainer, as in the original.
    const list = await t.http.get(base).set('PRIVATE-TOKEN', joiner.token);
    expect(list.body.map((member: { id: number; access_level: number }) => [member.id, member.access_level])).toEqual([
      [owner.id, 40],
      [joiner.id, 30],
    ]);
    expect(pageHeaders(list.headers)).toMatchObject({ total: 2, page: 1 });
    expect(
      (await t.http.get(base).query({ query: joiner.username }).set('PRIVATE-TOKEN', owner.token)).body.map(
        (member: { id: number }) => member.id,
      ),
    ).toEqual([joiner.id]);
    expect(
      (
        await t.http
          .get(base)
          .query({ user_ids: [owner.id] })
          .set('PRIVATE-TOKEN', owner.token)
      ).body.map((member: { id: number }) => member.id),
    ).toEqual([owner.id]);
    expect((await t.http.get(`${base}/${joiner.id}`).set('PRIVATE-TOKEN', owner.token)).body).toMatchObject({
      id: joiner.id,
      access_level: 30,
    });

    const changed = await t.http.put(`${base}/${joiner.id}`).set('PRIVATE-TOKEN', owner.token).send({ access_level: 40, expires_at: null });
    expect([changed.status, changed.body.access_level, changed.body.expires_at]).toEqual([200, 40, null]);
    // Now a maintainer: it may change settings.
    expect(
      (await t.http.put(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', joiner.token).send({ description: 'by a maintainer' }))
        .status,
    ).toBe(200);

    expect((await t.http.delete(`${base}/${joiner.id}`).set('PRIVATE-TOKEN', owner.token)).status).toBe(204);
    const gone = await t.http.get(`${base}/${joiner.id}`).set('PRIVATE-TOKEN', owner.token);
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Member Not Found' }]);
    expect((await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', joiner.token)).status).toBe(404);
  });

  it('answers 409 for a member, 404 for an unknown user, 400 for a level or day it does not take', async () => {
    const owner = await createUser(t.hosting);
    const other = await createUser(t.hosting);
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('errors') });
    const add = (body: object) => t.http.post(`/api/v4/projects/${project.id}/members`).set('PRIVATE-TOKEN', owner.token).send(body);
    expect((await add({ user_id: other.id, access_level: 20 })).status).toBe(201);
    const twice = await add({ user_id: other.id, access_level: 20 });
    expect([twice.status, twice.body]).toEqual([409, { message: 'Member already exists' }]);
    expect((await add({ user_id: 2147483647, access_level: 20 })).body).toEqual({ message: '404 User Not Found' });
    const third = await createUser(t.hosting);
    expect((await add({ user_id: third.id, access_level: 50 })).body).toEqual({
      message: { access_level: ['is not included in the list'] },
    });
    expect((await add({ user_id: third.id, access_level: 20, expires_at: '2000-01-01' })).body).toEqual({
      message: { expires_at: ['cannot be a date in the past'] },
    });
    expect((await add({ user_id: third.id })).body).toEqual({ message: '400 (Bad request) "access_level" not given' });
    expect(
      (await t.http.put(`/api/v4/projects/${project.id}/members/${third.id}`).set('PRIVATE-TOKEN', owner.token).send({ access_level: 20 }))
        .status,
    ).toBe(404);
  });

  it('are managed by maintainers only (403 to others who see it, 404 to those who do not); anyone may leave', async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const stranger = await createUser(t.hosting);
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('rights') });
    await t.hosting.projectMembers.add(project.id, { user_id: developer.id, access_level: 30 });
    const base = `/api/v4/projects/${project.id}/members`;
    expect((await t.http.post(base).set('PRIVATE-TOKEN', developer.token).send({ user_id: stranger.id, access_level: 10 })).status).toBe(
      403,
    );
    expect((await t.http.delete(`${base}/${owner.id}`).set('PRIVATE-TOKEN', developer.token)).status).toBe(403);
    const hidden = await t.http.get(base).set('PRIVATE-TOKEN', stranger.token);
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await t.http.post(base).set('PRIVATE-TOKEN', stranger.token).send({ user_id: stranger.id, access_level: 40 })).status).toBe(
      404,
    );
    expect((await t.http.get(base)).status).toBe(401);
    expect((await t.http.delete(`${base}/${developer.id}`).set('PRIVATE-TOKEN', developer.token)).status).toBe(204);
    expect((await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', developer.token)).status).toBe(404);
  });

  it('/members/all adds the members of the groups above, each user once at its highest level, no lower than inherited', async () => {
    const owner = await createUser(t.hosting);
    const both = await createUser(t.hosting);
    const top = await t.hosting.as(owner.id).groups.create({ name: unique('Top'), path: unique('top') });
    const group = await t.hosting.as(owner.id).groups.create({ name: 'Sub', path: 'sub', parent_id: top.id });
    const project = await t.hosting.as(owner.id).projects.create({ name: 'inherits', namespace_id: group.id });
    await t.hosting.groupMembers.add(top.id, { user_id: both.id, access_level: 20 });

    const own = await t.http.get(`/api/v4/projects/${project.id}/members`).set('PRIVATE-TOKEN', owner.token);
    expect(own.body).toEqual([]);
    const low = await t.http
      .post(`/api/v4/projects/${project.id}/members`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ user_id: both.id, access_level: 10 });
    expect([low.status, low.body]).toEqual([
      400,
      { message: { access_level: [`should be greater than or equal to Reporter inherited membership from group ${top.name}`] } },
    ]);
    await t.hosting.projectMembers.add(project.id, { user_id: both.id, access_level: 30 });
    const all = await t.http.get(`/api/v4/projects/${project.id}/members/all`).set('PRIVATE-TOKEN', owner.token);
    expect(all.body.map((member: { id: number; access_level: number }) => [member.id, member.access_level])).toEqual(
      [
        [owner.id, 50],
        [both.id, 30],
      ].sort((a, b) => a[0] - b[0]),
    );
    expect(
      (await t.http.get(`/api/v4/projects/${project.id}/members/all/${owner.id}`).set('PRIVATE-TOKEN', owner.token)).body,
    ).toMatchObject({ id: owner.id, access_level: 50 });
    expect((await t.http.get(`/api/v4/projects/${project.id}/members/${owner.id}`).set('PRIVATE-TOKEN', owner.token)).status).toBe(404);
  });

  it('leave out expired memberships, which count for nothing, and may be made again', async () => {
    const owner = await createUser(t.hosting);
    const lapsed = await createUser(t.hosting);
    const project = await t.hosting.as(owner.id).projects.create({ name: unique('lapse') });
    await t.hosting.projectMembers.add(project.id, { user_id: lapsed.id, access_level: 30, expires_at: tomorrow() });
    await t.db.rows.execute(`update "project_members" set "expires_at" = '2001-01-01' where "user_id" = ?`, [lapsed.id]);
    const list = await t.http.get(`/api/v4/projects/${project.id}/members`).set('PRIVATE-TOKEN', owner.token);
    expect(list.body.map((member: { id: number }) => member.id)).toEqual([owner.id]);
    expect((await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', lapsed.token)).status).toBe(404);
    const again = await t.http
      .post(`/api/v4/projects/${project.id}/members`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ user_id: lapsed.id, access_level: 20 });
    expect([again.status, again.body.access_level, again.body.expires_at]).toEqual([201, 20, null]);
  });
});

describe('group members', () => {
  it('are managed by its owners; owner (50) is a group level', async () => {
    const owner = await createUser(t.hosting);
    const maintainer = await createUser(t.hosting);
    const joiner = await createUser(t.hosting);
    const group = await t.hosting.as(owner.id).groups.create({ name: unique('G'), path: unique('g') });
    await t.hosting.groupMembers.add(group.id, { user_id: maintainer.id, access_level: 40 });
    const base = `/api/v4/groups/${group.id}/members`;
    expect((await t.http.post(base).set('PRIVATE-TOKEN', maintainer.token).send({ user_id: joiner.id, access_level: 10 })).status).toBe(
      403,
    );
    const added = await t.http.post(base).set('PRIVATE-TOKEN', owner.token).send({ user_id: joiner.id, access_level: 50 });
    expect([added.status, added.body.access_level]).toEqual([201, 50]);
    expect((await t.http.post(base).set('PRIVATE-TOKEN', owner.token).send({ user_id: maintainer.id, access_level: 60 })).status).toBe(400);
    const list = await t.http.get(base).set('PRIVATE-TOKEN', maintainer.token);
    expect(list.body.map((member: { id: number; access_level: number }) => [member.id, member.access_level])).toEqual([
      [owner.id, 50],
      [maintainer.id, 40],
      [joiner.id, 50],
    ]);
    // The new owner may manage members now.
    expect(
      (await t.http.put(`${base}/${maintainer.id}`).set('PRIVATE-TOKEN', joiner.token).send({ access_level: 30 })).body.access_level,
    ).toBe(30);
  });

  it('keep one owner: the last may neither leave nor step down; an owner above counts', async () => {
    const owner = await createUser(t.hosting);
    const group = await t.hosting.as(owner.id).groups.create({ name: unique('Last'), path: unique('last') });
    const base = `/api/v4/groups/${group.id}/members`;
    const leave = await t.http.delete(`${base}/${owner.id}`).set('PRIVATE-TOKEN', owner.token);
    expect([leave.status, leave.body]).toEqual([403, { message: '403 Forbidden - A group must have at least one owner' }]);
    const down = await t.http.put(`${base}/${owner.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ access_level: 40 });
    expect([down.status, down.body]).toEqual([403, { message: '403 Forbidden - A group must have at least one owner' }]);

    const sub = await t.hosting.as(owner.id).groups.create({ name: 'Sub', path: 'sub', parent_id: group.id });
    // The subgroup's creator is its owner, and the owner of the group above is one too.
    expect((await t.http.delete(`/api/v4/groups/${sub.id}/members/${owner.id}`).set('PRIVATE-TOKEN', owner.token)).status).toBe(204);
    const all = await t.http.get(`/api/v4/groups/${sub.id}/members/all`).set('PRIVATE-TOKEN', owner.token);
    expect(all.body.map((member: { id: number; access_level: number }) => [member.id, member.access_level])).toEqual([[owner.id, 50]]);
    expect((await t.http.get(`/api/v4/groups/${sub.id}/members/all/${owner.id}`).set('PRIVATE-TOKEN', owner.token)).body.access_level).toBe(
      50,
    );
  });

  it('give their levels to the projects of the group and its subgroups', async () => {
    const owner = await createUser(t.hosting);
    const reporter = await createUser(t.hosting);
    const group = await t.hosting.as(owner.id).groups.create({ name: unique('Inherit'), path: unique('inherit') });
    const sub = await t.hosting.as(owner.id).groups.create({ name: 'Sub', path: 'sub', parent_id: group.id });
    const project = await t.hosting.as(owner.id).projects.create({ name: 'deep', namespace_id: sub.id });
    expect((await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', reporter.token)).status).toBe(404);
    await t.http
      .post(`/api/v4/groups/${group.id}/members`)
      .set('PRIVATE-TOKEN', owner.token)
      .send({ user_id: reporter.id, access_level: 20 });
    const seen = await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', reporter.token);
    expect([seen.status, seen.body.permissions]).toEqual([
      200,
      { project_access: null, group_access: { access_level: 20, notification_level: 3 } },
    ]);
  });
});
