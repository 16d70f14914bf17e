// `npm test`: lint, types, unit tests, build, integration tests (PGlite; PostgreSQL and Redis when
// TEST_DATABASE_URL / TEST_REDIS_URL are set), then end-to-end tests in Debian's Chromium.
//   node scripts/test.mjs [all|unit|integration|e2e|static]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './start.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = join(root, 'tests', '.tmp');
const mode = process.argv[2] ?? 'all';
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const totals = { passed: 0, failed: 0, skipped: 0 };
let failedStep = null;

function run(name, cmd, args, env = {}) {
  console.log(`\n[test] ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env } });
  console.log(`[test] ${name} ${r.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (r.status !== 0 && !failedStep) failedStep = name;
  return r.status === 0;
}

function countVitest(file) {
  if (!existsSync(file)) return;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += report.numPassedTests ?? 0;
  totals.failed += report.numFailedTests ?? 0;
  totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}

function countPlaywright(file) {
  if (!existsSync(file)) return;
  const { stats } = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  totals.failed += stats.unexpected ?? 0;
  totals.skipped += stats.skipped ?? 0;
}

function vitest(project) {
  const out = join(tmp, `vitest-${project}.json`);
  rmSync(out, { force: true });
  run(`${project} tests`, 'vitest', ['run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);
  countVitest(out);
}

rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });

if (mode === 'all' || mode === 'static') {
  run('lint', 'eslint', ['.']);
  run('typecheck', 'astro', ['check', '--minimumSeverity', 'warning']);
}
if (mode === 'all' || mode === 'unit') vitest('unit');
if (mode === 'all' || mode === 'integration' || mode === 'e2e') buildIfStale();
if (mode === 'all' || mode === 'integration') {
  if (!process.env.TEST_DATABASE_URL) console.log('[test] TEST_DATABASE_URL is not set: the PostgreSQL and Redis tests are skipped (.ci/run sets it).');
  vitest('integration');
}
if (mode === 'all' || mode === 'e2e') {
  if (!existsSync(chromium)) {
    console.error(`\n[test] Chromium is missing at ${chromium}. Install Debian's build with:\n    sudo apt-get install -y chromium\nor point CHROMIUM_PATH at a Chromium/Chrome binary. (Playwright's own browser download is not used.)`);
    failedStep ??= 'e2e (no Chromium)';
  } else {
    const out = join(tmp, 'playwright.json');
    run('end-to-end tests', 'playwright', ['test', '--reporter=line,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: out });
    countPlaywright(out);
  }
}

console.log(`\n[test] ${failedStep ? `failed at: ${failedStep}` : 'all steps passed'}`);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedStep ? 1 : 0);
