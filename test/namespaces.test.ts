import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

// Every user has a namespace of its own, named by its username: made with the user, renamed with it, removed
// with it. (The namespace endpoints come with the groups; these are what users' endpoints do to namespaces.)
let t: TestHosting;
beforeAll(async () => {
  t = await sharedHosting();
});
afterAll(() => t.close());

interface NamespaceRow {
  id: number;
  kind: string;
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  owner_id: number | null;
  parent_id: number | null;
  traversal_ids: number[];
}

const namespaceOf = async (userId: number): Promise<NamespaceRow | undefined> =>
  (await t.db.rows.execute<NamespaceRow[]>('select * from "namespaces" where "owner_id" = ?', [userId]))[0];

/** A top-level group's namespace, written directly (the groups' endpoints are not there yet). */
async function topLevelGroup(path: string): Promise<void> {
  await t.db.rows.execute(
    `insert into "namespaces" ("kind", "name", "path", "full_path", "full_name", "traversal_ids", "created_at", "updated_at") ` +
      `values ('group', ?, ?, ?, ?, '{}', now(), now())`,
    [path, path, path, path],
  );
}

describe("a user's namespace", () => {
  it('is made with the user: kind user, named and pathed by its username, its own ID as its traversal', async () => {
    const user = await createUser(t.hosting);
    const namespace = await namespaceOf(user.id);
    expect(namespace).toMatchObject({ kind: 'user', name: user.username, path: user.username, full_path: user.username, parent_id: null });
    expect(namespace!.traversal_ids).toEqual([namespace!.id]);
  });

  it('is root’s too, made on the first start', async () => {
    expect(await namespaceOf(1)).toMatchObject({ kind: 'user', path: 'root', full_path: 'root', full_name: 'Administrator' });
  });

  it('follows a change of username and of name', async () => {
    const user = await createUser(t.hosting);
    const res = await t.http
      .put(`/api/v4/users/${user.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ username: `${user.username}-renamed`, name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(await namespaceOf(user.id)).toMatchObject({
      name: `${user.username}-renamed`,
      path: `${user.username}-renamed`,
      full_path: `${user.username}-renamed`,
      full_name: 'Renamed',
    });
  });

  it('is removed with the user', async () => {
    const user = await createUser(t.hosting);
    const { id } = (await namespaceOf(user.id))!;
    expect((await t.http.delete(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(204);
    expect(await t.db.rows.execute('select 1 from "namespaces" where "id" = ?', [id])).toEqual([]);
  });

  it('keeps a username from taking a top-level group’s path, in any case, on create and on rename', async () => {
    await topLevelGroup('Platform-Team');
    const created = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ username: 'platform-team', email: 'platform-team@example.com', name: 'Platform', password: 'long-enough-1' });
    expect(created.status).toBe(409);
    expect(created.body).toEqual({ message: 'Username has already been taken' });
    const user = await createUser(t.hosting);
    const renamed = await t.http.put(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ username: 'PLATFORM-TEAM' });
    expect(renamed.status).toBe(404);
    expect(renamed.body).toEqual({ message: { username: ['has already been taken'] } });
  });

  it('lets a user keep its own username in another case', async () => {
    const user = await createUser(t.hosting);
    const res = await t.http
      .put(`/api/v4/users/${user.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ username: user.username.toUpperCase() });
    expect(res.status).toBe(200);
    expect(await namespaceOf(user.id)).toMatchObject({ path: user.username.toUpperCase() });
  });
});

/** A group (written directly: the groups' endpoints are not there yet) with members at the given levels. */
async function groupWith(path: string, parent: { id: number; traversal: number[]; fullPath: string } | null, members: [number, number][]) {
  const fullPath = parent ? `${parent.fullPath}/${path}` : path;
  const [{ id }] = await t.db.rows.execute<{ id: number }[]>(
    `insert into "namespaces" ("kind", "name", "path", "full_path", "full_name", "parent_id", "traversal_ids", "created_at", "updated_at")
     values ('group', ?, ?, ?, ?, ?, '{}', now(), now()) returning "id"`,
    [`${path} name`, path, fullPath, fullPath, parent?.id ?? null],
  );
  const traversal = [...(parent?.traversal ?? []), id];
  await t.db.rows.execute(`update "namespaces" set "traversal_ids" = ? where "id" = ?`, [`{${traversal.join(',')}}`, id]);
  for (const [userId, level] of members) {
    await t.db.rows.execute(`insert into "group_members" ("group_id", "user_id", "access_level", "created_at") values (?, ?, ?, now())`, [
      id,
      userId,
      level,
    ]);
  }
  return { id, traversal, fullPath };
}

describe('GET /namespaces', () => {
  let alice: Awaited<ReturnType<typeof createUser>>;
  let bob: Awaited<ReturnType<typeof createUser>>;
  let top: Awaited<ReturnType<typeof groupWith>>;
  let sub: Awaited<ReturnType<typeof groupWith>>;
  let other: Awaited<ReturnType<typeof groupWith>>;
  const stamp = Date.now();

  beforeAll(async () => {
    alice = await createUser(t.hosting);
    bob = await createUser(t.hosting);
    // Alice maintains `top` (and so, by inheritance, `sub`); Bob is a developer of `sub` only.
    top = await groupWith(`ns-top-${stamp}`, null, [[alice.id, 40]]);
    sub = await groupWith('sub', top, [[bob.id, 30]]);
    other = await groupWith(`ns-other-${stamp}`, null, []);
  });

  const list = (token: string, query: Record<string, unknown> = {}) =>
    t.http
      .get('/api/v4/namespaces')
      .query({ per_page: 100, ...query })
      .set('PRIVATE-TOKEN', token);

  it("answers a user its own namespace and its groups', with the shapes of each kind", async () => {
    const res = await list(bob.token);
    expect(res.status).toBe(200);
    const [own] = await t.db.rows.execute<{ id: number }[]>('select "id" from "namespaces" where "owner_id" = ?', [bob.id]);
    // Bob is a member of `sub` itself, not of `top`: only the groups one is a member of are one's namespaces.
    expect(res.body).toEqual([
      { id: own.id, name: bob.username, path: bob.username, kind: 'user', full_path: bob.username },
      { id: sub.id, name: 'sub name', path: 'sub', kind: 'group', full_path: sub.fullPath, parent_id: top.id },
    ]);
    expect(res.headers['x-total']).toBe('2');
  });

  it('shows the members of a group and its subgroups only to its maintainers and owners (inherited) and to administrators', async () => {
    const alices = (await list(alice.token)).body as { id: number; members_count_with_descendants?: number }[];
    expect(alices.find((namespace) => namespace.id === top.id)).toMatchObject({ members_count_with_descendants: 2 });
    const bobs = (await list(bob.token)).body as { id: number; members_count_with_descendants?: number }[];
    expect(bobs.find((namespace) => namespace.id === sub.id)).not.toHaveProperty('members_count_with_descendants');
    const roots = (await list(ROOT_TOKEN, { search: `ns-top-${stamp}` })).body;
    expect(roots).toEqual([
      {
        id: top.id,
        name: `ns-top-${stamp} name`,
        path: `ns-top-${stamp}`,
        kind: 'group',
        full_path: top.fullPath,
        parent_id: null,
        members_count_with_descendants: 2,
      },
    ]);
  });

  it('answers administrators every namespace, paginated, and searches names and paths', async () => {
    const [{ count }] = await t.db.rows.execute<{ count: number }[]>('select count(*)::int as "count" from "namespaces"');
    const res = await t.http.get('/api/v4/namespaces').query({ per_page: 2 }).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.headers['x-total']).toBe(String(count));
    expect(res.headers.link).toContain('rel="next"');
    const other_ = await list(ROOT_TOKEN, { search: `NS-OTHER-${stamp}` });
    expect(other_.body.map((namespace: { id: number }) => namespace.id)).toEqual([other.id]);
    // `%` and `_` are themselves in a search.
    expect((await list(ROOT_TOKEN, { search: '%' })).body).toEqual([]);
  });

  it('works in process', async () => {
    const mine = await t.hosting.as(bob.id).namespaces.list();
    expect(mine.map((namespace) => namespace.full_path)).toEqual([bob.username, sub.fullPath]);
    expect(mine.total).toBe(2);
  });

  it('answers 401 without a token', async () => {
    expect((await t.http.get('/api/v4/namespaces')).status).toBe(401);
  });
});

describe('GET /namespaces/:id', () => {
  it('answers one of the caller’s namespaces by ID or by full path in any case, and 404 for any other', async () => {
    const carol = await createUser(t.hosting);
    const dave = await createUser(t.hosting);
    const group = await groupWith(`ns-one-${Date.now()}`, null, [[carol.id, 50]]);
    const child = await groupWith('child', group, [[carol.id, 10]]);
    const byId = await t.http.get(`/api/v4/namespaces/${child.id}`).set('PRIVATE-TOKEN', carol.token);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({
      id: child.id,
      name: 'child name',
      path: 'child',
      kind: 'group',
      full_path: child.fullPath,
      parent_id: group.id,
      members_count_with_descendants: 1,
    });
    const byPath = await t.http
      .get(`/api/v4/namespaces/${encodeURIComponent(child.fullPath.toUpperCase())}`)
      .set('PRIVATE-TOKEN', carol.token);
    expect(byPath.body).toEqual(byId.body);
    const own = await t.http.get(`/api/v4/namespaces/${carol.username}`).set('PRIVATE-TOKEN', carol.token);
    expect(own.body).toMatchObject({ kind: 'user', path: carol.username });
    for (const path of [child.fullPath, carol.username, 'no-such-namespace', '999999']) {
      const refused = await t.http.get(`/api/v4/namespaces/${encodeURIComponent(path)}`).set('PRIVATE-TOKEN', dave.token);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ message: '404 Namespace Not Found' });
    }
    expect((await t.http.get(`/api/v4/namespaces/${encodeURIComponent(child.fullPath)}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(
      200,
    );
    expect(await t.hosting.as(carol.id).namespaces.get(child.fullPath)).toEqual(byId.body);
  });
});
