import type { AccessToken, User } from '../../db/entities/index.js';
import type { Caller } from '../caller.js';
import { definePolicy } from '../policy.js';

const admin = (caller: Caller) => caller.user?.admin === true;

/**
 * What the instance lets a caller do beyond any one subject: administrators see every resource and every private
 * field (`read_all_resources`), give administrators' parameters, read anyone's tokens and use restricted visibility
 * levels (`admin_all_resources`); top-level groups are made by those allowed to (`can_create_group`).
 */
export const globalPolicy = definePolicy({
  abilities: ['read_all_resources', 'admin_all_resources', 'create_group'],
  conditions: {
    admin,
    can_create_group: (caller: Caller, _subject: null) => caller.user?.canCreateGroup === true,
  },
  rules: [
    { when: (is) => is.admin, enable: ['read_all_resources', 'admin_all_resources', 'create_group'] },
    { when: (is) => is.can_create_group, enable: ['create_group'] },
  ],
});

/** Every signed-in caller sees every user's public profile; anonymous callers none. */
export const userPolicy = definePolicy({
  abilities: ['read_user'],
  conditions: { signed_in: (caller: Caller, _user: User) => caller.user !== null },
  rules: [{ when: (is) => is.signed_in, enable: ['read_user'] }],
  hidden: { abilities: 'all' },
});

/** A personal access token is its owner's, and any administrator's, to see and revoke. */
export const personalAccessTokenPolicy = definePolicy({
  abilities: ['manage_personal_access_token'],
  conditions: {
    admin,
    owner: (caller: Caller, token: AccessToken) => caller.user !== null && (token.user as User).id === caller.user.id,
  },
  rules: [{ when: (is) => is.owner || is.admin, enable: ['manage_personal_access_token'] }],
  hidden: { abilities: 'all' },
});
