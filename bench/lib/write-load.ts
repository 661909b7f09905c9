/**
 * The writes of bench/hooks.ts, sent from a child process of the benchmark (so that the CPU the client spends is never
 * counted as the server's): `pairs` times, on one of `connections` connections each sending its next request when it has
 * the answer, `POST /projects/:id/issues` and then `POST /projects/:id/issues/:iid/notes` on the issue it made, as the
 * project's owner. Answers the writes sent, the failures (errors, answers other than 201) and the latency percentiles.
 */
import { Agent, request } from 'node:http';

export interface WriteLoad {
  origin: string;
  token: string;
  projectId: number;
  /** An issue and a note on it, each. */
  pairs: number;
  connections: number;
  /** Named in the issues' titles, to tell the runs apart. */
  label: string;
}

export interface WriteResult {
  writes: number;
  failures: number;
  /** The first failure, to say why. */
  failure?: string;
  /** Latency percentiles, ms. */
  p50: number;
  p90: number;
  p99: number;
  ms: number;
}

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))];

async function run(load: WriteLoad): Promise<WriteResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: load.connections });
  const latencies: number[] = [];
  let failures = 0;
  let failure: string | undefined;
  /** One request: its status and body. */
  const send = (path: string, body: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${load.origin}/api/v4/projects/${load.projectId}${path}`, {
        method: 'POST',
        agent,
        headers: { 'private-token': load.token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const post = async (path: string, body: object): Promise<Record<string, unknown> | undefined> => {
    const sent = performance.now();
    try {
      const { status, text } = await send(path, JSON.stringify(body));
      latencies.push(performance.now() - sent);
      if (status === 201) return JSON.parse(text);
      failure ??= `POST ${path}: ${status} ${text.slice(0, 300)}`;
    } catch (error) {
      failure ??= `POST ${path}: ${(error as Error).stack ?? error}`;
    }
    failures += 1;
    return undefined;
  };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: load.connections }, async () => {
      while (next < load.pairs) {
        const index = next++;
        const issue = await post('/issues', {
          title: `${load.label}: issue ${index + 1}`,
          description: `Written by bench/hooks.ts, ${load.label}, pair ${index + 1} of ${load.pairs}.`,
        });
        await post(`/issues/${issue?.iid ?? 1}/notes`, { body: `A note on issue ${index + 1} (${load.label}).` });
      }
    }),
  );
  const ms = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    writes: 2 * load.pairs,
    failures,
    failure,
    p50: percentile(latencies, 0.5),
    p90: percentile(latencies, 0.9),
    p99: percentile(latencies, 0.99),
    ms,
  };
}

process.on('message', (load: WriteLoad) => {
  run(load).then(
    (result) => process.send!(result),
    (error: Error) => process.send!({ error: error.stack ?? String(error) }),
  );
});
