import { Type } from 'typebox';
import { CustomAttribute, CustomAttributePath, SetCustomAttributeInput } from '../schemas/custom-attributes.js';
import { Pagination } from '../schemas/common.js';
import { ApplicationSettings, UpdateSettingsInput } from '../schemas/settings.js';
import { UserId } from '../schemas/users.js';
import { defineRoute } from './route.js';

export const customAttributes = {
  list: defineRoute({
    method: 'GET', path: '/users/:id/custom_attributes', summary: "A user's custom attributes", auth: 'admin',
    params: UserId, input: Type.Object(Pagination), response: Type.Array(CustomAttribute), paginated: true,
    run: async (ctx, { id }, input) => ctx.customAttributes.list(await ctx.users.find(id), input),
  }),
  get: defineRoute({
    method: 'GET', path: '/users/:id/custom_attributes/:key', summary: 'One custom attribute of a user', auth: 'admin',
    params: CustomAttributePath, response: CustomAttribute,
    run: async (ctx, { id, key }) => ctx.customAttributes.get(await ctx.users.find(id), key),
  }),
  set: defineRoute({
    method: 'PUT', path: '/users/:id/custom_attributes/:key', summary: 'Create or update a custom attribute of a user', auth: 'admin',
    params: CustomAttributePath, input: SetCustomAttributeInput, response: CustomAttribute,
    run: async (ctx, { id, key }, { value }) => ctx.customAttributes.set(await ctx.users.find(id), key, value),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/users/:id/custom_attributes/:key', summary: 'Delete a custom attribute of a user', auth: 'admin',
    params: CustomAttributePath,
    run: async (ctx, { id, key }) => ctx.customAttributes.delete(await ctx.users.find(id), key),
  }),
};

export const applicationSettings = {
  get: defineRoute({
    method: 'GET', path: '/application/settings', summary: 'The application settings', auth: 'admin',
    response: ApplicationSettings,
    run: (ctx) => ctx.applicationSettings.get(),
  }),
  update: defineRoute({
    method: 'PUT', path: '/application/settings', summary: 'Change application settings', auth: 'admin',
    input: UpdateSettingsInput, response: ApplicationSettings,
    run: (ctx, _params, input) => ctx.applicationSettings.update(input),
  }),
};
