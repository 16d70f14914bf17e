// `npm test`: lint, types, unit tests, build, integration tests (PGlite; PostgreSQL and Redis when
// TEST_DATABASE_URL / TEST_REDIS_URL are set), then end-to-end tests in Debian's Chromium.
//   node scripts/test.mjs [all|unit|integration|e2e|static] [test files…]   (files: for one layer)
//
// The layers run in three lanes side by side, each line of output prefixed with its step's name:
//   prepare (build when stale, template databases) → end-to-end tests
//                                                 → integration tests
//   lint → typecheck → unit tests
// Much of a test's time is spent waiting (on a browser, a server starting, a socket), so on a machine
// with spare cores the lanes fill each other's idle CPU. On 2 cores they do not: measured on a fresh
// clone, the integration layer beside the end-to-end one had finished 25 of 66 files after 28 minutes
// (alone it takes about 8), so below 4 cores the steps run one after another. TEST_SERIAL=1 or 0
// forces either.
// Timeouts grow with fewer cores (tests/helpers/time-scale.mjs), so a busy machine is slow, not red.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = join(root, 'tests', '.tmp');
const mode = process.argv[2] ?? 'all';
/** Test files (or name filters) handed to the one layer asked for. */
const only = mode === 'all' || mode === 'static' ? [] : process.argv.slice(3);
const serial = process.env.TEST_SERIAL ? process.env.TEST_SERIAL === '1' : availableParallelism() < 4;
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const totals = { passed: 0, failed: 0, skipped: 0 };
const failed = [];
const timings = [];
const runStarted = Date.now();
/** The steps running now: a signal to this process goes on to them (Playwright then stops its server and browsers). */
const children = new Set();
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    stopping = true;
    for (const child of children) child.kill(sig);
    failed.push(`stopped by ${sig}`);
  });
}

if (!['all', 'unit', 'integration', 'e2e', 'static'].includes(mode)) {
  console.error('usage: node scripts/test.mjs [all|unit|integration|e2e|static]');
  process.exit(2);
}

/** Runs one step as a child process; its output is printed line by line behind `[name]`. Resolves to success. */
function run(name, cmd, args, env = {}) {
  if (stopping) return Promise.resolve(false);
  const tag = `[${name}]`;
  console.log(`\n[test] ${name}: ${cmd} ${args.join(' ')}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env } });
    children.add(child);
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        const lines = (rest + chunk).split(/\r?\n|\r/);
        rest = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) process.stdout.write(`${tag} ${line}\n`);
      });
      stream.on('end', () => { if (rest.trim()) process.stdout.write(`${tag} ${rest}\n`); });
    }
    const done = (ok) => {
      children.delete(child);
      const seconds = (Date.now() - started) / 1000;
      timings.push({ name, seconds, ok });
      console.log(`[test] ${name} ${ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s`);
      if (!ok) failed.push(name);
      resolve(ok);
    };
    child.once('error', (err) => { console.log(`${tag} ${err.message}`); done(false); });
    child.once('close', (code) => done(code === 0));
  });
}

/** Every failed test of the run, and every one that passed only when run again, with its error: printed at the end. */
const failures = [];
const flaky = [];

function countVitest(file, project) {
  if (!existsSync(file)) return;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += report.numPassedTests ?? 0;
  totals.failed += report.numFailedTests ?? 0;
  totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const files = (report.testResults ?? []).map((r) => ({ what: relative(root, r.name), ms: (r.endTime ?? 0) - (r.startTime ?? 0) }));
  slowest(`slowest ${project} test files`, files);
  for (const r of report.testResults ?? []) {
    const file = relative(root, r.name);
    let named = false;
    for (const a of r.assertionResults ?? []) {
      // A passed test with failure messages failed first and passed when run again.
      const list = a.status === 'failed' ? failures : a.status === 'passed' && a.failureMessages?.length ? flaky : null;
      if (!list) continue;
      list.push({ what: `${project}: ${file} › ${a.fullName ?? a.title}`, message: (a.failureMessages ?? []).join('\n') });
      named ||= a.status === 'failed';
    }
    // A file that failed outside its tests (an import, a hook) has no failed test to name.
    if (r.status === 'failed' && !named) failures.push({ what: `${project}: ${file}`, message: r.message ?? '' });
  }
}

function countPlaywright(file) {
  if (!existsSync(file)) return;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const { stats } = report;
  totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  totals.failed += stats.unexpected ?? 0;
  totals.skipped += stats.skipped ?? 0;
  const tests = [];
  const visit = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const what = `${spec.file}:${spec.line} ${[...titles, spec.title].join(' › ')}`;
        tests.push({ what, ms: (t.results ?? []).reduce((s, r) => s + (r.duration ?? 0), 0) });
        if (t.status === 'unexpected' || t.status === 'flaky') {
          const errors = (t.results ?? []).flatMap((r) => (r.errors ?? []).map((e) => e.message ?? ''));
          (t.status === 'flaky' ? flaky : failures).push({ what: `e2e: ${what}`, message: errors.join('\n') });
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child, suite.title && !suite.title.endsWith('.ts') ? [...titles, suite.title] : titles);
  };
  for (const suite of report.suites ?? []) visit(suite, []);
  slowest('slowest end-to-end tests', tests);
}

/** Prints the slowest entries: where to look when a layer grows. */
function slowest(title, items) {
  const top = items.filter((i) => i.ms > 0).sort((a, b) => b.ms - a.ms).slice(0, 10);
  if (top.length === 0) return;
  console.log(`[test] ${title}:`);
  for (const i of top) console.log(`  ${(i.ms / 1000).toFixed(1).padStart(6)} s  ${i.what}`);
}

async function vitest(project) {
  const out = join(tmp, `vitest-${project}.json`);
  rmSync(out, { force: true });
  await run(`${project} tests`, 'vitest', ['run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...only], { ATRIUM_TEST_PREPARED: project === 'integration' ? '1' : '' });
  countVitest(out, project);
}

async function e2e() {
  if (!existsSync(chromium)) {
    console.error(`\n[test] Chromium is missing at ${chromium}. Install Debian's build with:\n    sudo apt-get install -y chromium\nor point CHROMIUM_PATH at a Chromium/Chrome binary. (Playwright's own browser download is not used.)`);
    failed.push('e2e (no Chromium)');
    return;
  }
  const out = join(tmp, 'playwright.json');
  await run('end-to-end tests', 'playwright', ['test', '--reporter=line,json', ...only], { PLAYWRIGHT_JSON_OUTPUT_NAME: out, ATRIUM_TEST_PREPARED: '1' });
  countPlaywright(out);
}

/** Runs the lanes side by side, or one after another with TEST_SERIAL=1. */
async function lanes(...list) {
  if (serial) for (const lane of list) await lane();
  else await Promise.all(list.map((lane) => lane()));
}

rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });

const wantStatic = mode === 'all' || mode === 'static';
const wantUnit = mode === 'all' || mode === 'unit';
const wantIntegration = mode === 'all' || mode === 'integration';
const wantE2e = mode === 'all' || mode === 'e2e';

// One step after another (below 4 cores): the quick checks first, then integration, then end to end.
await lanes(
  async () => {
    if (wantStatic) {
      await run('lint', 'eslint', ['.']);
      await run('typecheck', 'astro', ['check', '--minimumSeverity', 'warning']);
    }
    if (wantUnit) await vitest('unit');
  },
  async () => {
    if (!wantIntegration && !wantE2e) return;
    if (wantIntegration && !process.env.TEST_DATABASE_URL) console.log('[test] TEST_DATABASE_URL is not set: the PostgreSQL and Redis tests are skipped (.ci/run sets it).');
    // One build and one set of templates for both layers; neither builds nor migrates on its own.
    if (!(await run('prepare', process.execPath, [join(root, 'tests/helpers/prepare.mjs')]))) return;
    await lanes(
      async () => { if (wantIntegration) await vitest('integration'); },
      async () => { if (wantE2e) await e2e(); },
    );
  },
);

console.log('\n[test] steps:');
for (const t of timings) console.log(`  ${t.seconds.toFixed(1).padStart(7)} s  ${t.ok ? 'ok    ' : 'FAILED'}  ${t.name}`);
console.log(`  ${((Date.now() - runStarted) / 1000).toFixed(1).padStart(7)} s  in all${serial ? ' (one step at a time)' : ''}`);
// What failed, last, where a log cut to its tail still shows it: each test with the start of its error.
function listTests(title, mark, list) {
  if (!list.length) return;
  console.log(`\n[test] ${title}:`);
  for (const f of list.slice(0, 10)) {
    console.log(`  ${mark} ${f.what}`);
    for (const line of f.message.replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((l) => l.trim() && !/node_modules|node:internal|new Promise/.test(l)).slice(0, 8)) console.log(`      ${line.slice(0, 200)}`);
  }
  if (list.length > 10) console.log(`  … and ${list.length - 10} more`);
}
listTests('flaky: passed only when run again (fix them)', '~', flaky);
listTests('failed tests', '✗', failures);
console.log(`\n[test] ${failed.length ? `failed at: ${failed.join(', ')}` : 'all steps passed'}`);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped${flaky.length ? `, ${flaky.length} flaky` : ''}`);
process.exit(failed.length ? 1 : 0);
