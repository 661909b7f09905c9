import type { TSchema } from 'typebox';
import { scopesFor } from '../auth/access.js';
import { API_VERSION, FORGEKIT_VERSION } from '../version.js';
import { allRoutes } from './index.js';
import { successStatus } from './route.js';

type JsonObject = Record<string, unknown>;

/** A schema as plain JSON (TypeBox keeps its own markers out of JSON already). */
const json = (schema: TSchema): JsonObject => JSON.parse(JSON.stringify(schema)) as JsonObject;

const errorResponse = { description: 'error', content: { 'application/json': { schema: { type: 'object', properties: { message: {} } } } } };

/** The OpenAPI 3.1 document of the whole route table. */
export function openApiDocument(baseUrl = 'http://localhost'): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const { group, name, route } of allRoutes()) {
    const path = (route.root ? '' : '/api/v4') + route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: JsonObject[] = [];
    const pathSchema = route.params ? (json(route.params) as { properties?: Record<string, JsonObject> }) : {};
    for (const [parameter, schema] of Object.entries(pathSchema.properties ?? {})) {
      parameters.push({ name: parameter, in: 'path', required: true, schema });
    }
    let requestBody: JsonObject | undefined;
    if (route.input) {
      const input = json(route.input) as { properties?: Record<string, JsonObject>; required?: string[] };
      if (route.method === 'GET' || route.method === 'DELETE') {
        for (const [parameter, schema] of Object.entries(input.properties ?? {})) {
          const style = schema.type === 'object' ? { style: 'deepObject', explode: true } : {};
          parameters.push({ name: parameter, in: 'query', required: input.required?.includes(parameter) ?? false, schema, ...style });
        }
      } else {
        requestBody = {
          required: (input.required ?? []).length > 0,
          content: {
            'application/json': { schema: input },
            'application/x-www-form-urlencoded': { schema: input },
            'multipart/form-data': { schema: input },
          },
        };
      }
    }
    const status = String(successStatus(route));
    const responses: JsonObject = {
      [status]: !route.response
        ? { description: 'no content' }
        : route.raw
          ? { description: 'the file', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }
          : { description: 'success', content: { 'application/json': { schema: json(route.response) } } },
      '400': errorResponse,
      '404': errorResponse,
    };
    if (route.auth !== 'public') responses['401'] = errorResponse;
    if (route.auth === 'admin') responses['403'] = errorResponse;
    if (route.paginated) {
      (responses[status] as JsonObject).headers = Object.fromEntries(
        ['Link', 'X-Total', 'X-Total-Pages', 'X-Per-Page', 'X-Page', 'X-Next-Page', 'X-Prev-Page'].map((header) => [header, { schema: { type: 'string' } }]),
      );
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId: `${group}.${name}`,
      tags: [group],
      summary: route.summary,
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
      security: route.auth === 'public' ? [{}, ...security(scopesFor(route))] : security(scopesFor(route)),
      'x-forgekit-auth': route.auth,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'forgekit project-hosting API',
      version: FORGEKIT_VERSION,
      description: `The project-hosting REST API (compatible with the v4 API of version ${API_VERSION} of the original service).`,
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      securitySchemes: {
        privateToken: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN' },
        privateTokenQuery: { type: 'apiKey', in: 'query', name: 'private_token' },
        oauth2: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}

function security(scopes: string[]): JsonObject[] {
  return [{ privateToken: scopes }, { privateTokenQuery: scopes }, { oauth2: scopes }];
}
