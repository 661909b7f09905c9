import { Type, type Static } from 'typebox';
import { BoundedText, DateOnly, ExpiryDate, Int32, LIST_MAX, Nullable } from './common.js';
import { UserBasic } from './users.js';

const closed = { additionalProperties: false } as const;

/**
 * A member of a project or a group: the user (UserBasic, as the original's Member entity extends it), its level there and the last day of
 * its membership.
 */
export const Member = Type.Object(
  { ...UserBasic.properties, access_level: Type.Integer(), expires_at: Nullable(DateOnly) },
  { ...closed, title: 'Member' },
);
export type Member = Static<typeof Member>;

export const ListMembersQuery = Type.Object({
  query: Type.Optional(BoundedText({ description: 'part of the name or the username' })),
  user_ids: Type.Optional(Type.Array(Int32(), { maxItems: LIST_MAX, description: 'only these users' })),
});
export type ListMembersQuery = Static<typeof ListMembersQuery>;

const accessLevel = Int32({ description: 'guest 10, reporter 20, developer 30, maintainer 40, owner 50 (groups only)' });

export const AddMemberInput = Type.Object({
  user_id: Int32({ description: 'the user to add' }),
  access_level: accessLevel,
  expires_at: Type.Optional(Nullable(ExpiryDate)),
});
export type AddMemberInput = Static<typeof AddMemberInput>;

export const EditMemberInput = Type.Object({ access_level: accessLevel, expires_at: Type.Optional(Nullable(ExpiryDate)) });
export type EditMemberInput = Static<typeof EditMemberInput>;

/** A project shared with a group. */
export const ProjectGroupLink = Type.Object(
  {
    id: Type.Integer(),
    project_id: Type.Integer(),
    group_id: Type.Integer(),
    group_access: Type.Integer(),
    expires_at: Nullable(DateOnly),
  },
  { ...closed, title: 'ProjectGroupLink' },
);
export type ProjectGroupLink = Static<typeof ProjectGroupLink>;

export const ShareProjectInput = Type.Object({
  group_id: Int32({ description: 'the group to share the project with' }),
  group_access: Int32({ description: 'the most its members get: guest 10 to maintainer 40' }),
  expires_at: Type.Optional(Nullable(ExpiryDate)),
});
export type ShareProjectInput = Static<typeof ShareProjectInput>;
