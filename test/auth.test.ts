import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { raw } from '@mikro-orm/core';
import { tokenDigest } from '../src/auth/secrets.js';
import { AccessToken, User } from '../src/db/entities/index.js';
import type { Database } from '../src/db/orm.js';
import { createHostingService } from '../src/hosting.js';
import { BadRequestError, ForbiddenError, InsufficientScopeError, NotFoundError, OAuthError, UnauthorizedError } from '../src/errors.js';
import { createUser, eventually, migratedDataDir, ROOT_PASSWORD, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let db: Database;
/** Every token this file has been handed: none of them may be stored as it is. */
const issued = new Set<string>([ROOT_TOKEN]);

beforeAll(async () => {
  t = await sharedHosting();
  // For what no endpoint does (turn on two-factor, age a token) and to look at how tokens are stored.
  db = t.db;
});
afterAll(() => t.close());
afterEach(() => {
  vi.useRealTimers();
});

type User_ = Awaited<ReturnType<typeof createUser>>;

async function newUser(overrides: Record<string, unknown> = {}): Promise<User_> {
  const user = await createUser(t.hosting, overrides);
  issued.add(user.token);
  return user;
}

const UNAUTHORIZED = { message: '401 Unauthorized' };
const today = () => new Date().toISOString().slice(0, 10);
const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const setUserColumns = (id: number, values: Partial<Pick<User, 'twoFactorEnabled'>>) => db.fork().nativeUpdate(User, { id }, values);
const setTokenExpiry = (id: number, expiresAt: Date) => db.fork().nativeUpdate(AccessToken, { id }, { expiresAt });

/** The four ways a client sends a token, all on GET /user. */
const transports: Record<string, (token: string) => ReturnType<TestHosting['http']['get']>> = {
  'PRIVATE-TOKEN header': (token) => t.http.get('/api/v4/user').set('PRIVATE-TOKEN', token),
  'private_token parameter': (token) => t.http.get('/api/v4/user').query({ private_token: token }),
  'Authorization: Bearer header': (token) => t.http.get('/api/v4/user').set('Authorization', `Bearer ${token}`),
  'access_token parameter': (token) => t.http.get('/api/v4/user').query({ access_token: token }),
};

/** Asserts the token authenticates `username` on every transport, over HTTP and in process. */
async function expectWorks(token: string, username: string) {
  for (const [name, send] of Object.entries(transports)) {
    const res = await send(token);
    expect(res.status, name).toBe(200);
    expect(res.body.username, name).toBe(username);
  }
  expect((await t.hosting.as({ token }).users.current()).username).toBe(username);
}

/** Asserts the token is refused with the exact 401 body on every transport, over HTTP and in process. */
async function expectRefused(token: string) {
  for (const [name, send] of Object.entries(transports)) {
    const res = await send(token);
    expect(res.status, name).toBe(401);
    expect(res.body, name).toEqual(UNAUTHORIZED);
  }
  await expect(t.hosting.as({ token }).users.current()).rejects.toBeInstanceOf(UnauthorizedError);
}

const blockUser = async (id: number) => {
  const res = await t.http.post(`/api/v4/users/${id}/block`).set('PRIVATE-TOKEN', ROOT_TOKEN);
  expect(res.status).toBe(201);
  expect(res.body).toBe(true);
};
const unblockUser = async (id: number) => {
  const res = await t.http.post(`/api/v4/users/${id}/unblock`).set('PRIVATE-TOKEN', ROOT_TOKEN);
  expect(res.status).toBe(201);
  expect(res.body).toBe(true);
};

const signIn = async (login: string, password: string) => {
  const res = await t.http.post('/api/v4/session').send({ login, password });
  if (res.body.private_token) issued.add(res.body.private_token);
  return res;
};

const oauthToken = async (input: Record<string, string>) => {
  const res = await t.http.post('/oauth/token').type('form').send(input);
  if (res.body.access_token) issued.add(res.body.access_token).add(res.body.refresh_token);
  return res;
};

const createPat = async (userId: number, body: Record<string, unknown>, kind = 'personal_access_tokens') => {
  const res = await t.http.post(`/api/v4/users/${userId}/${kind}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send(body);
  if (res.body.token) issued.add(res.body.token);
  return res;
};

const sshKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHiO3/8H1bd09F1W+Gli5+i1ZYNgsRKPrpSjTXNduZE6 scopes@example.com';
const sudoSshKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEI7NzXiQZmVxhcvK7Be5Grp4aE+G26LdWxX6oN6om/M sudo@example.com';

describe('sending a token', () => {
  let user: User_;
  beforeAll(async () => {
    user = await newUser();
  });

  it('accepts a token in each of the four places', async () => {
    await expectWorks(user.token, user.username);
  });

  it('answers 401 {"message":"401 Unauthorized"} without a token', async () => {
    const res = await t.http.get('/api/v4/user');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    await expect(t.hosting.as(null).users.current()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('answers 401 to a token that does not exist', async () => {
    await expectRefused('not-a-token-at-all-1');
    await expectRefused('');
    const res = await t.http.get('/api/v4/user').set('Authorization', 'Bearer');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('takes a blank token for none, as the original does (go-gitlab made without a token sends PRIVATE-TOKEN empty)', async () => {
    const blank = {
      'PRIVATE-TOKEN header': () => t.http.get('/api/v4/projects').set('PRIVATE-TOKEN', ''),
      'PRIVATE-TOKEN header of spaces': () => t.http.get('/api/v4/projects').set('PRIVATE-TOKEN', '  '),
      'private_token parameter': () => t.http.get('/api/v4/projects?private_token='),
      'access_token parameter': () => t.http.get('/api/v4/projects?access_token='),
    };
    for (const [name, send] of Object.entries(blank)) {
      const res = await send();
      expect(res.status, name).toBe(200);
      expect(Array.isArray(res.body), name).toBe(true);
    }
    // What needs a caller still answers 401, as without a token.
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', '');
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('answers 401 to a revoked token', async () => {
    const created = await createPat(user.id, { name: 'soon revoked', scopes: ['api'] });
    await expectWorks(created.body.token, user.username);
    const revoked = await t.http
      .delete(`/api/v4/users/${user.id}/personal_access_tokens/${created.body.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(revoked.status).toBe(204);
    await expectRefused(created.body.token);
  });

  it('answers 401 to an expired token', async () => {
    const created = await createPat(user.id, { name: 'soon expired', scopes: ['api'], expires_at: daysFromNow(3) });
    await expectWorks(created.body.token, user.username);
    await setTokenExpiry(created.body.id, new Date(Date.now() - 1000));
    // Changed by a statement outside forgekit: the process forgets the token it kept once it hears of the change
    // (NOTIFY), which on PostgreSQL may come a moment after the next request.
    await eventually(() => expectRefused(created.body.token));
  });

  it('keeps a token that expires today working until the day is over (UTC)', async () => {
    const created = await createPat(user.id, { name: 'today', scopes: ['api'], expires_at: today() });
    expect(created.status).toBe(201);
    expect(created.body.expires_at).toBe(today());
    expect(created.body.active).toBe(true);
    await expectWorks(created.body.token, user.username);
    const tomorrow = new Date(`${daysFromNow(1)}T00:00:01Z`);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(tomorrow);
    await expectRefused(created.body.token);
  });
});

describe('POST /session', () => {
  let user: User_;
  beforeAll(async () => {
    user = await newUser();
  });

  it('signs in with the username and answers the full user with a private token that authenticates', async () => {
    const res = await signIn(user.username, user.password);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: user.id, username: user.username, email: user.email, is_admin: false, two_factor_enabled: false });
    expect(res.body.private_token).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(res.body.current_sign_in_at).not.toBeNull();
    await expectWorks(res.body.private_token, user.username);
  });

  it('signs in with the e-mail address as login, in any case, and with the email parameter', async () => {
    const byLogin = await signIn(user.email.toUpperCase(), user.password);
    expect(byLogin.status).toBe(201);
    expect(byLogin.body.username).toBe(user.username);
    const byEmail = await t.http.post('/api/v4/session').type('form').send({ email: user.email, password: user.password });
    expect(byEmail.status).toBe(201);
    expect(byEmail.body.id).toBe(user.id);
    issued.add(byEmail.body.private_token);
  });

  it('issues a new private token on every sign-in', async () => {
    const first = await signIn(user.username, user.password);
    const second = await signIn(user.username, user.password);
    expect(first.body.private_token).not.toBe(second.body.private_token);
    await expectWorks(first.body.private_token, user.username);
  });

  it('answers root with is_admin true, and GET /user with its private token shows that token', async () => {
    const res = await signIn('root', ROOT_PASSWORD);
    expect(res.status).toBe(201);
    expect(res.body.is_admin).toBe(true);
    const me = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', res.body.private_token);
    expect(me.body.private_token).toBe(res.body.private_token);
  });

  it('answers 401 to a wrong password and to an unknown login', async () => {
    for (const [login, password] of [
      [user.username, 'wrong-password'],
      ['nobody-here', user.password],
    ]) {
      const res = await signIn(login, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    }
    await expect(t.hosting.as(null).session.create({ login: user.username, password: 'nope' })).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('answers 400 naming the missing password, or the missing login', async () => {
    const noPassword = await t.http.post('/api/v4/session').send({ login: user.username });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body).toEqual({ message: '400 (Bad request) "password" not given' });
    const noLogin = await t.http.post('/api/v4/session').send({ password: user.password });
    expect(noLogin.status).toBe(400);
    expect(noLogin.body).toEqual({ message: '400 (Bad request) "login" not given' });
  });

  it('works in process', async () => {
    const session = await t.hosting.as(null).session.create({ login: user.username, password: user.password });
    issued.add(session.private_token);
    expect(session.username).toBe(user.username);
    expect(session.is_admin).toBe(false);
    expect((await t.hosting.as(session.private_token).users.current()).id).toBe(user.id);
  });

  it('is refused to a user with two-factor authentication, who keeps using personal access tokens', async () => {
    const guarded = await newUser();
    await setUserColumns(guarded.id, { twoFactorEnabled: true });
    const res = await signIn(guarded.username, guarded.password);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized. You have 2FA enabled. Please use a personal access token to access the API' });
    // A wrong password says nothing about two-factor authentication.
    expect((await signIn(guarded.username, 'wrong-password')).body).toEqual(UNAUTHORIZED);
    await expect(t.hosting.as(null).session.create({ login: guarded.username, password: guarded.password })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const grant = await oauthToken({ grant_type: 'password', username: guarded.username, password: guarded.password });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('invalid_grant');
    await expectWorks(guarded.token, guarded.username);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', guarded.token)).body.two_factor_enabled).toBe(true);
  });
});

describe('sign-in sessions', () => {
  const setSessionDelay = (minutes: number) => t.hosting.applicationSettings.update({ session_expire_delay: minutes });
  afterAll(() => setSessionDelay(10080));

  it('end session_expire_delay minutes after the sign-in (0: no time limit)', async () => {
    const user = await newUser();
    await setSessionDelay(30);
    const signedIn = Date.now();
    const token = (await signIn(user.username, user.password)).body.private_token as string;
    await expectWorks(token, user.username);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(signedIn + 29 * 60_000);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', token)).status).toBe(200);
    vi.setSystemTime(signedIn + 31 * 60_000);
    await expectRefused(token);
    vi.useRealTimers();

    await setSessionDelay(0);
    const lasting = (await signIn(user.username, user.password)).body.private_token as string;
    const [record] = await db.fork().find(AccessToken, { tokenDigest: tokenDigest(lasting) });
    expect(record.expiresAt).toBeNull();
  });

  it('end, with the OAuth tokens, when an administrator changes the password; personal access tokens stay', async () => {
    const user = await newUser();
    const session = (await signIn(user.username, user.password)).body.private_token as string;
    const grant = await oauthToken({ grant_type: 'password', username: user.username, password: user.password });
    const changed = await t.http
      .put(`/api/v4/users/${user.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ password: 'a-brand-new-password' });
    expect(changed.status).toBe(200);
    await expectRefused(session);
    await expectRefused(grant.body.access_token);
    expect((await oauthToken({ grant_type: 'refresh_token', refresh_token: grant.body.refresh_token })).body.error).toBe('invalid_grant');
    await expectWorks(user.token, user.username);
    await expectWorks((await signIn(user.username, 'a-brand-new-password')).body.private_token, user.username);
  });
});

describe('the configured root token', () => {
  it('works again on the next start after a password change ended it', async () => {
    const dataDir = migratedDataDir();
    try {
      const first = await createHostingService({ database: { dataDir }, rootToken: 'configured-root-token' });
      expect((await first.as('configured-root-token').users.current()).username).toBe('root');
      await first.users.update(1, { password: 'a-new-root-password' });
      await expect(first.as('configured-root-token').users.current()).rejects.toBeInstanceOf(UnauthorizedError);
      await first.close();
      const second = await createHostingService({ database: { dataDir }, rootToken: 'configured-root-token' });
      expect((await second.as('configured-root-token').users.current()).username).toBe('root');
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('expires_at', () => {
  it('takes a full timestamp for its date, as go-gitlab sends it', async () => {
    const user = await newUser();
    for (const kind of ['personal_access_tokens', 'impersonation_tokens']) {
      const res = await createPat(user.id, { name: 'timestamped', scopes: ['api'], expires_at: '2027-01-05T03:00:00Z' }, kind);
      expect([res.status, res.body.expires_at]).toEqual([201, '2027-01-05']);
    }
    expect(
      (
        await t.hosting.personalAccessTokens.create(user.id, {
          name: 'in process',
          scopes: ['api'],
          expires_at: '2027-01-05T23:59:59+05:00',
        })
      ).expires_at,
    ).toBe('2027-01-05');
  });
});

describe('a token that creates a token', () => {
  it('never gives the new one a later expiry than its own', async () => {
    const admin = await newUser({ admin: true });
    const user = await newUser();
    const until2030 = (await createPat(admin.id, { name: 'admin until 2030', scopes: ['api'], expires_at: '2030-06-30' })).body
      .token as string;
    const mint = (token: string, body: Record<string, unknown>) =>
      t.http
        .post(`/api/v4/users/${user.id}/personal_access_tokens`)
        .set('PRIVATE-TOKEN', token)
        .send({ name: 'minted', scopes: ['api'], ...body });
    expect((await mint(until2030, {})).body.expires_at).toBe('2030-06-30');
    expect((await mint(until2030, { expires_at: '2031-01-01' })).body.expires_at).toBe('2030-06-30');
    expect((await mint(until2030, { expires_at: '2029-01-01' })).body.expires_at).toBe('2029-01-01');
    const impersonation = await t.http
      .post(`/api/v4/users/${user.id}/impersonation_tokens`)
      .set('PRIVATE-TOKEN', until2030)
      .send({ name: 'minted', scopes: ['api'] });
    expect(impersonation.body.expires_at).toBe('2030-06-30');
    // An OAuth token lasts two hours: what it creates stops working when it does.
    const grant = await oauthToken({ grant_type: 'password', username: admin.username, password: admin.password });
    const minted = await mint(grant.body.access_token, {});
    expect(minted.status).toBe(201);
    const [oauthRecord, mintedRecord] = await Promise.all([
      db.fork().findOneOrFail(AccessToken, { tokenDigest: tokenDigest(grant.body.access_token) }),
      db.fork().findOneOrFail(AccessToken, { id: minted.body.id }),
    ]);
    expect(mintedRecord.expiresAt).toEqual(oauthRecord.expiresAt);
    expect(minted.body.expires_at).toBe(oauthRecord.expiresAt?.toISOString().slice(0, 10));
    // Trusted in-process code and tokens without an expiry set no limit.
    expect((await t.hosting.personalAccessTokens.create(user.id, { name: 'open', scopes: ['api'] })).expires_at).toBeNull();
    expect((await mint(ROOT_TOKEN, {})).body.expires_at).toBeNull();
  });
});

describe('blocked users', () => {
  it('cannot authenticate with any kind of token nor sign in, until unblocked', async () => {
    const user = await newUser();
    const privateToken = (await signIn(user.username, user.password)).body.private_token as string;
    const grant = await oauthToken({ grant_type: 'password', username: user.username, password: user.password });
    const impersonation = (await createPat(user.id, { name: 'imp', scopes: ['api'] }, 'impersonation_tokens')).body.token as string;
    const tokens = [user.token, privateToken, grant.body.access_token as string, impersonation];

    await blockUser(user.id);
    for (const token of tokens) await expectRefused(token);
    await expect(t.hosting.as(user.id).users.current()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.hosting.as(user.username).users.current()).rejects.toBeInstanceOf(UnauthorizedError);
    const session = await signIn(user.username, user.password);
    expect(session.status).toBe(401);
    expect(session.body).toEqual(UNAUTHORIZED);
    const password = await oauthToken({ grant_type: 'password', username: user.username, password: user.password });
    expect(password.status).toBe(400);
    expect(password.body.error).toBe('invalid_grant');
    const refresh = await oauthToken({ grant_type: 'refresh_token', refresh_token: grant.body.refresh_token });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    const listed = await t.http.get(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(listed.body.state).toBe('blocked');

    await unblockUser(user.id);
    // Blocking ended the user's sign-in sessions and OAuth tokens for good; its personal access and impersonation tokens work again.
    for (const token of [user.token, impersonation]) await expectWorks(token, user.username);
    for (const token of [privateToken, grant.body.access_token as string]) await expectRefused(token);
    expect((await oauthToken({ grant_type: 'refresh_token', refresh_token: grant.body.refresh_token })).body.error).toBe('invalid_grant');
    expect((await signIn(user.username, user.password)).status).toBe(201);
    expect((await t.hosting.as(user.id).users.current()).state).toBe('active');
  });

  it('cannot be the target of a non-admin block', async () => {
    const user = await newUser();
    const other = await newUser();
    const res = await t.http.post(`/api/v4/users/${other.id}/block`).set('PRIVATE-TOKEN', user.token);
    expect(res.status).toBe(403);
    await expectWorks(other.token, other.username);
  });
});

for (const kind of ['personal_access_tokens', 'impersonation_tokens'] as const) {
  const notFound = kind === 'personal_access_tokens' ? '404 Personal Access Token Not Found' : '404 Impersonation Token Not Found';
  const impersonation = kind === 'impersonation_tokens';

  describe(`/users/:user_id/${kind}`, () => {
    let user: User_;
    beforeAll(async () => {
      user = await newUser();
    });
    const url = (userId: number, tokenId?: number) => `/api/v4/users/${userId}/${kind}${tokenId === undefined ? '' : `/${tokenId}`}`;
    const asRoot = (req: ReturnType<TestHosting['http']['get']>) => req.set('PRIVATE-TOKEN', ROOT_TOKEN);

    it('creates a token (201), shown once, which acts as its user', async () => {
      const res = await createPat(user.id, { name: 'ci', scopes: ['api', 'read_user'] }, kind);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'ci',
        revoked: false,
        created_at: expect.any(String),
        scopes: ['api', 'read_user'],
        user_id: user.id,
        active: true,
        expires_at: null,
        token: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
        ...(impersonation ? { impersonation: true } : {}),
      });
      await expectWorks(res.body.token, user.username);
      const got = await asRoot(t.http.get(url(user.id, res.body.id)));
      expect(got.status).toBe(200);
      expect(got.body).not.toHaveProperty('token');
      const { token: _, ...shape } = res.body;
      expect(got.body).toEqual(shape);
      const listed = await asRoot(t.http.get(url(user.id)));
      expect(listed.body.every((item: Record<string, unknown>) => !('token' in item))).toBe(true);
    });

    it('accepts scopes as a form array and as a comma-separated list', async () => {
      const form = await asRoot(t.http.post(url(user.id)))
        .type('form')
        .send('name=form&scopes[]=read_user&scopes[]=api');
      expect(form.status).toBe(201);
      expect(form.body.scopes).toEqual(['read_user', 'api']);
      issued.add(form.body.token);
      const comma = await asRoot(t.http.post(url(user.id))).query({ name: 'comma', scopes: 'api,read_user' });
      expect(comma.status).toBe(201);
      expect(comma.body.scopes).toEqual(['api', 'read_user']);
      issued.add(comma.body.token);
    });

    it('lists with the state filter: active, inactive, all (the default)', async () => {
      const owner = await newUser();
      const active = (await createPat(owner.id, { name: 'active', scopes: ['api'] }, kind)).body;
      const revoked = (await createPat(owner.id, { name: 'revoked', scopes: ['api'] }, kind)).body;
      const expired = (await createPat(owner.id, { name: 'expired', scopes: ['api'], expires_at: daysFromNow(2) }, kind)).body;
      await asRoot(t.http.delete(url(owner.id, revoked.id)));
      await setTokenExpiry(expired.id, new Date(Date.now() - 1000));
      const ids = async (query: Record<string, string>) => {
        const res = await asRoot(t.http.get(url(owner.id))).query(query);
        expect(res.status).toBe(200);
        return (res.body as { id: number }[]).map((token) => token.id);
      };
      // The personal access token createUser made is in the personal list too.
      const extra = impersonation ? [] : [expect.any(Number)];
      expect(await ids({ state: 'active' })).toEqual([...extra, active.id]);
      expect(await ids({ state: 'inactive' })).toEqual([revoked.id, expired.id]);
      expect(await ids({ state: 'all' })).toEqual([...extra, active.id, revoked.id, expired.id]);
      expect(await ids({})).toEqual([...extra, active.id, revoked.id, expired.id]);
      const inactive = await asRoot(t.http.get(url(owner.id))).query({ state: 'inactive' });
      expect(inactive.body.map((token: { active: boolean; revoked: boolean }) => [token.active, token.revoked])).toEqual([
        [false, true],
        [false, false],
      ]);
      const bad = await asRoot(t.http.get(url(owner.id))).query({ state: 'sometimes' });
      expect(bad.status).toBe(400);

      const api = impersonation ? t.hosting.impersonationTokens : t.hosting.personalAccessTokens;
      expect((await api.list(owner.id, { state: 'inactive' })).map((token) => token.id)).toEqual([revoked.id, expired.id]);
    });

    it('revokes with DELETE (204): the token stops working and shows as revoked', async () => {
      const created = (await createPat(user.id, { name: 'to revoke', scopes: ['api'] }, kind)).body;
      const res = await asRoot(t.http.delete(url(user.id, created.id)));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      await expectRefused(created.token);
      const got = await asRoot(t.http.get(url(user.id, created.id)));
      expect(got.body).toMatchObject({ revoked: true, active: false });
    });

    it(`answers {"message":"${notFound}"} for a token that is not there`, async () => {
      const other = await newUser();
      const othersToken = (await createPat(other.id, { name: 'other', scopes: ['api'] }, kind)).body;
      const wrongKind = (
        await createPat(user.id, { name: 'wrong kind', scopes: ['api'] }, impersonation ? 'personal_access_tokens' : 'impersonation_tokens')
      ).body;
      for (const id of [999999, othersToken.id, wrongKind.id]) {
        for (const method of ['get', 'delete'] as const) {
          const res = await asRoot(t.http[method](url(user.id, id)));
          expect(res.status, `${method} ${id}`).toBe(404);
          expect(res.body, `${method} ${id}`).toEqual({ message: notFound });
        }
      }
      // Nothing was revoked by the refused calls.
      await expectWorks(othersToken.token, other.username);
      const api = impersonation ? t.hosting.impersonationTokens : t.hosting.personalAccessTokens;
      await expect(api.get(user.id, othersToken.id)).rejects.toThrow(notFound);
      await expect(api.revoke(user.id, 999999)).rejects.toBeInstanceOf(NotFoundError);
    });

    it('answers 404 for a user that does not exist', async () => {
      const res = await asRoot(t.http.get(url(999999)));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: '404 User Not Found' });
      expect((await createPat(999999, { name: 'x', scopes: ['api'] }, kind)).status).toBe(404);
    });

    it('validates: scopes and name are required, scopes must be known, expires_at not in the past', async () => {
      const noScopes = await createPat(user.id, { name: 'x' }, kind);
      expect(noScopes.status).toBe(400);
      expect(noScopes.body).toEqual({ message: '400 (Bad request) "scopes" not given' });
      const noName = await createPat(user.id, { scopes: ['api'] }, kind);
      expect(noName.status).toBe(400);
      expect(noName.body).toEqual({ message: '400 (Bad request) "name" not given' });
      const emptyScopes = await createPat(user.id, { name: 'x', scopes: [] }, kind);
      expect(emptyScopes.status).toBe(400);
      const badScope = await createPat(user.id, { name: 'x', scopes: ['api', 'write_everything'] }, kind);
      expect(badScope.status).toBe(400);
      expect(JSON.stringify(badScope.body.message)).toContain('scopes');
      const past = await createPat(user.id, { name: 'x', scopes: ['api'], expires_at: daysFromNow(-1) }, kind);
      expect(past.status).toBe(400);
      expect(past.body).toEqual({ message: { expires_at: [expect.any(String)] } });
      const notADate = await createPat(user.id, { name: 'x', scopes: ['api'], expires_at: 'tomorrow' }, kind);
      expect(notADate.status).toBe(400);
      const blank = await createPat(user.id, { name: '  ', scopes: ['api'] }, kind);
      expect(blank.body).toEqual({ message: { name: ["can't be blank"] } });
      const long = await createPat(user.id, { name: 'x'.repeat(256), scopes: ['api'] }, kind);
      expect(long.status).toBe(400);
      expect(long.body).toEqual({ message: { name: ['is too long (maximum is 255 characters)'] } });
      const api = impersonation ? t.hosting.impersonationTokens : t.hosting.personalAccessTokens;
      await expect(api.create(user.id, { name: 'x', scopes: ['api'], expires_at: daysFromNow(-1) })).rejects.toBeInstanceOf(
        BadRequestError,
      );
      const listed = await asRoot(t.http.get(url(user.id))).query({ per_page: 100 });
      expect(listed.body.some((token: { name: string }) => token.name === 'x')).toBe(false);
    });

    it('is for administrators only', async () => {
      const res = await t.http
        .post(url(user.id))
        .set('PRIVATE-TOKEN', user.token)
        .send({ name: 'mine', scopes: ['api'] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
      expect((await t.http.get(url(user.id)).set('PRIVATE-TOKEN', user.token)).status).toBe(403);
      const api = impersonation ? t.hosting.as(user.id).impersonationTokens : t.hosting.as(user.id).personalAccessTokens;
      await expect(api.list(user.id)).rejects.toBeInstanceOf(ForbiddenError);
    });

    it('works in process', async () => {
      const api = impersonation ? t.hosting.impersonationTokens : t.hosting.personalAccessTokens;
      const created = await api.create(user.id, { name: 'in process', scopes: ['read_user'], expires_at: daysFromNow(30) });
      issued.add(created.token);
      expect(created.expires_at).toBe(daysFromNow(30));
      expect((await api.get(user.id, created.id)).name).toBe('in process');
      expect((await api.list(user.id, { state: 'active' })).some((token) => token.id === created.id)).toBe(true);
      expect((await t.hosting.as(created.token).users.current()).id).toBe(user.id);
      await api.revoke(user.id, created.id);
      await expectRefused(created.token);
    });
  });
}

describe('GET /personal_access_tokens and DELETE /personal_access_tokens/:id', () => {
  it("lists the caller's own tokens; an administrator's lists everyone's, or a user's", async () => {
    const user = await newUser();
    const other = await newUser();
    const mine = (await createPat(user.id, { name: 'mine', scopes: ['api'] })).body;
    const imp = (await createPat(user.id, { name: 'imp', scopes: ['api'] }, 'impersonation_tokens')).body;
    const res = await t.http.get('/api/v4/personal_access_tokens').set('PRIVATE-TOKEN', user.token);
    expect(res.status).toBe(200);
    const ids = res.body.map((token: { id: number }) => token.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(imp.id);
    expect(res.body.every((token: { user_id: number }) => token.user_id === user.id)).toBe(true);
    // A normal user cannot look at someone else's.
    const sneaky = await t.http.get('/api/v4/personal_access_tokens').query({ user_id: other.id }).set('PRIVATE-TOKEN', user.token);
    expect(sneaky.body.every((token: { user_id: number }) => token.user_id === user.id)).toBe(true);
    const admin = await t.http.get('/api/v4/personal_access_tokens').query({ user_id: user.id }).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(admin.body.map((token: { id: number }) => token.id)).toEqual(ids);
    const own = await t.hosting.as(user.id).personalAccessTokens.listOwn();
    expect(own.map((token) => token.id)).toEqual(ids);
    // Without user_id, an administrator's list has every user's personal access tokens.
    const otherToken = (await createPat(other.id, { name: 'other', scopes: ['api'] })).body;
    const everyone = await t.http.get('/api/v4/personal_access_tokens').query({ per_page: 100 }).set('PRIVATE-TOKEN', ROOT_TOKEN);
    const everyoneIds = everyone.body.map((token: { id: number }) => token.id);
    expect(everyoneIds).toEqual(expect.arrayContaining([...ids, otherToken.id]));
    expect(everyoneIds).not.toContain(imp.id);
    expect(Number(everyone.headers['x-total'])).toBeGreaterThan(ids.length);
  });

  it('filters by state', async () => {
    const user = await newUser();
    const gone = (await createPat(user.id, { name: 'gone', scopes: ['api'] })).body;
    await t.http.delete(`/api/v4/personal_access_tokens/${gone.id}`).set('PRIVATE-TOKEN', user.token);
    const inactive = await t.http.get('/api/v4/personal_access_tokens').query({ state: 'inactive' }).set('PRIVATE-TOKEN', user.token);
    expect(inactive.body.map((token: { id: number }) => token.id)).toEqual([gone.id]);
    const active = await t.http.get('/api/v4/personal_access_tokens').query({ state: 'active' }).set('PRIVATE-TOKEN', user.token);
    expect(active.body.map((token: { id: number }) => token.id)).not.toContain(gone.id);
  });

  it("revokes the caller's own token (204); someone else's answers 404 unless the caller is an administrator", async () => {
    const user = await newUser();
    const other = await newUser();
    const mine = (await createPat(user.id, { name: 'mine', scopes: ['api'] })).body;
    const res = await t.http.delete(`/api/v4/personal_access_tokens/${mine.id}`).set('PRIVATE-TOKEN', user.token);
    expect(res.status).toBe(204);
    await expectRefused(mine.token);
    await expectWorks(user.token, user.username);

    const theirs = (await createPat(other.id, { name: 'theirs', scopes: ['api'] })).body;
    const refused = await t.http.delete(`/api/v4/personal_access_tokens/${theirs.id}`).set('PRIVATE-TOKEN', user.token);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: '404 Personal Access Token Not Found' });
    await expectWorks(theirs.token, other.username);
    const imp = (await createPat(user.id, { name: 'imp', scopes: ['api'] }, 'impersonation_tokens')).body;
    expect((await t.http.delete(`/api/v4/personal_access_tokens/${imp.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
    await expectWorks(imp.token, user.username);

    const byAdmin = await t.http.delete(`/api/v4/personal_access_tokens/${theirs.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(byAdmin.status).toBe(204);
    await expectRefused(theirs.token);
  });

  it('lets a token revoke itself, in process', async () => {
    const user = await newUser();
    const own = await t.hosting.personalAccessTokens.create(user.id, { name: 'self', scopes: ['api'] });
    issued.add(own.token);
    await t.hosting.as(own.token).personalAccessTokens.revokeOwn(own.id);
    await expectRefused(own.token);
    await expect(t.hosting.as(user.id).personalAccessTokens.revokeOwn(999999)).rejects.toThrow('404 Personal Access Token Not Found');
  });
});

describe('token scopes', () => {
  let user: User_;
  let readUser: string;
  beforeAll(async () => {
    user = await newUser();
    readUser = (await createPat(user.id, { name: 'read', scopes: ['read_user'] })).body.token;
  });

  it('lets a read_user token read the user but not write', async () => {
    await expectWorks(readUser, user.username);
    const res = await t.http.post('/api/v4/user/keys').set('PRIVATE-TOKEN', readUser).send({ title: 'k', key: sshKey });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    });
    const bearer = await t.http.post('/api/v4/user/keys').set('Authorization', `Bearer ${readUser}`).send({ title: 'k', key: sshKey });
    expect(bearer.status).toBe(403);
    expect(bearer.body.error).toBe('insufficient_scope');
    await expect(t.hosting.as(readUser).sshKeys.create({ title: 'k', key: sshKey })).rejects.toBeInstanceOf(InsufficientScopeError);
    // Nothing was created.
    expect(await t.hosting.as(user.id).sshKeys.list()).toEqual([]);
  });

  it('applies scopes to impersonation tokens too', async () => {
    const imp = (await createPat(user.id, { name: 'imp-read', scopes: ['read_user'] }, 'impersonation_tokens')).body.token;
    await expectWorks(imp, user.username);
    const res = await t.http.post('/api/v4/user/keys').set('PRIVATE-TOKEN', imp).send({ title: 'k', key: sshKey });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('insufficient_scope');
  });

  it('lets an api token write', async () => {
    const res = await t.http.post('/api/v4/user/keys').set('PRIVATE-TOKEN', user.token).send({ title: 'k', key: sshKey });
    expect(res.status).toBe(201);
  });
});

describe('sudo', () => {
  let user: User_;
  let admin: User_;
  beforeAll(async () => {
    user = await newUser();
    admin = await newUser({ admin: true });
  });

  it('lets root act as a user by username in the SUDO header and by id in the sudo parameter', async () => {
    const byHeader = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN).set('SUDO', user.username);
    expect(byHeader.status).toBe(200);
    expect(byHeader.body.id).toBe(user.id);
    expect(byHeader.body).not.toHaveProperty('private_token');
    expect(byHeader.body).not.toHaveProperty('is_admin');
    const byParam = await t.http.get('/api/v4/user').query({ private_token: ROOT_TOKEN, sudo: user.id });
    expect(byParam.body.username).toBe(user.username);
    const idHeader = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN).set('SUDO', String(user.id));
    expect(idHeader.body.username).toBe(user.username);
    const upper = await t.http
      .get('/api/v4/user')
      .set('Authorization', `Bearer ${ROOT_TOKEN}`)
      .query({ sudo: user.username.toUpperCase() });
    expect(upper.body.username).toBe(user.username);
    // What is done under sudo is done as that user.
    const key = await t.http
      .post('/api/v4/user/keys')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .set('SUDO', user.username)
      .send({ title: 'sudo', key: sudoSshKey });
    expect(key.status).toBe(201);
    expect((await t.hosting.as(user.id).sshKeys.list()).map((k) => k.title)).toEqual(['sudo']);

    expect((await t.hosting.as({ token: ROOT_TOKEN, sudo: user.username }).users.current()).id).toBe(user.id);
    expect((await t.hosting.as({ id: 1, sudo: user.id }).users.current()).username).toBe(user.username);
  });

  it('answers 403 "Must be admin to use sudo" to a normal user', async () => {
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', user.token).set('SUDO', 'root');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
    const param = await t.http.get('/api/v4/user').query({ access_token: user.token, sudo: 1 });
    expect(param.status).toBe(403);
    expect(param.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
    await expect(t.hosting.as({ id: user.id, sudo: 'root' }).users.current()).rejects.toThrow('403 Forbidden - Must be admin to use sudo');
  });

  it('answers 404 for an unknown sudo user', async () => {
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN).set('SUDO', 'nobody');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Not Found: No user id or username for: nobody' });
    const byId = await t.http.get('/api/v4/user').query({ private_token: ROOT_TOKEN, sudo: 999999 });
    expect(byId.status).toBe(404);
    expect(byId.body).toEqual({ message: '404 Not Found: No user id or username for: 999999' });
    await expect(t.hosting.as({ token: ROOT_TOKEN, sudo: 'nobody' }).users.current()).rejects.toBeInstanceOf(NotFoundError);
  });

  it('needs the sudo scope on an administrator personal access token', async () => {
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', admin.token).set('SUDO', user.username);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope', scope: 'sudo' });
    const withSudo = (await createPat(admin.id, { name: 'sudo', scopes: ['api', 'sudo'] })).body.token;
    const ok = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', withSudo).set('SUDO', user.username);
    expect(ok.status).toBe(200);
    expect(ok.body.username).toBe(user.username);
    await expect(t.hosting.as({ token: admin.token, sudo: user.id }).users.current()).rejects.toBeInstanceOf(InsufficientScopeError);
  });
});

describe('GET /user', () => {
  it('shows root its private token: the one it authenticated with', async () => {
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, username: 'root', is_admin: true, private_token: ROOT_TOKEN });
    const param = await t.http.get('/api/v4/user').query({ private_token: ROOT_TOKEN });
    expect(param.body.private_token).toBe(ROOT_TOKEN);
  });

  it('shows an administrator that signed in with another kind of token no private token, and mints none', async () => {
    const admin = await newUser({ admin: true });
    const readUser = (await createPat(admin.id, { name: 'read', scopes: ['read_user'] })).body.token;
    const grant = (await oauthToken({ grant_type: 'password', username: admin.username, password: admin.password })).body;
    const count = () => db.fork().count(AccessToken, { user: admin.id, kind: 'private' });
    for (const send of [
      () => t.http.get('/api/v4/user').set('PRIVATE-TOKEN', admin.token),
      () => t.http.get('/api/v4/user').set('PRIVATE-TOKEN', readUser),
      () => t.http.get('/api/v4/user').set('Authorization', `Bearer ${grant.access_token}`),
    ]) {
      const res = await send();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: admin.id, is_admin: true });
      expect(res.body).not.toHaveProperty('private_token');
    }
    // A read_user token must not be a way to a full-access private token.
    expect(await count()).toBe(0);
    const inProcess = await t.hosting.users.current();
    expect(inProcess).toMatchObject({ username: 'root', is_admin: true });
    expect(inProcess).not.toHaveProperty('private_token');
    const session = (await signIn(admin.username, admin.password)).body.private_token;
    expect(await t.hosting.as(session).users.current()).toMatchObject({ private_token: session });
  });

  it('shows a normal user neither is_admin nor a private token', async () => {
    const user = await newUser();
    const session = (await signIn(user.username, user.password)).body.private_token;
    for (const token of [user.token, session]) {
      const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', token);
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('is_admin');
      expect(res.body).not.toHaveProperty('private_token');
      expect(res.body).toMatchObject({ id: user.id, email: user.email, two_factor_enabled: false });
    }
    const me = await t.hosting.as(user.id).users.current();
    expect(me).not.toHaveProperty('is_admin');
    expect(me).not.toHaveProperty('private_token');
  });
});

describe('POST /oauth/token', () => {
  let user: User_;
  beforeAll(async () => {
    user = await newUser();
  });

  it('issues a bearer token for the password grant (200)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await oauthToken({ grant_type: 'password', username: user.username, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      refresh_token: expect.any(String),
      scope: 'api',
      created_at: expect.any(Number),
      expires_in: 7200,
    });
    expect(res.body.created_at).toBeGreaterThanOrEqual(before);
    expect(res.body.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(res.body.refresh_token).not.toBe(res.body.access_token);
    await expectWorks(res.body.access_token, user.username);
    // Writes too: the default scope is api.
    const write = await t.http
      .post('/api/v4/user/emails')
      .set('Authorization', `Bearer ${res.body.access_token}`)
      .send({ email: `oauth${user.id}@example.com` });
    expect(write.status).toBe(201);
  });

  it('accepts a JSON body and the e-mail address as username, and works in process', async () => {
    const res = await t.http.post('/oauth/token').send({ grant_type: 'password', username: user.email, password: user.password });
    expect(res.status).toBe(200);
    issued.add(res.body.access_token).add(res.body.refresh_token);
    const token = await t.hosting.as(null).oauth.token({ grant_type: 'password', username: user.username, password: user.password });
    issued.add(token.access_token).add(token.refresh_token);
    expect((await t.hosting.as({ token: token.access_token }).users.current()).id).toBe(user.id);
  });

  it('refreshes: a new token, the old refresh token and the old access token stop working', async () => {
    const first = (await oauthToken({ grant_type: 'password', username: user.username, password: user.password })).body;
    const second = await oauthToken({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(second.status).toBe(200);
    expect(second.body.access_token).not.toBe(first.access_token);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.scope).toBe(first.scope);
    await expectWorks(second.body.access_token, user.username);
    const again = await oauthToken({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    await expectRefused(first.access_token);
    const third = await t.hosting.as(null).oauth.token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token });
    issued.add(third.access_token).add(third.refresh_token);
    await expectWorks(third.access_token, user.username);
  });

  it('honours a refresh token once, even when it is used several times at once', async () => {
    const anonymous = t.hosting.as(null);
    const first = await anonymous.oauth.token({ grant_type: 'password', username: user.username, password: user.password });
    issued.add(first.access_token).add(first.refresh_token);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => anonymous.oauth.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })),
    );
    const granted = results.filter((result) => result.status === 'fulfilled');
    expect(granted).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ status: 400, error: 'invalid_grant' });
      else issued.add(result.value.access_token).add(result.value.refresh_token);
    }
  });

  it('refreshes an access token that has expired', async () => {
    const first = (await oauthToken({ grant_type: 'password', username: user.username, password: user.password })).body;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (first.expires_in + 1) * 1000);
    await expectRefused(first.access_token);
    const refreshed = await oauthToken({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    await expectWorks(refreshed.body.access_token, user.username);
  });

  it('limits the token to the requested scope', async () => {
    const res = await oauthToken({ grant_type: 'password', username: user.username, password: user.password, scope: 'read_user' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read_user');
    await expectWorks(res.body.access_token, user.username);
    const write = await t.http
      .post('/api/v4/user/keys')
      .set('Authorization', `Bearer ${res.body.access_token}`)
      .send({ title: 'k', key: sshKey });
    expect(write.status).toBe(403);
    expect(write.body.error).toBe('insufficient_scope');
    const unknown = await oauthToken({ grant_type: 'password', username: user.username, password: user.password, scope: 'everything' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'invalid_scope', error_description: expect.any(String) });
  });

  it('answers 400 invalid_grant to a wrong password, an unknown user and an unknown refresh token', async () => {
    const inputs: Record<string, string>[] = [
      { grant_type: 'password', username: user.username, password: 'wrong-password' },
      { grant_type: 'password', username: 'nobody-at-all', password: user.password },
      { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' },
    ];
    for (const input of inputs) {
      const res = await oauthToken(input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.body, JSON.stringify(input)).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    }
    const error = await t.hosting
      .as(null)
      .oauth.token({ grant_type: 'password', username: user.username, password: 'wrong-password' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('answers 400 unsupported_grant_type, and 400 invalid_request for missing parameters', async () => {
    const unsupported = await oauthToken({ grant_type: 'client_credentials' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) });
    const noGrant = await oauthToken({ username: user.username, password: user.password });
    expect(noGrant.status).toBe(400);
    expect(noGrant.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    const noPassword = await oauthToken({ grant_type: 'password', username: user.username });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    const noRefresh = await oauthToken({ grant_type: 'refresh_token' });
    expect(noRefresh.status).toBe(400);
    expect(noRefresh.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('is served beside /api/v4, not under it', async () => {
    const res = await t.http.post('/api/v4/oauth/token').send({ grant_type: 'password', username: user.username, password: user.password });
    expect(res.status).toBe(404);
  });
});

describe('token storage', () => {
  it('stores only digests: no token issued in this file appears in the access_tokens table', async () => {
    // Make sure every kind is there.
    const user = await newUser();
    await signIn(user.username, user.password);
    await oauthToken({ grant_type: 'password', username: user.username, password: user.password });
    await createPat(user.id, { name: 'imp', scopes: ['api'] }, 'impersonation_tokens');

    const rows = await db.fork().execute<Record<string, unknown>[]>(raw('select * from access_tokens'));
    expect(new Set(rows.map((row) => row.kind))).toEqual(new Set(['private', 'personal', 'impersonation', 'oauth']));
    const table = JSON.stringify(rows);
    expect(issued.size).toBeGreaterThan(4);
    for (const token of issued) expect(table.includes(token), token).toBe(false);
    const digests = new Set(rows.map((row) => row.token_digest));
    const refreshDigests = new Set(rows.map((row) => row.refresh_token_digest));
    for (const token of [user.token, ROOT_TOKEN]) {
      expect(tokenDigest(token)).not.toBe(token);
      expect(tokenDigest(token)).toMatch(/^[0-9a-f]{64}$/);
      expect(digests.has(tokenDigest(token))).toBe(true);
    }
    const grant = (await oauthToken({ grant_type: 'password', username: user.username, password: user.password })).body;
    const after = await db.fork().find(AccessToken, { tokenDigest: tokenDigest(grant.access_token) });
    expect(after).toHaveLength(1);
    expect(after[0].refreshTokenDigest).toBe(tokenDigest(grant.refresh_token));
    expect(refreshDigests.has(tokenDigest(grant.refresh_token))).toBe(false);
  });

  it('stores passwords only as argon2 hashes', async () => {
    const user = await newUser();
    const rows = await db.fork().execute<{ password_hash: string }[]>(raw(`select password_hash from users where id = ${user.id}`));
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(rows[0].password_hash).not.toContain(user.password);
  });
});
