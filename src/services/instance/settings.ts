import { ApplicationSettingsRow } from '../../db/entities/index.js';
import { BadRequestError } from '../../errors.js';
import {
  defaultSettings,
  settingAliases,
  type ApplicationSettings,
  type SettingsValues,
  type UpdateSettingsInput,
} from '../../schemas/settings.js';
import type { Database } from '../../db/orm.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { ProcessCache } from '../../db/process-cache.js';
import { Problems } from '../identity/user-validation.js';
import { Service } from '../service.js';

/** The one row of application settings. */
export const SETTINGS_ID = 1;

type AliasValues = { [Alias in keyof typeof settingAliases]: SettingsValues[(typeof settingAliases)[Alias]] };

/**
 * A decimal as the original answers one (Rails' BigDecimal#to_s): plain notation with at least one
 * decimal digit, `1.0`, `1.5`, `0.0000001`. JavaScript writes small numbers as `1e-7`.
 */
export function decimalText(value: number): string {
  const [mantissa, exponent] = String(value).split('e');
  let text = mantissa;
  if (exponent !== undefined) {
    const [whole, fraction = ''] = mantissa.split('.');
    const digits = whole + fraction;
    // Where the decimal point falls in `digits` once the exponent is applied.
    const point = whole.length + Number(exponent);
    if (point <= 0) text = `0.${'0'.repeat(-point)}${digits}`;
    else if (point >= digits.length) text = digits + '0'.repeat(point - digits.length);
    else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  return text.includes('.') ? text : `${text}.0`;
}

/** Where a change of the settings is announced to every process on the same PostgreSQL database. */
const CHANGED_CHANNEL = 'forgekit_settings_changed';

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

export const openSettingsCache = (db: Database): Promise<SettingsCache> =>
  ProcessCache.open(db, { channel: CHANGED_CHANNEL, maxAgeMs: 10_000, maxEntries: 1 });

export class SettingsService extends Service {
  private async row(): Promise<ApplicationSettingsRow> {
    const row = await this.ctx.em.findOne(ApplicationSettingsRow, { id: SETTINGS_ID });
    // The row is written when the service starts (bootstrap); it is only missing if someone deleted it.
    return row ?? this.ctx.em.create(ApplicationSettingsRow, { id: SETTINGS_ID, values: {} });
  }

  /** Stored values over the defaults, so that a setting added later has its default. */
  private valuesOf(row: ApplicationSettingsRow): SettingsValues {
    return { ...defaultSettings(Object.keys(this.ctx.env.storages)), ...row.values } as SettingsValues;
  }

  /** The values every call reads: cached in the process (SettingsCache), shared by calls, frozen. */
  async values(): Promise<SettingsValues> {
    return (await this.ctx.env.settings.read('values', async () => Object.freeze(this.valuesOf(await this.row()))))!;
  }

  async get(): Promise<ApplicationSettings> {
    const row = await this.row();
    return this.present(row, this.valuesOf(row), await this.ctx.runners.registrationToken());
  }

  async update(input: UpdateSettingsInput): Promise<ApplicationSettings> {
    const row = await this.row();
    const current = this.valuesOf(row);
    const changes: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(input)) {
      // A newer spelling counts as the setting it names; the specification's spelling wins when both are given.
      const setting = settingAliases[name as keyof typeof settingAliases];
      if (!setting) changes[name] = value;
      else if (!(setting in input)) changes[setting] = value;
    }
    if (input.enabled_git_access_protocol === 'nil' || input.enabled_git_access_protocol === '') changes.enabled_git_access_protocol = null;
    const next = { ...current, ...changes } as SettingsValues;

    // Settings that need a companion setting when switched on (SPEC.md: required when ... is true).
    if (next.domain_blacklist_enabled && !next.domain_blacklist?.length) throw BadRequestError.missing('domain_blacklist');
    if (next.ide_enabled && !next.ide_url) throw BadRequestError.missing('ide_url');
    if (next.diagram_enabled && !next.diagram_url) throw BadRequestError.missing('diagram_url');

    const problems = new Problems();
    const known = Object.keys(this.ctx.env.storages);
    if (next.repository_storages.length === 0) problems.add('repository_storages', "can't be blank");
    for (const name of next.repository_storages) {
      if (!known.includes(name)) problems.add('repository_storages', `${name} is not a valid storage (known: ${known.join(', ')})`);
    }
    for (const attribute of ['home_page_url', 'ide_url', 'diagram_url'] as const) {
      const url = next[attribute];
      if (url && !/^https?:\/\/[^\s]+$/i.test(url)) problems.add(attribute, 'must be a valid URL');
    }
    for (const attribute of ['domain_whitelist', 'domain_blacklist'] as const) {
      for (const domain of next[attribute] ?? []) {
        if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/i.test(domain)) problems.add(attribute, `${domain} is not a valid domain`);
      }
    }
    if (problems.any) throw new BadRequestError(problems.messages);

    // Writes run in their call's transaction (api/invoke.ts): the cache hears when that one ends.
    this.ctx.env.settings.changing(this.ctx.em.getTransactionContext());
    row.values = next;
    await this.ctx.em.flush();
    // Delivered to every listening process when the transaction commits, and never if it rolls back.
    await queryRows(this.ctx.em, sql`select pg_notify(${CHANGED_CHANNEL}, '')`);
    return this.present(row, next, await this.ctx.runners.registrationToken());
  }

  /** The settings with the instance's runners registration token, which is no setting one changes (services/ci/runners.ts). */
  private present(row: ApplicationSettingsRow, values: SettingsValues, runnersRegistrationToken: string): ApplicationSettings {
    return {
      id: row.id,
      ...values,
      polling_interval_multiplier: decimalText(values.polling_interval_multiplier),
      ...(Object.fromEntries(Object.entries(settingAliases).map(([alias, name]) => [alias, values[name]])) as AliasValues),
      runners_registration_token: runnersRegistrationToken,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }
}
