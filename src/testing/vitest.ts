import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { HostingOptions } from '../types.js';
import { startTestDouble, type ServedTestDouble } from './index.js';

// `forgekit/testing/vitest`: one test double per worker, reset before each test (docs/testing.md).

/** The worker's test double, kept across its test files: starting one costs far more than a reset. */
const KEPT = Symbol.for('forgekit.testing.vitest');
type Kept = { started: Promise<ServedTestDouble>; options: string };
const kept = globalThis as typeof globalThis & { [KEPT]?: Kept };

/**
 * In a test file: the worker's test double, started before its first test (the first file of the worker starts it;
 * later files reuse it, put back to its first start's state), reset before each test, served on a local
 * port. Read its fields inside tests and hooks:
 * `forgekit.url`, `forgekit.rootToken`, `forgekit.clientOptions()`, `forgekit.hosting`.
 */
export function useForgekit(options: HostingOptions = {}): ServedTestDouble {
  let served: ServedTestDouble | undefined;
  const current = (): ServedTestDouble => {
    if (!served) throw new Error('forgekit/testing/vitest: the test double is read before vitest started it (read it in tests and hooks)');
    return served;
  };
  beforeAll(async () => {
    const key = JSON.stringify(options);
    if (!kept[KEPT] || kept[KEPT].options !== key) {
      await (await kept[KEPT]?.started)?.close();
      kept[KEPT] = { started: startTestDouble(options), options: key };
    }
    served = await kept[KEPT].started;
    // What the worker's last file seeded or restored is not this one's.
    await served.hosting.reset({ toFirstStart: true });
  });
  beforeEach(() => current().reset());
  afterAll(() => {
    served = undefined;
  });
  return {
    get hosting() {
      return current().hosting;
    },
    get url() {
      return current().url;
    },
    get rootToken() {
      return current().rootToken;
    },
    clientOptions: (token) => current().clientOptions(token),
    reset: () => current().reset(),
    // Closed for good: the worker's next file starts another.
    close: () => {
      const closing = current();
      kept[KEPT] = undefined;
      return closing.close();
    },
  };
}
