import { spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migratedDataDir } from './helpers.js';
import { Processes } from './processes.js';

/*
 * Real clients of the original service, unchanged, against `forgekit serve`: python-gitlab 3.12 (Debian's
 * python3-gitlab) runs test/clients/python_flows.py, go-gitlab 0.73 (Debian's golang-github-xanzy-go-gitlab-dev,
 * built offline in GOPATH mode with Debian's golang-go) runs test/clients/go_flows. Both need gpg.
 *
 * FORGEKIT_CLIENT_TESTS: unset, the tests run where the clients are installed and are skipped elsewhere;
 * `required`, a missing client fails instead; `off`, they are skipped (CI runs them in one suite only).
 */

const mode = process.env.FORGEKIT_CLIENT_TESTS ?? '';
const required = mode === 'required';
const off = mode === 'off';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const pythonFlows = fileURLToPath(new URL('./clients/python_flows.py', import.meta.url));
const goFlows = fileURLToPath(new URL('./clients/go_flows', import.meta.url));
/** Debian's Go sources: go-gitlab and what it imports, used in GOPATH mode (no module download). */
const GOPATH = '/usr/share/gocode';
/** The Go build cache and the built program; kept between runs so that a rebuild takes a second or two. */
const goCache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'forgekit-go');
const goEnv = {
  GO111MODULE: 'off',
  GOPATH,
  GOCACHE: join(goCache, 'build'),
  GOPROXY: 'off',
  GOFLAGS: '',
  CGO_ENABLED: '0',
};

function succeeds(command: string, args: string[], env: Record<string, string> = {}): boolean {
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, stdio: 'ignore', timeout: 20_000 });
  return result.status === 0;
}

/** Debian's python3-gitlab lives in the system interpreter's dist-packages, not in a pyenv or venv one. */
const python = ['/usr/bin/python3', 'python3'].find((candidate) =>
  succeeds(candidate, ['-c', 'import gitlab, sys; sys.exit(0 if gitlab.__version__.startswith("3.") else 1)']),
);
const hasGpg = succeeds('gpg', ['--version']);
const hasGo = succeeds('go', ['version']) && existsSync(join(GOPATH, 'src/github.com/xanzy/go-gitlab'));

const missingPython = [!python && 'python-gitlab 3 (apt-get install python3-gitlab)', !hasGpg && 'gpg (apt-get install gnupg)'].filter(
  Boolean,
);
const missingGo = [
  !hasGo && 'go and go-gitlab (apt-get install golang-go golang-github-xanzy-go-gitlab-dev)',
  !hasGpg && 'gpg (apt-get install gnupg)',
].filter(Boolean);
const runPython = !off && (required || missingPython.length === 0);
const runGo = !off && (required || missingGo.length === 0);

/** The server and the Go build, started before the tests and stopped after them. */
const background = new Processes();
/** The client programs, stopped after each test, whatever happened in it. */
const programs = new Processes();
/**
 * The programs' temporary directory (TMPDIR, which Python's tempfile and Go's ioutil.TempDir follow): the gpg
 * home directories they make are in it, and so the gpg-agents those start, which leave their process group.
 */
let programsTmp = '';

interface Finished {
  code: number | null;
  output: string;
}

function run(
  processes: Processes,
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeout: number },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = processes.start(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Within the test's own timeout, so that the failure shows the output so far.
    const timer = setTimeout(() => {
      processes.stop(child);
      output += `\n(killed after ${options.timeout} ms)`;
    }, options.timeout);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function expectSuccess(what: string, result: Finished): void {
  if (result.code !== 0) throw new Error(`${what} exited with ${result.code}:\n${result.output}`);
  expect(result.output).toMatch(/all flows passed/);
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const ROOT_TOKEN = 'client-tests-root-token';
let server: ChildProcessWithoutNullStreams | undefined;
let serverOutput = '';
let url = '';
let dataDir = '';
let goBuild: Promise<Finished> | undefined;
const goProgram = join(goCache, 'go_flows');

beforeAll(async () => {
  if (!runPython && !runGo) return;
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: `npm test` builds it first (npm run build)');
  if (runGo && hasGo) {
    // Compiled while the server starts; `go build` reuses its cache, so only the first run is slow.
    mkdirSync(goCache, { recursive: true });
    goBuild = run(background, 'go', ['build', '-o', goProgram, '.'], { cwd: goFlows, env: goEnv, timeout: 240_000 });
  }
  dataDir = migratedDataDir();
  const child = background.start(process.execPath, [cli, 'serve', '--port', String(await freePort()), '--data-dir', dataDir], {
    env: { ...process.env, DATABASE_URL: '', FORGEKIT_ROOT_TOKEN: ROOT_TOKEN },
  });
  server = child;
  child.stdout.on('data', (chunk: Buffer) => (serverOutput += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (serverOutput += chunk.toString()));
  for (let waited = 0; !url; waited += 50) {
    const match = /forgekit listening on (\S+)/.exec(serverOutput);
    if (match) url = match[1];
    else if (waited > 55_000 || child.exitCode !== null) throw new Error(`the server did not start:\n${serverOutput}`);
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 60_000);

afterEach(() => {
  programs.stopAll();
  if (!programsTmp) return;
  for (const home of readdirSync(programsTmp)) {
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], {
      env: { ...process.env, GNUPGHOME: join(programsTmp, home) },
      stdio: 'ignore',
      timeout: 20_000,
    });
  }
  rmSync(programsTmp, { recursive: true, force: true });
  programsTmp = '';
});

afterAll(async () => {
  // The server stops on SIGTERM, its database closed; one that does not within 10 s is killed like the rest.
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
  background.stopAll();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A fresh temporary directory for the test's programs. */
function programEnv(): Record<string, string> {
  programsTmp = mkdtempSync(join(tmpdir(), 'forgekit-client-programs-'));
  return { TMPDIR: programsTmp };
}

// Tests of one file run one after the other: both programs change application settings and read them back.
describe('real clients against forgekit serve', () => {
  it.runIf(runPython)(
    'python-gitlab 3.12 runs every flow',
    async () => {
      if (missingPython.length) throw new Error(`FORGEKIT_CLIENT_TESTS=required, but missing: ${missingPython.join(', ')}`);
      const result = await run(programs, python!, [pythonFlows, url, ROOT_TOKEN], { env: programEnv(), timeout: 120_000 });
      expectSuccess('python_flows.py', result);
    },
    150_000,
  );

  it.runIf(runGo)(
    'go-gitlab 0.73 runs every flow',
    async () => {
      if (missingGo.length) throw new Error(`FORGEKIT_CLIENT_TESTS=required, but missing: ${missingGo.join(', ')}`);
      const built = await goBuild!;
      if (built.code !== 0) throw new Error(`go build of test/clients/go_flows failed:\n${built.output}`);
      const result = await run(programs, goProgram, [url, ROOT_TOKEN], { env: programEnv(), timeout: 120_000 });
      expectSuccess('go_flows', result);
    },
    300_000,
  );
});
