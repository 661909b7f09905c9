import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { digest, timestamps } from './columns.js';

/**
 * The instance-wide application settings: one row. The values live in one JSON document whose shape is
 * the ApplicationSettings schema (src/schemas/settings.ts), so adding a setting needs no migration.
 */
export const ApplicationSettingsRow = defineEntity({
  name: 'ApplicationSettingsRow',
  tableName: 'application_settings',
  properties: {
    id: p.integer().primary(),
    values: p.json<Record<string, unknown>>(),
    /** The instance's token for registering shared runners, sealed (src/auth/secret-box.ts): administrators see it. */
    runnersRegistrationTokenSealed: p.text().nullable(),
    /** Its digest, by which a registering runner's token is recognised. */
    runnersRegistrationTokenDigest: digest().nullable(),
    ...timestamps(),
  },
});
export type ApplicationSettingsRow = InferEntity<typeof ApplicationSettingsRow>;

/**
 * Secrets the instance makes for itself: on PostgreSQL without a configured `secretKey`, the key that seals the
 * secrets forgekit shows again, shared this way by every process on the database.
 */
export const InstanceSecret = defineEntity({
  name: 'InstanceSecret',
  tableName: 'instance_secrets',
  properties: {
    name: p.string().length(64).primary(),
    value: p.text(),
  },
});
export type InstanceSecret = InferEntity<typeof InstanceSecret>;
