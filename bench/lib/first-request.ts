/**
 * One first request, for bench/history.ts: a new forgekit service in a process of its own (so that nothing of the
 * repository is kept in it, whatever forgekit keeps per process) on the benchmark's database and repositories,
 * served by `hosting.router()` in an Express app. `GET /user` is asked first, so that the HTTP stack, the
 * router and the caller's token are ready and only the repository read is timed.
 *
 * argv[2]: JSON `{ databaseUrl, storage, baseUrl, token, path }`. Standard output: JSON `{ ms, status, body }`,
 * the body in base64.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHostingService } from 'forgekit';

const { databaseUrl, storage, baseUrl, token, path } = JSON.parse(process.argv[2]) as {
  databaseUrl: string;
  storage: string;
  baseUrl: string;
  token: string;
  path: string;
};
const hosting = await createHostingService({ database: { url: databaseUrl }, storage, baseUrl });
const server = createServer(express().use(hosting.router()));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
try {
  const ready = await fetch(`${origin}/api/v4/user`, { headers: { 'private-token': token } });
  await ready.arrayBuffer();
  if (ready.status !== 200) throw new Error(`GET /user answered ${ready.status}`);
  const start = performance.now();
  const res = await fetch(origin + path, { headers: { 'private-token': token } });
  const body = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - start;
  process.stdout.write(JSON.stringify({ ms, status: res.status, body: body.toString('base64') }));
} finally {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await hosting.close();
}
