/**
 * test/helpers.ts `reset` (src/hosting.ts `resetHostingService`): an instance put back as a fresh one is, so that
 * tests may share one instead of paying a new one each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/errors.js';
import { createUser, ROOT_PASSWORD, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let fresh: Awaited<ReturnType<typeof look>>;

/**
 * What an instance shows of itself: its users, namespaces and settings (as the process keeps them), but when they were
 * made and its runners registration token (a new random one for each instance).
 */
async function look(hosting: TestHosting['hosting']) {
  const {
    created_at: _created,
    updated_at: _updated,
    runners_registration_token: _token,
    ...settings
  } = await hosting.applicationSettings.get();
  const users = (await hosting.users.list({})).map(({ id, username, state }) => ({ id, username, state }));
  const namespaces = (await hosting.namespaces.list({})).map(({ id, kind, full_path }) => ({ id, kind, full_path }));
  return { users, namespaces, settings };
}

beforeAll(async () => {
  t = await startHosting();
  fresh = await look(t.hosting);
});
afterAll(() => t.close());

describe('an instance reset', () => {
  it('is as a fresh one: root alone, the default settings, IDs from the first, no repository, nothing kept in the process', async () => {
    const alice = await createUser(t.hosting);
    await t.hosting.applicationSettings.update({ signup_enabled: false, default_projects_limit: 3 });
    const project = await t.hosting.projects.create({ name: 'Gone', visibility: 'public' });
    const commit = await t.hosting.commits.create(project.id, {
      branch: 'master',
      commit_message: 'Gone',
      actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
    });
    await t.hosting.projects.fork(project.id, { name: 'Gone fork', path: 'gone-fork' });
    // Read, and so kept in the process: alice's token, the settings, the repository's commit.
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', alice.token)).status).toBe(200);
    expect((await t.hosting.applicationSettings.get()).signup_enabled).toBe(false);
    expect((await t.hosting.commits.get(project.id, commit.id)).id).toBe(commit.id);

    await t.reset();

    expect(await look(t.hosting)).toEqual(fresh);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', alice.token)).status).toBe(401);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(200);
    expect((await t.http.post('/api/v4/session').send({ login: 'root', password: ROOT_PASSWORD })).status).toBe(201);
    const again = await t.hosting.projects.create({ name: 'Again' });
    expect(again.id).toBe(project.id);
    // The same ID, and so the same repository path: a new, empty repository, nothing of the old one read back.
    expect(await t.hosting.branches.list(again.id, {})).toEqual([]);
    await expect(t.hosting.commits.get(again.id, commit.id)).rejects.toBeInstanceOf(NotFoundError);
    // Made as the default settings say, not as the ones the process kept before the reset.
    const bob = await createUser(t.hosting);
    const shown = await t.http.get(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([bob.id, shown.body.projects_limit]).toEqual([alice.id, fresh.settings.default_projects_limit]);
  });

  it('puts back only the tables written since the baseline: the others keep their rows as they are', async () => {
    const rowOf = async (table: 'application_settings' | 'issues') =>
      (await t.db.fork().getConnection().execute<{ ctid: string }[]>(`select ctid::text from "${table}" order by id limit 1`))[0]?.ctid;
    await t.hosting.reset();
    const settingsRow = await rowOf('application_settings');
    const project = await t.hosting.projects.create({ name: 'Written' });
    await t.hosting.issues.create(project.id, { title: 'Written' });
    await t.hosting.reset();
    // Not written: the same row, not a copy put back.
    expect(await rowOf('application_settings')).toBe(settingsRow);
    expect(await rowOf('issues')).toBeUndefined();

    await t.hosting.applicationSettings.update({ default_projects_limit: 7 });
    await t.hosting.reset();
    expect(await rowOf('application_settings')).not.toBe(settingsRow);
    expect((await t.hosting.applicationSettings.get()).default_projects_limit).toBe(fresh.settings.default_projects_limit);
    // The reset's own writes mark nothing: the next reset leaves the settings' new row alone.
    const putBack = await rowOf('application_settings');
    await t.hosting.projects.create({ name: 'Written again' });
    await t.hosting.reset();
    expect(await rowOf('application_settings')).toBe(putBack);
  });
});
