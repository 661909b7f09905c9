import { CustomAttribute, SetCustomAttributeInput } from '../schemas/custom-attributes.js';
import { ApplicationSettings, UpdateSettingsInput } from '../schemas/settings.js';
import { defineRoute } from './route.js';
import { adminUserItems, adminUserRoute } from './scoped.js';

const customAttribute = adminUserItems({ path: '/custom_attributes', id: 'key', service: (ctx) => ctx.customAttributes });

export const customAttributes = {
  list: customAttribute.list({
    summary: "A user's custom attributes",
    list: CustomAttribute,
  }),
  get: customAttribute.get({
    summary: 'One custom attribute of a user',
    response: CustomAttribute,
  }),
  set: adminUserRoute({
    method: 'PUT',
    path: '/custom_attributes/:key',
    summary: 'Create or update a custom attribute of a user',
    input: SetCustomAttributeInput,
    response: CustomAttribute,
    run: (ctx, { user, key }, { value }) => ctx.customAttributes.set(user, key, value),
  }),
  delete: customAttribute.delete({
    summary: 'Delete a custom attribute of a user',
  }),
};

export const applicationSettings = {
  get: defineRoute({
    method: 'GET',
    path: '/application/settings',
    summary: 'The application settings',
    auth: 'admin',
    response: ApplicationSettings,
    run: (ctx) => ctx.applicationSettings.get(),
  }),
  update: defineRoute({
    method: 'PUT',
    path: '/application/settings',
    summary: 'Change application settings',
    auth: 'admin',
    input: UpdateSettingsInput,
    response: ApplicationSettings,
    run: (ctx, _params, input) => ctx.applicationSettings.update(input),
  }),
};
