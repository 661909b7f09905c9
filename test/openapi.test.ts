import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/api/index.js';
import { schemas } from '../src/index.js';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as untyped JSON
type Json = Record<string, any>;

const document = openApiDocument() as Json;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const operations = Object.entries(document.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).map(([method, operation]) => ({
    endpoint: `${method.toUpperCase()} ${path}`,
    operation: operation as Json,
  })),
);
const operation = (endpoint: string) => operations.find((entry) => entry.endpoint === endpoint)?.operation as Json;

/** Every object in the document with its JSON pointer. */
function* objects(value: unknown, pointer = '#'): Generator<[string, Json]> {
  if (typeof value !== 'object' || value === null) return;
  if (!Array.isArray(value)) yield [pointer, value as Json];
  for (const [key, item] of Object.entries(value)) yield* objects(item, `${pointer}/${key}`);
}

describe('the OpenAPI document', () => {
  it('names the exported schemas once, as components, and refers to them', () => {
    for (const name of [
      'UserFull',
      'UserBasic',
      'SshKey',
      'CreateUserInput',
      'TokenScope',
      'BooleanResult',
      'ErrorMessage',
      'ValidationError',
      'OAuthError',
    ]) {
      expect(document.components.schemas[name], name).toBeDefined();
    }
    for (const name of Object.keys(document.components.schemas)) expect(Object.keys(schemas), name).toContain(name);
    // Exports that are not schemas are no components.
    expect(document.components.schemas.Pagination).toBeUndefined();
    expect(operation('GET /api/v4/users/{id}').responses[200].content['application/json'].schema).toEqual({
      oneOf: [ref('UserFull'), ref('UserProfile')],
      description: 'the first shape for administrators, the second for everyone else',
    });
    expect(operation('POST /api/v4/users').responses[201].content['application/json'].schema).toEqual(ref('UserFull'));
    expect(operation('POST /api/v4/users').requestBody.content['multipart/form-data'].schema).toEqual(ref('CreateUserInput'));
    expect(operation('GET /api/v4/user/keys').responses[200].content['application/json'].schema).toEqual({
      type: 'array',
      items: ref('SshKey'),
    });
    expect(operation('POST /api/v4/users/{id}/block').responses[201].content['application/json'].schema).toEqual(ref('BooleanResult'));
    // Within other schemas and parameters too, copies (Type.Optional) included.
    const { UserFull, CreateUserInput } = document.components.schemas;
    expect(UserFull.properties.custom_attributes.items).toEqual(ref('CustomAttribute'));
    expect(UserFull.properties.created_at).toEqual(ref('DateTime'));
    expect(CreateUserInput.properties.avatar).toEqual(ref('Upload'));
    expect(document.components.schemas.CreateTokenInput.properties.scopes.items).toEqual(ref('TokenScope'));
    expect(operation('GET /api/v4/users').parameters.find((parameter: Json) => parameter.name === 'created_before').schema).toEqual(
      ref('DateTimeInput'),
    );
  });

  it("inlines no named schema's body anywhere else", () => {
    const bodies = new Map<string, string>();
    for (const [name, component] of Object.entries(document.components.schemas as Json)) {
      const schema = schemas[name as keyof typeof schemas] as object;
      // A bare type (BooleanResult's `{type: 'boolean'}`) is the body of every plain boolean.
      if (Object.keys(schema).length === 1) continue;
      bodies.set(JSON.stringify(schema), name);
      bodies.set(JSON.stringify(component), name);
    }
    let seen = 0;
    for (const [pointer, value] of objects(document)) {
      if (/^#\/components\/schemas\/[^/]+$/.test(pointer)) continue;
      expect(bodies.get(JSON.stringify(value)), pointer).toBeUndefined();
      seen++;
    }
    expect(seen).toBeGreaterThan(1000);
  });

  it('resolves every $ref', () => {
    for (const [pointer, value] of objects(document)) {
      if (typeof value.$ref !== 'string') continue;
      const target = (value.$ref as string)
        .split('/')
        .slice(1)
        .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
      expect(target, `${pointer} → ${value.$ref}`).toBeDefined();
    }
  });

  it('declares every tag an operation uses, with a description', () => {
    const declared = new Map((document.tags as Json[]).map((tag) => [tag.name, tag.description]));
    const used = new Set(operations.flatMap(({ operation }) => operation.tags as string[]));
    for (const tag of used) expect(declared.get(tag), tag).toMatch(/\w/);
    expect([...declared.keys()].sort()).toEqual([...used].sort());
  });

  it('asks sign-in routes for no token, and public routes for one optionally', () => {
    expect(operation('POST /api/v4/session').security).toEqual([]);
    expect(operation('POST /oauth/token').security).toEqual([]);
    expect(operation('GET /api/v4/openapi.json').security[0]).toEqual({});
    expect(operation('GET /api/v4/user').security).toEqual([
      { privateToken: ['api', 'read_api', 'read_user'] },
      { privateTokenQuery: ['api', 'read_api', 'read_user'] },
      { bearer: ['api', 'read_api', 'read_user'] },
      { accessTokenQuery: ['api', 'read_api', 'read_user'] },
    ]);
    expect(document.components.securitySchemes).toEqual({
      privateToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN' }),
      privateTokenQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'private_token' }),
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      accessTokenQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'access_token' }),
    });
  });

  it('gives each error answer its typed body', () => {
    const response = (endpoint: string, status: number) => {
      const answer = operation(endpoint).responses[status] as Json | undefined;
      return answer && document.components.responses[(answer.$ref as string).split('/').pop() as string].content['application/json'].schema;
    };
    expect(document.components.schemas.ErrorMessage).toEqual({
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' } },
      title: 'ErrorMessage',
    });
    expect(document.components.schemas.ValidationError.properties.message).toEqual(ref('ValidationMessages'));
    expect(document.components.schemas.OAuthError.required).toEqual(['error']);

    expect(response('GET /api/v4/users/{id}', 400)).toEqual({ anyOf: [ref('ErrorMessage'), ref('ValidationError')] });
    expect(response('GET /api/v4/users/{id}', 401)).toEqual(ref('ErrorMessage'));
    expect(response('GET /api/v4/users/{id}', 403)).toEqual({ anyOf: [ref('ErrorMessage'), ref('OAuthError')] });
    expect(response('GET /api/v4/users/{id}', 404)).toEqual(ref('ErrorMessage'));
    expect(response('GET /api/v4/users/{id}', 409)).toBeUndefined();
    expect(response('GET /api/v4/users/{id}', 413)).toBeUndefined();
    // Modifying a user answers a taken name with 404 and a validation map.
    expect(response('PUT /api/v4/users/{id}', 404)).toEqual({ anyOf: [ref('ErrorMessage'), ref('ValidationError')] });
    expect(response('POST /api/v4/users', 409)).toEqual(ref('ErrorMessage'));
    expect(response('POST /api/v4/users', 413)).toEqual(ref('ErrorMessage'));
    // Nothing to validate in GET /version.
    expect(response('GET /api/v4/version', 400)).toBeUndefined();

    expect(response('POST /api/v4/session', 401)).toEqual(ref('ErrorMessage'));
    expect(response('POST /api/v4/session', 403)).toBeUndefined();
    expect(response('POST /api/v4/session', 429)).toEqual(ref('ErrorMessage'));
    expect(operation('POST /api/v4/session').responses[429]).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(document.components.responses.TooManyRequests.headers['Retry-After']).toBeDefined();
    expect(response('POST /oauth/token', 400)).toEqual({ anyOf: [ref('ErrorMessage'), ref('ValidationError'), ref('OAuthError')] });
    expect(response('POST /oauth/token', 401)).toBeUndefined();
  });

  it("serves from the service's base URL, or from `/` when it has none", () => {
    expect(document.servers).toEqual([{ url: '/' }]);
    expect((openApiDocument('https://forge.example.com/git') as Json).servers).toEqual([{ url: 'https://forge.example.com/git' }]);
  });

  it('gives openapi-typescript named types that compile', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'forgekit-openapi-'));
    try {
      writeFileSync(join(directory, 'api.d.ts'), astToString(await openapiTS(document as Parameters<typeof openapiTS>[0])));
      writeFileSync(
        join(directory, 'client.ts'),
        [
          "import type { components, paths } from './api';",
          "type UserFull = components['schemas']['UserFull'];",
          'export const username = (user: UserFull): string => user.username;',
          '// @ts-expect-error a username is a string',
          'export const notANumber = (user: UserFull): number => user.username;',
          "type Answer = paths['/api/v4/users/{id}']['get']['responses'][200]['content']['application/json'];",
          'export const either = (user: Answer): string => user.web_url;',
          "export const refused = (body: components['schemas']['OAuthError']): string => body.error;",
          "export const scope: components['schemas']['TokenScope'] = 'read_api';",
        ].join('\n'),
      );
      const program = ts.createProgram([join(directory, 'client.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        types: [],
      });
      const diagnostics = ts
        .getPreEmitDiagnostics(program)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      expect(diagnostics).toEqual([]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
