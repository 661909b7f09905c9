import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRoute } from '../src/api/route.js';
import { RouteMatcher } from '../src/http/match.js';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
} from '../src/index.js';
import { createUser, ROOT_PASSWORD, ROOT_TOKEN, sharedHosting, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let host: express.Express;
const hostErrors: string[] = [];

beforeAll(async () => {
  t = await sharedHosting();
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
      '<http://example.test/git/api/v4/users?per_page=1&page=1>; rel="first", <http://example.test/git/api/v4/users?per_page=1&page=1>; ' +
        'rel="last"',
    );
  });

  it('never repeats credentials or sudo in Link URLs', async () => {
    const res = await request(host)
      .get(`/git/api/v4/users?per_page=1&private_token=${ROOT_TOKEN}&access_token=x&sudo=root&search=root`)
      .set('Host', 'example.test');
    expect(res.status).toBe(200);
    expect(res.headers.link).toBe(
      '<http://example.test/git/api/v4/users?per_page=1&search=root&page=1>; rel="first", ' +
        '<http://example.test/git/api/v4/users?per_page=1&search=root&page=1>; rel="last"',
    );
  });

  it('answers web_url, avatar_url and Link on the origin and mount point the request came to when no base URL is set', async () => {
    const res = await request(host)
      .get('/git/api/v4/users?per_page=1&username=root')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .set('Host', 'example.test:8443');
    expect(res.status).toBe(200);
    expect(res.body[0].web_url).toBe('http://example.test:8443/git/root');
    expect(res.headers.link).toMatch(/^<http:\/\/example\.test:8443\/git\/api\/v4\/users\?/);
    const single = await request(host).get('/git/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN).set('Host', 'other.test');
    expect(single.body.web_url).toBe('http://other.test/git/root');
    // In process there is no request: the default base URL.
    expect((await t.hosting.users.current()).web_url).toBe('http://localhost/root');
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
    expect([query.body.email, form.body.email, json.body.email, multipart.body.email]).toEqual([
      'q@example.com',
      'f@example.com',
      'j@example.com',
      'm@example.com',
    ]);
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
    // The log names the failure and where it happened, never the query with its values (a token's digest here).
    const logged = (errors[0] as unknown[]).join('\n');
    expect(logged).toMatch(/^forgekit: unexpected failure in GET \/api\/v4\/user\n\w+Exception \(SQLSTATE 42P01\)\n\s+at /);
    expect(logged).not.toMatch(/select|token_digest|[0-9a-f]{64}/i);
    await broken.close();
  });
});

describe('GET /api/v4/openapi.json', () => {
  it('describes every route of the table, without authentication', async () => {
    const res = await t.http.get('/api/v4/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v4/users/{id}'].get.operationId).toBe('users.get');
    expect(res.body.paths['/api/v4/users'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateUserInput',
    });
    expect(res.body.components.schemas.CreateUserInput.required).toEqual(['email', 'username', 'name']);
    expect(res.body.paths['/oauth/token'].post.operationId).toBe('oauth.token');
  });

  it('names where the request reached the service as its server', async () => {
    const res = await request(host).get('/git/api/v4/openapi.json').set('Host', 'example.test:8443');
    expect(res.body.servers).toEqual([{ url: 'http://example.test:8443/git' }]);
  });
});

describe('input the database cannot hold', () => {
  it('answers 400, not 500', async () => {
    const page = await t.http.get('/api/v4/users?page=100000000000000000000').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(page.status).toBe(400);
    expect(page.body).toEqual({ message: { page: ['must be less than or equal to 2147483647'] } });
    const nul = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .send({ email: 'nul@example.com', username: 'nul', name: 'N\u0000', password: 'long-enough-1' });
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual({ message: { name: ['is invalid'] } });
    const key = await t.http.put('/api/v4/users/1/custom_attributes/a%00b').set('PRIVATE-TOKEN', ROOT_TOKEN).send({ value: 'v' });
    expect(key.status).toBe(400);
    expect(key.body).toEqual({ message: { key: ['is invalid'] } });
  });

  it('answers unreadable bodies with 4xx and absurd nesting or sudo values without reaching the database', async () => {
    const charset = await t.http
      .post('/api/v4/user/emails')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .set('Content-Type', 'application/json; charset=latin1')
      .send('{}');
    expect(charset.status).toBe(415);
    expect(charset.body).toEqual({ message: '415 Unsupported Media Type' });
    const multipart = await t.http
      .post('/api/v4/user/emails')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .set('Content-Type', 'multipart/form-data')
      .send('garbage');
    expect(multipart.status).toBe(400);
    expect(multipart.body.message).toMatch(/^400 \(Bad request\) /);
    const deep = await t.http
      .post('/api/v4/user/emails')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .type('json')
      .send(`{"email":${'['.repeat(40)}${']'.repeat(40)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({ message: { email: ['is nested too deeply'] } });
    const sudo = await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN).set('SUDO', '9'.repeat(400));
    expect(sudo.status).toBe(404);
    expect(sudo.body).toEqual({ message: `404 Not Found: No user id or username for: ${'9'.repeat(400)}` });
  });
});

describe('JSON answers', () => {
  it('carry Content-Type application/json without a charset, as the original service answers', async () => {
    const answers = [
      await t.http.get('/api/v4/user').set('PRIVATE-TOKEN', ROOT_TOKEN),
      await t.http.get('/api/v4/users').set('PRIVATE-TOKEN', ROOT_TOKEN),
      await t.http.get('/api/v4/user'),
      await t.http.get('/api/v4/no/such/route'),
      await t.http.post('/api/v4/user/keys').set('PRIVATE-TOKEN', ROOT_TOKEN).send({}),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 200, 401, 404, 400]);
    for (const res of answers) expect(res.headers['content-type']).toBe('application/json');
  });
});

describe('request bodies', () => {
  /** Sends headers and the first 64 KB of a body declared to be 19 MB, then waits for an answer without sending more. */
  async function answerBeforeBody(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(19 * 1024 * 1024), ...headers },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', reject);
      req.write(`{"title":"${'x'.repeat(64 * 1024)}`);
    });
  }

  it('answers an invalid token, or a body past the route limit, without reading the body', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const invalid = await answerBeforeBody(`${url}/api/v4/user/keys`, { 'PRIVATE-TOKEN': 'not-a-token' });
      expect(invalid).toEqual({ status: 401, body: '{"message":"401 Unauthorized"}' });
      const tooLarge = await answerBeforeBody(`${url}/api/v4/user/keys`, { 'PRIVATE-TOKEN': ROOT_TOKEN });
      expect(tooLarge).toEqual({ status: 413, body: '{"message":"413 Payload Too Large"}' });
      const anonymous = await answerBeforeBody(`${url}/api/v4/session?private_token=nope`, {});
      expect(anonymous.status).toBe(401);
    } finally {
      server.close();
    }
  });

  it('refuses a body past its route limit even without a declared length, and gives upload routes a larger one', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      // No Content-Length: the body comes chunked, and reading stops at the limit.
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4/user/keys`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'PRIVATE-TOKEN': ROOT_TOKEN },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end(`{"title":"t","key":"${'x'.repeat(300 * 1024)}"}`);
      });
      expect(chunked).toEqual({ status: 413, body: '{"message":"413 Payload Too Large"}' });
    } finally {
      server.close();
    }
    // 300 KB is within POST /users' limit (it takes an avatar): the avatar's own rule answers.
    const avatar = await t.http
      .post('/api/v4/users')
      .set('PRIVATE-TOKEN', ROOT_TOKEN)
      .field('email', 'big-avatar@example.com')
      .field('username', 'big-avatar')
      .field('name', 'Big Avatar')
      .field('password', 'long-enough-password')
      .attach('avatar', Buffer.alloc(300 * 1024), { filename: 'big.png', contentType: 'image/png' });
    expect(avatar.status).toBe(400);
    expect(avatar.body).toEqual({ message: { avatar: ['is too big (should be at most 200 KB)'] } });
  });
});

describe('errors', () => {
  it('carry their class names', async () => {
    const classes = { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError, TooManyRequestsError, UnauthorizedError };
    expect(
      Object.entries(classes).map(([name, Class]) => [name, new (Class as new (...args: never[]) => Error)(...([] as never[])).name]),
    ).toEqual(Object.keys(classes).map((name) => [name, name]));
    const thrown = await t.hosting.users.get(999999).catch((error: unknown) => error);
    expect((thrown as Error).name).toBe('NotFoundError');
  });
});

describe('closing', () => {
  it('waits for calls in flight, then refuses new ones with 503', async () => {
    const closing = await startHosting();
    // A sign-in verifies a password with a memory-hard hash: it is still running when close() is called.
    const session = closing.hosting.as(null).session.create({ login: 'root', password: ROOT_PASSWORD });
    const list = closing.hosting.users.list();
    const closed = closing.close();
    expect((await session).username).toBe('root');
    expect((await list).map((user) => user.username)).toEqual(['root']);
    await closed;
    await expect(closing.hosting.users.get(1)).rejects.toBeInstanceOf(ServiceUnavailableError);
    const late = await closing.http.get('/api/v4/users/1').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect(late.status).toBe(503);
    expect(late.body).toEqual({ message: '503 Service Unavailable' });
  });
});

describe('route matching', () => {
  it('takes a parameter after a literal start within a segment (`archive.:format`), literal segments first', () => {
    const route = (path: string) => ({ group: 'test', name: path, route: { method: 'GET', path } as AnyRoute });
    const matcher = new RouteMatcher([
      route('/things/:name'),
      route('/things/archive.:format'),
      route('/things/archive.zip'),
      route('/things/archive'),
    ]);
    const match = (path: string) => {
      const found = matcher.match('GET', path, false);
      return found && [found.route.path, found.params];
    };
    expect(match('/things/archive.zip')).toEqual(['/things/archive.zip', {}]);
    expect(match('/things/archive.tar.gz')).toEqual(['/things/archive.:format', { format: 'tar.gz' }]);
    expect(match('/things/archive%2Etgz')).toEqual(['/things/archive.:format', { format: 'tgz' }]);
    expect(match('/things/archive')).toEqual(['/things/archive', {}]);
    // Nothing after the literal start is no value: the whole-segment parameter takes it.
    expect(match('/things/archive.')).toEqual(['/things/:name', { name: 'archive.' }]);
    expect(match('/things/archiver.zip')).toEqual(['/things/:name', { name: 'archiver.zip' }]);
  });

  it('serves the archive routes with and without a format suffix', async () => {
    const formats = await request(t.app).get('/api/v4/projects/999999/repository/archive.tar.gz').set('PRIVATE-TOKEN', ROOT_TOKEN);
    const plain = await request(t.app).get('/api/v4/projects/999999/repository/archive').set('PRIVATE-TOKEN', ROOT_TOKEN);
    expect([formats.status, formats.body, plain.status, plain.body]).toEqual([
      404,
      { message: '404 Project Not Found' },
      404,
      { message: '404 Project Not Found' },
    ]);
  });
});
