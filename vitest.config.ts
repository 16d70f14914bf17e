import { defineConfig } from 'vitest/config';
import { scaled } from './tests/helpers/time-scale.mjs';

// Timeouts only catch a hang; they grow on a machine with few cores (tests/helpers/time-scale.mjs).

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node', testTimeout: scaled(5_000), hookTimeout: scaled(10_000) },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
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
