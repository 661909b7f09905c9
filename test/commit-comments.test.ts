import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../src/errors.js';
import { changedLines } from '../src/services/repository/commit-comments.js';
import { REFUSALS } from '../src/services/repository/refusals.js';
import { createUser, pageHeaders, queriesOf, type SharedHosting, sharedHosting, userReference } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let reporter: User;
let guest: User;
let stranger: User;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  [owner, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

const commentsUrl = (id: number, sha: string) => `/api/v4/projects/${id}/repository/commits/${encodeURIComponent(sha)}/comments`;

/**
 * A project with two commits on master: the first makes README.md (`one two three`), the second changes its
 * line 2 and adds a line 4, and adds b.txt. The second's diff of README.md is `@@ -1,3 +1,4 @@`, ` one`,
 * `-two`, `+TWO`, ` three`, `+four`.
 */
async function project(visibility: 'private' | 'public' = 'private'): Promise<{ id: number; first: string; second: string }> {
  const api = t.hosting.as(owner.id);
  const { id } = await api.projects.create({ name: `Comments ${Math.random().toString(36).slice(2)}`, visibility });
  await api.projectMembers.add(id, { user_id: reporter.id, access_level: 20 });
  await api.projectMembers.add(id, { user_id: guest.id, access_level: 10 });
  const first = await api.commits.create(id, {
    branch: 'master',
    commit_message: 'First',
    actions: [{ action: 'create', file_path: 'README.md', content: 'one\ntwo\nthree\n' }],
  });
  const second = await api.commits.create(id, {
    branch: 'master',
    commit_message: 'Second',
    actions: [
      { action: 'update', file_path: 'README.md', content: 'one\nTWO\nthree\nfour\n' },
      { action: 'create', file_path: 'b.txt', content: 'b\n' },
    ],
  });
  return { id, first: first.id, second: second.id };
}

const post = (id: number, sha: string, body: Record<string, unknown>, user: User = reporter) =>
  t.http.post(commentsUrl(id, sha)).set('PRIVATE-TOKEN', user.token).send(body);

/** A comment's author as answers embed it: the user reference with its e-mail address and when it joined (SPEC.md). */
const reference = async (user: User) => {
  const { created_at } = (await t.hosting.users.get(user.id)) as { created_at: string };
  return { ...userReference(user, 'http://forge.test'), email: user.email, created_at };
};

const placement = (body: { path: unknown; line: unknown; line_type: unknown }) => [body.path, body.line, body.line_type];

describe('POST /projects/:id/repository/commits/:sha/comments', () => {
  it('answers 201 with a comment on a line the commit adds, given the full SHA, the path, the line and `new`', async () => {
    const { id, second } = await project();
    const res = await post(id, second, { note: 'Why capitals?', path: 'README.md', line: 2, line_type: 'new' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      note: 'Why capitals?',
      path: 'README.md',
      line: 2,
      line_type: 'new',
      author: await reference(reporter),
      created_at: res.body.created_at,
    });
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it(
    'places a comment on an added line (`new`, the default) ' + 'or a removed one (`old`, by its old number); otherwise on the commit',
    async () => {
      const { id, first, second } = await project();
      const cases: [string, Record<string, unknown>, unknown[]][] = [
        [second, { path: 'README.md', line: 4 }, ['README.md', 4, 'new']],
        [second, { path: 'README.md', line: 2, line_type: 'old' }, ['README.md', 2, 'old']],
        [second, { path: 'b.txt', line: 1, line_type: 'new' }, ['b.txt', 1, 'new']],
        [first, { path: 'README.md', line: 3, line_type: 'new' }, ['README.md', 3, 'new']],
        // A line the commit leaves as it was (context), one past the diff, one of the other side: on the commit.
        [second, { path: 'README.md', line: 3, line_type: 'new' }, [null, null, null]],
        [second, { path: 'README.md', line: 99, line_type: 'new' }, [null, null, null]],
        [second, { path: 'README.md', line: 4, line_type: 'old' }, [null, null, null]],
        [second, { path: 'README.md', line: 0 }, [null, null, null]],
        [second, { path: 'README.md', line: null }, [null, null, null]],
        // A path the commit does not change, or no file has.
        [first, { path: 'b.txt', line: 1, line_type: 'new' }, [null, null, null]],
        [second, { path: 'nope.txt', line: 1, line_type: 'new' }, [null, null, null]],
        // By branch name, or an abbreviated SHA: the same rules.
        ['master', { path: 'README.md', line: 2, line_type: 'new' }, ['README.md', 2, 'new']],
        ['master', { path: 'nope.txt', line: 1, line_type: 'new' }, [null, null, null]],
        ['master', { path: 'README.md', line: 1000, line_type: 'new' }, [null, null, null]],
        [second.slice(0, 8), { path: 'README.md', line: 4 }, ['README.md', 4, 'new']],
        // A line without a path, and go-gitlab's explicit nulls: on the commit.
        [second, { line: 2, line_type: 'new' }, [null, null, null]],
        [second, { path: null, line: null, line_type: null }, [null, null, null]],
      ];
      for (const [sha, body, expected] of cases) {
        const res = await post(id, sha, { note: 'n', ...body });
        expect([sha, JSON.stringify(body), res.status, placement(res.body)]).toEqual([sha, JSON.stringify(body), 201, expected]);
      }
      const inProcess = await t.hosting
        .as(reporter.id)
        .commitComments.create(id, second, { note: 'In process', path: 'README.md', line: 2, line_type: 'old' });
      expect(placement(inProcess)).toEqual(['README.md', 2, 'old']);
    },
  );

  it('answers 400 for a missing or blank note, a path without a line, a bad line type or line; 404 for an unknown commit', async () => {
    const { id, second } = await project();
    const cases: [Record<string, unknown>, unknown][] = [
      [{}, '400 (Bad request) "note" not given'],
      [{ note: ' \n' }, REFUSALS.noteBlank],
      [{ note: 'n', path: 'README.md' }, '400 (Bad request) "line" not given'],
      [{ note: 'n', path: 'README.md', line: 2, line_type: 'both' }, { line_type: ['does not have a valid value'] }],
      [{ note: 'n', path: 'README.md', line: 'two' }, { line: ['is invalid'] }],
      [{ note: 'n', path: 'README.md', line: 2 ** 31 }, { line: ['must be less than or equal to 2147483647'] }],
    ];
    for (const [body, message] of cases) {
      const res = await post(id, second, body);
      expect([JSON.stringify(body), res.status, res.body]).toEqual([JSON.stringify(body), 400, { message }]);
    }
    const missing = await post(id, 'f'.repeat(40), { note: 'n' });
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Commit Not Found' }]);
    await expect(t.hosting.as(reporter.id).commitComments.create(id, 'no-such-branch', { note: 'n' })).rejects.toThrow(NotFoundError);
    expect(await t.hosting.commitComments.list(id, second)).toEqual([]);
  });

  it('lets whoever may read the code comment; a private project is 404 to a stranger; anonymous callers must sign in', async () => {
    const { id, second } = await project();
    const byGuest = await post(id, second, { note: 'n' }, guest);
    expect([byGuest.status, byGuest.body]).toEqual([403, { message: '403 Forbidden' }]);
    const hidden = await post(id, second, { note: 'n' }, stranger);
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 Project Not Found' }]);
    const open = await project('public');
    expect((await post(open.id, open.second, { note: 'From outside' }, stranger)).status).toBe(201);
    const anonymous = await t.http.post(commentsUrl(open.id, open.second)).send({ note: 'n' });
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
  });
});

describe('GET /projects/:id/repository/commits/:sha/comments', () => {
  it('lists a commit’s comments oldest first, paginated, by SHA or branch name', async () => {
    const { id, first, second } = await project();
    const posted = [];
    for (const note of ['a', 'b', 'c']) posted.push((await post(id, second, { note })).body);
    await post(id, first, { note: 'on the first' });
    const page = await t.http.get(commentsUrl(id, second)).query({ per_page: 2 }).set('PRIVATE-TOKEN', reporter.token);
    expect([page.status, page.body]).toEqual([200, posted.slice(0, 2)]);
    expect(pageHeaders(page.headers)).toEqual({ total: 3, totalPages: 2, perPage: 2, page: 1, nextPage: 2, prevPage: null });
    expect((await t.http.get(commentsUrl(id, 'master')).set('PRIVATE-TOKEN', reporter.token)).body).toEqual(posted);
    expect((await t.hosting.commitComments.list(id, first)).map((comment) => comment.note)).toEqual(['on the first']);
    const missing = await t.http.get(commentsUrl(id, 'f'.repeat(40))).set('PRIVATE-TOKEN', reporter.token);
    expect([missing.status, missing.body]).toEqual([404, { message: '404 Commit Not Found' }]);
  });

  it('costs the same statements for a page of 3 and of 30', async () => {
    const { id, second } = await project();
    const api = t.hosting.as(reporter.id);
    for (let index = 0; index < 31; index++) await api.commitComments.create(id, second, { note: `Note ${index}` });
    await api.commitComments.list(id, second, { per_page: 3 });
    const small = await queriesOf(t.db, () => api.commitComments.list(id, second, { per_page: 3 }));
    const large = await queriesOf(t.db, async () => expect(await api.commitComments.list(id, second, { per_page: 30 })).toHaveLength(30));
    expect(small.filter((statement) => statement.includes('"commit_notes"'))).toHaveLength(2);
    expect(large.length).toBe(small.length);
  });

  it('is read by reporters, not guests, by anyone for a public project, and is 404 to a stranger of a private one', async () => {
    const { id, second } = await project();
    await post(id, second, { note: 'n' });
    const get = (projectId: number, sha: string, user?: User) => {
      const call = t.http.get(commentsUrl(projectId, sha));
      return user ? call.set('PRIVATE-TOKEN', user.token) : call;
    };
    expect((await get(id, second, reporter)).body).toHaveLength(1);
    expect((await get(id, second, guest)).status).toBe(403);
    expect([(await get(id, second, stranger)).status, (await get(id, second, stranger)).body]).toEqual([
      404,
      { message: '404 Project Not Found' },
    ]);
    const open = await project('public');
    await post(open.id, open.second, { note: 'n' });
    const anonymous = await get(open.id, open.second);
    expect([anonymous.status, anonymous.body.length]).toEqual([200, 1]);
  });
});

describe('a deleted author', () => {
  it('leaves its comments, author null; a hard deletion removes them', async () => {
    const { id, second } = await project('public');
    const soft = await createUser(t.hosting);
    const hard = await createUser(t.hosting);
    const kept = await post(id, second, { note: 'kept' }, soft);
    await post(id, second, { note: 'removed' }, hard);
    await t.hosting.users.delete(soft.id);
    await t.hosting.users.delete(hard.id, { hard_delete: true });
    expect(await t.hosting.commitComments.list(id, second)).toEqual([{ ...kept.body, author: null }]);
  });
});

describe('changedLines', () => {
  it('numbers added lines in the new file and removed ones in the old file', () => {
    const diff = '@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four\n@@ -10,2 +11 @@ heading\n-ten\n eleven\n\\ No newline at end of file\n';
    const lines = changedLines(diff);
    expect([[...lines.new], [...lines.old]]).toEqual([
      [2, 4],
      [2, 10],
    ]);
  });
});
