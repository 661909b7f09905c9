import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseMismatches } from '../src/api/validation.js';
import { User } from '../src/db/entities/index.js';
import type { EntityManager } from '../src/db/orm.js';
import { defaultSettings } from '../src/schemas/settings.js';
import { UserBasic, UserFull, UserProfile, UserSelf } from '../src/schemas/users.js';
import { presentCurrentUser, presentUser, presentUsers } from '../src/services/present/users.js';
import type { View } from '../src/services/present/view.js';
import { createUser, queriesOf, sharedHosting, type TestHosting } from './helpers.js';

// Presenters on their own: what a page of users costs, and what a normal caller's view may show.
let t: TestHosting;
let userIds: number[];
let adminId: number;
let normalId: number;

beforeAll(async () => {
  t = await sharedHosting();
  userIds = [];
  for (let index = 0; index < 30; index++) {
    const user = await createUser(t.hosting, { extern_uid: `presenters-${index}`, provider: 'ldap' });
    await t.hosting.customAttributes.set(user.id, 'team', { value: 'tools' });
    userIds.push(user.id);
  }
  adminId = (await createUser(t.hosting, { admin: true })).id;
  normalId = userIds[0];
});
afterAll(() => t.close());

/** A view as `viewerId` with a fresh session, and the first `count` test users loaded in it. */
async function viewAs(viewerId: number, count: number, privateToken: string | null = null): Promise<{ view: View; users: User[] }> {
  const em: EntityManager = t.db.fork();
  const viewer = await em.findOneOrFail(User, { id: viewerId });
  const users = await em.find(User, { id: { $in: userIds.slice(0, count) } }, { orderBy: { id: 'asc' } });
  const view: View = {
    caller: { user: viewer, scopes: null, token: null, privateToken },
    baseUrl: 'http://forge.test',
    settings: defaultSettings(['default']),
    em,
    rows: t.db.rows,
    now: () => t.hosting.clock.now(),
  };
  return { view, users };
}

describe('presentUsers', () => {
  it('loads a page’s identities and custom attributes in one query each, for 3 users and for 30', async () => {
    for (const count of [3, 30]) {
      const { view, users } = await viewAs(adminId, count);
      let shapes: unknown[] = [];
      const queries = await queriesOf(t.db, async () => {
        shapes = await presentUsers(users, view, { withCustomAttributes: true });
      });
      expect(queries).toHaveLength(2);
      expect(shapes).toHaveLength(count);
      for (const shape of shapes) {
        expect(responseMismatches(UserFull, shape)).toEqual([]);
        expect(shape).toMatchObject({ identities: [{ provider: 'ldap' }], custom_attributes: [{ key: 'team', value: 'tools' }] });
      }
      const withoutAttributes = await viewAs(adminId, count);
      expect(await queriesOf(t.db, () => presentUsers(withoutAttributes.users, withoutAttributes.view))).toHaveLength(1);
    }
  });

  it('shows a normal caller references only, with nothing loaded, whatever it asks for', async () => {
    const { view, users } = await viewAs(normalId, 30);
    let shapes: object[] = [];
    const queries = await queriesOf(t.db, async () => {
      shapes = await presentUsers(users, view, { withCustomAttributes: true });
    });
    expect(queries).toHaveLength(0);
    for (const shape of shapes) {
      expect(responseMismatches(UserBasic, shape)).toEqual([]);
      expect(shape).not.toHaveProperty('custom_attributes');
    }
  });
});

describe("a normal caller's view", () => {
  it('never carries an administrator’s field', async () => {
    const { view, users } = await viewAs(normalId, 2, 'a-private-token');
    const other = await presentUser(users[1], view, { withCustomAttributes: true });
    expect(responseMismatches(UserProfile, other)).toEqual([]);
    expect(other).not.toHaveProperty('custom_attributes');
    expect(other).not.toHaveProperty('email');

    // Signed in with a private token, a normal user still sees itself without `is_admin` or the token.
    const self = await presentCurrentUser(users[0], view);
    expect(responseMismatches(UserSelf, self)).toEqual([]);
    expect(self).not.toHaveProperty('is_admin');
    expect(self).not.toHaveProperty('private_token');
  });

  it('is what an administrator sees of the same user, less the administrator’s fields', async () => {
    const normal = await viewAs(normalId, 2);
    const admin = await viewAs(adminId, 2);
    const asNormal = await presentUser(normal.users[1], normal.view);
    const asAdmin = await presentUser(admin.users[1], admin.view);
    expect(responseMismatches(UserFull, asAdmin)).toEqual([]);
    expect(asAdmin).toMatchObject(asNormal);
  });
});
