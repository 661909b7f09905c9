/**
 * A repository's housekeeping (src/git/housekeeping.ts), as `git gc` does it: what the references reach packed into
 * one pack with its reachability bitmap, the loose objects and packs it replaced removed, unreachable objects kept
 * through the grace period and pruned after it, nothing lost to writes made meanwhile; and `POST
 * /projects/:id/housekeeping` with the job that every tenth branch push queues.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { housekeep } from '../src/git/housekeeping.js';
import { Repository } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import { createUser, fsck, hasGit, sharedHosting, type SharedHosting } from './helpers.js';
import { GIT_ENV } from './git-http.js';

const root = mkdtempSync(join(tmpdir(), 'forgekit-housekeeping-'));
const MONTH_AGO = (Date.now() - 30 * 24 * 3600 * 1000) / 1000;

const git = (gitdir: string, args: string[], input?: string) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', env: GIT_ENV, input }).trim();

/** The repository's loose objects and pack files. */
function objectsOf(gitdir: string) {
  const loose: string[] = [];
  for (const fanOut of readdirSync(join(gitdir, 'objects')).filter((name) => /^[0-9a-f]{2}$/.test(name))) {
    for (const name of readdirSync(join(gitdir, 'objects', fanOut))) loose.push(fanOut + name);
  }
  const packs = readdirSync(join(gitdir, 'objects', 'pack')).sort();
  return { loose: loose.sort(), packs };
}

/** A loose object of `content`, written as far back as `time` (seconds): no reference reaches it. */
function unreachableBlob(gitdir: string, content: string, time?: number): string {
  const oid = git(gitdir, ['hash-object', '-w', '--stdin'], content);
  if (time !== undefined) utimesSync(join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2)), time, time);
  return oid;
}

/** A bare repository with `main` of `commits` commits, its first ones in a pack and the last few loose, and a tag. */
function repositoryWithHistory(name: string, commits = 40): { gitdir: string; work: string } {
  const gitdir = join(root, `${name}.git`);
  const work = join(root, `${name}-work`);
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', gitdir]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', work]);
  const inWork = (args: string[]) => execFileSync('git', ['-C', work, ...args], { env: GIT_ENV });
  for (let index = 0; index < commits; index++) {
    execFileSync('sh', ['-c', `mkdir -p dir-${index % 5} && echo ${index} > dir-${index % 5}/file-${index}.txt`], { cwd: work });
    inWork(['add', '--all']);
    inWork(['commit', '--quiet', '-m', `commit ${index}`]);
    // The first ones pushed as a pack (over git's unpack limit), the last ones as loose objects.
    if (index === commits - 4) inWork(['push', '--quiet', gitdir, 'main']);
  }
  inWork(['tag', '-a', '-m', 'version one', 'v1', 'HEAD~1']);
  inWork(['-c', 'transfer.unpackLimit=1000', 'push', '--quiet', gitdir, 'main', 'v1']);
  return { gitdir, work };
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.runIf(hasGit)('housekeeping a repository', () => {
  it('packs what references reach into one pack with a bitmap, drops what it replaced, prunes what is past the grace period', async () => {
    const { gitdir } = repositoryWithHistory('packed');
    expect(objectsOf(gitdir).packs.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    const reachable = git(gitdir, ['rev-list', '--objects', '--all']).split('\n').length;
    const old = unreachableBlob(gitdir, 'unreachable and old\n', MONTH_AGO);
    const young = unreachableBlob(gitdir, 'unreachable and young\n');

    const repo = new Repository(gitdir);
    const result = await housekeep(repo);
    repo.release();

    expect(result).toEqual({ packed: reachable, looseObjectsRemoved: expect.any(Number), packsRemoved: 1, bitmap: true });
    const { loose, packs } = objectsOf(gitdir);
    // The young unreachable object stays loose; the old one went; every reachable one is in the new pack.
    expect(loose).toEqual([young]);
    expect(existsSync(join(gitdir, 'objects', old.slice(0, 2), old.slice(2)))).toBe(false);
    expect(packs.map((name) => name.replace(/[0-9a-f]{40}/, 'X'))).toEqual(['pack-X.bitmap', 'pack-X.idx', 'pack-X.pack']);
    expect(fsck(gitdir)).toBe('0 ');
    expect(spawnSync('git', ['--git-dir', gitdir, 'rev-list', '--test-bitmap', 'main'], { encoding: 'utf8' }).status).toBe(0);
    expect(git(gitdir, ['count-objects', '-v'])).toMatch(/^count: 1$/m);
    // The commit-graph was written anew: git reads it.
    expect(existsSync(join(gitdir, 'objects', 'info', 'commit-graph'))).toBe(true);
    expect(spawnSync('git', ['--git-dir', gitdir, 'commit-graph', 'verify'], { encoding: 'utf8' }).status).toBe(0);

    // Run again with nothing new: nothing to do.
    const again = new Repository(gitdir);
    expect(await housekeep(again)).toEqual({ packed: 0, looseObjectsRemoved: 0, packsRemoved: 0, bitmap: false });
    again.release();
  });

  it('keeps the commits the database names, and a pack of unreachable objects until it is past the grace period', async () => {
    const { gitdir, work } = repositoryWithHistory('kept', 12);
    const inWork = (args: string[]) => execFileSync('git', ['-C', work, ...args], { env: GIT_ENV, encoding: 'utf8' });
    inWork(['checkout', '--quiet', '-b', 'topic']);
    execFileSync('sh', ['-c', 'echo topic > topic.txt'], { cwd: work });
    inWork(['add', '--all']);
    inWork(['commit', '--quiet', '-m', 'topic']);
    const named = inWork(['rev-parse', 'HEAD']).trim();
    const tree = inWork(['rev-parse', 'HEAD^{tree}']).trim();
    inWork(['push', '--quiet', gitdir, 'topic']);
    // The branch deleted, its commit old: only the database's naming of it keeps it.
    git(gitdir, ['update-ref', '-d', 'refs/heads/topic']);
    for (const oid of [named, tree]) {
      const path = join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
      if (existsSync(path)) utimesSync(path, MONTH_AGO, MONTH_AGO);
    }
    const repo = new Repository(gitdir);
    await housekeep(repo, { keep: [named, '0'.repeat(40)] });
    repo.release();
    expect(git(gitdir, ['cat-file', '-t', named])).toBe('commit');
    expect(git(gitdir, ['cat-file', '-t', tree])).toBe('tree');
    expect(fsck(gitdir)).toBe('0 ');

    // Without the database's word, and past the grace period, it goes with the pack that held it.
    const unnamed = new Repository(gitdir);
    await housekeep(unnamed, { pruneAfterMs: 0 });
    unnamed.release();
    expect(spawnSync('git', ['--git-dir', gitdir, 'cat-file', '-e', named]).status).not.toBe(0);
    expect(objectsOf(gitdir).packs.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    expect(fsck(gitdir)).toBe('0 ');
  });

  it('loses nothing that is written while it runs, and reads go on from the new pack', async () => {
    const { gitdir } = repositoryWithHistory('busy', 30);
    const writer = new Repository(gitdir);
    const head = (await writer.branch('main'))!;
    const housekept = new Repository(gitdir);
    // A grace period of a minute: with none (git's --prune=now), an object written as it starts may be taken for an
    // old unreachable one, in git as here.
    const running = housekeep(housekept, { pruneAfterMs: 60_000 }).finally(() => housekept.release());
    let parent = head;
    for (let index = 0; index < 20; index++) {
      const blob = await writer.writeBlob(Buffer.from(`written meanwhile ${index}\n`));
      const tree = await writer.writeTree([{ name: `meanwhile-${index}.txt`, mode: '100644', oid: blob, type: 'blob' }]);
      const person = { name: 'Ada', email: 'ada@example.com', timestamp: 1_700_000_000 + index, offsetMinutes: 0 };
      const commit = await writer.writeCommit({
        tree,
        parents: [parent],
        message: `meanwhile ${index}\n`,
        author: person,
        committer: person,
      });
      await writer.updateReference('refs/heads/main', parent, commit);
      parent = commit;
    }
    await running;
    // Every commit reads back, through a reader opened before the repack and a new one.
    expect((await writer.readCommit(head)).oid).toBe(head);
    expect((await writer.readCommit(parent)).parents.length).toBe(1);
    writer.release();
    expect(fsck(gitdir)).toBe('0 ');
    expect(git(gitdir, ['rev-list', '--count', 'main'])).toBe('50');
  });
});

describe.runIf(hasGit)('POST /projects/:id/housekeeping', () => {
  let t: SharedHosting;
  beforeAll(async () => {
    t = await sharedHosting();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("queues the repository's housekeeping for maintainers, 409 while one is pending; every tenth branch push queues one", async () => {
    const owner = await createUser(t.hosting);
    const developer = await createUser(t.hosting);
    const api = t.hosting.as(owner.id);
    const project = await api.projects.create({ name: 'Kept tidy', visibility: 'public' });
    await api.projectMembers.add(project.id, { user_id: developer.id, access_level: 30 });
    const gitdir = join(t.storage, RepositoryStore.relativePath(project.id));
    /** `count` commits of a new file each, one after another: each a branch push. */
    const commitFiles = async (prefix: string, count: number) => {
      for (let index = 0; index < count; index++) {
        await api.commits.create(project.id, {
          branch: 'master',
          commit_message: `${prefix} ${index}`,
          actions: [{ action: 'create', file_path: `${prefix}-${index}.txt`, content: `${index}\n` }],
        });
      }
    };
    // Nine commits: one short of the tenth push that queues housekeeping on its own.
    await commitFiles('file', 9);
    await t.hosting.backgroundJobs.drain();
    expect(objectsOf(gitdir).packs).toEqual([]);

    const refused = await t.http.post(`/api/v4/projects/${project.id}/housekeeping`).set('PRIVATE-TOKEN', developer.token);
    expect(refused.status).toBe(403);
    expect((await t.http.post(`/api/v4/projects/${project.id}/housekeeping`)).status).toBe(401);

    // One pending: the next is refused, in the original's words.
    const [pending] = await t.db.rows.execute(
      `insert into jobs (kind, payload, status, attempts, max_attempts, run_at, locked_until, created_at)
       values ('housekeeping', '{"projectId": ${project.id}}', 'running', 1, 3, now(), now() + interval '1 hour', now()) returning id`,
    );
    const conflict = await t.http.post(`/api/v4/projects/${project.id}/housekeeping`).set('PRIVATE-TOKEN', owner.token);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ message: 'Somebody already triggered housekeeping for this project in the past 1440 minutes' });
    await t.db.rows.execute(`delete from jobs where id = ${pending.id}`);

    const started = await t.http.post(`/api/v4/projects/${project.id}/housekeeping`).set('PRIVATE-TOKEN', owner.token);
    expect(started.status).toBe(201);
    expect(started.body).toMatch(/^\d+$/);
    expect(await t.hosting.backgroundJobs.settled(Number(started.body))).toMatchObject({ status: 'finished', error: null });
    const packed = objectsOf(gitdir);
    expect(packed.loose).toEqual([]);
    expect(packed.packs.map((name) => name.replace(/[0-9a-f]{40}/, 'X'))).toEqual(['pack-X.bitmap', 'pack-X.idx', 'pack-X.pack']);
    expect(fsck(gitdir)).toBe('0 ');
    // The API reads on from the pack.
    const files = await api.repository.tree(project.id, {});
    expect(files.map((file) => file.name)).toHaveLength(9);

    // The call counted as no push; ten pushes later, housekeeping runs on its own.
    await commitFiles('more', 10);
    await t.hosting.backgroundJobs.drain();
    const again = objectsOf(gitdir);
    expect(again.loose).toEqual([]);
    expect(again.packs.filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    expect(fsck(gitdir)).toBe('0 ');
    expect(git(gitdir, ['rev-list', '--count', 'master'])).toBe('19');
  });
});
