import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as openpgp from 'openpgp';
import sshpk from 'sshpk';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../src/errors.js';
import { createUser, linkHeader, pageHeaders, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;

beforeAll(async () => {
  t = await sharedHosting();
});
afterAll(() => t.close());

type TestUser = Awaited<ReturnType<typeof createUser>>;

// ---- real keys ----

type SshKind = 'ed25519' | 'rsa1024' | 'rsa2048' | 'ecdsa' | 'dsa';

function publicKeyOf(kind: SshKind): KeyObject {
  switch (kind) {
    case 'ed25519':
      return generateKeyPairSync('ed25519').publicKey;
    case 'ecdsa':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    case 'rsa1024':
      return generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    case 'rsa2048':
      return generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    case 'dsa':
      return generateKeyPairSync('dsa', { modulusLength: 1024, divisorLength: 160 }).publicKey;
  }
}

/** A fresh public key in OpenSSH's one-line form: `<type> <base64> <comment>`. */
function sshKey(kind: SshKind = 'ed25519', comment = 'test@forgekit'): string {
  const key = sshpk.parseKey(publicKeyOf(kind).export({ type: 'spki', format: 'pem' }) as string, 'pem');
  key.comment = comment;
  return key.toString('ssh');
}

/** The same key material under another comment: a different text with the same fingerprint. */
const recommented = (key: string, comment: string) => key.split(' ').slice(0, 2).concat(comment).join(' ');

async function gpgKeyPair(email = 't@example.com', v6Keys = false): Promise<{ publicKey: string; privateKey: string }> {
  const { publicKey, privateKey } = await openpgp.generateKey({ userIDs: [{ name: 'T', email }], format: 'armored', config: { v6Keys } });
  return { publicKey, privateKey };
}

const GPG_FORMAT_MESSAGE =
  "is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----' and ends with '-----END PGP PUBLIC KEY " +
  "BLOCK-----'";

// ---- calling the API ----

type Verb = 'get' | 'post' | 'put' | 'delete';

/** An HTTP request under /api/v4, with a private token when given. */
function call(verb: Verb, path: string, token?: string) {
  const request = t.http[verb](`/api/v4${path}`);
  return token ? request.set('PRIVATE-TOKEN', token) : request;
}

/** The typed error an in-process call rejects with: its class, status and body. */
async function rejection(
  promise: Promise<unknown>,
  type: new (...args: never[]) => ApiError,
  status: number,
  body: unknown,
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the call should have failed').toBeInstanceOf(type);
  expect((error as ApiError).status).toBe(status);
  expect((error as ApiError).body()).toEqual(body);
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A created_at of a record made during this test run. */
const recent = () => expect.stringMatching(ISO_DATETIME);

function expectRecent(createdAt: string) {
  expect(createdAt).toMatch(ISO_DATETIME);
  expect(Math.abs(Date.now() - Date.parse(createdAt))).toBeLessThan(5 * 60_000);
}

const UNAUTHORIZED = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };
const USER_NOT_FOUND = { message: '404 User Not Found' };
const KEY_NOT_FOUND = { message: '404 Key Not Found' };
const GPG_KEY_NOT_FOUND = { message: '404 GPG Key Not Found' };
const EMAIL_NOT_FOUND = { message: '404 Email Not Found' };
const MISSING_USER_ID = 999999;

function expectStatus(res: Response, status: number, body?: unknown) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  if (body !== undefined) expect(res.body).toEqual(body);
}

const links = (res: Response): Record<string, URL> =>
  Object.fromEntries(Object.entries(linkHeader(res.headers.link)).map(([rel, url]) => [rel, new URL(url)]));

/** Checks the headers of page 2 of a three-item list read one item per page. */
function expectMiddlePage(res: Response, path: string) {
  expect(pageHeaders(res.headers)).toEqual({ total: 3, totalPages: 3, perPage: 1, page: 2, nextPage: 3, prevPage: 1 });
  const rels = links(res);
  expect(Object.keys(rels).sort()).toEqual(['first', 'last', 'next', 'prev']);
  for (const [rel, page] of [
    ['prev', '1'],
    ['next', '3'],
    ['first', '1'],
    ['last', '3'],
  ] as const) {
    expect(rels[rel].protocol).toBe('http:');
    expect(rels[rel].pathname).toBe(`/api/v4${path}`);
    expect(rels[rel].searchParams.get('page'), rel).toBe(page);
    expect(rels[rel].searchParams.get('per_page'), rel).toBe('1');
  }
}

/** Checks the headers of page 1 of a three-item list read one item per page. */
function expectFirstPage(res: Response) {
  expect(res.headers['x-page']).toBe('1');
  expect(res.headers['x-next-page']).toBe('2');
  expect(res.headers['x-prev-page']).toBe('');
  const rels = links(res);
  expect(Object.keys(rels).sort()).toEqual(['first', 'last', 'next']);
  expect(rels.next.searchParams.get('page')).toBe('2');
  expect(rels.last.searchParams.get('page')).toBe('3');
}

// ======================================================================================
// SSH keys
// ======================================================================================

describe('SSH keys over HTTP: /user/keys', () => {
  let alice: TestUser;
  let bob: TestUser;
  let aliceKey: { id: number; title: string; key: string; created_at: string };
  let bobKeyId: number;

  beforeAll(async () => {
    alice = await createUser(t.hosting);
    bob = await createUser(t.hosting);
  });

  it('starts with an empty list', async () => {
    const res = await call('get', '/user/keys', alice.token);
    expectStatus(res, 200, []);
  });

  it('adds a key: 201 with exactly id, title, key and created_at', async () => {
    const key = sshKey('ed25519');
    const res = await call('post', '/user/keys', alice.token).send({ title: 'laptop', key });
    expectStatus(res, 201);
    expect(res.body).toEqual({ id: expect.any(Number), title: 'laptop', key, created_at: recent() });
    expectRecent(res.body.created_at);
    aliceKey = res.body;
    bobKeyId = (
      await call('post', '/user/keys', bob.token)
        .send({ title: 'bob', key: sshKey('ed25519') })
        .expect(201)
    ).body.id;
  });

  it('accepts form fields as well as JSON', async () => {
    const key = sshKey('ecdsa');
    const res = await call('post', '/user/keys', bob.token).type('form').send({ title: 'form', key });
    expectStatus(res, 201);
    expect(res.body).toEqual({ id: expect.any(Number), title: 'form', key, created_at: recent() });
  });

  it('lists and fetches the key', async () => {
    const list = await call('get', '/user/keys', alice.token);
    expectStatus(list, 200, [aliceKey]);
    const one = await call('get', `/user/keys/${aliceKey.id}`, alice.token);
    expectStatus(one, 200, aliceKey);
  });

  it('accepts ed25519, RSA 1024 and 2048, ECDSA P-256 and DSA keys by default', async () => {
    for (const kind of ['ed25519', 'rsa1024', 'rsa2048', 'ecdsa', 'dsa'] as const) {
      const key = sshKey(kind);
      const res = await call('post', '/user/keys', bob.token).send({ title: kind, key });
      expectStatus(res, 201);
      expect(res.body).toEqual({ id: expect.any(Number), title: kind, key, created_at: recent() });
    }
  });

  it('stores a key pasted with line breaks as one line', async () => {
    const key = sshKey('rsa2048');
    const wrapped = `${key.slice(0, 60)}\n${key.slice(60, 200)}\r\n${key.slice(200)}\n`;
    const res = await call('post', '/user/keys', bob.token).send({ title: 'wrapped', key: wrapped });
    expectStatus(res, 201);
    expect(res.body.key).toBe(key);
  });

  it('answers 400 naming a missing title or key', async () => {
    const key = sshKey();
    expectStatus(await call('post', '/user/keys', alice.token).send({ key }), 400, { message: '400 (Bad request) "title" not given' });
    expectStatus(await call('post', '/user/keys', alice.token).send({ title: 'x' }), 400, { message: '400 (Bad request) "key" not given' });
    expectStatus(await call('post', '/user/keys', alice.token).send({ title: '  ', key }), 400, { message: { title: ["can't be blank"] } });
    expectStatus(await call('get', '/user/keys', alice.token), 200, [aliceKey]);
  });

  it('answers 400 with a message object for a key that is not a public key', async () => {
    const invalid = { message: { key: ['is invalid'], fingerprint: ['cannot be generated'] } };
    for (const key of ['not a key', 'ssh-rsa AAAAB3NzaC1yc2E= broken', '-----BEGIN PGP PUBLIC KEY BLOCK-----']) {
      expectStatus(await call('post', '/user/keys', alice.token).send({ title: 'bad', key }), 400, invalid);
    }
    expectStatus(await call('get', '/user/keys', alice.token), 200, [aliceKey]);
  });

  it('refuses a key whose fingerprint is taken, by the same user or another, whatever its comment', async () => {
    const taken = { message: { key: ['has already been taken'], fingerprint: ['has already been taken'] } };
    expectStatus(await call('post', '/user/keys', alice.token).send({ title: 'again', key: aliceKey.key }), 400, taken);
    expectStatus(
      await call('post', '/user/keys', alice.token).send({ title: 'again', key: recommented(aliceKey.key, 'other') }),
      400,
      taken,
    );
    expectStatus(await call('post', '/user/keys', bob.token).send({ title: 'stolen', key: recommented(aliceKey.key, 'bob') }), 400, taken);
    // Nothing was added by the failed calls.
    expectStatus(await call('get', '/user/keys', alice.token), 200, [aliceKey]);
    expect((await call('get', '/user/keys', bob.token)).body.map((key: { title: string }) => key.title)).not.toContain('stolen');
  });

  it("answers 404 for a missing key and for another user's key, and leaves that key alone", async () => {
    expectStatus(await call('get', '/user/keys/999999', alice.token), 404, KEY_NOT_FOUND);
    expectStatus(await call('get', `/user/keys/${bobKeyId}`, alice.token), 404, KEY_NOT_FOUND);
    expectStatus(await call('delete', '/user/keys/999999', alice.token), 404, KEY_NOT_FOUND);
    expectStatus(await call('delete', `/user/keys/${bobKeyId}`, alice.token), 404, KEY_NOT_FOUND);
    expectStatus(await call('get', `/user/keys/${bobKeyId}`, bob.token), 200);
  });

  it('answers 401 without authentication', async () => {
    for (const [verb, path] of [
      ['get', '/user/keys'],
      ['get', `/user/keys/${aliceKey.id}`],
      ['post', '/user/keys'],
      ['delete', `/user/keys/${aliceKey.id}`],
    ] as const) {
      expectStatus(await call(verb, path).send(verb === 'post' ? { title: 'x', key: sshKey() } : undefined), 401, UNAUTHORIZED);
      expectStatus(await call(verb, path, 'wrong-token'), 401, UNAUTHORIZED);
    }
    expectStatus(await call('get', `/user/keys/${aliceKey.id}`, alice.token), 200, aliceKey);
  });

  it('lets root act as the user with sudo', async () => {
    expectStatus(await call('get', '/user/keys', ROOT_TOKEN).set('SUDO', alice.username), 200, [aliceKey]);
    expectStatus(await call('get', `/user/keys/${aliceKey.id}`, ROOT_TOKEN).query({ sudo: alice.id }), 200, aliceKey);
    expectStatus(await call('get', `/user/keys/${aliceKey.id}`, ROOT_TOKEN), 404, KEY_NOT_FOUND);
  });

  it('paginates with per_page and sets the pagination headers', async () => {
    const carol = await createUser(t.hosting);
    const ids: number[] = [];
    for (const title of ['one', 'two', 'three']) {
      ids.push((await call('post', '/user/keys', carol.token).send({ title, key: sshKey() }).expect(201)).body.id);
    }
    const page2 = await call('get', '/user/keys?per_page=1&page=2', carol.token);
    expectStatus(page2, 200);
    expect(page2.body.map((key: { id: number; title: string }) => [key.id, key.title])).toEqual([[ids[1], 'two']]);
    expectMiddlePage(page2, '/user/keys');
    const page1 = await call('get', '/user/keys?per_page=1', carol.token);
    expect(page1.body.map((key: { id: number }) => key.id)).toEqual([ids[0]]);
    expectFirstPage(page1);
    const all = await call('get', '/user/keys', carol.token);
    expect(all.headers['x-total']).toBe('3');
    expect(all.headers['x-per-page']).toBe('20');
    expect(all.body.map((key: { id: number }) => key.id)).toEqual(ids);
  });

  it('deletes a key: 204 without a body, then 404, and the key may be added again', async () => {
    const res = await call('delete', `/user/keys/${aliceKey.id}`, alice.token);
    expectStatus(res, 204);
    expect(res.text).toBe('');
    expectStatus(await call('get', `/user/keys/${aliceKey.id}`, alice.token), 404, KEY_NOT_FOUND);
    expectStatus(await call('delete', `/user/keys/${aliceKey.id}`, alice.token), 404, KEY_NOT_FOUND);
    expectStatus(await call('get', '/user/keys', alice.token), 200, []);
    const again = await call('post', '/user/keys', bob.token).send({ title: 'reused', key: aliceKey.key });
    expectStatus(again, 201);
    expect(again.body.id).not.toBe(aliceKey.id);
  });
});

describe('SSH keys over HTTP: /users/:id/keys (administrators)', () => {
  let user: TestUser;
  let other: TestUser;
  let adminKey: { id: number; title: string; key: string; created_at: string };

  beforeAll(async () => {
    user = await createUser(t.hosting);
    other = await createUser(t.hosting);
  });

  it('adds a key to a user: 201, and the user sees it as theirs', async () => {
    const key = sshKey('rsa2048');
    const res = await call('post', `/users/${user.id}/keys`, ROOT_TOKEN).send({ title: 'by admin', key });
    expectStatus(res, 201);
    expect(res.body).toEqual({ id: expect.any(Number), title: 'by admin', key, created_at: recent() });
    adminKey = res.body;
    expectStatus(await call('get', '/user/keys', user.token), 200, [adminKey]);
    expectStatus(await call('get', '/user/keys', ROOT_TOKEN), 200, []);
  });

  it("lists a user's keys", async () => {
    expectStatus(await call('get', `/users/${user.id}/keys`, ROOT_TOKEN), 200, [adminKey]);
    expectStatus(await call('get', `/users/${other.id}/keys`, ROOT_TOKEN), 200, []);
  });

  it('validates like the user call', async () => {
    expectStatus(await call('post', `/users/${user.id}/keys`, ROOT_TOKEN).send({ key: sshKey() }), 400, {
      message: '400 (Bad request) "title" not given',
    });
    expectStatus(await call('post', `/users/${other.id}/keys`, ROOT_TOKEN).send({ title: 'dup', key: adminKey.key }), 400, {
      message: { key: ['has already been taken'], fingerprint: ['has already been taken'] },
    });
    expectStatus(await call('post', `/users/${other.id}/keys`, ROOT_TOKEN).send({ title: 'bad', key: 'ssh-ed25519 nonsense' }), 400, {
      message: { key: ['is invalid'], fingerprint: ['cannot be generated'] },
    });
    expectStatus(await call('get', `/users/${other.id}/keys`, ROOT_TOKEN), 200, []);
  });

  it('answers 404 User Not Found for an unknown user', async () => {
    expectStatus(await call('get', `/users/${MISSING_USER_ID}/keys`, ROOT_TOKEN), 404, USER_NOT_FOUND);
    expectStatus(await call('post', `/users/${MISSING_USER_ID}/keys`, ROOT_TOKEN).send({ title: 'x', key: sshKey() }), 404, USER_NOT_FOUND);
    expectStatus(await call('delete', `/users/${MISSING_USER_ID}/keys/${adminKey.id}`, ROOT_TOKEN), 404, USER_NOT_FOUND);
  });

  it("answers 404 Key Not Found for a missing key or another user's key", async () => {
    expectStatus(await call('delete', `/users/${user.id}/keys/999999`, ROOT_TOKEN), 404, KEY_NOT_FOUND);
    expectStatus(await call('delete', `/users/${other.id}/keys/${adminKey.id}`, ROOT_TOKEN), 404, KEY_NOT_FOUND);
    expectStatus(await call('get', `/users/${user.id}/keys`, ROOT_TOKEN), 200, [adminKey]);
  });

  it('answers 403 to a normal user, even on their own id, and 401 without authentication', async () => {
    for (const [verb, path] of [
      ['get', `/users/${user.id}/keys`],
      ['post', `/users/${user.id}/keys`],
      ['delete', `/users/${user.id}/keys/${adminKey.id}`],
    ] as const) {
      const body = verb === 'post' ? { title: 'x', key: sshKey() } : undefined;
      expectStatus(await call(verb, path, user.token).send(body), 403, FORBIDDEN);
      expectStatus(await call(verb, path, other.token).send(body), 403, FORBIDDEN);
      expectStatus(await call(verb, path).send(body), 401, UNAUTHORIZED);
    }
    expectStatus(await call('get', '/user/keys', user.token), 200, [adminKey]);
  });

  it('paginates', async () => {
    for (const title of ['b', 'c']) await call('post', `/users/${user.id}/keys`, ROOT_TOKEN).send({ title, key: sshKey() }).expect(201);
    const res = await call('get', `/users/${user.id}/keys?per_page=1&page=2`, ROOT_TOKEN);
    expectStatus(res, 200);
    expect(res.body.map((key: { title: string }) => key.title)).toEqual(['b']);
    expectMiddlePage(res, `/users/${user.id}/keys`);
  });

  it("deletes a user's key: 204", async () => {
    const res = await call('delete', `/users/${user.id}/keys/${adminKey.id}`, ROOT_TOKEN);
    expectStatus(res, 204);
    expect(res.text).toBe('');
    expectStatus(await call('get', `/user/keys/${adminKey.id}`, user.token), 404, KEY_NOT_FOUND);
    expect((await call('get', `/users/${user.id}/keys`, ROOT_TOKEN)).body.map((key: { title: string }) => key.title)).toEqual(['b', 'c']);
  });
});

describe('SSH keys in process', () => {
  let user: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    user = await createUser(t.hosting);
    other = await createUser(t.hosting);
  });

  it("adds, lists, fetches and deletes the caller's keys, by id or by token", async () => {
    const key = sshKey('ecdsa');
    const created = await t.hosting.as(user.id).sshKeys.create({ title: 'in process', key });
    expect(created).toEqual({ id: expect.any(Number), title: 'in process', key, created_at: recent() });
    expect(await t.hosting.as(user.token).sshKeys.list()).toEqual([created]);
    expect(await t.hosting.as(user.username).sshKeys.get(created.id)).toEqual(created);
    await rejection(t.hosting.as(other.id).sshKeys.get(created.id), NotFoundError, 404, KEY_NOT_FOUND);
    await rejection(t.hosting.as(other.id).sshKeys.delete(created.id), NotFoundError, 404, KEY_NOT_FOUND);
    await expect(t.hosting.as(user.id).sshKeys.delete(created.id)).resolves.toBeUndefined();
    await rejection(t.hosting.as(user.id).sshKeys.get(created.id), NotFoundError, 404, KEY_NOT_FOUND);
    expect(await t.hosting.as(user.id).sshKeys.list()).toEqual([]);
  });

  it('raises the same 400 errors', async () => {
    const api = t.hosting.as(user.id);
    const key = sshKey();
    await rejection(api.sshKeys.create({ key } as never), BadRequestError, 400, { message: '400 (Bad request) "title" not given' });
    await rejection(api.sshKeys.create({ title: 'bad', key: 'garbage' }), BadRequestError, 400, {
      message: { key: ['is invalid'], fingerprint: ['cannot be generated'] },
    });
    await api.sshKeys.create({ title: 'first', key });
    await rejection(t.hosting.as(other.id).sshKeys.create({ title: 'second', key: recommented(key, 'x') }), BadRequestError, 400, {
      message: { key: ['has already been taken'], fingerprint: ['has already been taken'] },
    });
    expect(await t.hosting.as(other.id).sshKeys.list()).toEqual([]);
    expect((await api.sshKeys.list()).map((k) => k.title)).toEqual(['first']);
  });

  it('pages a list', async () => {
    const api = t.hosting.as(other.id);
    for (const title of ['p1', 'p2', 'p3']) await api.sshKeys.create({ title, key: sshKey() });
    expect((await api.sshKeys.list({ per_page: 1, page: 3 })).map((k) => k.title)).toEqual(['p3']);
    expect((await api.sshKeys.list({ per_page: 2 })).map((k) => k.title)).toEqual(['p1', 'p2']);
  });

  it("manages another user's keys as an administrator only", async () => {
    const key = sshKey('rsa1024');
    const created = await t.hosting.sshKeys.createForUser(user.id, { title: 'root added', key });
    expect(created).toEqual({ id: expect.any(Number), title: 'root added', key, created_at: recent() });
    expect((await t.hosting.sshKeys.listForUser(user.id)).map((k) => k.id)).toContain(created.id);
    expect(await t.hosting.as(user.id).sshKeys.get(created.id)).toEqual(created);

    await rejection(t.hosting.as(user.id).sshKeys.listForUser(user.id), ForbiddenError, 403, FORBIDDEN);
    await rejection(t.hosting.as(user.id).sshKeys.createForUser(user.id, { title: 'x', key: sshKey() }), ForbiddenError, 403, FORBIDDEN);
    await rejection(t.hosting.as(user.id).sshKeys.deleteForUser(user.id, created.id), ForbiddenError, 403, FORBIDDEN);
    await rejection(t.hosting.sshKeys.listForUser(MISSING_USER_ID), NotFoundError, 404, USER_NOT_FOUND);
    await rejection(t.hosting.sshKeys.createForUser(MISSING_USER_ID, { title: 'x', key: sshKey() }), NotFoundError, 404, USER_NOT_FOUND);
    await rejection(t.hosting.sshKeys.deleteForUser(MISSING_USER_ID, created.id), NotFoundError, 404, USER_NOT_FOUND);
    await rejection(t.hosting.sshKeys.deleteForUser(other.id, created.id), NotFoundError, 404, KEY_NOT_FOUND);

    await t.hosting.sshKeys.deleteForUser(user.id, created.id);
    expect((await t.hosting.sshKeys.listForUser(user.id)).map((k) => k.id)).not.toContain(created.id);
  });

  it('answers 401 to an anonymous caller', async () => {
    const anonymous = t.hosting.as(null);
    await rejection(anonymous.sshKeys.list(), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(anonymous.sshKeys.get(1), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(anonymous.sshKeys.create({ title: 'x', key: sshKey() }), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(anonymous.sshKeys.delete(1), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(anonymous.sshKeys.listForUser(user.id), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(anonymous.sshKeys.createForUser(user.id, { title: 'x', key: sshKey() }), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(anonymous.sshKeys.deleteForUser(user.id, 1), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(t.hosting.as('no-such-token').sshKeys.list(), UnauthorizedError, 401, UNAUTHORIZED);
  });
});

describe('SSH key restrictions from the application settings', () => {
  let user: TestUser;

  beforeAll(async () => {
    user = await createUser(t.hosting);
  });

  afterAll(async () => {
    await call('put', '/application/settings', ROOT_TOKEN)
      .send({ rsa_key_restriction: 0, dsa_key_restriction: 0, ecdsa_key_restriction: 0, ed25519_key_restriction: 0 })
      .expect(200);
  });

  it('rsa_key_restriction=2048 refuses a 1024-bit RSA key and admits a 2048-bit one', async () => {
    const settings = await call('put', '/application/settings', ROOT_TOKEN).type('form').send({ rsa_key_restriction: '2048' });
    expectStatus(settings, 200);
    expect(settings.body.rsa_key_restriction).toBe(2048);

    const tooShort = { message: { key: ['must be at least 2048 bits'] } };
    expectStatus(await call('post', '/user/keys', user.token).send({ title: 'short', key: sshKey('rsa1024') }), 400, tooShort);
    expectStatus(await call('post', `/users/${user.id}/keys`, ROOT_TOKEN).send({ title: 'short', key: sshKey('rsa1024') }), 400, tooShort);
    await rejection(t.hosting.as(user.id).sshKeys.create({ title: 'short', key: sshKey('rsa1024') }), BadRequestError, 400, tooShort);
    expectStatus(await call('get', '/user/keys', user.token), 200, []);

    const key = sshKey('rsa2048');
    expectStatus(await call('post', '/user/keys', user.token).send({ title: 'long', key }), 201);
    // Other key types are not affected.
    expectStatus(await call('post', '/user/keys', user.token).send({ title: 'ed', key: sshKey('ed25519') }), 201);
  });

  it('ecdsa_key_restriction=384 refuses a P-256 key', async () => {
    await t.hosting.applicationSettings.update({ ecdsa_key_restriction: 384 });
    expectStatus(await call('post', '/user/keys', user.token).send({ title: 'p256', key: sshKey('ecdsa') }), 400, {
      message: { key: ['must be at least 384 bits'] },
    });
  });

  it('ed25519_key_restriction=-1 forbids ed25519 keys, naming the types still allowed', async () => {
    const settings = await call('put', '/application/settings', ROOT_TOKEN).send({ ed25519_key_restriction: -1 });
    expectStatus(settings, 200);
    expect(settings.body.ed25519_key_restriction).toBe(-1);
    const forbidden = { message: { key: ['type is forbidden. Must be RSA, DSA, or ECDSA'] } };
    expectStatus(await call('post', '/user/keys', user.token).send({ title: 'ed', key: sshKey('ed25519') }), 400, forbidden);
    await rejection(t.hosting.sshKeys.createForUser(user.id, { title: 'ed', key: sshKey('ed25519') }), BadRequestError, 400, forbidden);

    await t.hosting.applicationSettings.update({ rsa_key_restriction: -1 });
    expectStatus(await call('post', '/user/keys', user.token).send({ title: 'ed', key: sshKey('ed25519') }), 400, {
      message: { key: ['type is forbidden. Must be DSA or ECDSA'] },
    });
    expectStatus(await call('post', '/user/keys', user.token).send({ title: 'rsa', key: sshKey('rsa2048') }), 400, {
      message: { key: ['type is forbidden. Must be DSA or ECDSA'] },
    });
    expect((await call('get', '/user/keys', user.token)).body.map((key: { title: string }) => key.title)).toEqual(['long', 'ed']);
  });

  it('lifting the restrictions admits the keys again', async () => {
    await t.hosting.applicationSettings.update({ rsa_key_restriction: 0, ecdsa_key_restriction: 0, ed25519_key_restriction: 0 });
    for (const kind of ['rsa1024', 'ed25519', 'ecdsa'] as const) {
      expectStatus(await call('post', '/user/keys', user.token).send({ title: kind, key: sshKey(kind) }), 201);
    }
  });
});

// ======================================================================================
// GPG keys
// ======================================================================================

describe('GPG keys over HTTP: /user/gpg_keys', () => {
  let alice: TestUser;
  let bob: TestUser;
  let aliceKey: { id: number; key: string; created_at: string };
  let bobKeyId: number;
  let pair: { publicKey: string; privateKey: string };

  beforeAll(async () => {
    alice = await createUser(t.hosting);
    bob = await createUser(t.hosting);
    pair = await gpgKeyPair();
  });

  it('starts with an empty list', async () => {
    expectStatus(await call('get', '/user/gpg_keys', alice.token), 200, []);
  });

  it('adds an armored public key: 201 with exactly id, key and created_at', async () => {
    const res = await call('post', '/user/gpg_keys', alice.token).send({ key: pair.publicKey });
    expectStatus(res, 201);
    expect(res.body).toEqual({ id: expect.any(Number), key: pair.publicKey.trim(), created_at: recent() });
    expectRecent(res.body.created_at);
    aliceKey = res.body;
    bobKeyId = (
      await call('post', '/user/gpg_keys', bob.token)
        .send({ key: (await gpgKeyPair('bob@example.com')).publicKey })
        .expect(201)
    ).body.id;
  });

  it('lists and fetches the key', async () => {
    expectStatus(await call('get', '/user/gpg_keys', alice.token), 200, [aliceKey]);
    expectStatus(await call('get', `/user/gpg_keys/${aliceKey.id}`, alice.token), 200, aliceKey);
  });

  it('answers 400 naming a missing key', async () => {
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({}), 400, { message: '400 (Bad request) "key" not given' });
  });

  it('answers 400 for a private key block, garbage, or a broken public block, and adds nothing', async () => {
    const formatError = { message: { key: [GPG_FORMAT_MESSAGE], fingerprint: ["can't be blank"] } };
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({ key: pair.privateKey }), 400, formatError);
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({ key: 'garbage' }), 400, formatError);
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({ key: '' }), 400, formatError);
    const broken = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nbm90IGEga2V5\n-----END PGP PUBLIC KEY BLOCK-----';
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({ key: broken }), 400, {
      message: { key: ['is invalid'], fingerprint: ["can't be blank"] },
    });
    // A secret key dressed in a public key block's armor would publish the secret.
    const disguised = pair.privateKey.replace(/PRIVATE KEY BLOCK/g, 'PUBLIC KEY BLOCK');
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({ key: disguised }), 400, formatError);
    // Two keys glued together are not one public key block.
    const other = (await gpgKeyPair()).publicKey;
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({ key: `${other}\n${other}` }), 400, formatError);
    expectStatus(await call('get', '/user/gpg_keys', alice.token), 200, [aliceKey]);
  });

  it('refuses a key already added, by anyone', async () => {
    const taken = { message: { fingerprint: ['has already been taken'] } };
    expectStatus(await call('post', '/user/gpg_keys', alice.token).send({ key: pair.publicKey }), 400, taken);
    expectStatus(await call('post', '/user/gpg_keys', bob.token).send({ key: pair.publicKey }), 400, taken);
    expectStatus(await call('get', '/user/gpg_keys', alice.token), 200, [aliceKey]);
    expect((await call('get', '/user/gpg_keys', bob.token)).body.map((key: { id: number }) => key.id)).toEqual([bobKeyId]);
  });

  it('accepts a version 6 key as well', async () => {
    const { publicKey } = await gpgKeyPair('v6@example.com', true);
    const res = await call('post', '/user/gpg_keys', bob.token).send({ key: publicKey });
    expectStatus(res, 201, { id: expect.any(Number), key: publicKey.trim(), created_at: recent() });
    expectStatus(await call('delete', `/user/gpg_keys/${res.body.id}`, bob.token), 204);
  });

  it("answers 404 for a missing key and for another user's key", async () => {
    expectStatus(await call('get', '/user/gpg_keys/999999', alice.token), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('get', `/user/gpg_keys/${bobKeyId}`, alice.token), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('delete', '/user/gpg_keys/999999', alice.token), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('delete', `/user/gpg_keys/${bobKeyId}`, alice.token), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('get', `/user/gpg_keys/${bobKeyId}`, bob.token), 200);
  });

  it('answers 401 without authentication', async () => {
    for (const [verb, path] of [
      ['get', '/user/gpg_keys'],
      ['get', `/user/gpg_keys/${aliceKey.id}`],
      ['post', '/user/gpg_keys'],
      ['delete', `/user/gpg_keys/${aliceKey.id}`],
    ] as const) {
      expectStatus(await call(verb, path), 401, UNAUTHORIZED);
      expectStatus(await call(verb, path, 'wrong-token'), 401, UNAUTHORIZED);
    }
  });

  it('paginates', async () => {
    const carol = await createUser(t.hosting);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await call('post', '/user/gpg_keys', carol.token)
            .send({ key: (await gpgKeyPair()).publicKey })
            .expect(201)
        ).body.id,
      );
    const res = await call('get', '/user/gpg_keys?per_page=1&page=2', carol.token);
    expectStatus(res, 200);
    expect(res.body.map((key: { id: number }) => key.id)).toEqual([ids[1]]);
    expectMiddlePage(res, '/user/gpg_keys');
    expectFirstPage(await call('get', '/user/gpg_keys?per_page=1', carol.token));
  });

  it('deletes a key: 204, then 404, and the key may be added again', async () => {
    const res = await call('delete', `/user/gpg_keys/${aliceKey.id}`, alice.token);
    expectStatus(res, 204);
    expect(res.text).toBe('');
    expectStatus(await call('get', `/user/gpg_keys/${aliceKey.id}`, alice.token), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('get', '/user/gpg_keys', alice.token), 200, []);
    expectStatus(await call('post', '/user/gpg_keys', bob.token).send({ key: pair.publicKey }), 201);
  });
});

describe('GPG keys over HTTP: /users/:id/gpg_keys (administrators)', () => {
  let user: TestUser;
  let other: TestUser;
  let viaKey: { id: number; key: string; created_at: string };
  let viaKeyId: { id: number; key: string; created_at: string };

  beforeAll(async () => {
    user = await createUser(t.hosting);
    other = await createUser(t.hosting);
  });

  it('adds a key sent as `key`', async () => {
    const { publicKey } = await gpgKeyPair();
    const res = await call('post', `/users/${user.id}/gpg_keys`, ROOT_TOKEN).send({ key: publicKey });
    expectStatus(res, 201);
    expect(res.body).toEqual({ id: expect.any(Number), key: publicKey.trim(), created_at: recent() });
    viaKey = res.body;
  });

  it('adds a key sent as `key_id`, the spelling of the reference', async () => {
    const { publicKey } = await gpgKeyPair();
    const res = await call('post', `/users/${user.id}/gpg_keys`, ROOT_TOKEN).type('form').send({ key_id: publicKey });
    expectStatus(res, 201);
    expect(res.body).toEqual({ id: expect.any(Number), key: publicKey.trim(), created_at: recent() });
    viaKeyId = res.body;
  });

  it("lists and fetches a user's keys; the user sees them as theirs", async () => {
    expectStatus(await call('get', `/users/${user.id}/gpg_keys`, ROOT_TOKEN), 200, [viaKey, viaKeyId]);
    expectStatus(await call('get', `/users/${user.id}/gpg_keys/${viaKeyId.id}`, ROOT_TOKEN), 200, viaKeyId);
    expectStatus(await call('get', '/user/gpg_keys', user.token), 200, [viaKey, viaKeyId]);
    expectStatus(await call('get', `/users/${other.id}/gpg_keys`, ROOT_TOKEN), 200, []);
  });

  it('validates like the user call', async () => {
    expectStatus(await call('post', `/users/${other.id}/gpg_keys`, ROOT_TOKEN).send({}), 400, {
      message: '400 (Bad request) "key" not given',
    });
    expectStatus(await call('post', `/users/${other.id}/gpg_keys`, ROOT_TOKEN).send({ key_id: viaKey.key }), 400, {
      message: { fingerprint: ['has already been taken'] },
    });
    expectStatus(await call('post', `/users/${other.id}/gpg_keys`, ROOT_TOKEN).send({ key: 'garbage' }), 400, {
      message: { key: [GPG_FORMAT_MESSAGE], fingerprint: ["can't be blank"] },
    });
    expectStatus(await call('get', `/users/${other.id}/gpg_keys`, ROOT_TOKEN), 200, []);
  });

  it("answers 404 for an unknown user, a missing key and another user's key", async () => {
    expectStatus(await call('get', `/users/${MISSING_USER_ID}/gpg_keys`, ROOT_TOKEN), 404, USER_NOT_FOUND);
    expectStatus(await call('get', `/users/${MISSING_USER_ID}/gpg_keys/${viaKey.id}`, ROOT_TOKEN), 404, USER_NOT_FOUND);
    expectStatus(
      await call('post', `/users/${MISSING_USER_ID}/gpg_keys`, ROOT_TOKEN).send({ key: (await gpgKeyPair()).publicKey }),
      404,
      USER_NOT_FOUND,
    );
    expectStatus(await call('delete', `/users/${MISSING_USER_ID}/gpg_keys/${viaKey.id}`, ROOT_TOKEN), 404, USER_NOT_FOUND);
    expectStatus(await call('get', `/users/${user.id}/gpg_keys/999999`, ROOT_TOKEN), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('get', `/users/${other.id}/gpg_keys/${viaKey.id}`, ROOT_TOKEN), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('delete', `/users/${other.id}/gpg_keys/${viaKey.id}`, ROOT_TOKEN), 404, GPG_KEY_NOT_FOUND);
  });

  it('answers 403 to a normal user and 401 without authentication', async () => {
    for (const [verb, path] of [
      ['get', `/users/${user.id}/gpg_keys`],
      ['get', `/users/${user.id}/gpg_keys/${viaKey.id}`],
      ['post', `/users/${user.id}/gpg_keys`],
      ['delete', `/users/${user.id}/gpg_keys/${viaKey.id}`],
    ] as const) {
      expectStatus(await call(verb, path, user.token), 403, FORBIDDEN);
      expectStatus(await call(verb, path, other.token), 403, FORBIDDEN);
      expectStatus(await call(verb, path), 401, UNAUTHORIZED);
    }
    expectStatus(await call('get', `/users/${user.id}/gpg_keys/${viaKey.id}`, ROOT_TOKEN), 200, viaKey);
  });

  it('paginates', async () => {
    await call('post', `/users/${user.id}/gpg_keys`, ROOT_TOKEN)
      .send({ key: (await gpgKeyPair()).publicKey })
      .expect(201);
    const res = await call('get', `/users/${user.id}/gpg_keys?per_page=1&page=2`, ROOT_TOKEN);
    expectStatus(res, 200, [viaKeyId]);
    expectMiddlePage(res, `/users/${user.id}/gpg_keys`);
  });

  it("deletes a user's key: 204", async () => {
    const res = await call('delete', `/users/${user.id}/gpg_keys/${viaKey.id}`, ROOT_TOKEN);
    expectStatus(res, 204);
    expect(res.text).toBe('');
    expectStatus(await call('get', `/users/${user.id}/gpg_keys/${viaKey.id}`, ROOT_TOKEN), 404, GPG_KEY_NOT_FOUND);
    expectStatus(await call('get', `/user/gpg_keys/${viaKey.id}`, user.token), 404, GPG_KEY_NOT_FOUND);
  });
});

describe('GPG keys in process', () => {
  let user: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    user = await createUser(t.hosting);
    other = await createUser(t.hosting);
  });

  it("adds, lists, fetches and deletes the caller's keys", async () => {
    const { publicKey } = await gpgKeyPair();
    const api = t.hosting.as(user.token);
    const created = await api.gpgKeys.create({ key: publicKey });
    expect(created).toEqual({ id: expect.any(Number), key: publicKey.trim(), created_at: recent() });
    expect(await api.gpgKeys.list()).toEqual([created]);
    expect(await api.gpgKeys.get(created.id)).toEqual(created);
    await rejection(t.hosting.as(other.id).gpgKeys.get(created.id), NotFoundError, 404, GPG_KEY_NOT_FOUND);
    await rejection(t.hosting.as(other.id).gpgKeys.delete(created.id), NotFoundError, 404, GPG_KEY_NOT_FOUND);
    await api.gpgKeys.delete(created.id);
    await rejection(api.gpgKeys.get(created.id), NotFoundError, 404, GPG_KEY_NOT_FOUND);
    expect(await api.gpgKeys.list()).toEqual([]);
  });

  it('raises the same 400 errors', async () => {
    const api = t.hosting.as(user.id);
    const { publicKey, privateKey } = await gpgKeyPair();
    await rejection(api.gpgKeys.create({}), BadRequestError, 400, { message: '400 (Bad request) "key" not given' });
    await rejection(api.gpgKeys.create({ key: privateKey }), BadRequestError, 400, {
      message: { key: [GPG_FORMAT_MESSAGE], fingerprint: ["can't be blank"] },
    });
    await api.gpgKeys.create({ key: publicKey });
    await rejection(t.hosting.as(other.id).gpgKeys.create({ key: publicKey }), BadRequestError, 400, {
      message: { fingerprint: ['has already been taken'] },
    });
    expect(await t.hosting.as(other.id).gpgKeys.list()).toEqual([]);
  });

  it('answers 400 to a key past a million characters, and to a huge block, without overflowing the stack', async () => {
    const block = (length: number) => `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${'A'.repeat(length)}\n-----END PGP PUBLIC KEY BLOCK-----`;
    const tooLong = ['is too long (maximum is 1000000 characters)'];
    const huge = block(3_000_000);
    const api = t.hosting.as(user.id);
    const before = await api.gpgKeys.list();
    await rejection(api.gpgKeys.create({ key: huge }), BadRequestError, 400, { message: { key: tooLong } });
    await rejection(t.hosting.gpgKeys.createForUser(user.id, { key_id: huge }), BadRequestError, 400, { message: { key_id: tooLong } });
    // Over HTTP the body itself is past the route's limit (2 MB): 413 before it is read.
    expectStatus(await call('post', '/user/gpg_keys', user.token).send({ key: huge }), 413, { message: '413 Payload Too Large' });
    expectStatus(await call('post', '/user/gpg_keys', user.token).send({ key: block(1_100_000) }), 400, { message: { key: tooLong } });
    // Within the bound, the format check reads it without a regular expression that recurses per character.
    const largest = block(1_000_000 - block(0).length);
    expect(largest.length).toBe(1_000_000);
    await rejection(api.gpgKeys.create({ key: largest }), BadRequestError, 400, {
      message: { key: ['is invalid'], fingerprint: ["can't be blank"] },
    });
    expect(await api.gpgKeys.list()).toEqual(before);
  });

  it("manages another user's keys as an administrator only, with `key` or `key_id`", async () => {
    const viaKey = await t.hosting.gpgKeys.createForUser(other.id, { key: (await gpgKeyPair()).publicKey });
    const viaKeyId = await t.hosting.gpgKeys.createForUser(other.id, { key_id: (await gpgKeyPair()).publicKey });
    expect(await t.hosting.gpgKeys.listForUser(other.id)).toEqual([viaKey, viaKeyId]);
    expect(await t.hosting.gpgKeys.getForUser(other.id, viaKeyId.id)).toEqual(viaKeyId);
    expect((await t.hosting.gpgKeys.listForUser(other.id, { per_page: 1, page: 2 })).map((k) => k.id)).toEqual([viaKeyId.id]);

    const normal = t.hosting.as(other.id);
    await rejection(normal.gpgKeys.listForUser(other.id), ForbiddenError, 403, FORBIDDEN);
    await rejection(normal.gpgKeys.getForUser(other.id, viaKey.id), ForbiddenError, 403, FORBIDDEN);
    await rejection(normal.gpgKeys.createForUser(other.id, { key: 'x' }), ForbiddenError, 403, FORBIDDEN);
    await rejection(normal.gpgKeys.deleteForUser(other.id, viaKey.id), ForbiddenError, 403, FORBIDDEN);
    await rejection(t.hosting.as(null).gpgKeys.listForUser(other.id), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(t.hosting.as(null).gpgKeys.list(), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(t.hosting.as(null).gpgKeys.create({ key: 'x' }), UnauthorizedError, 401, UNAUTHORIZED);

    await rejection(t.hosting.gpgKeys.getForUser(MISSING_USER_ID, viaKey.id), NotFoundError, 404, USER_NOT_FOUND);
    await rejection(t.hosting.gpgKeys.getForUser(user.id, viaKey.id), NotFoundError, 404, GPG_KEY_NOT_FOUND);
    await rejection(t.hosting.gpgKeys.deleteForUser(user.id, viaKey.id), NotFoundError, 404, GPG_KEY_NOT_FOUND);

    await t.hosting.gpgKeys.deleteForUser(other.id, viaKey.id);
    expect(await t.hosting.gpgKeys.listForUser(other.id)).toEqual([viaKeyId]);
  });
});

// ======================================================================================
// E-mail addresses
// ======================================================================================

describe('E-mail addresses over HTTP: /user/emails', () => {
  let alice: TestUser;
  let bob: TestUser;
  let aliceEmail: { id: number; email: string };
  let bobEmailId: number;

  beforeAll(async () => {
    alice = await createUser(t.hosting);
    bob = await createUser(t.hosting);
  });

  it('starts with an empty list: the primary address is not a secondary one', async () => {
    expectStatus(await call('get', '/user/emails', alice.token), 200, []);
  });

  it('adds an address: 201 with exactly id and email', async () => {
    const res = await call('post', '/user/emails', alice.token).send({ email: `${alice.username}-second@example.com` });
    expectStatus(res, 201, { id: expect.any(Number), email: `${alice.username}-second@example.com` });
    aliceEmail = res.body;
    bobEmailId = (
      await call('post', '/user/emails', bob.token)
        .type('form')
        .send({ email: `${bob.username}-second@example.com` })
        .expect(201)
    ).body.id;
  });

  it('stores an address trimmed and in lower case', async () => {
    const res = await call('post', '/user/emails', bob.token).send({ email: `  ${bob.username.toUpperCase()}-Third@Example.COM ` });
    expectStatus(res, 201, { id: expect.any(Number), email: `${bob.username}-third@example.com` });
  });

  it('lists and fetches the address', async () => {
    expectStatus(await call('get', '/user/emails', alice.token), 200, [aliceEmail]);
    expectStatus(await call('get', `/user/emails/${aliceEmail.id}`, alice.token), 200, aliceEmail);
  });

  it('answers 400 naming a missing or invalid address', async () => {
    expectStatus(await call('post', '/user/emails', alice.token).send({}), 400, { message: '400 (Bad request) "email" not given' });
    expectStatus(await call('post', '/user/emails', alice.token).send({ email: 'no-at-sign' }), 400, {
      message: { email: ['is invalid'] },
    });
    expectStatus(await call('post', '/user/emails', alice.token).send({ email: ' ' }), 400, { message: { email: ["can't be blank"] } });
    expectStatus(await call('get', '/user/emails', alice.token), 200, [aliceEmail]);
  });

  it("refuses an address that is taken: a secondary or primary one, the caller's own or another user's, in any case", async () => {
    const taken = { message: { email: ['has already been taken'] } };
    for (const email of [
      aliceEmail.email,
      aliceEmail.email.toUpperCase(),
      alice.email,
      bob.email,
      bob.email.toUpperCase(),
      `${bob.username}-second@example.com`,
    ]) {
      expectStatus(await call('post', '/user/emails', alice.token).send({ email }), 400, taken);
    }
    expectStatus(await call('post', '/user/emails', bob.token).send({ email: aliceEmail.email }), 400, taken);
    expectStatus(await call('post', '/user/emails', bob.token).send({ email: alice.email }), 400, taken);
    expectStatus(await call('get', '/user/emails', alice.token), 200, [aliceEmail]);
    expect((await call('get', '/user/emails', bob.token)).body).toHaveLength(2);
  });

  it("answers 404 for a missing address and for another user's address", async () => {
    expectStatus(await call('get', '/user/emails/999999', alice.token), 404, EMAIL_NOT_FOUND);
    expectStatus(await call('get', `/user/emails/${bobEmailId}`, alice.token), 404, EMAIL_NOT_FOUND);
    expectStatus(await call('delete', '/user/emails/999999', alice.token), 404, EMAIL_NOT_FOUND);
    expectStatus(await call('delete', `/user/emails/${bobEmailId}`, alice.token), 404, EMAIL_NOT_FOUND);
    expectStatus(await call('get', `/user/emails/${bobEmailId}`, bob.token), 200);
  });

  it('answers 401 without authentication', async () => {
    for (const [verb, path] of [
      ['get', '/user/emails'],
      ['get', `/user/emails/${aliceEmail.id}`],
      ['post', '/user/emails'],
      ['delete', `/user/emails/${aliceEmail.id}`],
    ] as const) {
      expectStatus(await call(verb, path).send(verb === 'post' ? { email: 'anonymous@example.com' } : undefined), 401, UNAUTHORIZED);
      expectStatus(await call(verb, path, 'wrong-token'), 401, UNAUTHORIZED);
    }
  });

  it('paginates', async () => {
    const carol = await createUser(t.hosting);
    const addresses = ['a', 'b', 'c'].map((letter) => `${carol.username}-${letter}@example.com`);
    for (const email of addresses) await call('post', '/user/emails', carol.token).send({ email }).expect(201);
    const res = await call('get', '/user/emails?per_page=1&page=2', carol.token);
    expectStatus(res, 200);
    expect(res.body.map((email: { email: string }) => email.email)).toEqual([addresses[1]]);
    expectMiddlePage(res, '/user/emails');
    expectFirstPage(await call('get', '/user/emails?per_page=1', carol.token));
  });

  it('deletes an address: 204, then 404, and the address is free again', async () => {
    const res = await call('delete', `/user/emails/${aliceEmail.id}`, alice.token);
    expectStatus(res, 204);
    expect(res.text).toBe('');
    expectStatus(await call('get', `/user/emails/${aliceEmail.id}`, alice.token), 404, EMAIL_NOT_FOUND);
    expectStatus(await call('get', '/user/emails', alice.token), 200, []);
    expectStatus(await call('post', '/user/emails', bob.token).send({ email: aliceEmail.email }), 201, {
      id: expect.any(Number),
      email: aliceEmail.email,
    });
  });
});

describe('E-mail addresses over HTTP: /users/:id/emails (administrators)', () => {
  let user: TestUser;
  let other: TestUser;
  let added: { id: number; email: string };

  beforeAll(async () => {
    user = await createUser(t.hosting);
    other = await createUser(t.hosting);
  });

  it('adds an address to a user: 201, and the user sees it as theirs', async () => {
    const email = `${user.username}-admin@example.com`;
    const res = await call('post', `/users/${user.id}/emails`, ROOT_TOKEN).send({ email });
    expectStatus(res, 201, { id: expect.any(Number), email });
    added = res.body;
    expectStatus(await call('get', '/user/emails', user.token), 200, [added]);
    expectStatus(await call('get', `/user/emails/${added.id}`, user.token), 200, added);
  });

  it("lists a user's addresses", async () => {
    expectStatus(await call('get', `/users/${user.id}/emails`, ROOT_TOKEN), 200, [added]);
    expectStatus(await call('get', `/users/${other.id}/emails`, ROOT_TOKEN), 200, []);
  });

  it("validates like the user call, including another user's primary address", async () => {
    const taken = { message: { email: ['has already been taken'] } };
    expectStatus(await call('post', `/users/${other.id}/emails`, ROOT_TOKEN).send({}), 400, {
      message: '400 (Bad request) "email" not given',
    });
    expectStatus(await call('post', `/users/${other.id}/emails`, ROOT_TOKEN).send({ email: added.email }), 400, taken);
    expectStatus(await call('post', `/users/${other.id}/emails`, ROOT_TOKEN).send({ email: user.email }), 400, taken);
    expectStatus(await call('post', `/users/${other.id}/emails`, ROOT_TOKEN).send({ email: 'admin@example.com' }), 400, taken);
    expectStatus(await call('post', `/users/${other.id}/emails`, ROOT_TOKEN).send({ email: 'bad' }), 400, {
      message: { email: ['is invalid'] },
    });
    expectStatus(await call('get', `/users/${other.id}/emails`, ROOT_TOKEN), 200, []);
  });

  it("answers 404 for an unknown user, a missing address and another user's address", async () => {
    expectStatus(await call('get', `/users/${MISSING_USER_ID}/emails`, ROOT_TOKEN), 404, USER_NOT_FOUND);
    expectStatus(
      await call('post', `/users/${MISSING_USER_ID}/emails`, ROOT_TOKEN).send({ email: 'nobody-here@example.com' }),
      404,
      USER_NOT_FOUND,
    );
    expectStatus(await call('delete', `/users/${MISSING_USER_ID}/emails/${added.id}`, ROOT_TOKEN), 404, USER_NOT_FOUND);
    expectStatus(await call('delete', `/users/${user.id}/emails/999999`, ROOT_TOKEN), 404, EMAIL_NOT_FOUND);
    expectStatus(await call('delete', `/users/${other.id}/emails/${added.id}`, ROOT_TOKEN), 404, EMAIL_NOT_FOUND);
    expectStatus(await call('get', '/user/emails/999999', ROOT_TOKEN), 404, EMAIL_NOT_FOUND);
  });

  it('answers 403 to a normal user and 401 without authentication', async () => {
    for (const [verb, path] of [
      ['get', `/users/${user.id}/emails`],
      ['post', `/users/${user.id}/emails`],
      ['delete', `/users/${user.id}/emails/${added.id}`],
    ] as const) {
      const body = verb === 'post' ? { email: 'sneaky@example.com' } : undefined;
      expectStatus(await call(verb, path, user.token).send(body), 403, FORBIDDEN);
      expectStatus(await call(verb, path, other.token).send(body), 403, FORBIDDEN);
      expectStatus(await call(verb, path).send(body), 401, UNAUTHORIZED);
    }
    expectStatus(await call('get', '/user/emails', user.token), 200, [added]);
  });

  it('paginates', async () => {
    for (const letter of ['b', 'c'])
      await call('post', `/users/${user.id}/emails`, ROOT_TOKEN)
        .send({ email: `${user.username}-${letter}@example.com` })
        .expect(201);
    const res = await call('get', `/users/${user.id}/emails?per_page=1&page=2`, ROOT_TOKEN);
    expectStatus(res, 200, [{ id: expect.any(Number), email: `${user.username}-b@example.com` }]);
    expectMiddlePage(res, `/users/${user.id}/emails`);
  });

  it("deletes a user's address: 204", async () => {
    const res = await call('delete', `/users/${user.id}/emails/${added.id}`, ROOT_TOKEN);
    expectStatus(res, 204);
    expect(res.text).toBe('');
    expectStatus(await call('get', `/user/emails/${added.id}`, user.token), 404, EMAIL_NOT_FOUND);
    expect((await call('get', `/users/${user.id}/emails`, ROOT_TOKEN)).body.map((email: { email: string }) => email.email)).toEqual([
      `${user.username}-b@example.com`,
      `${user.username}-c@example.com`,
    ]);
  });
});

describe('E-mail addresses in process', () => {
  let user: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    user = await createUser(t.hosting);
    other = await createUser(t.hosting);
  });

  it("adds, lists, fetches and deletes the caller's addresses", async () => {
    const api = t.hosting.as(user.token);
    const created = await api.emails.create({ email: `${user.username}-ip@example.com` });
    expect(created).toEqual({ id: expect.any(Number), email: `${user.username}-ip@example.com` });
    expect(await api.emails.list()).toEqual([created]);
    expect(await api.emails.get(created.id)).toEqual(created);
    await rejection(t.hosting.as(other.id).emails.get(created.id), NotFoundError, 404, EMAIL_NOT_FOUND);
    await rejection(t.hosting.as(other.id).emails.delete(created.id), NotFoundError, 404, EMAIL_NOT_FOUND);
    await api.emails.delete(created.id);
    await rejection(api.emails.get(created.id), NotFoundError, 404, EMAIL_NOT_FOUND);
    expect(await api.emails.list()).toEqual([]);
  });

  it('raises the same 400 errors', async () => {
    const api = t.hosting.as(user.id);
    const taken = { message: { email: ['has already been taken'] } };
    await rejection(api.emails.create({} as never), BadRequestError, 400, { message: '400 (Bad request) "email" not given' });
    await rejection(api.emails.create({ email: other.email }), BadRequestError, 400, taken);
    await rejection(api.emails.create({ email: user.email.toUpperCase() }), BadRequestError, 400, taken);
    await api.emails.create({ email: `${user.username}-x@example.com` });
    await rejection(t.hosting.as(other.id).emails.create({ email: `${user.username}-x@example.com` }), BadRequestError, 400, taken);
    expect(await t.hosting.as(other.id).emails.list()).toEqual([]);
    expect((await api.emails.list()).map((e) => e.email)).toEqual([`${user.username}-x@example.com`]);
  });

  it("manages another user's addresses as an administrator only", async () => {
    const created = await t.hosting.emails.createForUser(other.id, { email: `${other.username}-root@example.com` });
    expect(created).toEqual({ id: expect.any(Number), email: `${other.username}-root@example.com` });
    expect(await t.hosting.emails.listForUser(other.id)).toEqual([created]);
    expect(await t.hosting.emails.listForUser(other.id, { per_page: 1, page: 2 })).toEqual([]);

    const normal = t.hosting.as(other.id);
    await rejection(normal.emails.listForUser(other.id), ForbiddenError, 403, FORBIDDEN);
    await rejection(normal.emails.createForUser(other.id, { email: 'x@example.com' }), ForbiddenError, 403, FORBIDDEN);
    await rejection(normal.emails.deleteForUser(other.id, created.id), ForbiddenError, 403, FORBIDDEN);
    await rejection(t.hosting.as(null).emails.list(), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(t.hosting.as(null).emails.createForUser(other.id, { email: 'x@example.com' }), UnauthorizedError, 401, UNAUTHORIZED);
    await rejection(t.hosting.emails.listForUser(MISSING_USER_ID), NotFoundError, 404, USER_NOT_FOUND);
    await rejection(t.hosting.emails.deleteForUser(MISSING_USER_ID, created.id), NotFoundError, 404, USER_NOT_FOUND);
    await rejection(t.hosting.emails.deleteForUser(user.id, created.id), NotFoundError, 404, EMAIL_NOT_FOUND);

    await t.hosting.emails.deleteForUser(other.id, created.id);
    expect(await t.hosting.emails.listForUser(other.id)).toEqual([]);
  });
});
