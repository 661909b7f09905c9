import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectEnvironment } from '../src/db/entities/index.js';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../src/errors.js';
import { environmentSlug } from '../src/services/ci/environments.js';
import { createUser, linkHeader, pageHeaders, queriesOf, sharedHosting, type SharedHosting } from './helpers.js';

let t: SharedHosting;
type User = Awaited<ReturnType<typeof createUser>>;
let owner: User;
let maintainer: User;
let developer: User;
let reporter: User;
let guest: User;
let stranger: User;

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'http://forge.test' });
  [owner, maintainer, developer, reporter, guest, stranger] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createUser(t.hosting)));
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const unique = () => `${process.pid}-${(counter += 1)}`;

/** A project of the owner's with a maintainer, a developer, a reporter and a guest. */
async function project(options: { visibility?: 'private' | 'public' } = {}): Promise<number> {
  const api = t.hosting.as(owner.id);
  const name = `environments-${unique()}`;
  const created = await api.projects.create({ name, path: name, visibility: options.visibility ?? 'private' });
  for (const [user, level] of [
    [maintainer, 40],
    [developer, 30],
    [reporter, 20],
    [guest, 10],
  ] as const) {
    await api.projectMembers.add(created.id, { user_id: user.id, access_level: level });
  }
  return created.id;
}

const as = (user: User) => ({ 'PRIVATE-TOKEN': user.token });
const environmentsUrl = (id: number) => `/api/v4/projects/${id}/environments`;
const environmentUrl = (id: number, environmentId: number) => `/api/v4/projects/${id}/environments/${environmentId}`;
const names = (body: { name: string }[]) => body.map((environment) => environment.name);
const SUFFIXED = /^[a-z0-9-]+-[a-z0-9]{6}$/;
const NAME_FORMAT = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
const NOT_FOUND = { message: '404 Not found' };
const FORBIDDEN = { message: '403 Forbidden' };

describe('the slug', () => {
  it('is made as the original makes it: lowercase letters, digits and dashes, from a letter, at most 24, a suffix when changed', () => {
    const suffix = () => 'q517sa';
    const table: [string, string][] = [
      ['production', 'production'],
      ['PRODUCTION', 'production-q517sa'],
      ['review/1-foo', 'review-1-foo-q517sa'],
      ['1-foo', 'env-1-foo-q517sa'],
      ['1/foo', 'env-1-foo-q517sa'],
      ['foo-', 'foo-q517sa'],
      ['foo--bar', 'foo-bar-q517sa'],
      ['foo**bar', 'foo-bar-q517sa'],
      ['*-foo', 'env-foo-q517sa'],
      ['staging-1234567890123456', 'staging-1234567890123456'],
      ['staging-12345678901234567', 'staging-123456789-q517sa'],
      ['staging-1234567890123456-', 'staging-123456789-q517sa'],
      ['9-staging-123456789012345', 'env-9-staging-123-q517sa'],
      ['staging-12345678-', 'staging-12345678-q517sa'],
      ['staging-12345678-01234567', 'staging-12345678-q517sa'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a name with a CI variable written literally, as users write them
      ['review/${CI_COMMIT_REF_NAME}', 'review-ci-commit-q517sa'],
      ['', 'env-q517sa'],
    ];
    for (const [name, slug] of table) expect(environmentSlug(name, suffix), name).toBe(slug);
    // The suffix is random: six lowercase letters and digits.
    const drawn = new Set(Array.from({ length: 20 }, () => environmentSlug('Review/App')));
    for (const slug of drawn) expect(slug).toMatch(/^review-app-[a-z0-9]{6}$/);
    expect(drawn.size).toBeGreaterThan(1);
  });

  it('is given on creation (HTTP and in process) and stays when the environment is renamed', async () => {
    const id = await project();
    const plain = await t.http.post(environmentsUrl(id)).set(as(developer)).send({ name: 'production' });
    expect([plain.status, plain.body.slug]).toEqual([201, 'production']);
    const changed = await t.hosting.as(developer.id).environments.create(id, { name: 'Review/Feature-42' });
    expect(changed.slug).toMatch(SUFFIXED);
    expect(changed.slug).toMatch(/^review-feature-42-[a-z0-9]{6}$/);
    const long = await t.hosting.as(developer.id).environments.create(id, { name: 'a-very-long-environment-name-indeed' });
    expect(long.slug).toMatch(/^a-very-long-envir-[a-z0-9]{6}$/);
    expect(long.slug).toHaveLength(24);

    const renamed = await t.http.put(environmentUrl(id, plain.body.id)).set(as(maintainer)).send({ name: 'prod' });
    expect([renamed.status, renamed.body.name, renamed.body.slug]).toEqual([200, 'prod', 'production']);
    const again = await t.hosting.as(maintainer.id).environments.update(id, changed.id, { name: 'staging' });
    expect([again.name, again.slug]).toEqual(['staging', changed.slug]);
    // A new environment of the old name would take the slug the renamed one kept: refused, as the original refuses it.
    const taken = await t.http.post(environmentsUrl(id)).set(as(developer)).send({ name: 'production' });
    expect([taken.status, taken.body]).toEqual([400, { message: { slug: ['has already been taken'] } }]);
    // Given by the caller: refused, as the original refuses it.
    const given = await t.http.post(environmentsUrl(id)).set(as(developer)).send({ name: 'qa', slug: 'qa' });
    expect([given.status, given.body]).toEqual([400, { message: { slug: ['is automatically generated and cannot be changed'] } }]);
    const givenOnUpdate = await t.http.put(environmentUrl(id, long.id)).set(as(maintainer)).send({ slug: 'mine' });
    expect([givenOnUpdate.status, givenOnUpdate.body]).toEqual([
      400,
      { message: { slug: ['is automatically generated and cannot be changed'] } },
    ]);
  });
});

describe('POST /projects/:id/environments and /projects/:id/environment', () => {
  it('answer 201 with the environment, available; both spellings, and in process', async () => {
    const id = await project();
    const res = await t.http
      .post(environmentsUrl(id))
      .set(as(developer))
      .send({ name: 'review/app', external_url: 'https://review.example.com' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      name: 'review/app',
      slug: expect.stringMatching(/^review-app-[a-z0-9]{6}$/),
      external_url: 'https://review.example.com',
      state: 'available',
      last_deployment: null,
    });
    const singular = await t.http.post(`/api/v4/projects/${id}/environment`).set(as(developer)).send({ name: 'staging' });
    expect([singular.status, singular.body]).toEqual([
      201,
      { id: singular.body.id, name: 'staging', slug: 'staging', external_url: null, state: 'available', last_deployment: null },
    ]);
    const inProcess = await t.hosting
      .as(developer.id)
      .environments.createSingular(id, { name: 'qa', external_url: ' http://qa.example.com:8080/path?x=1 ' });
    expect(inProcess).toEqual({
      id: inProcess.id,
      name: 'qa',
      slug: 'qa',
      external_url: 'http://qa.example.com:8080/path?x=1',
      state: 'available',
      last_deployment: null,
    });
    const blankUrl = await t.hosting.as(developer.id).environments.create(id, { name: 'dev', external_url: '  ' });
    expect(blankUrl.external_url).toBeNull();
    // By the full path too.
    const { path_with_namespace } = await t.hosting.projects.get(id, {});
    const byPath = await t.http
      .post(`/api/v4/projects/${encodeURIComponent(path_with_namespace)}/environments`)
      .set(as(developer))
      .send({ name: 'by path' });
    expect([byPath.status, byPath.body.slug]).toEqual([201, expect.stringMatching(/^by-path-[a-z0-9]{6}$/)]);
    expect(names(await t.hosting.environments.list(id))).toEqual(['review/app', 'staging', 'qa', 'dev', 'by path']);
  });

  it('answer 400 with the validation messages: names unique and of their format, external URLs unique http(s) URLs', async () => {
    const id = await project();
    await t.hosting.environments.create(id, { name: 'production', external_url: 'https://example.com' });
    await t.hosting.environments.create(id, { name: 'Review/App' });
    const post = (body: Record<string, unknown>) => t.http.post(environmentsUrl(id)).set(as(developer)).send(body);
    const cases: [Record<string, unknown>, unknown][] = [
      // A name whose slug is the name itself: its slug is taken too, and the original says so.
      [{ name: 'production' }, { message: { name: ['has already been taken'], slug: ['has already been taken'] } }],
      [{ name: 'Review/App' }, { message: { name: ['has already been taken'] } }],
      [{ name: '/leading' }, { message: { name: [NAME_FORMAT] } }],
      [{ name: 'trailing/' }, { message: { name: [NAME_FORMAT] } }],
      [{ name: 'colon:name' }, { message: { name: [NAME_FORMAT] } }],
      [{ name: 'émigré' }, { message: { name: [NAME_FORMAT] } }],
      [{ name: '' }, { message: { name: ["can't be blank", NAME_FORMAT] } }],
      [{ name: '   ' }, { message: { name: ["can't be blank"] } }],
      [{ name: 'x'.repeat(256) }, { message: { name: ['is too long (maximum is 255 characters)'] } }],
      [{ name: 'other', external_url: 'https://example.com' }, { message: { external_url: ['has already been taken'] } }],
      [{ name: 'other', external_url: 'example.com' }, { message: { external_url: ['must be a valid URL'] } }],
      [{ name: 'other', external_url: 'ftp://example.com' }, { message: { external_url: ['must be a valid URL'] } }],
      [{ name: 'other', external_url: 'javascript:alert(1)' }, { message: { external_url: ['must be a valid URL'] } }],
      [{ name: 'other', external_url: 'https://exa mple.com' }, { message: { external_url: ['must be a valid URL'] } }],
      [{ name: 'other', external_url: 'https://' }, { message: { external_url: ['must be a valid URL'] } }],
      [
        { name: 'other', external_url: `https://example.com/${'x'.repeat(240)}` },
        { message: { external_url: ['is too long (maximum is 255 characters)'] } },
      ],
      [
        { name: 'Review/App', external_url: 'nope' },
        { message: { name: ['has already been taken'], external_url: ['must be a valid URL'] } },
      ],
      [{ external_url: 'https://example.org' }, { message: '400 (Bad request) "name" not given' }],
    ];
    for (const [body, expected] of cases) {
      const res = await post(body);
      expect([res.status, res.body], JSON.stringify(body)).toEqual([400, expected]);
    }
    await expect(t.hosting.as(developer.id).environments.create(id, { name: 'production' })).rejects.toThrow(BadRequestError);
    await expect(t.hosting.as(developer.id).environments.create(id, { name: 'production' })).rejects.toMatchObject({
      messages: { name: ['has already been taken'] },
    });
    expect(names(await t.hosting.environments.list(id))).toEqual(['production', 'Review/App']);
    // Unique per project only; the name's case counts.
    const other = await project();
    expect((await t.hosting.environments.create(other, { name: 'production', external_url: 'https://example.com' })).slug).toBe(
      'production',
    );
    expect((await t.hosting.environments.create(id, { name: 'Production' })).slug).toMatch(/^production-[a-z0-9]{6}$/);
  });

  it('answer the same 400 to the writers that lose a race for a name', async () => {
    const id = await project();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => t.http.post(environmentsUrl(id)).set(as(developer)).send({ name: 'Race/1' })),
    );
    expect(results.map((res) => res.status).sort()).toEqual([201, 400, 400, 400]);
    for (const res of results.filter((res) => res.status === 400))
      expect(res.body).toEqual({ message: { name: ['has already been taken'] } });
    expect(names(await t.hosting.environments.list(id))).toEqual(['Race/1']);
  });
});

describe('GET /projects/:id/environments', () => {
  it('lists the project’s environments oldest first; by `name`, `search` (a prefix, in any case) and `states`', async () => {
    const id = await project();
    const api = t.hosting.as(developer.id);
    const production = await api.environments.create(id, { name: 'production' });
    await api.environments.create(id, { name: 'review/fix-1' });
    await api.environments.create(id, { name: 'Review/fix-2' });
    await api.environments.create(id, { name: 'review_1' });
    await api.environments.create(id, { name: 'reviewx1' });
    await t.hosting.environments.stop(id, production.id);
    const list = async (query: Record<string, string>) => {
      const res = await t.http.get(environmentsUrl(id)).query(query).set(as(reporter));
      expect(res.status).toBe(200);
      return names(res.body);
    };
    expect(await list({})).toEqual(['production', 'review/fix-1', 'Review/fix-2', 'review_1', 'reviewx1']);
    expect(await list({ name: 'review/fix-1' })).toEqual(['review/fix-1']);
    expect(await list({ name: 'review' })).toEqual([]);
    expect(await list({ search: 'REVIEW/' })).toEqual(['review/fix-1', 'Review/fix-2']);
    expect(await list({ search: 'fix' })).toEqual([]);
    // `_` and `%` match themselves.
    expect(await list({ search: 'review_' })).toEqual(['review_1']);
    expect(await list({ search: '%' })).toEqual([]);
    expect(await list({ states: 'stopped' })).toEqual(['production']);
    expect(await list({ states: 'available', search: 'review/' })).toEqual(['review/fix-1', 'Review/fix-2']);
    expect(names(await t.hosting.as(reporter.id).environments.list(id, { states: 'available', search: 'rev' }))).toEqual([
      'review/fix-1',
      'Review/fix-2',
      'review_1',
      'reviewx1',
    ]);

    const both = await t.http.get(environmentsUrl(id)).query({ name: 'production', search: 'prod' }).set(as(reporter));
    expect([both.status, both.body]).toEqual([400, { message: '400 (Bad request) "name, search" cannot be used together' }]);
    const badState = await t.http.get(environmentsUrl(id)).query({ states: 'stopping' }).set(as(reporter));
    expect([badState.status, badState.body]).toEqual([400, { message: { states: ['does not have a valid value'] } }]);
  });

  it('pages with the Link and X-* headers in a constant number of statements', async () => {
    const id = await project();
    await t.hosting.environments.create(id, { name: 'env-1' });
    // Once, so that the caller is known (its token read) before statements are counted.
    await t.http.get(environmentsUrl(id)).set(as(reporter));
    const one = await queriesOf(t.db, () => t.http.get(environmentsUrl(id)).set(as(reporter)));
    for (let n = 2; n <= 5; n += 1) await t.hosting.environments.create(id, { name: `env-${n}` });
    const res = await t.http.get(environmentsUrl(id)).query({ per_page: 2, page: 2 }).set(as(reporter));
    expect(names(res.body)).toEqual(['env-3', 'env-4']);
    expect(pageHeaders(res.headers)).toEqual({ total: 5, totalPages: 3, perPage: 2, page: 2, nextPage: 3, prevPage: 1 });
    expect(Object.keys(linkHeader(res.headers.link)).sort()).toEqual(['first', 'last', 'next', 'prev']);
    const many = await queriesOf(t.db, () => t.http.get(environmentsUrl(id)).query({ search: 'env' }).set(as(reporter)));
    expect(many.length).toBe(one.length);
    const page = await t.hosting.as(reporter.id).environments.list(id, { per_page: 2, page: 3 });
    expect([names(page), page.total, page.totalPages]).toEqual([['env-5'], 5, 3]);
  });
});

describe('GET /projects/:id/environments/:environment_id', () => {
  it('answers one of the project’s environments; `404 Not found` for another project’s or none', async () => {
    const id = await project();
    const other = await project();
    const mine = await t.hosting.environments.create(id, { name: 'production', external_url: 'https://example.com' });
    const theirs = await t.hosting.environments.create(other, { name: 'production' });
    const res = await t.http.get(environmentUrl(id, mine.id)).set(as(reporter));
    expect([res.status, res.body]).toEqual([200, mine]);
    expect(await t.hosting.as(reporter.id).environments.get(id, mine.id)).toEqual(mine);
    for (const environmentId of [theirs.id, 0, 2147483647]) {
      const missing = await t.http.get(environmentUrl(id, environmentId)).set(as(reporter));
      expect([missing.status, missing.body]).toEqual([404, NOT_FOUND]);
    }
    await expect(t.hosting.environments.get(id, theirs.id)).rejects.toThrow(NotFoundError);
    const notNumber = await t.http.get(`${environmentsUrl(id)}/production`).set(as(reporter));
    expect(notNumber.status).toBe(400);
  });
});

describe('PUT /projects/:id/environments/:environment_id', () => {
  it('renames it and changes its external URL; 400 with the validation messages; 404 for another project’s', async () => {
    const id = await project();
    const production = await t.hosting.environments.create(id, { name: 'production', external_url: 'https://example.com' });
    await t.hosting.environments.create(id, { name: 'staging', external_url: 'https://staging.example.com' });
    const put = (environmentId: number, body: Record<string, unknown>) =>
      t.http.put(environmentUrl(id, environmentId)).set(as(maintainer)).send(body);

    const changed = await put(production.id, { name: 'live', external_url: 'https://live.example.com' });
    expect([changed.status, changed.body]).toEqual([200, { ...production, name: 'live', external_url: 'https://live.example.com' }]);
    const unchanged = await put(production.id, {});
    expect([unchanged.status, unchanged.body]).toEqual([200, changed.body]);
    // Its own name and URL again: nothing is taken.
    expect((await put(production.id, { name: 'live', external_url: 'https://live.example.com' })).status).toBe(200);
    const removed = await put(production.id, { external_url: null });
    expect([removed.status, removed.body.external_url]).toEqual([200, null]);
    expect((await put(production.id, { external_url: '' })).body.external_url).toBeNull();

    const refusals: [Record<string, unknown>, unknown][] = [
      [{ name: 'staging' }, { name: ['has already been taken'] }],
      [{ name: 'bad/' }, { name: [NAME_FORMAT] }],
      [{ name: '' }, { name: ["can't be blank", NAME_FORMAT] }],
      [{ external_url: 'https://staging.example.com' }, { external_url: ['has already been taken'] }],
      [{ external_url: 'mailto:ops@example.com' }, { external_url: ['must be a valid URL'] }],
    ];
    for (const [body, messages] of refusals) {
      const res = await put(production.id, body);
      expect([res.status, res.body], JSON.stringify(body)).toEqual([400, { message: messages }]);
    }
    await expect(t.hosting.as(maintainer.id).environments.update(id, production.id, { name: 'staging' })).rejects.toThrow(BadRequestError);
    expect(await t.hosting.environments.get(id, production.id)).toEqual({ ...production, name: 'live', external_url: null });

    const other = await project();
    const theirs = await t.hosting.environments.create(other, { name: 'theirs' });
    const missing = await put(theirs.id, { name: 'mine' });
    expect([missing.status, missing.body]).toEqual([404, NOT_FOUND]);
    expect((await t.hosting.environments.get(other, theirs.id)).name).toBe('theirs');
  });
});

describe('POST /projects/:id/environments/:environment_id/stop', () => {
  it('stops it: 200 with it, stopped; again, the same; 404 for another project’s', async () => {
    const id = await project();
    const production = await t.hosting.environments.create(id, { name: 'production' });
    const res = await t.http.post(`${environmentUrl(id, production.id)}/stop`).set(as(maintainer));
    expect([res.status, res.body]).toEqual([200, { ...production, state: 'stopped' }]);
    const again = await t.hosting.as(maintainer.id).environments.stop(id, production.id);
    expect(again).toEqual({ ...production, state: 'stopped' });
    // Stopped, it can still be renamed.
    expect((await t.hosting.environments.update(id, production.id, { name: 'old' })).state).toBe('stopped');

    const other = await project();
    const theirs = await t.hosting.environments.create(other, { name: 'theirs' });
    const missing = await t.http.post(`${environmentUrl(id, theirs.id)}/stop`).set(as(maintainer));
    expect([missing.status, missing.body]).toEqual([404, NOT_FOUND]);
    expect((await t.hosting.environments.get(other, theirs.id)).state).toBe('available');
  });
});

describe('DELETE /projects/:id/environments/:environment_id', () => {
  it('deletes it, available or stopped: 204; 404 for another project’s or once gone', async () => {
    const id = await project();
    const available = await t.hosting.environments.create(id, { name: 'available' });
    const stopped = await t.hosting.environments.create(id, { name: 'stopped' });
    await t.hosting.environments.stop(id, stopped.id);
    const res = await t.http.delete(environmentUrl(id, available.id)).set(as(maintainer));
    expect([res.status, res.text]).toEqual([204, '']);
    await t.hosting.as(maintainer.id).environments.delete(id, stopped.id);
    expect(await t.hosting.environments.list(id)).toEqual([]);
    const gone = await t.http.delete(environmentUrl(id, available.id)).set(as(maintainer));
    expect([gone.status, gone.body]).toEqual([404, NOT_FOUND]);
    const other = await project();
    const theirs = await t.hosting.environments.create(other, { name: 'theirs' });
    const notHere = await t.http.delete(environmentUrl(id, theirs.id)).set(as(maintainer));
    expect([notHere.status, notHere.body]).toEqual([404, NOT_FOUND]);
    // Its name is free again.
    expect((await t.hosting.environments.create(id, { name: 'available' })).slug).toBe('available');
  });

  it('go with their project', async () => {
    const id = await project();
    await t.hosting.environments.create(id, { name: 'production' });
    await t.hosting.environments.create(id, { name: 'staging' });
    const count = () => t.db.fork().count(ProjectEnvironment, { project: id });
    expect(await count()).toBe(2);
    await t.hosting.projects.delete(id);
    expect(await count()).toBe(0);
  });
});

describe('who may do what', () => {
  it('reporters read; developers create, change, stop and delete; 403 to those below, over HTTP and in process', async () => {
    const id = await project();
    const env = await t.hosting.environments.create(id, { name: 'production' });
    const calls = {
      list: (user: User) => t.http.get(environmentsUrl(id)).set(as(user)),
      get: (user: User) => t.http.get(environmentUrl(id, env.id)).set(as(user)),
      create: (user: User) =>
        t.http
          .post(environmentsUrl(id))
          .set(as(user))
          .send({ name: `by-${user.username}` }),
      update: (user: User) =>
        t.http
          .put(environmentUrl(id, env.id))
          .set(as(user))
          .send({ external_url: `https://${user.username}.example.com` }),
      stop: (user: User) => t.http.post(`${environmentUrl(id, env.id)}/stop`).set(as(user)),
    };
    const allowed = {
      guest: [],
      reporter: ['list', 'get'],
      developer: ['list', 'get', 'create', 'update', 'stop'],
      maintainer: ['list', 'get', 'create', 'update', 'stop'],
    };
    for (const [level, user] of [
      ['guest', guest],
      ['reporter', reporter],
      ['developer', developer],
      ['maintainer', maintainer],
    ] as const) {
      for (const [name, call] of Object.entries(calls)) {
        const res = await call(user);
        const may = (allowed[level] as string[]).includes(name);
        expect(may ? res.status : [res.status, res.body], `${level} ${name}`).toEqual(
          may ? (name === 'create' ? 201 : 200) : [403, FORBIDDEN],
        );
      }
    }
    for (const user of [guest, reporter]) {
      const res = await t.http.delete(environmentUrl(id, env.id)).set(as(user));
      expect([res.status, res.body]).toEqual([403, FORBIDDEN]);
    }
    await expect(t.hosting.as(reporter.id).environments.create(id, { name: 'refused' })).rejects.toThrow(ForbiddenError);
    await expect(t.hosting.as(reporter.id).environments.update(id, env.id, { name: 'refused' })).rejects.toThrow(ForbiddenError);
    await expect(t.hosting.as(reporter.id).environments.stop(id, env.id)).rejects.toThrow(ForbiddenError);
    await expect(t.hosting.as(reporter.id).environments.delete(id, env.id)).rejects.toThrow(ForbiddenError);
    await expect(t.hosting.as(guest.id).environments.list(id)).rejects.toThrow(ForbiddenError);
    // A developer stopping one that does not exist: found first (404), as the original.
    const missing = await t.http.post(`${environmentUrl(id, env.id + 1000)}/stop`).set(as(developer));
    expect([missing.status, missing.body]).toEqual([404, NOT_FOUND]);
    // A developer deletes it.
    expect((await t.http.delete(environmentUrl(id, env.id)).set(as(developer))).status).toBe(204);
  });

  it(
    'hides a private project’s from non-members (404), ' + 'refuses a public project’s to them (403), and asks for a sign-in (401)',
    async () => {
      const hidden = await project();
      const open = await project({ visibility: 'public' });
      const env = await t.hosting.environments.create(hidden, { name: 'production' });
      const openEnv = await t.hosting.environments.create(open, { name: 'production' });
      for (const res of [
        await t.http.get(environmentsUrl(hidden)).set(as(stranger)),
        await t.http.get(environmentUrl(hidden, env.id)).set(as(stranger)),
        await t.http.post(environmentsUrl(hidden)).set(as(stranger)).send({ name: 'x' }),
        await t.http.put(environmentUrl(hidden, env.id)).set(as(stranger)).send({ name: 'x' }),
        await t.http.post(`${environmentUrl(hidden, env.id)}/stop`).set(as(stranger)),
        await t.http.delete(environmentUrl(hidden, env.id)).set(as(stranger)),
      ]) {
        expect([res.status, res.body]).toEqual([404, { message: '404 Project Not Found' }]);
      }
      await expect(t.hosting.as(stranger.id).environments.list(hidden)).rejects.toThrow(NotFoundError);
      for (const res of [
        await t.http.get(environmentsUrl(open)).set(as(stranger)),
        await t.http.get(environmentUrl(open, openEnv.id)).set(as(stranger)),
        await t.http.post(environmentsUrl(open)).set(as(stranger)).send({ name: 'x' }),
      ]) {
        expect([res.status, res.body]).toEqual([403, FORBIDDEN]);
      }
      const anonymous = await t.http.get(environmentsUrl(open));
      expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }]);
      await expect(t.hosting.as(null).environments.list(open)).rejects.toThrow(UnauthorizedError);
      // Administrators may do everything.
      expect((await t.hosting.environments.update(hidden, env.id, { name: 'by root' })).name).toBe('by root');
    },
  );

  it('refuses every change in an archived project, to its owner and administrators too, and reads still', async () => {
    const id = await project();
    const env = await t.hosting.environments.create(id, { name: 'production' });
    await t.hosting.as(owner.id).projects.archive(id);
    for (const res of [
      await t.http.post(environmentsUrl(id)).set(as(owner)).send({ name: 'new' }),
      await t.http.put(environmentUrl(id, env.id)).set(as(owner)).send({ name: 'renamed' }),
      await t.http.post(`${environmentUrl(id, env.id)}/stop`).set(as(owner)),
      await t.http.delete(environmentUrl(id, env.id)).set(as(owner)),
    ]) {
      expect([res.status, res.body]).toEqual([403, FORBIDDEN]);
    }
    await expect(t.hosting.environments.stop(id, env.id)).rejects.toThrow(ForbiddenError);
    expect((await t.http.get(environmentsUrl(id)).set(as(reporter))).body).toEqual([env]);
  });

  it('belong to CI/CD: refused (403) while the project’s jobs are disabled', async () => {
    const id = await project();
    const env = await t.hosting.environments.create(id, { name: 'production' });
    await t.hosting.projects.update(id, { jobs_enabled: false });
    const list = await t.http.get(environmentsUrl(id)).set(as(maintainer));
    expect([list.status, list.body]).toEqual([403, FORBIDDEN]);
    await expect(t.hosting.environments.get(id, env.id)).rejects.toThrow(ForbiddenError);
    await t.hosting.projects.update(id, { jobs_enabled: true });
    expect(await t.hosting.as(reporter.id).environments.get(id, env.id)).toEqual(env);
  });
});
