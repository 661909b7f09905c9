import { can } from '../../auth/abilities.js';
import { createHash } from 'node:crypto';
import { CustomAttribute, Identity, type User } from '../../db/entities/index.js';
import { keyOf, readRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import type { UserBasic, UserFull, UserProfile, UserSelf, UserWithPrivateToken } from '../../schemas/users.js';
import { presentCustomAttributes } from './custom-attributes.js';
import type { View } from './view.js';

/** `with_custom_attributes`: administrators may ask for each user's custom attributes. */
export interface UserRelations {
  withCustomAttributes?: boolean;
}

const avatarUrl = (user: User, view: View) => userAvatarUrl(user, view.baseUrl, view.settings.avatarsvc_enabled);

/** A user's avatar: uploaded, else (`avatarsvc_enabled`) one from the avatar service. */
export function userAvatarUrl(user: Pick<User, 'id' | 'email' | 'avatarFilename'>, baseUrl: string, avatarService: boolean): string | null {
  if (user.avatarFilename) return `${baseUrl}/uploads/-/system/user/avatar/${user.id}/${encodeURIComponent(user.avatarFilename)}`;
  if (!avatarService) return null;
  const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
}

const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

/** What presentUserBasic reads: lists of user references read these columns only. */
export const USER_BASIC_FIELDS = ['id', 'name', 'username', 'state', 'email', 'avatarFilename'] as const;

/** The user reference: embedded wherever a user appears, and the list item for normal callers. */
export function presentUserBasic(user: User, view: View): UserBasic {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state as UserBasic['state'],
    avatar_url: avatarUrl(user, view),
    web_url: `${view.baseUrl}/${user.username}`,
  };
}

function profileOf(user: User, view: View): UserProfile {
  return {
    ...presentUserBasic(user, view),
    created_at: user.createdAt.toISOString(),
    bio: user.bio ?? null,
    location: user.location ?? null,
    skype: user.skype,
    linkedin: user.linkedin,
    twitter: user.twitter,
    website_url: user.websiteUrl,
    organization: user.organization ?? null,
  };
}

/** The full shape without `is_admin`. */
function selfOf(user: User, identities: Identity[], view: View): UserSelf {
  return {
    ...profileOf(user, view),
    email: user.email,
    last_sign_in_at: iso(user.lastSignInAt),
    confirmed_at: iso(user.confirmedAt),
    theme_id: user.themeId,
    last_activity_on: user.lastActivityOn ?? null,
    color_scheme_id: user.colorSchemeId,
    projects_limit: user.projectsLimit,
    current_sign_in_at: iso(user.currentSignInAt),
    identities: identities.map((identity) => ({ provider: identity.provider, extern_uid: identity.externUid })),
    can_create_group: user.canCreateGroup,
    can_create_project: user.projectsLimit > 0,
    two_factor_enabled: user.twoFactorEnabled,
    external: user.external,
  };
}

/** Rows that belong to users, grouped by user ID. */
function groupByUser<Row extends { user: unknown }>(rows: Row[]): Map<number, Row[]> {
  const grouped = new Map<number, Row[]>();
  for (const row of rows) {
    const userId = keyOf(row.user);
    const list = grouped.get(userId);
    if (list) list.push(row);
    else grouped.set(userId, [row]);
  }
  return grouped;
}

/** The identities of a page of users, in one query (on every GET /user and page of users: read as plain rows). */
async function identitiesOf(users: Readonly<User>[], view: View): Promise<Map<number, Identity[]>> {
  const ids = users.map((user) => user.id);
  return groupByUser(await readRows(view.rows, Identity, sql`select * from "identities" where "user_id" = any(${ids}) order by "id"`));
}

/** Full shapes of a page of users: its identities (and custom attributes) read in one query each. */
export async function presentUsersFull(users: User[], view: View, relations: UserRelations = {}): Promise<UserFull[]> {
  if (users.length === 0) return [];
  const identities = await identitiesOf(users, view);
  const attributes = relations.withCustomAttributes
    ? groupByUser(await view.em.find(CustomAttribute, { user: { $in: users.map((user) => user.id) } }, { orderBy: { key: 'asc' } }))
    : undefined;
  return users.map((user) => {
    const full: UserFull = { ...selfOf(user, identities.get(user.id) ?? [], view), is_admin: user.admin };
    if (attributes) full.custom_attributes = presentCustomAttributes(attributes.get(user.id) ?? [], view);
    return full;
  });
}

export async function presentUserFull(user: User, view: View, relations: UserRelations = {}): Promise<UserFull> {
  return (await presentUsersFull([user], view, relations))[0];
}

/** A page of users as the viewer may see them: full shapes for administrators, references for others. */
export async function presentUsers(users: User[], view: View, relations: UserRelations = {}): Promise<(UserBasic | UserFull)[]> {
  if (can(view.caller, 'read_all_resources')) return presentUsersFull(users, view, relations);
  return users.map((user) => presentUserBasic(user, view));
}

/** One user as the viewer may see it: the profile for normal callers, the full user for administrators. */
export async function presentUser(user: User, view: View, relations: UserRelations = {}): Promise<UserProfile | UserFull> {
  return can(view.caller, 'read_all_resources') ? presentUserFull(user, view, relations) : profileOf(user, view);
}

/** The full user with the account's private token: the answer to POST /session. */
export async function presentUserWithPrivateToken(user: User, privateToken: string, view: View): Promise<UserWithPrivateToken> {
  return { ...(await presentUserFull(user, view)), private_token: privateToken };
}

/**
 * GET /user: the full user, without `is_admin` for a normal caller. An administrator who signed in with a
 * private token also sees it; tokens are stored as digests, so no other private token can be shown.
 */
export async function presentCurrentUser(user: User, view: View): Promise<UserSelf | UserFull | UserWithPrivateToken> {
  if (!can(view.caller, 'read_all_resources')) return selfOf(user, (await identitiesOf([user], view)).get(user.id) ?? [], view);
  const privateToken = view.caller.privateToken;
  return privateToken ? presentUserWithPrivateToken(user, privateToken, view) : presentUserFull(user, view);
}
