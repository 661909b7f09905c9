import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { createUser, hasGit, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let developer: User;
let reporter: User;
let guest: User;
let stranger: User;
let storage: string;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
  [owner, developer, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

const git = (projectId: number, ...args: string[]) =>
  execFileSync('git', ['--git-dir', join(storage, RepositoryStore.relativePath(projectId)), ...args], { encoding: 'utf8' });
const url = (projectId: number, path: string, suffix = '') =>
  `/api/v4/projects/${projectId}/repository/files/${encodeURIComponent(path)}${suffix}`;
const base64 = (text: string) => Buffer.from(text).toString('base64');

/** A project of the owner's, with members at each level and README.md on master. */
async function project(visibility: 'private' | 'internal' | 'public' = 'private'): Promise<number> {
  const api = t.hosting.as(owner.id);
  const { id } = await api.projects.create({ name: `Files ${Math.random().toString(36).slice(2)}`, visibility });
  for (const [user, level] of [
    [developer, 30],
    [reporter, 20],
    [guest, 10],
  ] as const)
    await api.projectMembers.add(id, { user_id: user.id, access_level: level });
  await api.commits.create(id, {
    branch: 'master',
    commit_message: 'Initial',
    actions: [{ action: 'create', file_path: 'README.md', content: '# Hello\n' }],
  });
  return id;
}

describe('GET /projects/:id/repository/files/:file_path', () => {
  it('answers the file at a branch, a tag or a commit, its content in Base64, and the same metadata in headers', async () => {
    const id = await project();
    const first = (await t.hosting.commits.get(id, 'master')).id;
    const second = await t.hosting.commits.create(id, {
      branch: 'master',
      commit_message: 'Docs',
      actions: [{ action: 'create', file_path: 'docs/guide.md', content: 'Guide\n' }],
    });
    const res = await t.http.get(url(id, 'README.md')).query({ ref: 'master' }).set('PRIVATE-TOKEN', reporter.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      file_name: 'README.md',
      file_path: 'README.md',
      size: 8,
      encoding: 'base64',
      content: base64('# Hello\n'),
      content_sha256: createHash('sha256').update('# Hello\n').digest('hex'),
      ref: 'master',
      blob_id: res.body.blob_id,
      commit_id: second.id,
      last_commit_id: first,
      execute_filemode: false,
    });
    expect(res.body.blob_id).toMatch(/^[0-9a-f]{40}$/);
    if (hasGit) expect(git(id, 'rev-parse', 'master:README.md').trim()).toBe(res.body.blob_id);
    expect(res.headers).toMatchObject({
      'x-gitlab-blob-id': res.body.blob_id,
      'x-gitlab-commit-id': second.id,
      'x-gitlab-last-commit-id': first,
      'x-gitlab-file-name': 'README.md',
      'x-gitlab-file-path': 'README.md',
      'x-gitlab-ref': 'master',
      'x-gitlab-size': '8',
      'x-gitlab-encoding': 'base64',
      'x-gitlab-execute-filemode': 'false',
    });
    // HEAD: the headers alone (go-gitlab's GetFileMetaData).
    const head = await t.http.head(url(id, 'docs/guide.md')).query({ ref: 'master' }).set('PRIVATE-TOKEN', reporter.token);
    expect([head.status, head.headers['x-gitlab-file-path'], head.headers['x-gitlab-last-commit-id'], head.text]).toEqual([
      200,
      'docs/guide.md',
      second.id,
      undefined,
    ]);
    // At a commit (abbreviated too), and in process.
    const atFirst = await t.hosting.repositoryFiles.get(id, 'README.md', { ref: first.slice(0, 10) });
    expect([atFirst.commit_id, atFirst.ref]).toEqual([first, first.slice(0, 10)]);
    await expect(t.hosting.repositoryFiles.get(id, 'docs/guide.md', { ref: first })).rejects.toMatchObject({
      status: 404,
      message: '404 File Not Found',
    });
  });

  it('answers 404 for a missing file, ref or directory, 400 for a path that climbs out, and keeps a .json suffix', async () => {
    const id = await project();
    await t.hosting.commits.create(id, {
      branch: 'master',
      commit_message: 'JSON',
      actions: [{ action: 'create', file_path: 'config/app.json', content: '{}\n' }],
    });
    const get = (path: string, ref = 'master') => t.http.get(url(id, path)).query({ ref }).set('PRIVATE-TOKEN', owner.token);
    expect([(await get('missing.txt')).status, (await get('missing.txt')).body]).toEqual([404, { message: '404 File Not Found' }]);
    expect((await get('config')).body).toEqual({ message: '404 File Not Found' });
    expect((await get('README.md', 'nope')).body).toEqual({ message: '404 Commit Not Found' });
    expect([(await get('docs/../README.md')).status, (await get('docs/../README.md')).body]).toEqual([
      400,
      { message: REFUSALS.pathTraversal },
    ]);
    expect([(await get('a//b')).status, (await get('a//b')).body]).toEqual([400, { message: REFUSALS.invalidPath }]);
    // Leading slashes are dropped, as the original reads the path.
    expect((await get('/README.md')).body.file_path).toBe('README.md');
    expect((await get('config/app.json')).body.file_path).toBe('config/app.json');
    const missingRef = await t.http.get(url(id, 'README.md')).set('PRIVATE-TOKEN', owner.token);
    expect([missingRef.status, missingRef.body]).toEqual([400, { message: '400 (Bad request) "ref" not given' }]);
  });

  it('is read by anyone for a public project, by reporters of a private one: 403 to its guests, 404 to everyone else', async () => {
    const open = await project('public');
    expect((await t.http.get(url(open, 'README.md')).query({ ref: 'master' })).status).toBe(200);
    const closed = await project('private');
    const read = (token?: string) => {
      const request = t.http.get(url(closed, 'README.md')).query({ ref: 'master' });
      return token ? request.set('PRIVATE-TOKEN', token) : request;
    };
    expect([(await read()).status, (await read()).body]).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await read(stranger.token)).status).toBe(404);
    expect([(await read(guest.token)).status, (await read(guest.token)).body]).toEqual([403, { message: '403 Forbidden' }]);
    expect((await read(reporter.token)).status).toBe(200);
  });
});

describe('last_commit_id', () => {
  it('follows a file in a directory through its updates, and refuses an update from a stale one', async () => {
    const id = await project();
    const api = t.hosting.as(owner.id);
    await api.repositoryFiles.create(id, 'docs/deep/guide.md', { branch: 'master', content: 'one\n', commit_message: 'One' });
    const first = await api.repositoryFiles.get(id, 'docs/deep/guide.md', { ref: 'master' });
    await api.repositoryFiles.update(id, 'docs/deep/guide.md', {
      branch: 'master',
      content: 'two\n',
      commit_message: 'Two',
      last_commit_id: first.last_commit_id,
    });
    // Another file in the same directory changes; the guide's last commit stays.
    await api.repositoryFiles.create(id, 'docs/deep/other.md', { branch: 'master', content: 'x\n', commit_message: 'Other' });
    const second = await api.repositoryFiles.get(id, 'docs/deep/guide.md', { ref: 'master' });
    const titles = await api.commits.list(id);
    expect(second.last_commit_id).toBe(titles.find((commit) => commit.title === 'Two')!.id);
    expect((await api.repositoryFiles.get(id, 'docs/deep/guide.md', { ref: first.commit_id })).last_commit_id).toBe(first.last_commit_id);
    await expect(
      api.repositoryFiles.update(id, 'docs/deep/guide.md', {
        branch: 'master',
        content: 'three\n',
        commit_message: 'Three',
        last_commit_id: first.last_commit_id,
      }),
    ).rejects.toMatchObject({
      status: 400,
      messages: REFUSALS.fileChanged,
    });
  });
});

describe('GET /projects/:id/repository/files/:file_path/raw', () => {
  it('answers text as text/plain and binary bytes unchanged', async () => {
    const id = await project();
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 0]);
    await t.hosting.repositoryFiles.create(id, 'logo.bin', {
      branch: 'master',
      content: bytes.toString('base64'),
      encoding: 'base64',
      commit_message: 'Binary',
    });
    const text = await t.http
      .get(url(id, 'README.md', '/raw'))
      .query({ ref: 'master' })
      .set('PRIVATE-TOKEN', owner.token);
    expect([text.status, text.headers['content-type'], text.text]).toEqual([200, 'text/plain; charset=utf-8', '# Hello\n']);
    const binary = await t.http
      .get(url(id, 'logo.bin', '/raw'))
      .query({ ref: 'master' })
      .set('PRIVATE-TOKEN', owner.token)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect([binary.status, binary.headers['content-type']]).toEqual([200, 'application/octet-stream']);
    expect(Buffer.compare(binary.body as Buffer, bytes)).toBe(0);
    const inProcess = await t.hosting.repositoryFiles.raw(id, 'logo.bin', { ref: 'master' });
    expect([inProcess.size, Buffer.compare(Buffer.concat(await inProcess.data.toArray()), bytes)]).toEqual([bytes.byteLength, 0]);
  });

  it('streams files larger than a mebibyte with their length, loose or packed, deltified too; a HEAD request reads nothing', async () => {
    const id = await project();
    const api = t.hosting.as(owner.id);
    const binary = randomBytes(3 * 1024 * 1024 + 5);
    const text = Array.from({ length: 150_000 }, (_, line) => `line ${line}\n`).join('');
    const changed = text.replace('line 70000\n', 'line seventy thousand\n');
    await api.commits.create(id, {
      branch: 'master',
      commit_message: 'Large',
      actions: [
        { action: 'create', file_path: 'large.bin', content: binary.toString('base64'), encoding: 'base64' },
        { action: 'create', file_path: 'large.txt', content: text },
      ],
    });
    const first = (await api.commits.get(id, 'master')).id;
    await api.repositoryFiles.update(id, 'large.txt', { branch: 'master', content: changed, commit_message: 'Change a line' });
    const raw = (path: string, ref = 'master') =>
      t.http
        .get(url(id, path, '/raw'))
        .query({ ref })
        .set('PRIVATE-TOKEN', reporter.token)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
    const check = async (stored: string) => {
      for (const [path, ref, content, type] of [
        ['large.bin', 'master', binary, 'application/octet-stream'],
        ['large.txt', 'master', Buffer.from(changed), 'text/plain; charset=utf-8'],
        ['large.txt', first, Buffer.from(text), 'text/plain; charset=utf-8'],
      ] as const) {
        const res = await raw(path, ref);
        expect([
          stored,
          path,
          ref,
          res.status,
          res.headers['content-type'],
          res.headers['content-length'],
          Buffer.compare(res.body as Buffer, content),
        ]).toEqual([stored, path, ref, 200, type, String(content.byteLength), 0]);
      }
      const inProcess = await api.repositoryFiles.raw(id, 'large.bin', { ref: 'master' });
      expect(Buffer.compare(Buffer.concat(await inProcess.data.toArray()), binary)).toBe(0);
    };
    await check('loose');
    if (hasGit) {
      // One version of large.txt becomes a delta of the other.
      git(id, 'repack', '-a', '-d', '-f', '-q');
      const packs = join(storage, RepositoryStore.relativePath(id), 'objects', 'pack');
      const index = readdirSync(packs).find((name) => name.endsWith('.idx'))!;
      expect(git(id, 'verify-pack', '-v', join(packs, index))).toMatch(/chain length = 1: [1-9]/);
      await check('packed');
    }
    const head = await t.http
      .head(url(id, 'large.bin', '/raw'))
      .query({ ref: 'master' })
      .set('PRIVATE-TOKEN', reporter.token);
    expect([head.status, head.headers['content-length'], head.headers['content-type']]).toEqual([
      200,
      String(binary.byteLength),
      'application/octet-stream',
    ]);
  });
});

describe('POST, PUT and DELETE /projects/:id/repository/files/:file_path', () => {
  it('create, update and delete a file, each in a commit with the message and author given', async () => {
    const id = await project();
    const post = await t.http.post(url(id, 'src/app.rb')).set('PRIVATE-TOKEN', owner.token).send({
      branch: 'master',
      content: 'puts 1\n',
      commit_message: 'Add app',
      author_name: 'Ada Lovelace',
      author_email: 'ada@example.com',
    });
    expect([post.status, post.body]).toEqual([201, { file_name: 'app.rb', file_path: 'src/app.rb', branch: 'master' }]);
    const added = await t.hosting.commits.get(id, 'master');
    expect(added).toMatchObject({
      title: 'Add app',
      author_name: 'Ada Lovelace',
      author_email: 'ada@example.com',
      committer_email: owner.email,
    });
    const put = await t.http
      .put(url(id, 'src/app.rb'))
      .set('PRIVATE-TOKEN', owner.token)
      .send({ branch: 'master', content: base64('puts 2\n'), encoding: 'base64', commit_message: 'Change app', last_commit_id: added.id });
    expect([put.status, put.body]).toEqual([200, { file_name: 'app.rb', file_path: 'src/app.rb', branch: 'master' }]);
    expect(Buffer.from((await t.hosting.repositoryFiles.get(id, 'src/app.rb', { ref: 'master' })).content, 'base64').toString()).toBe(
      'puts 2\n',
    );
    const del = await t.http
      .delete(url(id, 'src/app.rb'))
      .set('PRIVATE-TOKEN', owner.token)
      .send({ branch: 'master', commit_message: 'Remove app' });
    expect([del.status, del.text]).toEqual([204, '']);
    const titles = (await t.hosting.commits.list(id)).map((commit) => commit.title);
    expect(titles).toEqual(['Remove app', 'Change app', 'Add app', 'Initial']);
    if (hasGit) {
      expect(git(id, 'log', '--format=%an <%ae> %s', 'master')).toContain('Ada Lovelace <ada@example.com> Add app');
      expect(git(id, 'fsck', '--full', '--strict')).toBe('');
    }
  });

  it('answers 400 with the original’s words for each write that cannot be made', async () => {
    const id = await project();
    const current = (await t.hosting.commits.get(id, 'master')).id;
    await t.hosting.repositoryFiles.update(id, 'README.md', { branch: 'master', content: '# Changed\n', commit_message: 'Change' });
    const write = (method: 'post' | 'put' | 'delete', path: string, body: Record<string, unknown>) =>
      t.http[method](url(id, path))
        .set('PRIVATE-TOKEN', owner.token)
        .send({ branch: 'master', commit_message: 'Write', ...body });
    const cases: [string, Promise<{ status: number; body: unknown }>, string][] = [
      ['creating a file that exists', write('post', 'README.md', { content: 'x' }), REFUSALS.fileExists],
      ['updating a file that does not', write('put', 'missing.md', { content: 'x' }), REFUSALS.fileMissing],
      ['deleting a file that does not', write('delete', 'missing.md', {}), REFUSALS.fileMissing],
      ['the content it has already', write('put', 'README.md', { content: '# Changed\n' }), REFUSALS.unchanged],
      [
        'a last_commit_id the file has moved on from',
        write('put', 'README.md', { content: 'y', last_commit_id: current }),
        REFUSALS.fileChanged,
      ],
      [
        'a last_commit_id of a file that is not there',
        write('put', 'missing.md', { content: 'y', last_commit_id: current }),
        REFUSALS.fileMissing,
      ],
      ['a path that climbs out of the repository', write('post', 'docs/../../etc/passwd', { content: 'x' }), REFUSALS.pathTraversal],
      ['a path into .git', write('post', '.git/hooks/post-update', { content: 'x' }), REFUSALS.invalidPath],
      ['a file where a directory is', write('post', 'README.md/inside', { content: 'x' }), REFUSALS.directoryExists],
      [
        'a branch that does not exist, without start_branch',
        write('post', 'new.md', { content: 'x', branch: 'nowhere' }),
        REFUSALS.notOnBranch,
      ],
      [
        'a start_branch that does not exist',
        write('post', 'new.md', { content: 'x', branch: 'topic', start_branch: 'nowhere' }),
        REFUSALS.notOnBranch,
      ],
      [
        'a start_branch when the branch exists',
        write('post', 'new.md', { content: 'x', branch: 'master', start_branch: 'other' }),
        REFUSALS.branchTaken('master'),
      ],
      [
        'a branch name git refuses',
        write('post', 'new.md', { content: 'x', branch: 'bad..name', start_branch: 'master' }),
        REFUSALS.branchNameInvalid,
      ],
    ];
    for (const [what, answer, message] of cases)
      expect([what, (await answer).status, (await answer).body]).toEqual([what, 400, { message }]);
    const invalid = await write('post', 'new.md', { content: 'not base64!', encoding: 'base64' });
    expect([invalid.status, invalid.body]).toEqual([400, { message: { content: ['is not valid Base64'] } }]);
    expect((await t.hosting.commits.list(id)).length).toBe(2);
  });

  it('makes a new branch from start_branch, and the first commit of an empty repository makes its default branch', async () => {
    const id = await project();
    const res = await t.http
      .post(url(id, 'feature.md'))
      .set('PRIVATE-TOKEN', developer.token)
      .send({ branch: 'feature', start_branch: 'master', content: 'x\n', commit_message: 'Feature' });
    expect([res.status, res.body]).toEqual([201, { file_name: 'feature.md', file_path: 'feature.md', branch: 'feature' }]);
    expect((await t.hosting.commits.get(id, 'feature')).parent_ids).toEqual([(await t.hosting.commits.get(id, 'master')).id]);
    const { id: empty } = await t.hosting.as(owner.id).projects.create({ name: `Empty ${Math.random().toString(36).slice(2)}` });
    expect((await t.hosting.projects.get(empty)).default_branch).toBeNull();
    await t.hosting.as(owner.id).repositoryFiles.create(empty, 'README.md', { branch: 'trunk', content: 'x\n', commit_message: 'First' });
    expect((await t.hosting.projects.get(empty)).default_branch).toBe('trunk');
    if (hasGit) expect(git(empty, 'symbolic-ref', 'HEAD')).toBe('refs/heads/trunk\n');
  });

  it(
    'lets only maintainers make the first commit while ' + 'default_branch_protection protects every branch of an empty repository',
    async () => {
      const { id } = await t.hosting.as(owner.id).projects.create({ name: `First ${Math.random().toString(36).slice(2)}` });
      await t.hosting.as(owner.id).projectMembers.add(id, { user_id: developer.id, access_level: 30 });
      const first = (user: User) =>
        t.http.post(url(id, 'README.md')).set('PRIVATE-TOKEN', user.token).send({ branch: 'main', content: 'x', commit_message: 'First' });
      expect([(await first(developer)).status, (await first(developer)).body]).toEqual([400, { message: REFUSALS.pushNotAllowed }]);
      try {
        await t.hosting.applicationSettings.update({ default_branch_protection: 1 });
        expect((await first(developer)).status).toBe(201);
      } finally {
        await t.hosting.applicationSettings.update({ default_branch_protection: 2 });
      }
    },
  );

  it('lets developers write, not reporters (403), and keeps protected branches to those their protection lets push', async () => {
    const id = await project();
    const write = (user: User, branch = 'master') =>
      t.http
        .post(url(id, `by-${user.username}-${branch}.md`))
        .set('PRIVATE-TOKEN', user.token)
        .send({ branch, content: 'x', commit_message: 'Write' });
    expect([(await write(reporter)).status, (await write(reporter)).body]).toEqual([403, { message: '403 Forbidden' }]);
    // master, the first branch, is protected as default_branch_protection (2) says: maintainers only.
    expect([(await write(developer)).status, (await write(developer)).body]).toEqual([400, { message: REFUSALS.pushNotAllowed }]);
    expect((await write(owner)).status).toBe(201);
    await t.hosting.branches.protect(id, 'master', { developers_can_push: true });
    expect((await write(developer)).status).toBe(201);
  });
});
