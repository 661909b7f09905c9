/**
 * Loads a server under test from a separate process (bench/lib/loader.ts) and measures what it cost the
 * process it runs in, which is this one: the servers under test all live in the benchmark's own process, so
 * its CPU time during a round (until the server has finished the requests still queued when the load stopped),
 * divided by the requests the server handled meanwhile, is the server's CPU per request.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LoadRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** A body made anew for each request by the loader. */
  body?: 'sshKey';
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  /** Errors, time-outs and answers other than 2xx: a round with any is refused. */
  failures: number;
  /** Latency percentiles, ms. */
  p50: number;
  p90: number;
  p99: number;
}

export interface Round extends LoadResult {
  requestsPerSecond: number;
  /** CPU time (user + system) of this process per request served, µs. */
  cpuPerRequest: number;
}

/**
 * Counts the requests a server has handled, and tells when it has none left: a request counts once its handler
 * ends the response, even one whose client has gone (its socket's 'close' comes before the handler is done).
 */
export class Tracker {
  private inFlight = 0;
  handled = 0;

  constructor(server: Server) {
    // First, so that a handler that answers at once is counted too.
    server.prependListener('request', (_req, res) => {
      this.inFlight += 1;
      const end = res.end;
      res.end = ((...args: Parameters<typeof end>) => {
        res.end = end;
        this.inFlight -= 1;
        this.handled += 1;
        return end.apply(res, args);
      }) as typeof end;
    });
  }

  async idle(): Promise<void> {
    for (let waited = 0; this.inFlight > 0; waited += 5) {
      if (waited > 30_000) throw new Error(`${this.inFlight} requests still unanswered 30 s after the load stopped`);
      await sleep(5);
    }
  }
}

export class Loader {
  private readonly child: ChildProcess = fork(new URL('./loader.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

  async round(request: LoadRequest, server: Tracker): Promise<Round> {
    const cpu = process.cpuUsage();
    const handled = server.handled;
    const result = await new Promise<LoadResult>((resolve, reject) => {
      this.child.once('message', (answer: LoadResult | { error: string }) =>
        'error' in answer ? reject(new Error(`load generator: ${answer.error}`)) : resolve(answer),
      );
      this.child.send(request);
    });
    await server.idle();
    const used = process.cpuUsage(cpu);
    if (result.failures)
      throw new Error(`${request.method} ${request.url}: ${result.failures} of ${result.requests} requests failed under load`);
    return {
      ...result,
      requestsPerSecond: result.requests / request.seconds,
      cpuPerRequest: (used.user + used.system) / Math.max(1, server.handled - handled),
    };
  }

  close(): void {
    this.child.disconnect();
  }
}
