/**
 * The route table, walked: every route called with its example by each kind of caller, each answer held to
 * the exact status (and, for a refusal, the exact body) that the route's declaration gives: `auth`,
 * `readUser`, its method (token scopes), `scope` and `ability`, and its success status. No route is named
 * here: a new route is walked as soon as it is in the table. Each run calls every route as a few of the kinds
 * of caller, chosen by the run's seed (test/helpers.ts `sampled`), so that the walk costs the same however many
 * routes there are; over runs, every kind calls every route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abilityMayHide, type Ability } from '../src/auth/abilities.js';
import { allRoutes } from '../src/api/index.js';
import { defineRoute, PerCaller, successStatus, type AnyRoute } from '../src/api/route.js';
import { NESTED_SCOPES, PATH_PARAMETERS, rootScopeOf, type NestedScopeName, type ScopeName } from '../src/api/params.js';
import { SCOPES } from '../src/api/scopes.js';
import { exampleCall, exampleInput, exampleParams, exampleTools, FixtureSet, sendCall, type Owner, type TestUser } from './fixtures.js';
import { exampleOf } from './route-examples.js';
import { createUser, sampled, SEED, sharedHosting, type TestHosting } from './helpers.js';

let t: TestHosting;
/** The normal caller: its tokens carry the scopes the callers below name. */
let normal: TestUser;
/** Fixtures that calls which change nothing share. */
let shared: FixtureSet;
const tokens = { admin: '', normal: '', readUser: '', readApi: '', blocked: '' };

/** Every kind of caller, refused ones first: a write that must succeed for the last ones still finds its fixtures. */
const CALLERS = ['anonymous', 'wrong token', 'blocked user', 'read_user token', 'read_api token', 'normal user', 'administrator'] as const;
type CallerKind = (typeof CALLERS)[number];

beforeAll(async () => {
  t = await sharedHosting();
  normal = await createUser(t.hosting);
  tokens.normal = normal.token;
  tokens.readUser = (await t.hosting.personalAccessTokens.create(normal.id, { name: 'read_user', scopes: ['read_user'] })).token;
  tokens.readApi = (await t.hosting.personalAccessTokens.create(normal.id, { name: 'read_api', scopes: ['read_api'] })).token;
  // Root with a personal access token, as an administrator's client calls: GET /personal_access_tokens/self needs one.
  tokens.admin = (await t.hosting.personalAccessTokens.create(1, { name: 'admin', scopes: ['api'] })).token;
  const blocked = await createUser(t.hosting);
  await t.hosting.users.block(blocked.id);
  tokens.blocked = blocked.token;
  shared = new FixtureSet(t, normal);
});
afterAll(() => t?.close());

const headersOf = (caller: CallerKind): Record<string, string> => {
  const token = {
    anonymous: undefined,
    'wrong token': 'not-a-token',
    'blocked user': tokens.blocked,
    'read_user token': tokens.readUser,
    'read_api token': tokens.readApi,
    'normal user': tokens.normal,
    administrator: tokens.admin,
  }[caller];
  return token === undefined ? {} : { 'PRIVATE-TOKEN': token };
};

/** Whose `own…` fixtures a caller's example names (the refused callers' never get as far as a fixture). */
const ownerOf = (caller: CallerKind): Owner => (caller === 'administrator' ? 'admin' : 'normal');

const UNAUTHORIZED = { status: 401, body: { message: '401 Unauthorized' } };
const FORBIDDEN = { status: 403, body: { message: '403 Forbidden' } };

/**
 * Whether an ability lets a signed-in caller who is neither an administrator nor the resource's owner act on
 * it: examples name the fixture user's resources, never the caller's (a test below checks that).
 */
const ADMITS_OTHERS: Record<Ability, boolean> = {
  read_user: true,
  manage_personal_access_token: false,
  read_namespace: false,
  read_project: false,
  admin_project: false,
  rename_project: false,
  change_visibility_level: false,
  remove_project: false,
  change_namespace: false,
  fork_project: false,
  download_code: false,
  push_code: false,
  create_commit_status: false,
  create_note: false,
  admin_project_member: false,
  read_group: false,
  admin_group: false,
  admin_group_member: false,
  create_subgroup: false,
  admin_milestones: false,
  read_all_resources: false,
  admin_all_resources: false,
  create_group: false,
  create_projects: false,
  read_statistics: false,
  push_to_delete_protected_branch: false,
  read_protected_branch: false,
  destroy_protected_branch: false,
  read_issues: false,
  create_issue: false,
  read_confidential_issues: false,
  admin_issue: false,
  destroy_issue: false,
  set_issue_timestamps: false,
  read_label: false,
  admin_label: false,
  read_milestone: false,
  admin_milestone: false,
  read_issue: false,
  update_issue: false,
  create_issue_note: false,
  award_issue_emoji: false,
  read_merge_requests: false,
  create_merge_request_in: false,
  create_merge_request_from: false,
  admin_merge_request: false,
  destroy_merge_request: false,
  read_merge_request: false,
  update_merge_request: false,
  create_merge_request_note: false,
  award_merge_request_emoji: false,
  resolve_merge_request_discussion: false,
  read_note: false,
  admin_note: false,
  destroy_award_emoji: false,
  admin_runner: false,
  read_runner: false,
  update_runner: false,
  delete_runner: false,
  assign_runner: false,
  read_runner_token: false,
  read_environment: false,
  create_environment: false,
  update_environment: false,
  stop_environment: false,
  destroy_environment: false,
};

/**
 * What a route of the scope answers when the resource its path's first parameter names is missing or hidden: a nested scope's outer one.
 */
function firstNotFound(name: ScopeName): unknown {
  return SCOPES[rootScopeOf(name)].notFound().body();
}

/** What a route of the scope answers when its ability is refused and the resource is not hidden: the scope's reason, if it has one. */
function scopeForbidden(name: ScopeName): Answer {
  const forbidden = (SCOPES[name] as { forbidden?: () => { status: number; body(): unknown } }).forbidden?.();
  return forbidden ? { status: forbidden.status, body: forbidden.body() } : FORBIDDEN;
}

interface Answer {
  status: number;
  body?: unknown;
}

/** The answer the declaration gives a caller of the route's example, in the order the pipeline decides. */
function expectedAnswer(route: AnyRoute, caller: CallerKind, input: Record<string, unknown>): Answer {
  const success = { status: successStatus(route) };
  // A credential that names no active user is refused before any route's rule, a public route's too.
  if (caller === 'wrong token' || caller === 'blocked user') return UNAUTHORIZED;
  if (caller === 'anonymous') {
    if (route.auth !== 'public') return UNAUTHORIZED;
    // A public route's scope the caller may not see (the fixture projects are private) is not there for it.
    return route.scope && route.ability && !ADMITS_OTHERS[route.ability] ? { status: 404, body: firstNotFound(route.scope) } : success;
  }
  // A token's scopes: `api` admits everything, `read_api` every GET, `read_user` the GETs marked readUser.
  const admitted = route.method !== 'GET' ? ['api'] : route.readUser ? ['api', 'read_api', 'read_user'] : ['api', 'read_api'];
  const scope = caller === 'read_user token' ? 'read_user' : caller === 'read_api token' ? 'read_api' : 'api';
  if (!admitted.includes(scope)) {
    const error_description = 'The request requires higher privileges than provided by the access token.';
    return { status: 403, body: { error: 'insufficient_scope', error_description, scope: admitted.join(' ') } };
  }
  if (caller === 'administrator') return success;
  if (route.auth === 'admin') return FORBIDDEN;
  const adminOnly = (name: string) => (route.input?.properties[name] as { 'x-admin-only'?: string } | undefined)?.['x-admin-only'];
  if (Object.keys(input).some((name) => adminOnly(name) === 'forbidden')) return FORBIDDEN;
  if (route.scope && route.ability && !ADMITS_OTHERS[route.ability]) {
    // An ability that hides by caller hides from one that may not see the resource: the fixture projects are private.
    return abilityMayHide(route.ability) ? { status: 404, body: firstNotFound(route.scope) } : scopeForbidden(route.scope);
  }
  return success;
}

const ROUTES = allRoutes();
const label = ({ group, name, route }: (typeof ROUTES)[number]) => `${group}.${name}: ${route.method} ${route.path} (${route.auth})`;
// Reads first: should a refused write change something after all, the reads have been checked already.
const WALK = [...ROUTES.filter(({ route }) => route.method === 'GET'), ...ROUTES.filter(({ route }) => route.method !== 'GET')];

describe('the route table', () => {
  it('declares a rule, a summary, a success shape and an example for every route', () => {
    for (const { group, name, route } of ROUTES) {
      expect(['public', 'user', 'admin'], `${group}.${name}`).toContain(route.auth);
      expect(route.summary.length, `${group}.${name}`).toBeGreaterThan(0);
      const shapes = route.response instanceof PerCaller ? [route.response.admin, route.response.other] : [route.response];
      if (route.list) for (const shape of shapes) expect(shape && 'items' in shape, `${group}.${name}`).toBe(true);
      // Every path parameter named by a fixture; a scope's by someone else's, which ADMITS_OTHERS counts on.
      const names = Object.keys(route.params?.properties ?? {});
      expect(Object.keys(exampleOf(route).params ?? {}).sort(), `${group}.${name}`).toEqual([...names].sort());
      if (route.scope) expect(exampleOf(route).params?.[names[0]], `${group}.${name}`).not.toMatch(/^own/);
    }
  });
});

/** Calls of the walk per run, spread over the routes (all seven kinds of caller would be some thousand calls). */
const CALLS_PER_RUN = 400;
const CALLERS_PER_ROUTE = Math.max(1, Math.round(CALLS_PER_RUN / ROUTES.length));

describe('every route answers each kind of caller as its declaration says', () => {
  for (const named of WALK) {
    const { route } = named;
    it(label(named), async () => {
      const tools = exampleTools({ login: normal.username, password: normal.password }, t);
      const answers: (Answer & { caller: CallerKind })[] = [];
      const expected: (Answer & { caller: CallerKind })[] = [];
      for (const caller of sampled(CALLERS, CALLERS_PER_ROUTE, label(named))) {
        const input = await exampleInput(route, tools);
        const want = expectedAnswer(route, caller, input);
        // A write that succeeds may use up what it names: it gets fixtures of its own.
        const fixtures = route.method !== 'GET' && want.status < 300 ? new FixtureSet(t, normal) : shared;
        const res = await sendCall(t, route, { params: await exampleParams(route, fixtures, ownerOf(caller)), input }, headersOf(caller));
        expected.push({ caller, ...want });
        answers.push({ caller, status: res.status, ...(want.body === undefined ? {} : { body: res.body }) });
      }
      expect(answers, `these callers by FORGEKIT_TEST_SEED=${SEED}`).toEqual(expected);
    });
  }
});

describe('a route with a scope answers 404 for a resource that is not there', () => {
  for (const named of ROUTES.filter(({ route }) => route.scope)) {
    const { route } = named;
    it(label(named), async () => {
      const tools = exampleTools({ login: normal.username, password: normal.password }, t);
      const call = await exampleCall(route, shared, 'admin', tools);
      const [first] = Object.keys(call.params);
      // The largest id a path takes: valid, and never reached by the fixtures of a test.
      const res = await sendCall(t, route, { ...call, params: { ...call.params, [first]: 2147483647 } }, headersOf('administrator'));
      expect([res.status, res.body]).toEqual([404, firstNotFound(route.scope!)]);
      // Each nested scope's own resource, missing in the scopes around it that are there.
      for (let name: ScopeName = route.scope!; name in NESTED_SCOPES; name = NESTED_SCOPES[name as NestedScopeName].parent) {
        const { parameter } = NESTED_SCOPES[name as NestedScopeName];
        // A value the parameter takes: the largest ID for a number (an issue's iid), a name for text.
        const missing = (PATH_PARAMETERS[parameter] as { type?: string }).type === 'integer' ? 2147483647 : 'no-such-thing';
        const inner = await sendCall(t, route, { ...call, params: { ...call.params, [parameter]: missing } }, headersOf('administrator'));
        expect([inner.status, inner.body], name).toEqual([404, SCOPES[name].notFound().body()]);
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
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        problems.push(...unbounded(property, where ? `${where}[${name}]` : name));
      const values = [
        ...Object.values(schema.patternProperties ?? {}),
        ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
      ];
      if (values.length) {
        if (schema.maxProperties === undefined) problems.push(`${where}: record without maxProperties`);
        if (schema.propertyNames?.maxLength === undefined && schema.propertyNames?.enum === undefined)
          problems.push(`${where}: record keys without maxLength`);
        for (const value of values) problems.push(...unbounded(value, `${where}[*]`));
      }
    }
  }
  return problems;
}

describe('every parameter of every route is bounded before any query runs', () => {
  it("walks every string, number, array and record of every route's params and input", () => {
    const problems: string[] = [];
    for (const { group, name, route } of allRoutes()) {
      const found = (['params', 'input'] as const).flatMap((part) =>
        route[part] ? unbounded(route[part] as JsonSchema, '').map((problem) => `${part} ${problem}`) : [],
      );
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

describe('defineRoute', () => {
  it('refuses a nested scope whose path lacks the parameter of a scope it is in', () => {
    const route = {
      method: 'DELETE',
      summary: 'Delete a note',
      auth: 'user',
      scope: 'issueNote',
      run: async () => undefined as never,
    } as const;
    expect(() => defineRoute({ ...route, path: '/projects/:id/issues/:issue_iid/notes' })).toThrow(
      '/projects/:id/issues/:issue_iid/notes: the issueNote scope needs :note_id',
    );
    expect(() => defineRoute({ ...route, path: '/projects/:id/notes/:note_id' })).toThrow(
      '/projects/:id/notes/:note_id: the issue scope needs :issue_iid',
    );
    expect(() => defineRoute({ ...route, path: '/projects/:id/issues/:issue_iid/notes/:note_id' })).not.toThrow();
  });
});
