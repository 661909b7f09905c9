import { createHash } from 'node:crypto';
import type { CustomAttribute, Identity, User } from '../../db/entities/index.js';
import type { UserBasic, UserFull, UserProfile, UserSelf } from '../../schemas/users.js';

export interface UserPresentation {
  baseUrl: string;
  /** `avatarsvc_enabled`: users without an uploaded avatar get one from the avatar service. */
  avatarService: boolean;
}

export function avatarUrl(user: User, options: UserPresentation): string | null {
  if (user.avatarFilename) return `${options.baseUrl}/uploads/-/system/user/avatar/${user.id}/${encodeURIComponent(user.avatarFilename)}`;
  if (!options.avatarService) return null;
  const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
}

const iso = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

/** The user reference: embedded wherever a user appears, and the list item for normal callers. */
export function presentUserBasic(user: User, options: UserPresentation): UserBasic {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state as UserBasic['state'],
    avatar_url: avatarUrl(user, options),
    web_url: `${options.baseUrl}/${user.username}`,
  };
}

/** A single user as a normal caller sees it. */
export function presentUserProfile(user: User, options: UserPresentation): UserProfile {
  return {
    ...presentUserBasic(user, options),
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

/** The full shape without `is_admin`: the current user as a normal caller sees itself. */
export function presentUserSelf(user: User, identities: Identity[], options: UserPresentation): UserSelf {
  return {
    ...presentUserProfile(user, options),
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

/** The full user, as administrators see it. */
export function presentUserFull(user: User, identities: Identity[], options: UserPresentation): UserFull {
  return { ...presentUserSelf(user, identities, options), is_admin: user.admin };
}

export function presentCustomAttribute(attribute: CustomAttribute): { key: string; value: string } {
  return { key: attribute.key, value: attribute.value };
}
