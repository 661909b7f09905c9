import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/api/index.js';
import { PerCaller } from '../src/api/route.js';
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
      const shapes = route.response instanceof PerCaller ? [route.response.admin, route.response.other] : [route.response];
      if (route.paginated) for (const shape of shapes) expect(shape && 'items' in shape, `${group}.${name}`).toBe(true);
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

/** PostgreSQL's int4. */
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema | JsonSchema[];
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  minimum?: number;
  maximum?: number;
}

/** Where a schema lets a caller send more than a bounded amount: each problem names the parameter. */
function unbounded(schema: JsonSchema, where: string): string[] {
  // A fixed set of values is bounded whatever its type.
  if (schema.enum !== undefined || schema.const !== undefined) return [];
  const problems = (schema.anyOf ?? []).flatMap((branch) => unbounded(branch, where));
  for (const type of [schema.type ?? []].flat()) {
    if (type === 'string' && schema.maxLength === undefined) problems.push(`${where}: string without maxLength`);
    if (type === 'integer' || type === 'number') {
      const { minimum, maximum } = schema;
      if (minimum === undefined || maximum === undefined) problems.push(`${where}: ${type} without minimum and maximum`);
      else if (minimum < INT32_MIN || maximum > INT32_MAX) problems.push(`${where}: ${type} past int4`);
    }
    if (type === 'array') {
      if (schema.maxItems === undefined) problems.push(`${where}: array without maxItems`);
      for (const item of [schema.items ?? []].flat()) problems.push(...unbounded(item, `${where}[]`));
    }
    if (type === 'object') {
      for (const [name, property] of Object.entries(schema.properties ?? {})) problems.push(...unbounded(property, where ? `${where}[${name}]` : name));
      const values = [...Object.values(schema.patternProperties ?? {}), ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : [])];
      if (values.length) {
        if (schema.maxProperties === undefined) problems.push(`${where}: record without maxProperties`);
        if (schema.propertyNames?.maxLength === undefined && schema.propertyNames?.enum === undefined) problems.push(`${where}: record keys without maxLength`);
        for (const value of values) problems.push(...unbounded(value, `${where}[*]`));
      }
    }
  }
  return problems;
}

describe('every parameter of every route is bounded before any query runs', () => {
  it('walks every string, number, array and record of every route\'s params and input', () => {
    const problems: string[] = [];
    for (const { group, name, route } of allRoutes()) {
      const found = (['params', 'input'] as const).flatMap((part) => (route[part] ? unbounded(route[part] as JsonSchema, '').map((problem) => `${part} ${problem}`) : []));
      problems.push(...found.map((problem) => `${group}.${name} (${route.method} ${route.path}) ${problem}`));
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('finds what it looks for', () => {
    expect(
      unbounded(
        {
          type: 'object',
          properties: {
            a: { type: 'string' },
            b: { type: 'array', maxItems: 2, items: { type: 'integer', minimum: 0 } },
            c: { anyOf: [{ type: 'null' }, { type: 'object', patternProperties: { '^.*$': { type: 'string', maxLength: 1 } } }] },
            d: { type: 'string', enum: ['x'] },
            e: { type: 'number', minimum: 0, maximum: 1e12 },
          },
        },
        '',
      ),
    ).toEqual([
      'a: string without maxLength',
      'b[]: integer without minimum and maximum',
      'c: record without maxProperties',
      'c: record keys without maxLength',
      'e: number past int4',
    ]);
  });
});
