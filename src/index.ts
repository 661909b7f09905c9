export { createHostingService, type BackgroundJobs, type HostingService } from './hosting.js';
export type { JobOutcome } from './jobs/queue.js';
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
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnprocessableEntityError,
  type ErrorBody,
  type ValidationMessages,
} from './errors.js';
export { openApiDocument } from './api/index.js';
import * as schemaModules from './schemas/index.js';
/** Every TypeBox schema (plain JSON Schema): `schemas.UserFull`, `schemas.CreateUserInput`, ... */
export const schemas = { ...schemaModules };
/** The static types of the schemas: `import { type UserFull } from 'forgekit'`. */
export type {
  ApplicationSettings,
  CreateEmailInput,
  CreateGpgKeyInput,
  CreateSshKeyInput,
  CreateTokenInput,
  CreateUserInput,
  CustomAttribute,
  Email,
  GpgKey,
  ImpersonationToken,
  ImpersonationTokenWithToken,
  ListTokensQuery,
  ListUsersQuery,
  OAuthToken,
  OAuthTokenInput,
  PersonalAccessToken,
  PersonalAccessTokenWithToken,
  SessionInput,
  SettingsValues,
  SshKey,
  TokenScope,
  UpdateSettingsInput,
  UpdateUserInput,
  UserBasic,
  UserFull,
  UserProfile,
  UserSelf,
  UserWithPrivateToken,
  Version,
} from './schemas/index.js';
export { API_VERSION, FORGEKIT_VERSION } from './version.js';
