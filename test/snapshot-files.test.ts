/**
 * Snapshot files (docs/testing.md "Snapshot files"): a test double's state saved to a file, rows, sequences and
 * repositories, and put in place in another instance, in process (`saveSnapshot`, `loadSnapshot`), over HTTP
 * (`/-/forgekit/state`) and by the CLI (`forgekit snapshot save|load`, `forgekit serve --snapshot`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser, migratedDataDir, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';
import { listeningOn, Processes, runGathering } from './processes.js';

let t: TestHosting;
let other: TestHosting;
let directory: string;

beforeAll(async () => {
  [t, other] = await Promise.all([startHosting(), startHosting()]);
  directory = mkdtempSync(join(tmpdir(), 'forgekit-snapshot-files-'));
});
afterAll(async () => {
  await Promise.all([t.close(), other.close()]);
  rmSync(directory, { recursive: true, force: true });
});

/** A user with a token, a project of theirs with a commit, an issue with a note and a label. */
async function fill(hosting: TestHosting['hosting']) {
  const user = await createUser(hosting);
  const project = await hosting.as(user.id).projects.create({ name: 'Fixture' });
  const commit = await hosting.as(user.id).commits.create(project.id, {
    branch: 'master',
    commit_message: 'First',
    actions: [{ action: 'create', file_path: 'README.md', content: '# Fixture\n' }],
  });
  await hosting.labels.create(project.id, { name: 'bug', color: '#ff0000' });
  const issue = await hosting.as(user.id).issues.create(project.id, { title: 'Kept', labels: ['bug'] });
  await hosting.as(user.id).issueNotes.create(project.id, issue.iid, { body: 'A note' });
  return { user, project, commit, issue };
}

const fileOf = (name: string) => join(directory, name);

describe('a snapshot file', () => {
  it('carries rows, sequences and repositories into another instance, where reset() returns to it', async () => {
    await t.reset();
    await other.reset();
    const { user, project, commit, issue } = await fill(t.hosting);
    await t.hosting.saveSnapshot(fileOf('fixture.zip'));

    expect(await other.hosting.loadSnapshot(fileOf('fixture.zip'))).toBe('fixture');
    const me = await other.http.get('/api/v4/user').set('PRIVATE-TOKEN', user.token);
    expect([me.status, me.body.username]).toEqual([200, user.username]);
    const loaded = await other.hosting.issues.get(project.id, issue.iid);
    expect([loaded.title, loaded.labels, loaded.user_notes_count]).toEqual(['Kept', ['bug'], 1]);
    expect((await other.hosting.branches.get(project.id, 'master')).commit.id).toBe(commit.id);
    const readme = await other.hosting.repositoryFiles.get(project.id, 'README.md', { ref: 'master' });
    expect(Buffer.from(readme.content, 'base64').toString()).toBe('# Fixture\n');
    // The sequences moved with the rows: the next ones follow the file's.
    expect((await other.hosting.issues.create(project.id, { title: 'Next' })).iid).toBe(issue.iid + 1);
    const nextUser = await createUser(other.hosting);
    expect(nextUser.id).toBe(user.id + 1);
    // Kept as a snapshot, and the baseline.
    await other.hosting.issues.create(project.id, { title: 'Gone after the reset' });
    await other.reset();
    expect((await other.hosting.issues.list(project.id, {})).map((each) => each.title)).toEqual(['Kept']);
    expect((await other.http.get(`/-/forgekit/snapshots`).set('PRIVATE-TOKEN', ROOT_TOKEN)).body).toEqual([
      { name: 'fixture', created_at: expect.any(String) },
    ]);
  });

  it('is a zip of the rows as JSON and the repositories, and takes the name given', async () => {
    await t.reset();
    await fill(t.hosting);
    await t.hosting.saveSnapshot(fileOf('listing.zip'));
    const entries = unzipSync(readFileSync(fileOf('listing.zip')));
    const manifest = JSON.parse(Buffer.from(entries['snapshot.json']).toString());
    expect(manifest.format).toBe('forgekit-snapshot/1');
    expect(manifest.tables).toEqual(expect.arrayContaining(['users', 'projects', 'issues', 'notes']));
    expect(JSON.parse(Buffer.from(entries['tables/issues.json']).toString())).toEqual([expect.objectContaining({ title: 'Kept' })]);
    expect(Object.keys(entries).some((path) => /^repositories\/default\/.+/.test(path))).toBe(true);
    expect(await other.hosting.loadSnapshot(fileOf('listing.zip'), 'named-one')).toBe('named-one');
  });

  it('travels over HTTP, for administrators only', async () => {
    await t.reset();
    await other.reset();
    const { project } = await fill(t.hosting);
    const user = await createUser(t.hosting);
    expect((await t.http.get('/-/forgekit/state')).status).toBe(401);
    expect((await t.http.get('/-/forgekit/state').set('PRIVATE-TOKEN', user.token)).status).toBe(403);
    const saved = await t.http
      .get('/-/forgekit/state')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect([saved.status, saved.headers['content-type']]).toEqual([200, 'application/zip']);
    const loaded = await other.http
      .put('/-/forgekit/state?name=over-http')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .set('Content-Type', 'application/zip')
      .send(saved.body as Buffer);
    expect([loaded.status, loaded.body]).toEqual([201, { name: 'over-http' }]);
    expect((await other.hosting.projects.get(project.id)).name).toBe('Fixture');
  });

  it('is refused (400, nothing changed) when it is not one, is of another schema, or reaches outside the repositories', async () => {
    await other.reset();
    const kept = await createUser(other.hosting);
    const put = (body: Uint8Array) =>
      other.http.put('/-/forgekit/state').set('PRIVATE-TOKEN', ROOT_TOKEN).set('Content-Type', 'application/zip').send(Buffer.from(body));
    const notZip = await put(strToU8('not a zip'));
    expect([notZip.status, notZip.body.message]).toEqual([
      400,
      { file: ['is not a snapshot file (a zip written by forgekit snapshot save)'] },
    ]);
    const noManifest = await put(zipSync({ 'other.txt': strToU8('x') }));
    expect([noManifest.status, noManifest.body.message]).toEqual([
      400,
      { file: ['is not a snapshot file (no snapshot.json of its format)'] },
    ]);

    await t.reset();
    await t.hosting.saveSnapshot(fileOf('base.zip'));
    const entries = unzipSync(readFileSync(fileOf('base.zip')));
    const manifest = JSON.parse(Buffer.from(entries['snapshot.json']).toString());
    const older = await put(zipSync({ ...entries, 'snapshot.json': strToU8(JSON.stringify({ ...manifest, migration: 'Migration1' })) }));
    expect(older.status).toBe(400);
    expect(older.body.message.file[0]).toMatch(
      /^was saved by a forgekit of another schema \(Migration1; this one is at Migration\d+_\w+\)$/,
    );
    const unknownTable = await put(zipSync({ ...entries, 'snapshot.json': strToU8(JSON.stringify({ ...manifest, tables: ['nope'] })) }));
    expect([unknownTable.status, unknownTable.body.message]).toEqual([400, { file: ['names an unknown table (nope)'] }]);
    const escaping = await put(zipSync({ ...entries, 'repositories/default/../../escaped': strToU8('x') }));
    expect(escaping.status).toBe(400);
    expect(escaping.body.message.file[0]).toMatch(/^holds a file outside the repositories/);
    // Nothing of it was put in place.
    expect((await other.http.get('/api/v4/user').set('PRIVATE-TOKEN', kept.token)).status).toBe(200);
    await expect(other.hosting.loadSnapshot(fileOf('base.zip'), 'no spaces')).rejects.toMatchObject({ status: 400 });
  });

  it.runIf(Boolean(process.env.FORGEKIT_TEST_DATABASE_URL))('saved on PGlite, loads on PostgreSQL', async () => {
    const embedded = await startHosting({ database: {} });
    try {
      const { project, issue } = await fill(embedded.hosting);
      await embedded.hosting.saveSnapshot(fileOf('embedded.zip'));
      await other.hosting.loadSnapshot(fileOf('embedded.zip'));
      expect((await other.hosting.issues.get(project.id, issue.iid)).title).toBe('Kept');
    } finally {
      await embedded.close();
    }
  });

  it('is not served, and the calls throw, outside the test-double mode', async () => {
    const plain = await startHosting({ testDouble: false });
    try {
      expect((await plain.http.get('/-/forgekit/state').set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(404);
      await expect(plain.hosting.saveSnapshot(fileOf('never.zip'))).rejects.toThrow(/not a test double/);
      expect(existsSync(fileOf('never.zip'))).toBe(false);
    } finally {
      await plain.close();
    }
  });
});

// The embedded database's, as the CLI's own tests: not again in the PostgreSQL suite.
describe.skipIf(Boolean(process.env.FORGEKIT_TEST_DATABASE_URL))(
  'forgekit snapshot save|load and serve --snapshot',
  { timeout: 120_000 },
  () => {
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const processes = new Processes();
    afterEach(() => processes.stopAll());
    const env = { ...process.env, DATABASE_URL: '', FORGEKIT_ROOT_TOKEN: ROOT_TOKEN };
    const run = (...args: string[]) => runGathering(processes, process.execPath, [cli, ...args], { env });
    const serve = (...flags: string[]) => {
      const dataDir = migratedDataDir(join(directory, `data-${Math.random().toString(36).slice(2)}`));
      return run('serve', '--port', String(20000 + Math.floor(Math.random() * 20000)), '--data-dir', dataDir, ...flags);
    };
    const api = (url: string, path: string, init: RequestInit = {}) =>
      fetch(`${url}/api/v4/${path}`, { ...init, headers: { 'PRIVATE-TOKEN': ROOT_TOKEN, 'Content-Type': 'application/json' } });

    it('saves a served test double to a file, loads it back, and starts another from it', async () => {
      const first = serve('--test-double');
      const url = await listeningOn(first);
      expect((await api(url, 'projects', { method: 'POST', body: JSON.stringify({ name: 'Served' }) })).status).toBe(201);
      const file = fileOf('served.zip');
      const save = run('snapshot', 'save', file, '--url', url, '--token', ROOT_TOKEN);
      expect([await save.exited, save.output()]).toEqual([0, `forgekit: saved ${url}'s state to ${file}\n`]);

      expect((await api(url, 'projects/root%2Fserved', { method: 'DELETE' })).status).toBe(202);
      const load = run('snapshot', 'load', file, '--url', url, '--token', ROOT_TOKEN);
      expect([await load.exited, load.output()]).toEqual([0, `forgekit: loaded ${file} into ${url} as the snapshot served\n`]);
      expect((await api(url, 'projects/root%2Fserved')).status).toBe(200);

      const second = serve('--snapshot', file);
      const secondUrl = await listeningOn(second);
      expect(second.output()).toContain(`forgekit: started from ${file}, kept as the snapshot served`);
      expect(((await (await api(secondUrl, 'projects/root%2Fserved')).json()) as { name: string }).name).toBe('Served');

      const refused = run('snapshot', 'load', join(directory, 'missing.zip'), '--url', url, '--token', ROOT_TOKEN);
      expect(await refused.exited).toBe(1);
      const wrongToken = run('snapshot', 'save', file, '--url', url, '--token', 'not-a-token');
      expect(await wrongToken.exited).toBe(1);
      expect(wrongToken.output()).toContain(`forgekit: ${url} answered 401: "401 Unauthorized"`);
    });

    it('answers a usage error without save or load', async () => {
      const usage = run('snapshot', 'keep', 'file.zip', '--token', ROOT_TOKEN);
      expect(await usage.exited).toBe(2);
      expect(usage.output()).toContain('expected save or load and a FILE');
    });
  },
);
