import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHostingService, type HostingService } from '../hosting.js';
import type { HostingOptions } from '../types.js';

// `forgekit/testing`: a test double served on a local port, for a test suite of a tool that talks to the original
// service (docs/testing.md). `forgekit/testing/vitest` wraps it in vitest's hooks.

/** A test double served over HTTP on 127.0.0.1, with what a test needs at hand. */
export interface ServedTestDouble {
  hosting: HostingService;
  /** Where it listens, `http://127.0.0.1:<port>`: what clients take as their host (`/api/v4` is under it). */
  url: string;
  /** root's private token. */
  rootToken: string;
  /** The options most clients take (`@gitbeaker/rest`'s `new Gitlab(...)`, python-gitlab's URL and token): `{ host, token }`. */
  clientOptions(token?: string): { host: string; token: string };
  /** `hosting.reset()`: back to the baseline (the first start's state, or the last snapshot taken or restored). */
  reset(): Promise<void>;
  /** Stops serving and closes the instance. */
  close(): Promise<void>;
}

/**
 * Starts an instance as a test double (in memory unless `options.database` says otherwise) and serves it on a free
 * local port. `options.rootToken` is root's private token (a random one when omitted).
 */
export async function startTestDouble(options: HostingOptions = {}): Promise<ServedTestDouble> {
  const rootToken = options.rootToken ?? `root-${randomBytes(16).toString('hex')}`;
  const hosting = await createHostingService({ allowLocalRequests: true, ...options, rootToken, testDouble: true });
  const server: Server = createServer(express().use(hosting.router({ apiReference: true })));
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  } catch (error) {
    await hosting.close();
    throw error;
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hosting,
    url,
    rootToken,
    clientOptions: (token = rootToken) => ({ host: url, token }),
    reset: () => hosting.reset(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await hosting.close();
    },
  };
}
