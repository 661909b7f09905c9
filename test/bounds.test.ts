/**
 * Bounds on what a caller may send: text past its length, numbers past int4, dates past what JavaScript
 * and PostgreSQL hold, and values posing as files answer 400 from validation, before any query runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInput } from '../src/api/validation.js';
import { ApiError } from '../src/errors.js';
import { CreateTokenInput } from '../src/schemas/tokens.js';
import { createUser, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let user: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  t = await sharedHosting();
  user = await createUser(t.hosting);
});
afterAll(() => t.close());

const MILLION = 'x'.repeat(1_000_000);
/** Far past every text bound, yet within the default body limit (256 KB). */
const WITHIN_BODY_LIMIT = 'x'.repeat(200_000);
const tooLong = (maximum: number) => [`is too long (maximum is ${maximum} characters)`];

/** The status and body an in-process call fails with. */
async function failure(call: Promise<unknown>): Promise<[number, unknown]> {
  const error = await call.then(
    () => new Error('the call should have failed'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw error;
  return [error.status, error.body()];
}

/** Runs a call and checks it came back within a second. */
async function quickly<T>(call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await call();
  expect(performance.now() - started).toBeLessThan(1000);
  return result;
}

describe('text past its maximum length', () => {
  it('a million-character login to POST /session answers 400 at once (413 over HTTP: past the body limit)', async () => {
    const res = await quickly(() => t.http.post('/api/v4/session').send({ login: MILLION, password: 'whatever-password' }));
    expect([res.status, res.body]).toEqual([413, { message: '413 Payload Too Large' }]);
    const withinBody = await quickly(() =>
      t.http.post('/api/v4/session').send({ login: WITHIN_BODY_LIMIT, password: 'whatever-password' }),
    );
    expect([withinBody.status, withinBody.body]).toEqual([400, { message: { login: tooLong(255) } }]);
    const inProcess = await quickly(() => failure(t.hosting.as(null).session.create({ login: MILLION, password: 'whatever-password' })));
    expect(inProcess).toEqual([400, { message: { login: tooLong(255) } }]);
  });

  it(
    'a million-character username or search to GET /users answers 400 at once in process; over HTTP, 413 past the body limit, ' +
      '400 within it',
    async () => {
      const api = t.hosting.as({ token: user.token });
      for (const name of ['username', 'search'] as const) {
        expect(await quickly(() => failure(api.users.list({ [name]: MILLION })))).toEqual([400, { message: { [name]: tooLong(255) } }]);
        const res = await quickly(() =>
          t.http
            .get('/api/v4/users')
            .set('PRIVATE-TOKEN', user.token)
            .send({ [name]: MILLION }),
        );
        expect([res.status, res.body]).toEqual([413, { message: '413 Payload Too Large' }]);
        const withinBody = await quickly(() =>
          t.http
            .get('/api/v4/users')
            .set('PRIVATE-TOKEN', user.token)
            .send({ [name]: WITHIN_BODY_LIMIT }),
        );
        expect([withinBody.status, withinBody.body]).toEqual([400, { message: { [name]: tooLong(255) } }]);
      }
    },
  );

  it('names each parameter with the original service limit', async () => {
    const valid = { email: 'bounded@example.com', username: 'bounded', name: 'Bounded', password: 'long-enough-password' };
    const create = (input: Record<string, unknown>) =>
      t.http
        .post('/api/v4/users')
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({ ...valid, ...input });
    for (const [input, messages] of [
      [{ name: 'n'.repeat(129) }, { name: tooLong(128) }],
      [{ username: 'u'.repeat(256) }, { username: tooLong(255) }],
      [{ password: 'p'.repeat(129) }, { password: tooLong(128) }],
      [{ email: `${'e'.repeat(250)}@example.com` }, { email: tooLong(255) }],
      [
        { bio: 'b'.repeat(256), website_url: 'w'.repeat(256) },
        { bio: tooLong(255), website_url: tooLong(255) },
      ],
    ] as const) {
      const res = await create(input);
      expect([res.status, res.body], JSON.stringify(Object.keys(input))).toEqual([400, { message: messages }]);
    }
    // At the limit, counted in characters as the original and PostgreSQL count them (an emoji is one).
    const fits = await create({ name: '😀'.repeat(128), bio: '😀'.repeat(255) });
    expect([fits.status, fits.body.name, fits.body.bio]).toEqual([201, '😀'.repeat(128), '😀'.repeat(255)]);
    await t.hosting.users.delete(fits.body.id);

    expect(await failure(t.hosting.customAttributes.set(user.id, 'k'.repeat(256), { value: 'v' }))).toEqual([
      400,
      { message: { key: tooLong(255) } },
    ]);
    expect(await failure(t.hosting.customAttributes.set(user.id, 'k', { value: 'v'.repeat(256) }))).toEqual([
      400,
      { message: { value: tooLong(255) } },
    ]);
    expect(await failure(t.hosting.sshKeys.create({ title: 't'.repeat(256), key: 'k'.repeat(5001) }))).toEqual([
      400,
      { message: { title: tooLong(255), key: tooLong(5000) } },
    ]);
    expect(await failure(t.hosting.personalAccessTokens.create(user.id, { name: 'n'.repeat(256), scopes: ['api'] }))).toEqual([
      400,
      { message: { name: tooLong(255) } },
    ]);
  });

  it('bounds the custom attribute filter: its keys, its values and how many', async () => {
    const list = (query: string) => t.http.get(`/api/v4/users?${query}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    const longKey = await list(`custom_attributes[${'k'.repeat(256)}]=v`);
    expect([longKey.status, longKey.body]).toEqual([400, { message: { custom_attributes: tooLong(255) } }]);
    const longValue = await list(`custom_attributes[k]=${'v'.repeat(256)}`);
    expect([longValue.status, longValue.body]).toEqual([400, { message: { 'custom_attributes[k]': tooLong(255) } }]);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v']));
    expect(await failure(t.hosting.users.list({ custom_attributes: many }))).toEqual([
      400,
      { message: { custom_attributes: ['is too long (maximum is 50 entries)'] } },
    ]);
    const fifty = await list(Array.from({ length: 50 }, (_, index) => `custom_attributes[k${index}]=v`).join('&'));
    expect([fifty.status, fifty.body]).toEqual([200, []]);
  });

  it('bounds lists: scopes and settings lists', async () => {
    const scopes = Array.from({ length: 101 }, () => 'api' as const);
    expect(await failure(t.hosting.personalAccessTokens.create(user.id, { name: 'many', scopes }))).toEqual([
      400,
      { message: { scopes: ['is too long (maximum is 100 items)'] } },
    ]);
    const res = await t.http
      .put('/api/v4/application/settings')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ domain_whitelist: [`${'d'.repeat(256)}.example.com`] });
    expect([res.status, res.body]).toEqual([400, { message: { 'domain_whitelist[0]': tooLong(255) } }]);
  });
});

describe('whole numbers stay within PostgreSQL integer columns', () => {
  it('an ID past int4 answers 400; 0 and -1 still find nothing (404)', async () => {
    for (const [id, status, body] of [
      ['2147483648', 400, { message: { id: ['must be less than or equal to 2147483647'] } }],
      ['-2147483649', 400, { message: { id: ['must be greater than or equal to -2147483648'] } }],
      ['0', 404, { message: '404 User Not Found' }],
      ['-1', 404, { message: '404 User Not Found' }],
    ] as const) {
      const res = await t.http.get(`/api/v4/users/${id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
      expect([res.status, res.body], id).toEqual([status, body]);
    }
    expect(await failure(t.hosting.sshKeys.get(2147483648))).toEqual([
      400,
      { message: { key_id: ['must be less than or equal to 2147483647'] } },
    ]);
    const perPage = await t.http.get('/api/v4/users?per_page=99999999999').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([perPage.status, perPage.body]).toEqual([400, { message: { per_page: ['must be less than or equal to 2147483647'] } }]);
  });
});

describe('dates: years 0001 to 9999', () => {
  const INVALID = (name: string) => [400, { message: { [name]: ['is invalid'] } }];

  it('GET /users refuses created_before/created_after that JavaScript or PostgreSQL cannot hold', async () => {
    const list = (query: string) => t.http.get(`/api/v4/users?${query}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    for (const [name, value] of [
      ['created_before', '0000-01-01'],
      ['created_after', '+275760-09-13'],
      ['created_after', '275760-09-13'],
      ['created_before', '10000-01-01'],
      // Year 0001 written, year 0 meant: the zone carries it past the first instant.
      ['created_before', '0001-01-01T00:00:00+01:00'],
      ['created_after', '9999-12-31T23:00:00-05:00'],
      // No such day: JavaScript alone would read it as 2 March.
      ['created_before', '2023-02-30'],
    ] as const) {
      const res = await list(`${name}=${encodeURIComponent(value)}`);
      expect([res.status, res.body], value).toEqual(INVALID(name));
      const body = await t.http
        .get('/api/v4/users')
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({ [name]: value });
      expect([body.status, body.body], value).toEqual(INVALID(name));
      expect(await failure(t.hosting.users.list({ [name]: value })), value).toEqual(INVALID(name));
    }
    const everyone = (await list('per_page=100')).body.length;
    for (const query of ['created_after=0001-01-01', 'created_before=9999-12-31T23:59:59Z', 'created_before=2024-02-29']) {
      const res = await list(query);
      expect([res.status, res.body.length], query).toEqual([200, query === 'created_before=2024-02-29' ? 0 : everyone]);
    }
  });

  it("a token's last day is at most 9999-12-30: it stops working as the next day starts", async () => {
    const create = (expires_at: string) =>
      t.http
        .post(`/api/v4/users/${user.id}/personal_access_tokens`)
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({ name: 'far', scopes: ['api'], expires_at });
    const last = await create('9999-12-31');
    expect([last.status, last.body]).toEqual([400, { message: { expires_at: ['must be on or before 9999-12-30'] } }]);
    const past = await create('10000-01-01');
    expect([past.status, past.body]).toEqual(INVALID('expires_at'));
    expect(
      await failure(t.hosting.impersonationTokens.create(user.id, { name: 'far', scopes: ['api'], expires_at: '9999-12-31' })),
    ).toEqual([400, { message: { expires_at: ['must be on or before 9999-12-30'] } }]);
    expect(
      await failure(t.hosting.impersonationTokens.create(user.id, { name: 'far', scopes: ['api'], expires_at: '0000-12-31' })),
    ).toEqual(INVALID('expires_at'));
    const fits = await create('9999-12-30');
    expect([fits.status, fits.body.expires_at]).toEqual([201, '9999-12-30']);
    const inProcess = await t.hosting.impersonationTokens.create(user.id, { name: 'far', scopes: ['api'], expires_at: '9999-12-30' });
    expect(inProcess.expires_at).toBe('9999-12-30');
  });

  it('expires_at may be a timestamp, as go-gitlab sends it; its date is the last day', () => {
    const input = { name: 'go', scopes: ['api'] };
    for (const expires_at of ['2027-01-05', '2027-01-05T03:00:00Z', '2027-01-05T03:00:00.000+01:00', '9999-12-30T23:59:59Z']) {
      expect(parseInput(CreateTokenInput, { ...input, expires_at }), expires_at).toEqual({ ...input, expires_at });
    }
    expect(() => parseInput(CreateTokenInput, { ...input, expires_at: '9999-12-31T00:00:00Z' })).toThrow('must be on or before 9999-12-30');
    expect(() => parseInput(CreateTokenInput, { ...input, expires_at: '2027-01-05T' })).toThrow('is invalid');
  });
});

describe('a file parameter given something other than a file', () => {
  const NOT_A_FILE = { message: { avatar: ['must be a file'] } };
  const posing = { filename: 'me.png', content_type: 'image/png', data: 'iVBORw0KGgo=' };

  it('answers 400 naming the parameter, over HTTP as JSON and as a form field', async () => {
    const valid = { email: 'posing@example.com', username: 'posing', name: 'Posing', password: 'long-enough-password' };
    for (const avatar of ['me.png', posing, { filename: 'me.png' }, ['me.png'], 5]) {
      const created = await t.http
        .post('/api/v4/users')
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({ ...valid, avatar });
      expect([created.status, created.body], JSON.stringify(avatar)).toEqual([400, NOT_A_FILE]);
      const updated = await t.http.put(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ avatar });
      expect([updated.status, updated.body], JSON.stringify(avatar)).toEqual([400, NOT_A_FILE]);
    }
    const form = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .type('form')
      .send({ ...valid, avatar: 'me.png' });
    expect([form.status, form.body]).toEqual([400, NOT_A_FILE]);
    const fields = await t.http
      .put(`/api/v4/users/${user.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .field('avatar[filename]', 'me.png')
      .field('avatar[content_type]', 'image/png')
      .field('avatar[data]', 'bytes');
    expect([fields.status, fields.body]).toEqual([400, NOT_A_FILE]);
  });

  it('in process: data must be bytes; a Uint8Array is a file', async () => {
    expect(await failure(t.hosting.users.update(user.id, { avatar: posing as never }))).toEqual([400, NOT_A_FILE]);
    const png = new Uint8Array(Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'));
    const updated = await t.hosting.users.update(user.id, { avatar: { filename: 'me.png', content_type: 'image/png', data: png } });
    expect(updated.avatar_url).toMatch(new RegExp(`/uploads/-/system/user/avatar/${user.id}/me\\.png$`));
  });

  it('a real file whose content type is longer than can be stored answers 400, not 500', async () => {
    const res = await t.http
      .put(`/api/v4/users/${user.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .attach('avatar', Buffer.from('89504e47', 'hex'), { filename: 'me.png', contentType: `image/${'a'.repeat(200)}` });
    expect([res.status, res.body]).toEqual([400, { message: { 'avatar[content_type]': tooLong(128) } }]);
  });
});
