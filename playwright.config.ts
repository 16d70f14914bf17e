import { defineConfig } from '@playwright/test';
import { scaled } from './tests/helpers/time-scale.mjs';

const PORT = Number(process.env.E2E_PORT ?? 4399);

// Debian's Chromium, never a downloaded browser (`apt-get install -y chromium`).
// Timeouts only catch a hang; they grow on a machine with few cores (tests/helpers/time-scale.mjs).
export default defineConfig({
  testDir: 'tests/e2e',
  timeout: scaled(30_000),
  expect: { timeout: scaled(7_000) },
  workers: 2,
  // On CI a test that fails is run once more, in a fresh worker; one that then passes is reported as
  // flaky (npm test lists it with its first error), so it is fixed, not forgotten.
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    // Accept-Language zh-CN: a first visit sees the default locale.
    locale: 'zh-CN',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
    trace: 'off',
  },
  webServer: {
    command: 'node tests/e2e/serve.mjs',
    url: `http://127.0.0.1:${PORT}/healthz`,
    env: { E2E_PORT: String(PORT) },
    reuseExistingServer: false,
    timeout: scaled(90_000),
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
