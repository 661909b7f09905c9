/**
 * A test double's snapshots and its control surface (src/testing/): a state kept and put back, rows, sequences and
 * repositories; `reset()` back to the last snapshot; `/-/forgekit/` for administrators of a test double only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/errors.js';
import { createUser, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;

beforeAll(async () => {
  t = await startHosting();
});
afterAll(() => t.close());

/** A project with one commit on master, made by root. */
async function projectWithFile(name: string, content: string) {
  const project = await t.hosting.projects.create({ name });
  const commit = await t.hosting.commits.create(project.id, {
    branch: 'master',
    commit_message: name,
    actions: [{ action: 'create', file_path: 'file.txt', content }],
  });
  return { project, commit };
}

const titles = async (projectId: number) => (await t.hosting.issues.list(projectId, {})).map((issue) => issue.title).sort();

describe('snapshots', () => {
  it('keep rows, sequences and repositories, put them back, and are what reset() returns to', async () => {
    const { project, commit } = await projectWithFile('Kept', 'kept\n');
    await t.hosting.issues.create(project.id, { title: 'Before' });
    const name = await t.hosting.snapshot('fixture');
    expect(name).toBe('fixture');

    // Changed after: a row, a repository, a user, the sequences moved on.
    await t.hosting.issues.create(project.id, { title: 'After' });
    await t.hosting.commits.create(project.id, {
      branch: 'master',
      commit_message: 'Changed',
      actions: [{ action: 'update', file_path: 'file.txt', content: 'changed\n' }],
    });
    const later = await createUser(t.hosting);
    expect(await titles(project.id)).toEqual(['After', 'Before']);

    await t.hosting.restore('fixture');
    expect(await titles(project.id)).toEqual(['Before']);
    expect((await t.hosting.branches.get(project.id, 'master')).commit.id).toBe(commit.id);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', later.token)).status).toBe(401);
    // The sequences as they were: the next issue and the next user take the IDs the undone ones had.
    const again = await t.hosting.issues.create(project.id, { title: 'Again' });
    expect(again.iid).toBe(2);

    // reset() goes back to the snapshot last taken or restored.
    await t.hosting.reset();
    expect(await titles(project.id)).toEqual(['Before']);
    const file = await t.hosting.repositoryFiles.get(project.id, 'file.txt', { ref: 'master' });
    expect(Buffer.from(file.content, 'base64').toString()).toBe('kept\n');
  });

  it('are named by letters, digits, `_`, `.` and `-`; one that is not there is 404', async () => {
    await expect(t.hosting.snapshot('no spaces')).rejects.toMatchObject({ status: 400 });
    await expect(t.hosting.restore('missing')).rejects.toBeInstanceOf(NotFoundError);
    expect(await t.hosting.snapshot()).toMatch(/^snapshot-\d+$/);
  });
});

describe('the control surface', () => {
  it('resets and keeps snapshots over HTTP, for administrators only', async () => {
    const user = await createUser(t.hosting);
    const control = (method: 'get' | 'post' | 'delete', path: string, token = ROOT_TOKEN) =>
      t.http[method](`/-/forgekit/${path}`).set('PRIVATE-TOKEN', token);
    expect((await t.http.post('/-/forgekit/reset')).status).toBe(401);
    const refused = await control('post', 'reset', user.token);
    expect([refused.status, refused.body]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await control('get', 'nothing-here')).status).toBe(404);

    const { project } = await projectWithFile('Over HTTP', 'http\n');
    const taken = await control('post', 'snapshots').send({ name: 'over-http' });
    expect([taken.status, taken.body]).toEqual([201, { name: 'over-http' }]);
    const listed = await control('get', 'snapshots');
    expect(listed.status).toBe(200);
    expect(listed.body).toContainEqual({ name: 'over-http', created_at: expect.any(String) });
    expect(listed.body.map((snapshot: { name: string }) => snapshot.name)).not.toContain('(first start)');

    await t.hosting.issues.create(project.id, { title: 'Undone' });
    expect((await control('post', 'reset')).status).toBe(204);
    expect(await titles(project.id)).toEqual([]);
    await t.hosting.issues.create(project.id, { title: 'Undone too' });
    expect((await control('post', 'snapshots/over-http/restore')).status).toBe(204);
    expect(await titles(project.id)).toEqual([]);
    expect((await control('post', 'snapshots/missing/restore')).status).toBe(404);
    const badName = await control('post', 'snapshots').send({ name: '../x' });
    expect(badName.status).toBe(400);
    expect(badName.body.message).toMatchObject({ name: [expect.any(String)] });

    expect((await control('delete', 'snapshots/over-http')).status).toBe(204);
    expect((await control('delete', 'snapshots/over-http')).status).toBe(404);
    // Its baseline gone, reset() goes back to the first start: root alone.
    expect((await control('post', 'reset')).status).toBe(204);
    expect((await t.hosting.users.list({})).map((listedUser) => listedUser.username)).toEqual(['root']);
  });

  it('is not there, nor are reset() and snapshots, outside the test-double mode', async () => {
    const plain = await startHosting({ testDouble: false });
    try {
      expect((await plain.http.post('/-/forgekit/reset').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
      expect((await plain.http.get('/-/forgekit/snapshots').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
      await expect(plain.hosting.reset()).rejects.toThrow(/not a test double/);
      await expect(plain.hosting.snapshot()).rejects.toThrow(/not a test double/);
    } finally {
      await plain.close();
    }
  });
});
