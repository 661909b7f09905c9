/**
 * The load generator: a child process of the benchmark (bench/lib/load.ts forks it), so that the CPU it
 * spends is never counted as the server's. It runs autocannon once per message and answers the figures.
 */
// @ts-expect-error autocannon ships no type declarations
import autocannon from 'autocannon';
import type { LoadRequest, LoadResult } from './load.ts';
import { sshKey } from './ssh-key.ts';

/** A request's body: a new SSH key each time for `sshKey`. */
const bodies = { sshKey: () => JSON.stringify({ title: 'bench', key: sshKey() }) };

async function run(request: LoadRequest): Promise<LoadResult> {
  const body = request.body ? bodies[request.body] : undefined;
  const result = await autocannon({
    url: request.url,
    connections: request.connections,
    duration: request.seconds,
    headers: { ...request.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    requests: [{ method: request.method, ...(body ? { setupRequest: (req: object) => ({ ...req, body: body() }) } : {}) }],
  });
  return {
    requests: result.requests.total,
    failures: result.errors + result.timeouts + result.non2xx,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
  };
}

process.on('message', (request: LoadRequest) => {
  run(request).then(
    (result) => process.send!(result),
    (error: Error) => process.send!({ error: error.stack ?? String(error) }),
  );
});
