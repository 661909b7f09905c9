import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

/**
 * The processes a test file starts. Each is the leader of a process group of its own, so that stopping it also
 * stops what it started in turn (the server `npm start` runs, `go build`'s compilers) and nothing of the test
 * runner's. Stop them in `afterEach` or `afterAll`: the hooks run when a test fails or times out too.
 */
export class Processes {
  private readonly started = new Set<ChildProcessWithoutNullStreams>();

  constructor() {
    everyInstance.add(this);
  }

  start(command: string, args: string[], options: SpawnOptionsWithoutStdio = {}): ChildProcessWithoutNullStreams {
    const child = spawn(command, args, { ...options, detached: true });
    this.started.add(child);
    return child;
  }

  /** Kills the process's group, whatever is left of it (SIGKILL: nothing to wait for). */
  stop(child: ChildProcessWithoutNullStreams): void {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The whole group has exited already.
    }
    this.started.delete(child);
  }

  /** Kills every process group started and not stopped since. */
  stopAll(): void {
    for (const child of this.started) this.stop(child);
  }
}

const everyInstance = new Set<Processes>();
const stopEverything = () => {
  for (const processes of everyInstance) processes.stopAll();
};

// A test that timed out goes on running and may start processes after its hooks ran; the worker's end stops
// those. A signal (Ctrl-C) reaches the worker but not the groups, which are not the terminal's: pass it on.
process.once('exit', stopEverything);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    stopEverything();
    process.kill(process.pid, signal);
  });
}

/** A process started with its output gathered, and its exit awaited. */
export interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Its standard output and error so far, interleaved. */
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `command` among `processes`, gathering what it prints. */
export function runGathering(processes: Processes, command: string, args: string[], options: SpawnOptionsWithoutStdio = {}): Running {
  const child = processes.start(command, args, options);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Exited once its output is read too: 'exit' can come before the last of its output has (a process that prints and
  // exits at once). A grandchild still holding the pipes is not waited for past a second.
  const drained = (stream: Readable) => (stream.readableEnded ? Promise.resolve() : new Promise((resolve) => stream.once('end', resolve)));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      const timer = setTimeout(() => resolve(code), 1000);
      void Promise.all([drained(child.stdout), drained(child.stderr)]).then(() => {
        clearTimeout(timer);
        resolve(code);
      });
    }),
  );
  return { child, output: () => output, exited };
}

/** The URL `forgekit serve` says it listens on, once it says so. */
export async function listeningOn(server: Running, timeoutMs = 30_000): Promise<string> {
  for (let waited = 0; waited < timeoutMs; waited += 50) {
    const match = /forgekit listening on (\S+)/.exec(server.output());
    if (match) return match[1];
    if (server.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server did not start:\n${server.output()}`);
}
