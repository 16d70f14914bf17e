// Budget 1: a cached anonymous page (the home page) serves ≥ 40 % of the requests per second that
// nginx achieves serving the same bytes as a static file, on the same machine in the same run.
// The uncached Astro render (PAGE_CACHE_MB=0) of the same page is measured beside it.
import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { get, makeDir, printTable, fmtInt, sleep, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium, startNginx, stop, NGINX } from './lib/processes.mjs';
import { load, loadTool } from './lib/load.mjs';
import { existsSync } from 'node:fs';

const BUDGET = 0.4;

/** Requests `/` (no Accept-Encoding) until Atrium answers from its page cache; returns that response. */
async function warmCache(url) {
  let last;
  for (let i = 0; i < 50; i++) {
    last = await get(url);
    if (last.status === 200 && last.headers['x-atrium-cache'] === 'hit') return last;
    await sleep(50); // the cache stores the page after compressing it, asynchronously
  }
  throw new Error(`GET ${url} never came from the page cache (last status ${last?.status}, x-atrium-cache=${last?.headers['x-atrium-cache']})`);
}

/** A short untimed run first, so every target is measured warm (JIT, connection setup, page cache). */
async function measure(name, url, ctx) {
  const opts = { connections: ctx.connections, seconds: ctx.seconds, headers: {} };
  if (ctx.warmupSeconds > 0) await load(url, { ...opts, seconds: ctx.warmupSeconds });
  console.log(`[bench] ${name}: ${loadTool()} ${ctx.connections} connections, ${ctx.seconds} s → ${url}`);
  const r = await load(url, opts);
  if (r.non2xx || r.errors) console.log(`[bench] warning: ${name}: ${r.non2xx} non-2xx responses, ${r.errors} socket errors`);
  return { name, ...r };
}

export async function serve(ctx) {
  const results = [];
  let page;

  // 1. Cached Atrium on a fresh data dir (this first start also creates the PGlite database that
  //    the restart budget reuses). Its home page bytes become nginx's index.html.
  const cached = await startAtrium({ dataDir: ctx.dataDir });
  ctx.hasDatabase = true;
  console.log(`[bench] Atrium (page cache on) listening on ${cached.url}, first start ready in ${cached.readyInMs} ms`);
  try {
    page = await warmCache(`${cached.url}/`);
    const docRoot = makeDir(join(ctx.runDir, 'nginx', 'html'));
    const file = join(docRoot, 'index.html');
    writeFileSync(file, page.body);
    chmodSync(file, 0o644);
    console.log(`[bench] home page: ${page.body.length} bytes (identity), content-type ${page.headers['content-type']}`);

    // 2. nginx serving those bytes.
    if (!existsSync(NGINX)) {
      console.log('[bench] nginx is not installed: skipping the nginx baseline. Install it with: apt-get install -y nginx-light wrk');
    } else {
      const nginx = await startNginx({ dir: join(ctx.runDir, 'nginx'), docRoot });
      try {
        const check = await get(nginx.url);
        if (check.status !== 200 || !check.body.equals(page.body)) throw new Error(`nginx at ${nginx.url} did not serve the page bytes (status ${check.status}, ${check.body.length} bytes); see ${nginx.conf}`);
        results.push(await measure('nginx (static file)', nginx.url, ctx));
      } finally {
        await stop(nginx.child);
      }
    }

    // 3. Atrium answering from its page cache.
    results.push(await measure('Atrium, page cache', `${cached.url}/`, ctx));
    const after = await get(`${cached.url}/`);
    if (after.headers['x-atrium-cache'] !== 'hit') console.log('[bench] warning: after the run, / no longer came from the page cache: the figure mixes renders in');
  } finally {
    await stopAtrium(cached);
  }

  // 4. A second Atrium with the page cache off: every request renders through Astro. Same data dir,
  //    started after the first one stopped (one process per data dir), so both never share the CPU.
  const uncached = await startAtrium({ dataDir: ctx.dataDir, env: { PAGE_CACHE_MB: '0' } });
  console.log(`[bench] Atrium (PAGE_CACHE_MB=0) listening on ${uncached.url}`);
  try {
    const first = await get(`${uncached.url}/`);
    await get(`${uncached.url}/`);
    const second = await get(`${uncached.url}/`);
    if (first.status !== 200 || second.headers['x-atrium-cache']) throw new Error(`uncached server: status ${first.status}, x-atrium-cache=${second.headers['x-atrium-cache']}`);
    if (!second.body.equals(page.body)) console.log(`[bench] note: the uncached render is ${second.body.length} bytes vs ${page.body.length} cached`);
    results.push(await measure('Atrium, uncached Astro render', `${uncached.url}/`, ctx));
  } finally {
    await stopAtrium(uncached);
  }

  const nginx = results.find((r) => r.name.startsWith('nginx'));
  const cachedR = results.find((r) => r.name === 'Atrium, page cache');
  const ratio = nginx ? cachedR.rps / nginx.rps : null;
  const pass = ratio === null ? null : ratio >= BUDGET;

  console.log(`\nBudget 1: cached home page vs nginx (${page.body.length} B page, no Accept-Encoding on every request, ${loadTool()}, ${ctx.connections} connections, ${ctx.seconds} s each after ${ctx.warmupSeconds} s warm-up)\n`);
  const table = printTable(
    ['target', 'req/s', 'vs nginx', 'latency avg', 'latency p99', 'B/response', 'non-2xx+errors'],
    results.map((r) => [
      r.name,
      fmtInt(r.rps),
      nginx ? `${((r.rps / nginx.rps) * 100).toFixed(1)}%` : '',
      `${r.latencyAvgMs.toFixed(2)} ms`,
      `${r.latencyP99Ms.toFixed(2)} ms`,
      Number.isFinite(r.bytesPerRequest) ? fmtInt(r.bytesPerRequest) : '',
      r.non2xx + r.errors,
    ]),
  );
  const uncachedR = results.find((r) => r.name.startsWith('Atrium, uncached'));
  const summary = ratio === null
    ? 'SKIP (no nginx baseline)'
    : `cached/nginx = ${(ratio * 100).toFixed(1)}% (budget ≥ ${BUDGET * 100}%) → ${verdict(pass)}`;
  console.log(`\n${summary}; page cache is ${(cachedR.rps / uncachedR.rps).toFixed(1)}× the uncached render`);
  return { name: 'serve', pass, summary, table, results };
}
