/**
 * Hostile input over HTTP against the database: whatever a client sends, the answer is a success or a 4xx in
 * the shape SPEC.md "Errors" gives, never a 500, and a write that fails changes nothing.
 *
 * The validators themselves are fuzzed with every hostile value on every property, without a database, in
 * test/validators.test.ts. Here each route's example (src/api/) is sent as it is, which must succeed for an
 * administrator, and then with one thing at a time made hostile: each input property given a few of the
 * hostile values for its type (test/hostile.ts), as JSON, as form fields or in the query string; every property
 * uploaded as a file; each path parameter given a few hostile segments; and a few bodies that are arrays, scalars
 * or carry `__proto__`, and query strings with repeated, nested and malformed keys. Path parameters name the
 * example's fixtures, so that the calls get past their 404s into the services. Each run sends every example and
 * a few of those hostile cases, chosen by the run's seed (test/helpers.ts `sampled`): the walk costs the same
 * however many routes there are, and over runs every case is sent.
 *
 * After that, the cases this suite found, pinned: numbers past a double, nested coercion, lone surrogates,
 * NULs, int32 overflow, malformed and unreadable bodies, deep JSON, hostile credentials and sudo values.
 * Malformed bodies are parsed before any route is chosen, so they are sent once per method, not per route.
 */
import type { Response, Test } from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/api/index.js';
import { successStatus, type AnyRoute, type NamedRoute } from '../src/api/route.js';
import { refusalPatterns } from '../src/services/repository/refusals.js';
import {
  exampleCall,
  exampleTools,
  FixtureSet,
  newSshKey,
  segmentsOf,
  urlOf,
  type ExampleCall,
  type Owner,
  type TestUser,
} from './fixtures.js';
import { createUser, ROOT_TOKEN, sampled, SEED, startHosting, type TestHosting } from './helpers.js';
import { describeValue, formText, HOSTILE_SEGMENTS, hostileFor, jsonText, LONG_FOR_URL, propertiesOf, withMember } from './hostile.js';

let t: TestHosting;
/** What the service logged as unexpected failures: the stack behind a 500, shown in the failure message. */
const logged: string[] = [];
/** A normal (non-administrator) caller with things of its own. */
let normal: TestUser;
/** Root's personal access token: the administrator's calls (GET /personal_access_tokens/self needs such a token). */
let adminToken: string;
/** Fixtures for the pinned cases, which name a user of their own. */
let shared: FixtureSet;
/**
 * The walk's fixtures: one set, kept in the test double's baseline (a snapshot taken whenever a test has made new ones,
 * before it sends anything), so that a test after one that wrote starts from them as they were made, by a reset
 * rather than by making them again; a reset keeps their IDs, as it puts the sequences back too.
 */
let walkFixtures: FixtureSet;
let keptFixtures = 0;
/** Whether a call since the last reset may have written. */
let written = false;
/** A digest of every table's rows: a write that failed must leave it as it was. */
let fingerprintSql = '';
let defaultSettings: Record<string, unknown>;

beforeAll(async () => {
  t = await startHosting({
    // The hooks of the fixtures deliver to a server of the test's (test/fixtures.ts), whatever the settings' cases set.
    allowLocalRequests: true,
    logger: {
      info() {},
      warn() {},
      error: (...args: unknown[]) => logged.push(args.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(' ')),
    },
  });
  normal = await createUser(t.hosting);
  adminToken = (await t.hosting.personalAccessTokens.create(1, { name: 'admin', scopes: ['api'] })).token;
  shared = new FixtureSet(t, normal);
  walkFixtures = new FixtureSet(t, normal);
  const { id: _id, created_at: _created, updated_at: _updated, ...settings } = await t.hosting.applicationSettings.get();
  defaultSettings = settings;

  const connection = t.db.fork().getConnection();
  const tables = (
    await connection.execute<{ tablename: string }[]>(
      `select tablename from pg_tables where schemaname = current_schema() order by tablename`,
    )
  )
    .map((row) => row.tablename)
    .filter((name) => !name.startsWith('mikro_orm'));
  // Webhook deliveries go on in the background while a call is made (backgroundJobs.drain() waits not for them: they
  // wait on their receivers): their record, their jobs and their hooks' count of failures are theirs, not the call's.
  const rowOf: Record<string, string> = {
    web_hook_logs: `select null::text as row`,
    // And how far the consumers of the record have read it, which moves as they catch up.
    event_cursors: `select null::text as row`,
    jobs: `select 'jobs:' || t::text as row from "jobs" t where t.kind <> 'web_hook_delivery'`,
    web_hooks: `select 'web_hooks:' || (to_jsonb(t) - 'recent_failures' - 'disabled_until')::text as row from "web_hooks" t`,
  };
  fingerprintSql = `select md5(coalesce(string_agg(row, '|' order by row), '')) as digest from (${tables
    .map((name) => rowOf[name] ?? `select '${name}:' || t::text as row from "${name}" t`)
    .join(' union all ')}) rows`;
  await t.hosting.snapshot('fixtures');
});
afterAll(() => t?.close());
// Hostile values that were valid settings stay set: every test starts from the defaults.
afterEach(async () => {
  await t.hosting.applicationSettings.update(defaultSettings as never);
});

/**
 * The digest last taken, with the next transaction ID at the time, when no transaction was running: until that
 * ID moves, no transaction has written (a transaction gets an ID when it first writes), and the digest stands.
 */
let lastDigest: { nextXid: string; digest: string } | undefined;

async function fingerprint(): Promise<string> {
  const connection = t.db.fork().getConnection();
  const [snapshot] = await connection.execute<{ xmin: string; xmax: string }[]>(
    'select pg_snapshot_xmin(pg_current_snapshot())::text as xmin, pg_snapshot_xmax(pg_current_snapshot())::text as xmax',
  );
  if (lastDigest?.nextXid === snapshot.xmax) return lastDigest.digest;
  const [row] = await connection.execute<{ digest: string }[]>(fingerprintSql);
  lastDigest = snapshot.xmin === snapshot.xmax ? { nextXid: snapshot.xmax, digest: row.digest } : undefined;
  return row.digest;
}

const tools = () => exampleTools({ login: normal.username, password: normal.password }, t);

type Encoding = 'json' | 'form' | 'query' | 'multipart' | 'raw';

interface Case {
  /** What is hostile about it, for the failure message. */
  what: string;
  url: string;
  encoding: Encoding;
  input?: Record<string, unknown>;
  /** For raw: the body as sent, with its content type and any other headers. */
  body?: { type: string; text: string; headers?: Record<string, string> };
  /** For multipart: the fields uploaded as files. */
  files?: string[];
  /** Query text appended to the URL (besides `input` for the query encoding). */
  query?: string;
  /** The status the case must get (the example, for an administrator); otherwise a success or a 4xx. */
  status?: number;
}

type Caller = 'admin' | 'normal';

function send(method: string, caller: Caller, c: Case): Test {
  const token = caller === 'admin' ? adminToken : normal.token;
  const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
  const queryParts = [c.query, c.encoding === 'query' && c.input ? formText(c.input) : undefined].filter(Boolean);
  const url = queryParts.length ? `${c.url}?${queryParts.join('&')}` : c.url;
  let request = t.http[verb](url).set('PRIVATE-TOKEN', token);
  if (c.body) {
    for (const [name, value] of Object.entries(c.body.headers ?? {})) request = request.set(name, value);
    return request.set('Content-Type', c.body.type).send(c.body.text);
  }
  if (!c.input || c.encoding === 'query') return request;
  if (c.encoding === 'json') return request.set('Content-Type', 'application/json').send(jsonText(c.input));
  if (c.encoding === 'form') return request.set('Content-Type', 'application/x-www-form-urlencoded').send(formText(c.input));
  for (const [name, value] of Object.entries(c.input)) {
    if (c.files?.includes(name)) request = request.attach(name, Buffer.from(String(value)), 'hostile.txt');
    else request = request.field(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return request;
}

/**
 * The original's answers whose message does not start with the status: a taken username or address (POST /users),
 * a member, a share or a label that exists, a share with the project's own group, a transfer that failed, a second
 * open merge request of a branch, a merge refused, an issue's move refused, a milestone refused.
 */
const UNNUMBERED_MESSAGES = [
  /^(Email|Username) has already been taken$/,
  /^Member already exists$/,
  /^Group already shared with this group$/,
  /^Shared group The group has already been shared with this group$/,
  /^Label already exists$/,
  /^Another open merge request already exists for this source branch: !\d+$/,
  /^Project cannot be shared with the group it is in or one of its ancestors\.$/,
  /^Failed to transfer project \{:new_namespace=>\["[^"]+"\]\}$/,
  // A milestone refused (src/services/work-items/milestones.ts), as the original's render_api_error! words it.
  /^Failed to create milestone \{:title=>\[.+\]\}$/,
  /^Cannot move issue (due to insufficient permissions|to project it originates from)!$/,
  // Accepting a merge request, as SPEC.md "Errors" 7 words its refusals.
  /^(Branch cannot be merged|Method Not Allowed|SHA does not match HEAD of source branch)$/,
  // The repository area's refusals, as src/services/repository/refusals.ts words them.
  ...refusalPatterns(),
];

/** Body shapes 4, 5 and 6 of SPEC.md "Errors" (and the OAuth error shape of /oauth/token). */
function shapeProblem(res: Response): string | undefined {
  if (res.status < 400) return undefined;
  const body = res.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'the body is not a JSON object';
  if (typeof body.error === 'string') return undefined;
  const message = body.message;
  // Messages the original service words without their status, kept as it words them.
  if (typeof message === 'string' && UNNUMBERED_MESSAGES.some((pattern) => pattern.test(message))) return undefined;
  if (typeof message === 'string') return message.startsWith(`${res.status}`) ? undefined : 'the message does not start with the status';
  const isMap = (value: unknown): boolean =>
    !!value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.values(value).every((item) =>
      Array.isArray(item) ? item.length > 0 && item.every((text) => typeof text === 'string') : isMap(item),
    );
  // 409 too: a fork whose name or path is taken in its namespace, as the original answers it.
  if ((res.status === 400 || res.status === 404 || res.status === 409) && isMap(message)) return undefined;
  return 'neither a message text, a validation map nor an error';
}

/** Signing in writes (a private token, an OAuth token) only when it succeeds. */
const changesNothingWhenRefused = (route: AnyRoute) => route.method === 'GET' || route.auth === 'public';

/** The fixtures of the route's calls; a DELETE that succeeded used up what it named, which a reset puts back. */
interface RouteState {
  fixtures: FixtureSet;
}

/** Before a test of the walk: the kept fixtures as they were made, and the ones its example names made and kept. */
async function fromKeptFixtures(route: AnyRoute, caller: Caller): Promise<void> {
  if (written) await t.hosting.reset();
  written = false;
  await exampleCall(route, walkFixtures, caller, tools());
  if (walkFixtures.size === keptFixtures) return;
  // What they left to background jobs (a fork's copy) done first: a snapshot drops queued jobs.
  await t.hosting.backgroundJobs.drain();
  await t.hosting.snapshot('fixtures');
  keptFixtures = walkFixtures.size;
}

/** Sends the cases in order; returns one line per case that broke a rule. */
async function run(route: AnyRoute, caller: Caller, cases: AsyncIterable<Case> | Case[], state?: RouteState): Promise<string[]> {
  const failures: string[] = [];
  const checkWrites = !changesNothingWhenRefused(route);
  for await (const c of cases) {
    // Taken once the case is made, and so after any fixture it made, and once what a successful call left to a
    // background job (a fork's copy) is done.
    if (checkWrites) await t.hosting.backgroundJobs.drain();
    const before = checkWrites ? await fingerprint() : undefined;
    logged.length = 0;
    const where = `${caller} ${route.method} ${c.url.length > 120 ? `${c.url.slice(0, 100)}…` : c.url} [${c.encoding}] ${c.what}`;
    let res: Response;
    try {
      res = await send(route.method, caller, c);
    } catch (error) {
      failures.push(`${where} → no answer: ${(error as Error).message}`);
      continue;
    }
    const answer = `${res.status} ${(res.text ?? '').slice(0, 300)}`;
    if (res.status >= 500) {
      failures.push(`${where} → ${answer}${logged.length ? `\n    logged: ${logged.join('\n    ').slice(0, 1500)}` : ''}`);
      continue;
    }
    if (c.status !== undefined && res.status !== c.status) failures.push(`${where} → ${answer}, not ${c.status}`);
    const problem = shapeProblem(res);
    if (problem) failures.push(`${where} → ${answer}: ${problem}`);
    if (res.status >= 400 && before !== undefined && (await fingerprint()) !== before)
      failures.push(`${where} → ${res.status}, but the data changed`);
    if (state && route.method === 'DELETE' && res.status < 300) await t.hosting.reset();
  }
  return failures;
}

/** A case, made only when it is sent: from the example, as the fixtures stand then. */
type CaseMaker = () => Promise<Case>;

/** Hostile values per input property, path segments per parameter, and odd bodies and queries per route. */
const PER_PROPERTY = 2;
const PER_PARAMETER = 3;
const PER_ROUTE = 5;

/**
 * Every case of one route for one caller, the example first. Which hostile values, segments and bodies a
 * property, parameter or route gets is chosen by the run's seed and `key`, so that over runs every one is sent.
 */
function casesFor(route: AnyRoute, caller: Caller, state: RouteState, key: string): CaseMaker[] {
  const owner: Owner = caller;
  const example = async (): Promise<ExampleCall & { url: string }> => {
    const call = await exampleCall(route, state.fixtures, owner, tools());
    return { ...call, url: urlOf(route, segmentsOf(call.params)) };
  };
  const get = route.method === 'GET';
  const main: Encoding = get ? 'query' : 'json';
  const text: Encoding = get ? 'query' : 'form';
  const properties = Object.entries(propertiesOf(route.input));
  const cases: CaseMaker[] = [];

  cases.push(async () => {
    const valid = await example();
    return {
      what: 'the example',
      url: valid.url,
      encoding: main,
      input: valid.input,
      status: caller === 'admin' ? successStatus(route) : undefined,
    };
  });

  // Each input property with a few hostile values for its type; every other one in its text form where it has one.
  let alternate = 0;
  for (const [property, schema] of properties) {
    for (const hostile of sampled(hostileFor(schema), PER_PROPERTY, `${key} ${property}`)) {
      const asText = hostile.text !== undefined && (alternate += 1) % 2 === 0;
      const value = asText ? hostile.text : hostile.value;
      // A GET's query string carries text only: its JSON values go in a body, which GET routes read too.
      const encoding: Encoding = asText ? text : 'json';
      cases.push(async () => {
        const { url, input } = await example();
        return { what: `${property} = ${hostile.label} ${describeValue(value)}`, url, encoding, input: { ...input, [property]: value } };
      });
    }
  }
  const names = properties.map(([property]) => property);
  if (properties.length && !get) {
    cases.push(async () => {
      const { url, input } = await example();
      return {
        what: 'every property uploaded as a file',
        url,
        encoding: 'multipart',
        input: { ...input, ...Object.fromEntries(names.map((name) => [name, 'file content'])) },
        files: names,
      };
    });
  }

  // Each path parameter with a few hostile segments, the other parameters the example's.
  for (const parameter of Object.keys(propertiesOf(route.params))) {
    for (const segment of sampled(HOSTILE_SEGMENTS, PER_PARAMETER, `${key} :${parameter}`)) {
      cases.push(async () => {
        const { params, input } = await example();
        return {
          what: `:${parameter} = ${describeValue(segment)}`,
          url: urlOf(route, { ...segmentsOf(params), [parameter]: segment }),
          encoding: main,
          input,
        };
      });
    }
  }

  // Bodies that parse but are not an object of parameters, and query strings out of the ordinary.
  const json = (what: string, body: (input: Record<string, unknown>) => string) => ({ what, encoding: 'raw' as const, body });
  const query = (what: string, text: string) => ({ what, encoding: main, query: text });
  const odd = [
    json('a JSON array holding the valid input', (input) => `[${jsonText(input)}]`),
    json('an empty JSON array', () => '[]'),
    json('a JSON string', () => '"text"'),
    json('a JSON number', () => '1e400'),
    json('JSON null', () => 'null'),
    json('an empty JSON body', () => ''),
    json('a __proto__ member', (input) => withMember(input, '"__proto__":{"admin":true,"is_admin":true,"id":1}')),
    json('a constructor.prototype member', (input) => withMember(input, '"constructor":{"prototype":{"admin":true}}')),
    json('every property twice', (input) =>
      withMember(input, names.map((property) => `"${property}":{"a":1},"${property}":"b"`).join(',') || '"x":1'),
    ),
    query('every property twice in the query', names.map((property) => `${property}=a&${property}=b`).join('&')),
    query('every property as an array past the array limit', names.map((property) => `${property}[1001]=1`).join('&')),
    query('every property nested past the depth limit', names.map((property) => `${property}${'[a]'.repeat(8)}=1`).join('&')),
    query('malformed percent-encoding in the query', `${names[0] ?? 'a'}=%E0%A4%A&b=%`),
    query('a __proto__ query key', '__proto__[admin]=true&constructor[prototype][admin]=true'),
    query('credentials as arrays and objects in the query', 'private_token[]=a&sudo[a]=b&access_token[0][x]=1'),
  ];
  for (const c of sampled(odd, PER_ROUTE, `${key} odd`)) {
    cases.push(async () => {
      const { url, input } = await example();
      if ('body' in c) return { what: c.what, url, encoding: 'raw', body: { type: 'application/json', text: c.body(input) } };
      return { what: c.what, url, encoding: c.encoding, input, query: c.query };
    });
  }
  return cases;
}

async function* made(cases: CaseMaker[]): AsyncGenerator<Case> {
  for (const make of cases) yield await make();
}

// ---- the tests ----

const ROUTES = allRoutes();
const keyOf = ({ group, name }: NamedRoute) => `${group}.${name}`;
const WALKED: [NamedRoute, Caller][] = [
  ...ROUTES.map((named): [NamedRoute, Caller] => [named, 'admin']),
  ...ROUTES.filter(({ route }) => route.auth === 'user').map((named): [NamedRoute, Caller] => [named, 'normal']),
];

/**
 * Hostile cases per run, spread over the walk: each route's example is sent as each caller every run, and a few of its
 * hostile cases, chosen by the run's seed, so that the walk costs the same however many routes there are.
 */
const HOSTILE_PER_RUN = 500;
const HOSTILE_PER_WALK = Math.max(1, Math.round(HOSTILE_PER_RUN / WALKED.length));

describe('every route answers its example made hostile with a success or a 4xx, never a 500', () => {
  for (const [named, caller] of WALKED) {
    const { route } = named;
    it(`${keyOf(named)}: ${route.method} ${route.path}, as ${caller === 'admin' ? 'an administrator' : 'a normal user'}`, async () => {
      await fromKeptFixtures(route, caller);
      // Reads change nothing; a test that writes leaves the next one to reset.
      written = route.method !== 'GET';
      const state = { fixtures: walkFixtures };
      const key = `${keyOf(named)} ${caller}`;
      const [example, ...hostile] = casesFor(route, caller, state, key);
      const failures = await run(route, caller, made([example, ...sampled(hostile, HOSTILE_PER_WALK, key)]), state);
      expect(failures, `${failures.join('\n')}\n(cases chosen by FORGEKIT_TEST_SEED=${SEED})`).toEqual([]);
    });
  }
});

// ---- bodies that fail to parse, sent once per method (parsing comes before the route is chosen) ----

function malformedBodies(): Case[] {
  const raw = (what: string, type: string, text: string, headers?: Record<string, string>): Case => ({
    what,
    url: '',
    encoding: 'raw',
    body: { type, text, headers },
  });
  const valid = '{"title":"t","email":"e@example.com"}';
  return [
    raw('malformed JSON', 'application/json', '{"title": '),
    raw('JSON with trailing garbage', 'application/json', '{"a":1}}'),
    raw('JSON with mismatched brackets', 'application/json', '{"a":[1}'),
    raw('JSON with a NUL escape in a key', 'application/json', '{"a\\u0000":1}'),
    raw('an array nested 5000 deep', 'application/json', `${'['.repeat(5000)}${']'.repeat(5000)}`),
    raw('an object nested 500 deep', 'application/json', `${'{"a":'.repeat(500)}1${'}'.repeat(500)}`),
    raw('JSON declared with charset utf-16', 'application/json; charset=utf-16', valid),
    raw('a gzip body that is not gzip', 'application/json', valid, { 'Content-Encoding': 'gzip' }),
    raw('a plain-text body', 'text/plain', 'hello'),
    raw('an XML body', 'application/xml', '<a>1</a>'),
    raw('a content type with no subtype', 'application', valid),
    raw('a form body with malformed percent-encoding', 'application/x-www-form-urlencoded', 'a=%E0%A4%A&b=%'),
    raw(
      'a form body with 1001 parameters',
      'application/x-www-form-urlencoded',
      Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&'),
    ),
    raw('a form body nested 40 deep', 'application/x-www-form-urlencoded', `a${'[a]'.repeat(40)}=1`),
    raw('a form body with a __proto__ key', 'application/x-www-form-urlencoded', '__proto__[admin]=true&a[__proto__][b]=1'),
    raw('a JSON body past the size limit', 'application/json', `{"title":"${'x'.repeat(21 * 1024 * 1024)}"}`),
  ];
}

describe('bodies that fail to parse answer 4xx, on a route of each method', () => {
  // The first route of the table with each method, and the first served beside /api/v4.
  const methods = [...new Set(ROUTES.map(({ route }) => route.method))];
  const chosen = [
    ...methods.map((method) => ROUTES.find(({ route }) => route.method === method)),
    ROUTES.find(({ route }) => route.root),
  ] as NamedRoute[];
  for (const named of chosen) {
    const { route } = named;
    it(`${keyOf(named)}: ${route.method} ${route.path}`, async () => {
      // Some of these bodies are no body to a route that reads none: a DELETE may succeed, on fixtures of its own.
      const { params } = await exampleCall(route, new FixtureSet(t, normal), 'admin', tools());
      const url = urlOf(route, segmentsOf(params));
      const failures = await run(
        route,
        'admin',
        malformedBodies().map((c) => ({ ...c, url })),
      );
      expect(failures, failures.join('\n')).toEqual([]);
    });
  }
});

// ---- what is not a route of the table: credentials and uploaded avatars ----

type CredentialCase = [what: string, headers: Record<string, string>, query: string];

async function credentialFailures(cases: CredentialCase[]): Promise<string[]> {
  const failures: string[] = [];
  for (const [what, headers, query] of cases) {
    for (const [method, path] of [
      ['GET', '/api/v4/user'],
      ['POST', '/api/v4/user/keys'],
    ] as const) {
      logged.length = 0;
      let request = t.http[method === 'GET' ? 'get' : 'post'](`${path}${query ? `?${query}` : ''}`);
      // A header carries the credential, or else root's token does.
      if (!headers.Authorization) request = request.set('PRIVATE-TOKEN', ROOT_TOKEN);
      for (const [name, value] of Object.entries(headers)) request = request.set(name, Buffer.from(value, 'utf8').toString('latin1'));
      const res = await request.send(method === 'POST' ? { title: 't', key: newSshKey() } : undefined);
      const problem = res.status >= 500 ? 'a 500' : shapeProblem(res);
      if (problem)
        failures.push(
          `${method} ${path} ${what} → ${res.status} ${res.text.slice(0, 200)}: ${problem}\n    ${logged.join('\n    ').slice(0, 800)}`,
        );
    }
  }
  return failures;
}

describe('credentials and avatar URLs answer 4xx to hostile values', () => {
  it('sudo, tokens and authorization headers', async () => {
    const failures = await credentialFailures([
      ['sudo header beyond int32', { SUDO: '99999999999' }, ''],
      ['sudo header negative', { SUDO: '-1' }, ''],
      ['sudo header long', { SUDO: LONG_FOR_URL }, ''],
      ['sudo header unicode', { SUDO: 'İ😀' }, ''],
      ['sudo query with malformed percent-encoding', {}, 'sudo=%E0%A4%A'],
      ['sudo query as an array', {}, 'sudo[]=1&sudo[]=2'],
      ['sudo query as an object', {}, 'sudo[a]=1'],
      ['a private token with a NUL character', {}, 'private_token=a%00b'],
      ['a private token as an object', {}, 'private_token[a]=b'],
      ['a long bearer token', { Authorization: `Bearer ${LONG_FOR_URL}` }, ''],
      ['a bearer token with unicode', { Authorization: 'Bearer İ😀' }, ''],
      ['an empty bearer token', { Authorization: 'Bearer ' }, ''],
    ]);
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it('avatar URLs', async () => {
    const failures: string[] = [];
    for (const id of [
      String(await shared.value('user', 'admin')),
      '99999999999',
      '-1',
      'abc',
      'Infinity',
      '9'.repeat(400),
      '1.5',
      'a%00b',
      '%E0%A4%A',
    ]) {
      for (const filename of ['avatar.png', 'a%00b.png', '%E0%A4%A', LONG_FOR_URL, '..%2F..%2Fetc%2Fpasswd']) {
        logged.length = 0;
        const res = await t.http.get(`/uploads/-/system/user/avatar/${id}/${filename}`);
        if (res.status >= 500)
          failures.push(
            `avatar ${id.slice(0, 20)}/${filename.slice(0, 20)} → ${res.status} ${res.text.slice(0, 200)}\n    ` +
              `${logged.join('\n    ').slice(0, 800)}`,
          );
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });
});

// ---- bodies and credentials that no parser or query can take: 4xx, never 500 ----

describe('unreadable bodies and impossible credentials', () => {
  const knownBodies: Case[] = [
    { what: 'JSON declared with charset latin1', url: '', encoding: 'raw', body: { type: 'application/json; charset=latin1', text: '{}' } },
    {
      what: 'a body in an unknown content encoding',
      url: '',
      encoding: 'raw',
      body: { type: 'application/json', text: '{}', headers: { 'Content-Encoding': 'br2' } },
    },
    { what: 'multipart without a boundary', url: '', encoding: 'raw', body: { type: 'multipart/form-data', text: 'garbage' } },
    {
      what: 'a truncated multipart body',
      url: '',
      encoding: 'raw',
      body: { type: 'multipart/form-data; boundary=xyz', text: '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nabc' },
    },
    {
      what: 'multipart that is not multipart',
      url: '',
      encoding: 'raw',
      body: { type: 'multipart/form-data; boundary=xyz', text: 'no parts here' },
    },
    {
      what: 'an object nested 5000 deep',
      url: '',
      encoding: 'raw',
      body: { type: 'application/json', text: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}` },
    },
  ];
  const create = ROUTES.find(({ route }) => route.method === 'POST' && route.path === '/users')!.route;
  for (const c of knownBodies) {
    it(`router/invoke: ${c.what}`, async () => {
      expect(await run(create, 'admin', [{ ...c, url: '/api/v4/users' }])).toEqual([]);
    });
  }
  const knownCredentials: CredentialCase[] = [
    ['sudo header of 400 digits', { SUDO: '9'.repeat(400) }, ''],
    ['sudo query with a NUL character', {}, 'sudo=a%00b'],
  ];
  for (const c of knownCredentials) {
    it(`caller: ${c[0]}`, async () => {
      expect(await credentialFailures([c])).toEqual([]);
    });
  }
});

// ---- the 500s this suite found, each answered now in the shape SPEC.md "Errors" gives ----

describe('the 500s found by this suite', () => {
  let subjectId: number;
  beforeAll(async () => {
    subjectId = Number(await shared.value('user', 'admin'));
  });
  const root = (verb: 'get' | 'post' | 'put', url: string) => t.http[verb](url).set('PRIVATE-TOKEN', ROOT_TOKEN);
  const json = (verb: 'get' | 'post' | 'put', url: string, text: string) =>
    root(verb, url).set('Content-Type', 'application/json').send(text);

  it('a number past the range of a double (Infinity after coercion) is an invalid parameter', async () => {
    for (const id of ['9'.repeat(400), 'Infinity']) {
      const res = await root('get', `/api/v4/users/${id}`);
      expect([res.status, res.body]).toEqual([400, { message: { id: ['is invalid'] } }]);
    }
    const query = await root('get', '/api/v4/personal_access_tokens?user_id=1e400');
    expect([query.status, query.body]).toEqual([400, { message: { user_id: ['is invalid'] } }]);
    const body = await json('get', '/api/v4/personal_access_tokens', '{"user_id": 1e400}');
    expect([body.status, body.body]).toEqual([400, { message: { user_id: ['is invalid'] } }]);
    const before = await fingerprint();
    const setting = await json('put', '/api/v4/application/settings', '{"polling_interval_multiplier": 1e400}');
    expect([setting.status, setting.body]).toEqual([400, { message: { polling_interval_multiplier: ['is invalid'] } }]);
    expect(await fingerprint()).toBe(before);
  });

  it('a nested list is not a list of strings, though coercion inside anyOf lets it through', async () => {
    const before = await fingerprint();
    const res = await json('put', '/api/v4/application/settings', '{"domain_whitelist": [[["a"]]]}');
    expect([res.status, res.body]).toEqual([400, { message: { 'domain_whitelist[0]': ['is invalid'] } }]);
    expect(await fingerprint()).toBe(before);
    const nested = await json('put', '/api/v4/application/settings', '{"domain_whitelist": [["example.com"]]}');
    expect([nested.status, nested.body]).toEqual([400, { message: { 'domain_whitelist[0]': ['is invalid'] } }]);
    expect(await fingerprint()).toBe(before);
    // What coercion is for still works: a single value, or a comma-separated text, for a list.
    const single = await root('put', '/api/v4/application/settings').type('form').send('domain_whitelist=example.com');
    expect([single.status, single.body.domain_whitelist]).toEqual([200, ['example.com']]);
    const text = await json('put', '/api/v4/application/settings', '{"domain_whitelist": "a.example.com,b.example.com"}');
    expect([text.status, text.body.domain_whitelist]).toEqual([200, ['a.example.com', 'b.example.com']]);
  });

  it('a NUL character in a key, or a lone surrogate, is an invalid parameter', async () => {
    const key = await root('get', '/api/v4/users?custom_attributes[a%00b]=c');
    expect([key.status, key.body]).toEqual([400, { message: { custom_attributes: ['is invalid'] } }]);
    const before = await fingerprint();
    const surrogate = await json('put', '/api/v4/application/settings', '{"after_sign_out_path": "a\\ud800b"}');
    expect([surrogate.status, surrogate.body]).toEqual([400, { message: { after_sign_out_path: ['is invalid'] } }]);
    const low = await json(
      'post',
      '/api/v4/users',
      '{"email": "s@example.com", "username": "surrogate", "name": "a\\udc00", "password": "long-enough-password"}',
    );
    expect([low.status, low.body]).toEqual([400, { message: { name: ['is invalid'] } }]);
    expect(await fingerprint()).toBe(before);
    // A surrogate pair (an emoji) is well-formed text.
    const emoji = await json('put', `/api/v4/users/${subjectId}`, '{"bio": "\\ud83d\\ude00"}');
    expect([emoji.status, emoji.body.bio]).toEqual([200, '😀']);
  });

  it('an e-mail address is measured as it is stored, lower-cased', async () => {
    // 'İ' lower-cases to two characters: 214 characters as sent, 414 as stored.
    const email = `${'İ'.repeat(200)}@example.com`;
    const before = await fingerprint();
    const created = await root('post', '/api/v4/users').send({
      email,
      username: 'dotted',
      name: 'Dotted',
      password: 'long-enough-password',
    });
    expect([created.status, created.body]).toEqual([400, { message: { email: ['is too long (maximum is 255 characters)'] } }]);
    const updated = await root('put', `/api/v4/users/${subjectId}`).send({ email });
    expect([updated.status, updated.body]).toEqual([400, { message: { email: ['is too long (maximum is 255 characters)'] } }]);
    const secondary = await root('post', `/api/v4/users/${subjectId}/emails`).send({ email });
    expect([secondary.status, secondary.body]).toEqual([400, { message: { email: ['is too long (maximum is 255 characters)'] } }]);
    expect(await fingerprint()).toBe(before);
    const fits = await root('post', '/api/v4/users').send({
      email: `${'İ'.repeat(100)}@example.com`,
      username: 'dotted',
      name: 'Dotted',
      password: 'long-enough-password',
    });
    expect([fits.status, fits.body.email]).toEqual([201, `${'i̇'.repeat(100)}@example.com`]);
  });

  it('a whole-number setting past int32 is refused, so it cannot break every later user creation', async () => {
    const before = await fingerprint();
    const res = await root('put', '/api/v4/application/settings').send({ default_projects_limit: 99999999999 });
    expect([res.status, res.body]).toEqual([400, { message: { default_projects_limit: ['must be less than or equal to 2147483647'] } }]);
    const other = await root('put', '/api/v4/application/settings').send({ terminal_max_session_time: 2147483648 });
    expect([other.status, other.body]).toEqual([
      400,
      { message: { terminal_max_session_time: ['must be less than or equal to 2147483647'] } },
    ]);
    expect(await fingerprint()).toBe(before);
    const largest = await root('put', '/api/v4/application/settings').send({ default_projects_limit: 2147483647 });
    expect(largest.status).toBe(200);
    const user = await root('post', '/api/v4/users').send({
      email: 'limit@example.com',
      username: 'limit',
      name: 'Limit',
      password: 'long-enough-password',
    });
    expect([user.status, user.body.projects_limit]).toEqual([201, 2147483647]);
  });

  it('an avatar URL whose ID is no whole number answers 400 naming the ID', async () => {
    for (const id of ['abc', 'Infinity', '9'.repeat(400), 'a%00b']) {
      const res = await t.http.get(`/uploads/-/system/user/avatar/${id}/avatar.png`);
      expect([res.status, res.body]).toEqual([400, { message: { id: ['is invalid'] } }]);
    }
  });
});

describe('after all of it', () => {
  it('no __proto__ or constructor.prototype key reached the prototype of every object', () => {
    const probe = {} as Record<string, unknown>;
    expect([probe.admin, probe.is_admin, probe.id, probe.b]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
