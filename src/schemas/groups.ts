import { Type, type Static } from 'typebox';
import { AdminOnly, BoundedText, DateOnly, ExpiryDate, Int32, LIST_MAX, Nullable } from './common.js';
import { ListProjectsQuery, Project, Visibility } from './projects.js';

const closed = { additionalProperties: false } as const;

/** `statistics=true` (administrators): what the group's projects store, in bytes. */
const GroupStatistics = Type.Object(
  { storage_size: Type.Integer(), repository_size: Type.Integer(), lfs_objects_size: Type.Integer(), job_artifacts_size: Type.Integer() },
  { ...closed, title: 'GroupStatistics' },
);

const groupFields = {
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  description: Type.String(),
  visibility: Visibility,
  lfs_enabled: Type.Boolean(),
  avatar_url: Nullable(Type.String()),
  web_url: Type.String(),
  request_access_enabled: Type.Boolean(),
  /** `Parent / Child`. */
  full_name: Type.String(),
  /** `parent/child`. */
  full_path: Type.String(),
  parent_id: Nullable(Type.Integer()),
  statistics: Type.Optional(GroupStatistics),
};

export const Group = Type.Object(groupFields, { ...closed, title: 'Group' });
export type Group = Static<typeof Group>;

/** A group this group is shared with (POST /groups/:id/share), as the group's details list it. */
export const GroupShare = Type.Object(
  {
    group_id: Type.Integer(),
    group_name: Type.String(),
    group_full_path: Type.String(),
    group_access_level: Type.Integer(),
    expires_at: Nullable(DateOnly),
  },
  { ...closed, title: 'GroupShare' },
);
export type GroupShare = Static<typeof GroupShare>;

/**
 * A group with the projects in it and the projects shared with it that the caller may see (the first 100 of
 * each, newest first: the original has no bound, forgekit's answers have one), and the groups it is shared with
 * that the caller may see (as later versions show them).
 */
export const GroupDetail = Type.Object(
  {
    ...groupFields,
    /** The token that registers the group's runners (POST /runners): for those who administer the group, as the original shows it. */
    runners_token: Type.Optional(Type.String()),
    projects: Type.Array(Project),
    shared_projects: Type.Array(Project),
    shared_with_groups: Type.Array(GroupShare),
  },
  { ...closed, title: 'GroupDetail' },
);
export type GroupDetail = Static<typeof GroupDetail>;

const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

export const ListGroupsQuery = Type.Object({
  skip_groups: Type.Optional(Type.Array(Int32(), { maxItems: LIST_MAX, description: 'IDs of groups to leave out' })),
  all_available: flag('every group the caller may see, not only those it is a member of (the default for administrators)'),
  search: Type.Optional(BoundedText({ description: 'part of the name or the path' })),
  order_by: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('path'), Type.Literal('id')])),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  statistics: Type.Optional(AdminOnly(Type.Boolean({ description: 'with each group’s storage statistics (administrators)' }), 'ignored')),
  owned: flag('groups the caller owns'),
});
export type ListGroupsQuery = Static<typeof ListGroupsQuery>;

/** The project filters, and which projects a group's list takes in (later clients send these two). */
export const ListGroupProjectsQuery = Type.Object({
  ...ListProjectsQuery.properties,
  with_shared: flag('with the projects shared with the group (the default)'),
  include_subgroups: flag("with the projects of the group's subgroups"),
});
export type ListGroupProjectsQuery = Static<typeof ListGroupProjectsQuery>;

const groupSettings = {
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  visibility: Type.Optional(Visibility),
  lfs_enabled: flag('Git LFS for its projects'),
  request_access_enabled: flag('users may ask for access'),
};

export const CreateGroupInput = Type.Object({
  name: BoundedText(),
  path: BoundedText(),
  parent_id: Type.Optional(Int32({ description: 'the parent group, for a subgroup' })),
  ...groupSettings,
});
export type CreateGroupInput = Static<typeof CreateGroupInput>;

/** At least one parameter. */
export const UpdateGroupInput = Type.Object({ name: Type.Optional(BoundedText()), path: Type.Optional(BoundedText()), ...groupSettings });
export type UpdateGroupInput = Static<typeof UpdateGroupInput>;

/** POST /groups/:id/share: the group to share with, the most its members get, and until when. */
export const ShareGroupInput = Type.Object({
  group_id: Int32({ description: 'the group to share the group with' }),
  group_access: Int32({ description: 'the most its members get: guest 10 to owner 50' }),
  expires_at: Type.Optional(Nullable(ExpiryDate)),
});
export type ShareGroupInput = Static<typeof ShareGroupInput>;

/** A group as a project's list of its groups shows it (the original's PublicGroupDetails). */
export const PublicGroup = Type.Object(
  {
    id: Type.Integer(),
    web_url: Type.String(),
    name: Type.String(),
    avatar_url: Nullable(Type.String()),
    full_name: Type.String(),
    full_path: Type.String(),
  },
  { ...closed, title: 'PublicGroup' },
);
export type PublicGroup = Static<typeof PublicGroup>;

/** GET /projects/:id/groups: the filters later clients send. */
export const ListProjectGroupsQuery = Type.Object({
  search: Type.Optional(BoundedText({ description: 'part of the name or the path' })),
  skip_groups: Type.Optional(Type.Array(Int32(), { maxItems: LIST_MAX, description: 'IDs of groups to leave out' })),
  with_shared: flag('with the groups the project is shared with'),
  shared_visible_only: flag('of the groups the project is shared with, only those the caller may see'),
  shared_min_access_level: Type.Optional(Int32({ description: 'only the shares that give at least this level' })),
});
export type ListProjectGroupsQuery = Static<typeof ListProjectGroupsQuery>;
