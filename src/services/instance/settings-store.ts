import { ApplicationSettingsRow } from '../../db/entities/index.js';
import type { Database, EntityManager } from '../../db/orm.js';
import { ProcessCache } from '../../db/process-cache.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { defaultSettings, type SettingsValues } from '../../schemas/settings.js';

/** The one row of application settings. */
export const SETTINGS_ID = 1;

/** The application settings of one hosting instance, kept in the process: every call needs them, and they almost never change. */
export type SettingsCache = ProcessCache<SettingsValues>;

/**
 * Whether the application setting lets imports reach local addresses, read from its row as it is now: for the
 * import jobs, which run outside any call and its settings.
 */
export async function localRequestsSetting(db: Database): Promise<boolean> {
  const allowed: keyof SettingsValues = 'allow_local_requests_from_web_hooks_and_services';
  const [row] = await queryRows(
    db.rows,
    sql`select "values" -> ${allowed} as "allowed" from "application_settings" where "id" = ${SETTINGS_ID}`,
  );
  return row?.allowed === true;
}

/** Where a change of the settings is announced to every process on the same PostgreSQL database. */
export const CHANGED_CHANNEL = 'forgekit_settings_changed';

export const openSettingsCache = (db: Database): Promise<SettingsCache> =>
  ProcessCache.open(db, { channel: CHANGED_CHANNEL, maxAgeMs: 10_000, maxEntries: 1 });

/** The settings' row (the only one). */
export async function settingsRow(em: EntityManager): Promise<ApplicationSettingsRow> {
  const row = await em.findOne(ApplicationSettingsRow, { id: SETTINGS_ID });
  // The row is written when the service starts (bootstrap); it is only missing if someone deleted it.
  return row ?? em.create(ApplicationSettingsRow, { id: SETTINGS_ID, values: {} });
}

/** Stored values over the defaults, so that a setting added later has its default. */
export const valuesOf = (row: ApplicationSettingsRow, storages: Record<string, string>) =>
  ({ ...defaultSettings(Object.keys(storages)), ...row.values }) as SettingsValues;

/** The values every call reads (Context#settings): cached in the process (SettingsCache), shared by calls, frozen. */
export async function settingsValues(
  /** The call's EntityManager, asked for only when the cache has none: most calls never fork one. */
  em: () => EntityManager,
  env: { settings: SettingsCache; storages: Record<string, string> },
) {
  return (await env.settings.read('values', async () => Object.freeze(valuesOf(await settingsRow(em()), env.storages))))!;
}
