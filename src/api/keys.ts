import { CreateEmailInput, CreateGpgKeyInput, CreateSshKeyInput, Email, GpgKey, SshKey } from '../schemas/keys.js';
import { defineRoute } from './route.js';

/** An armored GPG key of up to a million characters, its line breaks escaped in JSON, and the fields around it. */
const GPG_KEY_BODY_LIMIT = 2 * 1024 * 1024;

export const sshKeys = {
  list: defineRoute({
    method: 'GET', path: '/user/keys', summary: "The current user's SSH keys", auth: 'user', readUser: true,
    list: SshKey,
    run: (ctx, _params, input) => ctx.sshKeys.list(ctx.user, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/user/keys/:key_id', summary: 'One SSH key of the current user', auth: 'user', readUser: true,
    response: SshKey,
    run: (ctx, { key_id }) => ctx.sshKeys.get(ctx.user, key_id),
  }),
  create: defineRoute({
    method: 'POST', path: '/user/keys', summary: 'Add an SSH key to the current user', auth: 'user',
    input: CreateSshKeyInput, response: SshKey,
    run: (ctx, _params, input) => ctx.sshKeys.create(ctx.user, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/user/keys/:key_id', summary: 'Delete an SSH key of the current user', auth: 'user',
    run: (ctx, { key_id }) => ctx.sshKeys.delete(ctx.user, key_id),
  }),
  listForUser: defineRoute({
    method: 'GET', path: '/users/:id/keys', summary: "A user's SSH keys (the user by ID or, as newer clients send it, by username)", auth: 'admin', readUser: true,
    scope: 'userByIdOrUsername', list: SshKey,
    run: (ctx, { user }, input) => ctx.sshKeys.list(user, input),
  }),
  getForUser: defineRoute({
    method: 'GET', path: '/users/:id/keys/:key_id', summary: "One of a user's SSH keys", auth: 'admin', readUser: true,
    scope: 'user', response: SshKey,
    run: (ctx, { user, key_id }) => ctx.sshKeys.get(user, key_id),
  }),
  createForUser: defineRoute({
    method: 'POST', path: '/users/:id/keys', summary: 'Add an SSH key to a user', auth: 'admin',
    scope: 'user', input: CreateSshKeyInput, response: SshKey,
    run: (ctx, { user }, input) => ctx.sshKeys.create(user, input),
  }),
  deleteForUser: defineRoute({
    method: 'DELETE', path: '/users/:id/keys/:key_id', summary: "Delete a user's SSH key", auth: 'admin',
    scope: 'user',
    run: (ctx, { user, key_id }) => ctx.sshKeys.delete(user, key_id),
  }),
};

export const gpgKeys = {
  list: defineRoute({
    method: 'GET', path: '/user/gpg_keys', summary: "The current user's GPG keys", auth: 'user', readUser: true,
    list: GpgKey,
    run: (ctx, _params, input) => ctx.gpgKeys.list(ctx.user, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/user/gpg_keys/:key_id', summary: 'One GPG key of the current user', auth: 'user', readUser: true,
    response: GpgKey,
    run: (ctx, { key_id }) => ctx.gpgKeys.get(ctx.user, key_id),
  }),
  create: defineRoute({
    method: 'POST', path: '/user/gpg_keys', summary: 'Add a GPG key to the current user', auth: 'user',
    input: CreateGpgKeyInput, bodyLimit: GPG_KEY_BODY_LIMIT, response: GpgKey,
    run: (ctx, _params, input) => ctx.gpgKeys.create(ctx.user, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/user/gpg_keys/:key_id', summary: 'Delete a GPG key of the current user', auth: 'user',
    run: (ctx, { key_id }) => ctx.gpgKeys.delete(ctx.user, key_id),
  }),
  listForUser: defineRoute({
    method: 'GET', path: '/users/:id/gpg_keys', summary: "A user's GPG keys", auth: 'admin', readUser: true,
    scope: 'user', list: GpgKey,
    run: (ctx, { user }, input) => ctx.gpgKeys.list(user, input),
  }),
  getForUser: defineRoute({
    method: 'GET', path: '/users/:id/gpg_keys/:key_id', summary: "One of a user's GPG keys", auth: 'admin', readUser: true,
    scope: 'user', response: GpgKey,
    run: (ctx, { user, key_id }) => ctx.gpgKeys.get(user, key_id),
  }),
  createForUser: defineRoute({
    method: 'POST', path: '/users/:id/gpg_keys', summary: 'Add a GPG key to a user (`key`, or `key_id` as the reference spells it)', auth: 'admin',
    scope: 'user', input: CreateGpgKeyInput, bodyLimit: GPG_KEY_BODY_LIMIT, response: GpgKey,
    run: (ctx, { user }, input) => ctx.gpgKeys.create(user, input),
  }),
  deleteForUser: defineRoute({
    method: 'DELETE', path: '/users/:id/gpg_keys/:key_id', summary: "Delete a user's GPG key", auth: 'admin',
    scope: 'user',
    run: (ctx, { user, key_id }) => ctx.gpgKeys.delete(user, key_id),
  }),
};

export const emails = {
  list: defineRoute({
    method: 'GET', path: '/user/emails', summary: "The current user's secondary e-mail addresses", auth: 'user', readUser: true,
    list: Email,
    run: (ctx, _params, input) => ctx.emails.list(ctx.user, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/user/emails/:email_id', summary: 'One e-mail address of the current user', auth: 'user', readUser: true,
    response: Email,
    run: (ctx, { email_id }) => ctx.emails.get(ctx.user, email_id),
  }),
  create: defineRoute({
    method: 'POST', path: '/user/emails', summary: 'Add an e-mail address to the current user', auth: 'user',
    input: CreateEmailInput, response: Email,
    run: (ctx, _params, input) => ctx.emails.create(ctx.user, input),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/user/emails/:email_id', summary: 'Delete an e-mail address of the current user', auth: 'user',
    run: (ctx, { email_id }) => ctx.emails.delete(ctx.user, email_id),
  }),
  listForUser: defineRoute({
    method: 'GET', path: '/users/:id/emails', summary: "A user's secondary e-mail addresses", auth: 'admin', readUser: true,
    scope: 'user', list: Email,
    run: (ctx, { user }, input) => ctx.emails.list(user, input),
  }),
  getForUser: defineRoute({
    method: 'GET', path: '/users/:id/emails/:email_id', summary: "One of a user's secondary e-mail addresses", auth: 'admin', readUser: true,
    scope: 'user', response: Email,
    run: (ctx, { user, email_id }) => ctx.emails.get(user, email_id),
  }),
  createForUser: defineRoute({
    method: 'POST', path: '/users/:id/emails', summary: 'Add an e-mail address to a user', auth: 'admin',
    scope: 'user', input: CreateEmailInput, response: Email,
    run: (ctx, { user }, input) => ctx.emails.create(user, input),
  }),
  deleteForUser: defineRoute({
    method: 'DELETE', path: '/users/:id/emails/:email_id', summary: "Delete a user's e-mail address", auth: 'admin',
    scope: 'user',
    run: (ctx, { user, email_id }) => ctx.emails.delete(user, email_id),
  }),
};
