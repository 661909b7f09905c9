import type { AccessToken, User } from '../../db/entities/index.js';
import type { ImpersonationToken, OAuthToken, PersonalAccessToken } from '../../schemas/tokens.js';
import type { View } from './view.js';

/** The tokens a user (or an administrator for it) lists, creates and revokes by ID. */
export type UserTokenKind = 'personal' | 'impersonation';

export interface TokenShapes {
  personal: PersonalAccessToken;
  impersonation: ImpersonationToken;
}

/** The last day on which a token works: the day before a midnight expiry, the day of any other. */
const dateFromExpiry = (expiry: Date): string => new Date(expiry.getTime() - 1).toISOString().slice(0, 10);

export function presentImpersonationTokens(tokens: AccessToken[], view: View): ImpersonationToken[] {
  const now = view.now().getTime();
  return tokens.map((token) => {
    const expired = token.expiresAt !== null && token.expiresAt !== undefined && token.expiresAt.getTime() <= now;
    return {
      id: token.id,
      name: token.name,
      revoked: token.revoked,
      created_at: token.createdAt.toISOString(),
      scopes: token.scopes,
      user_id: (token.user as User).id,
      active: !token.revoked && !expired,
      expires_at: token.expiresAt ? dateFromExpiry(token.expiresAt) : null,
      impersonation: token.kind === 'impersonation',
    };
  });
}

/** The impersonation shape without `impersonation`: a personal access token's answer never says. */
export function presentPersonalAccessTokens(tokens: AccessToken[], view: View): PersonalAccessToken[] {
  return presentImpersonationTokens(tokens, view).map(({ impersonation: _, ...shape }) => shape);
}

const presenters: { [Kind in UserTokenKind]: (tokens: AccessToken[], view: View) => TokenShapes[Kind][] } = {
  personal: presentPersonalAccessTokens,
  impersonation: presentImpersonationTokens,
};

/** Tokens of one kind, in that kind's shape. */
export function presentTokens<Kind extends UserTokenKind>(kind: Kind, tokens: AccessToken[], view: View): TokenShapes[Kind][] {
  return presenters[kind](tokens, view);
}

export const presentToken = <Kind extends UserTokenKind>(kind: Kind, token: AccessToken, view: View): TokenShapes[Kind] =>
  presentTokens(kind, [token], view)[0];

/** A token just issued: its shape and, this once, the token itself (only its digest is stored). */
export function presentIssuedToken<Kind extends UserTokenKind>(
  kind: Kind,
  record: AccessToken,
  token: string,
  view: View,
): TokenShapes[Kind] & { token: string } {
  return { ...presentToken(kind, record, view), token };
}

/** POST /oauth/token: the access token just issued, with the refresh token issued beside it. */
export function presentOAuthToken(record: AccessToken, secrets: { accessToken: string; refreshToken: string }, _view: View): OAuthToken {
  return {
    access_token: secrets.accessToken,
    token_type: 'bearer',
    refresh_token: secrets.refreshToken,
    scope: record.scopes.join(' '),
    created_at: Math.floor(record.createdAt.getTime() / 1000),
    // An OAuth access token always expires.
    expires_in: Math.round(((record.expiresAt as Date).getTime() - record.createdAt.getTime()) / 1000),
  };
}
