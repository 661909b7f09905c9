import type { TSchema } from 'typebox';
import { namedSchemas } from './api/openapi.js';
import { HostingOptionsSchema as hostingOptionsSchema } from './config.js';
import type { SchemaName } from './types.js';

export { createHostingService, type BackgroundJobs, type HostingHooks, type HostingService } from './hosting.js';
export type { RouterOptions } from './http/router.js';
export type { HostingRequests, RecordedRequest, RequestFilter, RequestWay } from './testing/journal.js';
export {
  ConnectionDroppedError,
  type Fault,
  type FaultRule,
  type FaultStatus,
  type FaultTarget,
  type HostingFaults,
} from './testing/faults.js';
export type { DeliveryFilter, RecordedDelivery } from './services/hooks/hooks.js';
export type { JobOutcome } from './jobs/queue.js';
export type { HealthCheck, Readiness } from './health.js';
export type { CallerIdentity } from './auth/caller.js';
export type { Logger } from './logger.js';
export type { ListResult, PageQuery } from './services/pagination.js';
export {
  ApiError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InsufficientScopeError,
  MethodNotAllowedError,
  NotFoundError,
  NotFoundValidationError,
  OAuthError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnprocessableEntityError,
  type ErrorBody,
} from './errors.js';
export { openApiDocument } from './api/index.js';
export { API_VERSION, FORGEKIT_VERSION } from './version.js';
/**
 * The static type of every schema by its name (`UserFull`, `CreateUserInput`, ...), the in-process API (`Api`)
 * and the options (`HostingOptions`): plain interfaces, generated from the source (src/types.ts).
 */
export type * from './types.js';
/** The schema `OAuthError`'s type, the body of an OAuth error: `OAuthError` names the error class. */
export type { OAuthError as OAuthErrorBody } from './types.js';

/**
 * A JSON Schema object. TypeBox builds plain JSON Schema; a TypeBox function that takes a `TSchema` takes
 * this too. (Not TypeBox's own types: a consumer's compiler would read all of TypeBox's declarations.)
 */
export type JsonSchema = { readonly [keyword: string]: unknown };
/** Every TypeBox schema (plain JSON Schema) by name: `schemas.UserFull`, `schemas.CreateUserInput`, ... */
export const schemas = Object.fromEntries(namedSchemas) as { readonly [Name in SchemaName]: JsonSchema };
/** The options of `createHostingService`, as a schema. */
// Through TSchema: TypeBox's interfaces have no index signature, which JsonSchema has.
export const HostingOptionsSchema = hostingOptionsSchema as TSchema as JsonSchema;
