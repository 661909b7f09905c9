import { Type, type Static } from 'typebox';
import {
  AdminOnly,
  BoundedText,
  DateOnly,
  DateTime,
  DateTimeInput,
  INT32_MAX,
  Nullable,
  PASSWORD_MAX,
  STRING_MAX,
  Upload,
} from './common.js';
import { CustomAttribute } from './custom-attributes.js';

const userState = Type.Union([Type.Literal('active'), Type.Literal('blocked')]);

/** The fields of UserBasic, which every user shape and members extend. */
const basicFields = {
  id: Type.Integer(),
  name: Type.String(),
  username: Type.String(),
  state: userState,
  avatar_url: Nullable(Type.String()),
  web_url: Type.String(),
};

const profileFields = {
  created_at: DateTime,
  bio: Nullable(Type.String()),
  location: Nullable(Type.String()),
  skype: Type.String(),
  linkedin: Type.String(),
  twitter: Type.String(),
  website_url: Type.String(),
  organization: Nullable(Type.String()),
};

const privateFields = {
  email: Type.String(),
  last_sign_in_at: Nullable(DateTime),
  confirmed_at: Nullable(DateTime),
  theme_id: Type.Integer(),
  last_activity_on: Nullable(DateOnly),
  color_scheme_id: Type.Integer(),
  projects_limit: Type.Integer(),
  current_sign_in_at: Nullable(DateTime),
  identities: Type.Array(Type.Object({ provider: Type.String(), extern_uid: Type.String() }, { additionalProperties: false })),
  can_create_group: Type.Boolean(),
  can_create_project: Type.Boolean(),
  two_factor_enabled: Type.Boolean(),
  external: Type.Boolean(),
};

/** Given with `with_custom_attributes=true` (administrators). */
const customAttributesField = { custom_attributes: Type.Optional(Type.Array(CustomAttribute)) };

const closed = { additionalProperties: false } as const;

/** The user reference embedded wherever a user appears; also the list item for normal callers. */
export const UserBasic = Type.Object({ ...basicFields, ...customAttributesField }, { ...closed, title: 'UserBasic' });
/** A single user as a normal caller sees it. */
export const UserProfile = Type.Object({ ...basicFields, ...profileFields, ...customAttributesField }, { ...closed, title: 'UserProfile' });
/** The current user as a normal caller sees it: the full shape without `is_admin`. */
export const UserSelf = Type.Object(
  { ...basicFields, ...profileFields, ...customAttributesField, ...privateFields },
  { ...closed, title: 'UserSelf' },
);
/** The full user, as administrators see any user. */
export const UserFull = Type.Object(
  { ...basicFields, ...profileFields, ...customAttributesField, ...privateFields, is_admin: Type.Boolean() },
  { ...closed, title: 'UserFull' },
);
/** The full user with the account's private token (POST /session; GET /user by an administrator). */
export const UserWithPrivateToken = Type.Object(
  { ...basicFields, ...profileFields, ...customAttributesField, ...privateFields, is_admin: Type.Boolean(), private_token: Type.String() },
  { ...closed, title: 'UserWithPrivateToken' },
);

export type UserBasic = Static<typeof UserBasic>;
export type UserProfile = Static<typeof UserProfile>;
export type UserSelf = Static<typeof UserSelf>;
export type UserFull = Static<typeof UserFull>;
export type UserWithPrivateToken = Static<typeof UserWithPrivateToken>;

export const ListUsersQuery = Type.Object({
  active: Type.Optional(Type.Boolean({ description: 'only active users (`true`; `false` is not supported)' })),
  blocked: Type.Optional(Type.Boolean({ description: 'only blocked users (`true`; `false` is not supported)' })),
  search: Type.Optional(BoundedText({ description: 'matches e-mail, username or name' })),
  username: Type.Optional(BoundedText()),
  extern_uid: Type.Optional(AdminOnly(BoundedText({ description: 'with `provider`' }), { forbiddenWith: 'provider' })),
  provider: Type.Optional(AdminOnly(BoundedText({ description: 'with `extern_uid`' }), { forbiddenWith: 'extern_uid' })),
  external: Type.Optional(AdminOnly(Type.Boolean(), 'forbidden')),
  admins: Type.Optional(AdminOnly(Type.Boolean({ description: 'only administrators (`true`)' }), 'ignored')),
  two_factor: Type.Optional(
    AdminOnly(Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], { description: 'by two-factor authentication' }), 'ignored'),
  ),
  created_before: Type.Optional(DateTimeInput),
  created_after: Type.Optional(DateTimeInput),
  custom_attributes: Type.Optional(
    // Keys and values as stored (255 characters); each pair is one more condition, and 50 is past any real filter.
    AdminOnly(
      Type.Record(Type.String(), BoundedText(), {
        maxProperties: 50,
        propertyNames: { maxLength: STRING_MAX },
        description: '`custom_attributes[key]=value`',
      }),
      'ignored',
    ),
  ),
  with_custom_attributes: Type.Optional(AdminOnly(Type.Boolean({ description: 'include custom attributes' }), 'ignored')),
  order_by: Type.Optional(
    Type.Union(
      [Type.Literal('id'), Type.Literal('name'), Type.Literal('username'), Type.Literal('created_at'), Type.Literal('updated_at')],
      {
        default: 'id',
      },
    ),
  ),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' })),
});
export type ListUsersQuery = Static<typeof ListUsersQuery>;

export const GetUserQuery = Type.Object({
  with_custom_attributes: Type.Optional(AdminOnly(Type.Boolean({ description: 'include custom attributes' }), 'ignored')),
});

/** Profile text: 255 characters each, as the original's columns (and its `bio` validation). */
const profileInput = {
  skype: Type.Optional(BoundedText()),
  linkedin: Type.Optional(BoundedText()),
  twitter: Type.Optional(BoundedText()),
  website_url: Type.Optional(BoundedText()),
  organization: Type.Optional(BoundedText()),
  projects_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })),
  extern_uid: Type.Optional(BoundedText()),
  provider: Type.Optional(BoundedText()),
  bio: Type.Optional(BoundedText()),
  location: Type.Optional(BoundedText()),
  admin: Type.Optional(Type.Boolean()),
  can_create_group: Type.Optional(Type.Boolean()),
  external: Type.Optional(Type.Boolean()),
  avatar: Type.Optional(Upload),
};

/** What creating and changing a user share: the profile, its limits and the administrator's flags. */
export const UserProfileInput = Type.Object(profileInput);
export type UserProfileInput = Static<typeof UserProfileInput>;

/** The original's limits (user.rb): e-mail and username 255 characters, name 128, password 128. */
const accountInput = {
  email: BoundedText(),
  username: BoundedText(),
  name: BoundedText({ maxLength: 128 }),
  password: BoundedText({ maxLength: PASSWORD_MAX }),
};

export const CreateUserInput = Type.Object({
  email: accountInput.email,
  username: accountInput.username,
  name: accountInput.name,
  password: Type.Optional(accountInput.password),
  reset_password: Type.Optional(Type.Boolean({ description: 'send a password reset instead of setting a password; wins over `password`' })),
  force_random_password: Type.Optional(
    Type.Boolean({ description: 'set an unknown random password, as newer clients ask; wins over `password`' }),
  ),
  skip_confirmation: Type.Optional(Type.Boolean({ default: false })),
  ...profileInput,
});
export type CreateUserInput = Static<typeof CreateUserInput>;

export const UpdateUserInput = Type.Object({
  email: Type.Optional(accountInput.email),
  username: Type.Optional(accountInput.username),
  name: Type.Optional(accountInput.name),
  password: Type.Optional(accountInput.password),
  ...profileInput,
});
export type UpdateUserInput = Static<typeof UpdateUserInput>;

export const DeleteUserInput = Type.Object({
  hard_delete: Type.Optional(Type.Boolean({ description: 'also delete contributions and groups solely owned by the user' })),
});

export const Version = Type.Object({ version: Type.String(), revision: Type.String() }, { additionalProperties: false, title: 'Version' });
export type Version = Static<typeof Version>;
