import type { Caller, TokenCache } from '../auth/caller.js';
import type { SecretBox } from '../auth/secret-box.js';
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
import { BranchesService } from './repository/branches.js';
import { CommitCommentsService } from './repository/commit-comments.js';
import { CommitStatusesService } from './repository/commit-statuses.js';
import { CommitsService } from './repository/commits.js';
import { EnvironmentsService } from './ci/environments.js';
import { CustomAttributesService } from './identity/custom-attributes.js';
import { EmailsService } from './identity/emails.js';
import { GpgKeysService } from './identity/gpg-keys.js';
import { GroupsService } from './projects/groups.js';
import { GroupSharesService } from './projects/group-shares.js';
import { MembersService } from './projects/members.js';
import { NamespacesService } from './projects/namespaces.js';
import { ProjectCreationService } from './projects/project-creation.js';
import { ProjectTransfersService } from './projects/project-transfers.js';
import { ProjectsService } from './projects/projects.js';
import { ReleasesService } from './repository/releases.js';
import { DiffService } from './repository/diffs.js';
import { RepositoryService } from './repository/repository.js';
import { RepositoryFilesService } from './repository/files.js';
import type { View } from './present/view.js';
import { SettingsService, type SettingsCache } from './instance/settings.js';
import { SshKeysService } from './identity/ssh-keys.js';
import { TagsService } from './repository/tags.js';
import { AccessTokensService } from './identity/tokens.js';
import { UsersService } from './identity/users.js';
import { AwardEmojiService } from './work-items/award-emoji.js';
import { DiscussionsService } from './work-items/discussions.js';
import { IssuesService } from './work-items/issues.js';
import { LabelsService } from './work-items/labels.js';
import { MergeRequestsService } from './work-items/merge-requests.js';
import { MilestonesService } from './work-items/milestones.js';
import { NotesService } from './work-items/notes.js';
import { TimeTrackingService } from './work-items/time-tracking.js';
import { RunnersService } from './ci/runners.js';
import { EventsService } from './activity/events.js';

/** What every call shares for the life of a hosting instance. */
export interface Environment {
  db: Database;
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
    this.settingsValues ??= await this.applicationSettings.values();
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
    };
    return this.presenterView;
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
  get projects() {
    return new ProjectsService(this);
  }
  get projectCreation() {
    return new ProjectCreationService(this);
  }
  get projectTransfers() {
    return new ProjectTransfersService(this);
  }
  get namespaces() {
    return new NamespacesService(this);
  }
  get groups() {
    return new GroupsService(this);
  }
  get groupShares() {
    return new GroupSharesService(this);
  }
  get members() {
    return new MembersService(this);
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
  get branches() {
    return new BranchesService(this);
  }
  get commits() {
    return new CommitsService(this);
  }
  get commitStatuses() {
    return new CommitStatusesService(this);
  }
  get commitComments() {
    return new CommitCommentsService(this);
  }
  get repositoryFiles() {
    return new RepositoryFilesService(this);
  }
  get tags() {
    return new TagsService(this);
  }
  get releases() {
    return new ReleasesService(this);
  }
  get repository() {
    return new RepositoryService(this);
  }
  get diffs() {
    return new DiffService(this);
  }
  get issues() {
    return new IssuesService(this);
  }
  get labels() {
    return new LabelsService(this);
  }
  get mergeRequests() {
    return new MergeRequestsService(this);
  }
  get milestones() {
    return new MilestonesService(this);
  }
  get notes() {
    return new NotesService(this);
  }
  get discussions() {
    return new DiscussionsService(this);
  }
  get awardEmoji() {
    return new AwardEmojiService(this);
  }
  get timeTracking() {
    return new TimeTrackingService(this);
  }
  get runners() {
    return new RunnersService(this);
  }
  get events() {
    return new EventsService(this);
  }
  get environments() {
    return new EnvironmentsService(this);
  }
}
