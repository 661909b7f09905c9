import { UserWithPrivateToken } from '../schemas/users.js';
import {
  CreateTokenInput,
  ImpersonationToken,
  ImpersonationTokenWithToken,
  ListAllTokensQuery,
  ListTokensQuery,
  OAuthToken,
  OAuthTokenInput,
  PersonalAccessToken,
  PersonalAccessTokenWithToken,
  SessionInput,
} from '../schemas/tokens.js';
import type { TSchema } from 'typebox';
import type { User } from '../db/entities/index.js';
import { defineRoute } from './route.js';
import { AccessTokensService } from '../services/identity/tokens.js';
import { defineModule } from './module.js';
import * as tokensSchemas from '../schemas/tokens.js';
import * as tokensTables from '../db/entities/tokens.js';
import * as authFailuresTables from '../db/entities/auth-failures.js';

/** What differs between a user's personal access tokens and its impersonation tokens. */
interface UserTokensKind<Segment extends string, Shape extends TSchema, Created extends TSchema> {
  segment: Segment;
  kind: 'personal' | 'impersonation';
  /** `personal access token`, as the summaries name one. */
  noun: string;
  shape: Shape;
  /** The token as created: shown this once. */
  created: Created;
}

/** An administrator's routes for a kind of token of a user's (`/users/:user_id/<segment>`), written once. */
function userTokenRoutes<const Segment extends string, Shape extends TSchema, Created extends TSchema>(
  tokens: UserTokensKind<Segment, Shape, Created>,
) {
  const { segment, kind, noun, shape } = tokens;
  const tokenId = (params: object) => (params as { token_id: number }).token_id;
  const owner = (params: object) => (params as { user: User }).user;
  return {
    list: defineRoute({
      method: 'GET',
      path: `/users/:user_id/${segment}`,
      summary: `A user's ${noun}s`,
      auth: 'admin',
      scope: 'user',
      input: ListTokensQuery,
      list: shape,
      run: (ctx, params, input) => new AccessTokensService(ctx).list(owner(params), kind, input) as Promise<never>,
    }),
    get: defineRoute({
      method: 'GET',
      path: `/users/:user_id/${segment}/:token_id`,
      summary: `One of a user's ${noun}s`,
      auth: 'admin',
      scope: 'user',
      response: shape,
      run: (ctx, params) => new AccessTokensService(ctx).get(owner(params), kind, tokenId(params)) as Promise<never>,
    }),
    create: defineRoute({
      method: 'POST',
      path: `/users/:user_id/${segment}`,
      summary: `Create ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun} for a user (the token is shown once)`,
      auth: 'admin',
      scope: 'user',
      input: CreateTokenInput,
      response: tokens.created,
      run: (ctx, params, input) => new AccessTokensService(ctx).create(owner(params), kind, input) as Promise<never>,
    }),
    revoke: defineRoute({
      method: 'DELETE',
      path: `/users/:user_id/${segment}/:token_id`,
      summary: `Revoke a user's ${noun}`,
      auth: 'admin',
      scope: 'user',
      run: (ctx, params) => new AccessTokensService(ctx).revoke(owner(params), kind, tokenId(params)),
    }),
  };
}

export const personalAccessTokens = {
  ...userTokenRoutes({
    segment: 'personal_access_tokens',
    kind: 'personal',
    noun: 'personal access token',
    shape: PersonalAccessToken,
    created: PersonalAccessTokenWithToken,
  }),
  listOwn: defineRoute({
    method: 'GET',
    path: '/personal_access_tokens',
    summary: "The caller's personal access tokens; an administrator's list has every user's, or one user's with `user_id`",
    auth: 'user',
    input: ListAllTokensQuery,
    list: PersonalAccessToken,
    run: (ctx, _params, input) => new AccessTokensService(ctx).listVisible(input),
  }),
  getOwn: defineRoute({
    method: 'GET',
    path: '/personal_access_tokens/:token_id',
    summary: "One of the caller's personal access tokens (administrators: anyone's)",
    auth: 'user',
    scope: 'personalAccessToken',
    ability: 'manage_personal_access_token',
    response: PersonalAccessToken,
    run: async (ctx, { token }) => new AccessTokensService(ctx).present(token),
  }),
  self: defineRoute({
    method: 'GET',
    path: '/personal_access_tokens/self',
    summary: 'The personal access (or impersonation) token the request is authenticated with',
    auth: 'user',
    response: PersonalAccessToken,
    run: async (ctx) => new AccessTokensService(ctx).current(),
  }),
  revokeOwn: defineRoute({
    method: 'DELETE',
    path: '/personal_access_tokens/:token_id',
    summary: "Revoke one of the caller's personal access tokens (administrators: anyone's)",
    auth: 'user',
    scope: 'personalAccessToken',
    ability: 'manage_personal_access_token',
    run: (ctx, { token }) => new AccessTokensService(ctx).revokeToken(token),
  }),
};

export const impersonationTokens = userTokenRoutes({
  segment: 'impersonation_tokens',
  kind: 'impersonation',
  noun: 'impersonation token',
  shape: ImpersonationToken,
  created: ImpersonationTokenWithToken,
});

export const session = {
  create: defineRoute({
    method: 'POST',
    path: '/session',
    summary: 'Sign in with a password; answers the full user with a private token',
    auth: 'public',
    input: SessionInput,
    response: UserWithPrivateToken,
    run: (ctx, _params, input) => new AccessTokensService(ctx).createSession(input),
    signInLogin: (input) => input.login ?? input.email,
  }),
};

export const oauth = {
  token: defineRoute({
    method: 'POST',
    path: '/oauth/token',
    root: true,
    status: 200,
    summary: 'Issue an OAuth 2 access token (password and refresh_token grants); served beside /api/v4, not under it',
    auth: 'public',
    input: OAuthTokenInput,
    response: OAuthToken,
    run: (ctx, _params, input) => new AccessTokensService(ctx).oauthToken(input),
    signInLogin: (input) => (input.grant_type === 'password' ? input.username : undefined),
  }),
};

export const tokensModule = defineModule({
  routes: { personalAccessTokens, impersonationTokens, session, oauth },
  descriptions: {
    personalAccessTokens: 'Personal access tokens: created for a user by an administrator; listed and revoked by their owner',
    impersonationTokens: 'Impersonation tokens: tokens that administrators create to act as a user',
    session: 'Signing in with a password for a private token',
    oauth: 'OAuth 2 access tokens (password and refresh token grants)',
  },
  schemas: { ...tokensSchemas },
  entities: [tokensTables.AccessToken, authFailuresTables.AuthFailure],
  migrations: [() => import('../db/migrations/Migration20261122000001_auth_failures.js')],
});
