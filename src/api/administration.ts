import { CustomAttribute, SetCustomAttributeInput } from '../schemas/custom-attributes.js';
import { ApplicationSettings, UpdateSettingsInput } from '../schemas/settings.js';
import { defineRoute } from './route.js';

export const customAttributes = {
  list: defineRoute({
    method: 'GET', path: '/users/:id/custom_attributes', summary: "A user's custom attributes", auth: 'admin',
    scope: 'user', list: CustomAttribute,
    run: (ctx, { user }, input) => ctx.customAttributes.list(user, input),
  }),
  get: defineRoute({
    method: 'GET', path: '/users/:id/custom_attributes/:key', summary: 'One custom attribute of a user', auth: 'admin',
    scope: 'user', response: CustomAttribute,
    run: (ctx, { user, key }) => ctx.customAttributes.get(user, key),
  }),
  set: defineRoute({
    method: 'PUT', path: '/users/:id/custom_attributes/:key', summary: 'Create or update a custom attribute of a user', auth: 'admin',
    scope: 'user', input: SetCustomAttributeInput, response: CustomAttribute,
    run: (ctx, { user, key }, { value }) => ctx.customAttributes.set(user, key, value),
  }),
  delete: defineRoute({
    method: 'DELETE', path: '/users/:id/custom_attributes/:key', summary: 'Delete a custom attribute of a user', auth: 'admin',
    scope: 'user',
    run: (ctx, { user, key }) => ctx.customAttributes.delete(user, key),
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
