import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { belongsTo, createdAt, day, digest, timestamps } from './columns.js';
import { User } from './user.js';

/** Who may see a group or a project: anyone, any signed-in user who is not external, or members only. */
export const VISIBILITIES = ['private', 'internal', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
/** A visibility's place from the most closed: a subgroup or a project is no more open than its group. */
export const visibilityRank = (visibility: Visibility) => VISIBILITIES.indexOf(visibility);

/** A user's membership of a group or a project: its access level there, until the day it expires if it does. */
export const membership = () => ({
  user: belongsTo(User).index(),
  accessLevel: p.integer(),
  expiresAt: day().nullable(),
  createdAt: createdAt(),
});

/**
 * Where projects live: a user's own namespace (made with the user, named and renamed with its username) or a
 * group, which may sit in a parent group. `traversalIds` is the chain of group IDs from the top-level group
 * down to this one, so that a group's ancestors and descendants are one indexed condition each, however deep.
 * Paths are unique among siblings (top-level groups and users' namespaces share one level), regardless of case.
 */
export const Namespace = defineEntity({
  name: 'Namespace',
  tableName: 'namespaces',
  indexes: [
    {
      name: 'namespaces_traversal_ids_index',
      expression: 'create index "namespaces_traversal_ids_index" on "namespaces" using gin ("traversal_ids")',
    },
    {
      name: 'namespaces_full_path_lower_index',
      expression: 'create unique index "namespaces_full_path_lower_index" on "namespaces" (lower("full_path"))',
    },
    {
      name: 'namespaces_sibling_path_index',
      expression: 'create unique index "namespaces_sibling_path_index" on "namespaces" (coalesce("parent_id", 0), lower("path"))',
    },
  ],
  properties: {
    id: p.integer().primary(),
    kind: p.enum(['user', 'group'] as const),
    name: p.string().length(255),
    path: p.string().length(255),
    /** `parent/child`: the path of every ancestor, then this one's. */
    fullPath: p.text(),
    /** `Parent / Child`: the same with names. */
    fullName: p.text(),
    parent: () => belongsTo(Namespace).nullable().index(),
    /** A user namespace's user. */
    owner: belongsTo(User).nullable().unique(),
    traversalIds: p.array((id) => Number(id)).columnType('int[]'),
    description: p.text().default(''),
    visibility: p.enum(VISIBILITIES).default('private'),
    lfsEnabled: p.boolean().default(true),
    requestAccessEnabled: p.boolean().default(false),
    avatarFilename: p.string().length(255).nullable(),
    /** A group's token for registering its runners, sealed (src/auth/secret-box.ts): its owners see it. */
    runnersTokenSealed: p.text().nullable(),
    /** Its digest, by which a registering runner's token finds the group. */
    runnersTokenDigest: digest().nullable().unique(),
    ...timestamps(),
  },
});
export type Namespace = InferEntity<typeof Namespace>;

/** A user's membership of a group, which its subgroups and their projects inherit. */
export const GroupMember = defineEntity({
  name: 'GroupMember',
  tableName: 'group_members',
  uniques: [{ properties: ['group', 'user'] }],
  properties: {
    id: p.integer().primary(),
    group: belongsTo(Namespace),
    ...membership(),
  },
});
export type GroupMember = InferEntity<typeof GroupMember>;
