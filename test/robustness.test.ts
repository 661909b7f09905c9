/**
 * Hostile input against every route of the table: whatever a client sends, the answer is a success or a
 * 4xx in the shape SPEC.md "Errors" gives, never a 500, and a write that fails changes nothing.
 *
 * The cases come from each route's schemas: every input property given the hostile values that are wrong
 * (or merely unusual) for its type, as JSON, as form fields, in the query string and as an uploaded file;
 * every path parameter given hostile segments; bodies that are arrays, scalars or carry `__proto__`; query
 * strings with repeated, nested and malformed keys. Path parameters name real entities (a real user with
 * keys, e-mails, tokens and a custom attribute), so that the calls get past their 404s into the services.
 * Malformed bodies are parsed before any route is chosen, so they are sent once per method, not per route.
 */
import { generateKeyPairSync } from 'node:crypto';
import * as openpgp from 'openpgp';
import qs from 'qs';
import sshpk from 'sshpk';
import type { Response, Test } from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/api/index.js';
import type { AnyRoute, NamedRoute } from '../src/api/route.js';
import { createUser, ROOT_PASSWORD, ROOT_TOKEN, startHosting, type TestHosting } from './helpers.js';

type TestUser = Awaited<ReturnType<typeof createUser>>;

let t: TestHosting;
/** What the service logged as unexpected failures: the stack behind a 500, shown in the failure message. */
const logged: string[] = [];
/** The user every `:id` / `:user_id` route is called for; it owns one of everything. */
let subject: TestUser;
/** A normal (non-administrator) caller with things of its own. */
let normal: TestUser;
const ids = {
  rootSshKey: 0,
  rootGpgKey: 0,
  rootEmail: 0,
  subjectSshKey: 0,
  subjectGpgKey: 0,
  subjectEmail: 0,
  subjectPersonalToken: 0,
  subjectImpersonationToken: 0,
  normalSshKey: 0,
  normalGpgKey: 0,
  normalEmail: 0,
  normalPersonalToken: 0,
};
/** A digest of every table's rows: a write that failed must leave it as it was. */
let fingerprintSql = '';
let defaultSettings: Record<string, unknown>;

const sshKey = () => sshpk.parseKey(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string, 'pem').toString('ssh');
const gpgKey = async () => (await openpgp.generateKey({ userIDs: [{ name: 'R', email: 'r@example.com' }], format: 'armored' })).publicKey;

beforeAll(async () => {
  t = await startHosting({
    logger: { info() {}, warn() {}, error: (...args: unknown[]) => logged.push(args.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(' ')) },
  });
  subject = await createUser(t.hosting);
  normal = await createUser(t.hosting);
  const asNormal = t.hosting.as({ token: normal.token });
  ids.rootSshKey = (await t.hosting.sshKeys.create({ title: 'root', key: sshKey() })).id;
  ids.rootGpgKey = (await t.hosting.gpgKeys.create({ key: await gpgKey() })).id;
  ids.rootEmail = (await t.hosting.emails.create({ email: 'root-secondary@example.com' })).id;
  ids.subjectSshKey = (await t.hosting.sshKeys.createForUser(subject.id, { title: 'subject', key: sshKey() })).id;
  ids.subjectGpgKey = (await t.hosting.gpgKeys.createForUser(subject.id, { key: await gpgKey() })).id;
  ids.subjectEmail = (await t.hosting.emails.createForUser(subject.id, { email: 'subject-secondary@example.com' })).id;
  await t.hosting.customAttributes.set(subject.id, 'colour', { value: 'blue' });
  ids.subjectPersonalToken = (await t.hosting.personalAccessTokens.create(subject.id, { name: 'spare', scopes: ['api'] })).id;
  ids.subjectImpersonationToken = (await t.hosting.impersonationTokens.create(subject.id, { name: 'spare', scopes: ['api'] })).id;
  ids.normalSshKey = (await asNormal.sshKeys.create({ title: 'normal', key: sshKey() })).id;
  ids.normalGpgKey = (await asNormal.gpgKeys.create({ key: await gpgKey() })).id;
  ids.normalEmail = (await asNormal.emails.create({ email: 'normal-secondary@example.com' })).id;
  ids.normalPersonalToken = (await t.hosting.personalAccessTokens.create(normal.id, { name: 'spare', scopes: ['api'] })).id;
  const { id: _id, created_at: _created, updated_at: _updated, ...settings } = await t.hosting.applicationSettings.get();
  defaultSettings = settings;

  const connection = t.db.fork().getConnection();
  const tables = (await connection.execute<{ tablename: string }[]>(`select tablename from pg_tables where schemaname = current_schema() order by tablename`))
    .map((row) => row.tablename)
    .filter((name) => !name.startsWith('mikro_orm'));
  fingerprintSql = `select md5(coalesce(string_agg(row, '|' order by row), '')) as digest from (${tables
    .map((name) => `select '${name}:' || t::text as row from "${name}" t`)
    .join(' union all ')}) rows`;
}, 60_000);
afterAll(() => t?.close());

async function fingerprint(): Promise<string> {
  const [row] = await t.db.fork().getConnection().execute<{ digest: string }[]>(fingerprintSql);
  return row.digest;
}

// ---- hostile values ----

/** What a property's schema takes; each hostile value is tried where it is wrong or unusual. */
type Kind = 'integer' | 'number' | 'boolean' | 'string' | 'array' | 'record' | 'file';
const ALL: Kind[] = ['integer', 'number', 'boolean', 'string', 'array', 'record', 'file'];

interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
}

function kindsOf(schema: JsonSchema): Kind[] {
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(kindsOf))];
  if (schema.const !== undefined) return [typeof schema.const === 'number' ? 'integer' : 'string'];
  switch (schema.type) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'string':
    case 'array':
      return [schema.type];
    case 'object':
      return [schema.format === 'binary' ? 'file' : 'record'];
    case 'null':
      return [];
    default:
      return ALL;
  }
}

/** JSON text inserted as is: numbers that JSON can write but JavaScript cannot hold. */
class Raw {
  constructor(readonly text: string) {}
}

interface Hostile {
  label: string;
  value: unknown;
  /** The kinds of property it is sent to. */
  to: Kind[];
  /** Its text form for form fields and query strings, when that says something the JSON value does not. */
  text?: string | Record<string, unknown> | unknown[];
}

const LONG = 'x'.repeat(100_000);
/**
 * Past every length limit, short enough for a request line (Node refuses lines past 16 KB) and for the
 * answer's `Link` header, which repeats the query string in four URLs.
 */
const LONG_FOR_URL = 'x'.repeat(2000);

const HOSTILE: Hostile[] = [
  { label: 'a word', value: 'not-a-number', to: ['integer', 'number', 'boolean', 'array', 'record', 'file'], text: 'not-a-number' },
  { label: 'an object', value: { a: 'b' }, to: ['integer', 'number', 'boolean', 'string', 'array', 'file'], text: { a: 'b' } },
  { label: 'an array of objects', value: [{ a: 'b' }, { c: 'd' }], to: ALL, text: [{ a: 'b' }, { c: 'd' }] },
  { label: 'a 100000-character string', value: LONG, to: ALL, text: LONG_FOR_URL },
  { label: 'a number beyond int32', value: 99999999999, to: ['integer', 'number', 'boolean', 'string'], text: '99999999999' },
  { label: 'a negative number', value: -1, to: ['integer', 'number', 'boolean'], text: '-1' },
  { label: 'a fraction', value: 1.5, to: ['integer', 'boolean'] },
  { label: 'a number past 2^53', value: new Raw('123456789012345678901234567890'), to: ['integer', 'number'] },
  { label: 'a number too big for a double', value: new Raw('1e400'), to: ['integer', 'number', 'string'], text: '1e400' },
  { label: 'null', value: null, to: ALL },
  { label: 'true', value: true, to: ['integer', 'number', 'string', 'array'] },
  { label: 'an empty string', value: '', to: ALL, text: '' },
  { label: 'a NUL character', value: 'a\u0000b', to: ['string', 'array', 'record', 'integer'], text: 'a\u0000b' },
  { label: 'unicode and emoji', value: 'Zoë 名前 😀 \u202e', to: ['string', 'array'], text: 'Zoë 名前 😀 \u202e' },
  { label: 'a lone surrogate', value: 'a\ud800b', to: ['string'] },
  { label: '% _ and a backslash', value: '%_\\', to: ['string'] },
  { label: 'an e-mail address that grows when lower-cased', value: `${'İ'.repeat(200)}@example.com`, to: ['string'] },
  { label: 'an array of strings', value: ['a', 'b'], to: ['string', 'integer', 'boolean'] },
  { label: 'a nested array', value: [[['a']]], to: ['string', 'array'] },
  { label: 'an array with a NUL character', value: ['a\u0000b'], to: ['array'] },
  { label: 'an object with a NUL character in a key', value: { 'a\u0000b': 'c' }, to: ['record'], text: { 'a\u0000b': 'c' } },
  { label: 'an object with a 100000-character key', value: { [LONG]: 'c' }, to: ['record'] },
  { label: 'a nested object', value: { a: { b: { c: 'd' } } }, to: ['record', 'file'], text: { a: { b: { c: 'd' } } } },
];

const ALIAS_VALUES = ['an object', 'a 100000-character string', 'null', 'a nested array'];

/** Path segments as sent, percent-encoded where they say so. */
const HOSTILE_SEGMENTS: string[] = [
  '99999999999',
  '-1',
  '0',
  '1.5',
  'Infinity',
  '9'.repeat(400),
  'abc',
  '%2F',
  '..%2F..%2Fuser',
  'a%00b',
  '%E0%A4%A',
  '%F0%9F%98%80',
  '%C4%B0',
  LONG_FOR_URL,
];

function describeValue(value: unknown): string {
  if (value instanceof Raw) return value.text;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 40)}…(${text.length} chars)` : text;
}

/** JSON text for an input, with Raw values written as they are. */
function jsonText(input: Record<string, unknown>): string {
  const raws: string[] = [];
  const text = JSON.stringify(input, (_key, value: unknown) => {
    if (!(value instanceof Raw)) return value;
    raws.push(value.text);
    return `__RAW_${raws.length - 1}__`;
  });
  return text.replace(/"__RAW_(\d+)__"/g, (_match, index: string) => raws[Number(index)]);
}

/** JSON text for an input with one more member written as is. */
function withMember(input: Record<string, unknown>, member: string): string {
  const text = jsonText(input);
  return text === '{}' ? `{${member}}` : `${text.slice(0, -1)},${member}}`;
}

/** Form or query text (nested objects and arrays as `a[b]=c`, `a[0][b]=c`). */
const formText = (input: Record<string, unknown>): string =>
  qs.stringify(Object.fromEntries(Object.entries(input).map(([name, value]) => [name, value instanceof Raw ? value.text : value])));

// ---- how each route is called ----

type Caller = 'root' | 'normal';

let counter = 0;
const unique = () => `${process.pid}r${(counter += 1)}`;

let freshGpgKey: string | undefined;

/** A valid input for each route, so that the hostile part is the only thing wrong with a call. */
async function baseInput(key: string): Promise<Record<string, unknown>> {
  switch (key) {
    case 'users.create': {
      const id = unique();
      return { email: `new${id}@example.com`, username: `new${id}`, name: 'New User', password: 'long-enough-password', skip_confirmation: true };
    }
    case 'sshKeys.create':
    case 'sshKeys.createForUser':
      return { title: 'a key', key: sshKey() };
    case 'gpgKeys.create':
    case 'gpgKeys.createForUser':
      freshGpgKey ??= await gpgKey();
      return { key: freshGpgKey };
    case 'emails.create':
    case 'emails.createForUser':
      return { email: `extra${unique()}@example.com` };
    case 'customAttributes.set':
      return { value: 'green' };
    case 'personalAccessTokens.create':
    case 'impersonationTokens.create':
      return { name: 'a token', scopes: ['api'] };
    case 'session.create':
      return { login: 'root', password: ROOT_PASSWORD };
    case 'oauth.token':
      return { grant_type: 'password', username: 'root', password: ROOT_PASSWORD };
    default:
      return {};
  }
}

/** After a call of the route succeeded: what it used up is made anew. */
function afterSuccess(key: string): void {
  if (key === 'gpgKeys.create' || key === 'gpgKeys.createForUser') freshGpgKey = undefined;
}

/** Real values for a route's path parameters, as the caller sees them. */
async function realParams(key: string, route: AnyRoute, caller: Caller): Promise<Record<string, string>> {
  const own = caller === 'root' ? { ssh: ids.rootSshKey, gpg: ids.rootGpgKey, email: ids.rootEmail } : { ssh: ids.normalSshKey, gpg: ids.normalGpgKey, email: ids.normalEmail };
  const params: Record<string, string> = {};
  for (const parameter of route.path.match(/:([A-Za-z_]+)/g)?.map((match) => match.slice(1)) ?? []) {
    let value: number | string;
    if (parameter === 'id' || parameter === 'user_id') {
      // Deleting the subject would leave nothing for the routes after it: delete a user made for the call.
      if (key === 'users.delete') {
        value = (await createUser(t.hosting)).id;
        lastDigest = undefined;
      } else value = subject.id;
    } else if (parameter === 'key') value = 'colour';
    else if (parameter === 'filename') value = 'avatar.png';
    else if (parameter === 'key_id') {
      if (route.path.startsWith('/user/keys')) value = own.ssh;
      else if (route.path.startsWith('/user/gpg_keys')) value = own.gpg;
      else if (route.path.includes('/gpg_keys')) value = ids.subjectGpgKey;
      else value = ids.subjectSshKey;
    } else if (parameter === 'email_id') value = route.path.startsWith('/user/') ? own.email : ids.subjectEmail;
    else if (parameter === 'token_id') {
      if (route.path.includes('impersonation')) value = ids.subjectImpersonationToken;
      else if (route.path.startsWith('/users/')) value = ids.subjectPersonalToken;
      else value = caller === 'root' ? ids.subjectPersonalToken : ids.normalPersonalToken;
    } else throw new Error(`no real value for :${parameter} of ${key}`);
    params[parameter] = encodeURIComponent(String(value));
  }
  return params;
}

const urlOf = (route: AnyRoute, params: Record<string, string>) =>
  (route.root ? '' : '/api/v4') + route.path.replace(/:([A-Za-z_]+)/g, (_match, parameter: string) => params[parameter]);

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
}

function send(method: string, caller: Caller, c: Case): Test {
  const token = caller === 'root' ? ROOT_TOKEN : normal.token;
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

/** Body shapes 4, 5 and 6 of SPEC.md "Errors" (and the OAuth error shape of /oauth/token). */
function shapeProblem(res: Response): string | undefined {
  if (res.status < 400) return undefined;
  const body = res.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'the body is not a JSON object';
  if (typeof body.error === 'string') return undefined;
  const message = body.message;
  // POST /users answers a taken username or address as the original service does: `Email has already been taken`.
  if (res.status === 409 && typeof message === 'string' && /^(Email|Username) has already been taken$/.test(message)) return undefined;
  if (typeof message === 'string') return message.startsWith(`${res.status}`) ? undefined : 'the message does not start with the status';
  const isMap = (value: unknown): boolean =>
    !!value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.values(value).every((item) => (Array.isArray(item) ? item.length > 0 && item.every((text) => typeof text === 'string') : isMap(item)));
  if ((res.status === 400 || res.status === 404) && isMap(message)) return undefined;
  return 'neither a message text, a validation map nor an error';
}

/** The digest after the last failed call, while nothing else has written since; saves computing it twice. */
let lastDigest: string | undefined;

const READS_ONLY = new Set(['GET', 'session.create', 'oauth.token']);

/** Sends the cases in order; returns one line per case that broke a rule. */
async function run(label: string, method: string, caller: Caller, cases: AsyncIterable<Case> | Case[], onSuccess?: () => void): Promise<string[]> {
  const failures: string[] = [];
  // Signing in writes (a private token, an OAuth token) only when it succeeds.
  const checkWrites = !READS_ONLY.has(method) && !READS_ONLY.has(label);
  lastDigest = undefined;
  for await (const c of cases) {
    const before = checkWrites ? (lastDigest ??= await fingerprint()) : undefined;
    lastDigest = undefined;
    logged.length = 0;
    const where = `${caller} ${method} ${c.url.length > 120 ? `${c.url.slice(0, 100)}…` : c.url} [${c.encoding}] ${c.what}`;
    let res: Response;
    try {
      res = await send(method, caller, c);
    } catch (error) {
      failures.push(`${where} → no answer: ${(error as Error).message}`);
      continue;
    }
    const answer = `${res.status} ${(res.text ?? '').slice(0, 300)}`;
    if (res.status >= 500) {
      failures.push(`${where} → ${answer}${logged.length ? `\n    logged: ${logged.join('\n    ').slice(0, 1500)}` : ''}`);
      continue;
    }
    const problem = shapeProblem(res);
    if (problem) failures.push(`${where} → ${answer}: ${problem}`);
    if (res.status >= 400 && before !== undefined) {
      lastDigest = await fingerprint();
      if (lastDigest !== before) failures.push(`${where} → ${res.status}, but the data changed`);
    }
    if (res.status < 300) onSuccess?.();
  }
  return failures;
}

const propertiesOf = (schema: unknown): Record<string, JsonSchema> => (schema as JsonSchema | undefined)?.properties ?? {};

/** Every case of one route for one caller. */
async function* casesFor(named: NamedRoute, caller: Caller): AsyncGenerator<Case> {
  const { group, name, route } = named;
  const key = `${group}.${name}`;
  const realUrl = async () => urlOf(route, await realParams(key, route, caller));
  const base = () => baseInput(key);
  const get = route.method === 'GET';
  const main: Encoding = get ? 'query' : 'json';

  yield { what: 'a valid call', url: await realUrl(), encoding: main, input: await base() };

  // Each input property with each hostile value for its kind; text forms alternate between the text encodings.
  const seen = new Set<JsonSchema>();
  let alternate = 0;
  for (const [property, schema] of Object.entries(propertiesOf(route.input))) {
    const kinds = kindsOf(schema);
    const alias = seen.has(schema);
    seen.add(schema);
    // A second spelling of a setting (an alias) shares its schema and its checks: a few values suffice.
    const values = HOSTILE.filter((candidate) => candidate.to.some((kind) => kinds.includes(kind)) && (!alias || ALIAS_VALUES.includes(candidate.label)));
    for (const hostile of values) {
      const what = (value: unknown) => `${property} = ${hostile.label} ${describeValue(value)}`;
      if (get) {
        // A query string carries text only; the JSON value goes in a body (which GET routes read too).
        if (hostile.text !== undefined) yield { what: what(hostile.text), url: await realUrl(), encoding: 'query', input: { [property]: hostile.text } };
        if (hostile.text === undefined || (caller === 'root' && !alias)) yield { what: what(hostile.value), url: await realUrl(), encoding: 'json', input: { [property]: hostile.value } };
        continue;
      }
      yield { what: what(hostile.value), url: await realUrl(), encoding: 'json', input: { ...(await base()), [property]: hostile.value } };
      if (hostile.text === undefined || alias || caller === 'normal') continue;
      const encoding: Encoding = (alternate += 1) % 2 ? 'form' : 'query';
      yield { what: what(hostile.text), url: await realUrl(), encoding, input: { ...(await base()), [property]: hostile.text } };
    }
    if (alias || caller === 'normal') continue;
    if (!get) yield { what: `${property} uploaded as a file`, url: await realUrl(), encoding: 'multipart', input: { ...(await base()), [property]: 'file content' }, files: [property] };
    yield { what: `${property} given twice in the query`, url: await realUrl(), encoding: main, input: await base(), query: `${property}=1&${property}=b` };
  }

  // Each path parameter with each hostile segment, the other parameters real.
  for (const parameter of Object.keys(propertiesOf(route.params))) {
    for (const segment of HOSTILE_SEGMENTS) {
      const params = { ...(await realParams(key, route, caller)), [parameter]: segment };
      yield { what: `:${parameter} = ${describeValue(segment)}`, url: urlOf(route, params), encoding: main, input: await base() };
    }
  }
  if (caller === 'normal') return;

  // Bodies that parse but are not an object of parameters, and query strings out of the ordinary.
  const json = (what: string, text: string): Case => ({ what, url: '', encoding: 'raw', body: { type: 'application/json', text } });
  const valid = await base();
  const bodies: Case[] = [
    json('a JSON array holding the valid input', `[${jsonText(valid)}]`),
    json('an empty JSON array', '[]'),
    json('a JSON string', '"text"'),
    json('a JSON number', '1e400'),
    json('JSON null', 'null'),
    json('an empty JSON body', ''),
    json('a __proto__ member', withMember(valid, '"__proto__":{"admin":true,"is_admin":true,"id":1}')),
    json('a constructor.prototype member', withMember(valid, '"constructor":{"prototype":{"admin":true}}')),
    json('every property twice', withMember(valid, Object.keys(propertiesOf(route.input)).map((property) => `"${property}":{"a":1},"${property}":"b"`).join(',') || '"x":1')),
  ];
  for (const c of bodies) yield { ...c, url: await realUrl() };
  const names = Object.keys(propertiesOf(route.input));
  const queries: [string, string][] = [
    ['every property twice in the query', names.map((property) => `${property}=a&${property}=b`).join('&')],
    ['every property as an array past the array limit', names.map((property) => `${property}[1001]=1`).join('&')],
    ['every property nested past the depth limit', names.map((property) => `${property}${'[a]'.repeat(8)}=1`).join('&')],
    ['malformed percent-encoding in the query', `${names[0] ?? 'a'}=%E0%A4%A&b=%`],
    ['a __proto__ query key', '__proto__[admin]=true&constructor[prototype][admin]=true'],
    ['credentials as arrays and objects in the query', 'private_token[]=a&sudo[a]=b&access_token[0][x]=1'],
  ];
  for (const [what, query] of queries) yield { what, url: await realUrl(), encoding: main, input: await base(), query };
}

// ---- the tests ----

const ROUTES = allRoutes();
const keyOf = ({ group, name }: NamedRoute) => `${group}.${name}`;

describe('every route answers hostile input with a success or a 4xx, never a 500', () => {
  for (const named of ROUTES) {
    const { route } = named;
    const key = keyOf(named);
    it(`${key}: ${route.method} ${route.path}, as root`, async () => {
      let failures: string[];
      try {
        failures = await run(key, route.method, 'root', casesFor(named, 'root'), () => afterSuccess(key));
      } finally {
        // Hostile values that were valid settings stay set: put the defaults back for the routes after it.
        if (key === 'applicationSettings.update') await t.hosting.applicationSettings.update(defaultSettings as never);
      }
      expect(failures, failures.join('\n')).toEqual([]);
    }, 60_000);
  }
  for (const named of ROUTES.filter(({ route }) => route.auth === 'user')) {
    const { route } = named;
    const key = keyOf(named);
    it(`${key}: ${route.method} ${route.path}, as a normal user`, async () => {
      const failures = await run(key, route.method, 'normal', casesFor(named, 'normal'), () => afterSuccess(key));
      expect(failures, failures.join('\n')).toEqual([]);
    }, 60_000);
  }
});

// ---- bodies that fail to parse, sent once per method (parsing comes before the route is chosen) ----

function malformedBodies(): Case[] {
  const raw = (what: string, type: string, text: string, headers?: Record<string, string>): Case => ({ what, url: '', encoding: 'raw', body: { type, text, headers } });
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
    raw('a form body with 1001 parameters', 'application/x-www-form-urlencoded', Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&')),
    raw('a form body nested 40 deep', 'application/x-www-form-urlencoded', `a${'[a]'.repeat(40)}=1`),
    raw('a form body with a __proto__ key', 'application/x-www-form-urlencoded', '__proto__[admin]=true&a[__proto__][b]=1'),
    raw('a JSON body past the size limit', 'application/json', `{"title":"${'x'.repeat(21 * 1024 * 1024)}"}`),
  ];
}

describe('bodies that fail to parse answer 4xx, on a route of each method', () => {
  for (const key of ['users.get', 'users.create', 'users.update', 'sshKeys.deleteForUser', 'oauth.token']) {
    const named = ROUTES.find((candidate) => keyOf(candidate) === key) as NamedRoute;
    it(`${key}: ${named.route.method} ${named.route.path}`, async () => {
      const url = urlOf(named.route, await realParams(key, named.route, 'root'));
      const failures = await run(key, named.route.method, 'root', malformedBodies().map((c) => ({ ...c, url })));
      expect(failures, failures.join('\n')).toEqual([]);
    }, 60_000);
  }
});

// ---- what is not a route of the table: credentials and uploaded avatars ----

type CredentialCase = [what: string, headers: Record<string, string>, query: string];

async function credentialFailures(cases: CredentialCase[]): Promise<string[]> {
  const failures: string[] = [];
  for (const [what, headers, query] of cases) {
    for (const [method, path] of [['GET', '/api/v4/user'], ['POST', '/api/v4/user/keys']] as const) {
      logged.length = 0;
      let request = t.http[method === 'GET' ? 'get' : 'post'](`${path}${query ? `?${query}` : ''}`);
      // A header carries the credential, or else root's token does.
      if (!headers.Authorization) request = request.set('PRIVATE-TOKEN', ROOT_TOKEN);
      for (const [name, value] of Object.entries(headers)) request = request.set(name, Buffer.from(value, 'utf8').toString('latin1'));
      const res = await request.send(method === 'POST' ? { title: 't', key: sshKey() } : undefined);
      const problem = res.status >= 500 ? 'a 500' : shapeProblem(res);
      if (problem) failures.push(`${method} ${path} ${what} → ${res.status} ${res.text.slice(0, 200)}: ${problem}\n    ${logged.join('\n    ').slice(0, 800)}`);
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
    for (const id of [String(subject.id), '99999999999', '-1', 'abc', 'Infinity', '9'.repeat(400), '1.5', 'a%00b', '%E0%A4%A']) {
      for (const filename of ['avatar.png', 'a%00b.png', '%E0%A4%A', LONG_FOR_URL, '..%2F..%2Fetc%2Fpasswd']) {
        logged.length = 0;
        const res = await t.http.get(`/uploads/-/system/user/avatar/${id}/${filename}`);
        if (res.status >= 500) failures.push(`avatar ${id.slice(0, 20)}/${filename.slice(0, 20)} → ${res.status} ${res.text.slice(0, 200)}\n    ${logged.join('\n    ').slice(0, 800)}`);
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });
});

// ---- bodies and credentials that no parser or query can take: 4xx, never 500 ----

describe('unreadable bodies and impossible credentials', () => {
  const knownBodies: Case[] = [
    { what: 'JSON declared with charset latin1', url: '', encoding: 'raw', body: { type: 'application/json; charset=latin1', text: '{}' } },
    { what: 'a body in an unknown content encoding', url: '', encoding: 'raw', body: { type: 'application/json', text: '{}', headers: { 'Content-Encoding': 'br2' } } },
    { what: 'multipart without a boundary', url: '', encoding: 'raw', body: { type: 'multipart/form-data', text: 'garbage' } },
    { what: 'a truncated multipart body', url: '', encoding: 'raw', body: { type: 'multipart/form-data; boundary=xyz', text: '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nabc' } },
    { what: 'multipart that is not multipart', url: '', encoding: 'raw', body: { type: 'multipart/form-data; boundary=xyz', text: 'no parts here' } },
    { what: 'an object nested 5000 deep', url: '', encoding: 'raw', body: { type: 'application/json', text: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}` } },
  ];
  for (const c of knownBodies) {
    it(`router/invoke: ${c.what}`, async () => {
      expect(await run('users.create', 'POST', 'root', [{ ...c, url: '/api/v4/users' }])).toEqual([]);
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
  afterEach(async () => {
    await t.hosting.applicationSettings.update(defaultSettings as never);
  });
  const root = (verb: 'get' | 'post' | 'put', url: string) => t.http[verb](url).set('PRIVATE-TOKEN', ROOT_TOKEN);
  const json = (verb: 'get' | 'post' | 'put', url: string, text: string) => root(verb, url).set('Content-Type', 'application/json').send(text);

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
    const low = await json('post', '/api/v4/users', '{"email": "s@example.com", "username": "surrogate", "name": "a\\udc00", "password": "long-enough-password"}');
    expect([low.status, low.body]).toEqual([400, { message: { name: ['is invalid'] } }]);
    expect(await fingerprint()).toBe(before);
    // A surrogate pair (an emoji) is well-formed text.
    const emoji = await json('put', `/api/v4/users/${subject.id}`, '{"bio": "\\ud83d\\ude00"}');
    expect([emoji.status, emoji.body.bio]).toEqual([200, '😀']);
  });

  it('an e-mail address is measured as it is stored, lower-cased', async () => {
    // 'İ' lower-cases to two characters: 214 characters as sent, 414 as stored.
    const email = `${'İ'.repeat(200)}@example.com`;
    const before = await fingerprint();
    const created = await root('post', '/api/v4/users').send({ email, username: 'dotted', name: 'Dotted', password: 'long-enough-password' });
    expect([created.status, created.body]).toEqual([400, { message: { email: ['is too long (maximum is 255 characters)'] } }]);
    const updated = await root('put', `/api/v4/users/${subject.id}`).send({ email });
    expect([updated.status, updated.body]).toEqual([400, { message: { email: ['is too long (maximum is 255 characters)'] } }]);
    const secondary = await root('post', `/api/v4/users/${subject.id}/emails`).send({ email });
    expect([secondary.status, secondary.body]).toEqual([400, { message: { email: ['is too long (maximum is 255 characters)'] } }]);
    expect(await fingerprint()).toBe(before);
    const fits = await root('post', '/api/v4/users').send({ email: `${'İ'.repeat(100)}@example.com`, username: 'dotted', name: 'Dotted', password: 'long-enough-password' });
    expect([fits.status, fits.body.email]).toEqual([201, `${'i̇'.repeat(100)}@example.com`]);
  });

  it('a whole-number setting past int32 is refused, so it cannot break every later user creation', async () => {
    const before = await fingerprint();
    const res = await root('put', '/api/v4/application/settings').send({ default_projects_limit: 99999999999 });
    expect([res.status, res.body]).toEqual([400, { message: { default_projects_limit: ['must be less than or equal to 2147483647'] } }]);
    const other = await root('put', '/api/v4/application/settings').send({ terminal_max_session_time: 2147483648 });
    expect([other.status, other.body]).toEqual([400, { message: { terminal_max_session_time: ['must be less than or equal to 2147483647'] } }]);
    expect(await fingerprint()).toBe(before);
    const largest = await root('put', '/api/v4/application/settings').send({ default_projects_limit: 2147483647 });
    expect(largest.status).toBe(200);
    const user = await root('post', '/api/v4/users').send({ email: 'limit@example.com', username: 'limit', name: 'Limit', password: 'long-enough-password' });
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
