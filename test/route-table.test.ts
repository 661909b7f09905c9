import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/api/index.js';
import { createUser, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
let userToken: string;
let readUserToken: string;

beforeAll(async () => {
  t = await startHosting();
  const user = await createUser(t.hosting);
  userToken = user.token;
  readUserToken = (await t.hosting.personalAccessTokens.create(user.id, { name: 'read', scopes: ['read_user'] })).token;
});
afterAll(() => t.close());

/** A concrete URL for a route: every path parameter names nothing that exists, so no call changes anything. */
const urlOf = (path: string, root?: boolean) => (root ? '' : '/api/v4') + path.replace(/:([A-Za-z_]+)/g, '999999');

const send = (method: string, url: string) => {
  const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
  return t.http[verb](url);
};

describe('every route in the table enforces its declared authentication rule', () => {
  const routes = allRoutes();

  it('declares a rule, a summary and a success shape for every route', () => {
    for (const { group, name, route } of routes) {
      expect(['public', 'user', 'admin'], `${group}.${name}`).toContain(route.auth);
      expect(route.summary.length, `${group}.${name}`).toBeGreaterThan(0);
      if (route.paginated) expect(route.response && 'items' in route.response, `${group}.${name}`).toBe(true);
    }
  });

  for (const { group, name, route } of routes) {
    const label = `${group}.${name}: ${route.method} ${route.path} (${route.auth})`;
    if (route.auth === 'public') {
      it(`${label} answers without authentication`, async () => {
        const res = await send(route.method, urlOf(route.path, route.root));
        expect(res.status).not.toBe(401);
        expect(res.status).not.toBe(403);
      });
      continue;
    }
    it(`${label} answers 401 without authentication and with a wrong token`, async () => {
      const anonymous = await send(route.method, urlOf(route.path, route.root));
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
      const wrong = await send(route.method, urlOf(route.path, route.root)).set('PRIVATE-TOKEN', 'not-a-token');
      expect(wrong.status).toBe(401);
    });
    if (route.auth === 'admin') {
      it(`${label} answers 403 to a normal user and lets root through`, async () => {
        const normal = await send(route.method, urlOf(route.path, route.root)).set('PRIVATE-TOKEN', userToken);
        expect(normal.status).toBe(403);
        expect(normal.body).toEqual({ message: '403 Forbidden' });
        const admin = await send(route.method, urlOf(route.path, route.root)).set('PRIVATE-TOKEN', ROOT_TOKEN);
        expect([401, 403]).not.toContain(admin.status);
      });
    } else {
      it(`${label} lets a normal user through`, async () => {
        const normal = await send(route.method, urlOf(route.path, route.root)).set('PRIVATE-TOKEN', userToken);
        expect([401, 403]).not.toContain(normal.status);
      });
    }
    it(`${label} admits a read_user token only where declared`, async () => {
      const res = await send(route.method, urlOf(route.path, route.root)).set('PRIVATE-TOKEN', readUserToken);
      if (route.method === 'GET' && route.readUser) expect(res.status === 403 && res.body.error === 'insufficient_scope').toBe(false);
      else {
        expect(res.status).toBe(403);
        expect(res.body.error).toBe('insufficient_scope');
      }
    });
  }
});
