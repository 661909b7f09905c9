import { Type, type Static } from 'typebox';
import { AdminOnly, BoundedText, DateOnly, DateTime, ExpiryDate, Int32, LIST_MAX, Nullable, PASSWORD_MAX } from './common.js';

/**
 * The repository and registry scopes admit git and registry access, which forgekit does not serve over the
 * API: a token with only those scopes is refused by every API route (403 insufficient_scope).
 */
export const TokenScope = Type.Union([
  Type.Literal('api'),
  Type.Literal('read_user'),
  Type.Literal('read_api'),
  Type.Literal('sudo'),
  Type.Literal('read_repository'),
  Type.Literal('write_repository'),
  Type.Literal('read_registry'),
  Type.Literal('write_registry'),
]);
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
  state: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('active'), Type.Literal('inactive')], { default: 'all' })),
});
export type ListTokensQuery = Static<typeof ListTokensQuery>;

export const CreateTokenInput = Type.Object({
  name: BoundedText(),
  scopes: Type.Array(TokenScope, { minItems: 1, maxItems: LIST_MAX }),
  expires_at: Type.Optional(Nullable(ExpiryDate)),
});
export type CreateTokenInput = Static<typeof CreateTokenInput>;

export const ListAllTokensQuery = Type.Object({
  user_id: Type.Optional(AdminOnly(Int32({ description: 'the tokens of this user' }), 'ignored')),
  state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
});
export type ListAllTokensQuery = Static<typeof ListAllTokensQuery>;

/** POST /oauth/token (resource owner password credentials and refresh token grants). */
export const OAuthTokenInput = Type.Object({
  // Any string passes validation: the service answers an unknown or missing grant type in the OAuth error shape.
  grant_type: Type.Optional(Type.Unsafe<'password' | 'refresh_token'>(BoundedText({ description: '`password` or `refresh_token`' }))),
  username: Type.Optional(BoundedText()),
  password: Type.Optional(BoundedText({ maxLength: PASSWORD_MAX })),
  refresh_token: Type.Optional(BoundedText()),
  scope: Type.Optional(BoundedText({ description: 'space-separated scopes; default `api`' })),
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
  login: Type.Optional(BoundedText({ description: 'username or e-mail' })),
  email: Type.Optional(BoundedText({ description: 'required when `login` is not given' })),
  password: BoundedText({ maxLength: PASSWORD_MAX }),
});
export type SessionInput = Static<typeof SessionInput>;
