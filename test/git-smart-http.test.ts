/**
 * Native git against forgekit's smart HTTP (src/http/git.ts) at the URL `http_url_to_repo` names: clones and fetches
 * over protocol v2 and v0, as each kind of caller may (anonymous for public projects, signed in for internal ones, a
 * token, a password or `oauth2:<token>` for private ones), refusals as git shows them, and `git fsck` clean.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, hasGit, startHosting, type TestHosting } from './helpers.js';

type TestUser = Awaited<ReturnType<typeof createUser>>;

let t: TestHosting;
let server: Server;
let origin: string;
const work = mkdtempSync(join(tmpdir(), 'forgekit-git-http-'));
let owner: TestUser;
let stranger: TestUser;
const projects: Record<'public' | 'internal' | 'private', { id: number; url: string; head: string }> = {} as never;

/**
 * git, as a user at a terminal would run it but never prompted: credentials come in the URL or not at all. Run apart
 * from the event loop's thread (the server answering it runs in this process), and stopped should it hang.
 */
function git(args: string[], cwd = work): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, {
      cwd,
      timeout: 60_000,
      env: {
        ...process.env,
        GIT_TERMINAL_PROMPT: '0',
        GIT_ASKPASS: '',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: work,
        GIT_AUTHOR_NAME: 'Ada',
        GIT_AUTHOR_EMAIL: 'ada@example.com',
        GIT_COMMITTER_NAME: 'Ada',
        GIT_COMMITTER_EMAIL: 'ada@example.com',
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** The project's clone URL with credentials in it. */
const withCredentials = (url: string, login: string, password: string) => {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(login);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
};

let clones = 0;
const cloneDir = () => join(work, `clone-${++clones}`);

beforeAll(async () => {
  t = await startHosting();
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  owner = await createUser(t.hosting);
  stranger = await createUser(t.hosting);
  for (const visibility of ['public', 'internal', 'private'] as const) {
    const api = t.hosting.as(owner.id);
    const project = await api.projects.create({ name: `Cloned ${visibility}`, visibility });
    await api.commits.create(project.id, {
      branch: 'master',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'README.md', content: `# ${visibility}\n` }],
    });
    const second = await api.commits.create(project.id, {
      branch: 'master',
      commit_message: 'Second',
      actions: [{ action: 'create', file_path: 'src/main.ts', content: 'main();\n' }],
    });
    await api.tags.create(project.id, { tag_name: 'v1.0', ref: 'master', message: 'Release 1.0' });
    // The clone URL as the API gives it, on this server.
    const url = (await t.http.get(`/api/v4/projects/${project.id}`).set('PRIVATE-TOKEN', owner.token)).body.http_url_to_repo;
    projects[visibility] = { id: project.id, url: url.replace(/^http:\/\/[^/]+/, origin), head: second.id };
  }
}, 60_000);

afterAll(async () => {
  server?.close();
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A clone's state: its files, its branches and tags, and git's verdict on its objects. */
function cloned(dir: string) {
  const head = execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const tags = execFileSync('git', ['-C', dir, 'tag', '--list'], { encoding: 'utf8' }).trim();
  const fsck = spawnSync('git', ['-C', dir, 'fsck', '--full', '--strict'], { encoding: 'utf8' });
  return { head, tags, readme: readFileSync(join(dir, 'README.md'), 'utf8'), fsck: fsck.status };
}

describe.runIf(hasGit)('git clone and fetch over smart HTTP', () => {
  it.each(['2', '0'])('clones a public project anonymously over protocol v%s, with its tags, objects whole', async (version) => {
    const dir = cloneDir();
    const result = await git(['-c', `protocol.version=${version}`, 'clone', projects.public.url, dir]);
    expect(result.status, result.output).toBe(0);
    expect(cloned(dir)).toEqual({ head: projects.public.head, tags: 'v1.0', readme: '# public\n', fsck: 0 });
  });

  it('clones an internal project signed in (password or token), and asks anonymous callers for credentials', async () => {
    const anonymous = await git(['clone', projects.internal.url, cloneDir()]);
    expect(anonymous.status).not.toBe(0);
    expect(anonymous.output).toContain('could not read Username');
    for (const [login, password] of [
      [owner.username, owner.password],
      [stranger.username, stranger.token],
      ['oauth2', stranger.token],
    ]) {
      const dir = cloneDir();
      const result = await git(['clone', withCredentials(projects.internal.url, login, password), dir]);
      expect(result.status, `${login}: ${result.output}`).toBe(0);
      expect(cloned(dir).head).toBe(projects.internal.head);
    }
  });

  it("clones a private project with its member's credentials; a stranger is told it is not found, a wrong password refused", async () => {
    const dir = cloneDir();
    expect((await git(['clone', withCredentials(projects.private.url, 'anything', owner.token), dir])).status).toBe(0);
    expect(cloned(dir)).toMatchObject({ head: projects.private.head, fsck: 0 });
    const strangers = await git(['clone', withCredentials(projects.private.url, stranger.username, stranger.token), cloneDir()]);
    expect(strangers.status).not.toBe(0);
    expect(strangers.output).toMatch(/not found/i);
    const wrong = await git(['clone', withCredentials(projects.private.url, owner.username, 'wrong-password'), cloneDir()]);
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toContain('Authentication failed');
  });

  it('answers at the path without .git, and a shallow clone then deepened', async () => {
    const dir = cloneDir();
    const shallow = await git(['clone', '--depth', '1', projects.public.url.replace(/\.git$/, ''), dir]);
    expect(shallow.status, shallow.output).toBe(0);
    expect(execFileSync('git', ['-C', dir, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' }).trim()).toBe('1');
    const deepened = await git(['-C', dir, 'fetch', '--deepen', '1']);
    expect(deepened.status, deepened.output).toBe(0);
    expect(execFileSync('git', ['-C', dir, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' }).trim()).toBe('2');
  });

  it('serves more clones at once than it makes packs at once (the others wait their turn)', async () => {
    const dirs = Array.from({ length: 6 }, () => cloneDir());
    const results = await Promise.all(dirs.map((dir) => git(['clone', '--quiet', '--bare', projects.public.url, dir])));
    expect(results.map((result) => result.status)).toEqual(dirs.map(() => 0));
    for (const dir of dirs)
      expect(execFileSync('git', ['-C', dir, 'rev-parse', 'master'], { encoding: 'utf8' }).trim()).toBe(projects.public.head);
  });

  it('fetches what came since, and only that', async () => {
    const dir = cloneDir();
    expect((await git(['clone', projects.public.url, dir])).status).toBe(0);
    const third = await t.hosting.as(owner.id).commits.create(projects.public.id, {
      branch: 'master',
      commit_message: 'Third',
      actions: [{ action: 'create', file_path: 'third.txt', content: 'three\n' }],
    });
    const fetched = await git(['-C', dir, 'fetch', '--verbose', 'origin']);
    expect(fetched.status, fetched.output).toBe(0);
    expect(execFileSync('git', ['-C', dir, 'rev-parse', 'origin/master'], { encoding: 'utf8' }).trim()).toBe(third.id);
    // The commit, its tree and the new file, unpacked as loose objects (a clone keeps its pack): nothing it had.
    expect(execFileSync('git', ['-C', dir, 'count-objects', '-v'], { encoding: 'utf8' })).toMatch(/^count: 3$/m);
  });
});

describe.runIf(hasGit)('git push over smart HTTP', () => {
  /** A clone of the private project as the owner, with a commit of its own on `branch`. */
  async function cloneWithCommit(branch: string, message: string, file = `${branch}.txt`) {
    const dir = cloneDir();
    expect((await git(['clone', withCredentials(projects.private.url, owner.username, owner.token), dir])).status).toBe(0);
    await git(['-C', dir, 'checkout', '-B', branch]);
    execFileSync('sh', ['-c', `echo ${branch} > ${file}`], { cwd: dir });
    await git(['-C', dir, 'add', '.']);
    expect((await git(['-C', dir, 'commit', '-m', message])).status).toBe(0);
    return { dir, head: execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim() };
  }

  /** A new private project of the owner's at `path`, with a first commit: `README.md`, `# <path>`. */
  async function privateProjectWithReadme(path: string) {
    const api = t.hosting.as(owner.id);
    const project = await api.projects.create({ name: path, path, visibility: 'private' });
    await api.commits.create(project.id, {
      branch: 'master',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'README.md', content: `# ${path}\n` }],
    });
    return project;
  }

  it('pushes a new branch and a tag; the API shows them at once, and deleting the branch by a push removes it', async () => {
    const { dir, head } = await cloneWithCommit('feature', 'Feature work');
    const pushed = await git(['-C', dir, 'push', 'origin', 'feature']);
    expect(pushed.status, pushed.output).toBe(0);
    const api = t.hosting.as(owner.id);
    expect((await api.branches.get(projects.private.id, 'feature')).commit.id).toBe(head);
    expect((await api.commits.get(projects.private.id, head)).title).toBe('Feature work');
    await git(['-C', dir, 'tag', 'v2.0']);
    expect((await git(['-C', dir, 'push', 'origin', 'v2.0'])).status).toBe(0);
    expect((await api.tags.get(projects.private.id, 'v2.0')).commit?.id).toBe(head);
    const deleted = await git(['-C', dir, 'push', 'origin', ':feature']);
    expect(deleted.status, deleted.output).toBe(0);
    await expect(api.branches.get(projects.private.id, 'feature')).rejects.toMatchObject({ status: 404 });
  });

  it("refuses a reporter's push with the original's words, and a force push to the protected default branch", async () => {
    const reporter = await createUser(t.hosting);
    await t.hosting.as(owner.id).projectMembers.add(projects.private.id, { user_id: reporter.id, access_level: 20 });
    const { dir } = await cloneWithCommit('reported', 'A reporter writes');
    const refused = await git(['-C', dir, 'push', withCredentials(projects.private.url, reporter.username, reporter.token), 'reported']);
    expect(refused.status).not.toBe(0);
    expect(refused.output).toContain('You are not allowed to push code to this project.');

    // A commit beside master's head, forced onto master: the default branch is protected.
    const forced = await cloneWithCommit('master', 'Rewritten');
    await git(['-C', forced.dir, 'reset', '--soft', 'HEAD~2']);
    expect((await git(['-C', forced.dir, 'commit', '-m', 'Squashed'])).status).toBe(0);
    const result = await git(['-C', forced.dir, 'push', '--force', 'origin', 'master']);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('You are not allowed to force push code to a protected branch on this project.');
    expect((await t.hosting.as(owner.id).branches.get(projects.private.id, 'master')).commit.id).toBe(projects.private.head);
  });

  it('lands none of an atomic push when one of its references is refused', async () => {
    const { dir, head } = await cloneWithCommit('atomic-one', 'One');
    await git(['-C', dir, 'branch', 'atomic-two', head]);
    await git(['-C', dir, 'branch', '-f', 'master', 'HEAD~2']);
    const result = await git(['-C', dir, 'push', '--atomic', '--force', 'origin', 'atomic-one', 'master']);
    expect(result.status).not.toBe(0);
    const branches = (await t.hosting.as(owner.id).branches.list(projects.private.id)).map((branch) => branch.name);
    expect(branches).not.toContain('atomic-one');
  });

  it("moves a merge request's head when its source branch is pushed, and closes an issue named on the default branch", async () => {
    const api = t.hosting.as(owner.id);
    const source = await cloneWithCommit('reviewed', 'To review');
    expect((await git(['-C', source.dir, 'push', 'origin', 'reviewed'])).status).toBe(0);
    const request = await api.mergeRequests.create(projects.private.id, {
      source_branch: 'reviewed',
      target_branch: 'master',
      title: 'Review',
    });
    execFileSync('sh', ['-c', 'echo more >> reviewed.txt'], { cwd: source.dir });
    await git(['-C', source.dir, 'commit', '-am', 'More']);
    expect((await git(['-C', source.dir, 'push', 'origin', 'reviewed'])).status).toBe(0);
    const moved = execFileSync('git', ['-C', source.dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect((await api.mergeRequests.get(projects.private.id, request.iid)).sha).toBe(moved);

    const issue = await api.issues.create(projects.private.id, { title: 'Fixed by a push' });
    const fix = await cloneWithCommit('master', `Fix it\n\nCloses #${issue.iid}`, 'fix.txt');
    const pushed = await git(['-C', fix.dir, 'push', 'origin', 'master']);
    expect(pushed.status, pushed.output).toBe(0);
    expect(await api.issues.get(projects.private.id, issue.iid)).toMatchObject({ state: 'closed' });
  });

  it('lands one of 20 concurrent pushes to one branch from one base; pushes and API commits made together lose nothing', async () => {
    const api = t.hosting.as(owner.id);
    const project = await privateProjectWithReadme('raced');
    const url = withCredentials(`${origin}/${owner.username}/raced.git`, owner.username, owner.token);
    const base = cloneDir();
    expect((await git(['clone', '--quiet', url, base])).status).toBe(0);
    /** A copy of the clone, with a commit of its own. */
    const racer = async (index: number) => {
      const dir = cloneDir();
      execFileSync('cp', ['-a', base, dir]);
      expect((await git(['-C', dir, 'commit', '--allow-empty', '-m', `Racer ${index}`])).status).toBe(0);
      return { dir, head: execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim() };
    };
    const racers = await Promise.all(Array.from({ length: 20 }, (_, index) => racer(index)));
    const pushes = await Promise.all(racers.map(({ dir }) => git(['-C', dir, 'push', 'origin', 'master'])));
    const landed = racers.filter((_, index) => pushes[index].status === 0);
    expect(landed).toHaveLength(1);
    for (const push of pushes.filter((result) => result.status !== 0)) expect(push.output).toMatch(/\[(remote )?rejected\]/);
    expect((await api.branches.get(project.id, 'master')).commit.id).toBe(landed[0].head);

    // Pushes and API commits to the same branch at once: whatever each was told landed is in its history.
    const next = await Promise.all(Array.from({ length: 5 }, (_, index) => racer(20 + index)));
    const [pushed, committed] = await Promise.all([
      Promise.all(next.map(({ dir }) => git(['-C', dir, 'push', 'origin', 'master']))),
      Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          api.commits.create(project.id, {
            branch: 'master',
            commit_message: `Through the API ${index}`,
            actions: [{ action: 'create', file_path: `api-${index}.txt`, content: `${index}\n` }],
          }),
        ),
      ),
    ]);
    const dir = cloneDir();
    expect((await git(['clone', '--quiet', url, dir])).status).toBe(0);
    const history = execFileSync('git', ['-C', dir, 'rev-list', 'master'], { encoding: 'utf8' }).trim().split('\n');
    for (const commit of committed) expect(history).toContain(commit.id);
    for (const [index, { head }] of next.entries()) if (pushed[index].status === 0) expect(history).toContain(head);
    expect(history).toContain(landed[0].head);
    expect(cloned(dir).fsck).toBe(0);
  });

  it('refuses a corrupt pack with `unpack <error>`, and the repository is as it was', async () => {
    const path = new URL(projects.private.url).pathname;
    const before = await git(['ls-remote', withCredentials(projects.private.url, owner.username, owner.token)]);
    const command = `${'0'.repeat(40)} ${projects.private.head} refs/heads/corrupt\0report-status\n`;
    const pack = Buffer.concat([Buffer.from('PACK\0\0\0\x02\0\0\0\x03', 'latin1'), Buffer.from('a damaged pack, cut short')]);
    const response = await fetch(`${origin}${path}/git-receive-pack`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-git-receive-pack-request',
        Authorization: `Basic ${Buffer.from(`${owner.username}:${owner.token}`).toString('base64')}`,
      },
      body: Buffer.concat([Buffer.from(`${(command.length + 4).toString(16).padStart(4, '0')}${command}0000`), pack]),
    });
    expect(response.status).toBe(200);
    const report = await response.text();
    expect(report).toMatch(/unpack (?!ok)/);
    expect(report).toContain('ng refs/heads/corrupt');
    const after = await git(['ls-remote', withCredentials(projects.private.url, owner.username, owner.token)]);
    expect(after.output).toBe(before.output);
    const dir = cloneDir();
    expect(
      (await git(['clone', '--quiet', '--mirror', withCredentials(projects.private.url, owner.username, owner.token), dir])).status,
    ).toBe(0);
    expect(spawnSync('git', ['-C', dir, 'fsck', '--full', '--strict'], { encoding: 'utf8' }).status).toBe(0);
  });

  it("redirects git from a renamed or moved project's old path to where it is now, for those who may see it", async () => {
    const api = t.hosting.as(owner.id);
    const project = await privateProjectWithReadme('moving');
    const oldUrl = `${origin}/${owner.username}/moving.git`;
    await api.projects.update(project.id, { path: 'moved' });
    const group = await api.groups.create({ name: `Movers ${owner.id}`, path: `movers-${owner.id}` });
    await api.projects.transfer(project.id, { namespace: group.id });
    await api.groups.update(group.id, { path: `moved-movers-${owner.id}` });
    const newUrl = `${origin}/moved-movers-${owner.id}/moved.git`;

    const dir = cloneDir();
    const clone = await git(['clone', withCredentials(oldUrl, owner.username, owner.token), dir]);
    expect(clone.status, clone.output).toBe(0);
    expect(clone.output).toContain(`warning: redirecting to ${newUrl}/`);
    expect(cloned(dir)).toMatchObject({ readme: '# moving\n', fsck: 0 });
    // A push through the old remote lands on the project where it is now.
    await git(['-C', dir, 'commit', '--allow-empty', '-m', 'Through the old path']);
    const pushed = await git(['-C', dir, 'push', 'origin', 'master']);
    expect(pushed.status, pushed.output).toBe(0);
    expect((await api.commits.get(project.id, 'master')).title).toBe('Through the old path');
    // Each old path of the group's: the project's own, and the group's.
    const viaOldGroup = await git(['ls-remote', withCredentials(`${origin}/movers-${owner.id}/moved.git`, owner.username, owner.token)]);
    expect(viaOldGroup.status, viaOldGroup.output).toBe(0);

    // Who may not see the project is not told where it went.
    const strangers = await git(['ls-remote', withCredentials(oldUrl, stranger.username, stranger.token)]);
    expect(strangers.status).toBe(128);
    expect(strangers.output).not.toContain('redirecting');
    // A project that takes the old path is served there.
    const taker = await api.projects.create({ name: 'Taker', path: 'moving', visibility: 'public' });
    const served = await git(['ls-remote', oldUrl]);
    expect(served.status, served.output).toBe(0);
    expect(served.output).not.toContain('redirecting');
    await api.projects.delete(taker.id);
  });
});
