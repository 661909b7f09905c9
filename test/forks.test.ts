import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/database.js';
import { RepositoryStore } from '../src/git/store.js';
import { createUser, migratedDataDir, ROOT_TOKEN, sharedHosting, startHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
let storage: string;
beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const unique = (stem: string) => `${stem}-${process.pid}-${(counter += 1)}`;

const git = (args: string[], cwd?: string) =>
  execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    },
  }).toString();

/** Two commits pushed with the native git into the bare repository at `gitdir`, on its `master`. */
function pushCommits(gitdir: string): void {
  const work = mkdtempSync(join(tmpdir(), 'forgekit-forks-work-'));
  try {
    git(['init', '-q', '-b', 'master', work]);
    for (const name of ['one', 'two']) {
      execFileSync('sh', ['-c', `echo ${name} > ${name}.txt`], { cwd: work });
      git(['add', '.'], work);
      git(['commit', '-q', '-m', `Add ${name}`], work);
    }
    git(['tag', 'v1'], work);
    git(['push', '-q', gitdir, 'master', 'v1'], work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const log = (gitdir: string) => git(['--git-dir', gitdir, 'log', '--format=%H %s', 'master']);

describe('POST /projects/:id/fork', () => {
  it(
    'answers at once (import_status scheduled); a job copies the repository, ' + 'commits and tags alike, and the fork is counted',
    async () => {
      const owner = await createUser(t.hosting);
      const forker = await createUser(t.hosting);
      const source = await t.hosting
        .as(owner.id)
        .projects.create({ name: unique('source'), visibility: 'internal', description: 'Original', tag_list: ['x'] });
      const sourceDir = join(storage, RepositoryStore.relativePath(source.id));
      pushCommits(sourceDir);

      const res = await t.http
        .post(`/api/v4/projects/${source.id}/fork`)
        .set('PRIVATE-TOKEN', forker.token)
        .send({ namespace: forker.username });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        name: source.name,
        path: source.path,
        path_with_namespace: `${forker.username}/${source.path}`,
        description: 'Original',
        visibility: 'internal',
        tag_list: ['x'],
        import_status: 'scheduled',
        forked_from_project: {
          id: source.id,
          path_with_namespace: source.path_with_namespace,
          web_url: `http://forge.test/${source.path_with_namespace}`,
        },
      });
      await t.hosting.backgroundJobs.drain();
      const fork = await t.hosting.projects.get(res.body.id);
      // The source's repository was pushed to with native git: the fork's default branch is the one its HEAD names.
      expect([fork.import_status, fork.import_error, fork.default_branch]).toEqual(['finished', null, 'master']);
      const forkDir = join(storage, RepositoryStore.relativePath(fork.id));
      expect(log(forkDir)).toBe(log(sourceDir));
      expect(git(['--git-dir', forkDir, 'tag'])).toBe('v1\n');
      git(['--git-dir', forkDir, 'fsck', '--strict']);
      // Its commits indexed for walks, as git verifies a commit-graph.
      expect(existsSync(join(forkDir, 'objects', 'info', 'commit-graph'))).toBe(true);
      git(['--git-dir', forkDir, 'commit-graph', 'verify']);

      expect((await t.hosting.projects.get(source.id)).forks_count).toBe(1);
      const forks = await t.http.get(`/api/v4/projects/${source.id}/forks`).set('PRIVATE-TOKEN', owner.token);
      expect([forks.status, forks.body.map((item: { id: number }) => item.id), forks.headers['x-total']]).toEqual([200, [fork.id], '1']);
      expect(
        (await t.http.get(`/api/v4/projects/${source.id}/forks`).query({ owned: true }).set('PRIVATE-TOKEN', owner.token)).body,
      ).toEqual([]);
    },
  );

  it("forks into the caller's namespace by default, into groups it may create projects in by ID or path, and nowhere else", async () => {
    const owner = await createUser(t.hosting);
    const forker = await createUser(t.hosting);
    const source = await t.hosting.as(owner.id).projects.create({ name: unique('spread'), visibility: 'public' });
    const group = await t.hosting.as(forker.id).groups.create({ name: unique('Forks'), path: unique('forks'), visibility: 'private' });
    const foreign = await t.hosting.groups.create({ name: unique('Foreign'), path: unique('foreign'), visibility: 'public' });
    const fork = (body: object) => t.http.post(`/api/v4/projects/${source.id}/fork`).set('PRIVATE-TOKEN', forker.token).send(body);

    const own = await fork({});
    expect([own.status, own.body.namespace.id]).toEqual([
      201,
      (await t.hosting.as(forker.id).namespaces.list({ search: forker.username }))[0].id,
    ]);
    const again = await fork({});
    expect([again.status, again.body]).toEqual([409, { message: { name: ['has already been taken'], path: ['has already been taken'] } }]);
    const intoGroup = await fork({ namespace: group.path });
    // No more open than the group it went into.
    expect([intoGroup.status, intoGroup.body.namespace.id, intoGroup.body.visibility]).toEqual([201, group.id, 'private']);
    const renamed = await fork({ namespace: group.id, name: 'Second', path: 'second' });
    expect([renamed.status, renamed.body.path_with_namespace]).toEqual([201, `${group.path}/second`]);
    expect((await fork({ namespace: foreign.id })).body).toEqual({ message: '404 Target Namespace Not Found' });
    expect((await fork({ namespace: 'no/such/namespace' })).body).toEqual({ message: '404 Target Namespace Not Found' });
    await t.hosting.backgroundJobs.drain();
  });

  it('is 404 to those who may not see a private project and 403 to its guests', async () => {
    const owner = await createUser(t.hosting);
    const guest = await createUser(t.hosting);
    const stranger = await createUser(t.hosting);
    const source = await t.hosting.as(owner.id).projects.create({ name: unique('closed') });
    await t.hosting.projectMembers.add(source.id, { user_id: guest.id, access_level: 10 });
    expect((await t.http.post(`/api/v4/projects/${source.id}/fork`).set('PRIVATE-TOKEN', stranger.token)).body).toEqual({
      message: '404 Project Not Found',
    });
    expect((await t.http.post(`/api/v4/projects/${source.id}/fork`).set('PRIVATE-TOKEN', guest.token)).status).toBe(403);
    expect((await t.http.post(`/api/v4/projects/${source.id}/fork`).set('PRIVATE-TOKEN', ROOT_TOKEN)).status).toBe(201);
    await t.hosting.backgroundJobs.drain();
  });
});

describe('a fork interrupted by a restart', () => {
  it('completes after the restart', async () => {
    const dataDir = migratedDataDir();
    const repositories = join(dataDir, 'repositories');
    try {
      const first = await startHosting({ database: { dataDir } });
      const source = await first.hosting.projects.create({ name: 'source' });
      pushCommits(join(repositories, RepositoryStore.relativePath(source.id)));
      const fork = await first.hosting.projects.fork(source.id, { path: 'fork', name: 'fork' });
      await first.hosting.backgroundJobs.drain();
      await first.close();

      // As a crash mid-copy leaves it: the job running under a lease that no process renews, the fork started
      // and its repository half there.
      const db = await openDatabase({ dataDir });
      await db.rows.execute(
        `update "jobs" set "status" = 'running', "locked_by" = 'crashed', "locked_until" = now() + interval '1 hour', "finished_at" = null`,
      );
      await db.rows.execute(`update "projects" set "import_status" = 'started' where "id" = ?`, [fork.id]);
      await db.close();
      const forkDir = join(repositories, RepositoryStore.relativePath(fork.id));
      rmSync(join(forkDir, 'objects'), { recursive: true, force: true });

      const second = await startHosting({ database: { dataDir } });
      try {
        await second.hosting.backgroundJobs.drain();
        expect((await second.hosting.projects.get(fork.id)).import_status).toBe('finished');
        expect(log(forkDir)).toBe(log(join(repositories, RepositoryStore.relativePath(source.id))));
        git(['--git-dir', forkDir, 'fsck', '--strict']);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
