/**
 * The webhook receiver of bench/hooks.ts: a child process of the benchmark (so that the CPU it spends is never counted
 * as the server's), an HTTP server on a local port that reads each delivery whole, answers 200 after `delayMs`, and
 * counts what it was sent: deliveries by hook (the path, `/hook/<n>`) and by `X-Gitlab-Event`, the most it held at
 * once, and the deliveries that came twice (by hook, `object_kind` and `object_attributes.id`).
 *
 * argv[2]: the delay, ms. Messages from the parent: `{ count: true }`, answered with a ReceiverCount (the first
 * message the child sends is `{ url }`, once it listens).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceiverCount {
  deliveries: number;
  /** performance.timeOrigin + performance.now() of the last delivery answered (ms since the epoch), 0 before any. */
  lastAt: number;
  byHook: Record<string, number>;
  byEvent: Record<string, number>;
  /** The most deliveries waiting for their answer at once. */
  mostAtOnce: number;
  /** Deliveries of the same hook, kind and object as an earlier one. */
  repeated: number;
  /** Bodies that were no JSON, or deliveries without `X-Gitlab-Event`. */
  malformed: number;
}

const delayMs = Number(process.argv[2] ?? 20);
const count: ReceiverCount = { deliveries: 0, lastAt: 0, byHook: {}, byEvent: {}, mostAtOnce: 0, repeated: 0, malformed: 0 };
const seen = new Set<string>();
let atOnce = 0;

const server = createServer((req, res) => {
  atOnce += 1;
  count.mostAtOnce = Math.max(count.mostAtOnce, atOnce);
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const event = req.headers['x-gitlab-event'];
    const hook = req.url ?? '';
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { object_kind?: string; object_attributes?: { id?: number } };
      const key = `${hook} ${body.object_kind} ${body.object_attributes?.id}`;
      if (seen.has(key)) count.repeated += 1;
      seen.add(key);
      if (typeof event !== 'string') count.malformed += 1;
    } catch {
      count.malformed += 1;
    }
    setTimeout(() => {
      res.end('{}');
      atOnce -= 1;
      count.deliveries += 1;
      count.lastAt = performance.timeOrigin + performance.now();
      count.byHook[hook] = (count.byHook[hook] ?? 0) + 1;
      count.byEvent[String(event)] = (count.byEvent[String(event)] ?? 0) + 1;
    }, delayMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
process.on('message', () => process.send!(count));
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
});
