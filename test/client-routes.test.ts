/** Routes that today's clients of the original service call for resources the specification already has. */
import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/index.js';
import { createUser, ROOT_PASSWORD, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let alice: Awaited<ReturnType<typeof createUser>>;
let bob: Awaited<ReturnType<typeof createUser>>;

const sshKey = () =>
  sshpk.parseKey(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string, 'pem').toString('ssh');

beforeAll(async () => {
  t = await sharedHosting();
  alice = await createUser(t.hosting);
  bob = await createUser(t.hosting);
});
afterAll(() => t.close());

describe('GET /users/:id/keys/:key_id and /users/:id/emails/:email_id', () => {
  it("answer one of a user's keys or addresses to administrators, 404 for another user's, 403 to others", async () => {
    const key = await t.hosting.sshKeys.createForUser(alice.id, { title: 'laptop', key: sshKey() });
    const email = await t.hosting.emails.createForUser(alice.id, { email: 'alice-second@example.com' });
    const keyRes = await t.http.get(`/api/v4/users/${alice.id}/keys/${key.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([keyRes.status, keyRes.body]).toEqual([200, key]);
    const emailRes = await t.http.get(`/api/v4/users/${alice.id}/emails/${email.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([emailRes.status, emailRes.body]).toEqual([200, { id: email.id, email: 'alice-second@example.com' }]);
    expect(await t.hosting.sshKeys.getForUser(alice.id, key.id)).toEqual(key);
    expect(await t.hosting.emails.getForUser(alice.id, email.id)).toEqual(email);

    const wrongUser = await t.http.get(`/api/v4/users/${bob.id}/keys/${key.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([wrongUser.status, wrongUser.body]).toEqual([404, { message: '404 Key Not Found' }]);
    const wrongEmail = await t.http.get(`/api/v4/users/${bob.id}/emails/${email.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([wrongEmail.status, wrongEmail.body]).toEqual([404, { message: '404 Email Not Found' }]);
    const forbidden = await t.http.get(`/api/v4/users/${alice.id}/keys/${key.id}`).set('PRIVATE-TOKEN', bob.token);
    expect([forbidden.status, forbidden.body]).toEqual([403, { message: '403 Forbidden' }]);
  });
});

describe('GET /users/:id/keys', () => {
  it('takes the user by username too', async () => {
    const key = await t.hosting.sshKeys.createForUser(bob.id, { title: 'by name', key: sshKey() });
    const res = await t.http.get(`/api/v4/users/${bob.username.toUpperCase()}/keys`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([res.status, res.body]).toEqual([200, [key]]);
    expect(await t.hosting.sshKeys.listForUser(bob.username)).toEqual([key]);
    const unknown = await t.http.get('/api/v4/users/nobody-here/keys').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([unknown.status, unknown.body]).toEqual([404, { message: '404 User Not Found' }]);
  });
});

describe('token scopes for repositories and registries', () => {
  it('are accepted and admit no API route', async () => {
    const created = await t.hosting.personalAccessTokens.create(alice.id, {
      name: 'git',
      scopes: ['read_repository', 'write_repository', 'read_registry', 'write_registry'],
    });
    expect(created.scopes).toEqual(['read_repository', 'write_repository', 'read_registry', 'write_registry']);
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', created.token);
    expect([res.status, res.body.error]).toEqual([403, 'insufficient_scope']);
  });
});

describe('GET /personal_access_tokens/:id and /personal_access_tokens/self', () => {
  it("answer the caller's own token, anyone's to an administrator, 404 otherwise", async () => {
    const created = await t.hosting.personalAccessTokens.create(alice.id, { name: 'ci', scopes: ['read_api'], expires_at: '2099-01-31' });
    const { token: _token, ...shape } = created;
    const own = await t.http.get(`/api/v4/personal_access_tokens/${created.id}`).set('PRIVATE-TOKEN', alice.token);
    expect([own.status, own.body]).toEqual([200, shape]);
    const byAdmin = await t.http.get(`/api/v4/personal_access_tokens/${created.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(byAdmin.body).toEqual(shape);
    const other = await t.http.get(`/api/v4/personal_access_tokens/${created.id}`).set('PRIVATE-TOKEN', bob.token);
    expect([other.status, other.body]).toEqual([404, { message: '404 Personal Access Token Not Found' }]);
    await expect(t.hosting.as(bob.id).personalAccessTokens.getOwn(created.id)).rejects.toBeInstanceOf(NotFoundError);

    const self = await t.http.get('/api/v4/personal_access_tokens/self').set('PRIVATE-TOKEN', created.token);
    expect([self.status, self.body]).toEqual([200, shape]);
    expect(await t.hosting.as({ token: created.token }).personalAccessTokens.self()).toEqual(shape);
    const impersonation = await t.hosting.impersonationTokens.create(alice.id, { name: 'support', scopes: ['api'] });
    const asImpersonation = await t.http.get('/api/v4/personal_access_tokens/self').set('PRIVATE-TOKEN', impersonation.token);
    expect(asImpersonation.body).toMatchObject({ id: impersonation.id, name: 'support', user_id: alice.id });
    // Signed in otherwise (a private token from POST /session): no personal access token to show.
    const session = await t.hosting.as(null).session.create({ login: 'root', password: ROOT_PASSWORD });
    const none = await t.http.get('/api/v4/personal_access_tokens/self').set('PRIVATE-TOKEN', session.private_token);
    expect([none.status, none.body]).toEqual([404, { message: '404 Personal Access Token Not Found' }]);
  });
});

describe('GET /metadata', () => {
  it('answers the version, revision, and that no agent server or enterprise edition runs', async () => {
    const res = await t.http.get('/api/v4/metadata').set('PRIVATE-TOKEN', alice.token);
    const version = await t.hosting.instance.version();
    expect([res.status, res.body]).toEqual([
      200,
      { ...version, kas: { enabled: false, externalUrl: null, version: null }, enterprise: false },
    ]);
    expect((await t.http.get('/api/v4/metadata')).status).toBe(401);
  });
});
