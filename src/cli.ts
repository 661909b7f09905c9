import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import express from 'express';
import { openApiDocument } from './api/openapi.js';
import { serveSettings } from './config.js';
import { openDatabase } from './db/orm.js';
import { createHostingService } from './hosting.js';

const USAGE = `Usage:
  forgekit serve [--port 8080] [--host 127.0.0.1] [--data-dir ./.forgekit] [--database-url postgres://...] [--base-url URL]
      Runs the service. Environment: DATABASE_URL, FORGEKIT_ROOT_PASSWORD, FORGEKIT_ROOT_TOKEN (root's credentials on first start).
  forgekit migrate [--data-dir ./.forgekit] [--database-url postgres://...]
      Applies pending database migrations and exits.
  forgekit openapi [file]
      Writes the OpenAPI document (to standard output without a file).
  forgekit migration:create [dir]
      Development: writes a migration for the difference between the entities and the committed migrations
      (default dir src/db/migrations; add it to src/db/migrations/index.ts).`;

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' }, 'database-url': { type: 'string' }, 'base-url': { type: 'string' } },
  });
  const settings = serveSettings(values, process.env);
  const baseUrl = settings.baseUrl ?? `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${settings.port}`;
  const hosting = await createHostingService({
    database: settings.databaseUrl ? { url: settings.databaseUrl } : { dataDir: settings.dataDir },
    baseUrl,
    rootPassword: settings.rootPassword,
    rootToken: settings.rootToken,
    logger: console,
  });
  if (hosting.generatedRootPassword) {
    console.log(`Created the administrator root with the password: ${hosting.generatedRootPassword}`);
    console.log('It is shown this once; set FORGEKIT_ROOT_PASSWORD on first start to choose it.');
  }
  const app = express();
  app.disable('x-powered-by');
  app.use(hosting.router());
  const server = app.listen(settings.port, settings.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : settings.port;
    console.log(`forgekit listening on ${settings.baseUrl ?? `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`}`);
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`forgekit: ${signal} received, shutting down`);
    server.close(() => {
      hosting.close().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function migrate(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' } } });
  const settings = serveSettings(values, process.env);
  const hosting = await createHostingService({ database: settings.databaseUrl ? { url: settings.databaseUrl } : { dataDir: settings.dataDir } });
  await hosting.close();
  console.log('forgekit: the database is up to date');
}

async function createMigration(args: string[]): Promise<void> {
  const db = await openDatabase();
  try {
    const result = await db.orm.migrator.create(resolve(args[0] ?? 'src/db/migrations'));
    console.log(result.fileName ? `forgekit: wrote ${result.fileName}` : 'forgekit: the entities match the migrations');
  } finally {
    await db.close();
  }
}

function openapi(args: string[]): void {
  const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
  if (!args[0]) return void process.stdout.write(text);
  mkdirSync(dirname(args[0]), { recursive: true });
  writeFileSync(args[0], text);
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  switch (command) {
    case 'serve':
      return serve(args);
    case 'migrate':
      return migrate(args);
    case 'openapi':
      return openapi(args);
    case 'migration:create':
      return createMigration(args);
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
    default:
      console.error(`forgekit: unknown command ${command}\n\n${USAGE}`);
      process.exitCode = 2;
  }
}

main().catch((error: unknown) => {
  console.error(`forgekit: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
