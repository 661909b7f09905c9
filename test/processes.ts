import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';

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
const stopEverything = () => everyInstance.forEach((processes) => processes.stopAll());

// A test that timed out goes on running and may start processes after its hooks ran; the worker's end stops
// those. A signal (Ctrl-C) reaches the worker but not the groups, which are not the terminal's: pass it on.
process.once('exit', stopEverything);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    stopEverything();
    process.kill(process.pid, signal);
  });
}
