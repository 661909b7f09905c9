/**
 * `forgekit/testing` and `forgekit/testing/vitest` (src/testing/index.ts, vitest.ts): a test double served on a local
 * port, reset before each test, used as a user's suite uses it, with @gitbeaker/rest.
 */
import { Gitlab } from '@gitbeaker/rest';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestDouble } from '../src/testing/index.js';
import { useForgekit } from '../src/testing/vitest.js';

const forgekit = useForgekit();
// This suite's other files need not the memory of an instance kept for them.
afterAll(() => forgekit.close());

describe('useForgekit', () => {
  it('serves a test double that clients reach with its URL and root token', async () => {
    const api = new Gitlab(forgekit.clientOptions());
    const project = await api.Projects.create({ name: 'Made in the first test' });
    expect(project).toMatchObject({ name: 'Made in the first test', path_with_namespace: 'root/made-in-the-first-test' });
    expect((await api.Projects.all()).map((listed) => listed.id)).toEqual([project.id]);
    const version = await fetch(`${forgekit.url}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': forgekit.rootToken } });
    expect(version.status).toBe(200);
  });

  it('resets it before each test: what the test before made is gone', async () => {
    const api = new Gitlab(forgekit.clientOptions());
    expect(await api.Projects.all()).toEqual([]);
    expect((await forgekit.hosting.users.list({})).map((user) => user.username)).toEqual(['root']);
  });

  it('takes a snapshot as the state each later test starts from', async () => {
    await forgekit.hosting.projects.create({ name: 'Fixture' });
    await forgekit.hosting.snapshot('fixture');
  });

  it('starts from that snapshot', async () => {
    expect((await forgekit.hosting.projects.list({})).map((project) => project.name)).toEqual(['Fixture']);
  });
});

describe('startTestDouble', () => {
  it('is refused by anyone but root on its control surface, and closes', async () => {
    const served = await startTestDouble({ rootToken: 'a-root-token-for-tests' });
    try {
      expect(served.clientOptions()).toEqual({ host: served.url, token: 'a-root-token-for-tests' });
      const reset = await fetch(`${served.url}/-/forgekit/reset`, { method: 'POST', headers: { 'PRIVATE-TOKEN': served.rootToken } });
      expect(reset.status).toBe(204);
      expect((await fetch(`${served.url}/-/forgekit/reset`, { method: 'POST' })).status).toBe(401);
    } finally {
      await served.close();
    }
    await expect(fetch(`${served.url}/api/v4/version`)).rejects.toThrow();
  });
});
