import type { Caller } from '../../auth/caller.js';
import type { EntityManager } from '../../db/orm.js';
import type { SettingsValues } from '../../schemas/settings.js';

/**
 * What every presenter is given: who looks (fields that depend on the viewer come from here, never from a
 * branch in a service), where URLs start, the application settings, the session that loads what a page
 * embeds (one query per relation for the whole page), and the instance's time.
 */
export interface View {
  caller: Caller;
  /** The start of every URL in an answer (`web_url`, `avatar_url`), no trailing slash. */
  baseUrl: string;
  settings: SettingsValues;
  /** The call's EntityManager (forked when first used). */
  readonly em: EntityManager;
  /** For statements that read plain rows (db/rows.ts): a write's transaction, else one shared by reads. */
  rows: EntityManager;
  /** The instance's time now (its clock): what a token's expiry is compared with. */
  now(): Date;
}
