import { defineConfig } from 'vitest/config';

// The example suite of a user's tool (welcome-bot.test.ts), apart from forgekit's own (test/vitest.config.ts). It imports
// forgekit by its package name, which resolves to dist/: npm run build first.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    // The first test double of a process takes seconds (it makes the migrated database); the 503's retry waits its second.
    testTimeout: 15_000,
    hookTimeout: 30_000,
  },
});
