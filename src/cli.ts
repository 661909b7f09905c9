import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import cluster, { type Worker } from 'node:cluster';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ServeSettings } from './config.js';
import type { HostingService } from './hosting.js';
import type { Logger } from './logger.js';
import type { SeedDescription, SeedResult } from './types.js';
import { ServiceUnavailableError } from './errors.js';
import { answerError } from './http/json.js';
import { FORGEKIT_VERSION } from './version.js';

// The service, its database drivers and the route table load only in the commands that use them, so that
// `--help` and usage errors answer at once.
const settingsFrom = async (values: Record<string, string | string[] | boolean | undefined>) =>
  (await import('./config.js')).serveSettings(values, process.env);

const DATABASE_FLAGS = `      --data-dir DIR        the embedded database's directory, and the repositories' unless --storage
                            says otherwise (default ./.forgekit)
      --database-url URL    a PostgreSQL server instead (postgres://...; or DATABASE_URL)
      --storage DIR         where repositories live (default DATA-DIR/repositories, with either database);
                            --storage NAME=DIR, repeated, for named storages (or FORGEKIT_STORAGE, comma-separated)`;

const DATABASE_OPTIONS = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  storage: { type: 'string', multiple: true },
} satisfies ParseArgsConfig['options'];

const ROOT_ENVIRONMENT = `    Environment: FORGEKIT_ROOT_PASSWORD (root's password when the database is new; generated and printed
    once otherwise), FORGEKIT_ROOT_TOKEN (a private token that root accepts while it is set).`;

interface Command {
  usage: string;
  options?: ParseArgsConfig['options'];
  /** The most positional arguments it takes. */
  positionals?: number;
  run(values: Record<string, string | string[] | boolean | undefined>, positionals: string[]): Promise<void> | void;
}

const commands: Record<string, Command> = {
  serve: {
    usage: `forgekit serve [options]
    Runs the service over HTTP until SIGTERM or SIGINT.
      --port N              the port to listen on (default 8080; or PORT)
      --host HOST           the address to listen on (default 127.0.0.1)
${DATABASE_FLAGS}
      --base-url URL        the external URL written in web_url and Link headers
      --max-auth-failures N failed sign-ins and refused tokens allowed per client address and per login in
                            one period before 429 (default 10; 0 turns it off; or FORGEKIT_MAX_AUTH_FAILURES)
      --auth-failure-period SECONDS
                            that period (default 600; or FORGEKIT_AUTH_FAILURE_PERIOD)
      --allow-local-requests
                            let imports reach loopback, private and link-local addresses (off by default;
                            or FORGEKIT_ALLOW_LOCAL_REQUESTS=true)
      --workers N           serve from N processes sharing the port (default 1; or FORGEKIT_WORKERS);
                            PostgreSQL only: the embedded database is opened by one process
      --request-timeout SECONDS
                            a call still running then answers 503 and rolls back (default 60; 0: none;
                            or FORGEKIT_REQUEST_TIMEOUT)
      --test-double         run as a test double (docs/testing.md): reset, snapshots, seeds, faults and the
                            request journal, through the administrators' /-/forgekit/ control surface
      --seed FILE           a test double (--test-double implied) that starts from the seed FILE describes
                            (JSON, docs/testing.md "Seeds"), made before it answers; for a new database, one process
      --snapshot FILE       a test double (--test-double implied) that starts from the state of a snapshot FILE
                            (forgekit snapshot save), put in place before it answers; one process
    With --database-url (docs/operations.md; each also FORGEKIT_ and the flag's name in capitals):
      --pool-size N         connections this process opens at most (default 10)
      --connect-timeout SECONDS
                            how long to wait for a connection, new or of the pool (default 10)
      --statement-timeout SECONDS, --lock-timeout SECONDS
                            how long a statement may run, and wait for a lock (default 30 each; 0: no limit)
      --idle-in-transaction-timeout SECONDS
                            how long a session may idle inside a transaction before the server ends it (default 60)
${ROOT_ENVIRONMENT}`,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      ...DATABASE_OPTIONS,
      'allow-local-requests': { type: 'boolean' },
      'base-url': { type: 'string' },
      'max-auth-failures': { type: 'string' },
      'auth-failure-period': { type: 'string' },
      workers: { type: 'string' },
      'request-timeout': { type: 'string' },
      'test-double': { type: 'boolean' },
      seed: { type: 'string' },
      snapshot: { type: 'string' },
      'pool-size': { type: 'string' },
      'connect-timeout': { type: 'string' },
      'statement-timeout': { type: 'string' },
      'lock-timeout': { type: 'string' },
      'idle-in-transaction-timeout': { type: 'string' },
    },
    run: async (values) => {
      const settings = await settingsFrom(values);
      // A seed is made once, by the one process: read and checked before anything is opened.
      const seed = typeof values.seed === 'string' ? await readSeed(values.seed) : undefined;
      if (seed && settings.workers > 1) throw new Error('--seed needs one process: it is made once, before the service answers');
      const snapshot = typeof values.snapshot === 'string' ? values.snapshot : undefined;
      if (snapshot && settings.workers > 1)
        throw new Error('--snapshot needs one process: it is put in place once, before the service answers');
      if (snapshot && seed) throw new UsageError('--seed and --snapshot: one or the other');
      if (values['test-double'] || seed || snapshot) settings.options.testDouble = true;
      if (settings.workers > 1 && cluster.isPrimary) return superviseWorkers(settings);
      return serve(settings, { seed: seed && { file: values.seed as string, description: seed }, snapshot });
    },
  },
  snapshot: {
    usage: `forgekit snapshot save|load FILE [options]
    Saves the state of a running test double (forgekit serve --test-double) to FILE, rows and repositories, or
    loads FILE's state into one, where it becomes the state a reset returns to (docs/testing.md "Snapshot files").
      --url URL             the instance (default http://127.0.0.1:8080; or FORGEKIT_URL)
      --token TOKEN         an administrator's token (or FORGEKIT_TOKEN)
      --name NAME           load: the name it is kept under (default FILE's name without its extension)`,
    options: { url: { type: 'string' }, token: { type: 'string' }, name: { type: 'string' } },
    positionals: 2,
    run: async (values, [action, file]) => {
      if ((action !== 'save' && action !== 'load') || !file)
        throw new UsageError(`expected save or load and a FILE\n\n${commands.snapshot.usage}`);
      const base = String(values.url ?? process.env.FORGEKIT_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
      const token = values.token ?? process.env.FORGEKIT_TOKEN;
      if (typeof token !== 'string' || !token)
        throw new UsageError(`--token (or FORGEKIT_TOKEN) is required\n\n${commands.snapshot.usage}`);
      const url = new URL(`${base}/-/forgekit/state`);
      const { snapshotNameOf } = await import('./testing/snapshots.js');
      if (action === 'load') url.searchParams.set('name', typeof values.name === 'string' ? values.name : snapshotNameOf(file));
      const response = await fetch(url, {
        method: action === 'save' ? 'GET' : 'PUT',
        headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/zip' },
        body: action === 'save' ? undefined : readFileSync(file),
      }).catch((error: Error) => {
        throw new Error(`${url.origin} cannot be reached (${(error.cause as Error | undefined)?.message ?? error.message})`);
      });
      if (!response.ok) {
        const answer = (await response.json().catch(() => undefined)) as { message?: unknown; error?: unknown } | undefined;
        throw new Error(
          `${url.origin} answered ${response.status}: ${JSON.stringify(answer?.message ?? answer?.error ?? response.statusText)}`,
        );
      }
      if (action === 'save') {
        writeFileSync(file, new Uint8Array(await response.arrayBuffer()));
        console.log(`forgekit: saved ${url.origin}'s state to ${file}`);
      } else
        console.log(`forgekit: loaded ${file} into ${url.origin} as the snapshot ${((await response.json()) as { name: string }).name}`);
    },
  },
  migrate: {
    usage: `forgekit migrate [options]
    Applies pending database migrations (creating root on a new database) and exits.
${DATABASE_FLAGS}
${ROOT_ENVIRONMENT}`,
    options: DATABASE_OPTIONS,
    run: async (values) => {
      const hosting = await openHosting(await settingsFrom(values));
      announceRootPassword(hosting);
      await hosting.close();
      console.log('forgekit: the database is up to date');
    },
  },
  openapi: {
    usage: `forgekit openapi [FILE]
    Writes the OpenAPI document to FILE, or to standard output.`,
    positionals: 1,
    run: async (_values, [file]) => {
      const { openApiDocument } = await import('./api/index.js');
      const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
      if (!file) return void process.stdout.write(text);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    },
  },
  'migration:create': {
    usage: `forgekit migration:create [DIR]
    Development: writes a migration for the difference between the entities and the committed migrations
    (default DIR src/db/migrations; add it to src/db/migrations/index.ts).`,
    positionals: 1,
    run: async (_values, [directory]) => {
      const { openDatabase } = await import('./database.js');
      const db = await openDatabase();
      try {
        const result = await db.orm.migrator.create(resolve(directory ?? 'src/db/migrations'));
        console.log(result.fileName ? `forgekit: wrote ${result.fileName}` : 'forgekit: the entities match the migrations');
      } finally {
        await db.close();
      }
    },
  },
};

const USAGE = `forgekit ${FORGEKIT_VERSION}: the project-hosting service

Usage:
${Object.values(commands)
  .map((command) => `  ${command.usage}`)
  .join('\n\n')}

  forgekit --help | --version
  forgekit COMMAND --help     the usage of one command`;

/** A mistake in how the command was called: reported with the usage, exit status 2. */
class UsageError extends Error {}

/** The seed `--seed FILE` describes: JSON, of the seeds' schema (what it names is checked when it is made). */
async function readSeed(file: string): Promise<SeedDescription> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`--seed ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const [{ parseInput }, { SeedDescription }] = await Promise.all([import('./api/validation.js'), import('./schemas/seed.js')]);
  try {
    return parseInput<SeedDescription>(SeedDescription, JSON.parse(text));
  } catch (error) {
    throw new Error(`--seed ${file}: ${(error as Error).message}`);
  }
}

function describeDatabase(settings: ServeSettings): string {
  const { url, dataDir } = settings.options.database ?? {};
  if (!url) return `the embedded database (PGlite) in ${dataDir}`;
  const shown = new URL(url);
  if (shown.password) shown.password = '***';
  return `PostgreSQL at ${shown.toString()}`;
}

function describeStorage(settings: ServeSettings): string {
  const { storage } = settings.options;
  return Object.entries(typeof storage === 'string' ? { default: storage } : (storage ?? {}))
    .map(([name, directory]) => `${name}=${directory}`)
    .join(', ');
}

async function openHosting(settings: ServeSettings, logger: Logger = console): Promise<HostingService> {
  try {
    const { createHostingService } = await import('./hosting.js');
    return await createHostingService({ ...settings.options, logger });
  } catch (error) {
    throw new Error(`could not open ${describeDatabase(settings)}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * The service, opened once its PostgreSQL server answers: while it cannot be reached (not started yet, restarting),
 * `waiting` hears why and the next try comes a little later. Any other failure, and any on the embedded database, ends it.
 */
async function openHostingWhenReachable(
  settings: ServeSettings,
  logger: Logger,
  waiting: (reason: string) => void,
): Promise<HostingService> {
  const { isTransientDatabaseError } = await import('./db/transient.js');
  for (let delay = 500; ; delay = Math.min(delay * 2, 10_000)) {
    try {
      return await openHosting(settings, logger);
    } catch (error) {
      if (!settings.options.database?.url || !isTransientDatabaseError(error)) throw error;
      // Readiness says what failed, not where the database is.
      const { cause } = error as Error;
      waiting(cause instanceof Error ? cause.message : 'the database cannot be reached');
      logger.warn(`forgekit: ${(error as Error).message}; trying again in ${delay / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** What a seed made, counted: `2 users, 1 group, 3 projects`. */
function seedSummary(made: SeedResult): string {
  const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  return [counted(made.users.length, 'user'), counted(made.groups.length, 'group'), counted(made.projects.length, 'project')].join(', ');
}

function announceRootPassword(hosting: HostingService): void {
  if (!hosting.generatedRootPassword) return;
  console.log(`forgekit: created the administrator root with the password: ${hosting.generatedRootPassword}`);
  console.log('forgekit: it is shown this once; set FORGEKIT_ROOT_PASSWORD on first start to choose it.');
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? 'the port is in use; choose another with --port'
          : error.code === 'EACCES'
            ? 'permission denied'
            : error.message;
      fail(new Error(`cannot listen on ${host}:${port}: ${reason}`));
    });
    server.listen(port, host, done);
  });
}

/**
 * Takes the port first (so that a port in use fails before any data is touched), then opens the service;
 * until it is open the port answers 503. A worker of `--workers` opens the service first, so that no connection
 * is handed to it before it can answer. SIGTERM or SIGINT stops taking requests, waits for the calls in
 * flight, and closes the database.
 */
async function serve(
  settings: ServeSettings,
  { seed, snapshot }: { seed?: { file: string; description: SeedDescription }; snapshot?: string } = {},
): Promise<void> {
  // Until the service is open: alive, not ready (and why), and every call 503.
  let starting = 'starting';
  const { answerHealth } = await import('./http/health.js');
  const { notReady } = await import('./health.js');
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (req, res) => {
    const path = new URL(req.url ?? '/', 'http://forgekit').pathname;
    if (!answerHealth(req, res, path, async () => notReady(starting))) answerError(res, new ServiceUnavailableError('starting'));
  };
  const server = createServer((req, res) => handle(req, res));
  // A worker takes its share of the port once it can answer: the primary hands it connections from then on.
  if (!cluster.isWorker) await listen(server, settings.port, settings.host);
  const { batchedConsoleLogger } = await import('./logger.js');
  const logger = batchedConsoleLogger();
  console.log(`forgekit ${FORGEKIT_VERSION}: database: ${describeDatabase(settings)}; repositories: ${describeStorage(settings)}`);
  let hosting: HostingService;
  try {
    hosting = await openHostingWhenReachable(settings, logger, (reason) => (starting = reason));
  } catch (error) {
    server.close();
    throw error;
  }
  announceRootPassword(hosting);
  if (seed) {
    starting = 'seeding';
    try {
      const made = await hosting.seed(seed.description);
      console.log(`forgekit: seeded from ${seed.file}: ${seedSummary(made)}`);
      // The tokens the file did not give, shown this once as root's generated password is.
      for (const [index, user] of made.users.entries())
        if (seed.description.users?.[index].token === undefined) console.log(`forgekit: ${user.username}'s token: ${user.token}`);
    } catch (error) {
      await hosting.close();
      server.close();
      throw new Error(`--seed ${seed.file}: ${(error as Error).message}`);
    }
  }
  if (snapshot) {
    starting = 'loading the snapshot';
    try {
      console.log(`forgekit: started from ${snapshot}, kept as the snapshot ${await hosting.loadSnapshot(snapshot)}`);
    } catch (error) {
      await hosting.close();
      server.close();
      throw new Error(`--snapshot ${snapshot}: ${(error as Error).message}`);
    }
  }
  const { standaloneApp } = await import('./http/standalone.js');
  // The interactive API reference too (/api/v4/docs), which a mounted router serves only when asked.
  const app = standaloneApp(hosting.router({ apiReference: true }), logger);
  handle = app;
  if (cluster.isWorker) await listen(server, settings.port, settings.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const listeningUrl = `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`;
  const listening = `forgekit listening on ${settings.options.baseUrl ?? listeningUrl}`;
  // A worker tells its primary, which says it once all are ready.
  if (cluster.isWorker) process.send!({ ready: listening });
  else console.log(listening);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`forgekit: ${signal} received, finishing the requests in flight`);
    // Refuses new connections and closes idle ones; calls in flight finish (hosting.close waits for them).
    server.close();
    try {
      await hosting.close();
      server.closeAllConnections();
      logger.info('forgekit: stopped');
      process.exit(0);
    } catch (error) {
      logger.error('forgekit: could not stop cleanly', error);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // A worker whose primary is gone (killed) stops as if told to.
  if (cluster.isWorker) process.on('disconnect', () => void stop('the primary process gone'));
}

/**
 * `serve --workers N`: N processes serving one port (the cluster module hands connections round), each a whole
 * instance on the one PostgreSQL database (locks, jobs and kept callers and settings already work across
 * processes). Says it listens once every worker does; a worker that dies after that is started again, one that
 * dies before stops them all. SIGTERM or SIGINT is passed to each, and the primary exits when they have.
 */
async function superviseWorkers(settings: ServeSettings): Promise<void> {
  const workers = new Set<Worker>();
  let ready = 0;
  let stopping = false;
  const start = (): Worker => {
    const worker = cluster.fork();
    workers.add(worker);
    worker.on('message', (message: { ready?: string }) => {
      if (message.ready && ++ready === settings.workers) console.log(`${message.ready} (${settings.workers} workers)`);
    });
    worker.on('exit', (code, signal) => {
      workers.delete(worker);
      if (stopping) {
        if (!workers.size) process.exit(0);
        return;
      }
      if (ready < settings.workers) {
        console.error(`forgekit: a worker failed to start (${signal ?? `exit status ${code}`}); stopping`);
        stopping = true;
        for (const other of workers) other.kill('SIGTERM');
        process.exitCode = 1;
        if (!workers.size) process.exit(1);
        return;
      }
      console.error(`forgekit: a worker stopped (${signal ?? `exit status ${code}`}); starting another`);
      start();
    });
    return worker;
  };
  for (let index = 0; index < settings.workers; index++) start();
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`forgekit: ${signal} received, stopping ${workers.size} workers`);
    for (const worker of workers) worker.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') return void console.log(USAGE);
  if (name === '--version' || name === '-v') return void console.log(FORGEKIT_VERSION);
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command ${name}`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${command.usage}`);
  }
  if (parsed.values.help) return void console.log(command.usage);
  if (parsed.positionals.length > (command.positionals ?? 0))
    throw new UsageError(`unexpected argument ${parsed.positionals.at(-1)}\n\n${command.usage}`);
  await command.run(parsed.values as Record<string, string | string[] | boolean | undefined>, parsed.positionals);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`forgekit: ${error.message}${error.message.includes('\n') ? '' : `\n\n${USAGE}`}`);
    process.exit(2);
  }
  console.error(`forgekit: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
