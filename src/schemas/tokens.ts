import { Type, type Static } from 'typebox';
import { DateOnly, DateTime, Nullable, Pagination } from './common.js';

export const TokenScope = Type.Union([Type.Literal('api'), Type.Literal('read_user'), Type.Literal('read_api'), Type.Literal('sudo')]);
export type TokenScope = Static<typeof TokenScope>;

const tokenFields = {
  id: Type.Integer(),
  name: Type.String(),
  revoked: Type.Boolean(),
  created_at: DateTime,
  scopes: Type.Array(Type.String()),
  user_id: Type.Integer(),
  active: Type.Boolean(),
  expires_at: Nullable(DateOnly),
};

export const PersonalAccessToken = Type.Object(tokenFields, { additionalProperties: false, title: 'PersonalAccessToken' });
export const PersonalAccessTokenWithToken = Type.Object(
  { ...tokenFields, token: Type.String() },
  { additionalProperties: false, title: 'PersonalAccessTokenWithToken' },
);
export const ImpersonationToken = Type.Object(
  { ...tokenFields, impersonation: Type.Boolean() },
  { additionalProperties: false, title: 'ImpersonationToken' },
);
export const ImpersonationTokenWithToken = Type.Object(
  { ...tokenFields, impersonation: Type.Boolean(), token: Type.String() },
  { additionalProperties: false, title: 'ImpersonationTokenWithToken' },
);
export type PersonalAccessToken = Static<typeof PersonalAccessToken>;
export type PersonalAccessTokenWithToken = Static<typeof PersonalAccessTokenWithToken>;
export type ImpersonationToken = Static<typeof ImpersonationToken>;
export type ImpersonationTokenWithToken = Static<typeof ImpersonationTokenWithToken>;

export const ListTokensQuery = Type.Object({
  ...Pagination,
  state: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('active'), Type.Literal('inactive')], { default: 'all' })),
});
export type ListTokensQuery = Static<typeof ListTokensQuery>;

export const CreateTokenInput = Type.Object({
  name: Type.String({ maxLength: 255 }),
  scopes: Type.Array(TokenScope, { minItems: 1 }),
  expires_at: Type.Optional(Nullable(DateOnly)),
});
export type CreateTokenInput = Static<typeof CreateTokenInput>;

export const UserTokenPath = Type.Object({ user_id: Type.Integer(), token_id: Type.Integer() });
export const UserIdPath = Type.Object({ user_id: Type.Integer() });

export const ListAllTokensQuery = Type.Object({
  ...Pagination,
  user_id: Type.Optional(Type.Integer({ description: 'administrators only: the tokens of this user' })),
  state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
});
export const TokenIdPath = Type.Object({ token_id: Type.Integer() });

/** POST /oauth/token (resource owner password credentials and refresh token grants). */
export const OAuthTokenInput = Type.Object({
  // Any string passes validation: the service answers an unknown or missing grant type in the OAuth error shape.
  grant_type: Type.Optional(Type.Unsafe<'password' | 'refresh_token'>(Type.String({ description: '`password` or `refresh_token`' }))),
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  refresh_token: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String({ description: 'space-separated scopes; default `api`' })),
});
export type OAuthTokenInput = Static<typeof OAuthTokenInput>;

export const OAuthToken = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('bearer'),
    refresh_token: Type.String(),
    scope: Type.String(),
    created_at: Type.Integer(),
    expires_in: Type.Integer(),
  },
  { additionalProperties: false, title: 'OAuthToken' },
);
export type OAuthToken = Static<typeof OAuthToken>;

export const SessionInput = Type.Object({
  login: Type.Optional(Type.String({ description: 'username or e-mail' })),
  email: Type.Optional(Type.String({ description: 'required when `login` is not given' })),
  password: Type.String(),
});
export type SessionInput = Static<typeof SessionInput>;
