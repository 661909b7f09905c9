import { CustomAttribute, SetCustomAttributeInput } from '../schemas/custom-attributes.js';
import { ApplicationSettings, UpdateSettingsInput } from '../schemas/settings.js';
import { defineRoute } from './route.js';
import { adminUserItems, adminUserRoute } from './scoped.js';
import { CustomAttributesService } from '../services/identity/custom-attributes.js';
import { SettingsService } from '../services/instance/settings.js';
import { defineModule } from './module.js';
import * as customAttributesSchemas from '../schemas/custom-attributes.js';
import * as settingsSchemas from '../schemas/settings.js';
import * as userTables from '../db/entities/user.js';
import * as settingsTables from '../db/entities/settings.js';

const customAttribute = adminUserItems({ path: '/custom_attributes', id: 'key', service: (ctx) => new CustomAttributesService(ctx) });

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
    run: (ctx, { user, key }, { value }) => new CustomAttributesService(ctx).set(user, key, value),
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
    run: (ctx) => new SettingsService(ctx).get(),
  }),
  update: defineRoute({
    method: 'PUT',
    path: '/application/settings',
    summary: 'Change application settings',
    auth: 'admin',
    input: UpdateSettingsInput,
    response: ApplicationSettings,
    run: (ctx, _params, input) => new SettingsService(ctx).update(input),
  }),
};

export const administrationModule = defineModule({
  routes: { customAttributes, applicationSettings },
  descriptions: {
    customAttributes: 'Custom attributes of users: key-value pairs that administrators set',
    applicationSettings: 'The instance-wide application settings (administrators)',
  },
  schemas: { ...customAttributesSchemas, ...settingsSchemas },
  entities: [userTables.CustomAttribute, settingsTables.ApplicationSettingsRow, settingsTables.InstanceSecret],
  migrations: [() => import('../db/migrations/Migration20261123000004_runners_tokens.js')],
});
