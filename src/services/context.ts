import type { TestDouble } from '../testing/test-double.js';
import type { Caller, TokenCache } from '../auth/caller.js';
import type { SecretBox } from '../auth/secret-box.js';
import { type Day, dayOf } from '../auth/access-levels.js';
import type { Clock } from '../clock.js';
import type { FailedAuthThrottle } from '../auth/throttle.js';
import { User, type Project } from '../db/entities/index.js';
import type { Database, EntityManager } from '../db/orm.js';
import { UnauthorizedError } from '../errors.js';
import type { Repository } from '../git/repository.js';
import type { RepositoryStore } from '../git/store.js';
import type { EventBus, NewEvent, RecordedEvent } from '../events/bus.js';
import type { EventKind } from '../events/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import { describeFailure, type Logger } from '../logger.js';
import type { InFlightCalls } from '../in-flight.js';
import type { SettingsValues } from '../schemas/settings.js';
import type { View } from './present/view.js';
import { type SettingsCache, settingsValues } from './instance/settings-store.js';

/** What every call shares for the life of a hosting instance. */
export interface Environment {
  db: Database;
  /** The instance's clock: every timestamp written or compared reads it (`ctx.now()`), never `new Date()`. */
  clock: Clock;
  /**
   * The configured external URL of the service, no trailing slash. Without one, each HTTP request's own
   * scheme, host and mount point take its place (so `web_url` and `Link` agree), and `http://localhost`
   * in process.
   */
  baseUrl?: string;
  /** Repository storage names → directories. */
  storages: Record<string, string>;
  /** The projects' repositories, in those storages. */
  repositories: RepositoryStore;
  /** Seals the secrets forgekit shows again (runners tokens). */
  secrets: SecretBox;
  /** Background jobs (forks, imports): queued inside a write's transaction, run by every instance's workers. */
  jobs: JobQueue;
  /** The record of what happens: writes append to it, rules and subscribers hear of it (src/events/). */
  events: EventBus<Context>;
  logger: Logger;
  /** The calls running now: closing waits for them. */
  calls: InFlightCalls;
  /** The application settings, kept in the process. */
  settings: SettingsCache;
  /** The tokens callers authenticated with, with their users, kept in the process. */
  tokens: TokenCache;
  /** Counts failed authentication and refuses (429) past the configured limit. */
  throttle: FailedAuthThrottle;
  /**
   * Imports may reach loopback, link-local, private and unspecified addresses whatever the application setting
   * says (the `allowLocalRequests` option, `forgekit serve --allow-local-requests`).
   */
  allowLocalRequests: boolean;
  /** Check every answer against its route's response schema (the test suite turns this on). */
  checkResponses?: boolean;
  /** How long a call may take before it answers 503 and rolls back (0: no deadline). */
  requestTimeoutMs: number;
  /** The largest pack a git push may send, in bytes. */
  maxPushBytes: number;
  /**
   * Told once a hook exists: webhook deliveries start (an instance without hooks makes none, and pays nothing for
   * them). Run after the hook's transaction has committed.
   */
  hooksExist(): void;
  /** The instance's test-double parts (docs/testing.md): on only with the `testDouble` option. */
  testDouble?: TestDouble;
}

/** One call: its database session, its caller, and the services bound to both. */
export class Context {
  private settingsValues?: SettingsValues;
  private presenterView?: View;
  private managedUser?: User;
  private readonly afterCommitWork: (() => Promise<void>)[] = [];
  private readonly onFailureWork: (() => Promise<void>)[] = [];

  constructor(
    readonly caller: Caller,
    readonly env: Environment,
    /** The start of every URL this call answers with (`web_url`, `avatar_url`), no trailing slash. */
    readonly baseUrl: string,
    /** A write's transaction; a read forks its own EntityManager when it first needs one (many need none). */
    private callEm?: EntityManager,
    /** The client's network address, over HTTP (a runner's `ip_address`). */
    readonly clientAddress?: string,
  ) {}

  /**
   * Work for once the call's changes are committed (removing the repository of a deleted project): a failure
   * there, or a crash before it, leaves files that no row names, which is harmless; doing it before the commit
   * could leave a row without its files.
   */
  afterCommit(work: () => Promise<void>): void {
    this.afterCommitWork.push(work);
  }

  /** Runs the work left for after the commit; failures are logged, the call has succeeded. */
  async runAfterCommit(): Promise<void> {
    // Committed: nothing is undone any more.
    this.onFailureWork.length = 0;
    for (const work of this.afterCommitWork.splice(0)) {
      await work().catch((error: unknown) => this.env.logger.error('forgekit: work after a commit failed', describeFailure(error)));
    }
  }

  /**
   * Work that undoes, should the call fail after all (its transaction rolled back), what it did outside the
   * database: a reference it moved is moved back.
   */
  onFailure(work: () => Promise<void>): void {
    this.onFailureWork.push(work);
  }

  /** Whether a failure of the call leaves work to undo outside the database. */
  get undoesOnFailure(): boolean {
    return this.onFailureWork.length > 0;
  }

  /** Runs the undoing work, newest first; its own failures are logged. */
  async runOnFailure(): Promise<void> {
    this.afterCommitWork.length = 0;
    for (const work of this.onFailureWork.splice(0).reverse()) {
      await work().catch((error: unknown) => this.env.logger.error('forgekit: undoing a failed call failed', describeFailure(error)));
    }
  }

  /**
   * Appends an event to the record in the call's transaction (what the write did, as the original announces it), and
   * runs the rules that follow it, as this call's caller.
   */
  record<K extends EventKind>(event: NewEvent<K>): Promise<RecordedEvent<K>> {
    return this.env.events.record(this, this.em, event);
  }

  /** The instance's time now (its clock: the system's, unless a test double set it). */
  now(): Date {
    return this.env.clock.now();
  }

  /** The instance's day now (UTC, `YYYY-MM-DD`): what memberships' and shares' expiry dates are compared with. */
  today(): Day {
    return dayOf(this.now());
  }

  /** The call's EntityManager: its identity map and unit of work. */
  get em(): EntityManager {
    this.callEm ??= this.env.db.fork();
    return this.callEm;
  }

  /**
   * The signed-in user as it was read when the call began: to read from. Routes that need one are guarded
   * before they run, so the throw is a safety net.
   */
  get currentUser(): Readonly<User> {
    if (!this.caller.user) throw new UnauthorizedError();
    return this.caller.user;
  }

  /** The signed-in user as an entity of this call's EntityManager, made on first use: to query by and write with. */
  get user(): User {
    // A copy: the caller's row is shared by calls, and the EntityManager may write to what it is given.
    this.managedUser ??= this.em.merge(User, { ...this.currentUser });
    return this.managedUser;
  }

  /** A project's repository. */
  repositoryOf(project: Pick<Project, 'id' | 'repositoryStorage'>): Repository {
    return this.env.repositories.open(project.repositoryStorage, project.id);
  }

  /** Application settings, the same throughout a call (cached in the process: SettingsService.values). */
  async settings(): Promise<SettingsValues> {
    this.settingsValues ??= await settingsValues(() => this.em, this.env);
    return this.settingsValues;
  }

  /** What presenters are given, built once per call. */
  async view(): Promise<View> {
    const settings = await this.settings();
    const ctx = this;
    this.presenterView ??= {
      caller: this.caller,
      baseUrl: this.baseUrl,
      settings,
      get em() {
        return ctx.em;
      },
      // A write's statements run in its transaction, which sees what the write changed.
      rows: this.callEm ?? this.env.db.rows,
      now: () => this.now(),
    };
    return this.presenterView;
  }
}
