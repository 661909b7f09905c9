import { Type, type Static } from 'typebox';
import type { Logger } from './logger.js';

/** The options of `createHostingService`, as a schema: checked at start, documented from one place. */
export const HostingOptionsSchema = Type.Object({
  database: Type.Optional(
    Type.Object({
      url: Type.Optional(Type.String({ description: 'postgres:// URL of a PostgreSQL server' })),
      dataDir: Type.Optional(Type.String({ description: 'directory of the embedded PGlite database' })),
      isolated: Type.Optional(
        Type.Boolean({
          description:
            'with `url`: a new database of its own on that server, copied from a migrated template (made once per server and set of migrations) and dropped on `close()`; for tests. In memory a database is always new',
        }),
      ),
    }, { description: 'PostgreSQL (`url`), PGlite on disk (`dataDir`), or PGlite in memory when omitted' }),
  ),
  storage: Type.Optional(
    Type.Union([Type.String(), Type.Record(Type.String(), Type.String())], {
      description: 'repository storage root: a directory, or named directories (`{ default: "/srv/repos" }`)',
    }),
  ),
  baseUrl: Type.Optional(Type.String({ format: 'uri', description: 'external URL, used in `web_url` and `Link` headers' })),
  rootPassword: Type.Optional(Type.String({ minLength: 8, description: "root's password on first start" })),
  rootToken: Type.Optional(Type.String({ minLength: 8, description: 'a private token for root, accepted from first start on' })),
  throttle: Type.Optional(
    Type.Object(
      {
        maxFailures: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'failed authentications allowed per client address, and per login, in one period' }),
        periodSeconds: Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600, description: 'the period in seconds, counted from the first failure' }),
      },
      { description: 'throttle failed sign-ins and invalid tokens (429 with Retry-After); off when omitted' },
    ),
  ),
  checkResponses: Type.Optional(Type.Boolean({ description: 'check every answer against its schema (tests)' })),
});

export type HostingOptions = Static<typeof HostingOptionsSchema> & {
  /** Where forgekit reports errors and start-up; silent when omitted. */
  logger?: Logger;
};

/** `forgekit serve` flags and environment → options. */
export interface ServeSettings {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  baseUrl?: string;
  rootPassword?: string;
  rootToken?: string;
}

export function serveSettings(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): ServeSettings {
  const port = Number(flags.port ?? env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not ${flags.port}`);
  return {
    port,
    host: flags.host ?? '127.0.0.1',
    dataDir: flags['data-dir'] ?? './.forgekit',
    databaseUrl: flags['database-url'] ?? env.DATABASE_URL,
    baseUrl: flags['base-url'],
    rootPassword: env.FORGEKIT_ROOT_PASSWORD || undefined,
    rootToken: env.FORGEKIT_ROOT_TOKEN || undefined,
  };
}
