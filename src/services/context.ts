import type { Caller } from '../auth/caller.js';
import type { User } from '../db/entities/index.js';
import type { Database, EntityManager } from '../db/orm.js';
import { UnauthorizedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SettingsValues } from '../schemas/settings.js';
import { CustomAttributesService } from './custom-attributes.js';
import { EmailsService } from './emails.js';
import { GpgKeysService } from './gpg-keys.js';
import { SettingsService } from './settings.js';
import { SshKeysService } from './ssh-keys.js';
import { AccessTokensService } from './tokens.js';
import { UsersService } from './users.js';

/** What every call shares for the life of a hosting instance. */
export interface Environment {
  db: Database;
  /** External URL of the service, no trailing slash: the start of every `web_url`. */
  baseUrl: string;
  /** Repository storage names → directories. */
  storages: Record<string, string>;
  logger: Logger;
  /** Scheme and host of `Link` URLs when a base URL is configured; otherwise each request's own. */
  publicOrigin?: string;
  /** Check every answer against its route's response schema (the test suite turns this on). */
  checkResponses?: boolean;
}

/** One call: its database session, its caller, and the services bound to both. */
export class Context {
  private settingsValues?: SettingsValues;

  constructor(
    readonly em: EntityManager,
    readonly caller: Caller,
    readonly env: Environment,
  ) {}

  /** The signed-in user; routes that need one are guarded before they run, so this is a safety net. */
  get user(): User {
    if (!this.caller.user) throw new UnauthorizedError();
    return this.caller.user;
  }

  get isAdmin(): boolean {
    return this.caller.user?.admin === true;
  }

  /** Application settings, read once per call. */
  async settings(): Promise<SettingsValues> {
    this.settingsValues ??= await this.applicationSettings.values();
    return this.settingsValues;
  }

  get users() {
    return new UsersService(this);
  }
  get sshKeys() {
    return new SshKeysService(this);
  }
  get gpgKeys() {
    return new GpgKeysService(this);
  }
  get emails() {
    return new EmailsService(this);
  }
  get customAttributes() {
    return new CustomAttributesService(this);
  }
  get applicationSettings() {
    return new SettingsService(this);
  }
  get accessTokens() {
    return new AccessTokensService(this);
  }
}
