import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from './helpers.js';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
let dataDir: string;

interface Running {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: '', ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function listening(server: Running): Promise<string> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const match = /forgekit listening on (\S+)/.exec(server.output());
    if (match) return match[1];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server did not start:\n${server.output()}`);
}

const port = () => 20000 + Math.floor(Math.random() * 20000);

beforeAll(() => {
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
  dataDir = mkdtempSync(join(tmpdir(), 'forgekit-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('forgekit serve', () => {
  it('starts on the embedded database, refuses a second process on the same data directory, stops on SIGTERM, and keeps its data', async () => {
    const first = run(['serve', '--port', String(port()), '--data-dir', dataDir], { FORGEKIT_ROOT_PASSWORD: 'serve-root-password' });
    const url = await listening(first);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.output()).not.toMatch(/Created the administrator root/);

    const session = await fetch(`${url}/api/v4/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'root', password: 'serve-root-password' }),
    });
    expect(session.status).toBe(201);
    const { private_token: token } = (await session.json()) as { private_token: string };

    const second = run(['serve', '--port', String(port()), '--data-dir', dataDir]);
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/in use by another forgekit process/);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toMatch(/SIGTERM received, shutting down/);

    const again = run(['serve', '--port', String(port()), '--data-dir', dataDir]);
    const againUrl = await listening(again);
    const user = await fetch(`${againUrl}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': token } });
    expect(user.status).toBe(200);
    expect(again.output()).not.toMatch(/Created the administrator root/);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });

  it('generates and prints root’s password once when none is given', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'forgekit-cli-'));
    try {
      const server = run(['serve', '--port', String(port()), '--data-dir', fresh, '--base-url', 'https://forge.example.com']);
      await listening(server);
      const password = /root with the password: (\S+)/.exec(server.output())?.[1];
      expect(password).toEqual(expect.any(String));
      expect(server.output()).toMatch(/forgekit listening on https:\/\/forge\.example\.com/);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it.runIf(process.env.FORGEKIT_TEST_DATABASE_URL)('runs on PostgreSQL with --database-url or DATABASE_URL', async () => {
    const database = await freshDatabase();
    const url = database.url;
    try {
      const flag = run(['serve', '--port', String(port()), '--database-url', url], { FORGEKIT_ROOT_TOKEN: 'cli-pg-root-token' });
      const flagUrl = await listening(flag);
      expect((await fetch(`${flagUrl}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'cli-pg-root-token' } })).status).toBe(200);
      flag.child.kill('SIGTERM');
      expect(await flag.exited).toBe(0);
      // DATABASE_URL: the same database, so root and its token are already there.
      const environment = run(['serve', '--port', String(port())], { DATABASE_URL: url });
      const envUrl = await listening(environment);
      expect((await fetch(`${envUrl}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'cli-pg-root-token' } })).status).toBe(200);
      expect(environment.output()).not.toMatch(/Created the administrator root/);
      environment.child.kill('SIGTERM');
      expect(await environment.exited).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('answers usage errors', async () => {
    const unknown = run(['frobnicate']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.output()).toMatch(/unknown command frobnicate/);
    const badPort = run(['serve', '--port', 'eighty']);
    expect(await badPort.exited).toBe(1);
    expect(badPort.output()).toMatch(/--port must be a port number/);
  });
});
