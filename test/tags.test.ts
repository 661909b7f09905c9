import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Repository, TAG_PREFIX } from '../src/git/repository.js';
import { RepositoryStore } from '../src/git/store.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { createUser, hasGit, linkHeader, pageHeaders, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let developer: User;
let reporter: User;
let storage: string;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  storage = t.storage;
  [owner, developer, reporter] = await Promise.all([1, 2, 3].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

const gitdir = (projectId: number) => join(storage, RepositoryStore.relativePath(projectId));
const git = (projectId: number, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir(projectId), ...args], { encoding: 'utf8' });
const tagsUrl = (id: number) => `/api/v4/projects/${id}/repository/tags`;
const releasesUrl = (id: number) => `/api/v4/projects/${id}/releases`;
const names = (body: { name: string }[]) => body.map((tag) => tag.name);

/** A project of the owner's with a developer and a reporter, README.md on master. */
async function project(visibility: 'private' | 'public' = 'private'): Promise<{ id: number; path: string; head: string }> {
  const api = t.hosting.as(owner.id);
  const created = await api.projects.create({ name: `Tags ${Math.random().toString(36).slice(2)}`, visibility });
  await api.projectMembers.add(created.id, { user_id: developer.id, access_level: 30 });
  await api.projectMembers.add(created.id, { user_id: reporter.id, access_level: 20 });
  const head = await api.commits.create(created.id, {
    branch: 'master',
    commit_message: 'Initial',
    actions: [{ action: 'create', file_path: 'README.md', content: 'x\n' }],
  });
  return { id: created.id, path: created.path_with_namespace, head: head.id };
}

/** A commit on top of `parent` committed at `timestamp` (seconds), written beside forgekit: no reference names it. */
async function commitAt(projectId: number, parent: string, timestamp: number): Promise<string> {
  const repo = new Repository(gitdir(projectId));
  const signature = { name: 'Ada', email: 'ada@example.com', timestamp, offsetMinutes: 60 };
  const { tree } = await repo.readCommit(parent);
  return repo.writeCommit({ tree, parents: [parent], message: `At ${timestamp}\n`, author: signature, committer: signature });
}

/** The release rows of a project, as the database has them. */
const releaseRows = (projectId: number) =>
  t.db.rows.execute<{ tag_name: string; description: string }[]>(
    'select "tag_name", "description" from "releases" where "project_id" = ? order by "tag_name"',
    [projectId],
  );

describe('tags', () => {
  it(
    'are listed by name, the last first; ' + 'by the date of their commit with order_by=updated; sort and search turn and filter them',
    async () => {
      const { id, head } = await project();
      const old = await commitAt(id, head, 1_262_304_000); // 2010
      const recent = await commitAt(id, head, 1_577_836_800); // 2020
      for (const [tag_name, ref] of [
        ['v1.0', old],
        ['v2.0', recent],
        ['v1.10', 'master'],
        ['Beta', 'master'],
      ]) {
        expect((await t.http.post(tagsUrl(id)).set('PRIVATE-TOKEN', developer.token).send({ tag_name, ref })).status).toBe(201);
      }
      const list = (query: Record<string, string> = {}) => t.http.get(tagsUrl(id)).query(query).set('PRIVATE-TOKEN', reporter.token);
      const byDefault = await list();
      expect([byDefault.status, names(byDefault.body)]).toEqual([200, ['v2.0', 'v1.10', 'v1.0', 'Beta']]);
      expect(names((await list({ sort: 'asc' })).body)).toEqual(['Beta', 'v1.0', 'v1.10', 'v2.0']);
      expect(names((await list({ order_by: 'name', sort: 'desc' })).body)).toEqual(['v2.0', 'v1.10', 'v1.0', 'Beta']);
      // Beta and v1.10 name the same commit: by name between them.
      expect(names((await list({ order_by: 'updated' })).body)).toEqual(['v1.10', 'Beta', 'v2.0', 'v1.0']);
      expect(names((await list({ order_by: 'updated', sort: 'asc' })).body)).toEqual(['v1.0', 'v2.0', 'Beta', 'v1.10']);
      expect(names((await list({ search: '^V1' })).body)).toEqual(['v1.10', 'v1.0']);
      expect(names((await list({ search: '0$' })).body)).toEqual(['v2.0', 'v1.10', 'v1.0']);
      expect(names((await list({ search: 'et' })).body)).toEqual(['Beta']);
      const bad = await list({ order_by: 'size' });
      expect([bad.status, bad.body]).toEqual([400, { message: { order_by: ['does not have a valid value'] } }]);
      // In process, the same order and the size of the whole list.
      const inProcess = await t.hosting.as(reporter.id).tags.list(id, { per_page: 3 });
      expect([names(inProcess), inProcess.total, inProcess.totalPages]).toEqual([['v2.0', 'v1.10', 'v1.0'], 4, 2]);
    },
  );

  it('are paginated with the Link and X-* headers', async () => {
    const { id } = await project();
    for (const name of ['t1', 't2', 't3', 't4', 't5']) await t.hosting.tags.create(id, { tag_name: name, ref: 'master' });
    const res = await t.http.get(tagsUrl(id)).query({ per_page: 2, page: 2 }).set('PRIVATE-TOKEN', owner.token);
    expect(names(res.body)).toEqual(['t3', 't2']);
    expect(pageHeaders(res.headers)).toEqual({ total: 5, totalPages: 3, perPage: 2, page: 2, nextPage: 3, prevPage: 1 });
    expect(Object.keys(linkHeader(res.headers.link)).sort()).toEqual(['first', 'last', 'next', 'prev']);
  });

  it(
    'are lightweight (message null, the commit their target) or annotated (the annotation, its tag object the target, ' +
      'the caller its tagger)',
    async () => {
      const { id, path, head } = await project();
      const commit = await t.hosting.commits.get(id, head);
      const { stats: _stats, status: _status, last_pipeline: _pipeline, project_id: _project, ...presented } = commit;
      const light = await t.http
        .post(tagsUrl(id))
        .set('PRIVATE-TOKEN', developer.token)
        .send({ tag_name: 'light', ref: head.slice(0, 8) });
      expect([light.status, light.body]).toEqual([
        201,
        { name: 'light', message: null, target: head, commit: presented, release: null, protected: false },
      ]);
      expect(presented.web_url).toBe(`http://forge.test/${path}/commit/${head}`);

      const annotated = await t.http
        .post(tagsUrl(id))
        .set('PRIVATE-TOKEN', developer.token)
        .send({ tag_name: 'release/1.0', ref: 'light', message: '  Release 1.0\n\nThe first one.\n  ' });
      expect(annotated.status).toBe(201);
      expect(annotated.body).toEqual({
        name: 'release/1.0',
        message: 'Release 1.0\n\nThe first one.',
        target: annotated.body.target,
        commit: presented,
        release: null,
        protected: false,
      });
      expect(annotated.body.target).toMatch(/^[0-9a-f]{40}$/);
      expect(annotated.body.target).not.toBe(head);
      // A blank message makes a lightweight tag.
      const blank = await t.hosting.as(developer.id).tags.create(id, { tag_name: 'blank', ref: 'master', message: ' \n' });
      expect([blank.message, blank.target]).toEqual([null, head]);

      const read = await t.http.get(`${tagsUrl(id)}/${encodeURIComponent('release/1.0')}`).set('PRIVATE-TOKEN', reporter.token);
      expect([read.status, read.body]).toEqual([200, annotated.body]);
      if (hasGit) {
        expect(git(id, 'for-each-ref', '--format=%(refname:short) %(objecttype) %(objectname) %(*objectname)', 'refs/tags')).toBe(
          `blank commit ${head} \nlight commit ${head} \nrelease/1.0 tag ${annotated.body.target} ${head}\n`,
        );
        const object = git(id, 'cat-file', '-p', annotated.body.target);
        expect(object).toMatch(
          new RegExp(
            `^object ${head}\ntype commit\ntag release/1\\.0\ntagger User [^<]+ <${developer.email}> \\d+ \\+0000\n\n` +
              `Release 1\\.0\n\nThe first one\\.\n$`,
          ),
        );
        expect(git(id, 'describe', '--tags', '--exact-match', 'release/1.0')).toBe('release/1.0\n');
        git(id, 'fsck', '--strict');
      }
    },
  );

  it('keep release_description as their release notes, unless blank', async () => {
    const { id } = await project();
    const created = await t.http
      .post(tagsUrl(id))
      .set('PRIVATE-TOKEN', developer.token)
      .send({ tag_name: 'v1', ref: 'master', release_description: '## Notes\n\n- one' });
    expect([created.status, created.body.release]).toEqual([201, { tag_name: 'v1', description: '## Notes\n\n- one' }]);
    expect((await t.http.get(`${tagsUrl(id)}/v1`).set('PRIVATE-TOKEN', reporter.token)).body.release).toEqual({
      tag_name: 'v1',
      description: '## Notes\n\n- one',
    });
    const blank = await t.http
      .post(tagsUrl(id))
      .set('PRIVATE-TOKEN', developer.token)
      .send({ tag_name: 'v2', ref: 'master', release_description: ' \n ' });
    expect([blank.status, blank.body.release]).toEqual([201, null]);
    expect(await releaseRows(id)).toEqual([{ tag_name: 'v1', description: '## Notes\n\n- one' }]);
    // The list reads them with the page.
    expect((await t.hosting.tags.list(id)).map((tag) => [tag.name, tag.release?.description ?? null])).toEqual([
      ['v2', null],
      ['v1', '## Notes\n\n- one'],
    ]);
  });

  it('that cannot be made answer 405 with the original’s words, and change nothing', async () => {
    const { id, head } = await project();
    await t.hosting.tags.create(id, { tag_name: 'v1', ref: 'master' });
    await t.hosting.branches.create(id, { branch: 'topic', ref: 'master' });
    const post = (body: object) => t.http.post(tagsUrl(id)).set('PRIVATE-TOKEN', owner.token).send(body);
    for (const [body, message] of [
      [{ tag_name: 'v1', ref: 'master', release_description: 'Again' }, 'Tag v1 already exists'],
      [{ tag_name: 'v2', ref: 'nowhere' }, 'Target nowhere is invalid'],
      [{ tag_name: 'v2', ref: '0000000000000000000000000000000000000000' }, 'Target 0000000000000000000000000000000000000000 is invalid'],
      [{ tag_name: 'a..b', ref: 'master' }, 'Tag name invalid'],
      [{ tag_name: 'with space', ref: 'master' }, 'Tag name invalid'],
      [{ tag_name: '-dash', ref: 'master' }, 'Tag name invalid'],
      [{ tag_name: 'HEAD', ref: 'master' }, 'Tag name invalid'],
      [{ tag_name: 'refs/heads/x', ref: 'master' }, 'Tag name invalid'],
      [{ tag_name: 'refs/remotes/x', ref: 'master' }, 'Tag name invalid'],
      [{ tag_name: 'v1/patch', ref: 'master', release_description: 'Notes' }, REFUSALS.referenceInTheWay('v1/patch')],
    ] as const) {
      const res = await post(body);
      expect([body.tag_name, res.status, res.body]).toEqual([body.tag_name, 405, { message }]);
    }
    expect(REFUSALS.tagExists('v1')).toBe('Tag v1 already exists');
    const missing = await post({ ref: 'master' });
    expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "tag_name" not given' }]);
    // The release row of v1/patch was written before its reference failed to move: rolled back with the call.
    expect(await releaseRows(id)).toEqual([]);
    expect(names(await t.hosting.tags.list(id))).toEqual(['v1']);
    if (hasGit) expect(git(id, 'for-each-ref', '--format=%(refname)')).toBe(`refs/heads/master\nrefs/heads/topic\nrefs/tags/v1\n`);
    // A tag may share a branch's name, and a tag's ref may be a commit of no branch.
    const orphan = await commitAt(id, head, 1_600_000_000);
    expect((await post({ tag_name: 'topic', ref: orphan })).status).toBe(201);
    expect((await t.hosting.tags.get(id, 'topic')).commit?.id).toBe(orphan);
  });

  it('are deleted with their release; a missing tag is 404', async () => {
    const { id } = await project();
    await t.hosting.tags.create(id, { tag_name: 'v1', ref: 'master', message: 'One', release_description: 'Notes' });
    const deleted = await t.http.delete(`${tagsUrl(id)}/v1`).set('PRIVATE-TOKEN', owner.token);
    expect([deleted.status, deleted.text]).toEqual([204, '']);
    expect(await releaseRows(id)).toEqual([]);
    for (const request of [
      t.http.get(`${tagsUrl(id)}/v1`),
      t.http.delete(`${tagsUrl(id)}/v1`),
      t.http.get(`${tagsUrl(id)}/${encodeURIComponent('not a tag')}`),
    ]) {
      const res = await request.set('PRIVATE-TOKEN', owner.token);
      expect([res.status, res.body]).toEqual([404, { message: '404 Tag Not Found' }]);
    }
    // Made again, it starts without a release.
    expect((await t.hosting.tags.create(id, { tag_name: 'v1', ref: 'master' })).release).toBeNull();
    if (hasGit) git(id, 'fsck', '--strict');
  });

  it(
    'leave no release behind: a release whose tag went (a crash between the tag’s deletion and its commit) is shown nowhere, ' +
      'and a new tag of that name replaces it',
    async () => {
      const { id, head } = await project();
      await t.hosting.tags.create(id, { tag_name: 'v1', ref: 'master', release_description: 'Old notes' });
      await t.hosting.releases.create(id, { tag_name: 'v2', ref: 'master', description: 'Kept' });
      // What the crash leaves: the reference gone, the row still there.
      await new Repository(gitdir(id)).updateReference(`${TAG_PREFIX}v1`, head, null);
      expect(await releaseRows(id)).toEqual([
        { tag_name: 'v1', description: 'Old notes' },
        { tag_name: 'v2', description: 'Kept' },
      ]);
      expect((await t.hosting.releases.list(id)).map((release) => release.tag_name)).toEqual(['v2']);
      const res = await t.http.get(`${releasesUrl(id)}/v1`).set('PRIVATE-TOKEN', owner.token);
      expect([res.status, res.body]).toEqual([404, { message: '404 Not Found' }]);
      const recreated = await t.http.post(tagsUrl(id)).set('PRIVATE-TOKEN', owner.token).send({ tag_name: 'v1', ref: 'master' });
      expect([recreated.status, recreated.body.release]).toEqual([201, null]);
      expect(await releaseRows(id)).toEqual([{ tag_name: 'v2', description: 'Kept' }]);
    },
  );
});

describe('release notes of a tag', () => {
  it('are added once (409 after), changed, and 404 without a tag or without notes', async () => {
    const { id } = await project();
    await t.hosting.tags.create(id, { tag_name: 'v1.0', ref: 'master' });
    const url = (tag: string) => `${tagsUrl(id)}/${encodeURIComponent(tag)}/release`;
    const changedMissing = await t.http.put(url('v1.0')).set('PRIVATE-TOKEN', developer.token).send({ description: 'x' });
    expect([changedMissing.status, changedMissing.body]).toEqual([404, { message: 'Release does not exist' }]);
    const created = await t.http.post(url('v1.0')).set('PRIVATE-TOKEN', developer.token).send({ description: 'First' });
    expect([created.status, created.body]).toEqual([201, { tag_name: 'v1.0', description: 'First' }]);
    const again = await t.http.post(url('v1.0')).set('PRIVATE-TOKEN', developer.token).send({ description: 'Second' });
    expect([again.status, again.body]).toEqual([409, { message: 'Release already exists' }]);
    const changed = await t.http.put(url('v1.0')).set('PRIVATE-TOKEN', developer.token).send({ description: 'Changed' });
    expect([changed.status, changed.body]).toEqual([200, { tag_name: 'v1.0', description: 'Changed' }]);
    expect((await t.hosting.tags.get(id, 'v1.0')).release).toEqual({ tag_name: 'v1.0', description: 'Changed' });
    for (const request of [t.http.post(url('nowhere')), t.http.put(url('nowhere'))]) {
      const res = await request.set('PRIVATE-TOKEN', developer.token).send({ description: 'x' });
      expect([res.status, res.body]).toEqual([404, { message: 'Tag does not exist' }]);
    }
    const blank = await t.http.post(url('v1.0')).set('PRIVATE-TOKEN', developer.token).send({});
    expect([blank.status, blank.body]).toEqual([400, { message: '400 (Bad request) "description" not given' }]);
  });
});

describe('who may', () => {
  it('read tags: anyone of a public project; of a private one, its reporters, 404 to others', async () => {
    const open = await project('public');
    await t.hosting.tags.create(open.id, { tag_name: 'v1', ref: 'master', release_description: 'Public notes' });
    const anonymous = await t.http.get(tagsUrl(open.id));
    expect([anonymous.status, names(anonymous.body)]).toEqual([200, ['v1']]);
    expect((await t.http.get(`${tagsUrl(open.id)}/v1`)).body.release).toEqual({ tag_name: 'v1', description: 'Public notes' });
    expect((await t.http.get(releasesUrl(open.id))).body.map((release: { tag_name: string }) => release.tag_name)).toEqual(['v1']);
    const anonymousWrite = await t.http.post(tagsUrl(open.id)).send({ tag_name: 'v2', ref: 'master' });
    expect([anonymousWrite.status, anonymousWrite.body]).toEqual([401, { message: '401 Unauthorized' }]);

    const closed = await project('private');
    await t.hosting.tags.create(closed.id, { tag_name: 'v1', ref: 'master' });
    const stranger = await createUser(t.hosting);
    for (const request of [t.http.get(tagsUrl(closed.id)), t.http.get(`${tagsUrl(closed.id)}/v1`), t.http.get(releasesUrl(closed.id))]) {
      const res = await request;
      expect([res.status, res.body]).toEqual([404, { message: '404 Project Not Found' }]);
    }
    const asStranger = await t.http.get(tagsUrl(closed.id)).set('PRIVATE-TOKEN', stranger.token);
    expect([asStranger.status, asStranger.body]).toEqual([404, { message: '404 Project Not Found' }]);
    expect((await t.http.get(tagsUrl(closed.id)).set('PRIVATE-TOKEN', reporter.token)).status).toBe(200);
  });

  it(
    'write tags and releases: developers, not reporters (403); ' + 'change or delete a tag that exists: maintainers (400 to developers)',
    async () => {
      const { id } = await project();
      await t.hosting.tags.create(id, { tag_name: 'v1', ref: 'master' });
      const asReporter = [
        t.http.post(tagsUrl(id)).send({ tag_name: 'v2', ref: 'master' }),
        t.http.delete(`${tagsUrl(id)}/v1`),
        t.http.post(`${tagsUrl(id)}/v1/release`).send({ description: 'x' }),
        t.http.put(`${tagsUrl(id)}/v1/release`).send({ description: 'x' }),
        t.http.post(releasesUrl(id)).send({ tag_name: 'v1' }),
        t.http.put(`${releasesUrl(id)}/v1`).send({ name: 'x' }),
        t.http.delete(`${releasesUrl(id)}/v1`),
      ];
      for (const request of asReporter) {
        const res = await request.set('PRIVATE-TOKEN', reporter.token);
        expect([res.status, res.body]).toEqual([403, { message: '403 Forbidden' }]);
      }
      expect(await releaseRows(id)).toEqual([]);
      const api = t.hosting.as(developer.id);
      expect((await api.tags.create(id, { tag_name: 'v2', ref: 'master' })).name).toBe('v2');
      expect(await api.tags.createRelease(id, 'v2', { description: 'Notes' })).toEqual({ tag_name: 'v2', description: 'Notes' });
      expect((await api.releases.update(id, 'v2', { name: 'Two' })).name).toBe('Two');
      // The original's push rules: only maintainers change a tag that exists, and say so first to others.
      const deleting = await t.http.delete(`${tagsUrl(id)}/v2`).set('PRIVATE-TOKEN', developer.token);
      expect([deleting.status, deleting.body]).toEqual([400, { message: 'You are not allowed to change existing tags on this project.' }]);
      const again = await t.http.post(tagsUrl(id)).set('PRIVATE-TOKEN', developer.token).send({ tag_name: 'v2', ref: 'master' });
      expect([again.status, again.body]).toEqual([405, { message: 'You are not allowed to change existing tags on this project.' }]);
      const againAsOwner = await t.http.post(tagsUrl(id)).set('PRIVATE-TOKEN', owner.token).send({ tag_name: 'v2', ref: 'master' });
      expect([againAsOwner.status, againAsOwner.body]).toEqual([405, { message: 'Tag v2 already exists' }]);
      expect((await t.hosting.tags.get(id, 'v2')).release).toEqual({ tag_name: 'v2', description: 'Notes' });
      // Releases are the developers' to delete: the tag stays.
      expect((await api.releases.delete(id, 'v2')).tag_name).toBe('v2');
      expect((await t.http.delete(`${tagsUrl(id)}/v2`).set('PRIVATE-TOKEN', owner.token)).status).toBe(204);
      expect(names(await api.tags.list(id))).toEqual(['v1']);
    },
  );
});

describe('the releases API', () => {
  it('makes a release of a tag, or of a tag it makes from ref; 409 when the tag has one, 422 without a tag or a ref', async () => {
    const { id, head } = await project();
    const commit = await t.hosting.commits.get(id, head);
    const { stats: _stats, status: _status, last_pipeline: _pipeline, project_id: _project, ...presented } = commit;
    const developerUser = await t.hosting.users.get(developer.id);
    const created = await t.http
      .post(releasesUrl(id))
      .set('PRIVATE-TOKEN', developer.token)
      .send({ tag_name: 'v1.0', ref: 'master', name: 'First', description: 'Notes', tag_message: 'Annotated', milestones: ['ignored'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      tag_name: 'v1.0',
      name: 'First',
      description: 'Notes',
      created_at: created.body.created_at,
      released_at: created.body.released_at,
      author: {
        id: developer.id,
        name: developerUser.name,
        username: developer.username,
        state: 'active',
        avatar_url: developerUser.avatar_url,
        web_url: `http://forge.test/${developer.username}`,
      },
      commit: presented,
      upcoming_release: false,
      assets: { count: 0, sources: [], links: [] },
    });
    expect(created.body.released_at).toBe(created.body.created_at);
    const tag = await t.hosting.tags.get(id, 'v1.0');
    expect([tag.message, tag.release]).toEqual(['Annotated', { tag_name: 'v1.0', description: 'Notes' }]);

    // A tag that exists: no ref needed; name and description default to the tag's name and nothing.
    await t.hosting.tags.create(id, { tag_name: 'v0.9', ref: 'master' });
    const plain = await t.http.post(releasesUrl(id)).set('PRIVATE-TOKEN', developer.token).send({ tag_name: 'v0.9' });
    expect([plain.status, plain.body.name, plain.body.description, plain.body.commit.id]).toEqual([201, 'v0.9', '', head]);

    const again = await t.http.post(releasesUrl(id)).set('PRIVATE-TOKEN', developer.token).send({ tag_name: 'v1.0', ref: 'master' });
    expect([again.status, again.body]).toEqual([409, { message: 'Release already exists' }]);
    const noRef = await t.http.post(releasesUrl(id)).set('PRIVATE-TOKEN', developer.token).send({ tag_name: 'v2.0' });
    expect([noRef.status, noRef.body]).toEqual([422, { message: 'Ref is not specified' }]);
    for (const [body, message] of [
      [{ tag_name: 'bad name', ref: 'master' }, 'Tag name invalid'],
      [{ tag_name: 'v2.0', ref: 'nowhere' }, 'Target nowhere is invalid'],
      [{ tag_name: 'v1.0/x', ref: 'master' }, REFUSALS.referenceInTheWay('v1.0/x')],
    ] as const) {
      const res = await t.http.post(releasesUrl(id)).set('PRIVATE-TOKEN', developer.token).send(body);
      expect([res.status, res.body]).toEqual([400, { message }]);
    }
    expect(names(await t.hosting.tags.list(id))).toEqual(['v1.0', 'v0.9']);
    expect((await releaseRows(id)).map((row) => row.tag_name)).toEqual(['v0.9', 'v1.0']);
  });

  it('lists releases by release date, the latest first (order_by, sort), paginated; a date to come makes an upcoming release', async () => {
    const { id } = await project();
    const api = t.hosting.as(developer.id);
    for (const [tag_name, released_at] of [
      ['v1', '2020-01-01T00:00:00Z'],
      ['v3', '2099-06-01T12:00:00+02:00'],
      ['v2', '2021-03-04T05:06:07.890Z'],
    ]) {
      await api.releases.create(id, { tag_name, ref: 'master', released_at });
    }
    const res = await t.http.get(releasesUrl(id)).query({ per_page: 2 }).set('PRIVATE-TOKEN', reporter.token);
    expect(res.status).toBe(200);
    expect(
      res.body.map((release: { tag_name: string; released_at: string; upcoming_release: boolean }) => [
        release.tag_name,
        release.released_at,
        release.upcoming_release,
      ]),
    ).toEqual([
      ['v3', '2099-06-01T10:00:00.000Z', true],
      ['v2', '2021-03-04T05:06:07.890Z', false],
    ]);
    expect(pageHeaders(res.headers)).toEqual({ total: 3, totalPages: 2, perPage: 2, page: 1, nextPage: 2, prevPage: null });
    const list = async (query: object) => (await api.releases.list(id, query)).map((release) => release.tag_name);
    expect(await list({ sort: 'asc' })).toEqual(['v1', 'v2', 'v3']);
    // Made one after another: by creation, v1 first.
    expect(await list({ order_by: 'created_at', sort: 'asc' })).toEqual(['v1', 'v3', 'v2']);
    const one = await t.http.get(`${releasesUrl(id)}/v2`).set('PRIVATE-TOKEN', reporter.token);
    expect([one.status, one.body]).toEqual([200, (await api.releases.list(id)).find((release) => release.tag_name === 'v2')]);
  });

  it(
    'updates a release’s name, notes and date (a null changes nothing; nothing at all is 400) and deletes it, answering with it; ' +
      'its tag stays',
    async () => {
      const { id } = await project();
      await t.hosting.releases.create(id, { tag_name: 'rel/v1.0', ref: 'master', name: 'One', description: 'Notes' });
      const url = `${releasesUrl(id)}/${encodeURIComponent('rel/v1.0')}`;
      // go-gitlab sends the options it has no value for as null, and the dot as %2E.
      const renamed = await t.http
        .put(url.replace('.', '%2E'))
        .set('PRIVATE-TOKEN', developer.token)
        .send({ name: 'Renamed', description: null });
      expect([renamed.status, renamed.body.name, renamed.body.description]).toEqual([200, 'Renamed', 'Notes']);
      const dated = await t.http
        .put(url)
        .set('PRIVATE-TOKEN', developer.token)
        .send({ description: 'New notes', released_at: '2030-01-01T00:00:00Z' });
      expect([dated.body.name, dated.body.description, dated.body.released_at, dated.body.upcoming_release]).toEqual([
        'Renamed',
        'New notes',
        '2030-01-01T00:00:00.000Z',
        true,
      ]);
      const nothing = await t.http.put(url).set('PRIVATE-TOKEN', developer.token).send({ name: null });
      expect([nothing.status, nothing.body]).toEqual([400, { message: 'params is empty' }]);
      expect((await t.hosting.tags.get(id, 'rel/v1.0')).release).toEqual({ tag_name: 'rel/v1.0', description: 'New notes' });

      const deleted = await t.http.delete(url).set('PRIVATE-TOKEN', developer.token);
      expect([deleted.status, deleted.body]).toEqual([200, dated.body]);
      expect((await t.hosting.tags.get(id, 'rel/v1.0')).release).toBeNull();
      for (const [request, message] of [
        [t.http.get(url), '404 Not Found'],
        [t.http.put(url).send({ name: 'x' }), 'Release does not exist'],
        [t.http.put(url).send({}), 'Release does not exist'],
        [t.http.delete(url), 'Release does not exist'],
        [t.http.put(`${releasesUrl(id)}/nowhere`).send({ name: 'x' }), 'Tag does not exist'],
        [t.http.delete(`${releasesUrl(id)}/nowhere`), 'Tag does not exist'],
        [t.http.get(`${releasesUrl(id)}/nowhere`), '404 Not Found'],
      ] as const) {
        const res = await request.set('PRIVATE-TOKEN', developer.token);
        expect([res.status, res.body]).toEqual([404, { message }]);
      }
    },
  );

  it('shows a release whose author is gone without an author, and tags named with quotes', async () => {
    const { id } = await project();
    const leaving = await createUser(t.hosting);
    await t.hosting.projectMembers.add(id, { user_id: leaving.id, access_level: 30 });
    await t.hosting.as(leaving.id).releases.create(id, { tag_name: `it's-"quoted"`, ref: 'master' });
    await t.hosting.users.delete(leaving.id);
    const [release] = await t.hosting.releases.list(id);
    expect([release.tag_name, 'author' in release]).toEqual([`it's-"quoted"`, false]);
  });
});
