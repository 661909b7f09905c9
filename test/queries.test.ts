import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, queriesOf, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

// A list costs the same number of queries however many rows it shows: no query per row.
let t: TestHosting;
beforeAll(async () => {
  t = await sharedHosting();
});
afterAll(() => t.close());

describe('GET /users', () => {
  it('runs four queries for 3 users and for 30, with identities, custom attributes and filters', async () => {
    const list = () =>
      t.http
        .get('/api/v4/users')
        .query({ per_page: 100, with_custom_attributes: true, 'custom_attributes[team]': 'tools', search: 'user' })
        .set('PRIVATE-TOKEN', ROOT_TOKEN);
    const addUsers = async (count: number) => {
      for (let index = 0; index < count; index++) {
        const user = await createUser(t.hosting, { extern_uid: `uid-${Math.random()}`, provider: 'ldap' });
        await t.hosting.customAttributes.set(user.id, 'team', { value: 'tools' });
      }
    };
    await addUsers(3);
    const few = await queriesOf(t.db, list);
    expect((await list()).body.length).toBe(3);
    await addUsers(27);
    const many = await queriesOf(t.db, list);
    expect((await list()).body.length).toBe(30);
    // The page, its count, the page's identities and its custom attributes (the settings are cached, and the
    // token too once read: the users' creation changed no caller).
    const listing = (queries: string[]) => queries.filter((query) => !/from access_tokens t join users u/.test(query));
    expect(listing(few)).toHaveLength(4);
    expect(listing(many)).toHaveLength(4);
    expect(many.length).toBe(4);
  });
});
