export { createHostingService, type HostingService } from './hosting.js';
export { HostingOptionsSchema, type HostingOptions } from './config.js';
export type { Api } from './api/index.js';
export type { CallerIdentity } from './auth/caller.js';
export type { Logger } from './logger.js';
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
  UnauthorizedError,
  UnprocessableEntityError,
  type ErrorBody,
  type ValidationMessages,
} from './errors.js';
export { openApiDocument } from './api/openapi.js';
export * as schemas from './schemas/index.js';
export type * from './schemas/index.js';
export { API_VERSION, FORGEKIT_VERSION } from './version.js';
