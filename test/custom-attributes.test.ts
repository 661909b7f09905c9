import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../src/errors.js';
import { createUser, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let user: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  t = await sharedHosting();
  user = await createUser(t.hosting);
});
afterAll(() => t.close());

const attributesUrl = (userId: number, key?: string) =>
  `/api/v4/users/${userId}/custom_attributes${key === undefined ? '' : `/${encodeURIComponent(key)}`}`;
const asRoot = <T extends { set(field: string, value: string): T }>(request: T) => request.set('PRIVATE-TOKEN', ROOT_TOKEN);

const ids = (users: { id: number }[]) => users.map((item) => item.id).sort((a, b) => a - b);

describe('PUT /users/:id/custom_attributes/:key', () => {
  it('creates an attribute (200 with key and value), then updates it in place', async () => {
    const target = await createUser(t.hosting);
    const created = await asRoot(t.http.put(attributesUrl(target.id, 'colour')))
      .type('form')
      .send({ value: 'blue' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ key: 'colour', value: 'blue' });

    const updated = await asRoot(t.http.put(attributesUrl(target.id, 'colour'))).send({ value: 'green' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ key: 'colour', value: 'green' });

    const list = await asRoot(t.http.get(attributesUrl(target.id)));
    expect(list.body).toEqual([{ key: 'colour', value: 'green' }]);
  });

  it('takes the value from the query string, and a number as a string', async () => {
    const target = await createUser(t.hosting);
    const fromQuery = await asRoot(t.http.put(`${attributesUrl(target.id, 'size')}?value=large`));
    expect(fromQuery.status).toBe(200);
    expect(fromQuery.body).toEqual({ key: 'size', value: 'large' });
    const number = await asRoot(t.http.put(attributesUrl(target.id, 'age'))).send({ value: 42 });
    expect(number.status).toBe(200);
    expect(number.body).toEqual({ key: 'age', value: '42' });
  });

  it('keeps keys with characters that need encoding', async () => {
    const target = await createUser(t.hosting);
    const res = await asRoot(t.http.put(attributesUrl(target.id, 'team name/a.b'))).send({ value: 'x y' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ key: 'team name/a.b', value: 'x y' });
    expect((await asRoot(t.http.get(attributesUrl(target.id, 'team name/a.b')))).body).toEqual({ key: 'team name/a.b', value: 'x y' });
  });

  it('answers 400 naming value when it is missing, and a message object when it is blank', async () => {
    const missing = await asRoot(t.http.put(attributesUrl(user.id, 'k'))).send({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: '400 (Bad request) "value" not given' });
    const blank = await asRoot(t.http.put(attributesUrl(user.id, 'k'))).send({ value: '' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: { value: ["can't be blank"] } });
    const tooLong = await asRoot(t.http.put(attributesUrl(user.id, 'k'))).send({ value: 'x'.repeat(256) });
    expect(tooLong.status).toBe(400);
    expect(Object.keys(tooLong.body.message)).toEqual(['value']);
    expect((await asRoot(t.http.get(attributesUrl(user.id, 'k')))).status).toBe(404);
    await expect(t.hosting.customAttributes.set(user.id, 'k', {} as never)).rejects.toThrow('400 (Bad request) "value" not given');
  });

  it('answers 404 User Not Found for an unknown user', async () => {
    const res = await asRoot(t.http.put(attributesUrl(999999, 'k'))).send({ value: 'v' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 User Not Found' });
  });
});

describe('GET /users/:id/custom_attributes[/:key]', () => {
  let target: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    target = await createUser(t.hosting);
    for (const [key, value] of [
      ['gamma', '3'],
      ['alpha', '1'],
      ['beta', '2'],
    ]) {
      await t.hosting.customAttributes.set(target.id, key, { value });
    }
  });

  it('lists the attributes by key, paginated with the usual headers', async () => {
    const all = await asRoot(t.http.get(attributesUrl(target.id)));
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      { key: 'alpha', value: '1' },
      { key: 'beta', value: '2' },
      { key: 'gamma', value: '3' },
    ]);
    expect(all.headers['x-total']).toBe('3');

    const first = await asRoot(t.http.get(attributesUrl(target.id)).query({ per_page: 2 }));
    expect(first.body).toEqual([
      { key: 'alpha', value: '1' },
      { key: 'beta', value: '2' },
    ]);
    expect(first.headers).toMatchObject({
      'x-total': '3',
      'x-total-pages': '2',
      'x-per-page': '2',
      'x-page': '1',
      'x-next-page': '2',
      'x-prev-page': '',
    });
    expect(first.headers.link).toContain('rel="next"');
    expect(first.headers.link).toContain('rel="last"');
    const second = await asRoot(t.http.get(attributesUrl(target.id)).query({ per_page: 2, page: 2 }));
    expect(second.body).toEqual([{ key: 'gamma', value: '3' }]);
    expect(second.headers['x-prev-page']).toBe('1');
    expect(second.headers['x-next-page']).toBe('');
  });

  it('answers an empty list for a user without attributes', async () => {
    const res = await asRoot(t.http.get(attributesUrl(user.id)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers['x-total']).toBe('0');
  });

  it('answers one attribute, or 404 Custom Attribute Not Found', async () => {
    const one = await asRoot(t.http.get(attributesUrl(target.id, 'beta')));
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ key: 'beta', value: '2' });
    const none = await asRoot(t.http.get(attributesUrl(target.id, 'delta')));
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ message: '404 Custom Attribute Not Found' });
    // Another user's attribute is not this user's.
    expect((await asRoot(t.http.get(attributesUrl(user.id, 'beta')))).status).toBe(404);
  });

  it('answers 404 User Not Found for an unknown user', async () => {
    for (const url of [attributesUrl(999999), attributesUrl(999999, 'alpha')]) {
      const res = await asRoot(t.http.get(url));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 User Not Found' });
    }
  });

  it('works in-process', async () => {
    expect(await t.hosting.customAttributes.list(target.id)).toEqual([
      { key: 'alpha', value: '1' },
      { key: 'beta', value: '2' },
      { key: 'gamma', value: '3' },
    ]);
    expect(await t.hosting.customAttributes.list(target.id, { per_page: 1, page: 3 })).toEqual([{ key: 'gamma', value: '3' }]);
    expect(await t.hosting.as('root').customAttributes.get(target.id, 'alpha')).toEqual({ key: 'alpha', value: '1' });
    const missing = await t.hosting.customAttributes.get(target.id, 'delta').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).message).toBe('404 Custom Attribute Not Found');
    await expect(t.hosting.customAttributes.list(999999)).rejects.toThrow('404 User Not Found');
  });
});

describe('DELETE /users/:id/custom_attributes/:key', () => {
  it('answers 204, after which the attribute is gone', async () => {
    const target = await createUser(t.hosting);
    await t.hosting.customAttributes.set(target.id, 'doomed', { value: 'yes' });
    await t.hosting.customAttributes.set(target.id, 'kept', { value: 'yes' });
    const res = await asRoot(t.http.delete(attributesUrl(target.id, 'doomed')));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await asRoot(t.http.get(attributesUrl(target.id, 'doomed')));
    expect(after.status).toBe(404);
    expect(after.body).toEqual({ message: '404 Custom Attribute Not Found' });
    expect((await asRoot(t.http.get(attributesUrl(target.id)))).body).toEqual([{ key: 'kept', value: 'yes' }]);

    const again = await asRoot(t.http.delete(attributesUrl(target.id, 'doomed')));
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Custom Attribute Not Found' });
    const unknownUser = await asRoot(t.http.delete(attributesUrl(999999, 'kept')));
    expect(unknownUser.status).toBe(404);
    expect(unknownUser.body).toEqual({ message: '404 User Not Found' });
  });

  it('works in-process', async () => {
    const target = await createUser(t.hosting);
    await t.hosting.customAttributes.set(target.id, 'temp', { value: '1' });
    await expect(t.hosting.customAttributes.delete(target.id, 'temp')).resolves.toBeUndefined();
    await expect(t.hosting.customAttributes.get(target.id, 'temp')).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.hosting.customAttributes.delete(target.id, 'temp')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('goes with its user', async () => {
    const target = await createUser(t.hosting);
    await t.hosting.customAttributes.set(target.id, 'org', { value: 'gone-with-user' });
    await t.hosting.users.delete(target.id);
    expect(await t.hosting.users.list({ custom_attributes: { org: 'gone-with-user' } })).toEqual([]);
  });
});

describe('access', () => {
  const routes = (userId: number) =>
    [
      () => t.http.get(attributesUrl(userId)),
      () => t.http.get(attributesUrl(userId, 'k')),
      () => t.http.put(attributesUrl(userId, 'k')).send({ value: 'v' }),
      () => t.http.delete(attributesUrl(userId, 'k')),
    ] as const;

  it('answers 401 without authentication and 403 to a normal user, even about themselves', async () => {
    await t.hosting.customAttributes.set(user.id, 'k', { value: 'original' });
    for (const send of routes(user.id)) {
      const anonymous = await send();
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
      const normal = await send().set('PRIVATE-TOKEN', user.token);
      expect(normal.status).toBe(403);
      expect(normal.body).toEqual({ message: '403 Forbidden' });
    }
    expect(await t.hosting.customAttributes.get(user.id, 'k')).toEqual({ key: 'k', value: 'original' });

    const normal = t.hosting.as(user.id).customAttributes;
    await expect(normal.list(user.id)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(normal.get(user.id, 'k')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(normal.set(user.id, 'k', { value: 'v' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(normal.delete(user.id, 'k')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(t.hosting.as(null).customAttributes.list(user.id)).rejects.toBeInstanceOf(UnauthorizedError);
    await t.hosting.customAttributes.delete(user.id, 'k');
  });

  it('lets an administrator other than root through', async () => {
    const admin = await createUser(t.hosting, { admin: true });
    const res = await t.http.put(attributesUrl(user.id, 'by-admin')).set('PRIVATE-TOKEN', admin.token).send({ value: 'v' });
    expect(res.status).toBe(200);
    expect(await t.hosting.as(admin.id).customAttributes.get(user.id, 'by-admin')).toEqual({ key: 'by-admin', value: 'v' });
    await expect(t.hosting.as(admin.id).customAttributes.set(user.id, 'blank', { value: '' })).rejects.toBeInstanceOf(BadRequestError);
    await t.hosting.customAttributes.delete(user.id, 'by-admin');
  });
});

describe('GET /users with custom attributes', () => {
  let berlin: Awaited<ReturnType<typeof createUser>>;
  let paris: Awaited<ReturnType<typeof createUser>>;
  let ops: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    berlin = await createUser(t.hosting);
    paris = await createUser(t.hosting);
    ops = await createUser(t.hosting);
    await t.hosting.customAttributes.set(berlin.id, 'dept', { value: 'eng' });
    await t.hosting.customAttributes.set(berlin.id, 'site', { value: 'berlin' });
    await t.hosting.customAttributes.set(paris.id, 'dept', { value: 'eng' });
    await t.hosting.customAttributes.set(paris.id, 'site', { value: 'paris' });
    await t.hosting.customAttributes.set(ops.id, 'dept', { value: 'ops' });
    await t.hosting.customAttributes.set(ops.id, 'site', { value: 'berlin' });
  });

  it('filters by custom_attributes[key]=value for administrators', async () => {
    const eng = await asRoot(t.http.get('/api/v4/users?custom_attributes[dept]=eng'));
    expect(eng.status).toBe(200);
    expect(ids(eng.body)).toEqual([berlin.id, paris.id].sort((a, b) => a - b));
    expect(eng.headers['x-total']).toBe('2');
    // Administrators get full users.
    expect(eng.body[0]).toHaveProperty('email');

    const bracketsEncoded = await asRoot(t.http.get('/api/v4/users').query({ 'custom_attributes[site]': 'berlin' }));
    expect(ids(bracketsEncoded.body)).toEqual([berlin.id, ops.id].sort((a, b) => a - b));
  });

  it('requires every pair to match', async () => {
    const both = await asRoot(t.http.get('/api/v4/users?custom_attributes[dept]=eng&custom_attributes[site]=berlin'));
    expect(both.status).toBe(200);
    expect(ids(both.body)).toEqual([berlin.id]);
    const none = await asRoot(t.http.get('/api/v4/users?custom_attributes[dept]=ops&custom_attributes[site]=paris'));
    expect(none.body).toEqual([]);
    expect(none.headers['x-total']).toBe('0');
    const unknown = await asRoot(t.http.get('/api/v4/users?custom_attributes[nothing]=here'));
    expect(unknown.body).toEqual([]);
    // The value must match exactly, and the key must be the one given.
    expect((await asRoot(t.http.get('/api/v4/users?custom_attributes[dept]=en'))).body).toEqual([]);
    expect((await asRoot(t.http.get('/api/v4/users?custom_attributes[site]=eng'))).body).toEqual([]);
  });

  it('combines with other filters', async () => {
    const res = await asRoot(t.http.get('/api/v4/users').query({ 'custom_attributes[dept]': 'eng', username: paris.username }));
    expect(ids(res.body)).toEqual([paris.id]);
  });

  it('filters in-process', async () => {
    expect(ids(await t.hosting.users.list({ custom_attributes: { dept: 'eng' } }))).toEqual([berlin.id, paris.id].sort((a, b) => a - b));
    expect(ids(await t.hosting.users.list({ custom_attributes: { dept: 'eng', site: 'paris' } }))).toEqual([paris.id]);
    expect(await t.hosting.as('root').users.list({ custom_attributes: { dept: 'sales' } })).toEqual([]);
  });

  it('ignores the filter for normal users, who see neither attributes nor their effect', async () => {
    const res = await t.http
      .get('/api/v4/users?custom_attributes[dept]=eng&with_custom_attributes=true&per_page=100')
      .set('PRIVATE-TOKEN', user.token);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(expect.arrayContaining([berlin.id, paris.id, ops.id, user.id]));
    for (const item of res.body) expect(item).not.toHaveProperty('custom_attributes');
    const single = await t.http.get(`/api/v4/users/${berlin.id}?with_custom_attributes=true`).set('PRIVATE-TOKEN', user.token);
    expect(single.status).toBe(200);
    expect(single.body).not.toHaveProperty('custom_attributes');
    const inProcess = await t.hosting.as(user.id).users.list({ custom_attributes: { dept: 'eng' }, per_page: 100 });
    expect(ids(inProcess)).toEqual(expect.arrayContaining([ops.id, user.id]));
  });

  it('adds custom_attributes to each user with with_custom_attributes=true', async () => {
    const res = await asRoot(t.http.get('/api/v4/users?with_custom_attributes=true&per_page=100'));
    expect(res.status).toBe(200);
    const byId = new Map<number, { custom_attributes?: unknown }>(res.body.map((item: { id: number }) => [item.id, item]));
    expect(byId.get(berlin.id)?.custom_attributes).toEqual([
      { key: 'dept', value: 'eng' },
      { key: 'site', value: 'berlin' },
    ]);
    expect(byId.get(ops.id)?.custom_attributes).toEqual([
      { key: 'dept', value: 'ops' },
      { key: 'site', value: 'berlin' },
    ]);
    for (const item of res.body) expect(Array.isArray(item.custom_attributes)).toBe(true);
    expect(byId.get(1)?.custom_attributes).toEqual([]);

    const filtered = await asRoot(t.http.get('/api/v4/users?custom_attributes[site]=paris&with_custom_attributes=1'));
    expect(filtered.body).toHaveLength(1);
    expect(filtered.body[0].custom_attributes).toEqual([
      { key: 'dept', value: 'eng' },
      { key: 'site', value: 'paris' },
    ]);

    // Without the flag there is no such field.
    const plain = await asRoot(t.http.get('/api/v4/users?custom_attributes[site]=paris'));
    expect(plain.body[0]).not.toHaveProperty('custom_attributes');

    const single = await asRoot(t.http.get(`/api/v4/users/${paris.id}?with_custom_attributes=true`));
    expect(single.body.custom_attributes).toEqual([
      { key: 'dept', value: 'eng' },
      { key: 'site', value: 'paris' },
    ]);

    const inProcess = await t.hosting.users.list({ custom_attributes: { site: 'berlin', dept: 'ops' }, with_custom_attributes: true });
    expect(inProcess).toHaveLength(1);
    expect(inProcess[0].custom_attributes).toEqual([
      { key: 'dept', value: 'ops' },
      { key: 'site', value: 'berlin' },
    ]);
  });
});
