import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    // import.meta.url in index.cjs too: the archive pool finds its worker beside the bundle.
    shims: true,
    dts: true,
    sourcemap: true,
    target: 'node22',
  },
  {
    // The workers: files of their own beside index.js and index.cjs, which start them (src/workers.ts).
    entry: {
      'archive-worker': 'src/git/archive-worker.ts',
      'index-pack-worker': 'src/git/index-pack-worker.ts',
      'pglite-worker': 'src/db/pglite-worker.ts',
    },
    format: ['esm'],
    sourcemap: true,
    target: 'node22',
  },
  {
    // forgekit/testing and forgekit/testing/vitest (docs/testing.md): ES modules, as vitest is; vitest is the user's.
    entry: { testing: 'src/testing/index.ts', 'testing-vitest': 'src/testing/vitest.ts' },
    format: ['esm'],
    dts: true,
    sourcemap: true,
    target: 'node22',
    external: ['vitest'],
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node22',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
