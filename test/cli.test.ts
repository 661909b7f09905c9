import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryStore } from '../src/git/store.js';
import { freshDatabase, migratedDataDir } from './helpers.js';
import { listeningOn, Processes, runGathering, type Running } from './processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}dist/cli.js`;
let dataDir: string;
/** Every process a test started (and what those started), stopped after each test whatever happened in it. */
const processes = new Processes();

function run(args: string[], env: Record<string, string> = {}, command: string[] = [process.execPath, cli], cwd = root): Running {
  return runGathering(processes, command[0], [...command.slice(1), ...args], { cwd, env: { ...process.env, DATABASE_URL: '', ...env } });
}

/**
 * A process run to its end blocks the test file, past any test timeout: one that hangs is killed after this
 * long instead (and then fails its test, having no exit status).
 */
const SYNC_LIMIT = 30_000;

async function waitFor(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const listening = (server: Running) => listeningOn(server);

const port = () => 20000 + Math.floor(Math.random() * 20000);

beforeAll(() => {
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
  dataDir = migratedDataDir();
});
afterEach(() => processes.stopAll());
afterAll(() => {
  // What a timed-out test started after its afterEach.
  processes.stopAll();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A test here starts up to three servers one after the other, each opening its database: seconds apiece,
 * several times that on a busy machine, where the suite's 30 s would fail tests that work.
 */
const PROCESSES_TIMEOUT = { timeout: 120_000 };

/** The embedded database's own behaviour: tried in the PGlite suite, not again in the PostgreSQL one. */
const onEmbedded = it.skipIf(Boolean(process.env.FORGEKIT_TEST_DATABASE_URL));

const freshDir = () => mkdtempSync(join(tmpdir(), 'forgekit-cli-'));
// Servers start on a copy of a migrated data directory (test/helpers.ts), unless the test is about a first start.

describe('forgekit serve', PROCESSES_TIMEOUT, () => {
  onEmbedded(
    'starts on the embedded database, refuses a second process on the same data directory, stops on SIGTERM, and keeps its data',
    async () => {
      const first = run(['serve', '--port', String(port()), '--data-dir', dataDir], { FORGEKIT_ROOT_PASSWORD: 'serve-root-password' });
      const url = await listening(first);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.output()).not.toMatch(/created the administrator root/);

      const session = await fetch(`${url}/api/v4/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'root', password: 'serve-root-password' }),
      });
      expect(session.status).toBe(201);
      const { private_token: token } = (await session.json()) as { private_token: string };
      expect(first.output()).toContain(
        `forgekit 0.1.0: database: the embedded database (PGlite) in ${dataDir}; repositories: default=${join(dataDir, 'repositories')}\n`,
      );

      // Every path answers JSON, and each request is logged on one line, without the credentials it carried.
      const elsewhere = await fetch(`${url}/no/such/page?private_token=${token}`);
      expect([elsewhere.status, elsewhere.headers.get('content-type'), await elsewhere.json()]).toEqual([
        404,
        'application/json',
        { error: '404 Not Found' },
      ]);
      expect((await fetch(`${url}/api/v4/user?private_token=${token}&sudo=root`)).status).toBe(200);
      await waitFor(() => /GET \/api\/v4\/user 200 [\d.]+ ms/.test(first.output()));
      expect(first.output()).toMatch(/^POST \/api\/v4\/session 201 [\d.]+ ms$/m);
      expect(first.output()).toMatch(/^GET \/no\/such\/page 404 [\d.]+ ms$/m);
      expect(first.output()).not.toContain(token);

      const second = run(['serve', '--port', String(port()), '--data-dir', dataDir]);
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/in use by another forgekit process/);

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(first.output()).toMatch(/SIGTERM received, finishing the requests in flight\nforgekit: stopped\n$/);

      const again = run(['serve', '--port', String(port()), '--data-dir', dataDir]);
      const againUrl = await listening(again);
      const user = await fetch(`${againUrl}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': token } });
      expect(user.status).toBe(200);
      expect(again.output()).not.toMatch(/created the administrator root/);
      again.child.kill('SIGINT');
      expect(await again.exited).toBe(0);
    },
  );

  onEmbedded('generates and prints root’s password once when none is given', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'forgekit-cli-'));
    try {
      const serverPort = port();
      const server = run(['serve', '--port', String(serverPort), '--data-dir', fresh, '--base-url', 'https://forge.example.com']);
      await listening(server);
      const password = /root with the password: (\S+)/.exec(server.output())?.[1];
      expect(password).toEqual(expect.any(String));
      expect(server.output()).toMatch(/forgekit listening on https:\/\/forge\.example\.com/);
      // Throttling is on by default: 10 failed sign-ins per client address, then 429.
      const signIn = () =>
        fetch(`http://127.0.0.1:${serverPort}/api/v4/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ login: 'root', password: 'wrong-password' }),
        });
      for (let attempt = 0; attempt < 10; attempt += 1) expect((await signIn()).status).toBe(401);
      const throttled = await signIn();
      expect([throttled.status, Number(throttled.headers.get('retry-after')) > 0]).toEqual([429, true]);
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
      const flag = run(['serve', '--port', String(port()), '--database-url', url, '--data-dir', dataDir], {
        FORGEKIT_ROOT_TOKEN: 'cli-pg-root-token',
      });
      const flagUrl = await listening(flag);
      expect((await fetch(`${flagUrl}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'cli-pg-root-token' } })).status).toBe(200);
      flag.child.kill('SIGTERM');
      expect(await flag.exited).toBe(0);
      // DATABASE_URL: the same database, so root and its token are already there.
      const environment = run(['serve', '--port', String(port()), '--storage', join(dataDir, 'repositories')], { DATABASE_URL: url });
      const envUrl = await listening(environment);
      expect((await fetch(`${envUrl}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'cli-pg-root-token' } })).status).toBe(200);
      expect(environment.output()).not.toMatch(/created the administrator root/);
      environment.child.kill('SIGTERM');
      expect(await environment.exited).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it.runIf(process.env.FORGEKIT_TEST_DATABASE_URL)(
    'serves from --workers processes on one PostgreSQL database (issue iids race-free across them), and stops them all on SIGTERM',
    async () => {
      const database = await freshDatabase();
      const storage = freshDir();
      try {
        const server = run(['serve', '--port', '0', '--database-url', database.url, '--storage', storage, '--workers', '2'], {
          FORGEKIT_ROOT_TOKEN: 'cli-workers-token',
        });
        const url = await listening(server);
        expect(server.output()).toMatch(/forgekit listening on \S+ \(2 workers\)\n/);
        const workers = () =>
          execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.child.pid)], { encoding: 'utf8' })
            .trim()
            .split(/\s+/)
            .filter(Boolean);
        expect(workers()).toHaveLength(2);
        const api = (method: string, path: string, body?: unknown) =>
          fetch(`${url}/api/v4${path}`, {
            method,
            headers: { 'PRIVATE-TOKEN': 'cli-workers-token', 'content-type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
        const project = (await (await api('POST', '/projects', { name: 'shared' })).json()) as { id: number };
        expect(
          (await api('POST', `/projects/${project.id}/repository/files/a.txt`, { branch: 'main', content: 'a\n', commit_message: 'A' }))
            .status,
        ).toBe(201);
        // Whichever worker answers, it reads what the other wrote.
        const reads = await Promise.all(
          Array.from({ length: 20 }, () =>
            api('GET', `/projects/${project.id}/repository/files/a.txt/raw?ref=main`).then(async (res) => [res.status, await res.text()]),
          ),
        );
        expect(reads).toEqual(Array.from({ length: 20 }, () => [200, 'a\n']));
        // Issues opened at once through both workers take the iids 1 to 50, each once: the counter row orders them.
        const opened = await Promise.all(
          Array.from({ length: 50 }, (_, n) =>
            api('POST', `/projects/${project.id}/issues`, { title: `Race ${n}` }).then((res) => res.json()),
          ),
        );
        expect((opened as { iid: number }[]).map((issue) => issue.iid).sort((a, b) => a - b)).toEqual(
          Array.from({ length: 50 }, (_, n) => n + 1),
        );
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
        expect(server.output()).toMatch(/SIGTERM received, stopping 2 workers/);
      } finally {
        await database.drop();
        rmSync(storage, { recursive: true, force: true });
      }
    },
  );

  onEmbedded('keeps repositories in the storages --storage or FORGEKIT_STORAGE names', async () => {
    const fresh = freshDir();
    try {
      const [main, fast] = [join(fresh, 'main'), join(fresh, 'fast')];
      const server = run(['serve', '--port', '0', '--data-dir', migratedDataDir(join(fresh, 'data'))], {
        FORGEKIT_STORAGE: `default=${main},fast=${fast}`,
        FORGEKIT_ROOT_TOKEN: 'cli-storage-token',
      });
      const url = await listening(server);
      expect(server.output()).toContain(`; repositories: default=${main}, fast=${fast}\n`);
      const api = (method: string, path: string, body: unknown) =>
        fetch(`${url}/api/v4${path}`, {
          method,
          headers: { 'PRIVATE-TOKEN': 'cli-storage-token', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await api('PUT', '/application/settings', { repository_storages: ['fast'] })).status).toBe(200);
      const project = (await (await api('POST', '/projects', { name: 'fast-one' })).json()) as { id: number };
      expect(existsSync(join(fast, RepositoryStore.relativePath(project.id), 'HEAD'))).toBe(true);
      expect(existsSync(join(fresh, 'data', 'repositories'))).toBe(false);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('answers usage errors with exit status 2, and names the flag or variable of a bad value', async () => {
    const unknown = run(['frobnicate']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.output()).toMatch(/unknown command frobnicate/);
    const unknownFlag = run(['serve', '--prot', '80']);
    expect(await unknownFlag.exited).toBe(2);
    expect(unknownFlag.output()).toMatch(/Unknown option '--prot'[\s\S]*forgekit serve \[options\]/);
    const extra = run(['openapi', 'a.json', 'b.json']);
    expect(await extra.exited).toBe(2);
    expect(extra.output()).toMatch(/unexpected argument b\.json/);
    const bad: [string[], Record<string, string>, string][] = [
      [['serve', '--port', 'eighty'], {}, 'forgekit: --port must be a port number (0-65535), not eighty\n'],
      [
        ['serve', '--base-url', 'forge.example.com'],
        {},
        'forgekit: --base-url is invalid: it takes an absolute URL such as https://forge.example.com\n',
      ],
      [
        ['serve', '--database-url', 'mysql://db/forge'],
        {},
        'forgekit: --database-url (or DATABASE_URL) is invalid: it takes a postgres:// URL\n',
      ],
      [
        ['migrate'],
        { DATABASE_URL: 'db.example.com' },
        'forgekit: --database-url (or DATABASE_URL) is invalid: it takes a postgres:// URL\n',
      ],
      [['serve'], { FORGEKIT_ROOT_PASSWORD: 'short' }, 'forgekit: FORGEKIT_ROOT_PASSWORD is too short (minimum is 8 characters)\n'],
      [
        ['serve', '--max-auth-failures', 'lots'],
        {},
        'forgekit: --max-auth-failures (or FORGEKIT_MAX_AUTH_FAILURES) is invalid: it takes a whole number, 0 to turn throttling off\n',
      ],
      [
        ['serve'],
        { FORGEKIT_AUTH_FAILURE_PERIOD: '0' },
        'forgekit: --auth-failure-period (or FORGEKIT_AUTH_FAILURE_PERIOD) must be greater than or equal to 1\n',
      ],
      [
        ['serve', '--request-timeout', 'soon'],
        {},
        'forgekit: --request-timeout (or FORGEKIT_REQUEST_TIMEOUT) is invalid: it takes a number of seconds, 0 for none\n',
      ],
      [
        ['serve', '--database-url', 'postgres://db.example.com/forge'],
        { FORGEKIT_LOCK_TIMEOUT: '-1' },
        'forgekit: --lock-timeout (or FORGEKIT_LOCK_TIMEOUT) must be greater than or equal to 0\n',
      ],
      [['migrate'], { FORGEKIT_ROOT_TOKEN: 'short' }, 'forgekit: FORGEKIT_ROOT_TOKEN is too short (minimum is 8 characters)\n'],
      [['serve', '--storage', 'fast='], {}, 'forgekit: --storage fast= needs a directory\n'],
      [
        ['serve', '--workers', '2'],
        {},
        'forgekit: --workers needs --database-url: the embedded database (PGlite) is opened by one process\n',
      ],
      [['serve'], { FORGEKIT_WORKERS: '0' }, 'forgekit: --workers (or FORGEKIT_WORKERS) takes a whole number from 1 to 64, not 0\n'],
      [['serve', '--storage', 'a=/srv/a', '--storage', 'a=/srv/b'], {}, 'forgekit: --storage names the storage a twice\n'],
      [
        ['serve'],
        { FORGEKIT_STORAGE: 'not ok=/srv/a' },
        `forgekit: --storage names a storage with letters, digits, '_', '.' and '-', not "not ok"\n`,
      ],
    ];
    const refusals = bad.map(([args, env, message]) => ({ args, message, refused: run(args, env) }));
    for (const { args, message, refused } of refusals) expect([args, await refused.exited, refused.output()]).toEqual([args, 1, message]);
  });

  it('prints the usage of each command for --help and -h, the version for --version, and writes no file named --help', async () => {
    const cwd = freshDir();
    try {
      for (const command of ['serve', 'migrate', 'openapi', 'migration:create']) {
        for (const flag of ['--help', '-h']) {
          const help = spawnSync(process.execPath, [cli, command, flag], { cwd, encoding: 'utf8', timeout: SYNC_LIMIT });
          expect([command, flag, help.status, help.stdout.startsWith(`forgekit ${command} [`)]).toEqual([command, flag, 0, true]);
        }
      }
      const usage = spawnSync(process.execPath, [cli, '--help'], { cwd, encoding: 'utf8', timeout: SYNC_LIMIT });
      expect([usage.status, usage.stdout]).toEqual([
        0,
        expect.stringMatching(/^forgekit 0\.1\.0: [\s\S]*forgekit serve [\s\S]*forgekit migrate [\s\S]*forgekit openapi /),
      ]);
      expect(spawnSync(process.execPath, [cli, '--version'], { cwd, encoding: 'utf8', timeout: SYNC_LIMIT }).stdout).toBe('0.1.0\n');
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  onEmbedded('exits with a clear message when the port is in use, before it touches the data directory', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port: takenPort } = taken.address() as { port: number };
    const fresh = join(freshDir(), 'data');
    try {
      const server = run(['serve', '--port', String(takenPort), '--data-dir', fresh]);
      expect(await server.exited).toBe(1);
      expect(server.output()).toBe(`forgekit: cannot listen on 127.0.0.1:${takenPort}: the port is in use; choose another with --port\n`);
      expect(existsSync(fresh)).toBe(false);
    } finally {
      taken.close();
      rmSync(join(fresh, '..'), { recursive: true, force: true });
    }
  });

  onEmbedded('migrate on a new data directory prints root’s generated password, which serve then accepts', async () => {
    const fresh = freshDir();
    try {
      const migrate = run(['migrate', '--data-dir', fresh]);
      expect(await migrate.exited).toBe(0);
      const password = /root with the password: (\S+)/.exec(migrate.output())?.[1] ?? '';
      expect(password).toMatch(/^\S{12,}$/);
      const again = run(['migrate', '--data-dir', fresh]);
      expect(await again.exited).toBe(0);
      expect(again.output()).toBe('forgekit: the database is up to date\n');
      const server = run(['serve', '--port', '0', '--data-dir', fresh]);
      const url = await listening(server);
      const session = await fetch(`${url}/api/v4/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'root', password }),
      });
      expect(session.status).toBe(201);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  onEmbedded('restarts on its data directory after kill -9, also as PID 1 of a container', async () => {
    // As PID 1 of a new PID namespace where the machine allows it (a lock naming "pid 1" would look alive forever).
    const asPid1 = spawnSync('unshare', ['--pid', '--fork', '--kill-child', 'true']).status === 0;
    const command = asPid1 ? ['unshare', '--pid', '--fork', '--kill-child', process.execPath, cli] : [process.execPath, cli];
    const fresh = migratedDataDir();
    try {
      for (let start = 0; start < 2; start += 1) {
        const server = run(['serve', '--port', '0', '--data-dir', fresh], { FORGEKIT_ROOT_TOKEN: 'pid-one-root-token' }, command);
        const url = await listening(server);
        expect((await fetch(`${url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'pid-one-root-token' } })).status).toBe(200);
        server.child.kill('SIGKILL');
        await server.exited;
        // The killed server is gone with its port (with --kill-child, once its namespace is).
        await waitFor(() => spawnSync('pgrep', ['-f', `serve --port 0 --data-dir ${fresh}`]).status !== 0);
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  onEmbedded('on SIGTERM finishes the requests in flight before it closes the database', async () => {
    const fresh = migratedDataDir();
    try {
      const server = run(['serve', '--port', '0', '--data-dir', fresh], { FORGEKIT_ROOT_TOKEN: 'sigterm-root-token' });
      const url = await listening(server);
      const requests = Array.from({ length: 40 }, () =>
        fetch(`${url}/api/v4/users?per_page=100`, { headers: { 'PRIVATE-TOKEN': 'sigterm-root-token' } }).then(
          (response) => response.status,
          () => 'refused',
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      server.child.kill('SIGTERM');
      const statuses = await Promise.all(requests);
      expect(await server.exited).toBe(0);
      // Answered, or refused once stopping began; never a failure of a closed database.
      expect(statuses.filter((status) => status !== 200 && status !== 503 && status !== 'refused')).toEqual([]);
      expect(statuses).toContain(200);
      // A 500 as a logged status: the output also holds the port and durations, which may contain those digits.
      expect(server.output()).not.toMatch(/destroyed|^GET \S+ 500 |Error/m);
      // The requests in flight are answered (and logged) after the signal, then the server stops.
      expect(server.output()).toMatch(
        /SIGTERM received, finishing the requests in flight\n(GET \S+ \d{3} [\d.]+ ms\n)*forgekit: stopped\n$/,
      );
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('npm start', PROCESSES_TIMEOUT, () => {
  onEmbedded('does not rebuild a current build, and stops the server when npm is stopped', async () => {
    const fresh = migratedDataDir();
    try {
      const npm = run(['start', '--', '--port', '0', '--data-dir', fresh], { FORGEKIT_ROOT_TOKEN: 'npm-start-root-token' }, ['npm']);
      const url = await listening(npm);
      expect(npm.output()).not.toMatch(/building/);
      expect((await fetch(`${url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'npm-start-root-token' } })).status).toBe(200);
      npm.child.kill('SIGTERM');
      await npm.exited;
      await waitFor(() => /forgekit: stopped/.test(npm.output()));
      await expect(fetch(`${url}/api/v4/version`)).rejects.toThrow();
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
