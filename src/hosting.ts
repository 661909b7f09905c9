import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Router } from 'express';
import { createApi } from './api/client.js';
import { parseInput } from './api/validation.js';
import { openTokenCache, type CallerIdentity } from './auth/caller.js';
import { SecretBox } from './auth/secret-box.js';
import { FailedAuthThrottle } from './auth/throttle.js';
import { type HostingClock, InstanceClock, useClockFor } from './clock.js';
import { HostingOptionsSchema, STORAGE_NAME } from './config.js';
import type { Database } from './db/orm.js';
import type { RouterOptions } from './http/router.js';
import { openDatabase } from './database.js';
import { BadRequestError } from './errors.js';
import { InFlightCalls } from './in-flight.js';
import { readiness, type Readiness } from './health.js';
import { loadGit, RepositoryStore } from './git/store.js';
import { JobQueue, type JobOutcome } from './jobs/queue.js';
import { registerMergeJobs } from './jobs/merge-jobs.js';
import { registerRepositoryJobs } from './jobs/repository-jobs.js';
import type { Context, Environment } from './services/context.js';
import { EventBus, type EventHandler, type RecordedEvent } from './events/bus.js';
import { EventDispatcher } from './events/dispatcher.js';
import type { EventKind } from './events/kinds.js';
import { EVENT_RULES } from './api/modules.js';
import { startHookDeliveries } from './services/hooks/deliveries.js';
import { Snapshots, snapshotNameOf } from './testing/snapshots.js';
import { TestDouble } from './testing/test-double.js';
import type { HostingFaults } from './testing/faults.js';
import type { HostingRequests } from './testing/journal.js';
import { seed } from './testing/seed.js';
import { recordedDeliveries, type DeliveryFilter, type RecordedDelivery } from './services/hooks/hooks.js';
import { silentLogger, type Logger } from './logger.js';
import { queryRows } from './db/rows.js';
import { sql } from './db/sql.js';
import { bootstrap, fillRunnersTokens } from './services/instance/bootstrap.js';
import { localRequestsSetting, openSettingsCache, settingsValues } from './services/instance/settings-store.js';
// The public types as plain interfaces (src/types.ts), which the published declarations carry.
import type { Api, HostingOptions, SeedDescription, SeedResult } from './types.js';

/** Seconds a call may take by default before it answers 503 (docs/operations.md). */
const DEFAULT_REQUEST_TIMEOUT = 60;
/** The largest pack a git push may send by default, in MiB. */
const DEFAULT_MAX_PUSH_SIZE = 1024;

/** Background work (a fork's or an import's repository), as in-process callers wait for it. */
export interface BackgroundJobs {
  /** Resolves once job `id` has finished or failed, whichever process on the database ran it. */
  settled(id: number): Promise<JobOutcome>;
  /**
   * Resolves once no job is queued or running on the database (by any process; retries waiting for their
   * time included): after a fork or an import, its project's `import_status` is `finished` or `failed`. Webhook
   * deliveries aside: they wait on their receivers (`hosting.hooks.deliveries()` waits for them to be made).
   */
  drain(): Promise<void>;
}

/** The record of what happens, as embedders hear of it (docs/events.md), beside the Events API's calls. */
export interface HostingEvents {
  /**
   * `handler` hears of every event of the kind (`'*'`: of every kind) once the write that recorded it has committed,
   * in order, in this process; its failure is logged and never undoes the write. The function returned stops it.
   */
  subscribe<K extends EventKind>(kind: K | '*', handler: EventHandler<K>): () => void;
  /**
   * A durable consumer: it reads every committed event of its kinds, at least once and in order, after a restart too
   * (its cursor, under its name, is kept in the database; a new one starts from the events committed from then on).
   */
  consume(consumer: EventConsumer): void;
}

/** An embedder's durable consumer of the record. */
export interface EventConsumer {
  /** Its cursor's name: the same across restarts (64 characters at most). */
  name: string;
  kinds: readonly EventKind[];
  /** Called for each event in order; a throw stops the consumer there, to try again later (up to five times, then passed over). */
  handle(event: RecordedEvent): Promise<void>;
}

/** Webhook deliveries as embedders and tests read them, without a receiving server (docs/hooks.md). */
export interface HostingHooks {
  /**
   * The deliveries recorded so far (the last two days), oldest first, once every event committed before the call has
   * made its deliveries: each with its request as sent (`request_headers`, `request_data`: the original's payload) and
   * what came back; `hook_id`, `project_id` (the project's own hooks) and `trigger` narrow them.
   */
  deliveries(filter?: DeliveryFilter): Promise<RecordedDelivery[]>;
}

export type HostingService = Omit<Api, 'events'> & {
  /** The Events API's calls (`list`, `listForUser`, `listForProject`), and the record's subscriptions. */
  readonly events: Api['events'] & HostingEvents;
  /**
   * An Express router serving `/api/v4/...` (and `/oauth/token`) relative to where it is mounted; with
   * `{ apiReference: true }`, the interactive API reference at `/api/v4/docs` too.
   */
  router(options?: RouterOptions): Router;
  /** The same typed API, bound to a caller: a user ID, a username, a token, or null for anonymous. */
  as(caller: CallerIdentity): Api;
  /** What `/-/liveness` and `/-/readiness` answer (docs/operations.md). */
  readonly health: { liveness(): { status: 'ok' }; readiness(): Promise<Readiness> };
  /** Waits for background jobs: `await hosting.backgroundJobs.drain()` once a fork has been asked for. */
  readonly backgroundJobs: BackgroundJobs;
  /** What webhooks were sent, and how it went. */
  readonly hooks: HostingHooks;
  /**
   * The instance's clock (docs/testing.md "A clock"), which every timestamp it writes or compares reads: `now()`; a test
   * double's `set(date)`, `advance(ms)` and `reset()` move it (they throw outside the test-double mode).
   */
  readonly clock: HostingClock;
  /**
   * A test double's (`testDouble`; docs/testing.md): puts the instance back as its baseline left it, the first start's
   * state (root alone) or the last snapshot taken or restored: rows, sequences, repositories, jobs, events, hook
   * deliveries, and what the process kept. `{ toFirstStart: true }`: back to the first start's state, whatever was
   * seeded or restored since, and that is the baseline from then on. Throws outside the test-double mode.
   */
  reset(options?: { toFirstStart?: boolean }): Promise<void>;
  /** A test double's: keeps the state now under `name` (a new name when omitted), which becomes the baseline. */
  snapshot(name?: string): Promise<string>;
  /** A test double's: puts back the state kept under `name`, which becomes the baseline; 404 when there is none. */
  restore(name: string): Promise<void>;
  /**
   * A test double's (docs/testing.md "Snapshot files"): writes the state now to `file` (rows, sequences and
   * repositories, in one zip), for `loadSnapshot` or `forgekit snapshot load` to put back in another instance.
   */
  saveSnapshot(file: string): Promise<void>;
  /**
   * A test double's: puts back the state a snapshot file holds, kept as the snapshot `name` (by default the file's
   * name without its extension), which becomes the baseline. A file that is not one, or of another forgekit's schema,
   * is a BadRequestError.
   */
  loadSnapshot(file: string, name?: string): Promise<string>;
  /**
   * A test double's (docs/testing.md "Seeds"): makes what the description says (users and their tokens, groups,
   * projects, their repositories and work items, runners, hooks) in one transaction, as root, and answers the IDs,
   * tokens and URLs of what it made; that state becomes the baseline. A description that is invalid or names what is
   * not there is a BadRequestError naming the attribute, and changes nothing. Throws outside the test-double mode.
   */
  seed(description: SeedDescription): Promise<SeedResult>;
  /**
   * A test double's journal (docs/testing.md): the calls answered, over HTTP, in process and by git, with their route,
   * caller, parameters (credentials filtered), status and duration; the last 10,000. Throws outside the test-double mode.
   */
  readonly requests: HostingRequests;
  /**
   * A test double's faults (docs/testing.md): the next matching calls, git requests or hook deliveries answer an error
   * status, wait, or lose their connection. Throws outside the test-double mode.
   */
  readonly faults: HostingFaults;
  /** root's password when this start created root with a generated one: shown once, never stored. */
  readonly generatedRootPassword?: string;
  /**
   * Waits for the calls in flight, refuses new ones (503), stops the background jobs (a running one is
   * stopped and runs again at the next start, here or in another process), and closes the database;
   * in-memory data is gone afterwards.
   */
  close(): Promise<void>;
};

/**
 * Opens (and migrates) the database, creates root on first start, and returns the service: the
 * typed API acting as the administrator root, `as(caller)` for any other caller, and `router()`.
 */
export async function createHostingService(options: HostingOptions = {}): Promise<HostingService> {
  const { logger: _logger, ...rest } = options;
  const { clock: _clock, ...checked } = rest;
  parseInput(HostingOptionsSchema, checked);
  // Refused before the database is opened.
  new InstanceClock(options.clock);
  requireStorage(options);
  if (options.database?.isolated && options.database.dataDir && !options.database.url) {
    throw BadRequestError.invalid('database', 'isolated needs url: a data directory is never new');
  }
  return createHostingServiceOn(await openDatabase(options.database), options);
}

/** The service on an open database, which it closes on `close()`. Tests use it to reach the database. */
export async function createHostingServiceOn(db: Database, options: HostingOptions = {}): Promise<HostingService> {
  const logger = options.logger ?? silentLogger;
  let temporaryStorage: string | undefined;
  let jobs: JobQueue | undefined;
  let events: EventBus<Context> | undefined;
  let dispatcher: EventDispatcher | undefined;
  try {
    const clock = new InstanceClock(options.clock);
    // What the ORM writes of itself (rows' createdAt and updatedAt) reads it too.
    useClockFor(db.orm, clock);
    const storages = storageRoots(options, () => (temporaryStorage = mkdtempSync(join(tmpdir(), 'forgekit-repositories-'))));
    for (const directory of Object.values(storages)) mkdirSync(directory, { recursive: true });
    const { generatedRootPassword, storedSecretKey } = await bootstrap(db, options);
    const secrets = new SecretBox(
      options.secretKey ?? dataDirSecretKey(options.database?.dataDir) ?? storedSecretKey ?? randomBytes(32).toString('hex'),
    );
    await fillRunnersTokens(db, secrets);
    // The HTTP adapter (Express, the body parsers) loads with the first service, not with `import('forgekit')`.
    const { createRouter } = await import('./http/router.js');
    await loadGit();
    const repositories = new RepositoryStore(storages);
    await reportMissingRepositories(db, repositories, logger);
    jobs = new JobQueue(db, logger, { clock });
    const queue = jobs;
    // Moved by a test double: what came due meanwhile runs.
    clock.onMove(() => queue.clockMoved());
    const localRequestsAllowed = async () => options.allowLocalRequests === true || (await localRequestsSetting(db));
    registerRepositoryJobs(jobs, { db, repositories, secrets, localRequestsAllowed });
    events = new EventBus<Context>(db, logger, clock);
    for (const { kinds, run } of EVENT_RULES) events.rule(kinds, run);
    dispatcher = new EventDispatcher(db, logger);
    const settings = await openSettingsCache(db);
    const hooks = await startHookDeliveries(
      {
        db,
        clock,
        jobs,
        secrets,
        repositories,
        baseUrl: options.baseUrl?.replace(/\/+$/, ''),
        localRequestsAllowed,
        settings: (em) => settingsValues(() => em, { settings, storages }),
        // Read as each delivery is sent: the test double is made further on.
        faults: () => (testDouble.enabled ? testDouble.faults : undefined),
      },
      dispatcher,
    );
    const wakeDispatcher = dispatcher.wake.bind(dispatcher);
    events.onCommitted = wakeDispatcher;
    const consumers = dispatcher;
    const snapshots = new Snapshots(db, storages);
    const testDouble = new TestDouble(options.testDouble === true, snapshots, clock, {
      // What is queued goes with the rows; what runs is waited for.
      async settle() {
        await consumers.drain();
        await db.rows.execute(`delete from "jobs" where "status" = 'queued'`);
        await env.jobs.drain({ everyKind: true });
      },
      rewrite: (statement) =>
        db.fork().transactional(async (em) => {
          // Forgotten, as by any write that may change them, and again once this one has committed.
          env.settings.changing(em.getTransactionContext());
          env.tokens.changing(em.getTransactionContext());
          await em.execute(statement);
        }),
      async forget() {
        repositories.forgetAll();
        hooks.reset();
        if ((await queryRows(db.rows, sql`select 1 from web_hooks limit 1`)).length) hooks.hooksExist();
      },
      bootstrap: async () => void (await bootstrap(db, options)),
    });
    const env: Environment = {
      db,
      clock,
      events,
      baseUrl: options.baseUrl?.replace(/\/+$/, ''),
      storages,
      repositories,
      secrets,
      jobs,
      logger,
      allowLocalRequests: options.allowLocalRequests === true,
      checkResponses: options.checkResponses,
      requestTimeoutMs: (options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT) * 1000,
      maxPushBytes: (options.maxPushSize ?? DEFAULT_MAX_PUSH_SIZE) * 1024 * 1024,
      hooksExist: hooks.hooksExist,
      testDouble,
      calls: new InFlightCalls(),
      throttle: new FailedAuthThrottle(db, options.throttle, clock),
      settings,
      tokens: await openTokenCache(db),
    };
    // An automatic merge is the merge call itself, as the user who set it.
    registerMergeJobs(jobs, { db, logger }, (userId, request) =>
      createApi(env, userId).mergeRequests.merge(request.project_id, request.iid, {
        sha: request.head_sha,
        merge_commit_message: request.merge_commit_message ?? undefined,
        should_remove_source_branch: request.should_remove_source_branch ?? undefined,
      }),
    );
    jobs.start();
    dispatcher.start();
    const api = createApi(env, 1);
    const bus = events;
    const service: HostingService = {
      ...api,
      events: {
        ...api.events,
        subscribe: (kind, handler) => bus.subscribe(kind, handler),
        consume: ({ name, kinds, handle }) => consumers.add({ name, kinds, handle: (event) => handle(event) }),
      },
      router: (routerOptions) => createRouter(env, routerOptions),
      as: (caller) => createApi(env, caller),
      health: { liveness: () => ({ status: 'ok' }), readiness: () => readiness(env) },
      backgroundJobs: { settled: (id) => env.jobs.settled(id), drain: () => drainAll(consumers, env.jobs) },
      hooks: {
        async deliveries(filter) {
          await consumers.drain();
          return recordedDeliveries(db.fork(), filter);
        },
      },
      generatedRootPassword,
      clock: testDouble.clock,
      reset: (options) => testDouble.reset(options),
      snapshot: (name) => testDouble.snapshot(name),
      restore: (name) => testDouble.restore(name),
      saveSnapshot: async (file) => writeFileSync(file, await testDouble.save()),
      loadSnapshot: (file, name) => testDouble.load(readFileSync(file), name ?? snapshotNameOf(file)),
      seed: (description) => seed(env, description),
      requests: testDouble.journal,
      faults: testDouble.faults,
      async close() {
        hooks.stop();
        await snapshots.close();
        await env.calls.drain();
        await consumers.close();
        await env.jobs.close();
        env.repositories.forgetAll();
        await db.close();
        if (temporaryStorage) rmSync(temporaryStorage, { recursive: true, force: true });
      },
    };
    environments.set(service, env);
    await testDouble.start();
    return service;
  } catch (error) {
    await dispatcher?.close();
    await jobs?.close();
    await db.close();
    if (temporaryStorage) rmSync(temporaryStorage, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Until the deferred consumers have handled every committed event and no job is left: what they handle queues jobs,
 * and jobs record events.
 */
async function drainAll(consumers: EventDispatcher, jobs: JobQueue): Promise<void> {
  do {
    await consumers.drain();
    await jobs.drain();
  } while (await consumers.behind());
}

/** Each instance's environment (tests only). */
const environments = new WeakMap<HostingService, Environment>();

/** Tests only (the package does not export it): what an instance's calls share, to reach what no call can (its rules). */
export function environmentOf(hosting: HostingService): Environment {
  const env = environments.get(hosting);
  if (!env) throw new Error('environmentOf: not a service createHostingServiceOn made');
  return env;
}

/** How many missing repositories a start names one by one (the rest are counted). */
const MISSING_SHOWN = 20;

/**
 * Says at start which projects' repositories the storages lack (a storage not mounted, a directory not restored
 * with the database): their reads and writes answer 503 until they are back, rather than an empty repository.
 */
async function reportMissingRepositories(db: Database, repositories: RepositoryStore, logger: Logger): Promise<void> {
  const projects = (await queryRows(
    db.rows,
    sql`select p."id", p."repository_storage" as "storage", n."full_path" || '/' || p."path" as "fullPath"
     from "projects" p join "namespaces" n on n."id" = p."namespace_id" order by p."id"`,
  )) as { id: number; storage: string; fullPath: string }[];
  const missing = await repositories.missing(projects);
  if (!missing.length) return;
  const named = missing
    .slice(0, MISSING_SHOWN)
    .map((project) => `project ${project.id} (${project.fullPath}) in storage ${project.storage}: ${project.path}`);
  const more = missing.length > MISSING_SHOWN ? `; and ${missing.length - MISSING_SHOWN} more` : '';
  logger.error(
    `forgekit: the database names ${missing.length} repositor${missing.length === 1 ? 'y' : 'ies'} that the storages lack; ` +
      `their reads and writes answer 503 until they are restored: ${named.join('; ')}${more}`,
  );
}

/** A data directory's own secret key (`secret.key`, made on its first start, readable by its owner only). */
function dataDirSecretKey(dataDir: string | undefined): string | undefined {
  if (!dataDir) return undefined;
  const file = resolve(dataDir, 'secret.key');
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * Named storage roots: as given; next to an embedded database's data directory; a temporary directory only for an
 * instance whose database is itself thrown away (in memory, or `isolated`). A PostgreSQL database outlives the
 * process, so its repositories must too: without a storage it refuses to start rather than lose them.
 */
function storageRoots(options: HostingOptions, temporary: () => string): Record<string, string> {
  if (typeof options.storage === 'string') return { default: resolve(options.storage) };
  if (options.storage) {
    for (const name of Object.keys(options.storage)) {
      if (!STORAGE_NAME.test(name))
        throw BadRequestError.invalid(
          'storage',
          `names a storage with letters, digits, '_', '.' and '-' (at most 64), not ${JSON.stringify(name.slice(0, 100))}`,
        );
    }
    return Object.fromEntries(Object.entries(options.storage).map(([name, directory]) => [name, resolve(directory)]));
  }
  requireStorage(options);
  const dataDir = options.database?.dataDir;
  return { default: dataDir ? resolve(dataDir, 'repositories') : temporary() };
}

/** A PostgreSQL database (not `isolated`) outlives the process: without a storage that does too, its repositories would not. */
function requireStorage(options: HostingOptions): void {
  const { url, isolated } = options.database ?? {};
  if (url && !isolated && options.storage === undefined) {
    throw BadRequestError.invalid(
      'storage',
      'is required with a PostgreSQL database: give the directory its repositories live in (`storage`, `forgekit serve --storage DIR`), ' +
        'which must outlive the process as the database does',
    );
  }
}
