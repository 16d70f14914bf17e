// Atrium's performance budgets, measured on this machine:
//   1. serve    a cached anonymous page serves ≥ 80 % of a bare node:http server's req/s for the same bytes (nginx beside)
//   2. bytes    the home page ships no framework JavaScript to an anonymous visitor
//   3. restart  a restart on an existing PGlite database listens within 3 s
//   4. members  login p95 < 250 ms at 10 concurrent; authenticated index ≥ 60 % of anonymous req/s
//   5. forum    on 100,000 posts / 500,000 replies, PGlite and PostgreSQL, page cache off: /ask and
//               /ask/info/{id} p95 < 50 ms and search p95 < 150 ms at 10 concurrent; search recall
//               100 %; the post page ships no framework JavaScript (BENCH_FORUM_* in bench/forum.mjs)
//   6. docs     a ~1,500-word reader page ≤ 40 KB brotli on a first visit, no React/island script;
//               cached reader page ≥ 40 % of nginx's req/s; Lighthouse ≥ 95 in all four categories;
//               editor keystroke → preview p95 < 50 ms on a 2,000-line page (bench/docs.mjs)
//   7. market   on 10,000 modules, PGlite and PostgreSQL, page cache off: /modules (sorts, filters,
//               page 37) p95 < 50 ms at 10 concurrent, search reported; 200 members buying one paid
//               module at once plus 50 double-submits: 201 paid orders, one debit for the double-
//               submitter, balances = sums of their logs, earnings = sales − commission; wall time
//               printed (BENCH_MARKET_* in bench/market.mjs)
//   8. messages unread count ≥ 50 % of the cached home page's req/s; 10,000 idle streams ≤ 30 KB
//               each (against a bare node:http SSE server); delivery p99 ≤ 250 ms over two
//               instances on PostgreSQL + Redis (BENCH_MESSAGES_* in bench/messages.mjs)
//   9. chat     AI chat: time to first token added p95 ≤ 60 ms at 20 concurrent; 100 concurrent replies
//               within RSS +100 MB and 10 % of the test server's pacing; /chat ≤ 150 KB compressed JS;
//               site assistant p95 ≤ 150 ms on the forum data set (bench/chat.mjs)
//  9b. assistant  the site assistant cites the right page or post first: on the held-out half of
//               bench/assistant-eval.json top-1 ≥ 80 %, top-3 ≥ 95 % (bench/assistant.mjs)
//  11. lighthouse `/`, `/ask`, a post, a docs page, `/modules`, `/chat`, mobile and desktop:
//               accessibility 100, SEO 100, performance ≥ 95 (bench/lighthouse.mjs)
//  10. footprint  resident memory (VmHWM/VmRSS): PGlite first start peak ≤ 450 MB, idle after every
//               page type ≤ 300 MB; PostgreSQL idle ≤ 150 MB; against a bare node:http server
//               (BENCH_FOOTPRINT_* in bench/footprint.mjs)
//  12. modules  issue 26: installing math re-renders 10,000 stored posts in the background with the
//               member's /ask p95 at most 20 % above the reference measured before the install;
//               renderBody with 5 formulas through the module host adds p95 ≤ 5 ms; the math host
//               ≤ 60 MB resident, no host before the install (BENCH_MODULES_* in bench/modules.mjs)
// 12b. module-install  issue 26: install → effective (MathML in a post) on two PostgreSQL + Redis
//               instances ≤ 2 s (BENCH_MODULES_DATABASE_URL, BENCH_MODULES_REDIS_URL: bench/module-install.mjs)
// Usage: npm run bench [-- serve|bytes|restart|members|forum|docs|market|messages|chat|assistant|footprint|lighthouse|modules|module-install …] [-- --keep]
//   BENCH_SECONDS (10), BENCH_CONNECTIONS (50), BENCH_WARMUP (2) adjust the load tests;
//   BENCH_ROUNDS (1) repeats the serve comparison in interleaved rounds and judges the median.
//   BENCH_NGINX / BENCH_WRK override /usr/sbin/nginx and /usr/bin/wrk (missing → skipped / autocannon).
// Everything runs on 127.0.0.1; scratch files go to bench/.tmp/ (git-ignored) and are removed
// afterwards unless --keep is given. Exit status: 0 all budgets pass, 1 one fails, 2 an error.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ROOT, TMP, makeDir } from './lib/common.mjs';
import { NGINX, WRK, stopAll, interrupted } from './lib/processes.mjs';
import { loadTool } from './lib/load.mjs';
import { serve } from './serve.mjs';
import { bytes } from './bytes.mjs';
import { restart } from './restart.mjs';
import { members } from './members.mjs';
import { forum } from './forum.mjs';
import { docs } from './docs.mjs';
import { market } from './market.mjs';
import { messages } from './messages.mjs';
import { chat } from './chat.mjs';
import { assistant } from './assistant.mjs';
import { footprint } from './footprint.mjs';
import { lighthouse } from './lighthouse.mjs';
import { modules } from './modules.mjs';
import { moduleInstall } from './module-install.mjs';

const STEPS = { serve, bytes, restart, members, forum, docs, market, messages, chat, assistant, footprint, lighthouse, modules, 'module-install': moduleInstall };

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const chosen = args.filter((a) => !a.startsWith('--'));
for (const a of chosen) {
  if (!STEPS[a]) {
    console.error(`unknown step "${a}": use one or more of ${Object.keys(STEPS).join(', ')} (none = all)`);
    process.exit(2);
  }
}
const steps = chosen.length ? Object.keys(STEPS).filter((s) => chosen.includes(s)) : Object.keys(STEPS);

const wholeNumber = (name, fallback, min) => {
  const n = Number(process.env[name] || fallback);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${process.env[name]}"`);
  return n;
};

/** Builds when there is no build to measure; an existing build is measured as it is. */
function ensureBuild() {
  if (existsSync(join(ROOT, 'dist', 'atrium.mjs')) && existsSync(join(ROOT, 'dist', 'server', 'entry.mjs'))) return;
  console.log('[bench] no build in dist/: building…');
  // scripts/build.mjs runs `astro` by name: make node_modules/.bin and this Node findable, as npm would.
  const PATH = [join(ROOT, 'node_modules', '.bin'), dirname(process.execPath), process.env.PATH].join(delimiter);
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, PATH } });
  if (r.status !== 0) throw new Error(`build failed (status ${r.status})`);
}

/** The id scripts/build.mjs gives every build, to notice a rebuild of dist/ in the middle of a run. */
function buildId() {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'dist', 'client', 'build-manifest.json'), 'utf8')).id;
  } catch {
    return '?';
  }
}

function toolVersion(cmd, flag) {
  const r = spawnSync(cmd, [flag], { encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n')[0].trim();
}

async function main() {
  const load = { seconds: wholeNumber('BENCH_SECONDS', 10, 1), connections: wholeNumber('BENCH_CONNECTIONS', 50, 1), warmupSeconds: wholeNumber('BENCH_WARMUP', 2, 0), rounds: wholeNumber('BENCH_ROUNDS', 1, 1) };
  ensureBuild();
  const runId = `run-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
  const runDir = makeDir(join(makeDir(TMP), runId));
  // On 'exit' so that Ctrl-C (which exits from the signal handler) removes it too.
  if (!keep) process.once('exit', () => rmSync(runDir, { recursive: true, force: true }));
  const ctx = {
    runDir,
    dataDir: makeDir(join(runDir, 'data')),
    hasDatabase: false,
    ...load,
  };
  const startBuild = buildId();
  const cpu = cpus();
  const env = [
    `date: ${new Date().toISOString()}`,
    `machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? '?'}), ${process.platform}/${process.arch}`,
    `load average (1 min) at start: ${loadavg()[0].toFixed(2)}`,
    `node: ${process.version}, NODE_ENV=${process.env.NODE_ENV ?? '(unset)'}`,
    `load tool: ${loadTool()}${existsSync(WRK) ? ` (${toolVersion(WRK, '-v')})` : ' (wrk not installed: apt-get install -y nginx-light wrk)'}`,
    `nginx: ${existsSync(NGINX) ? toolVersion(NGINX, '-v') : 'not installed (apt-get install -y nginx-light wrk)'}`,
    `build: ${buildId()}`,
  ];
  console.log(env.map((l) => `[bench] ${l}`).join('\n'));
  // Every figure here is relative to an idle machine; other work on the 2 cores skews all of them.
  if (loadavg()[0] > cpu.length / 2) console.log(`[bench] warning: the machine is busy (load ${loadavg()[0].toFixed(2)} on ${cpu.length} cores): figures will be low and noisy`);

  const results = [];
  let failed = false;
  try {
    for (const step of steps) {
      console.log(`\n=== ${step} ===`);
      results.push(await STEPS[step](ctx));
    }
  } catch (err) {
    failed = true;
    if (!interrupted()) console.error(`\n[bench] error: ${err instanceof Error ? err.stack : err}`);
  } finally {
    await stopAll();
    if (keep) console.log(`[bench] kept ${runDir}`);
  }

  if (buildId() !== startBuild) console.log(`\n[bench] warning: dist/ was rebuilt during the run (${startBuild} → ${buildId()}): the figures may mix two builds`);
  console.log('\n=== summary ===');
  for (const r of results) console.log(`${r.name.padEnd(8)} ${r.summary}`);
  // A Markdown copy of this run, for pasting into bench/RESULTS.md.
  const md = [...env.map((l) => `- ${l}`), '', ...results.flatMap((r) => [`### ${r.name}`, '', r.table, '', r.summary, ''])].join('\n');
  writeFileSync(join(TMP, 'last-run.md'), md);
  console.log(`(Markdown copy: ${join('bench', '.tmp', 'last-run.md')})`);
  if (failed) process.exit(2);
  process.exit(results.some((r) => r.pass === false) ? 1 : 0);
}

main().catch(async (err) => {
  console.error(`[bench] error: ${err instanceof Error ? err.stack : err}`);
  await stopAll();
  process.exit(2);
});
