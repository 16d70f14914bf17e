import { defineConfig } from 'vitest/config';
import { scaled } from './tests/helpers/time-scale.mjs';

// Timeouts only catch a hang; they grow on a machine with few cores (tests/helpers/time-scale.mjs).
// Test files of a worker share one module graph (isolate: false): each file no longer transforms and
// imports the sources and the built app again (unit 47 → 16 s, integration 518 → 411 s wall and a
// fifth less CPU, measured 2026-11-28). A file that needs a module's first state resets it itself
// (highlight-lazy.test.ts), and one that stubs the environment undoes it in afterAll.

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
