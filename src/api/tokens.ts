import { Type } from 'typebox';
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
  TokenIdPath,
  UserIdPath,
  UserTokenPath,
} from '../schemas/tokens.js';
import { defineRoute } from './route.js';

export const personalAccessTokens = {
  list: defineRoute({
    method: 'GET', path: '/users/:user_id/personal_access_tokens', summary: "A user's personal access tokens", auth: 'admin',
    params: UserIdPath, input: ListTokensQuery, response: Type.Array(PersonalAccessToken), paginated: true,
    run: async (ctx, { user_id }, input) => ctx.accessTokens.list(await ctx.users.find(user_id), 'personal', input),
  }),
  get: defineRoute({
    method: 'GET', path: '/users/:user_id/personal_access_tokens/:token_id', summary: "One of a user's personal access tokens", auth: 'admin',
    params: UserTokenPath, response: PersonalAccessToken,
    run: async (ctx, { user_id, token_id }) => ctx.accessTokens.get(await ctx.users.find(user_id), 'personal', token_id),
  }),
  create: defineRoute({
    method: 'POST', path: '/users/:user_id/personal_access_tokens', summary: 'Create a personal access token for a user (the token is shown once)', auth: 'admin',
    params: UserIdPath, input: CreateTokenInput, response: PersonalAccessTokenWithToken,
    run: async (ctx, { user_id }, input) => ctx.accessTokens.create(await ctx.users.find(user_id), 'personal', input),
  }),
  revoke: defineRoute({
    method: 'DELETE', path: '/users/:user_id/personal_access_tokens/:token_id', summary: "Revoke a user's personal access token", auth: 'admin',
    params: UserTokenPath,
    run: async (ctx, { user_id, token_id }) => ctx.accessTokens.revoke(await ctx.users.find(user_id), 'personal', token_id),
  }),
  listOwn: defineRoute({
    method: 'GET', path: '/personal_access_tokens', summary: "The caller's personal access tokens; an administrator's list has every user's, or one user's with `user_id`", auth: 'user',
    input: ListAllTokensQuery, response: Type.Array(PersonalAccessToken), paginated: true,
    run: async (ctx, _params, input) =>
      ctx.accessTokens.list(!ctx.isAdmin ? ctx.user : input.user_id !== undefined ? await ctx.users.find(input.user_id) : null, 'personal', input),
  }),
  getOwn: defineRoute({
    method: 'GET', path: '/personal_access_tokens/:token_id', summary: "One of the caller's personal access tokens (administrators: anyone's)", auth: 'user',
    params: TokenIdPath, response: PersonalAccessToken,
    run: (ctx, { token_id }) => ctx.accessTokens.getById(token_id),
  }),
  self: defineRoute({
    method: 'GET', path: '/personal_access_tokens/self', summary: 'The personal access (or impersonation) token the request is authenticated with', auth: 'user',
    response: PersonalAccessToken,
    run: async (ctx) => ctx.accessTokens.current(),
  }),
  revokeOwn: defineRoute({
    method: 'DELETE', path: '/personal_access_tokens/:token_id', summary: "Revoke one of the caller's personal access tokens (administrators: anyone's)", auth: 'user',
    params: TokenIdPath,
    run: (ctx, { token_id }) => ctx.accessTokens.revokeById(token_id),
  }),
};

export const impersonationTokens = {
  list: defineRoute({
    method: 'GET', path: '/users/:user_id/impersonation_tokens', summary: "A user's impersonation tokens", auth: 'admin',
    params: UserIdPath, input: ListTokensQuery, response: Type.Array(ImpersonationToken), paginated: true,
    run: async (ctx, { user_id }, input) => ctx.accessTokens.list(await ctx.users.find(user_id), 'impersonation', input),
  }),
  get: defineRoute({
    method: 'GET', path: '/users/:user_id/impersonation_tokens/:token_id', summary: "One of a user's impersonation tokens", auth: 'admin',
    params: UserTokenPath, response: ImpersonationToken,
    run: async (ctx, { user_id, token_id }) => ctx.accessTokens.get(await ctx.users.find(user_id), 'impersonation', token_id),
  }),
  create: defineRoute({
    method: 'POST', path: '/users/:user_id/impersonation_tokens', summary: 'Create an impersonation token for a user (the token is shown once)', auth: 'admin',
    params: UserIdPath, input: CreateTokenInput, response: ImpersonationTokenWithToken,
    run: async (ctx, { user_id }, input) => ctx.accessTokens.create(await ctx.users.find(user_id), 'impersonation', input),
  }),
  revoke: defineRoute({
    method: 'DELETE', path: '/users/:user_id/impersonation_tokens/:token_id', summary: "Revoke a user's impersonation token", auth: 'admin',
    params: UserTokenPath,
    run: async (ctx, { user_id, token_id }) => ctx.accessTokens.revoke(await ctx.users.find(user_id), 'impersonation', token_id),
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
