import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationSettingsRow } from '../src/db/entities/index.js';
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../src/errors.js';
import { createUser, ROOT_TOKEN, sharedHosting, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let storageDir: string;
let user: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  storageDir = mkdtempSync(join(tmpdir(), 'forgekit-settings-test-'));
  // Two named storage roots, so that `repository_storages` has something to choose among.
  t = await startHosting({ storage: { default: join(storageDir, 'default'), archive: join(storageDir, 'archive') } });
  user = await createUser(t.hosting);
});
afterAll(async () => {
  await t.close();
  rmSync(storageDir, { recursive: true, force: true });
});

const URL = '/api/v4/application/settings';
const get = () => t.http.get(URL).set('PRIVATE-TOKEN', ROOT_TOKEN);
const put = () => t.http.put(URL).set('PRIVATE-TOKEN', ROOT_TOKEN);

/** Every setting of SPEC.md's table with its default on a new instance. */
const DEFAULTS = {
  default_projects_limit: 100000,
  signup_enabled: true,
  password_authentication_enabled: true,
  avatarsvc_enabled: true,
  sign_in_text: null,
  home_page_url: null,
  default_branch_protection: 2,
  restricted_visibility_levels: null,
  max_attachment_size: 10,
  session_expire_delay: 10080,
  default_project_visibility: 'private',
  default_snippet_visibility: 'private',
  default_group_visibility: 'private',
  domain_whitelist: null,
  domain_blacklist_enabled: false,
  domain_blacklist: null,
  user_oauth_applications: true,
  after_sign_out_path: null,
  container_registry_token_expire_delay: 5,
  repository_storages: ['default'],
  enabled_git_access_protocol: null,
  ide_enabled: false,
  ide_url: null,
  disabled_oauth_sign_in_sources: [],
  diagram_enabled: false,
  diagram_url: null,
  terminal_max_session_time: 0,
  polling_interval_multiplier: '1.0',
  rsa_key_restriction: 0,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ed25519_key_restriction: 0,
  allow_local_requests_from_web_hooks_and_services: false,
};

/** Puts every changed setting back, so each test starts from the defaults. */
afterEach(async () => {
  await t.hosting.applicationSettings.update({
    ...DEFAULTS,
    enabled_git_access_protocol: 'nil',
    polling_interval_multiplier: 1,
  } as Parameters<typeof t.hosting.applicationSettings.update>[0]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /application/settings', () => {
  it('answers every setting with its default, plus id, created_at and updated_at', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    const { id, created_at, updated_at, runners_registration_token, ...settings } = res.body;
    // The newer spellings clients read, beside the settings they name.
    const newer = {
      gravatar_enabled: DEFAULTS.avatarsvc_enabled,
      plantuml_enabled: DEFAULTS.diagram_enabled,
      plantuml_url: DEFAULTS.diagram_url,
      domain_allowlist: DEFAULTS.domain_whitelist,
      domain_denylist_enabled: DEFAULTS.domain_blacklist_enabled,
      domain_denylist: DEFAULTS.domain_blacklist,
      password_authentication_enabled_for_web: DEFAULTS.password_authentication_enabled,
      // And the era's own spelling of the hooks' local requests, which later versions renamed.
      allow_local_requests_from_hooks_and_services: DEFAULTS.allow_local_requests_from_web_hooks_and_services,
    };
    expect(settings).toEqual({ ...DEFAULTS, ...newer });
    // The token that registers shared runners (test/runners.test.ts), which no setting changes.
    expect(runners_registration_token).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(Number.isInteger(id)).toBe(true);
    expect(new Date(created_at).toISOString()).toBe(created_at);
    expect(new Date(updated_at).toISOString()).toBe(updated_at);
  });

  it('answers the same object in-process', async () => {
    const http = (await get()).body;
    expect(await t.hosting.applicationSettings.get()).toEqual(http);
    expect(await t.hosting.as('root').applicationSettings.get()).toEqual(http);
  });

  it('answers 401 without authentication and 403 to a normal user', async () => {
    const anonymous = await t.http.get(URL);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
    const wrong = await t.http.get(URL).set('PRIVATE-TOKEN', 'nope');
    expect(wrong.status).toBe(401);
    const normal = await t.http.get(URL).set('PRIVATE-TOKEN', user.token);
    expect(normal.status).toBe(403);
    expect(normal.body).toEqual({ message: '403 Forbidden' });
    await expect(t.hosting.as(null).applicationSettings.get()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.hosting.as(user.id).applicationSettings.get()).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('PUT /application/settings', () => {
  it('answers 401 without authentication and 403 to a normal user, changing nothing', async () => {
    const before = (await get()).body;
    const anonymous = await t.http.put(URL).send({ signup_enabled: false });
    expect(anonymous.status).toBe(401);
    const normal = await t.http.put(URL).set('PRIVATE-TOKEN', user.token).send({ signup_enabled: false });
    expect(normal.status).toBe(403);
    expect(normal.body).toEqual({ message: '403 Forbidden' });
    await expect(t.hosting.as(user.username).applicationSettings.update({ signup_enabled: false })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(t.hosting.as(null).applicationSettings.update({ signup_enabled: false })).rejects.toBeInstanceOf(UnauthorizedError);
    expect((await get()).body).toEqual(before);
  });

  it('changes settings given as a JSON body, keeps them, and moves updated_at', async () => {
    const before = (await get()).body;
    await sleep(5);
    const changes = {
      default_projects_limit: 42,
      signup_enabled: false,
      sign_in_text: 'Welcome',
      home_page_url: 'https://example.com/home',
      default_branch_protection: 1,
      restricted_visibility_levels: ['public', 'internal'],
      max_attachment_size: 25,
      session_expire_delay: 60,
      default_project_visibility: 'internal',
      default_snippet_visibility: 'public',
      default_group_visibility: 'internal',
      domain_whitelist: ['example.com', '*.example.org'],
      domain_blacklist_enabled: true,
      domain_blacklist: ['spam.test'],
      user_oauth_applications: false,
      after_sign_out_path: '/goodbye',
      container_registry_token_expire_delay: 15,
      repository_storages: ['default', 'archive'],
      enabled_git_access_protocol: 'ssh',
      ide_enabled: true,
      ide_url: 'https://ide.example.com',
      disabled_oauth_sign_in_sources: ['github'],
      diagram_enabled: true,
      diagram_url: 'https://diagrams.example.com',
      terminal_max_session_time: 3600,
      polling_interval_multiplier: 1.5,
      rsa_key_restriction: 2048,
      dsa_key_restriction: -1,
      ecdsa_key_restriction: 384,
      ed25519_key_restriction: 256,
    };
    const res = await put().send(changes);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...changes, polling_interval_multiplier: '1.5' });
    expect(res.body.id).toBe(before.id);
    expect(res.body.created_at).toBe(before.created_at);
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    // Settings not given keep their values.
    expect(res.body.password_authentication_enabled).toBe(true);
    expect(res.body.avatarsvc_enabled).toBe(true);

    const again = await get();
    expect(again.body).toEqual(res.body);
    expect(await t.hosting.applicationSettings.get()).toEqual(res.body);
  });

  it('accepts form fields with booleans and integers as strings and lists as comma-separated strings', async () => {
    const res = await put().type('form').send({
      signup_enabled: 'false',
      avatarsvc_enabled: '0',
      default_projects_limit: '7',
      default_branch_protection: '0',
      polling_interval_multiplier: '0.5',
      rsa_key_restriction: '4096',
      restricted_visibility_levels: 'public,internal',
      domain_whitelist: 'a.example.com, b.example.com',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      signup_enabled: false,
      avatarsvc_enabled: false,
      default_projects_limit: 7,
      default_branch_protection: 0,
      polling_interval_multiplier: '0.5',
      rsa_key_restriction: 4096,
      restricted_visibility_levels: ['public', 'internal'],
      domain_whitelist: ['a.example.com', 'b.example.com'],
    });
    expect((await get()).body).toEqual(res.body);
  });

  it('accepts list settings as repeated x[] form fields', async () => {
    const res = await put()
      .type('form')
      .send('restricted_visibility_levels[]=private&restricted_visibility_levels[]=public&repository_storages[]=archive');
    expect(res.status).toBe(200);
    expect(res.body.restricted_visibility_levels).toEqual(['private', 'public']);
    expect(res.body.repository_storages).toEqual(['archive']);
  });

  it('accepts parameters in the query string', async () => {
    const res = await t.http
      .put(
        `${URL}?signup_enabled=false&default_projects_limit=12` +
          '&disabled_oauth_sign_in_sources[]=github&disabled_oauth_sign_in_sources[]=google&domain_whitelist=x.test,y.test',
      )
      .set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      signup_enabled: false,
      default_projects_limit: 12,
      disabled_oauth_sign_in_sources: ['github', 'google'],
      domain_whitelist: ['x.test', 'y.test'],
    });
  });

  it('accepts booleans and integers as strings in a JSON body too', async () => {
    const res = await put().send({ ide_enabled: 'true', ide_url: 'https://ide.test', terminal_max_session_time: '30' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ide_enabled: true, ide_url: 'https://ide.test', terminal_max_session_time: 30 });
  });

  it('sets nullable settings back to null from a JSON null, over HTTP and in-process', async () => {
    const set = {
      sign_in_text: 'Hi',
      home_page_url: 'https://home.test',
      domain_whitelist: ['a.test'],
      restricted_visibility_levels: ['public'],
    };
    const cleared = { sign_in_text: null, home_page_url: null, domain_whitelist: null, restricted_visibility_levels: null };
    await put().send(set).expect(200);
    const res = await put().send(cleared);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(cleared);
    expect((await get()).body).toMatchObject(cleared);
    await t.hosting.applicationSettings.update(set as never);
    expect(await t.hosting.applicationSettings.update(cleared)).toMatchObject(cleared);
  });

  it('updates in-process, and the change shows over HTTP', async () => {
    const updated = await t.hosting.applicationSettings.update({ max_attachment_size: 50, default_group_visibility: 'public' });
    expect(updated).toMatchObject({ max_attachment_size: 50, default_group_visibility: 'public' });
    expect((await get()).body).toMatchObject({ max_attachment_size: 50, default_group_visibility: 'public' });
    const asRoot = await t.hosting.as(ROOT_TOKEN).applicationSettings.update({ max_attachment_size: 60 });
    expect(asRoot.max_attachment_size).toBe(60);
    expect(asRoot.default_group_visibility).toBe('public');
  });

  describe('polling_interval_multiplier', () => {
    it('answers a decimal as text, as the original does ("1.0"), whether given as a number or as text', async () => {
      for (const [given, answered] of [
        [1, '1.0'],
        [1.5, '1.5'],
        ['2.0', '2.0'],
        ['0', '0.0'],
        [0, '0.0'],
        [123456.75, '123456.75'],
        [0.0000001, '0.0000001'],
        [2147483647, '2147483647.0'],
      ] as const) {
        const res = await put().send({ polling_interval_multiplier: given });
        expect([res.status, res.body.polling_interval_multiplier], String(given)).toEqual([200, answered]);
        expect((await get()).body.polling_interval_multiplier).toBe(answered);
      }
      const form = await put().type('form').send({ polling_interval_multiplier: '3' });
      expect([form.status, form.body.polling_interval_multiplier]).toEqual([200, '3.0']);
      expect((await t.hosting.applicationSettings.update({ polling_interval_multiplier: 2.5 })).polling_interval_multiplier).toBe('2.5');
      expect((await t.hosting.applicationSettings.get()).polling_interval_multiplier).toBe('2.5');
    });

    it('refuses negatives, non-numbers and numbers past its bound', async () => {
      const before = (await get()).body;
      for (const [given, message] of [
        [-1, 'must be greater than or equal to 0'],
        ['-0.5', 'must be greater than or equal to 0'],
        [2147483648, 'must be less than or equal to 2147483647'],
        ['fast', 'is invalid'],
        [[1, 2], 'is invalid'],
      ] as const) {
        const res = await put().send({ polling_interval_multiplier: given });
        expect([res.status, res.body], JSON.stringify(given)).toEqual([400, { message: { polling_interval_multiplier: [message] } }]);
      }
      await expect(t.hosting.applicationSettings.update({ polling_interval_multiplier: -2 })).rejects.toMatchObject({
        status: 400,
        messages: { polling_interval_multiplier: ['must be greater than or equal to 0'] },
      });
      expect((await get()).body).toEqual(before);
    });

    it('presents a number stored before it was answered as text', async () => {
      const em = t.db.fork();
      const row = await em.findOneOrFail(ApplicationSettingsRow, { id: (await get()).body.id });
      row.values = { ...row.values, polling_interval_multiplier: 1.25 };
      await em.flush();
      expect((await get()).body.polling_interval_multiplier).toBe('1.25');
      expect((await t.hosting.applicationSettings.get()).polling_interval_multiplier).toBe('1.25');
    });
  });

  describe('enabled_git_access_protocol', () => {
    it('accepts ssh and http, and nil for both (answered as null)', async () => {
      for (const value of ['ssh', 'http']) {
        const res = await put().type('form').send({ enabled_git_access_protocol: value });
        expect(res.status).toBe(200);
        expect(res.body.enabled_git_access_protocol).toBe(value);
        expect((await get()).body.enabled_git_access_protocol).toBe(value);
      }
      const nil = await put().type('form').send({ enabled_git_access_protocol: 'nil' });
      expect(nil.status).toBe(200);
      expect(nil.body.enabled_git_access_protocol).toBeNull();
      expect((await get()).body.enabled_git_access_protocol).toBeNull();

      await t.hosting.applicationSettings.update({ enabled_git_access_protocol: 'http' });
      expect((await t.hosting.applicationSettings.update({ enabled_git_access_protocol: 'nil' })).enabled_git_access_protocol).toBeNull();
      await t.hosting.applicationSettings.update({ enabled_git_access_protocol: 'ssh' });
      expect((await t.hosting.applicationSettings.update({ enabled_git_access_protocol: null })).enabled_git_access_protocol).toBeNull();
    });

    it('rejects other values', async () => {
      const res = await put().send({ enabled_git_access_protocol: 'ftp' });
      expect(res.status).toBe(400);
      expect(res.body.message).toHaveProperty('enabled_git_access_protocol');
    });
  });

  describe('validation', () => {
    /** Sends a PUT that must fail with 400 and checks that nothing changed. */
    async function rejected(body: Record<string, unknown>) {
      const before = (await get()).body;
      const res = await put().send(body);
      expect(res.status).toBe(400);
      expect((await get()).body).toEqual(before);
      return res.body;
    }

    it('requires domain_blacklist when domain_blacklist_enabled is true', async () => {
      const body = await rejected({ domain_blacklist_enabled: true, signup_enabled: false });
      expect(body).toEqual({ message: '400 (Bad request) "domain_blacklist" not given' });
      const form = await put().type('form').send({ domain_blacklist_enabled: 'true' });
      expect(form.status).toBe(400);
      expect(form.body.message).toContain('domain_blacklist');
      const ok = await put().send({ domain_blacklist_enabled: true, domain_blacklist: 'spam.test,junk.test' });
      expect(ok.status).toBe(200);
      expect(ok.body.domain_blacklist).toEqual(['spam.test', 'junk.test']);
    });

    it('requires ide_url when ide_enabled is true', async () => {
      const body = await rejected({ ide_enabled: true });
      expect(body).toEqual({ message: '400 (Bad request) "ide_url" not given' });
      await expect(t.hosting.applicationSettings.update({ ide_enabled: true })).rejects.toBeInstanceOf(BadRequestError);
    });

    it('requires diagram_url when diagram_enabled is true', async () => {
      const body = await rejected({ diagram_enabled: 'true', default_projects_limit: 3 });
      expect(body).toEqual({ message: '400 (Bad request) "diagram_url" not given' });
    });

    it.each([
      ['default_project_visibility', 'secret'],
      ['default_snippet_visibility', 'hidden'],
      ['default_group_visibility', 'everyone'],
      ['default_branch_protection', 7],
      ['default_branch_protection', '3'],
      ['rsa_key_restriction', 1000],
      ['dsa_key_restriction', 4096],
      ['ecdsa_key_restriction', '128'],
      ['ed25519_key_restriction', 512],
      ['restricted_visibility_levels', ['secret']],
      ['default_projects_limit', 'many'],
      ['default_projects_limit', -1],
      ['signup_enabled', 'maybe'],
      ['max_attachment_size', 0],
    ])('answers a message object naming %s for %j', async (attribute, value) => {
      const body = await rejected({ signup_enabled: false, [attribute]: value });
      expect(typeof body.message).toBe('object');
      // The setting, or the item of a list setting (`restricted_visibility_levels[0]`).
      const [name, ...others] = Object.keys(body.message);
      expect([name.replace(/\[\d+\]$/, ''), others]).toEqual([attribute, []]);
      expect(Array.isArray(body.message[name])).toBe(true);
    });

    it('rejects an unknown repository storage name, and an empty list of storages', async () => {
      const unknown = await rejected({ repository_storages: ['default', 'nowhere'] });
      expect(Object.keys(unknown.message)).toEqual(['repository_storages']);
      expect(unknown.message.repository_storages.join(' ')).toContain('nowhere');
      const empty = await rejected({ repository_storages: '' });
      expect(Object.keys(empty.message)).toEqual(['repository_storages']);
    });

    it('rejects URLs that are not URLs and domains that are not domains', async () => {
      const url = await rejected({ home_page_url: 'not a url' });
      expect(Object.keys(url.message)).toEqual(['home_page_url']);
      const domain = await rejected({ domain_whitelist: 'ok.test,not a domain' });
      expect(Object.keys(domain.message)).toEqual(['domain_whitelist']);
    });

    it('raises the same errors in-process', async () => {
      const error = await t.hosting.applicationSettings
        .update({ default_project_visibility: 'secret' } as never)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).status).toBe(400);
      expect((error as BadRequestError).messages).toHaveProperty('default_project_visibility');
      expect((await t.hosting.applicationSettings.get()).default_project_visibility).toBe('private');
    });
  });
});

describe('settings take effect', () => {
  it('default_projects_limit is the projects_limit of users created afterwards', async () => {
    await put().send({ default_projects_limit: 5 }).expect(200);
    const created = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ email: 'limited@example.com', username: 'limited', name: 'Limited', password: 'secret-password-1' });
    expect(created.status).toBe(201);
    expect(created.body.projects_limit).toBe(5);
    expect((await createUser(t.hosting)).id).toBeGreaterThan(0);
    const inProcess = await createUser(t.hosting);
    expect((await t.hosting.users.get(inProcess.id)) as { projects_limit: number }).toMatchObject({ projects_limit: 5 });
    // An explicit projects_limit still wins.
    const explicit = await createUser(t.hosting, { projects_limit: 9 });
    expect(await t.hosting.users.get(explicit.id)).toMatchObject({ projects_limit: 9 });
    // Users created before the change keep theirs.
    expect(await t.hosting.users.get(user.id)).toMatchObject({ projects_limit: 100000 });
  });

  it('password_authentication_enabled=false makes POST /session answer 401', async () => {
    const signIn = () => t.http.post('/api/v4/session').send({ login: user.username, password: user.password });
    expect((await signIn()).status).toBe(201);
    await put().type('form').send({ password_authentication_enabled: 'false' }).expect(200);
    const refused = await signIn();
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: '401 Unauthorized' });
    await expect(t.hosting.as(null).session.create({ login: user.username, password: user.password })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await put().send({ password_authentication_enabled: true }).expect(200);
    expect((await signIn()).status).toBe(201);
  });

  it('avatarsvc_enabled=false makes the avatar_url of a user without an uploaded avatar null', async () => {
    const before = await t.http.get(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(before.body.avatar_url).toEqual(expect.any(String));
    await put().send({ avatarsvc_enabled: false }).expect(200);
    const after = await t.http.get(`/api/v4/users/${user.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(after.body.avatar_url).toBeNull();
    const listed = await t.http.get('/api/v4/users').query({ username: user.username }).set('PRIVATE-TOKEN', user.token);
    expect(listed.body[0].avatar_url).toBeNull();
    expect((await t.hosting.users.get(user.id)).avatar_url).toBeNull();
  });
});

describe('newer spellings of settings', () => {
  it('are accepted as the settings they name and answered beside them; the specification spelling wins when both are given', async () => {
    const t2 = await sharedHosting();
    try {
      const res = await t2.http
        .put('/api/v4/application/settings')
        .set('PRIVATE-TOKEN', ROOT_TOKEN)
        .send({
          gravatar_enabled: false,
          plantuml_enabled: true,
          plantuml_url: 'https://plantuml.example.com',
          domain_allowlist: 'a.example.com,b.example.com',
          domain_denylist_enabled: true,
          domain_denylist: ['bad.example.com'],
          password_authentication_enabled_for_web: false,
          allow_local_requests_from_hooks_and_services: true,
          signup_enabled: false,
        });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        avatarsvc_enabled: false,
        diagram_enabled: true,
        diagram_url: 'https://plantuml.example.com',
        domain_whitelist: ['a.example.com', 'b.example.com'],
        domain_blacklist_enabled: true,
        domain_blacklist: ['bad.example.com'],
        password_authentication_enabled: false,
        allow_local_requests_from_web_hooks_and_services: true,
        signup_enabled: false,
      });
      // Answered under both spellings, with the same values, for clients that read the newer one.
      expect(res.body).toMatchObject({
        gravatar_enabled: false,
        plantuml_enabled: true,
        plantuml_url: 'https://plantuml.example.com',
        domain_allowlist: ['a.example.com', 'b.example.com'],
        domain_denylist_enabled: true,
        domain_denylist: ['bad.example.com'],
        password_authentication_enabled_for_web: false,
        allow_local_requests_from_hooks_and_services: true,
      });
      const both = await t2.hosting.applicationSettings.update({ avatarsvc_enabled: true, gravatar_enabled: false });
      expect([both.avatarsvc_enabled, both.gravatar_enabled]).toEqual([true, true]);
      expect((await t2.http.get('/api/v4/application/settings').set('PRIVATE-TOKEN', ROOT_TOKEN)).body.gravatar_enabled).toBe(true);
      const missing = await t2.http.put('/api/v4/application/settings').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ plantuml_url: null });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ message: '400 (Bad request) "diagram_url" not given' });
    } finally {
      await t2.close();
    }
  });
});
