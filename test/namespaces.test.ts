import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

// Every user has a namespace of its own, named by its username: made with the user, renamed with it, removed
// with it. (The namespace endpoints come with the groups; these are what users' endpoints do to namespaces.)
let t: TestHosting;
beforeAll(async () => {
  t = await startHosting();
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
    `insert into "namespaces" ("kind", "name", "path", "full_path", "full_name", "traversal_ids", "created_at", "updated_at") values ('group', ?, ?, ?, ?, '{}', now(), now())`,
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
    const res = await t.http.put(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ username: `${user.username}-renamed`, name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(await namespaceOf(user.id)).toMatchObject({ name: `${user.username}-renamed`, path: `${user.username}-renamed`, full_path: `${user.username}-renamed`, full_name: 'Renamed' });
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
    const res = await t.http.put(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ username: user.username.toUpperCase() });
    expect(res.status).toBe(200);
    expect(await namespaceOf(user.id)).toMatchObject({ path: user.username.toUpperCase() });
  });
});
