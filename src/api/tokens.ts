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
import { defineRoute } from './route.js';

export const personalAccessTokens = {
  list: defineRoute({
    method: 'GET', path: '/users/:user_id/personal_access_tokens', summary: "A user's personal access tokens", auth: 'admin',
    scope: 'user', input: ListTokensQuery, list: PersonalAccessToken,
    run: (ctx, { user }, input) => ctx.accessTokens.list(user, 'personal', input),
  }),
  get: defineRoute({
    method: 'GET', path: '/users/:user_id/personal_access_tokens/:token_id', summary: "One of a user's personal access tokens", auth: 'admin',
    scope: 'user', response: PersonalAccessToken,
    run: (ctx, { user, token_id }) => ctx.accessTokens.get(user, 'personal', token_id),
  }),
  create: defineRoute({
    method: 'POST', path: '/users/:user_id/personal_access_tokens', summary: 'Create a personal access token for a user (the token is shown once)', auth: 'admin',
    scope: 'user', input: CreateTokenInput, response: PersonalAccessTokenWithToken,
    run: (ctx, { user }, input) => ctx.accessTokens.create(user, 'personal', input),
  }),
  revoke: defineRoute({
    method: 'DELETE', path: '/users/:user_id/personal_access_tokens/:token_id', summary: "Revoke a user's personal access token", auth: 'admin',
    scope: 'user',
    run: (ctx, { user, token_id }) => ctx.accessTokens.revoke(user, 'personal', token_id),
  }),
  listOwn: defineRoute({
    method: 'GET', path: '/personal_access_tokens', summary: "The caller's personal access tokens; an administrator's list has every user's, or one user's with `user_id`", auth: 'user',
    input: ListAllTokensQuery, list: PersonalAccessToken,
    run: (ctx, _params, input) => ctx.accessTokens.listVisible(input),
  }),
  getOwn: defineRoute({
    method: 'GET', path: '/personal_access_tokens/:token_id', summary: "One of the caller's personal access tokens (administrators: anyone's)", auth: 'user',
    scope: 'personalAccessToken', ability: 'manage_personal_access_token', response: PersonalAccessToken,
    run: async (ctx, { token }) => ctx.accessTokens.present(token),
  }),
  self: defineRoute({
    method: 'GET', path: '/personal_access_tokens/self', summary: 'The personal access (or impersonation) token the request is authenticated with', auth: 'user',
    response: PersonalAccessToken,
    run: async (ctx) => ctx.accessTokens.current(),
  }),
  revokeOwn: defineRoute({
    method: 'DELETE', path: '/personal_access_tokens/:token_id', summary: "Revoke one of the caller's personal access tokens (administrators: anyone's)", auth: 'user',
    scope: 'personalAccessToken', ability: 'manage_personal_access_token',
    run: (ctx, { token }) => ctx.accessTokens.revokeToken(token),
  }),
};

export const impersonationTokens = {
  list: defineRoute({
    method: 'GET', path: '/users/:user_id/impersonation_tokens', summary: "A user's impersonation tokens", auth: 'admin',
    scope: 'user', input: ListTokensQuery, list: ImpersonationToken,
    run: (ctx, { user }, input) => ctx.accessTokens.list(user, 'impersonation', input),
  }),
  get: defineRoute({
    method: 'GET', path: '/users/:user_id/impersonation_tokens/:token_id', summary: "One of a user's impersonation tokens", auth: 'admin',
    scope: 'user', response: ImpersonationToken,
    run: (ctx, { user, token_id }) => ctx.accessTokens.get(user, 'impersonation', token_id),
  }),
  create: defineRoute({
    method: 'POST', path: '/users/:user_id/impersonation_tokens', summary: 'Create an impersonation token for a user (the token is shown once)', auth: 'admin',
    scope: 'user', input: CreateTokenInput, response: ImpersonationTokenWithToken,
    run: (ctx, { user }, input) => ctx.accessTokens.create(user, 'impersonation', input),
  }),
  revoke: defineRoute({
    method: 'DELETE', path: '/users/:user_id/impersonation_tokens/:token_id', summary: "Revoke a user's impersonation token", auth: 'admin',
    scope: 'user',
    run: (ctx, { user, token_id }) => ctx.accessTokens.revoke(user, 'impersonation', token_id),
  }),
};

export const session = {
  create: defineRoute({
    method: 'POST', path: '/session', summary: 'Sign in with a password; answers the full user with a private token', auth: 'public',
    input: SessionInput, response: UserWithPrivateToken,
    run: (ctx, _params, input) => ctx.accessTokens.createSession(input),
    signInLogin: (input) => input.login ?? input.email,
  }),
};

export const oauth = {
  token: defineRoute({
    method: 'POST', path: '/oauth/token', root: true, status: 200,
    summary: 'Issue an OAuth 2 access token (password and refresh_token grants); served beside /api/v4, not under it', auth: 'public',
    input: OAuthTokenInput, response: OAuthToken,
    run: (ctx, _params, input) => ctx.accessTokens.oauthToken(input),
    signInLogin: (input) => (input.grant_type === 'password' ? input.username : undefined),
  }),
};
