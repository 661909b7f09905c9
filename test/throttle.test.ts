import express from 'express';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TooManyRequestsError, UnauthorizedError } from '../src/index.js';
import { createUser, ROOT_PASSWORD, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

// Every argon2 verification, counted: refusing an unknown login must cost one, as a wrong password does.
const passwordChecks = vi.hoisted(() => ({ count: 0 }));
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const argon2 = await importOriginal<typeof import('@node-rs/argon2')>();
  const verify: typeof argon2.verify = (...args) => {
    passwordChecks.count += 1;
    return argon2.verify(...args);
  };
  return { ...argon2, verify };
});

let t: TestHosting;
/** The router behind a proxy that names the client (`X-Forwarded-For`), so that tests can come from several addresses. */
let app: express.Express;
let alice: Awaited<ReturnType<typeof createUser>>;

const PERIOD = 60;
beforeAll(async () => {
  t = await sharedHosting({ throttle: { maxFailures: 3, periodSeconds: PERIOD } });
  app = express();
  app.set('trust proxy', true);
  app.use(t.hosting.router());
  alice = await createUser(t.hosting);
});
afterAll(() => t.close());
afterEach(async () => {
  vi.useRealTimers();
  await t.db.fork().getConnection().execute('delete from auth_failures');
});

const from = (address: string) => ({
  signIn: (login: string, password: string) =>
    request(app).post('/api/v4/session').set('X-Forwarded-For', address).send({ login, password }),
  oauth: (username: string, password: string) =>
    request(app).post('/oauth/token').set('X-Forwarded-For', address).send({ grant_type: 'password', username, password }),
  user: (token: string) => request(app).get('/api/v4/user').set('X-Forwarded-For', address).set('PRIVATE-TOKEN', token),
});

const TOO_MANY = { message: '429 Too Many Requests' };

describe('failed sign-ins', () => {
  it('are refused per client address once it used up its failures, with Retry-After, even with the right password', async () => {
    const client = from('192.0.2.10');
    for (const login of [alice.username, 'nobody', 'root']) expect((await client.signIn(login, 'wrong-password')).status).toBe(401);
    const refused = await client.signIn(alice.username, alice.password);
    expect([refused.status, refused.body]).toEqual([429, TOO_MANY]);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(PERIOD);
    // The OAuth password grant counts against the same address.
    expect((await client.oauth(alice.username, alice.password)).status).toBe(429);
    // Another address is not affected.
    expect((await from('192.0.2.11').signIn(alice.username, alice.password)).status).toBe(201);
  });

  it('are refused per login whatever the address, and in process too', async () => {
    for (const address of ['192.0.2.20', '192.0.2.21'])
      expect((await from(address).signIn(alice.username, 'wrong-password')).status).toBe(401);
    expect((await from('192.0.2.22').oauth(alice.username, 'wrong-password')).body.error).toBe('invalid_grant');
    const refused = await from('192.0.2.23').signIn(alice.username.toUpperCase(), alice.password);
    expect([refused.status, refused.body]).toEqual([429, TOO_MANY]);
    const inProcess = await t.hosting
      .as(null)
      .session.create({ login: alice.username, password: alice.password })
      .catch((error: unknown) => error);
    expect(inProcess).toBeInstanceOf(TooManyRequestsError);
    expect((inProcess as TooManyRequestsError).retryAfter).toBeGreaterThan(0);
    // Other logins are not affected.
    expect((await from('192.0.2.24').signIn('root', ROOT_PASSWORD)).status).toBe(201);
  });

  it('are counted afresh once the period is over', async () => {
    const client = from('192.0.2.30');
    for (let i = 0; i < 3; i += 1) await client.signIn('nobody', 'wrong-password');
    expect((await client.signIn(alice.username, alice.password)).status).toBe(429);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (PERIOD + 1) * 1000);
    expect((await client.signIn(alice.username, alice.password)).status).toBe(201);
  });
});

describe('invalid tokens', () => {
  it('are refused per client address past the limit, while a valid token keeps working', async () => {
    const client = from('192.0.2.40');
    for (let i = 0; i < 3; i += 1) expect((await client.user(`invalid-token-${i}`)).status).toBe(401);
    const refused = await client.user('invalid-token-3');
    expect([refused.status, refused.body]).toEqual([429, TOO_MANY]);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await client.user(ROOT_TOKEN)).status).toBe(200);
    expect((await from('192.0.2.41').user('invalid-token-4')).status).toBe(401);
    // In process there is no address: an invalid token is just refused.
    for (let i = 0; i < 5; i += 1)
      await expect(t.hosting.as({ token: 'invalid' }).users.current()).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('without the throttle option', () => {
  it('nothing is throttled', async () => {
    const plain = await sharedHosting();
    try {
      for (let i = 0; i < 5; i += 1)
        expect((await plain.http.post('/api/v4/session').send({ login: 'root', password: 'wrong-password' })).status).toBe(401);
      expect((await plain.http.post('/api/v4/session').send({ login: 'root', password: ROOT_PASSWORD })).status).toBe(201);
    } finally {
      await plain.close();
    }
  });
});

describe('refusing a sign-in', () => {
  it('checks a password for an unknown login as for a wrong one, so that both take as long to refuse', async () => {
    const plain = await sharedHosting();
    try {
      const checks = async (login: string) => {
        const before = passwordChecks.count;
        expect((await plain.http.post('/api/v4/session').send({ login, password: 'wrong-password' })).status).toBe(401);
        return passwordChecks.count - before;
      };
      expect(await checks('root')).toBe(1);
      expect(await checks('nobody-at-all')).toBe(1);
    } finally {
      await plain.close();
    }
  });
});
