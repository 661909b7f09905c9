import type { Static, TObject, TSchema } from 'typebox';
import type { User } from '../db/entities/index.js';
import { CreateEmailInput, CreateGpgKeyInput, CreateSshKeyInput, Email, GpgKey, SshKey } from '../schemas/keys.js';
import type { Context } from '../services/context.js';
import type { Page, PageQuery } from '../services/pagination.js';
import { defineRoute } from './route.js';
import { EmailsService } from '../services/identity/emails.js';
import { GpgKeysService } from '../services/identity/gpg-keys.js';
import { SshKeysService } from '../services/identity/ssh-keys.js';
import { defineModule } from './module.js';
import * as keysSchemas from '../schemas/keys.js';
import * as keysTables from '../db/entities/keys.js';

/** An armored GPG key of up to a million characters, its line breaks escaped in JSON, and the fields around it. */
const GPG_KEY_BODY_LIMIT = 2 * 1024 * 1024;

/** A kind of what users own, as its service serves it (services/identity/user-items.ts). */
interface UserItems<Created, Shape> {
  list(owner: User, input: PageQuery): Promise<Page<Shape>>;
  get(owner: User, id: number): Promise<Shape>;
  create(owner: User, input: Created): Promise<Shape>;
  delete(owner: User, id: number): Promise<void>;
}

/**
 * The service as the factory's routes call it: their answers' types are the routes' declared shapes, which the
 * compiler cannot match with the service's for a shape it does not know yet (`service` is checked against
 * UserItems where each kind is declared below).
 */
type Served<Created> = {
  [Call in keyof UserItems<Created, unknown>]: (...args: Parameters<UserItems<Created, unknown>[Call]>) => Promise<never>;
};

/** What differs between the kinds' routes. */
interface UserItemsRoutes<
  Segment extends string,
  Id extends string,
  ListScope extends 'user' | 'userByIdOrUsername',
  Input extends TObject,
  Shape extends TSchema,
  Created,
> {
  /** The path segment (`keys`, `gpg_keys`, `emails`) and the item's path parameter (`key_id`, `email_id`). */
  segment: Segment;
  id: Id;
  shape: Shape;
  input: Input;
  service(ctx: Context): UserItems<Created, Static<Shape>>;
  /** `SSH keys`, `an SSH key`, and the like, as the summaries name them. */
  plural: string;
  singular: string;
  /** How the admin list names the user (newer clients name it by username on some), and a note on it for its summary. */
  listScope: ListScope;
  listNote?: string;
  createNote?: string;
  bodyLimit?: number;
}

/**
 * What users own by the dozen, written once: the current user's (`/user/<segment>`) and, for administrators, any
 * user's (`/users/:id/<segment>`), listed, read, added and deleted the same way.
 */
function userItemsRoutes<
  const Segment extends string,
  const Id extends string,
  const ListScope extends 'user' | 'userByIdOrUsername',
  Input extends TObject,
  Shape extends TSchema,
  Created,
>(kind: UserItemsRoutes<Segment, Id, ListScope, Input, Shape, Created>) {
  const { segment, shape, input, bodyLimit, plural, singular } = kind;
  const itemId = (params: object) => (params as Record<Id, number>)[kind.id];
  const served = (ctx: Context) => kind.service(ctx) as unknown as Served<Created>;
  return {
    list: defineRoute({
      method: 'GET',
      path: `/user/${segment}`,
      summary: `The current user's ${plural}`,
      auth: 'user',
      readUser: true,
      list: shape,
      run: (ctx, _params, query) => served(ctx).list(ctx.user, query),
    }),
    get: defineRoute({
      method: 'GET',
      path: `/user/${segment}/:${kind.id}`,
      summary: `One ${singular} of the current user`,
      auth: 'user',
      readUser: true,
      response: shape,
      run: (ctx, params) => served(ctx).get(ctx.user, itemId(params)),
    }),
    create: defineRoute({
      method: 'POST',
      path: `/user/${segment}`,
      summary: `Add ${singular} to the current user`,
      auth: 'user',
      input,
      bodyLimit,
      response: shape,
      run: (ctx, _params, given) => served(ctx).create(ctx.user, given as Created),
    }),
    delete: defineRoute({
      method: 'DELETE',
      path: `/user/${segment}/:${kind.id}`,
      summary: `Delete ${singular} of the current user`,
      auth: 'user',
      run: (ctx, params) => served(ctx).delete(ctx.user, itemId(params)),
    }),
    listForUser: defineRoute({
      method: 'GET',
      path: `/users/:id/${segment}`,
      summary: `A user's ${plural}${kind.listNote ?? ''}`,
      auth: 'admin',
      readUser: true,
      scope: kind.listScope,
      list: shape,
      run: (ctx, params, query) => served(ctx).list((params as { user: User }).user, query),
    }),
    getForUser: defineRoute({
      method: 'GET',
      path: `/users/:id/${segment}/:${kind.id}`,
      summary: `One of a user's ${plural}`,
      auth: 'admin',
      readUser: true,
      scope: 'user',
      response: shape,
      run: (ctx, params) => served(ctx).get(params.user, itemId(params)),
    }),
    createForUser: defineRoute({
      method: 'POST',
      path: `/users/:id/${segment}`,
      summary: `Add ${singular} to a user${kind.createNote ?? ''}`,
      auth: 'admin',
      scope: 'user',
      input,
      bodyLimit,
      response: shape,
      run: (ctx, params, given) => served(ctx).create(params.user, given as Created),
    }),
    deleteForUser: defineRoute({
      method: 'DELETE',
      path: `/users/:id/${segment}/:${kind.id}`,
      summary: `Delete a user's ${singular.replace(/^(an?) /, '')}`,
      auth: 'admin',
      scope: 'user',
      run: (ctx, params) => served(ctx).delete(params.user, itemId(params)),
    }),
  };
}

export const sshKeys = userItemsRoutes({
  segment: 'keys',
  id: 'key_id',
  shape: SshKey,
  input: CreateSshKeyInput,
  service: (ctx) => new SshKeysService(ctx),
  plural: 'SSH keys',
  singular: 'an SSH key',
  listScope: 'userByIdOrUsername',
  listNote: ' (the user by ID or, as newer clients send it, by username)',
});

export const gpgKeys = userItemsRoutes({
  segment: 'gpg_keys',
  id: 'key_id',
  shape: GpgKey,
  input: CreateGpgKeyInput,
  service: (ctx) => new GpgKeysService(ctx),
  plural: 'GPG keys',
  singular: 'a GPG key',
  bodyLimit: GPG_KEY_BODY_LIMIT,
  listScope: 'user',
  createNote: ' (`key`, or `key_id` as the reference spells it)',
});

export const emails = userItemsRoutes({
  segment: 'emails',
  id: 'email_id',
  shape: Email,
  input: CreateEmailInput,
  service: (ctx) => new EmailsService(ctx),
  plural: 'secondary e-mail addresses',
  singular: 'an e-mail address',
  listScope: 'user',
});

export const keysModule = defineModule({
  routes: { sshKeys, gpgKeys, emails },
  descriptions: {
    sshKeys: 'SSH keys of the current user, and of any user (administrators)',
    gpgKeys: 'GPG keys of the current user, and of any user (administrators)',
    emails: 'Secondary e-mail addresses of the current user, and of any user (administrators)',
  },
  schemas: { ...keysSchemas },
  entities: [keysTables.SshKey, keysTables.GpgKey, keysTables.Email],
});
