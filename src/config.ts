import { resolve } from 'node:path';
import { Type, type Static } from 'typebox';
import { parseInput } from './api/validation.js';
import { BadRequestError } from './errors.js';
import type { Logger } from './logger.js';

/** A storage's name: what `repository_storages` and projects' `repository_storage` hold. */
export const STORAGE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** A number of seconds, at most a day. */
const seconds = (minimum: number, description: string) => Type.Integer({ minimum, maximum: 86_400, description });

/** The options of `createHostingService`, as a schema: checked at start, documented from one place. */
export const HostingOptionsSchema = Type.Object({
  database: Type.Optional(
    Type.Object(
      {
        url: Type.Optional(
          Type.String({ maxLength: 4096, pattern: '^postgres(ql)?://', description: 'postgres:// URL of a PostgreSQL server' }),
        ),
        dataDir: Type.Optional(Type.String({ description: 'directory of the embedded PGlite database' })),
        isolated: Type.Optional(
          Type.Boolean({
            description:
              'with `url`: a new database of its own on that server, copied from a migrated template (made once per server ' +
              'and set of migrations) and dropped on `close()`; for tests. In memory a database is always new',
          }),
        ),
        poolSize: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 1000, description: 'with `url`: the most connections this process opens (default 10)' }),
        ),
        connectTimeout: Type.Optional(
          seconds(1, 'with `url`: seconds to open a connection, or to wait for one of the pool, before the call answers 503 (default 10)'),
        ),
        statementTimeout: Type.Optional(
          seconds(
            0,
            'with `url`: seconds one statement may run before the server cancels it ' +
              "(default 30; 0: no limit; PostgreSQL's statement_timeout)",
          ),
        ),
        lockTimeout: Type.Optional(
          seconds(0, "with `url`: seconds a statement may wait for a lock (default 30; 0: no limit; PostgreSQL's lock_timeout)"),
        ),
        idleInTransactionTimeout: Type.Optional(
          seconds(
            0,
            'with `url`: seconds a session may stay idle inside a transaction before the server ends it and its locks go ' +
              "(default 60; 0: no limit; PostgreSQL's idle_in_transaction_session_timeout)",
          ),
        ),
      },
      { description: 'PostgreSQL (`url`), PGlite on disk (`dataDir`), or PGlite in memory when omitted' },
    ),
  ),
  storage: Type.Optional(
    Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 4096 }),
        Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 4096 }), { minProperties: 1, maxProperties: 64 }),
      ],
      {
        description:
          'repository storage root: a directory, or named directories (`{ default: "/srv/repos" }`). Default: `<dataDir>/repositories`; ' +
          'a temporary directory for an in-memory or `isolated` database; required with a PostgreSQL `url`',
      },
    ),
  ),
  allowLocalRequests: Type.Optional(
    Type.Boolean({
      description:
        'let imports reach loopback, link-local, private and unspecified addresses whatever the application setting ' +
        '`allow_local_requests_from_web_hooks_and_services` says (off by default)',
    }),
  ),
  baseUrl: Type.Optional(Type.String({ format: 'uri', description: 'external URL, used in `web_url` and `Link` headers' })),
  rootPassword: Type.Optional(Type.String({ minLength: 8, description: "root's password on first start" })),
  rootToken: Type.Optional(Type.String({ minLength: 8, description: 'a private token for root, accepted from first start on' })),
  throttle: Type.Optional(
    Type.Object(
      {
        maxFailures: Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          description: 'failed authentications allowed per client address, and per login, in one period',
        }),
        periodSeconds: Type.Integer({
          minimum: 1,
          maximum: 7 * 24 * 3600,
          description: 'the period in seconds, counted from the first failure',
        }),
      },
      { description: 'throttle failed sign-ins and invalid tokens (429 with Retry-After); off when omitted' },
    ),
  ),
  secretKey: Type.Optional(
    Type.String({
      minLength: 32,
      maxLength: 4096,
      description:
        'the key that seals the secrets forgekit shows again (runners tokens); generated when omitted: kept in the data directory, ' +
        'or in the PostgreSQL database (give one so that the database alone does not reveal them)',
    }),
  ),
  requestTimeout: Type.Optional(
    seconds(
      0,
      'seconds a call may take before it answers 503 with Retry-After and rolls back (default 60; 0: no deadline); ' +
        'a streamed answer (a file, an archive) is timed until it starts',
    ),
  ),
  maxPushSize: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1024 * 1024, description: 'the largest pack a git push may send, in MiB (default 1024)' }),
  ),
  checkResponses: Type.Optional(Type.Boolean({ description: 'check every answer against its schema (tests)' })),
  testDouble: Type.Optional(
    Type.Boolean({
      description:
        'run as a test double of the original service (docs/testing.md): `reset()`, snapshots, seeds, faults and the request ' +
        'journal, and their administrators-only control surface under `/-/forgekit/`; off by default',
    }),
  ),
});

export type HostingOptions = Static<typeof HostingOptionsSchema> & {
  /** Where forgekit reports errors and start-up; silent when omitted. */
  logger?: Logger;
  /**
   * The instance's clock (docs/testing.md "A clock"): a time to start at (a `Date`, or an ISO 8601 date and time with its
   * offset), from which it goes on as real time does, or an object whose `now()` it reads. The system's when omitted.
   */
  clock?: Date | string | { now(): Date };
};

/** `forgekit serve` and `forgekit migrate`: the options their flags and environment give, and where the server listens. */
export interface ServeSettings {
  port: number;
  host: string;
  /** Processes serving the port (PostgreSQL only). */
  workers: number;
  options: HostingOptions;
}

/** The most worker processes `serve --workers` starts. */
const MAX_WORKERS = 64;

/**
 * Where each option comes from on the command line, and what it takes, so that a bad value is reported by
 * the name the user typed.
 */
const OPTION_SOURCES: Record<string, { source: string; takes?: string }> = {
  'database[url]': { source: '--database-url (or DATABASE_URL)', takes: 'a postgres:// URL' },
  'database[dataDir]': { source: '--data-dir', takes: 'a directory' },
  storage: { source: '--storage (or FORGEKIT_STORAGE)', takes: 'a directory, or NAME=DIR once per storage' },
  baseUrl: { source: '--base-url', takes: 'an absolute URL such as https://forge.example.com' },
  'throttle[maxFailures]': {
    source: '--max-auth-failures (or FORGEKIT_MAX_AUTH_FAILURES)',
    takes: 'a whole number, 0 to turn throttling off',
  },
  requestTimeout: { source: '--request-timeout (or FORGEKIT_REQUEST_TIMEOUT)', takes: 'a number of seconds, 0 for none' },
  'database[poolSize]': { source: '--pool-size (or FORGEKIT_POOL_SIZE)', takes: 'a whole number of connections' },
  'database[connectTimeout]': { source: '--connect-timeout (or FORGEKIT_CONNECT_TIMEOUT)', takes: 'a number of seconds' },
  'database[statementTimeout]': { source: '--statement-timeout (or FORGEKIT_STATEMENT_TIMEOUT)', takes: 'a number of seconds' },
  'database[lockTimeout]': { source: '--lock-timeout (or FORGEKIT_LOCK_TIMEOUT)', takes: 'a number of seconds' },
  'database[idleInTransactionTimeout]': {
    source: '--idle-in-transaction-timeout (or FORGEKIT_IDLE_IN_TRANSACTION_TIMEOUT)',
    takes: 'a number of seconds',
  },
  'throttle[periodSeconds]': { source: '--auth-failure-period (or FORGEKIT_AUTH_FAILURE_PERIOD)', takes: 'a number of seconds' },
  rootPassword: { source: 'FORGEKIT_ROOT_PASSWORD' },
  rootToken: { source: 'FORGEKIT_ROOT_TOKEN' },
  secretKey: { source: 'FORGEKIT_SECRET_KEY', takes: 'at least 32 characters' },
};

/**
 * `--storage` (repeated) or `FORGEKIT_STORAGE` (comma-separated): `DIR` is the storage `default`, `NAME=DIR` a
 * named one. Without either, `<dataDir>/repositories`, whichever database holds the rows.
 */
function storageOption(values: string[], dataDir: string): HostingOptions['storage'] {
  if (!values.length) return { default: resolve(dataDir, 'repositories') };
  const named: Record<string, string> = {};
  for (const value of values) {
    const match = /^([^=/\\]+)=(.*)$/.exec(value);
    const [name, directory] = match ? [match[1], match[2]] : ['default', value];
    if (!STORAGE_NAME.test(name))
      throw new Error(`--storage names a storage with letters, digits, '_', '.' and '-', not ${JSON.stringify(name)}`);
    if (!directory) throw new Error(`--storage ${name}= needs a directory`);
    if (named[name] !== undefined) throw new Error(`--storage names the storage ${name} twice`);
    named[name] = resolve(directory);
  }
  return named;
}

export function serveSettings(flags: Record<string, string | string[] | boolean | undefined>, env: NodeJS.ProcessEnv): ServeSettings {
  const text = (value: string | string[] | boolean | undefined) => (typeof value === 'string' && value !== '' ? value : undefined);
  const port = Number(text(flags.port) ?? text(env.PORT) ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be a port number (0-65535), not ${flags.port ?? env.PORT}`);
  const databaseUrl = text(flags['database-url']) ?? text(env.DATABASE_URL);
  const workers = Number(text(flags.workers) ?? text(env.FORGEKIT_WORKERS) ?? 1);
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS)
    throw new Error(
      `--workers (or FORGEKIT_WORKERS) takes a whole number from 1 to ${MAX_WORKERS}, not ${flags.workers ?? env.FORGEKIT_WORKERS}`,
    );
  if (workers > 1 && !databaseUrl)
    throw new Error('--workers needs --database-url: the embedded database (PGlite) is opened by one process');
  // The data directory holds the embedded database, and the repositories in either mode unless --storage says otherwise.
  const dataDir = resolve(text(flags['data-dir']) ?? './.forgekit');
  const storageFlags = Array.isArray(flags.storage) ? flags.storage : typeof flags.storage === 'string' ? [flags.storage] : [];
  const storageValues = storageFlags.length ? storageFlags : (text(env.FORGEKIT_STORAGE)?.split(',') ?? []);
  const flag = (value: string | string[] | boolean | undefined) =>
    value === true || (typeof value === 'string' && /^(1|true|yes)$/i.test(value));
  // Throttling is on by default for a server that faces a network; 0 failures turns it off.
  const maxFailures = Number(text(flags['max-auth-failures']) ?? text(env.FORGEKIT_MAX_AUTH_FAILURES) ?? 10);
  const periodSeconds = Number(text(flags['auth-failure-period']) ?? text(env.FORGEKIT_AUTH_FAILURE_PERIOD) ?? 600);
  // A number given by flag or environment; checked by the schema below, under the name the user typed.
  const number = (flagName: string, envName: string) => {
    const value = text(flags[flagName]) ?? text(env[envName]);
    return value === undefined ? undefined : Number(value);
  };
  const options: HostingOptions = {
    database: databaseUrl
      ? {
          url: databaseUrl,
          poolSize: number('pool-size', 'FORGEKIT_POOL_SIZE'),
          connectTimeout: number('connect-timeout', 'FORGEKIT_CONNECT_TIMEOUT'),
          statementTimeout: number('statement-timeout', 'FORGEKIT_STATEMENT_TIMEOUT'),
          lockTimeout: number('lock-timeout', 'FORGEKIT_LOCK_TIMEOUT'),
          idleInTransactionTimeout: number('idle-in-transaction-timeout', 'FORGEKIT_IDLE_IN_TRANSACTION_TIMEOUT'),
        }
      : { dataDir },
    requestTimeout: number('request-timeout', 'FORGEKIT_REQUEST_TIMEOUT'),
    storage: storageOption(
      storageValues.filter((value) => value !== ''),
      dataDir,
    ),
    allowLocalRequests: flag(flags['allow-local-requests']) || flag(env.FORGEKIT_ALLOW_LOCAL_REQUESTS) || undefined,
    throttle: maxFailures === 0 ? undefined : { maxFailures, periodSeconds },
    baseUrl: text(flags['base-url']),
    rootPassword: text(env.FORGEKIT_ROOT_PASSWORD),
    rootToken: text(env.FORGEKIT_ROOT_TOKEN),
    secretKey: text(env.FORGEKIT_SECRET_KEY),
  };
  try {
    parseInput(HostingOptionsSchema, options);
  } catch (error) {
    if (!(error instanceof BadRequestError) || typeof error.messages === 'string') throw error;
    const [[option, messages]] = Object.entries(error.messages);
    const { source, takes } = OPTION_SOURCES[option] ?? { source: option };
    const problem = Array.isArray(messages) ? messages.join(', ') : 'is invalid';
    throw new Error(`${source} ${problem}${problem === 'is invalid' && takes ? `: it takes ${takes}` : ''}`);
  }
  return { port, host: text(flags.host) ?? '127.0.0.1', workers, options };
}
