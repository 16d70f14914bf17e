// Budget 10: memory footprint. Resident memory (VmHWM = peak, VmRSS = now) of the server process
// as /proc/<pid>/status reports it — worker threads (PGlite's) share the process, so they are in
// these figures — against a bare node:http server measured in the same run:
//   - embedded PGlite, first start on a fresh DATA_DIR: peak ≤ 450 MB
//   - embedded PGlite, idle after visiting every page type once: RSS ≤ 300 MB
//   - PostgreSQL (DATABASE_URL, a fresh database): idle RSS ≤ 150 MB
// The server runs as systemd and compose run it: `node --expose-gc dist/atrium.mjs`.
// Usage: node bench/footprint.mjs  (or npm run bench -- footprint)
//   BENCH_FOOTPRINT_PG (postgres://postgres@127.0.0.1:5432/postgres): where to create the scratch
//   database wt_footprint_<pid> (dropped afterwards); "off" skips the PostgreSQL row.
//   BENCH_FOOTPRINT_SETTLE_MS (5000): how long the server idles before the "idle" reading.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HOST, ROOT, TMP, freePort, get, makeDir, printTable, sleep, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium, track, stop } from './lib/processes.mjs';

const BUDGET = { firstPeak: 450, idle: 300, pgIdle: 150 };
const SETTLE_MS = Number(process.env.BENCH_FOOTPRINT_SETTLE_MS || 5000);
const PG_URL = process.env.BENCH_FOOTPRINT_PG || 'postgres://postgres@127.0.0.1:5432/postgres';

const SMALL_HOST_MB = 1024;

/**
 * A memory cgroup limited to `mb` (cgroup v2, else v1), or null where the bench may not make one
 * (not root, a read-only /sys/fs/cgroup). The server reads the limit as its host's memory.
 */
function makeMemoryCgroup(mb) {
  const name = `atrium-footprint-${process.pid}`;
  for (const [root, limitFile] of [['/sys/fs/cgroup', 'memory.max'], ['/sys/fs/cgroup/memory', 'memory.limit_in_bytes']]) {
    const path = join(root, name);
    try {
      if (!existsSync(join(root, 'cgroup.procs'))) continue;
      mkdirSync(path);
      writeFileSync(join(path, limitFile), String(mb * 1024 * 1024));
      return { procs: join(path, 'cgroup.procs'), remove: () => { try { rmdirSync(path); } catch { /* a process still in it */ } } };
    } catch {
      try { rmdirSync(path); } catch { /* not made */ }
    }
  }
  return null;
}

/** VmHWM and VmRSS of a process in MB (the whole process: every thread's memory is in it). */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peak: kb('VmHWM') / 1024, rss: kb('VmRSS') / 1024, threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1]) };
}

const mb = (n) => `${Math.round(n)} MB`;

/** One page of each type a visitor can reach; detail pages are found from the list pages' links. */
async function visitEveryPageType(url) {
  const fixed = ['/', '/ask', '/ask/post', '/ask/search', '/ask/search/hello', '/md', '/md/search?q=hello', '/modules', '/chat', '/user', '/user/login', '/user/card/1', '/reset-password', '/admin', '/no-such-page'];
  const seen = [];
  const bodies = {};
  for (const path of fixed) {
    const r = await get(`${url}${path}`, { 'accept-language': 'zh-CN' }, 30_000);
    seen.push([path, r.status]);
    bodies[path] = r.body.toString('utf8');
  }
  // Detail pages: the first link of each kind on the list pages.
  const first = (html, re) => re.exec(html)?.[1];
  const extra = [
    first(bodies['/ask'] + bodies['/'], /href="(\/ask\/info\/\d+)"/),
    first(bodies['/ask'] + bodies['/'], /href="(\/ask\/lists\/[^"]+)"/),
    first(bodies['/md'], /href="(\/md\/(?!search|edit)[^"]+\/[^"]+)"/),
    first(bodies['/modules'], /href="(\/modules\/(?!\?)[^"/?]+)"/),
  ].filter(Boolean);
  for (const path of extra) {
    const r = await get(`${url}${path}`, { 'accept-language': 'en' }, 30_000);
    seen.push([path, r.status]);
  }
  // English versions of two pages: the second dictionary loaded too.
  for (const path of ['/', '/ask']) seen.push([`${path} (en)`, (await get(`${url}${path}`, { 'accept-language': 'en', cookie: 'lang=en' }, 30_000)).status]);
  return seen;
}

/** Starts Atrium with --expose-gc, reads memory after start, visits every page type, idles, reads again. */
async function measureAtrium({ dataDir, env = {}, label, cgroupProcs }) {
  const server = await startAtrium({ dataDir, env, cgroupProcs });
  const pid = server.child.pid;
  const afterStart = memory(pid);
  const pages = await visitEveryPageType(server.url);
  const afterPages = memory(pid);
  await sleep(SETTLE_MS);
  const idle = memory(pid);
  // By-design memory inside that figure: the page cache (PAGE_CACHE_MB caps it) and the request thread's JS heap.
  const metrics = (await get(`${server.url}/metrics`, {}, 10_000)).body.toString('utf8');
  const gauge = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN) / 1048576;
  idle.pageCache = gauge('atrium_page_cache_bytes');
  idle.heapUsed = gauge('atrium_nodejs_heap_size_used_bytes');
  // A first start on PGlite replaces itself (execve, same pid) once the site is created, which starts
  // VmHWM afresh: the process logs its VmHWM just before, and the peak is the larger of the two.
  const setupPeak = Number(/first start: site created \(peak (\d+) MB resident\)/.exec(server.log.join('\n'))?.[1] ?? 0);
  idle.peak = Math.max(idle.peak, setupPeak);
  await stopAtrium(server);
  console.log(`[bench] footprint ${label}: ${pages.length} pages (${pages.map(([p, s]) => `${p} ${s}`).join(', ')})`);
  return { label, afterStart, afterPages, idle };
}

async function measureBare(dir) {
  const file = join(dir, 'bare.html');
  (await import('node:fs')).writeFileSync(file, '<!doctype html><title>bare</title>');
  const port = await freePort();
  const child = track(process.execPath, [join(ROOT, 'bench', 'lib', 'bare-server.mjs'), file, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  for (let i = 0; i < 20; i++) await get(`http://${HOST}:${port}/`);
  await sleep(1000);
  const m = memory(child.pid);
  await stop(child);
  return m;
}

function psql(sql) {
  const r = spawnSync('psql', [PG_URL, '-v', 'ON_ERROR_STOP=1', '-qc', sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`psql failed: ${r.stderr || r.error}`);
}

export async function footprint(ctx) {
  const dir = makeDir(join(ctx?.runDir ?? makeDir(TMP), `footprint-${process.pid}`));
  const rows = [];
  const bare = await measureBare(dir);
  // Embedded PGlite: a first start on an empty data dir (initdb + migrations), then a restart.
  const first = await measureAtrium({ dataDir: makeDir(join(dir, 'pglite')), label: 'PGlite, first start' });
  const again = await measureAtrium({ dataDir: join(dir, 'pglite'), label: 'PGlite, restart' });
  // The same first start on a 1 GB host (a memory cgroup with that limit, where this machine lets the
  // bench make one): the server then keeps PGlite on baseline code (v8-flags.ts, serverV8Flags).
  const small = makeMemoryCgroup(SMALL_HOST_MB);
  let firstSmall = null;
  let againSmall = null;
  if (small) {
    try {
      firstSmall = await measureAtrium({ dataDir: makeDir(join(dir, 'pglite-small')), label: `PGlite, first start, ${SMALL_HOST_MB} MB limit`, cgroupProcs: small.procs });
      againSmall = await measureAtrium({ dataDir: join(dir, 'pglite-small'), label: `PGlite, restart, ${SMALL_HOST_MB} MB limit`, cgroupProcs: small.procs });
    } finally {
      small.remove();
    }
  } else console.log('[bench] footprint: no writable memory cgroup here: the 1 GB host rows are skipped');
  let pg = null;
  if (PG_URL !== 'off') {
    const name = `wt_footprint_${process.pid}`;
    const dbUrl = PG_URL.replace(/\/[^/]*$/, `/${name}`);
    psql(`DROP DATABASE IF EXISTS ${name}`);
    psql(`CREATE DATABASE ${name}`);
    try {
      await measureAtrium({ dataDir: makeDir(join(dir, 'pg-first')), env: { DATABASE_URL: dbUrl }, label: 'PostgreSQL, first start' });
      pg = await measureAtrium({ dataDir: makeDir(join(dir, 'pg')), env: { DATABASE_URL: dbUrl }, label: 'PostgreSQL' });
    } finally {
      psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }
  rmSync(dir, { recursive: true, force: true });

  const ratio = (m) => `${(m / bare.rss).toFixed(1)}×`;
  rows.push(['bare node:http (reference)', mb(bare.peak), mb(bare.rss), '', mb(bare.rss), '', '', '1.0×', '']);
  for (const r of [first, again, firstSmall, againSmall, pg].filter(Boolean)) {
    const budget = r === first || r === firstSmall ? `peak ≤ ${BUDGET.firstPeak}, idle ≤ ${BUDGET.idle}` : r === pg ? `idle ≤ ${BUDGET.pgIdle}` : `idle ≤ ${BUDGET.idle}`;
    rows.push([r.label, mb(r.idle.peak), mb(r.afterStart.rss), mb(r.afterPages.rss), mb(r.idle.rss), `${r.idle.pageCache.toFixed(1)} MB`, mb(r.idle.heapUsed), ratio(r.idle.rss), budget]);
  }
  console.log(`\nBudget 10: footprint (VmHWM / VmRSS of the whole process, ${SETTLE_MS / 1000} s idle after one visit of each page type)\n`);
  const table = printTable(['server', 'peak (VmHWM)', 'RSS after start', 'RSS after pages', 'RSS idle', 'of which page cache', 'JS heap used', 'idle ÷ bare', 'budget (MB)'], rows);
  const pass = first.idle.peak <= BUDGET.firstPeak && first.idle.rss <= BUDGET.idle && again.idle.rss <= BUDGET.idle && (!pg || pg.idle.rss <= BUDGET.pgIdle);
  const smallLine = firstSmall ? `; with a ${SMALL_HOST_MB} MB limit: first-start peak ${mb(firstSmall.idle.peak)}, idle ${mb(firstSmall.idle.rss)} / restart idle ${mb(againSmall.idle.rss)}` : '';
  const summary = `${verdict(pass)}: PGlite first-start peak ${mb(first.idle.peak)} (≤ ${BUDGET.firstPeak}), idle ${mb(first.idle.rss)} / restart idle ${mb(again.idle.rss)} (≤ ${BUDGET.idle})${smallLine}${pg ? `, PostgreSQL idle ${mb(pg.idle.rss)} (≤ ${BUDGET.pgIdle})` : ''}; bare node:http ${mb(bare.rss)}`;
  return { name: 'footprint', pass, table, summary };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  footprint()
    .then((r) => {
      console.log(`\n${r.summary}`);
      process.exit(r.pass ? 0 : 1);
    })
    .catch((err) => {
      console.error(`[bench] error: ${err instanceof Error ? err.stack : err}`);
      process.exit(2);
    });
}
