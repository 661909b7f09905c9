import type { TSchema } from 'typebox';
import { scopesFor } from '../auth/access.js';
import { MODULE_SCHEMAS } from './modules.js';
import { ErrorMessage, OAuthError, ValidationError } from '../schemas/errors.js';
import { API_VERSION, FORGEKIT_VERSION } from '../version.js';
import { PerCaller, successStatus, type AnyRoute, type NamedRoute, type Shape } from './route.js';

type JsonObject = Record<string, unknown>;

/** Every schema src/schemas exports (TypeBox marks each schema it builds with its kind), by name. */
export const namedSchemas = Object.entries(MODULE_SCHEMAS as Record<string, unknown>).filter(
  (entry): entry is [string, TSchema] => typeof entry[1] === 'object' && entry[1] !== null && '~kind' in entry[1],
);
const namesByObject = new Map<unknown, string>(namedSchemas.map(([name, schema]) => [schema, name]));
/**
 * By content too: TypeBox copies what it wraps (`Type.Optional(Upload)`, `Type.Partial`). A schema that is
 * only a type (`BooleanResult`) names itself alone: not every boolean is a BooleanResult.
 */
const namesByJson = new Map<string, string>(
  namedSchemas.filter(([, schema]) => Object.keys(schema).length > 1).map(([name, schema]) => [JSON.stringify(schema), name]),
);

/** A schema as JSON; a named schema is a `$ref` to its component. */
function reference(schema: unknown): unknown {
  const name =
    typeof schema === 'object' && schema !== null ? (namesByObject.get(schema) ?? namesByJson.get(JSON.stringify(schema))) : undefined;
  return name ? { $ref: `#/components/schemas/${name}` } : expand(schema);
}

/** A schema as JSON in full, the named schemas within it as `$ref`s. */
function expand(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(reference);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, reference(value)]));
}

function errorResponse(description: string, ...bodies: TSchema[]): JsonObject {
  return {
    description,
    content: { 'application/json': { schema: bodies.length === 1 ? reference(bodies[0]) : { anyOf: bodies.map(reference) } } },
  };
}

/** The error answers, as response components; src/errors.ts has which error answers which body. */
const errorResponses = {
  BadRequest: errorResponse('a parameter is missing or invalid, or the body cannot be read', ErrorMessage, ValidationError),
  OAuthBadRequest: errorResponse(
    'a parameter is missing or invalid, or the grant is refused (RFC 6749 §5.2)',
    ErrorMessage,
    ValidationError,
    OAuthError,
  ),
  Unauthorized: errorResponse('no token where one is needed, a refused token, or a failed sign-in', ErrorMessage),
  Forbidden: errorResponse(
    'a route for administrators, `SUDO` by a non-administrator, or token scopes that do not admit the call',
    ErrorMessage,
    OAuthError,
  ),
  NotFound: errorResponse('no such resource, or `SUDO` names no user', ErrorMessage),
  NotFoundOrTaken: errorResponse(
    'no such resource, `SUDO` names no user, or (modifying a user) a username or e-mail is taken',
    ErrorMessage,
    ValidationError,
  ),
  Conflict: errorResponse('a conflicting resource exists', ErrorMessage),
  PayloadTooLarge: errorResponse('the body is larger than this route reads', ErrorMessage),
  TooManyRequests: {
    ...errorResponse('too many failed authentications from this address or for this login', ErrorMessage),
    headers: { 'Retry-After': { description: 'seconds until the next attempt is considered', schema: { type: 'integer' } } },
  },
  ServiceUnavailable: errorResponse('the service is shutting down', ErrorMessage),
};

/**
 * The errors a route can answer a caller that sends what its `security` asks for, from what the pipeline
 * (src/api/invoke.ts, src/http/router.ts) does with the route.
 */
function errorsOf(route: AnyRoute, group: string, readsBody: boolean): JsonObject {
  // The token endpoint (group `oauth` of the table) answers its own failures in the OAuth shape.
  const oauth = group === 'oauth';
  const takesToken = !route.signInLogin;
  const errors: Record<number, keyof typeof errorResponses> = {};
  if (route.params || route.input) errors[400] = oauth ? 'OAuthBadRequest' : 'BadRequest';
  // A failed password sign-in is 401, the token endpoint's is 400 invalid_grant.
  if (takesToken || !oauth) errors[401] = 'Unauthorized';
  if (takesToken) errors[403] = 'Forbidden';
  // SUDO may name no user; a path may name no resource. Modifying a user answers 404 where 409 fits (SPEC.md Errors 12).
  if (takesToken || route.params) errors[404] = route.method === 'PUT' ? 'NotFoundOrTaken' : 'NotFound';
  // Services' conflicts, and two writers racing for one unique value (invoke).
  if (route.method !== 'GET') errors[409] = 'Conflict';
  if (readsBody) errors[413] = 'PayloadTooLarge';
  // Sign-ins while throttled, and refused tokens from a throttled address.
  errors[429] = 'TooManyRequests';
  errors[503] = 'ServiceUnavailable';
  return Object.fromEntries(Object.entries(errors).map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]));
}

/** The ways to send a token, in the order the service reads them; any kind of token works in each. */
const securitySchemes = {
  privateToken: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN' },
  privateTokenQuery: { type: 'apiKey', in: 'query', name: 'private_token', description: 'also a form field or JSON body field' },
  bearer: { type: 'http', scheme: 'bearer', description: 'an OAuth access token from POST /oauth/token, or any other token' },
  accessTokenQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'access_token',
    description: 'the bearer token as a parameter; also a form field or JSON body field',
  },
};

function security(route: AnyRoute): JsonObject[] {
  // A sign-in takes a password, not a token.
  if (route.signInLogin) return [];
  const scopes = scopesFor(route);
  const tokens = Object.keys(securitySchemes).map((scheme) => ({ [scheme]: scopes }));
  return route.auth === 'public' ? [{}, ...tokens] : tokens;
}

/** A response schema; one per caller kind as `oneOf`, administrators' first. */
function responseSchema(response: Shape): unknown {
  if (!(response instanceof PerCaller)) return reference(response);
  return {
    oneOf: [reference(response.admin), reference(response.other)],
    description: 'the first shape for administrators, the second for everyone else',
  };
}

/**
 * The OpenAPI 3.1 document of the whole route table. Served, its server is the service's base URL; without
 * one (docs/openapi.json) it is `/`, relative to wherever the document is read from (what OpenAPI assumes
 * when `servers` is absent), and a client gives its own base URL.
 */
export function buildOpenApiDocument(routes: NamedRoute[], groups: Record<string, string>, baseUrl?: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const { group, name, route } of routes) {
    const path = (route.root ? '' : '/api/v4') + route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters: JsonObject[] = Object.entries(route.params?.properties ?? {}).map(([parameter, schema]) => ({
      name: parameter,
      in: 'path',
      required: true,
      schema: reference(schema),
    }));
    const inQuery = route.method === 'GET' || route.method === 'DELETE';
    let requestBody: JsonObject | undefined;
    if (route.input && inQuery) {
      for (const [parameter, schema] of Object.entries(route.input.properties)) {
        const style = (schema as { type?: unknown }).type === 'object' ? { style: 'deepObject', explode: true } : {};
        parameters.push({
          name: parameter,
          in: 'query',
          required: route.input.required?.includes(parameter) ?? false,
          schema: reference(schema),
          ...style,
        });
      }
    } else if (route.input) {
      const schema = reference(route.input);
      requestBody = {
        required: (route.input.required ?? []).length > 0,
        content: Object.fromEntries(
          ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'].map((type) => [type, { schema }]),
        ),
      };
    }
    const status = String(successStatus(route));
    const success: JsonObject = !route.response
      ? { description: 'no content' }
      : route.raw
        ? { description: 'the file', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }
        : { description: 'success', content: { 'application/json': { schema: responseSchema(route.response) } } };
    if (route.list) {
      success.headers = Object.fromEntries(
        ['Link', 'X-Total', 'X-Total-Pages', 'X-Per-Page', 'X-Page', 'X-Next-Page', 'X-Prev-Page'].map((header) => [
          header,
          { schema: { type: 'string' } },
        ]),
      );
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId: `${group}.${name}`,
      tags: [group],
      summary: route.summary,
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: { [status]: success, ...errorsOf(route, group, requestBody !== undefined) },
      security: security(route),
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
    servers: [{ url: baseUrl ?? '/' }],
    tags: Object.entries(groups).map(([tag, description]) => ({ name: tag, description })),
    paths,
    components: {
      schemas: Object.fromEntries(namedSchemas.map(([name, schema]) => [name, expand(schema)])),
      responses: errorResponses,
      securitySchemes,
    },
  };
}
