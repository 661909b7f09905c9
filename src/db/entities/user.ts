import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, day, image, timestamps, updatedAt } from './columns.js';

/** Trigram indexes serve `search` (a case-insensitive substring match) on these columns. */
const trigramIndex = (column: string) => ({
  name: `users_${column}_trgm_index`,
  expression: `create index "users_${column}_trgm_index" on "users" using gin ("${column}" gin_trgm_ops)`,
});

/**
 * One e-mail address belongs to one user, as a primary (`users.email`) or a secondary (`emails.email`)
 * address: each table's unique constraint covers itself, this trigger on both covers the pair. Writers of
 * one address take the same transaction lock first, so each sees the other's committed row.
 */
export function claimEmailTrigger(otherTable: string, otherOwner: string, ownOwner: string) {
  return {
    name: 'claim_email',
    timing: 'before' as const,
    events: ['insert' as const, 'update' as const],
    body:
      `perform pg_advisory_xact_lock(774202, hashtext(new.email)); if exists (select 1 from ${otherTable} where email = new.email ` +
      `and ${otherOwner} <> new.${ownOwner}) then raise unique_violation using constraint = 'email_addresses_unique', ` +
      `message = 'the e-mail address belongs to another user'; end if; return new;`,
  };
}

/** Announces a change of users or tokens to every process on the database: each keeps its callers (src/auth/caller.ts). */
export const CALLERS_CHANGED_CHANNEL = 'forgekit_callers_changed';

/**
 * A NOTIFY on `CALLERS_CHANGED_CHANNEL` after every statement that changes or removes rows of the table, committed with
 * it, and a mark on the transaction (`forgekit.callers_changed`, local to it) that the writing process reads.
 */
export const callersChangedTrigger = {
  name: 'callers_changed',
  timing: 'after' as const,
  events: ['update' as const, 'delete' as const],
  forEach: 'statement' as const,
  body: `perform pg_notify('${CALLERS_CHANGED_CHANNEL}', ''); perform set_config('forgekit.callers_changed', 'on', true); return null;`,
};

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  indexes: [trigramIndex('name'), trigramIndex('username'), trigramIndex('email')],
  triggers: [claimEmailTrigger('emails', 'user_id', 'id'), callersChangedTrigger],
  properties: {
    id: p.integer().primary(),
    username: p.string().length(255),
    // Usernames are unique regardless of case, as on the original service.
    usernameLower: p.string().length(255).unique(),
    name: p.string().length(255),
    email: p.string().length(255).unique(),
    passwordHash: p.text().nullable(),
    // Set when an administrator changed the password: the user must change it at next sign-in.
    passwordExpiresAt: p.datetime().nullable(),
    state: p.string().length(16).default('active').index(),
    admin: p.boolean().default(false).index(),
    external: p.boolean().default(false).index(),
    bio: p.text().nullable(),
    location: p.string().length(255).nullable(),
    skype: p.string().length(255).default(''),
    linkedin: p.string().length(255).default(''),
    twitter: p.string().length(255).default(''),
    websiteUrl: p.string().length(255).default(''),
    organization: p.string().length(255).nullable(),
    projectsLimit: p.integer(),
    canCreateGroup: p.boolean().default(true),
    twoFactorEnabled: p.boolean().default(false).index(),
    themeId: p.integer().default(1),
    colorSchemeId: p.integer().default(1),
    confirmedAt: p.datetime().nullable(),
    lastSignInAt: p.datetime().nullable(),
    currentSignInAt: p.datetime().nullable(),
    lastActivityOn: day().nullable(),
    avatarFilename: p.string().length(255).nullable(),
    createdAt: createdAt().index(),
    updatedAt: updatedAt(),
  },
});
export type User = InferEntity<typeof User>;

/** An uploaded avatar, kept apart from the user row so that listing users never loads image bytes. */
export const UserAvatar = defineEntity({
  name: 'UserAvatar',
  tableName: 'user_avatars',
  properties: {
    user: () => p.oneToOne(User).primary().owner().deleteRule('cascade'),
    ...image(),
  },
});
export type UserAvatar = InferEntity<typeof UserAvatar>;

/** A row a user owns (a key, an address, an identity): its own ID, and its user, with whom it is removed. */
export const userItem = () => ({
  id: p.integer().primary(),
  user: belongsTo(User).index(),
});

/** An external identity (provider + extern_uid) linked to a user. */
export const Identity = defineEntity({
  name: 'Identity',
  tableName: 'identities',
  uniques: [{ properties: ['provider', 'externUid'] }],
  properties: {
    ...userItem(),
    provider: p.string().length(255),
    externUid: p.string().length(255),
  },
});
export type Identity = InferEntity<typeof Identity>;

export const CustomAttribute = defineEntity({
  name: 'CustomAttribute',
  tableName: 'user_custom_attributes',
  uniques: [{ properties: ['user', 'key'] }],
  indexes: [{ properties: ['key', 'value'] }],
  properties: {
    id: p.integer().primary(),
    user: belongsTo(User),
    key: p.string().length(255),
    value: p.string().length(255),
    ...timestamps(),
  },
});
export type CustomAttribute = InferEntity<typeof CustomAttribute>;
