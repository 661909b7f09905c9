import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTokenCache } from '../src/auth/caller.js';
import { FailedAuthThrottle } from '../src/auth/throttle.js';
import { systemClock } from '../src/clock.js';
import { User } from '../src/db/entities/index.js';
import type { EntityManager } from '../src/db/orm.js';
import { InFlightCalls } from '../src/in-flight.js';
import { SecretBox } from '../src/auth/secret-box.js';
import { RepositoryStore } from '../src/git/store.js';
import { SettingsService } from '../src/services/instance/settings.js';
import { EventBus } from '../src/events/bus.js';
import { JobQueue } from '../src/jobs/queue.js';
import { silentLogger } from '../src/logger.js';
import { Context, type Environment } from '../src/services/context.js';
import { openSettingsCache } from '../src/services/instance/settings-store.js';
import { createUser, eventually, freshDatabase, queriesOf, ROOT_TOKEN, sharedHosting, startHosting, type TestHosting } from './helpers.js';

// The application settings and the callers' tokens are kept in the process (src/db/process-cache.ts): a change
// shows at once where it was made, in other processes on the same PostgreSQL database once its notification
// arrives, and a rolled-back one nowhere.

let t: TestHosting;
beforeAll(async () => {
  t = await sharedHosting();
});
afterAll(() => t.close());

const SETTINGS = '/api/v4/application/settings';

/** `avatar_url` of GET /user: null exactly when `avatarsvc_enabled` is off (root has no uploaded avatar). */
async function avatarOf(hosting: TestHosting): Promise<string | null> {
  const res = await hosting.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN);
  expect(res.status).toBe(200);
  return res.body.avatar_url;
}

async function setAvatarService(hosting: TestHosting, enabled: boolean): Promise<void> {
  const res = await hosting.http.put(SETTINGS).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ avatarsvc_enabled: enabled });
  expect(res.status).toBe(200);
}

/** Calls' contexts on a service's own database, as api/invoke.ts builds them, acting as root. */
async function callsOn(hosting: TestHosting) {
  const env: Environment = {
    db: hosting.db,
    clock: systemClock,
    storages: { default: '/nonexistent' },
    repositories: new RepositoryStore({ default: '/nonexistent' }),
    secrets: new SecretBox('a secret key of thirty-two characters'),
    jobs: new JobQueue(hosting.db, silentLogger),
    events: new EventBus(hosting.db, silentLogger),
    logger: silentLogger,
    allowLocalRequests: false,
    calls: new InFlightCalls(),
    requestTimeoutMs: 0,
    maxPushBytes: 0,
    hooksExist: () => {},
    throttle: new FailedAuthThrottle(hosting.db, undefined),
    settings: await openSettingsCache(hosting.db),
    tokens: await openTokenCache(hosting.db),
  };
  const contextOn = async (em: EntityManager) => {
    const root = await em.findOneOrFail(User, { id: 1 });
    return new Context({ user: root, scopes: null, token: null, privateToken: null }, env, 'http://localhost', em);
  };
  /** The settings as a new call reads them. */
  const current = async () => new SettingsService(await contextOn(hosting.db.fork())).values();
  return { contextOn, current };
}

/** Polls until `check` passes: well under the cache's 10-second age limit, so only a notification can have made a change visible. */
const noticed = (check: () => Promise<void>) => eventually(check, 5_000);

const readsSettings = (query: string) => /from "application_settings"/.test(query);
const readsToken = (query: string) => /from access_tokens t join users u/.test(query);

/** A user of its own with a personal access token. */
async function userWithToken(hosting: TestHosting) {
  const user = await createUser(hosting.hosting);
  const { id: tokenId, token } = await hosting.hosting.personalAccessTokens.create(user.id, { name: 'cached', scopes: ['api'] });
  return { user, tokenId, get: (on: TestHosting = hosting) => on.http.get('/api/v4/user').set('PRIVATE-TOKEN', token) };
}

describe('in one instance', () => {
  it('shows an update at once, over HTTP and in process', async () => {
    expect(await avatarOf(t)).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\//);
    await setAvatarService(t, false);
    expect(await avatarOf(t)).toBeNull();
    await t.hosting.applicationSettings.update({ avatarsvc_enabled: true });
    expect(await avatarOf(t)).not.toBeNull();
    expect((await t.hosting.users.get(1)).avatar_url).not.toBeNull();
  });

  it('reads the settings once after a change, then no more', async () => {
    // On a PostgreSQL server the suite's workers share, another file's change of the settings is heard here too
    // (the channel is the database's): the pair is measured again until no such change fell between them.
    await eventually(async () => {
      await setAvatarService(t, true);
      const first = await queriesOf(t.db, () => avatarOf(t), { cacheReads: true });
      const second = await queriesOf(t.db, () => avatarOf(t), { cacheReads: true });
      expect(first.filter(readsSettings)).toHaveLength(1);
      expect(second.filter(readsSettings)).toHaveLength(0);
    }, 5_000);
  });

  it('keeps no value of a transaction that rolled back, even one read inside it', async () => {
    const { contextOn, current } = await callsOn(t);
    expect((await current()).signup_enabled).toBe(true);
    const rolledBack = new Error('rolled back');
    await expect(
      t.db.fork().transactional(async (em) => {
        const ctx = await contextOn(em);
        await new SettingsService(ctx).update({ signup_enabled: false });
        expect((await new SettingsService(ctx).values()).signup_enabled).toBe(false);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect((await current()).signup_enabled).toBe(true);
    // And the values read after it are cached again.
    expect((await queriesOf(t.db, current, { cacheReads: true })).filter(readsSettings)).toHaveLength(0);
  });
});

describe('tokens, in one instance', () => {
  it('are read once, and again after a write that changed a user or a token, not after other writes', async () => {
    const { get, user } = await userWithToken(t);
    expect((await queriesOf(t.db, get, { cacheReads: true })).filter(readsToken)).toHaveLength(1);
    expect((await queriesOf(t.db, get, { cacheReads: true })).filter(readsToken)).toHaveLength(0);
    // Writes that change no caller (a new user, a project) leave the kept tokens alone.
    await t.hosting.users.create({
      username: `writer-${Date.now()}`,
      email: `writer-${Date.now()}@example.com`,
      name: 'Writer',
      password: 'long-enough-1',
    });
    await t.hosting.projects.create({ name: `kept-${Date.now()}` });
    expect((await queriesOf(t.db, get, { cacheReads: true })).filter(readsToken)).toHaveLength(0);
    // A changed user: read again at once.
    await t.hosting.users.update(user.id, { bio: 'Changed' });
    expect((await queriesOf(t.db, get, { cacheReads: true })).filter(readsToken)).toHaveLength(1);
    // On PostgreSQL the change's notification also comes back to this process, a moment later, and forgets the
    // token once more: let it land (the token is read again at most once per notification) before going on.
    for (let tries = 0; tries < 40 && (await queriesOf(t.db, get, { cacheReads: true })).filter(readsToken).length > 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // And the write right after it, which changes no caller, is not taken for one (what a session counted of its
    // earlier transaction does not count).
    await t.hosting.projects.create({ name: `after-${Date.now()}` });
    expect((await queriesOf(t.db, get, { cacheReads: true })).filter(readsToken)).toHaveLength(0);
  });

  // A statement on the database is heard by its notification, which arrives on the listening connection a
  // moment later when the statement ran on another of the pool's connections.
  it('are refused at once once revoked or their user blocked through the API, and when a statement on the database is heard', async () => {
    const revoked = await userWithToken(t);
    expect((await revoked.get()).status).toBe(200);
    await t.hosting.personalAccessTokens.revoke(revoked.user.id, revoked.tokenId);
    expect((await revoked.get()).status).toBe(401);

    const blocked = await userWithToken(t);
    expect((await blocked.get()).status).toBe(200);
    await t.db.rows.execute(`update users set state = 'blocked' where id = ${blocked.user.id}`);
    await noticed(async () => expect((await blocked.get()).status).toBe(401));
    await t.db.rows.execute(`update users set state = 'active' where id = ${blocked.user.id}`);
    await noticed(async () => expect((await blocked.get()).status).toBe(200));
  });
  it('keep nothing read while a write is under way, and read again once it has ended', async () => {
    const cache = await openTokenCache(t.db);
    let loads = 0;
    const read = () => cache.read('key', async () => ({ loads: ++loads }) as never);
    await read();
    await read();
    expect(loads).toBe(1);
    const rolledBack = new Error('rolled back');
    await expect(
      t.db.fork().transactional(async (em) => {
        // As api/invoke.ts does for every write that changes a user or a token.
        cache.changing(em.getTransactionContext());
        await read();
        await read();
        expect(loads).toBe(3);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    await read();
    await read();
    expect(loads).toBe(4);
  });
});

describe.skipIf(!process.env.FORGEKIT_TEST_DATABASE_URL)('two instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let a: TestHosting;
  let b: TestHosting;
  let storage: string;
  beforeAll(async () => {
    database = await freshDatabase();
    storage = mkdtempSync(join(tmpdir(), 'forgekit-processes-'));
    a = await startHosting({ database: { url: database.url }, storage });
    b = await startHosting({ database: { url: database.url }, storage });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    if (storage) rmSync(storage, { recursive: true, force: true });
  });

  it("see each other's updates", async () => {
    // Both have the settings cached.
    expect(await avatarOf(a)).not.toBeNull();
    expect(await avatarOf(b)).not.toBeNull();

    await setAvatarService(a, false);
    expect(await avatarOf(a)).toBeNull();
    await noticed(async () => expect(await avatarOf(b)).toBeNull());

    await setAvatarService(b, true);
    expect(await avatarOf(b)).not.toBeNull();
    await noticed(async () => expect(await avatarOf(a)).not.toBeNull());
  });

  it("refuse each other's revoked tokens and blocked users", async () => {
    const revoked = await userWithToken(a);
    const blocked = await userWithToken(a);
    for (const side of [a, b]) {
      expect((await revoked.get(side)).status).toBe(200);
      expect((await blocked.get(side)).status).toBe(200);
    }
    await a.hosting.personalAccessTokens.revoke(revoked.user.id, revoked.tokenId);
    await noticed(async () => expect((await revoked.get(b)).status).toBe(401));
    expect((await b.http.post(`/api/v4/users/${blocked.user.id}/block`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(201);
    await noticed(async () => expect((await blocked.get(a)).status).toBe(401));
  });

  // (On PGlite's one connection, no other call can run while a write's transaction is open.)
  it('answer a call made while a change is not yet committed with the committed values', async () => {
    const { contextOn, current } = await callsOn(a);
    expect((await current()).signup_enabled).toBe(true);
    const rolledBack = new Error('rolled back');
    await expect(
      a.db.fork().transactional(async (em) => {
        const ctx = await contextOn(em);
        await new SettingsService(ctx).update({ signup_enabled: false });
        expect((await new SettingsService(ctx).values()).signup_enabled).toBe(false);
        expect((await current()).signup_enabled).toBe(true);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect((await current()).signup_enabled).toBe(true);
  });
});
