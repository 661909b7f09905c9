import type { ApplicationSettingsRow } from '../../db/entities/index.js';
import { BadRequestError } from '../../errors.js';
import { settingAliases, type ApplicationSettings, type SettingsValues, type UpdateSettingsInput } from '../../schemas/settings.js';
import { queryRows } from '../../db/rows.js';
import { sql } from '../../db/sql.js';
import { Problems } from '../identity/user-validation.js';
import { Service } from '../service.js';
import { CHANGED_CHANNEL, settingsRow, settingsValues, valuesOf } from './settings-store.js';
import { RunnersService } from '../ci/runners.js';

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

export class SettingsService extends Service {
  private row(): Promise<ApplicationSettingsRow> {
    return settingsRow(this.ctx.em);
  }

  private valuesOf(row: ApplicationSettingsRow): SettingsValues {
    return valuesOf(row, this.ctx.env.storages);
  }

  /** The values every call reads. */
  values(): Promise<SettingsValues> {
    return settingsValues(() => this.ctx.em, this.ctx.env);
  }

  async get(): Promise<ApplicationSettings> {
    const row = await this.row();
    return this.present(row, this.valuesOf(row), await new RunnersService(this.ctx).registrationToken());
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
    return this.present(row, next, await new RunnersService(this.ctx).registrationToken());
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
