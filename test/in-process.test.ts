import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ForbiddenError, InsufficientScopeError, NotFoundError, UnauthorizedError } from '../src/index.js';
import { createUser, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let user: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  t = await sharedHosting();
  user = await createUser(t.hosting);
});
afterAll(() => t.close());

describe('the in-process API', () => {
  it('gives the same answers as HTTP', async () => {
    // Without a configured base URL, HTTP answers URLs on the host it was reached at; in process, on http://localhost.
    const http = await t.http.get(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', user.token).set('Host', 'localhost');
    expect(await t.hosting.as(user.id).users.get(user.id)).toEqual(http.body);
    expect(await t.hosting.as(user.username).users.get(user.id)).toEqual(http.body);
    expect(await t.hosting.as(user.token).users.get(user.id)).toEqual(http.body);
    expect(await t.hosting.as({ token: user.token }).users.get(user.id)).toEqual(http.body);
    const list = await t.http.get('/api/v4/users?per_page=1&page=2').set('PRIVATE-TOKEN', ROOT_TOKEN).set('Host', 'localhost');
    expect(await t.hosting.users.list({ per_page: 1, page: 2 })).toEqual(list.body);
  });

  it('validates and coerces inputs without changing the caller’s objects', async () => {
    const input = { per_page: '1' as unknown as number, unknown: 'dropped' } as { per_page: number };
    const page = await t.hosting.users.list(input);
    expect(page.length).toBe(1);
    expect(input).toEqual({ per_page: '1', unknown: 'dropped' });
    await expect(t.hosting.users.get('x' as unknown as number)).rejects.toMatchObject({ status: 400, messages: { id: ['is invalid'] } });
  });

  it('throws the typed errors whose status and body HTTP answers', async () => {
    const missing = await t.hosting.users.create({ username: 'a', name: 'A' } as never).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(BadRequestError);
    expect((missing as BadRequestError).status).toBe(400);
    expect((missing as BadRequestError).body()).toEqual({ message: '400 (Bad request) "email" not given' });
    await expect(t.hosting.users.get(424242)).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.hosting.as(user.id).applicationSettings.get()).rejects.toBeInstanceOf(ForbiddenError);
    await expect(t.hosting.as(null).users.current()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.hosting.as('no-such-user-or-token').users.current()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.hosting.as(424242).users.current()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('applies token scopes and sudo like HTTP', async () => {
    const { token } = await t.hosting.personalAccessTokens.create(user.id, { name: 'read', scopes: ['read_user'] });
    expect((await t.hosting.as(token).users.current()).id).toBe(user.id);
    await expect(t.hosting.as(token).emails.create({ email: 'scoped@example.com' })).rejects.toBeInstanceOf(InsufficientScopeError);
    expect((await t.hosting.as({ token: ROOT_TOKEN, sudo: user.username }).users.current()).id).toBe(user.id);
    expect((await t.hosting.as({ id: 1, sudo: user.id }).users.current()).id).toBe(user.id);
    await expect(t.hosting.as({ id: user.id, sudo: 1 }).users.current()).rejects.toMatchObject({
      status: 403,
      message: '403 Forbidden - Must be admin to use sudo',
    });
  });

  it('lets an anonymous caller reach public routes only', async () => {
    const document = await t.hosting.as(null).instance.openapi();
    expect(document.openapi).toBe('3.1.0');
    await expect(t.hosting.as(null).instance.version()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('leaves the database as it was when a write fails', async () => {
    const before = await t.hosting.as(user.id).emails.list();
    await expect(t.hosting.as(user.id).emails.create({ email: user.email })).rejects.toBeInstanceOf(BadRequestError);
    expect(await t.hosting.as(user.id).emails.list()).toEqual(before);
  });
});
