// Module market budgets (issue 6), on PGlite and on PostgreSQL:
//   list      GET /modules with 10,000 published modules, page cache off (PAGE_CACHE_MB=0): p95 < 50 ms
//             at 10 concurrent over a mix of the list's URLs (first page, page 37, the three other
//             sorts, a category, free only, a common tag); every probe answers 200 with module cards.
//             Search (/modules?q=…, Chinese and English apart) is measured and reported, not budgeted.
//   purchase  on a fresh server, 200 members buy the same paid module at once (half with balance,
//             half with points) while one more member submits the same purchase 50 times (half with
//             one repeated nonce, half with fresh ones): afterwards the database must show 201 paid
//             orders, the double-submitter debited once, every member's balance and points equal to
//             the sum of their logs, the developer's earnings equal to the sales minus commission
//             (round(amount × 15 / 100)) and module.purchases = 201. The wall time is reported.
// The modules come from bench/lib/market-data.ts (bundled here with esbuild, since it imports the
// app's TypeScript), generated once and cached in bench/.tmp/market-cache/ under a key made of the
// size and a hash of the generator, the module schema and the market's text code; each run works on
// a copy. PostgreSQL gets the same rows, copied into a database created for the run and dropped
// afterwards unless --keep is given. The purchase test runs on the same database after the list's
// server stopped: its members, module, top-ups and sessions are made by the generator (the app's
// createUser, ledger and startSession) while no server holds the database, and the same script
// checks the result once the server has stopped again.
//   BENCH_MARKET_MODULES (10000) sizes the data set; BENCH_MARKET_BUYERS (200) and
//   BENCH_MARKET_DOUBLES (50) the purchase test; BENCH_MARKET_DATABASES (pglite,postgres) picks the
//   databases; BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres) is the server,
//   BENCH_MARKET_PG_DB (bench_market) the database made on it (not `atrium_…`: the integration
//   tests drop those).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT, TMP, fmtInt, get, makeDir, printTable, verdict } from './lib/common.mjs';
import { WRK, startAtrium, stopAtrium } from './lib/processes.mjs';
import { measure, migrate, prepareDatabase, run, writePaths } from './forum.mjs';

/** Bump to regenerate the cached data set when market-data.ts changes in a way the hash would miss. */
const DATA_VERSION = 1;
const CONCURRENCY = 10;
const LIST_P95_MS = 50;
/** Cards per page (MARKET_PAGE_SIZE in src/lib/shared/market-query.ts). */
const PAGE_SIZE = 24;
const CACHE = join(TMP, 'market-cache');
/** What the list renders once per module (src/components/modules/ModuleCard.astro). */
const CARD = /<article class="card module-card"/g;
/** Sequential requests per URL for the per-URL medians (not the budget: that is the load test). */
const PROBES = 10;

const wholeNumber = (name, fallback) => {
  const n = Number(process.env[name] || fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${process.env[name]}"`);
  return n;
};

/** What decides the rows: the generator, the module schema, and the code of the derived columns. */
function dataHash(modules) {
  const h = createHash('sha256').update(`${DATA_VERSION} ${modules}\n`);
  const files = ['bench/lib/market-data.ts', 'bench/lib/random.ts', 'src/lib/server/db/schema/modules.ts', 'src/lib/server/db/schema/account.ts', 'src/lib/server/market/text.ts', 'src/lib/server/search/text.ts'];
  for (const f of files) h.update(`${f}\n`).update(readFileSync(join(ROOT, f)));
  return h.digest('hex').slice(0, 12);
}

async function bundleGenerator() {
  const outfile = join(TMP, 'market-data.mjs');
  await build({
    entryPoints: [join(ROOT, 'bench', 'lib', 'market-data.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22',
    packages: 'external', logLevel: 'warning',
  });
  return outfile;
}

/** The cached PGlite data set for this size, generated first when missing. */
async function dataSet(generator, modules) {
  const key = `${modules}m-${dataHash(modules)}`;
  const dir = join(CACHE, key);
  const manifestPath = join(dir, 'manifest.json');
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    console.log(`[market] data set ${key}: cached (generated in ${(manifest.generatedMs / 1000).toFixed(1)} s on ${manifest.generatedAt})`);
    return { dir, key, manifest, cached: true };
  }
  for (const old of existsSync(CACHE) ? readdirSync(CACHE) : []) {
    if (old.startsWith(`${modules}m-`)) {
      console.log(`[market] removing the stale data set ${old}`);
      rmSync(join(CACHE, old), { recursive: true, force: true });
    }
  }
  rmSync(dir, { recursive: true, force: true });
  makeDir(dir);
  console.log(`[market] generating ${fmtInt(modules)} modules into ${join('bench', '.tmp', 'market-cache', key)} …`);
  const t0 = performance.now();
  await migrate({ DATA_DIR: join(dir, 'data') });
  await run([generator, 'generate', join(dir, 'data'), String(modules), join(dir, 'partial.json')], {}, 'generating the modules');
  const partial = JSON.parse(readFileSync(join(dir, 'partial.json'), 'utf8'));
  const manifest = { ...partial, generatorMs: partial.generatedMs, generatedMs: Math.round(performance.now() - t0), generatedAt: new Date().toISOString() };
  // Written last: a directory without it is an interrupted generation and is made again.
  writeFileSync(manifestPath, JSON.stringify(manifest));
  rmSync(join(dir, 'partial.json'));
  console.log(`[market] generated in ${(manifest.generatedMs / 1000).toFixed(1)} s (migration, generator and its checks)`);
  return { dir, key, manifest, cached: false };
}

// ---------------------------------------------------------------------------------------------
// The list

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

/**
 * Each URL once for its status and cards (a list page must be full, a search must find its
 * matches), then PROBES sequential requests for the URL's own median: which page is the slow one.
 */
async function probe(base, urls) {
  const rows = [];
  for (const { path, kind, expectCards } of urls) {
    const first = await get(base + path, {}, 30_000);
    const cards = first.body.toString('utf8').match(CARD)?.length ?? 0;
    const times = [];
    for (let i = 0; i < PROBES; i++) {
      const t0 = performance.now();
      const r = await get(base + path, {}, 30_000);
      times.push(performance.now() - t0);
      if (r.status !== first.status) throw new Error(`${path} answered ${first.status}, then ${r.status}`);
    }
    times.sort((a, b) => a - b);
    rows.push({ path, kind, status: first.status, cards, expectCards, ok: first.status === 200 && cards === expectCards, median: percentile(times, 50), max: times.at(-1), cache: first.headers['x-atrium-cache'] ?? '' });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The purchase stampede

/** One JSON POST on its own connection; resolves { status, ms, code, msg } (code -1: no JSON). */
function postJson(url, body, headers) {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const t0 = performance.now();
    const req = request(url, { method: 'POST', agent: false, timeout: 60_000, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'think-lang': 'en', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let json = null;
        try {
          json = JSON.parse(text);
        } catch { /* reported below */ }
        resolve({ status: res.statusCode, ms: performance.now() - t0, code: json?.code ?? -1, msg: json?.msg ?? text.slice(0, 200) });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, ms: performance.now() - t0, code: -1, msg: err.message }));
    req.end(data);
  });
}

/** Deterministic shuffle, so that the double-submits are spread among the buyers' requests. */
function shuffle(list) {
  let s = 0x9e3779b9;
  const rand = () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 4294967296);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/** Fires every purchase at once and waits for all answers. */
async function stampede(base, setup, doubles) {
  const url = `${base}/api/modules/buy`;
  const repeated = `bench-repeat-${Date.now().toString(36)}`;
  const attempts = [
    ...setup.buyers.map((b) => ({ who: 'buyer', token: b.token, body: { uid: setup.uid, pay_type: b.payType, nonce: `bench-${b.id}-${Date.now().toString(36)}` } })),
    ...Array.from({ length: doubles }, (_, i) => ({
      who: i % 2 ? 'double, fresh nonce' : 'double, repeated nonce', token: setup.doubler.token,
      body: { uid: setup.uid, pay_type: 'balance', nonce: i % 2 ? `bench-fresh-${i}-${Date.now().toString(36)}` : repeated },
    })),
  ];
  shuffle(attempts);
  // The route's code is loaded on its first request: one purchase of a module that does not exist
  // (refused, nothing written) so that the stampede measures purchases, not the import.
  const warm = await postJson(url, { uid: 'bench-no-such-module', pay_type: 'balance', nonce: 'bench-warm-up' }, { 'ba-user-token': setup.doubler.token });
  if (warm.status === 0 || warm.code === -1) throw new Error(`the purchase API did not answer: ${warm.status} ${warm.msg}`);
  const t0 = performance.now();
  const answers = await Promise.all(attempts.map((a) => postJson(url, a.body, { 'ba-user-token': a.token }).then((r) => ({ ...r, who: a.who }))));
  const wallMs = performance.now() - t0;
  const outcome = (r) => (r.code === 1 ? 'ok' : r.msg === setup.messages.owned ? 'owned' : 'other');
  const by = {};
  for (const r of answers) {
    const o = (by[r.who] ??= { ok: 0, owned: 0, other: 0 });
    o[outcome(r)]++;
  }
  const others = answers.filter((r) => outcome(r) === 'other');
  const times = answers.map((r) => r.ms).sort((a, b) => a - b);
  return { wallMs, requests: answers.length, rps: answers.length / (wallMs / 1000), p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1), by, others };
}

/** What the answers must look like: every buyer paid; the double-submitter paid once, else "owned" or the same order again. */
function answerChecks(s, buyers) {
  const buyer = s.by.buyer ?? { ok: 0, owned: 0, other: 0 };
  const rep = s.by['double, repeated nonce'] ?? { ok: 0, owned: 0, other: 0 };
  const fresh = s.by['double, fresh nonce'] ?? { ok: 0, owned: 0, other: 0 };
  // A fresh nonce that wins makes every other double-submit "owned"; a repeated one that wins gets
  // its order back for the other repeats (code 1, the same order) and "owned" for the fresh ones.
  const doubleOk = fresh.ok + (rep.ok ? 1 : 0);
  return [
    { name: 'buyers answered "Purchase complete"', expected: buyers, actual: buyer.ok },
    { name: 'double-submits that paid (fresh nonce wins, or the repeated one)', expected: 1, actual: doubleOk },
    { name: 'double-submits refused as "already own" or given the same order', expected: s.requests - buyers - 1, actual: rep.ok + rep.owned + fresh.owned - (rep.ok ? 1 : 0) },
    { name: 'other answers (errors, time-outs)', expected: 0, actual: s.others.length },
  ].map((c) => ({ ...c, ok: c.expected === c.actual }));
}

// ---------------------------------------------------------------------------------------------

export async function market(ctx) {
  const modules = wholeNumber('BENCH_MARKET_MODULES', 10_000);
  const buyers = wholeNumber('BENCH_MARKET_BUYERS', 200);
  const doubles = wholeNumber('BENCH_MARKET_DOUBLES', 50);
  const kinds = (process.env.BENCH_MARKET_DATABASES || 'pglite,postgres').split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of kinds) if (k !== 'pglite' && k !== 'postgres') throw new Error(`BENCH_MARKET_DATABASES: unknown database "${k}" (pglite, postgres)`);
  const keep = process.argv.includes('--keep');
  const work = makeDir(join(ctx.runDir, 'market'));
  const generator = await bundleGenerator();
  const data = await dataSet(generator, modules);
  const { manifest } = data;
  const tag = manifest.tags[0];
  console.log(`[market] ${fmtInt(manifest.published)} published modules by ${manifest.developers} developers; categories ${JSON.stringify(manifest.categories)}; prices ${JSON.stringify(manifest.prices)}; top tags ${manifest.tags.slice(0, 5).map((t) => `${t.tag} ${t.count}`).join(', ')}; searches ${manifest.searches.map((s) => `${s.q} ${s.matches}`).join(', ')}; checks ${JSON.stringify(manifest.checks)}`);

  // The list's URLs, and the cards each must show (a full page unless the filter has fewer).
  const page = Math.min(37, Math.max(1, Math.floor(manifest.published / PAGE_SIZE)));
  const full = (n) => Math.min(PAGE_SIZE, n);
  const list = [
    ['/modules', manifest.published], [`/modules?page=${page}`, manifest.published - (page - 1) * PAGE_SIZE], ['/modules?sort=popular', manifest.published],
    ['/modules?sort=rating', manifest.published], ['/modules?sort=price', manifest.published], ['/modules?category=tools', manifest.categories.tools ?? 0],
    ['/modules?price=free', manifest.prices.free], [`/modules?tag=${encodeURIComponent(tag.tag)}`, tag.count],
  ].map(([path, n]) => ({ path, kind: 'list', expectCards: full(n) }));
  const searches = manifest.searches.map((s) => ({ path: `/modules?q=${encodeURIComponent(s.q)}`, kind: `search ${s.lang}`, expectCards: full(s.matches) }));
  const paths = {
    list: writePaths(work, 'list', list.map((u) => u.path)),
    'search zh': writePaths(work, 'search-zh', searches.filter((u) => u.kind === 'search zh').map((u) => u.path)),
    'search en': writePaths(work, 'search-en', searches.filter((u) => u.kind === 'search en').map((u) => u.path)),
  };

  const pgUrl = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const pgName = process.env.BENCH_MARKET_PG_DB || 'bench_market';
  const results = [];
  for (const kind of kinds) {
    const env = {};
    const dataDir = makeDir(join(work, `${kind}-data`));
    let admin = null;
    try {
      const prepared = await prepareDatabase({
        kind, label: 'market', what: 'copying the modules to PostgreSQL', cacheDir: join(data.dir, 'data'), dataDir, pgUrl, pgName, generator,
      });
      if (!prepared) {
        results.push({ kind, skipped: true });
        continue;
      }
      admin = prepared.admin;
      if (prepared.databaseUrl) env.DATABASE_URL = prepared.databaseUrl;
      const result = { kind };

      // 1. The list, page cache off.
      let server = await startAtrium({ dataDir, env: { ...env, PAGE_CACHE_MB: '0' } });
      try {
        await get(`${server.url}/modules`, {}, 30_000);
        const again = await get(`${server.url}/modules`, {}, 30_000);
        if (again.status !== 200 || again.headers['x-atrium-cache']) throw new Error(`the page cache is not off: ${again.status} x-atrium-cache=${again.headers['x-atrium-cache']}`);
        result.probes = await probe(server.url, [...list, ...searches]);
        for (const p of result.probes.filter((x) => !x.ok)) console.log(`[market] ${kind} ${p.path}: status ${p.status}, ${p.cards} cards (expected ${p.expectCards})`);
        result.pages = {};
        for (const [name, file] of Object.entries(paths)) {
          const r = (result.pages[name] = { ...(await measure(server, file, ctx)), load: loadavg()[0] });
          console.log(`[market] ${kind} ${name}: ${fmtInt(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, server CPU ${r.cpuPerRequest.toFixed(1)} ms/request, non-2xx ${r.non2xx}, errors ${r.errors}, load ${r.load.toFixed(1)}`);
        }
      } finally {
        await stopAtrium(server);
      }

      // 2. The purchase stampede on a fresh server: set up while no server holds the database.
      const setupPath = join(work, `${kind}-setup.json`);
      const checksPath = join(work, `${kind}-checks.json`);
      const target = [dataDir, env.DATABASE_URL ?? '-'];
      await run([generator, 'stampede', ...target, String(buyers), setupPath], {}, 'setting up the purchase test');
      const setup = JSON.parse(readFileSync(setupPath, 'utf8'));
      // Every purchase comes from 127.0.0.1: lift the per-address API limit for this server.
      server = await startAtrium({ dataDir, env: { ...env, API_RATE_LIMIT: '100000000' } });
      try {
        result.stampede = await stampede(server.url, setup, doubles);
      } finally {
        await stopAtrium(server);
      }
      const s = result.stampede;
      console.log(`[market] ${kind} purchase: ${s.requests} requests in ${fmtInt(s.wallMs)} ms (${s.rps.toFixed(1)} req/s), latency p50 ${fmtInt(s.p50)} ms, p95 ${fmtInt(s.p95)} ms, max ${fmtInt(s.max)} ms; answers ${JSON.stringify(s.by)}`);
      for (const r of s.others.slice(0, 5)) console.log(`[market] ${kind} unexpected answer (${r.who}): HTTP ${r.status} code ${r.code} ${r.msg}`);
      await run([generator, 'verify', ...target, setupPath, checksPath], {}, 'checking the purchases');
      result.checks = [...answerChecks(s, setup.buyers.length), ...JSON.parse(readFileSync(checksPath, 'utf8')).checks];
      for (const c of result.checks) console.log(`[market] ${kind} ${verdict(c.ok)} ${c.name}: expected ${c.expected}, got ${c.actual}`);
      results.push(result);
    } finally {
      if (admin) {
        if (keep) console.log(`[market] kept the PostgreSQL database ${pgName}`);
        else await admin.query(`drop database if exists "${pgName}" with (force)`).catch((err) => console.error(`[market] could not drop ${pgName}: ${err.message}`));
        await admin.end();
      }
    }
  }

  // Tables and verdicts.
  const measured = results.filter((r) => !r.skipped);
  const name = (kind) => (kind === 'pglite' ? 'PGlite' : 'PostgreSQL');
  console.log(`\nMarket: ${fmtInt(manifest.published)} published modules; page cache off; ${CONCURRENCY} connections × ${ctx.seconds} s after ${ctx.warmupSeconds} s warm-up (${existsSync(WRK) ? 'wrk' : 'node:http'})\n`);
  let pass = true;
  const loadRows = [];
  for (const r of measured) {
    for (const [pageName, m] of Object.entries(r.pages)) {
      const budgeted = pageName === 'list';
      const ok = m.non2xx === 0 && m.errors === 0 && (!budgeted || m.p95 < LIST_P95_MS);
      if (budgeted) pass &&= ok;
      const what = budgeted ? `list (${list.length} URLs)` : `${pageName} (${searches.filter((u) => u.kind === pageName).length} queries)`;
      loadRows.push([name(r.kind), what, fmtInt(m.rps), `${m.p50.toFixed(1)} ms`, `${m.p95.toFixed(1)} ms`, `${m.p99.toFixed(1)} ms`, `${m.cpuPerRequest.toFixed(1)} ms`, m.non2xx + m.errors, m.load.toFixed(1), budgeted ? `< ${LIST_P95_MS} ms` : '(reported)', budgeted ? verdict(ok) : (ok ? '' : 'errors')]);
    }
  }
  const loadTable = printTable(['database', 'pages', 'req/s', 'p50', 'p95', 'p99', 'server CPU/req', 'non-2xx+errors', 'load (1 min)', 'budget', 'verdict'], loadRows);

  console.log(`\nEach URL alone: status, module cards shown/expected, median of ${PROBES} sequential requests\n`);
  const probeRows = [];
  for (const [i, u] of [...list, ...searches].entries()) {
    const per = measured.map((r) => r.probes[i]);
    const ok = per.every((p) => p.ok);
    if (u.kind === 'list') pass &&= ok;
    probeRows.push([decodeURIComponent(u.path.replace(/^\/modules/, '')) || '(first page)', u.kind, ...per.flatMap((p) => [`${p.status} ${p.cards}/${p.expectCards}`, `${p.median.toFixed(1)} ms`]), verdict(ok)]);
  }
  const probeTable = printTable(['URL /modules…', 'kind', ...measured.flatMap((r) => [`${name(r.kind)} cards`, `${name(r.kind)} median`]), 'verdict'], probeRows);

  console.log(`\nPurchase stampede: ${buyers} members buying one paid module (999 cents or 50 points) at once, plus ${doubles} submits by one member (half with one repeated nonce); each request on its own connection\n`);
  const stampedeRows = measured.map((r) => {
    const s = r.stampede;
    return [name(r.kind), s.requests, `${fmtInt(s.wallMs)} ms`, s.rps.toFixed(1), `${fmtInt(s.p50)} ms`, `${fmtInt(s.p95)} ms`, `${fmtInt(s.max)} ms`, Object.entries(s.by).map(([w, o]) => `${w}: ${o.ok} ok, ${o.owned} owned${o.other ? `, ${o.other} other` : ''}`).join('; ')];
  });
  const stampedeTable = printTable(['database', 'requests', 'wall time', 'req/s', 'latency p50', 'p95', 'max', 'answers'], stampedeRows);
  console.log('');
  const checkRows = [];
  for (const [i, c] of (measured[0]?.checks ?? []).entries()) {
    const per = measured.map((r) => r.checks[i]);
    const ok = per.every((x) => x.ok);
    pass &&= ok;
    checkRows.push([c.name, c.expected, ...per.map((x) => x.actual), verdict(ok)]);
  }
  const checkTable = printTable(['check', 'expected', ...measured.map((r) => name(r.kind)), 'verdict'], checkRows);

  const worst = (page) => Math.max(...measured.map((r) => r.pages[page].p95));
  const checksPassed = measured.flatMap((r) => r.checks).filter((c) => c.ok).length;
  const checksTotal = measured.flatMap((r) => r.checks).length;
  const skipped = results.filter((r) => r.skipped).map((r) => r.kind);
  pass &&= measured.length === kinds.length && measured.length > 0;
  const summary = [
    measured.length ? `list p95 ${measured.map((r) => `${name(r.kind)} ${r.pages.list.p95.toFixed(1)} ms`).join(', ')} (< ${LIST_P95_MS}); search p95 zh ${worst('search zh').toFixed(1)} ms, en ${worst('search en').toFixed(1)} ms` : 'no database measured',
    measured.length ? `purchases ${measured.map((r) => `${name(r.kind)} ${r.stampede.requests} in ${fmtInt(r.stampede.wallMs)} ms`).join(', ')}; checks ${checksPassed}/${checksTotal}` : '',
    `data: ${fmtInt(manifest.published)} modules ${data.cached ? 'cached' : 'generated'} (${(manifest.generatedMs / 1000).toFixed(1)} s to generate)`,
    skipped.length ? `skipped: ${skipped.join(', ')}` : '',
  ].filter(Boolean).join('; ') + ` → ${verdict(pass)}`;
  console.log(`\n${summary}`);
  return { name: 'market', pass, summary, table: [loadTable, '', probeTable, '', stampedeTable, '', checkTable].join('\n'), results };
}
