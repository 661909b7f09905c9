import { findUserOrFail } from './user-store.js';
import { can } from '../../auth/abilities.js';
import { generateToken, tokenDigest, verifyPassword } from '../../auth/secrets.js';
import { AccessToken, User } from '../../db/entities/index.js';
import { BadRequestError, NotFoundError, OAuthError, UnauthorizedError } from '../../errors.js';
import type {
  CreateTokenInput,
  ListAllTokensQuery,
  ListTokensQuery,
  OAuthToken,
  OAuthTokenInput,
  PersonalAccessToken,
  SessionInput,
} from '../../schemas/tokens.js';
import type { UserWithPrivateToken } from '../../schemas/users.js';
import { findPage, type Page, type PageQuery } from '../pagination.js';
import {
  presentIssuedToken,
  presentOAuthToken,
  presentToken,
  presentTokens,
  type TokenShapes,
  type UserTokenKind,
} from '../present/tokens.js';
import { presentUserWithPrivateToken } from '../present/users.js';
import { Service } from '../service.js';

const DAY = 24 * 60 * 60 * 1000;
const OAUTH_TOKEN_LIFETIME_SECONDS = 2 * 60 * 60;
const OAUTH_SCOPES = ['api', 'read_user', 'read_api', 'sudo'];

/**
 * A token's `expires_at` date is its last valid day: it stops working when the next day starts (UTC). A
 * timestamp is taken for its date, as the original service takes it.
 */
const expiryFromDate = (dateOrTimestamp: string): Date => new Date(Date.parse(`${dateOrTimestamp.slice(0, 10)}T00:00:00Z`) + DAY);
const earliest = (a: Date | null, b: Date | null): Date | null => (a && b ? (a < b ? a : b) : (a ?? b));

/** Tokens, sign-in (POST /session) and the OAuth password grant. */
export class AccessTokensService extends Service {
  /** Stores a new token's digest and returns the token: the only time it is ever seen. */
  private issue(
    user: User,
    kind: AccessToken['kind'],
    fields: { name: string; scopes: string[]; expiresAt?: Date | null; refreshToken?: string; createdAt?: Date },
  ): { token: string; record: AccessToken } {
    const token = generateToken();
    const record = this.em.create(AccessToken, {
      user,
      kind,
      name: fields.name,
      scopes: fields.scopes,
      tokenDigest: tokenDigest(token),
      refreshTokenDigest: fields.refreshToken ? tokenDigest(fields.refreshToken) : null,
      expiresAt: fields.expiresAt ?? null,
      // Given when an answer counts from it (an OAuth token's lifetime); otherwise the time it is stored.
      createdAt: fields.createdAt,
    });
    return { token, record };
  }

  /**
   * A private token for a password sign-in: full access to the account until `session_expire_delay`
   * minutes have passed (0: no time limit), the password changes or the user is blocked.
   */
  private async issueSessionToken(user: User): Promise<string> {
    const minutes = (await this.ctx.settings()).session_expire_delay;
    const now = this.ctx.now().getTime();
    // Sessions that ended are of no further use: each sign-in clears its user's.
    await this.em.nativeDelete(AccessToken, { user, kind: 'private', $or: [{ revoked: true }, { expiresAt: { $lte: new Date(now) } }] });
    const { token } = this.issue(user, 'private', {
      name: 'private token',
      scopes: [],
      expiresAt: minutes > 0 ? new Date(now + minutes * 60_000) : null,
    });
    await this.em.flush();
    return token;
  }

  /** When the password changes or the user is blocked: its sign-in sessions and OAuth tokens stop working. */
  async revokeSessions(user: User): Promise<void> {
    await this.em.nativeUpdate(
      AccessToken,
      { user, kind: { $in: ['private', 'oauth'] }, revoked: false },
      { revoked: true, refreshTokenDigest: null },
    );
  }

  /** One user's tokens of a kind, or everyone's (`owner` null: GET /personal_access_tokens by an administrator). */
  async list<Kind extends UserTokenKind>(
    owner: User | null,
    kind: Kind,
    query: ListTokensQuery & PageQuery,
  ): Promise<Page<TokenShapes[Kind]>> {
    const now = this.ctx.now();
    const state =
      query.state === 'active'
        ? { revoked: false, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] }
        : query.state === 'inactive'
          ? { $or: [{ revoked: true }, { expiresAt: { $lte: now } }] }
          : {};
    const page = await findPage(this.em, AccessToken, { ...(owner ? { user: owner } : {}), kind, ...state }, { id: 'asc' }, query);
    return { ...page, items: presentTokens(kind, page.items, await this.ctx.view()) };
  }

  async get<Kind extends UserTokenKind>(owner: User, kind: Kind, tokenId: number): Promise<TokenShapes[Kind]> {
    return presentToken(kind, await this.find(owner, kind, tokenId), await this.ctx.view());
  }

  async create<Kind extends UserTokenKind>(
    owner: User,
    kind: Kind,
    input: CreateTokenInput,
  ): Promise<TokenShapes[Kind] & { token: string }> {
    if (input.name.trim() === '') throw BadRequestError.invalid('name', "can't be blank");
    if (input.expires_at && input.expires_at.slice(0, 10) < this.ctx.today())
      throw BadRequestError.invalid('expires_at', 'must be in the future');
    const scopes = [...new Set(input.scopes)];
    // A token never outlives the token that created it (an administrator's expiring token, an OAuth token).
    const expiresAt = earliest(input.expires_at ? expiryFromDate(input.expires_at) : null, this.ctx.caller.token?.expiresAt ?? null);
    const { token, record } = this.issue(owner, kind, { name: input.name, scopes, expiresAt });
    await this.em.flush();
    return presentIssuedToken(kind, record, token, await this.ctx.view());
  }

  async revoke(owner: User, kind: UserTokenKind, tokenId: number): Promise<void> {
    const token = await this.find(owner, kind, tokenId);
    token.revoked = true;
    await this.em.flush();
  }

  /**
   * GET /personal_access_tokens: the caller's own tokens; an administrator's list has every user's, or one
   * user's with `user_id`.
   */
  async listVisible(query: ListAllTokensQuery & PageQuery): Promise<Page<PersonalAccessToken>> {
    const owner = !can(this.ctx.caller, 'read_all_resources')
      ? this.ctx.user
      : query.user_id !== undefined
        ? await findUserOrFail(this.em, query.user_id)
        : null;
    return this.list(owner, 'personal', query);
  }

  /** A personal access token by ID, whoever's it is: the route's ability decides who may see it. */
  findPersonal(tokenId: number): Promise<AccessToken | null> {
    return this.em.findOne(AccessToken, { id: tokenId, kind: 'personal' });
  }

  async present(token: AccessToken): Promise<PersonalAccessToken> {
    return presentToken('personal', token, await this.ctx.view());
  }

  async revokeToken(token: AccessToken): Promise<void> {
    token.revoked = true;
    await this.em.flush();
  }

  /** GET /personal_access_tokens/self: the token the call is authenticated with, if it is a personal access or impersonation token. */
  async current(): Promise<PersonalAccessToken> {
    const token = this.ctx.caller.token;
    if (!token || (token.kind !== 'personal' && token.kind !== 'impersonation')) throw new NotFoundError('Personal Access Token');
    return presentToken('personal', token, await this.ctx.view());
  }

  private async find(owner: User, kind: UserTokenKind, tokenId: number): Promise<AccessToken> {
    const token = await this.em.findOne(AccessToken, { id: tokenId, user: owner, kind });
    if (!token) throw new NotFoundError(kind === 'personal' ? 'Personal Access Token' : 'Impersonation Token');
    return token;
  }

  /**
   * Finds the user a password sign-in names, if the password is right and the user may sign in. A password is
   * checked whatever the login names, so that no answer comes sooner for an unknown or blocked user.
   */
  async signIn(login: string, password: string): Promise<User | null> {
    const lower = login.toLowerCase();
    const user = await this.em.findOne(User, { $or: [{ usernameLower: lower }, { email: lower }] });
    const mayTry = user !== null && user.state !== 'blocked' && (await this.ctx.settings()).password_authentication_enabled;
    const matches = await verifyPassword(mayTry ? (user.passwordHash ?? null) : null, password);
    return mayTry && matches ? user : null;
  }

  /** POST /session: the full user with a new private token. */
  async createSession(input: SessionInput): Promise<UserWithPrivateToken> {
    const login = input.login ?? input.email;
    if (login === undefined) throw BadRequestError.missing('login');
    const user = await this.signIn(login, input.password);
    if (!user) throw new UnauthorizedError();
    if (user.twoFactorEnabled) {
      throw new UnauthorizedError('401 Unauthorized. You have 2FA enabled. Please use a personal access token to access the API');
    }
    const now = this.ctx.now();
    user.lastSignInAt = user.currentSignInAt ?? now;
    user.currentSignInAt = now;
    user.lastActivityOn = now.toISOString().slice(0, 10);
    const token = await this.issueSessionToken(user);
    return presentUserWithPrivateToken(user, token, await this.ctx.view());
  }

  /** POST /oauth/token: the resource owner password credentials grant and the refresh token grant. */
  async oauthToken(input: OAuthTokenInput): Promise<OAuthToken> {
    if (input.grant_type === undefined) throw new OAuthError('invalid_request', 'The request is missing a required parameter: grant_type.');
    if (input.grant_type !== 'password' && input.grant_type !== 'refresh_token') {
      throw new OAuthError('unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.');
    }
    let user: User;
    let scopes: string[];
    if (input.grant_type === 'password') {
      if (input.username === undefined || input.password === undefined) {
        throw new OAuthError('invalid_request', 'The request is missing a required parameter: username and password.');
      }
      scopes = input.scope ? input.scope.split(/[\s+]+/).filter(Boolean) : ['api'];
      if (scopes.length === 0 || scopes.some((scope) => !OAUTH_SCOPES.includes(scope))) {
        throw new OAuthError('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
      }
      const found = await this.signIn(input.username, input.password);
      if (!found || found.twoFactorEnabled) throw invalidGrant();
      user = found;
    } else {
      if (input.refresh_token === undefined)
        throw new OAuthError('invalid_request', 'The request is missing a required parameter: refresh_token.');
      const digest = tokenDigest(input.refresh_token);
      const previous = await this.em.findOne(
        AccessToken,
        { refreshTokenDigest: digest, kind: 'oauth', revoked: false },
        { populate: ['user'] },
      );
      if (!previous || (previous.user as User).state === 'blocked') throw invalidGrant();
      // A refresh token is good for one refresh: of concurrent refreshes, only the one whose update still finds it wins.
      const claimed = await this.em.nativeUpdate(
        AccessToken,
        { id: previous.id, refreshTokenDigest: digest },
        { revoked: true, refreshTokenDigest: null },
      );
      if (claimed === 0) throw invalidGrant();
      user = previous.user as User;
      scopes = previous.scopes;
    }
    const refreshToken = generateToken(40);
    const createdAt = this.ctx.now();
    const { token: accessToken, record } = this.issue(user, 'oauth', {
      name: 'oauth',
      scopes,
      refreshToken,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + OAUTH_TOKEN_LIFETIME_SECONDS * 1000),
    });
    await this.em.flush();
    return presentOAuthToken(record, { accessToken, refreshToken }, await this.ctx.view());
  }
}

const invalidGrant = () =>
  new OAuthError(
    'invalid_grant',
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization ' +
      'request, or was issued to another client.',
    400,
  );
