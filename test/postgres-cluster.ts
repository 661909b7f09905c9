import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own, which it may stop, crash and start again (the PostgreSQL suite's shared
 * server must stay up for the other files): initdb in a temporary directory, listening on a free port of 127.0.0.1
 * with its socket in that directory. Made to start fast (no fsync: a crash of the server loses nothing, only one of
 * the machine would), and as the user postgres when the test runs as root, whom initdb refuses.
 */
export class PostgresCluster {
  private constructor(
    /** Runs a program of PostgreSQL's as the cluster's owner. */
    private readonly program: Program,
    /** Its temporary directory: the data directory (`data`), the log (`log`) and the socket. */
    readonly directory: string,
    readonly port: number,
  ) {}

  /** Makes a cluster and starts it; throws, removing what it made, when it cannot. */
  static async start(): Promise<PostgresCluster> {
    const found = postgresPrograms();
    if ('unavailable' in found) throw new Error(found.unavailable);
    const directory = mkdtempSync(join(tmpdir(), 'forgekit-test-postgres-'));
    try {
      if (found.owner) chownSync(directory, found.owner.uid, found.owner.gid);
      await run(
        ...found.program('initdb', ['--pgdata', join(directory, 'data'), '--username', 'postgres', '--auth', 'trust', '--no-sync']),
      );
      // A port found free may be taken before the server takes it: another try on another port.
      for (let attempt = 1; ; attempt++) {
        const cluster = new PostgresCluster(found.program, directory, await freePort());
        try {
          await cluster.startServer();
          process.once('exit', cluster.stopAtExit);
          return cluster;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    } catch (error) {
      // A server that started too late for `--wait` goes too.
      await run(...found.program('pg_ctl', ['--pgdata', join(directory, 'data'), 'stop', '--mode', 'immediate'])).catch(() => {});
      rmSync(directory, { recursive: true, force: true });
      throw error;
    }
  }

  /** The URL of `database` on it, as the superuser postgres. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /**
   * Stops the server and starts it again: `immediate` as a crash would (no checkpoint; the start recovers from the
   * write-ahead log), `fast` as an administrator's restart (sessions ended, a checkpoint). `whileDown` runs between.
   */
  async restart(mode: 'immediate' | 'fast', whileDown: () => Promise<void> = async () => {}): Promise<void> {
    await this.pgCtl(['stop', '--mode', mode, '--wait']);
    await whileDown();
    await this.startServer();
  }

  /** Stops the server at once and removes its directory. */
  async remove(): Promise<void> {
    process.removeListener('exit', this.stopAtExit);
    await this.pgCtl(['stop', '--mode', 'immediate', '--wait']).catch(() => {});
    rmSync(this.directory, { recursive: true, force: true });
  }

  /** Waits until it accepts connections (`pg_ctl start --wait`). */
  private async startServer(): Promise<void> {
    const options = `-p ${this.port} -k ${this.directory} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
    try {
      await this.pgCtl(['start', '--wait', '--timeout', '30', '--log', join(this.directory, 'log'), '-o', options]);
    } catch (error) {
      const log = existsSync(join(this.directory, 'log')) ? readFileSync(join(this.directory, 'log'), 'utf8') : '';
      throw new Error(`PostgreSQL did not start on port ${this.port}: ${(error as Error).message}\n${log.slice(-2_000)}`);
    }
  }

  private async pgCtl(args: string[]): Promise<void> {
    await run(...this.program('pg_ctl', ['--pgdata', join(this.directory, 'data'), ...args]));
  }

  /** A test worker that ends without `remove()` (a test timed out) leaves no server running behind it. */
  private readonly stopAtExit = () => {
    try {
      execFileSync(...this.program('pg_ctl', ['--pgdata', join(this.directory, 'data'), 'stop', '--mode', 'immediate']), {
        stdio: 'ignore',
      });
    } catch {
      // Stopped already.
    }
    rmSync(this.directory, { recursive: true, force: true });
  };
}

/** A cluster made and started, or why this machine does not allow one (no binaries, root without a postgres user, initdb failing). */
export async function privatePostgresCluster(): Promise<PostgresCluster | { unavailable: string }> {
  try {
    return await PostgresCluster.start();
  } catch (error) {
    return { unavailable: (error as Error).message.split('\n')[0] };
  }
}

/** A command line that runs one of PostgreSQL's programs with `args`. */
type Program = (name: string, args: string[]) => [string, string[]];

/** How to run initdb and pg_ctl: from the directory of the server's binaries, as the user postgres when we are root. */
function postgresPrograms(): { program: Program; owner?: { uid: number; gid: number } } | { unavailable: string } {
  const bin = binaryDirectory();
  if (!bin) return { unavailable: 'no PostgreSQL server binaries (initdb, pg_ctl) on this machine' };
  if (process.getuid?.() !== 0) return { program: (name, args) => [join(bin, name), args] };
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    execFileSync('runuser', ['--help'], { stdio: 'ignore' });
    return {
      program: (name, args) => ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]],
      owner: { uid: id('-u'), gid: id('-g') },
    };
  } catch {
    return { unavailable: 'running as root, which initdb refuses, without a user postgres and runuser to run it as' };
  }
}

function binaryDirectory(): string | undefined {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // No pg_config on the PATH.
  }
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join('/usr/lib/postgresql', version, 'bin')));
  }
  candidates.push(...(process.env.PATH ?? '').split(':').filter(Boolean));
  return candidates.find((directory) => existsSync(join(directory, 'initdb')) && existsSync(join(directory, 'pg_ctl')));
}

/** A port of 127.0.0.1 that nothing listens on just now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}
