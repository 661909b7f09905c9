import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let host: express.Express;
const hostErrors: string[] = [];

beforeAll(async () => {
  t = await startHosting();
  // A host application with its own JSON parser, routes, 404 and error handler, and forgekit under /git.
  host = express();
  host.use(express.text({ type: 'text/*' }));
  host.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  host.post('/echo', (req, res) => {
    res.type('text/plain').send(`echo:${req.body}`);
  });
  host.get('/boom', () => {
    throw new Error('host failure');
  });
  host.use('/git', t.hosting.router());
  host.use((_req, res) => {
    res.status(404).type('text/plain').send('host 404');
  });
  host.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    hostErrors.push(error.message);
    res.status(500).type('text/plain').send('host error');
  });
});
afterAll(() => t.close());

describe('the router mounted under a prefix in a host app', () => {
  it('serves /api/v4 under the prefix', async () => {
    const res = await request(host).get('/git/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body.username).toBe('root');
  });

  it('builds Link URLs with the prefix', async () => {
    const res = await request(host).get('/git/api/v4/users?per_page=1').set('PRIVATE-TOKEN', ROOT_TOKEN).set('Host', 'example.test');
    expect(res.headers.link).toBe(
      '<http://example.test/git/api/v4/users?per_page=1&page=1>; rel="first", <http://example.test/git/api/v4/users?per_page=1&page=1>; rel="last"',
    );
  });

  it('never repeats credentials or sudo in Link URLs', async () => {
    const res = await request(host)
      .get(`/git/api/v4/users?per_page=1&private_token=${ROOT_TOKEN}&access_token=x&sudo=root&search=root`)
      .set('Host', 'example.test');
    expect(res.status).toBe(200);
    expect(res.headers.link).toBe(
      '<http://example.test/git/api/v4/users?per_page=1&search=root&page=1>; rel="first", <http://example.test/git/api/v4/users?per_page=1&search=root&page=1>; rel="last"',
    );
  });

  it("answers its own 404 under its prefix and leaves the host's 404 alone elsewhere", async () => {
    const inside = await request(host).get('/git/api/v4/no/such/route').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(inside.status).toBe(404);
    expect(inside.body).toEqual({ error: '404 Not Found' });
    const outside = await request(host).get('/elsewhere');
    expect(outside.status).toBe(404);
    expect(outside.text).toBe('host 404');
    const beside = await request(host).get('/git/not-the-api');
    expect(beside.text).toBe('host 404');
  });

  it("keeps the host's routes, body parsing and error handler working", async () => {
    expect((await request(host).get('/health')).body).toEqual({ ok: true });
    const echo = await request(host).post('/echo').type('text/plain').send('hi');
    expect(echo.text).toBe('echo:hi');
    const boom = await request(host).get('/boom');
    expect(boom.status).toBe(500);
    expect(boom.text).toBe('host error');
    expect(hostErrors).toEqual(['host failure']);
  });

  it("answers its own errors in the spec's shape without reaching the host's error handler", async () => {
    const before = hostErrors.length;
    const malformed = await request(host).post('/git/api/v4/user/keys').set('PRIVATE-TOKEN', ROOT_TOKEN).type('json').send('{"title": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/^400 \(Bad request\)/);
    const unauthorized = await request(host).get('/git/api/v4/user');
    expect(unauthorized.body).toEqual({ message: '401 Unauthorized' });
    expect(hostErrors.length).toBe(before);
  });
});

describe('parameters', () => {
  let user: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    user = await createUser(t.hosting);
  });

  it('are read from the query string, form fields and JSON bodies alike', async () => {
    const query = await t.http.post('/api/v4/user/emails').query({ email: 'q@example.com' }).set('PRIVATE-TOKEN', user.token);
    const form = await t.http.post('/api/v4/user/emails').type('form').send({ email: 'f@example.com' }).set('PRIVATE-TOKEN', user.token);
    const json = await t.http.post('/api/v4/user/emails').send({ email: 'j@example.com' }).set('PRIVATE-TOKEN', user.token);
    const multipart = await t.http.post('/api/v4/user/emails').field('email', 'm@example.com').set('PRIVATE-TOKEN', user.token);
    expect([query.status, form.status, json.status, multipart.status]).toEqual([201, 201, 201, 201]);
    expect([query.body.email, form.body.email, json.body.email, multipart.body.email]).toEqual(['q@example.com', 'f@example.com', 'j@example.com', 'm@example.com']);
  });

  it('take the token from the query string too, and ignore unknown parameters', async () => {
    const res = await t.http.get('/api/v4/user').query({ private_token: user.token, colour: 'blue' });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(user.id);
  });

  it('accept a .json suffix on any route', async () => {
    const res = await t.http.get('/api/v4/user/emails.json').set('PRIVATE-TOKEN', user.token);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(4);
  });
});

describe('unexpected failures', () => {
  it('answer 500 with a plain message and no stack', async () => {
    const errors: unknown[] = [];
    const broken = await startHosting({ logger: { info() {}, warn() {}, error: (...args: unknown[]) => errors.push(args) } });
    // A database that lost a table: every query fails underneath the service.
    await broken.db.fork().getConnection().execute('drop table access_tokens cascade');
    const res = await broken.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: '500 Internal Server Error' });
    expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
    expect(errors.length).toBe(1);
    await broken.close();
  });
});

describe('GET /api/v4/openapi.json', () => {
  it('describes every route of the table, without authentication', async () => {
    const res = await t.http.get('/api/v4/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v4/users/{id}'].get.operationId).toBe('users.get');
    expect(res.body.paths['/api/v4/users'].post.requestBody.content['application/json'].schema.required).toEqual(['email', 'username', 'name']);
    expect(res.body.paths['/oauth/token'].post.operationId).toBe('oauth.token');
  });
});

describe('input the database cannot hold', () => {
  it('answers 400, not 500', async () => {
    const page = await t.http.get('/api/v4/users?page=100000000000000000000').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(page.status).toBe(400);
    expect(page.body).toEqual({ message: { page: ['must be less than or equal to 2147483647'] } });
    const nul = await t.http.post('/api/v4/users').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ email: 'nul@example.com', username: 'nul', name: 'N\u0000', password: 'long-enough-1' });
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual({ message: { name: ['is invalid'] } });
    const key = await t.http.put('/api/v4/users/1/custom_attributes/a%00b').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ value: 'v' });
    expect(key.status).toBe(400);
    expect(key.body).toEqual({ message: { key: ['is invalid'] } });
  });

  it('answers unreadable bodies with 4xx and absurd nesting or sudo values without reaching the database', async () => {
    const charset = await t.http.post('/api/v4/user/emails').set('PRIVATE-TOKEN', ROOT_TOKEN).set('Content-Type', 'application/json; charset=latin1').send('{}');
    expect(charset.status).toBe(415);
    expect(charset.body).toEqual({ message: '415 Unsupported Media Type' });
    const multipart = await t.http.post('/api/v4/user/emails').set('PRIVATE-TOKEN', ROOT_TOKEN).set('Content-Type', 'multipart/form-data').send('garbage');
    expect(multipart.status).toBe(400);
    expect(multipart.body.message).toMatch(/^400 \(Bad request\) /);
    const deep = await t.http.post('/api/v4/user/emails').set('PRIVATE-TOKEN', ROOT_TOKEN).type('json').send(`{"email":${'['.repeat(40)}${']'.repeat(40)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({ message: { email: ['is nested too deeply'] } });
    const sudo = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN).set('SUDO', '9'.repeat(400));
    expect(sudo.status).toBe(404);
    expect(sudo.body).toEqual({ message: `404 Not Found: No user id or username for: ${'9'.repeat(400)}` });
  });
});
