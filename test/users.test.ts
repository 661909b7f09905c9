import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, NotFoundValidationError, UnauthorizedError } from '../src/index.js';
import { createUser, linkHeader, pageHeaders, ROOT_TOKEN, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let alice: Awaited<ReturnType<typeof createUser>>;
let bob: Awaited<ReturnType<typeof createUser>>;

const BASIC = ['avatar_url', 'id', 'name', 'state', 'username', 'web_url'];
const PROFILE = [...BASIC, 'bio', 'created_at', 'linkedin', 'location', 'organization', 'skype', 'twitter', 'website_url'];
const SELF = [
  ...PROFILE,
  'can_create_group',
  'can_create_project',
  'color_scheme_id',
  'confirmed_at',
  'current_sign_in_at',
  'email',
  'external',
  'identities',
  'last_activity_on',
  'last_sign_in_at',
  'projects_limit',
  'theme_id',
  'two_factor_enabled',
];
const FULL = [...SELF, 'is_admin'];
const keys = (object: object) => Object.keys(object).sort();

beforeAll(async () => {
  t = await sharedHosting({ baseUrl: 'https://forge.example.com' });
  alice = await createUser(t.hosting, { name: 'Alice Liddell', bio: 'Curious', organization: 'Wonderland' });
  bob = await createUser(t.hosting, { name: 'Bob Builder' });
});
afterAll(() => t.close());

describe('GET /users', () => {
  it('gives normal callers the basic shape', async () => {
    const res = await t.http.get('/api/v4/users').set('PRIVATE-TOKEN', alice.token);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(3);
    for (const user of res.body) expect(keys(user)).toEqual([...BASIC].sort());
    // Newest first, as the original service orders by id descending.
    expect(res.body.map((user: { id: number }) => user.id)).toEqual([bob.id, alice.id, 1]);
    const aliceItem = res.body.find((user: { id: number }) => user.id === alice.id);
    expect(aliceItem).toMatchObject({
      username: alice.username,
      name: 'Alice Liddell',
      state: 'active',
      web_url: `https://forge.example.com/${alice.username}`,
    });
    expect(aliceItem.avatar_url).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}/);
  });

  it('gives administrators the full shape', async () => {
    const res = await t.http.get('/api/v4/users').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(200);
    for (const user of res.body) expect(keys(user)).toEqual([...FULL].sort());
    const root = res.body.find((user: { id: number }) => user.id === 1);
    expect(root).toMatchObject({ username: 'root', is_admin: true, email: 'admin@example.com', can_create_project: true, identities: [] });
  });

  it('paginates with Link and X-* headers', async () => {
    const res = await t.http.get('/api/v4/users?per_page=1&page=2').set('PRIVATE-TOKEN', alice.token);
    expect(res.status).toBe(200);
    expect(res.body.map((user: { id: number }) => user.id)).toEqual([alice.id]);
    expect(pageHeaders(res.headers)).toEqual({ total: 3, totalPages: 3, perPage: 1, page: 2, nextPage: 3, prevPage: 1 });
    expect(linkHeader(res.headers.link)).toEqual({
      prev: 'https://forge.example.com/api/v4/users?per_page=1&page=1',
      next: 'https://forge.example.com/api/v4/users?per_page=1&page=3',
      first: 'https://forge.example.com/api/v4/users?per_page=1&page=1',
      last: 'https://forge.example.com/api/v4/users?per_page=1&page=3',
    });
  });

  it('clamps per_page to 100 and treats an empty list as one page', async () => {
    const res = await t.http.get('/api/v4/users?per_page=500&username=nobody-at-all').set('PRIVATE-TOKEN', alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers['x-per-page']).toBe('100');
    expect(res.headers['x-total']).toBe('0');
    expect(res.headers['x-total-pages']).toBe('1');
    expect(res.headers['x-next-page']).toBe('');
    expect(res.headers['x-prev-page']).toBe('');
  });

  it('filters by username, search, state and creation time', async () => {
    const byName = await t.http.get(`/api/v4/users?username=${alice.username.toUpperCase()}`).set('PRIVATE-TOKEN', bob.token);
    expect(byName.body.map((user: { id: number }) => user.id)).toEqual([alice.id]);
    const search = await t.http.get('/api/v4/users').query({ search: 'builder' }).set('PRIVATE-TOKEN', alice.token);
    expect(search.body.map((user: { id: number }) => user.id)).toEqual([bob.id]);
    const byEmail = await t.http.get('/api/v4/users').query({ search: alice.email }).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(byEmail.body.map((user: { id: number }) => user.id)).toEqual([alice.id]);
    // A normal caller finds an address only whole (in any case); a part of it finds no one.
    const partOfEmail = alice.email.slice(0, -3);
    expect((await t.http.get('/api/v4/users').query({ search: partOfEmail }).set('PRIVATE-TOKEN', bob.token)).body).toEqual([]);
    expect((await t.hosting.as(bob.id).users.list({ search: alice.email.toUpperCase() })).map((user) => user.id)).toEqual([alice.id]);
    expect((await t.hosting.users.list({ search: partOfEmail })).map((user) => user.id)).toEqual([alice.id]);
    const future = await t.http.get('/api/v4/users').query({ created_after: '2999-01-01T00:00:00Z' }).set('PRIVATE-TOKEN', alice.token);
    expect(future.body).toEqual([]);
    const past = await t.http.get('/api/v4/users').query({ created_before: '2999-01-01' }).set('PRIVATE-TOKEN', alice.token);
    expect(past.body.length).toBe(3);
    const badDate = await t.http.get('/api/v4/users').query({ created_after: 'yesterday' }).set('PRIVATE-TOKEN', alice.token);
    expect(badDate.status).toBe(400);
    expect(badDate.body).toEqual({ message: { created_after: ['is invalid'] } });
  });

  it('filters blocked and active users', async () => {
    const carol = await createUser(t.hosting);
    await t.hosting.users.block(carol.id);
    const blocked = await t.http.get('/api/v4/users?blocked=true').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(blocked.body.map((user: { id: number }) => user.id)).toEqual([carol.id]);
    expect(blocked.body[0].state).toBe('blocked');
    const active = await t.http.get('/api/v4/users?active=true').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(active.body.map((user: { id: number }) => user.id)).not.toContain(carol.id);
    await t.hosting.users.delete(carol.id);
  });

  it('filters by external identity and external users for administrators only', async () => {
    const dave = await createUser(t.hosting, { extern_uid: 'uid=dave', provider: 'ldapmain', external: true });
    const identity = await t.http
      .get('/api/v4/users')
      .query({ extern_uid: 'uid=dave', provider: 'ldapmain' })
      .set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(identity.body.map((user: { id: number }) => user.id)).toEqual([dave.id]);
    expect(identity.body[0].identities).toEqual([{ provider: 'ldapmain', extern_uid: 'uid=dave' }]);
    const external = await t.http.get('/api/v4/users?external=true').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(external.body.map((user: { id: number }) => user.id)).toEqual([dave.id]);
    const forbidden = await t.http.get('/api/v4/users?external=true').set('PRIVATE-TOKEN', alice.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: '403 Forbidden' });
    // The identity filter is the pair: refused to a normal caller only together; either alone filters nothing.
    const pair = await t.http
      .get('/api/v4/users')
      .query({ extern_uid: 'uid=dave', provider: 'ldapmain' })
      .set('PRIVATE-TOKEN', alice.token);
    expect([pair.status, pair.body]).toEqual([403, { message: '403 Forbidden' }]);
    const unfiltered = (await t.http.get('/api/v4/users').query({ per_page: 100 }).set('PRIVATE-TOKEN', alice.token)).body;
    for (const half of [{ extern_uid: 'uid=dave' }, { provider: 'ldapmain' }]) {
      const alone = await t.http
        .get('/api/v4/users')
        .query({ ...half, per_page: 100 })
        .set('PRIVATE-TOKEN', alice.token);
      expect([alone.status, alone.body]).toEqual([200, unfiltered]);
    }
    await t.hosting.users.delete(dave.id);
  });

  it('filters administrators and two-factor users for administrators; others get the list unfiltered', async () => {
    const secured = await createUser(t.hosting, { admin: true });
    await t.db.fork().getConnection().execute(`update users set two_factor_enabled = true where id = ${secured.id}`);
    const ids = (res: { body: { id: number }[] }) => res.body.map((user) => user.id).sort((a, b) => a - b);
    expect(ids(await t.http.get('/api/v4/users?admins=true').set('PRIVATE-TOKEN', ROOT_TOKEN))).toEqual([1, secured.id]);
    expect(ids(await t.http.get('/api/v4/users?two_factor=enabled').set('PRIVATE-TOKEN', ROOT_TOKEN))).toEqual([secured.id]);
    expect(ids(await t.http.get('/api/v4/users?two_factor=disabled&per_page=100').set('PRIVATE-TOKEN', ROOT_TOKEN))).not.toContain(
      secured.id,
    );
    expect((await t.hosting.users.list({ admins: true, two_factor: 'enabled' })).map((user) => user.id)).toEqual([secured.id]);
    const unfiltered = await t.http.get('/api/v4/users?admins=true&two_factor=enabled&per_page=100').set('PRIVATE-TOKEN', alice.token);
    expect(ids(unfiltered)).toEqual(expect.arrayContaining([1, alice.id, bob.id, secured.id]));
    expect((await t.http.get('/api/v4/users?two_factor=sometimes').set('PRIVATE-TOKEN', ROOT_TOKEN)).body).toEqual({
      message: { two_factor: ['does not have a valid value'] },
    });
    await t.hosting.users.delete(secured.id);
  });

  it('rejects an unknown order and answers 401 without a token', async () => {
    const order = await t.http.get('/api/v4/users?order_by=height').set('PRIVATE-TOKEN', alice.token);
    expect(order.status).toBe(400);
    expect(order.body).toEqual({ message: { order_by: ['does not have a valid value'] } });
    const anonymous = await t.http.get('/api/v4/users');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
  });

  it('is the same list in process', async () => {
    const asAlice = await t.hosting.as(alice.id).users.list({ per_page: 2 });
    expect(asAlice.map((user) => user.id)).toEqual([bob.id, alice.id]);
    expect(keys(asAlice[0])).toEqual([...BASIC].sort());
    await expect(t.hosting.as(null).users.list()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.hosting.as(alice.username).users.list({ external: true })).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('GET /users/:id', () => {
  it('gives normal callers the profile and administrators the full user', async () => {
    const normal = await t.http.get(`/api/v4/users/${alice.id}`).set('PRIVATE-TOKEN', bob.token);
    expect(normal.status).toBe(200);
    expect(keys(normal.body)).toEqual([...PROFILE].sort());
    expect(normal.body).toMatchObject({ id: alice.id, bio: 'Curious', organization: 'Wonderland', location: null, skype: '' });
    const admin = await t.http.get(`/api/v4/users/${alice.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(keys(admin.body)).toEqual([...FULL].sort());
    expect(admin.body).toMatchObject({
      email: alice.email,
      is_admin: false,
      projects_limit: 100000,
      can_create_group: true,
      external: false,
      two_factor_enabled: false,
    });
    expect(admin.body.confirmed_at).toEqual(expect.any(String));
  });

  it('accepts a .json suffix', async () => {
    const res = await t.http.get(`/api/v4/users/${alice.id}.json`).set('PRIVATE-TOKEN', bob.token);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(alice.id);
  });

  it('answers 404 for an unknown user and 400 for a non-integer id', async () => {
    const missing = await t.http.get('/api/v4/users/424242').set('PRIVATE-TOKEN', bob.token);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
    const word = await t.http.get('/api/v4/users/alice').set('PRIVATE-TOKEN', bob.token);
    expect(word.status).toBe(400);
    expect(word.body).toEqual({ message: { id: ['is invalid'] } });
    await expect(t.hosting.as(bob.id).users.get(424242)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('GET /user', () => {
  it('gives a normal user the full shape without is_admin or private_token', async () => {
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', alice.token);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual([...SELF].sort());
    expect(res.body).toMatchObject({ id: alice.id, email: alice.email });
  });

  it('gives an administrator its private token', async () => {
    const res = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual([...FULL, 'private_token'].sort());
    expect(res.body.private_token).toBe(ROOT_TOKEN);
  });
});

describe('POST /users', () => {
  const valid = { email: 'new.person@example.com', username: 'new.person', name: 'New Person', password: 'long-enough-1' };

  it('creates a user with the given attributes (201)', async () => {
    const res = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({
        ...valid,
        skype: 'np',
        linkedin: 'in/np',
        twitter: '@np',
        website_url: 'https://np.example',
        organization: 'Org',
        projects_limit: 5,
        bio: 'Hi',
        location: 'Here',
        admin: true,
        can_create_group: false,
        external: true,
        extern_uid: 'np-1',
        provider: 'github',
      });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual([...FULL].sort());
    expect(res.body).toMatchObject({
      username: 'new.person',
      email: 'new.person@example.com',
      name: 'New Person',
      skype: 'np',
      linkedin: 'in/np',
      twitter: '@np',
      website_url: 'https://np.example',
      organization: 'Org',
      // External: no personal projects, whatever projects_limit said (as the original forces).
      projects_limit: 0,
      bio: 'Hi',
      location: 'Here',
      is_admin: true,
      can_create_group: false,
      can_create_project: false,
      external: true,
      identities: [{ provider: 'github', extern_uid: 'np-1' }],
      confirmed_at: null,
      state: 'active',
    });
    // The new user can sign in with the password given.
    const session = await t.http.post('/api/v4/session').send({ login: 'new.person', password: 'long-enough-1' });
    expect(session.status).toBe(201);
    await t.hosting.users.delete(res.body.id);
  });

  it('takes form fields with booleans and integers as strings', async () => {
    const res = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .type('form')
      .send({ ...valid, admin: 'false', projects_limit: '0', skip_confirmation: 'true' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ is_admin: false, projects_limit: 0, can_create_project: false });
    expect(res.body.confirmed_at).toEqual(expect.any(String));
    await t.hosting.users.delete(res.body.id);
  });

  it('accepts reset_password, or force_random_password as newer clients send it, instead of a password', async () => {
    const user = await t.hosting.users.create({ email: 'reset@example.com', username: 'reset-me', name: 'Reset', reset_password: true });
    expect(user.username).toBe('reset-me');
    await t.hosting.users.delete(user.id);
    const random = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ email: 'random@example.com', username: 'random-pw', name: 'Random', force_random_password: true });
    expect([random.status, random.body.username]).toEqual([201, 'random-pw']);
    await t.hosting.users.delete(random.body.id);
  });

  it('answers 400 naming a missing attribute', async () => {
    for (const missing of ['email', 'username', 'name'] as const) {
      const body: Record<string, string> = { ...valid };
      delete body[missing];
      const res = await t.http.post('/api/v4/users').set('PRIVATE-TOKEN', ROOT_TOKEN).send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: `400 (Bad request) "${missing}" not given` });
    }
    const noPassword = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ ...valid, password: undefined });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body).toEqual({ message: '400 (Bad request) "password" not given' });
  });

  it('answers 400 with a message object for invalid attributes and 409 for a taken e-mail or username, creating nothing', async () => {
    const before = await t.hosting.users.list({ per_page: 100 });
    const invalid = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ email: 'not-an-email', username: '-bad', name: 'X', password: 'short' });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      message: {
        username: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."],
        email: ['is invalid'],
        password: ['is too short (minimum is 8 characters)'],
      },
    });
    const duplicate = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ ...valid, username: alice.username.toUpperCase(), email: alice.email.toUpperCase() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ message: 'Email has already been taken' });
    const duplicateName = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ ...valid, username: alice.username.toUpperCase() });
    expect(duplicateName.status).toBe(409);
    expect(duplicateName.body).toEqual({ message: 'Username has already been taken' });
    await expect(t.hosting.users.create({ ...valid, email: alice.email })).rejects.toThrow(
      new ConflictError('Email has already been taken'),
    );
    const wrongType = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ ...valid, projects_limit: 'many', admin: 'perhaps' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ message: { projects_limit: ['is invalid'], admin: ['is invalid'] } });
    expect(await t.hosting.users.list({ per_page: 100 })).toEqual(before);
  });

  it('is for administrators only', async () => {
    const res = await t.http.post('/api/v4/users').set('PRIVATE-TOKEN', alice.token).send(valid);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    await expect(t.hosting.as(alice.id).users.create(valid)).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('stores an uploaded avatar and serves it', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const res = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .field('email', 'pic@example.com')
      .field('username', 'pic')
      .field('name', 'Pic')
      .field('password', 'long-enough-1')
      .attach('avatar', png, { filename: 'me.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    expect(res.body.avatar_url).toBe(`https://forge.example.com/uploads/-/system/user/avatar/${res.body.id}/me.png`);
    const image = await t.http.get(`/uploads/-/system/user/avatar/${res.body.id}/me.png`);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(image.body as Buffer, png)).toBe(0);
    const inProcess = await t.hosting.as(null).users.avatar(res.body.id, 'me.png');
    expect(inProcess.content_type).toBe('image/png');
    expect(Buffer.compare(Buffer.from(inProcess.data), png)).toBe(0);
    const other = await t.http.get(`/uploads/-/system/user/avatar/${res.body.id}/other.png`);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ message: '404 Not Found' });
    const text = await t.http
      .put(`/api/v4/users/${res.body.id}`)
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .attach('avatar', Buffer.from('hello'), { filename: 'notes.txt', contentType: 'text/plain' });
    expect(text.status).toBe(400);
    expect(text.body).toEqual({ message: { avatar: ['only images allowed'] } });
    await t.hosting.users.delete(res.body.id);
  });
});

describe('one e-mail address, one user', () => {
  it('holds when writers race: concurrent POST /users with one username or address, and POST /users/:id/emails', async () => {
    for (let round = 0; round < 3; round += 1) {
      const address = `raced${round}@example.com`;
      const answers = await Promise.all([
        t.http
          .post('/api/v4/users')
          .set('PRIVATE-TOKEN', ROOT_TOKEN)
          .send({ email: address, username: `raced${round}a`, name: 'Raced', password: 'long-enough-password' }),
        t.http.post(`/api/v4/users/${bob.id}/emails`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ email: address }),
        t.http
          .post('/api/v4/users')
          .set('PRIVATE-TOKEN', ROOT_TOKEN)
          .send({ email: `other${round}@example.com`, username: `raced${round}a`, name: 'Raced', password: 'long-enough-password' }),
      ]);
      const [user, email, sameName] = answers;
      // Each loser answers as it would have sequentially.
      const taken = (name: string) => ({ message: `${name} has already been taken` });
      if (user.status !== 201) {
        expect(user.status).toBe(409);
        expect([taken('Email'), taken('Username')]).toContainEqual(user.body);
      }
      if (email.status !== 201) expect([email.status, email.body]).toEqual([400, { message: { email: ['has already been taken'] } }]);
      if (sameName.status !== 201) expect([sameName.status, sameName.body]).toEqual([409, taken('Username')]);
      // The address went to exactly one user, the username to exactly one.
      expect(answers.filter((res) => res.status === 201 && res.body.username === `raced${round}a`).length).toBe(1);
      const owners = await t.db
        .fork()
        .getConnection()
        .execute<{ n: string }[]>(
          `select (select count(*) from users where email = '${address}') + (select count(*) from emails where email = '${address}') as n`,
        );
      expect(Number(owners[0].n)).toBe(1);
    }
  });

  it('is enforced by the database itself', async () => {
    const connection = t.db.fork().getConnection();
    await expect(
      connection.execute(`insert into emails (user_id, email, created_at) values (${bob.id}, '${alice.email}', now())`),
    ).rejects.toThrow(/e-mail address/);
    await t.hosting.emails.createForUser(bob.id, { email: 'bob-secondary@example.com' });
    await expect(connection.execute(`update users set email = 'bob-secondary@example.com' where id = ${alice.id}`)).rejects.toThrow(
      /e-mail address/,
    );
  });
});

describe('PUT /users/:id', () => {
  it('modifies the user', async () => {
    const res = await t.http.put(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({
      name: 'Robert',
      bio: 'Builds',
      location: 'Site',
      projects_limit: 7,
      can_create_group: false,
      extern_uid: 'bob-1',
      provider: 'github',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: bob.id,
      name: 'Robert',
      bio: 'Builds',
      location: 'Site',
      projects_limit: 7,
      can_create_group: false,
      identities: [{ provider: 'github', extern_uid: 'bob-1' }],
    });
    const again = await t.http.get(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(again.body.name).toBe('Robert');
  });

  it('changes the password', async () => {
    const res = await t.http.put(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ password: 'a-new-password' });
    expect(res.status).toBe(200);
    const session = await t.http.post('/api/v4/session').send({ login: bob.username, password: 'a-new-password' });
    expect(session.status).toBe(201);
  });

  it('answers 404 for a taken e-mail or username (SPEC.md Errors 12)', async () => {
    const email = await t.http.put(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ email: alice.email });
    expect(email.status).toBe(404);
    expect(email.body).toEqual({ message: { email: ['has already been taken'] } });
    const username = await t.http.put(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ username: alice.username });
    expect(username.status).toBe(404);
    await expect(t.hosting.users.update(bob.id, { email: alice.email })).rejects.toBeInstanceOf(NotFoundValidationError);
    const unchanged = await t.hosting.users.get(bob.id);
    expect(unchanged.username).toBe(bob.username);
  });

  it('answers 400 for invalid attributes, 404 for an unknown user, 403 for non-admins', async () => {
    const invalid = await t.http.put(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).send({ email: 'nope' });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({ message: { email: ['is invalid'] } });
    const missing = await t.http.put('/api/v4/users/424242').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ name: 'X' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
    const normal = await t.http.put(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', alice.token).send({ name: 'X' });
    expect(normal.status).toBe(403);
    await expect(t.hosting.users.update(bob.id, { name: '' })).rejects.toBeInstanceOf(BadRequestError);
  });
});

describe('DELETE /users/:id', () => {
  it('deletes the user and what hangs off it (204), then 404', async () => {
    const erin = await createUser(t.hosting);
    await t.hosting.as(erin.id).emails.create({ email: 'erin.second@example.com' });
    const res = await t.http.delete(`/api/v4/users/${erin.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN).query({ hard_delete: true });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const again = await t.http.delete(`/api/v4/users/${erin.id}`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 User Not Found' });
    // Its token no longer authenticates and its e-mail address is free again.
    const token = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', erin.token);
    expect(token.status).toBe(401);
    await t.hosting.as(alice.id).emails.create({ email: 'erin.second@example.com' });
  });

  it('is for administrators only', async () => {
    const res = await t.http.delete(`/api/v4/users/${bob.id}`).set('PRIVATE-TOKEN', alice.token);
    expect(res.status).toBe(403);
  });
});

describe('POST /users/:id/block and /unblock', () => {
  it('blocks and unblocks (201 true)', async () => {
    const frank = await createUser(t.hosting);
    const block = await t.http.post(`/api/v4/users/${frank.id}/block`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(block.status).toBe(201);
    expect(block.body).toBe(true);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', frank.token)).status).toBe(401);
    const unblock = await t.http.post(`/api/v4/users/${frank.id}/unblock`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(unblock.status).toBe(201);
    expect(unblock.body).toBe(true);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', frank.token)).status).toBe(200);
    const missing = await t.http.post('/api/v4/users/424242/block').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(missing.status).toBe(404);
    expect(await t.hosting.users.block(frank.id)).toBe(true);
  });

  it('answers false for a user blocked already and for unblocking an active user, as the original does', async () => {
    const grace = await createUser(t.hosting);
    const unblockActive = await t.http.post(`/api/v4/users/${grace.id}/unblock`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([unblockActive.status, unblockActive.body]).toEqual([201, false]);
    expect((await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', grace.token)).status).toBe(200);
    expect(await t.hosting.users.block(grace.id)).toBe(true);
    const again = await t.http.post(`/api/v4/users/${grace.id}/block`).set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([again.status, again.body]).toEqual([201, false]);
    expect((await t.hosting.users.get(grace.id)).state).toBe('blocked');
    // Two blocks at once: one of them blocks.
    expect(await t.hosting.users.unblock(grace.id)).toBe(true);
    expect((await Promise.all([t.hosting.users.block(grace.id), t.hosting.users.block(grace.id)])).sort()).toEqual([false, true]);
    expect(await t.hosting.users.unblock(grace.id)).toBe(true);
    expect(await t.hosting.users.unblock(grace.id)).toBe(false);
  });
});

describe('GET /version', () => {
  it('answers the API version', async () => {
    const res = await t.http.get('/api/v4/version').set('PRIVATE-TOKEN', alice.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '10.1.0', revision: expect.stringMatching(/^forgekit-\d+\.\d+\.\d+$/) });
    expect(await t.hosting.instance.version()).toEqual(res.body);
  });
});
