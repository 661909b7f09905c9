import { Type } from 'typebox';
import { BooleanResult, RawFile } from '../schemas/common.js';
import {
  CreateUserInput,
  DeleteUserInput,
  GetUserQuery,
  ListUsersQuery,
  UpdateUserInput,
  UserBasic,
  UserFull,
  UserProfile,
  UserSelf,
  UserWithPrivateToken,
} from '../schemas/users.js';
import { AVATAR_BODY_LIMIT, defineRoute, perCaller } from './route.js';
import { UsersService } from '../services/identity/users.js';
import { defineModule } from './module.js';
import * as usersSchemas from '../schemas/users.js';
import * as userTables from '../db/entities/user.js';

export const users = {
  list: defineRoute({
    method: 'GET',
    path: '/users',
    summary: 'List users: basic shapes for normal callers, full ones for administrators',
    auth: 'user',
    readUser: true,
    input: ListUsersQuery,
    list: perCaller(UserFull, UserBasic),
    run: (ctx, _params, input) => new UsersService(ctx).list(input),
  }),
  get: defineRoute({
    method: 'GET',
    path: '/users/:id',
    summary: 'A single user',
    auth: 'user',
    readUser: true,
    scope: 'user',
    ability: 'read_user',
    input: GetUserQuery,
    response: perCaller(UserFull, UserProfile),
    run: (ctx, { user }, input) => new UsersService(ctx).present(user, input),
  }),
  current: defineRoute({
    method: 'GET',
    path: '/user',
    summary: 'The current user (an administrator signed in with a private token also sees it)',
    auth: 'user',
    readUser: true,
    response: perCaller(Type.Union([UserFull, UserWithPrivateToken]), UserSelf),
    run: (ctx) => new UsersService(ctx).current(),
  }),
  create: defineRoute({
    method: 'POST',
    path: '/users',
    summary: 'Create a user',
    auth: 'admin',
    input: CreateUserInput,
    bodyLimit: AVATAR_BODY_LIMIT,
    response: UserFull,
    run: (ctx, _params, input) => new UsersService(ctx).create(input),
  }),
  update: defineRoute({
    method: 'PUT',
    path: '/users/:id',
    summary: 'Modify a user (a taken username or e-mail answers 404)',
    auth: 'admin',
    scope: 'user',
    input: UpdateUserInput,
    bodyLimit: AVATAR_BODY_LIMIT,
    response: UserFull,
    run: (ctx, { user }, input) => new UsersService(ctx).update(user, input),
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/users/:id',
    summary: 'Delete a user',
    auth: 'admin',
    scope: 'user',
    input: DeleteUserInput,
    run: (ctx, { user }, input) => new UsersService(ctx).delete(user, input),
  }),
  block: defineRoute({
    method: 'POST',
    path: '/users/:id/block',
    summary: 'Block a user: it can no longer authenticate',
    auth: 'admin',
    scope: 'user',
    response: BooleanResult,
    run: (ctx, { user }) => new UsersService(ctx).block(user),
  }),
  avatar: defineRoute({
    method: 'GET',
    path: '/uploads/-/system/user/avatar/:id/:filename',
    root: true,
    raw: true,
    keepsJsonSuffix: true,
    summary: "A user's uploaded avatar, the target of its `avatar_url`; served beside /api/v4",
    auth: 'public',
    response: RawFile,
    run: (ctx, { id, filename }) => new UsersService(ctx).avatar(id, filename),
  }),
  unblock: defineRoute({
    method: 'POST',
    path: '/users/:id/unblock',
    summary: 'Unblock a user',
    auth: 'admin',
    scope: 'user',
    response: BooleanResult,
    run: (ctx, { user }) => new UsersService(ctx).unblock(user),
  }),
};

export const usersModule = defineModule({
  routes: { users },
  descriptions: {
    users: 'Users: lists, profiles, avatars, the current user; creating, changing, blocking and deleting users (administrators)',
  },
  schemas: { ...usersSchemas },
  entities: [userTables.User, userTables.UserAvatar, userTables.Identity],
  migrations: [
    () => import('../db/migrations/Migration20261121000000_initial.js'),
    () => import('../db/migrations/Migration20261121000001_user_search.js'),
    () => import('../db/migrations/Migration20261122000000_email_owner.js'),
    () => import('../db/migrations/Migration20261122000002_user_filters.js'),
    () => import('../db/migrations/Migration20261123000000_callers_changed.js'),
    () => import('../db/migrations/Migration20261126000000_external_users.js'),
    () => import('../db/migrations/Migration20261126000001_callers_changed_flag.js'),
  ],
});
