import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // Tests that spawn processes or talk to Redis wait on events with their own deadlines.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
