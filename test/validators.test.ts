/**
 * Every route's validators, without a database and without HTTP: each route's example passes them, and every
 * hostile value (test/hostile.ts) in every input property and path parameter comes out of them either
 * parsed into what the schema allows or refused with a BadRequestError in body shape 4 or 5 of SPEC.md
 * "Errors", never another failure.
 * The values are bounded (100,000 characters, three levels of nesting), so a validator that takes more than
 * linear work on them would show as a slow or timed-out test.
 */
import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../src/api/index.js';
import type { AnyRoute } from '../src/api/route.js';
import { exampleOf, type ExampleFixture } from './route-examples.js';
import { parseInput, responseMismatches } from '../src/api/validation.js';
import { BadRequestError } from '../src/errors.js';
import { exampleInput, exampleTools } from './fixtures.js';
import { describeValue, HOSTILE, HOSTILE_SEGMENTS, parsedValue, propertiesOf } from './hostile.js';

const tools = exampleTools({ login: 'someone', password: 'a-password' });

/** What a fixture stands for in a path, where no database holds one: a plausible id, key or file name. */
const PLACEHOLDERS: Record<ExampleFixture, string> = {
  user: '2',
  sshKey: '3',
  gpgKey: '4',
  email: '5',
  personalToken: '6',
  impersonationToken: '7',
  customAttributeKey: 'colour',
  avatarFilename: 'avatar.png',
  projectAvatarFilename: 'logo.png',
  ownSshKey: '8',
  ownGpgKey: '9',
  ownEmail: '10',
  namespace: 'group%2Fsubgroup',
  namespacePath: 'alice',
  project: 'group%2Fproject',
  starredProject: '12',
  sharedProject: '13',
  group: '15',
  sharingGroup: '31',
  member: '14',
  repository: '16',
  commit: 'a3f5c2b9e0d14f6a8b7c9d0e1f2a3b4c5d6e7f80',
  branch: 'feature%2Fone',
  protectedBranch: 'release%2F*',
  tag: 'v1.0',
  tagWithoutRelease: 'rel%2Fv0.9',
  filePath: 'lib%2Fclass.rb',
  newFilePath: 'docs%2Fnew.md',
  blob: '8ab686eafeb1f44702738c8b0f24f2567c36da6d',
  pickableCommit: 'b4c5d6e7f80a3f5c2b9e0d14f6a8b7c9d0e1f2a3',
  archiveFormat: 'zip',
  issue: '1',
  issueId: '17',
  subscribedIssue: '2',
  issueNote: '18',
  issueAward: '19',
  issueNoteAward: '20',
  mergeRequest: '3',
  subscribedMergeRequest: '4',
  automaticMergeRequest: '5',
  mergeRequestNote: '25',
  mergeRequestAward: '26',
  mergeRequestNoteAward: '27',
  issueDiscussion: '6a0e1f2a3b4c5d6e7f80a3f5c2b9e0d14f6a8b7c',
  issueDiscussionNote: '28',
  mergeRequestDiscussion: '9d0e1f2a3b4c5d6e7f80a3f5c2b9e0d14f6a8b7c',
  mergeRequestDiscussionNote: '29',
  labelledProject: '21',
  label: 'bug',
  subscribedLabel: '22',
  milestone: '23',
  groupMilestone: '24',
  runner: '25',
  borrowedRunner: '26',
  environment: '30',
  hook: '31',
  receivingHook: '32',
  hookTrigger: 'push_events',
  hookLog: '33',
  groupHook: '34',
  groupHookLog: '35',
  systemHook: '36',
};

/** Path parameters as HTTP hands them over: text. */
const exampleParams = (route: AnyRoute): Record<string, string> =>
  Object.fromEntries(Object.entries(exampleOf(route).params ?? {}).map(([name, fixture]) => [name, PLACEHOLDERS[fixture]]));

/** As the router reads a query string or a form body (src/http/router.ts). */
const asQuery = (input: Record<string, unknown>) => qs.parse(qs.stringify(input), { depth: 5, arrayLimit: 1000 });

/** Body shapes 4 and 5: `400 (Bad request) "<name>" not given`, or each parameter with its messages. */
function isShape4or5(messages: BadRequestError['messages']): boolean {
  if (typeof messages === 'string') return /^400 \(Bad request\) "[^"]+" not given$/.test(messages);
  const entries = Object.entries(messages);
  return (
    entries.length > 0 &&
    entries.every(([, list]) => Array.isArray(list) && list.length > 0 && list.every((text) => typeof text === 'string'))
  );
}

/** Text that no PostgreSQL text column stores: a NUL character, or half of a surrogate pair. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it finds the NUL character that PostgreSQL text cannot store
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorable(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(unstorable);
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value))
    return Object.entries(value).some(([key, item]) => UNSTORABLE.test(key) || unstorable(item));
  return false;
}

/**
 * What went wrong when the schema's validator is given the value: undefined for a valid parse (what it answers
 * conforms to the schema as it is, coerced no further, and holds only text a database can store) or a refusal
 * in the shapes of SPEC.md.
 */
function problemOf(schema: AnyRoute['input'], value: unknown): string | undefined {
  try {
    // Validation coerces in place, as the pipeline's own copy of the input lets it: each case gets its own copy.
    const parsed = parseInput(schema!, structuredClone(value));
    const mismatches = responseMismatches(schema!, parsed);
    if (mismatches.length) return `parsed as ${describeValue(parsed)}, outside the schema: ${mismatches.join('; ')}`;
    if (unstorable(parsed)) return `parsed as ${describeValue(parsed)}, which no text column stores`;
    return undefined;
  } catch (error) {
    if (!(error instanceof BadRequestError)) return `threw ${(error as Error)?.stack ?? String(error)}`;
    return isShape4or5(error.messages) ? undefined : `refused in no body shape: ${JSON.stringify(error.messages)}`;
  }
}

const ROUTES = allRoutes();

describe('every route has an example its validators accept', () => {
  for (const { group, name, route } of ROUTES) {
    it(`${group}.${name}: ${route.method} ${route.path}`, async () => {
      expect(exampleOf(route), 'example').toBeDefined();
      if (route.params) expect(parseInput(route.params, exampleParams(route))).toEqual(expect.any(Object));
      const input = await exampleInput(route, tools);
      if (!route.input) return expect(input).toEqual({});
      // As sent in a JSON body, and (a GET's) in the query string, where everything is text.
      const parsed = parseInput<Record<string, unknown>>(route.input, structuredClone(input));
      expect(Object.keys(parsed).sort()).toEqual(Object.keys(input).sort());
      if (route.method === 'GET') expect(Object.keys(parseInput(route.input, asQuery(input))).sort()).toEqual(Object.keys(input).sort());
    });
  }
});

describe("every route's validators answer hostile values with a parse or a 400", () => {
  for (const { group, name, route } of ROUTES) {
    it(`${group}.${name}: ${route.method} ${route.path}`, async () => {
      const problems: string[] = [];
      const check = (part: string, schema: AnyRoute['input'], value: unknown) => {
        const problem = problemOf(schema, value);
        if (problem) problems.push(`${part}: ${problem}`);
      };
      const base = await exampleInput(route, tools);
      if (route.input) {
        // Every value in every property, whatever the property's type: JSON values, and text as HTTP carries it.
        for (const property of Object.keys(propertiesOf(route.input))) {
          for (const hostile of HOSTILE) {
            const value = parsedValue(hostile.value);
            check(`${property} = ${hostile.label} ${describeValue(hostile.value)}`, route.input, { ...base, [property]: value });
            const text = hostile.text ?? (typeof value === 'string' ? value : undefined);
            if (text !== undefined) check(`${property} = ${hostile.label} as text`, route.input, asQuery({ ...base, [property]: text }));
          }
        }
        // Inputs that are not an object of parameters at all.
        for (const whole of [
          null,
          [],
          [base],
          'text',
          1,
          true,
          JSON.parse('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}'),
        ]) {
          check(`the input ${describeValue(whole)}`, route.input, whole);
        }
      }
      if (route.params) {
        // Each parameter as the router decodes its segment (taken as it is when it is no valid percent-encoding).
        const params = exampleParams(route);
        for (const parameter of Object.keys(params)) {
          for (const segment of HOSTILE_SEGMENTS) {
            let decoded = segment;
            try {
              decoded = decodeURIComponent(segment);
            } catch {}
            check(`:${parameter} = ${describeValue(segment)}`, route.params, { ...params, [parameter]: decoded });
          }
        }
      }
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }

  it('nothing reached the prototype of every object', () => {
    const probe = {} as Record<string, unknown>;
    expect([probe.admin, probe.a, probe.b]).toEqual([undefined, undefined, undefined]);
  });
});
