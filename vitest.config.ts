import { defineConfig } from 'vitest/config';
import { scaled } from './tests/helpers/time-scale.mjs';

// Timeouts only catch a hang; they grow on a machine with few cores (tests/helpers/time-scale.mjs).
// Test files of a worker share one module graph (isolate: false): the sources and the built app are
// imported once per worker. What a file then owes the next one: CONTRIBUTING.md, "Tests".

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node', isolate: false, testTimeout: scaled(5_000), hookTimeout: scaled(10_000) },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          globalSetup: ['tests/helpers/global-setup.ts'],
          testTimeout: scaled(30_000),
          hookTimeout: scaled(180_000),
          maxWorkers: 2,
          // On CI a failed test runs once more; one that then passes is listed by npm test as flaky.
          retry: process.env.CI ? 1 : 0,
        },
      },
    ],
  },
});
