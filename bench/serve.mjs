// Budget 1: a cached anonymous page (the home page) serves ≥ 80 % of the requests per second that a
// bare node:http server sending the same bytes achieves (bench/lib/bare-server.mjs: the least work
// Node can do), side by side in the same run, with one load-generator thread (autocannon, in this
// process) and 50 connections. nginx serving the bytes as a static file and the uncached Astro
// render (PAGE_CACHE_MB=0) are measured beside them for reference.
import { writeFileSync, chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { cpuMs, get, makeDir, printTable, fmtInt, sleep, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium, startNginx, startBare, stop, NGINX } from './lib/processes.mjs';
import { load, loadTool } from './lib/load.mjs';

const BUDGET = 0.8;
/** One load-generator thread for every row: autocannon runs in this process. */
const TOOL = 'autocannon';
const NGINX_ROW = 'nginx (static file)';
const BARE_ROW = 'node:http, same bytes';
const CACHED_ROW = 'Atrium, page cache';
const UNCACHED_ROW = 'Atrium, uncached Astro render';
const SHORT = { [NGINX_ROW]: 'nginx', [BARE_ROW]: 'node:http', [CACHED_ROW]: 'Atrium cached' };

/** Requests `url` (no Accept-Encoding) until Atrium answers from its page cache; returns that response. bench/docs.mjs uses it too. */
export async function warmCache(url) {
  let last;
  for (let i = 0; i < 50; i++) {
    last = await get(url);
    if (last.status === 200 && last.headers['x-atrium-cache'] === 'hit') return last;
    await sleep(50); // the cache stores the page after compressing it, asynchronously
  }
  throw new Error(`GET ${url} never came from the page cache (last status ${last?.status}, x-atrium-cache=${last?.headers['x-atrium-cache']})`);
}

/**
 * A short untimed run first, so every target is measured warm (JIT, connection setup). The server
 * process's CPU time over the measured run gives its cost per request, which other load on the
 * machine disturbs far less than req/s.
 */
export async function measure(name, url, pid, ctx) {
  const opts = { connections: ctx.connections, seconds: ctx.seconds, headers: {}, tool: ctx.tool };
  if (ctx.warmupSeconds > 0) await load(url, { ...opts, seconds: ctx.warmupSeconds });
  console.log(`[bench] ${name}: ${ctx.tool ?? loadTool()} ${ctx.connections} connections, ${ctx.seconds} s → ${url}`);
  const cpuBefore = cpuMs(pid);
  const r = await load(url, opts);
  const cpu = cpuBefore === null ? null : cpuMs(pid) - cpuBefore;
  if (r.non2xx || r.errors) console.log(`[bench] warning: ${name}: ${r.non2xx} non-2xx responses, ${r.errors} socket errors`);
  return { name, ...r, cpuUsPerRequest: cpu === null ? null : (cpu * 1000) / r.requests, cpuShare: cpu === null ? null : cpu / (ctx.seconds * 1000) };
}

/** Checks that a baseline server sends exactly the page's bytes before we compare against it. */
export async function assertSameBytes(name, url, page) {
  const r = await get(url);
  if (r.status !== 200 || !r.body.equals(page.body)) throw new Error(`${name} at ${url} did not serve the page bytes (status ${r.status}, ${r.body.length} bytes)`);
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function serve(outer) {
  const ctx = { ...outer, tool: TOOL };
  const runs = []; // every measurement, in order
  let page;

  // 1. Cached Atrium on a fresh data dir (this first start also creates the PGlite database that
  //    the restart budget reuses). Its home page bytes become nginx's index.html.
  const cached = await startAtrium({ dataDir: ctx.dataDir });
  ctx.hasDatabase = true;
  console.log(`[bench] Atrium (page cache on) listening on ${cached.url}, first start ready in ${cached.readyInMs} ms`);
  let nginx = null;
  let bare = null;
  try {
    page = await warmCache(`${cached.url}/`);
    const docRoot = makeDir(join(ctx.runDir, 'nginx', 'html'));
    const file = join(docRoot, 'index.html');
    writeFileSync(file, page.body);
    chmodSync(file, 0o644);
    console.log(`[bench] home page: ${page.body.length} bytes (identity), content-type ${page.headers['content-type']}`);

    // 2. The baselines: nginx serving those bytes, and plain node:http serving them. The servers
    //    not under load sit idle, so keeping all three up costs nothing and lets rounds interleave.
    if (existsSync(NGINX)) {
      nginx = await startNginx({ dir: join(ctx.runDir, 'nginx'), docRoot });
      await assertSameBytes('nginx', nginx.url, page);
    } else {
      console.log('[bench] nginx is not installed: skipping the nginx baseline. Install it with: apt-get install -y nginx-light wrk');
    }
    bare = await startBare(file);
    await assertSameBytes('the node:http reference', bare.url, page);

    // 3. nginx, reference, Atrium from its page cache; repeated BENCH_ROUNDS times when asked, so
    //    that a burst of other work on the machine hits one round rather than one target.
    for (let round = 1; round <= ctx.rounds; round++) {
      if (ctx.rounds > 1) console.log(`[bench] round ${round}/${ctx.rounds}`);
      if (nginx) runs.push({ round, ...(await measure(NGINX_ROW, nginx.url, nginx.child.pid, ctx)) });
      runs.push({ round, ...(await measure(BARE_ROW, bare.url, bare.child.pid, ctx)) });
      runs.push({ round, ...(await measure(CACHED_ROW, `${cached.url}/`, cached.child.pid, ctx)) });
      const after = await get(`${cached.url}/`);
      if (after.headers['x-atrium-cache'] !== 'hit') console.log('[bench] warning: after the run, / no longer came from the page cache: the figure mixes renders in');
    }
  } finally {
    if (nginx) await stop(nginx.child);
    if (bare) await stop(bare.child);
    await stopAtrium(cached);
  }

  // 4. A second Atrium with the page cache off: every request renders through Astro. Same data dir,
  //    started after the first one stopped (one process per data dir), so both never share the CPU.
  const uncached = await startAtrium({ dataDir: ctx.dataDir, env: { PAGE_CACHE_MB: '0' } });
  console.log(`[bench] Atrium (PAGE_CACHE_MB=0) listening on ${uncached.url}`);
  try {
    const first = await get(`${uncached.url}/`);
    const second = await get(`${uncached.url}/`);
    if (first.status !== 200 || second.headers['x-atrium-cache']) throw new Error(`uncached server: status ${first.status}, x-atrium-cache=${second.headers['x-atrium-cache']}`);
    if (!second.body.equals(page.body)) console.log(`[bench] note: the uncached render is ${second.body.length} bytes vs ${page.body.length} cached`);
    runs.push({ round: 1, ...(await measure(UNCACHED_ROW, `${uncached.url}/`, uncached.child.pid, ctx)) });
  } finally {
    await stopAtrium(uncached);
  }

  // One row per target: the figures of the round with the median req/s (the only round by default).
  const rowFor = (name) => {
    const mine = runs.filter((r) => r.name === name);
    if (!mine.length) return null;
    const m = median(mine.map((r) => r.rps));
    return mine.reduce((best, r) => (Math.abs(r.rps - m) < Math.abs(best.rps - m) ? r : best));
  };
  const rows = [NGINX_ROW, BARE_ROW, CACHED_ROW, UNCACHED_ROW].map(rowFor).filter(Boolean);
  const nginxR = rowFor(NGINX_ROW);
  const bareR = rowFor(BARE_ROW);
  const cachedR = rowFor(CACHED_ROW);
  const uncachedR = rowFor(UNCACHED_ROW);
  // The budget is judged on the ratio within each round (same moment, same machine state).
  const ratios = runs.filter((r) => r.name === CACHED_ROW).map((c) => c.rps / runs.find((n) => n.name === BARE_ROW && n.round === c.round).rps);
  const ratio = median(ratios);
  const pass = ratio >= BUDGET;

  const how = `${TOOL} (one thread), ${ctx.connections} connections, ${ctx.seconds} s each after ${ctx.warmupSeconds} s warm-up${ctx.rounds > 1 ? `, median of ${ctx.rounds} interleaved rounds` : ''}`;
  console.log(`\nBudget 1: cached home page vs bare node:http, same bytes (${page.body.length} B page, no Accept-Encoding on any request, ${how})\n`);
  const table = printTable(
    ['target', 'req/s', 'vs node:http', 'vs nginx', 'server CPU', 'CPU µs/req', 'latency avg', 'latency p99', 'wire B/resp', 'non-2xx+errors'],
    rows.map((r) => [
      r.name,
      fmtInt(r.rps),
      `${((r.rps / bareR.rps) * 100).toFixed(1)}%`,
      nginxR ? `${((r.rps / nginxR.rps) * 100).toFixed(1)}%` : '',
      r.cpuShare === null ? '' : `${Math.round(r.cpuShare * 100)}%`,
      r.cpuUsPerRequest === null ? '' : r.cpuUsPerRequest.toFixed(1),
      `${r.latencyAvgMs.toFixed(2)} ms`,
      `${r.latencyP99Ms.toFixed(2)} ms`,
      Number.isFinite(r.bytesPerRequest) ? fmtInt(r.bytesPerRequest) : '',
      r.non2xx + r.errors,
    ]),
  );
  if (ctx.rounds > 1) {
    console.log('\nper round (req/s):');
    for (let round = 1; round <= ctx.rounds; round++) {
      const inRound = runs.filter((r) => r.round === round && r.name !== UNCACHED_ROW);
      console.log(`  #${round}: ${inRound.map((r) => `${SHORT[r.name]} ${fmtInt(r.rps)}${r.cpuUsPerRequest === null ? '' : ` (${r.cpuUsPerRequest.toFixed(1)} µs CPU)`}`).join(', ')}; cached/node:http ${(ratios[round - 1] * 100).toFixed(1)}%`);
    }
  }
  const summary = `cached/node:http = ${(ratio * 100).toFixed(1)}% (budget ≥ ${BUDGET * 100}%) → ${verdict(pass)}${nginxR ? `; cached/nginx ${((cachedR.rps / nginxR.rps) * 100).toFixed(1)}%` : ''}`;
  console.log(`\n${summary}; page cache is ${(cachedR.rps / uncachedR.rps).toFixed(1)}× the uncached render`);
  return { name: 'serve', pass, summary, table, runs, ratios };
}
