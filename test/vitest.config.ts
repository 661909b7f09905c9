import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Builds dist/ for the files that run it, when it is stale.
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two workers fit the two cores CI has.
    pool: 'forks',
    maxWorkers: 2,
    // A worker runs its files one after the other in one process, which loads forgekit once rather than once a file
    // and keeps the services files hand back (test/helpers.ts `sharedHosting`). A file leaves nothing running behind
    // it: it closes what it opened and restores what it mocked.
    isolate: false,
  },
});
