// Forum budgets (issue 4), on a forum of 100,000 posts and 500,000 replies in Chinese and English,
// on PGlite and on PostgreSQL, with the page cache off (PAGE_CACHE_MB=0) so every request renders:
//   index    GET /ask                   p95 < 50 ms at 10 concurrent requests
//   post     GET /ask/info/{id}         p95 < 50 ms at 10 concurrent, ids drawn from all published posts
//   search   GET /ask/search/{keywords} p95 < 150 ms at 10 concurrent, Chinese and English queries
//            apart (the planted posts' queries and everyday words that match thousands of posts);
//            recall on the planted posts 100 % (each must be among the first 50 results)
//   bytes    /ask/info/{id} for an anonymous reader ships no framework JavaScript (files and
//            brotli bytes of a first visit, as bench/bytes.mjs counts them for the home page)
// The data set comes from bench/lib/forum-data.ts (bundled here with esbuild, since it imports the
// app's TypeScript). The PGlite database is generated once and cached in bench/.tmp/forum-cache/
// under a key made of the sizes and a hash of the generator, the search code and the forum schema;
// each run works on a copy of it. PostgreSQL gets the same rows, copied into a database created
// for the run and dropped afterwards unless --keep is given.
//   BENCH_FORUM_POSTS (100000), BENCH_FORUM_REPLIES (5 × posts) size the data set;
//   BENCH_FORUM_DATABASES (pglite,postgres) picks the databases; BENCH_PG_URL
//   (postgres://postgres@127.0.0.1:5432/postgres) is the server, BENCH_FORUM_PG_DB
//   (bench_atrium_forum) the database made on it. BENCH_FORUM_SETTLE_MS (10000): the idle before the
//   RSS readings (footprint, issue 17: RSS settles back within 100 MB of idle after the load).
//   The database's name does not start with `atrium_`: the
//   integration tests' setup drops every `atrium_%` database it finds, also during a bench run.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import pg from 'pg';
import { ROOT, TMP, cpuMs, fmtInt, get, makeDir, printTable, sleep, verdict } from './lib/common.mjs';
import { WRK, startAtrium, stopAtrium, track } from './lib/processes.mjs';
import { HEADERS, firstVisit, printFiles } from './bytes.mjs';

/** Bump to regenerate the cached data set when forum-data.ts changes in a way the hash would miss. */
const DATA_VERSION = 2;
const CONCURRENCY = 10;
const PAGE_P95_MS = 50;
const SEARCH_P95_MS = 150;
/** Issue 17's footprint clause: after the load, RSS settles back within this much of the idle figure. */
const RSS_SETTLE_MB = 100;
const SETTLE_MS = Number(process.env.BENCH_FORUM_SETTLE_MS || 10_000);
/** Resident memory of a process in MB (its worker threads, PGlite's, included). */
const rssMb = (pid) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const RECALL_DEPTH = 50;
const CACHE = join(TMP, 'forum-cache');
const MAX_AGE_DAYS = 7;

const wholeNumber = (name, fallback) => {
  const n = Number(process.env[name] || fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${process.env[name]}"`);
  return n;
};

/**
 * The cache key's hash covers what decides the rows: the generator, the search vector code (the
 * recall figures mean something only if the vectors are what the app computes today) and the
 * schema of the tables it writes. Changes to markdown rendering do not regenerate: the HTML is
 * only what a reader downloads. Newer migrations are applied by the server when it starts.
 */
function dataHash(posts, replies) {
  const h = createHash('sha256').update(`${DATA_VERSION} ${posts} ${replies}\n`);
  const files = ['bench/lib/forum-data.ts', 'bench/lib/random.ts', 'src/lib/server/search/text.ts', 'src/lib/server/ask/posts.ts', 'src/lib/server/db/schema/ask.ts', 'src/lib/server/db/schema/account.ts'];
  for (const f of files) h.update(`${f}\n`).update(readFileSync(join(ROOT, f)));
  return h.digest('hex').slice(0, 12);
}

/** Environment for dist/ and the generator: only what we set decides the database. */
function cleanEnv(extra) {
  const env = { ...process.env };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SITE_DOMAIN', 'PAGE_CACHE_MB', 'LOG_LEVEL']) delete env[k];
  return { ...env, ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...extra };
}

/** Runs a node script to its end (tracked, so Ctrl-C or an error stops it too); its stdout is shown. */
export async function run(args, env, what) {
  const child = track(process.execPath, args, { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const { code, signal } = await child.exited;
  if (code !== 0) throw new Error(`${what} failed (code ${code}, signal ${signal}):\n${stderr}`);
  if (stderr.trim()) process.stderr.write(stderr);
}

export const migrate = (env) => run([join(ROOT, 'dist', 'atrium.mjs'), '--migrate-only'], env, 'migration');

export async function bundleGenerator() {
  const outfile = join(TMP, 'forum-data.mjs');
  await build({
    entryPoints: [join(ROOT, 'bench', 'lib', 'forum-data.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22',
    packages: 'external', logLevel: 'warning',
  });
  return outfile;
}

/** The cached PGlite data set for these sizes, generated first when missing. */
export async function dataSet(generator, posts, replies) {
  const key = `${posts}p-${replies}r-${dataHash(posts, replies)}`;
  const dir = join(CACHE, key);
  const manifestPath = join(dir, 'manifest.json');
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    // The posts spread over the year before the generation and the sidebar counts the last 30 days:
    // an old data set has drifted out of that window.
    if (Date.now() - Date.parse(manifest.generatedAt) < MAX_AGE_DAYS * 86_400_000) {
      console.log(`[forum] data set ${key}: cached (generated in ${(manifest.generatedMs / 1000).toFixed(1)} s on ${manifest.generatedAt})`);
      return { dir, key, manifest, cached: true };
    }
  }
  // Stale versions of the same size go: each takes a few gigabytes.
  for (const old of existsSync(CACHE) ? readdirSync(CACHE) : []) {
    if (old.startsWith(`${posts}p-${replies}r-`)) {
      console.log(`[forum] removing the stale data set ${old}`);
      rmSync(join(CACHE, old), { recursive: true, force: true });
    }
  }
  rmSync(dir, { recursive: true, force: true });
  makeDir(dir);
  console.log(`[forum] generating ${fmtInt(posts)} posts and ${fmtInt(replies)} replies into ${join('bench', '.tmp', 'forum-cache', key)} …`);
  const t0 = performance.now();
  await migrate({ DATA_DIR: join(dir, 'data') });
  await run([generator, 'generate', join(dir, 'data'), String(posts), String(replies), join(dir, 'partial.json')], {}, 'generating the forum');
  const partial = JSON.parse(readFileSync(join(dir, 'partial.json'), 'utf8'));
  const manifest = { ...partial, generatorMs: partial.generatedMs, generatedMs: Math.round(performance.now() - t0), generatedAt: new Date().toISOString() };
  // Written last: a directory without it is an interrupted generation and is made again.
  writeFileSync(manifestPath, JSON.stringify(manifest));
  rmSync(join(dir, 'partial.json'));
  console.log(`[forum] generated in ${(manifest.generatedMs / 1000).toFixed(1)} s (migration, generator and its checks)`);
  return { dir, key, manifest, cached: false };
}

// ---------------------------------------------------------------------------------------------
// Load: wrk with a Lua script that picks a random path per request and reports p50/p95/p99 (wrk's
// own --latency stops at p90/p99); without wrk, a closed loop of keep-alive node:http requests.

function parseWrk(out) {
  const m = /FORUM-LATENCY (\d+) (\d+) (\d+) (\d+)/.exec(out);
  const rps = /Requests\/sec:\s*([\d.]+)/.exec(out);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  if (!m || !rps) throw new Error(`unexpected wrk output:\n${out}`);
  return {
    rps: Number(rps[1]), p50: Number(m[1]) / 1000, p95: Number(m[2]) / 1000, p99: Number(m[3]) / 1000, max: Number(m[4]) / 1000,
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN),
    non2xx: Number(/Non-2xx or 3xx responses:\s*(\d+)/.exec(out)?.[1] ?? 0),
    errors: errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

async function wrkPaths(base, pathsFile, seconds) {
  const script = `${pathsFile}.lua`;
  writeFileSync(script, `-- Written by bench/forum.mjs: a random path of the list per request; p50/p95/p99 at the end.
local paths = {}
for line in io.lines(${JSON.stringify(pathsFile)}) do paths[#paths + 1] = line end
math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
request = function() return wrk.format("GET", paths[math.random(#paths)]) end
done = function(summary, latency, requests)
  io.write(string.format("FORUM-LATENCY %d %d %d %d\\n", latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max))
end
`);
  const child = track(WRK, ['-t', '2', '-c', String(CONCURRENCY), '-d', `${seconds}s`, '--timeout', '5s', '-s', script, base], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`wrk failed (code ${code}):\n${out}`);
  return parseWrk(out);
}

async function nodePaths(base, pathsFile, seconds) {
  const paths = readFileSync(pathsFile, 'utf8').split('\n').filter(Boolean);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const times = [];
  let non2xx = 0;
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const one = (path) => new Promise((resolve) => {
    const t0 = performance.now();
    const req = request(base + path, { agent, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => {
        times.push(performance.now() - t0);
        if (res.statusCode >= 400) non2xx++;
        resolve();
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => { errors++; resolve(); });
    req.end();
  });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) await one(paths[Math.floor(Math.random() * paths.length)]);
  }));
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (p) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)] ?? NaN;
  return { rps: times.length / ((performance.now() - t0) / 1000), p50: at(50), p95: at(95), p99: at(99), max: times.at(-1) ?? NaN, requests: times.length, non2xx, errors };
}

/**
 * Warm-up, then `seconds` of CONCURRENCY connections over the paths (one per line of `pathsFile`).
 * Also the Atrium process's CPU time per request: with PGlite that includes the queries, which run
 * on the server's one JavaScript thread; with PostgreSQL they run in the database's processes.
 */
export async function measure(server, pathsFile, ctx) {
  const go = existsSync(WRK) ? wrkPaths : nodePaths;
  if (ctx.warmupSeconds > 0) await go(server.url, pathsFile, ctx.warmupSeconds);
  const before = cpuMs(server.child.pid);
  const r = await go(server.url, pathsFile, ctx.seconds);
  const after = cpuMs(server.child.pid);
  return { ...r, cpuPerRequest: before === null || after === null ? NaN : (after - before) / r.requests };
}

// ---------------------------------------------------------------------------------------------

const searchPath = (q, query = '') => `/ask/search/${encodeURIComponent(q)}${query}`;

/** Each planted post must be among the first RECALL_DEPTH results of its queries. */
async function recall(base, manifest) {
  const rows = [];
  for (const { q, lang, expect } of manifest.queries) {
    const res = await get(base + searchPath(q, `?limit=${RECALL_DEPTH}`), {}, 30_000);
    if (res.status !== 200) throw new Error(`search "${q}" answered ${res.status}`);
    const html = res.body.toString('utf8');
    const ids = new Set([...html.matchAll(/href="[^"]*\/ask\/info\/(\d+)"/g)].map((m) => Number(m[1])));
    const total = Number(/role="status">([^<]*)</.exec(html)?.[1].replace(/\D/g, '') || ids.size);
    rows.push({ q, lang, expected: expect.length, found: expect.filter((id) => ids.has(id)).length, total, missing: expect.filter((id) => !ids.has(id)) });
  }
  return rows;
}

export function writePaths(dir, name, paths) {
  const file = join(dir, `${name}.txt`);
  writeFileSync(file, `${paths.join('\n')}\n`);
  return file;
}

/** Published post ids in random order (at most `n`), for the post page's load. */
function postPaths(manifest, n) {
  const hidden = new Set(manifest.unpublished);
  const ids = [];
  for (let id = 1; id <= manifest.maxPostId; id++) if (!hidden.has(id)) ids.push(id);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids.slice(0, n).map((id) => `/ask/info/${id}`);
}

/** The anonymous first visit of a post page, counted like bench/bytes.mjs counts the home page. */
async function postBytes(base, id) {
  const url = `${base}/ask/info/${id}`;
  const miss = await get(url, HEADERS);
  if (miss.status !== 200) throw new Error(`GET /ask/info/${id} answered ${miss.status}`);
  const html = await get(url, HEADERS);
  const visit = await firstVisit(url, html);
  const islands = [...visit.htmlText.matchAll(/<astro-island\b[^>]*>/g)].map((m) => /client="([^"]+)"/.exec(m[0])?.[1] ?? '?');
  return { ...visit, islands, cache: html.headers['x-atrium-cache'] ?? 'none', missBytes: miss.body.length };
}

export async function pgAdmin(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/**
 * A database of `kind` holding a cached data set (`cacheDir`): PGlite gets a copy of it in `dataDir`;
 * PostgreSQL gets database `pgName` created afresh, migrated and filled by the generator's `copy`.
 * Returns the admin client (to drop it afterwards) and DATABASE_URL, or null when no PostgreSQL
 * server answers (the caller reports the database as skipped).
 */
export async function prepareDatabase({ kind, label, what, cacheDir, dataDir, pgUrl, pgName, generator }) {
  if (kind === 'pglite') {
    const t0 = performance.now();
    cpSync(cacheDir, dataDir, { recursive: true });
    console.log(`\n[${label}] pglite: copied the cached database in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return { admin: null, databaseUrl: null };
  }
  if (kind !== 'postgres') throw new Error(`unknown database "${kind}" (pglite, postgres)`);
  const admin = await pgAdmin(pgUrl).catch((err) => {
    console.log(`\n[${label}] postgres: skipped, no server at ${pgUrl.replace(/\/\/([^:@/]+)(:[^@/]*)?@/, '//$1@')} (${err.message})`);
    return null;
  });
  if (!admin) return null;
  await admin.query(`drop database if exists "${pgName}" with (force)`);
  await admin.query(`create database "${pgName}"`);
  const u = new URL(pgUrl);
  u.pathname = `/${pgName}`;
  const databaseUrl = u.toString();
  const t0 = performance.now();
  await migrate({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
  await run([generator, 'copy', cacheDir, databaseUrl], {}, what);
  console.log(`[${label}] postgres: database ${pgName} migrated and filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { admin, databaseUrl };
}

export async function forum(ctx) {
  const posts = wholeNumber('BENCH_FORUM_POSTS', 100_000);
  const replies = wholeNumber('BENCH_FORUM_REPLIES', posts * 5);
  const kinds = (process.env.BENCH_FORUM_DATABASES || 'pglite,postgres').split(',').map((s) => s.trim()).filter(Boolean);
  const keep = process.argv.includes('--keep');
  const work = makeDir(join(ctx.runDir, 'forum'));
  const generator = await bundleGenerator();
  const data = await dataSet(generator, posts, replies);
  const { manifest } = data;
  console.log(`[forum] ${fmtInt(manifest.posts)} posts (${manifest.unpublished.length} hidden or deleted), ${fmtInt(manifest.replies)} replies of which ${fmtInt(manifest.comments)} comments, ${manifest.members} members, ${manifest.tags} tags (${fmtInt(manifest.tagLinks)} links), ${manifest.fixtures.length} planted posts; counter checks ${JSON.stringify(manifest.checks)}`);

  const paths = {
    index: writePaths(work, 'index', ['/ask']),
    post: writePaths(work, 'post', postPaths(manifest, 20_000)),
    'search zh': writePaths(work, 'search-zh', [...manifest.queries.filter((q) => q.lang === 'zh').map((q) => q.q), ...manifest.common.zh].map((q) => searchPath(q))),
    'search en': writePaths(work, 'search-en', [...manifest.queries.filter((q) => q.lang === 'en').map((q) => q.q), ...manifest.common.en].map((q) => searchPath(q))),
  };
  const budgets = { index: PAGE_P95_MS, post: PAGE_P95_MS, 'search zh': SEARCH_P95_MS, 'search en': SEARCH_P95_MS };

  const pgUrl = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const pgName = process.env.BENCH_FORUM_PG_DB || 'bench_atrium_forum';
  const results = [];
  let bytesResult = null;
  for (const kind of kinds) {
    const env = { PAGE_CACHE_MB: '0' };
    const dataDir = makeDir(join(work, `${kind}-data`));
    let admin = null;
    try {
      const prepared = await prepareDatabase({
        kind, label: 'forum', what: 'copying the forum to PostgreSQL', cacheDir: join(data.dir, 'data'), dataDir, pgUrl, pgName, generator,
      });
      if (!prepared) {
        results.push({ kind, skipped: true });
        continue;
      }
      admin = prepared.admin;
      if (prepared.databaseUrl) env.DATABASE_URL = prepared.databaseUrl;

      // Bytes: a warm server with its page cache, as a reader meets it. PGlite allows one process
      // per directory, so this server stops before the measured one starts.
      if (!bytesResult) {
        const server = await startAtrium({ dataDir, env: { ...env, PAGE_CACHE_MB: '64' } });
        try {
          const typical = manifest.fixtures[0].id;
          bytesResult = { id: typical, ...(await postBytes(server.url, typical)) };
        } finally {
          await stopAtrium(server);
        }
      }

      const server = await startAtrium({ dataDir, env });
      try {
        // Uncached: two requests for the same page both render (no x-atrium-cache: hit).
        const probe = `${server.url}/ask/info/${manifest.fixtures[0].id}`;
        await get(probe, {}, 30_000);
        const again = await get(probe, {}, 30_000);
        if (again.status !== 200 || again.headers['x-atrium-cache']) throw new Error(`the page cache is not off: ${again.status} x-atrium-cache=${again.headers['x-atrium-cache']}`);
        const found = await recall(server.url, manifest);
        // Footprint (issue 17): RSS idle before the load, and once it has settled after it.
        await sleep(SETTLE_MS);
        const rssIdle = rssMb(server.child.pid);
        const pages = {};
        for (const [page, file] of Object.entries(paths)) {
          pages[page] = await measure(server, file, ctx);
          const r = pages[page];
          console.log(`[forum] ${kind} ${page}: ${fmtInt(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, server CPU ${r.cpuPerRequest.toFixed(1)} ms/request, non-2xx ${r.non2xx}, errors ${r.errors}`);
        }
        await sleep(SETTLE_MS);
        const rssAfter = rssMb(server.child.pid);
        console.log(`[forum] ${kind} RSS: idle ${Math.round(rssIdle)} MB before the load, ${Math.round(rssAfter)} MB ${SETTLE_MS / 1000} s after it`);
        results.push({ kind, pages, recall: found, rssIdle, rssAfter });
      } finally {
        await stopAtrium(server);
      }
    } finally {
      if (admin) {
        if (keep) console.log(`[forum] kept the PostgreSQL database ${pgName}`);
        else await admin.query(`drop database if exists "${pgName}" with (force)`).catch((err) => console.error(`[forum] could not drop ${pgName}: ${err.message}`));
        await admin.end();
      }
    }
  }

  // Tables and verdicts.
  const measured = results.filter((r) => !r.skipped);
  console.log(`\nForum: ${fmtInt(manifest.posts)} posts, ${fmtInt(manifest.replies)} replies; page cache off; ${CONCURRENCY} connections × ${ctx.seconds} s after ${ctx.warmupSeconds} s warm-up (${existsSync(WRK) ? 'wrk' : 'node:http'})\n`);
  const rows = [];
  let pass = true;
  for (const r of measured) {
    for (const [page, m] of Object.entries(r.pages)) {
      const ok = m.p95 < budgets[page] && m.non2xx === 0 && m.errors === 0;
      pass &&= ok;
      rows.push([r.kind, page, fmtInt(m.rps), `${m.p50.toFixed(1)} ms`, `${m.p95.toFixed(1)} ms`, `${m.p99.toFixed(1)} ms`, `${m.cpuPerRequest.toFixed(1)} ms`, m.non2xx + m.errors, `< ${budgets[page]} ms`, verdict(ok)]);
    }
    const settled = r.rssAfter - r.rssIdle <= RSS_SETTLE_MB;
    pass &&= settled;
    rows.push([r.kind, 'RSS idle → settled after the load', '', `${Math.round(r.rssIdle)} MB`, `${Math.round(r.rssAfter)} MB`, '', '', '', `+≤ ${RSS_SETTLE_MB} MB`, `${verdict(settled)} +${Math.round(r.rssAfter - r.rssIdle)} MB`]);
    for (const lang of ['zh', 'en']) {
      const list = r.recall.filter((q) => q.lang === lang);
      const expected = list.reduce((a, q) => a + q.expected, 0);
      const found = list.reduce((a, q) => a + q.found, 0);
      const ok = found === expected;
      pass &&= ok;
      rows.push([r.kind, `recall ${lang} (${list.length} queries)`, '', '', '', '', '', '', '100%', `${verdict(ok)} ${found}/${expected}`]);
    }
  }
  const table = printTable(['database', 'page', 'req/s', 'p50', 'p95', 'p99', 'server CPU/req', 'non-2xx+errors', 'budget', 'verdict'], rows);

  console.log('\nRecall: planted posts among the first 50 results (matches = all results of the query)\n');
  const recallRows = [];
  for (const q of measured[0]?.recall ?? []) {
    const per = measured.map((r) => r.recall.find((x) => x.q === q.q));
    recallRows.push([q.q, q.lang, q.expected, ...per.map((x) => `${x.found}/${x.expected}${x.missing.length ? ` (missing ${x.missing.join(', ')})` : ''}`), fmtInt(q.total)]);
  }
  const recallTable = printTable(['query', 'lang', 'planted', ...measured.map((r) => `found (${r.kind})`), 'matches'], recallRows);

  let bytesTable = '';
  let bytesPass = false;
  let bytesSummary = 'post page bytes not measured';
  if (bytesResult) {
    const b = bytesResult;
    console.log(`\nAnonymous first visit of /ask/info/${b.id}, a planted post with a highlighted code block (accept-encoding: br, gzip; the cached answer, x-atrium-cache=${b.cache}; the first, uncached one was ${fmtInt(b.missBytes)} B)\n`);
    const { table: t, total } = printFiles(b.rows);
    bytesTable = t;
    const bad = b.rows.filter((r) => r.status !== 200);
    if (b.lazy.size) console.log(`loaded only on demand (dynamic import, not counted): ${[...b.lazy].join(', ')}`);
    if (b.islands.length) console.log(`islands in the page: ${b.islands.join(', ')}`);
    for (const f of b.frameworkFiles) console.log(`framework runtime suspect: ${f.name} (${f.hits.join(', ')})`);
    bytesPass = b.frameworkFiles.length === 0 && bad.length === 0;
    bytesSummary = `post page: ${b.rows.length} files, ${fmtInt(total.wire)} B brotli (${fmtInt(total.wire + total.headerBytes)} B with headers), framework JS ${b.frameworkFiles.length ? b.frameworkFiles.map((f) => f.name).join(', ') : 'none'} → ${verdict(bytesPass)}`;
    console.log(bytesSummary);
  }
  pass &&= bytesPass;

  const worst = (page) => Math.max(...measured.map((r) => r.pages[page].p95));
  const recallAll = measured.flatMap((r) => r.recall);
  const recallPct = (100 * recallAll.reduce((a, q) => a + q.found, 0)) / Math.max(1, recallAll.reduce((a, q) => a + q.expected, 0));
  const skipped = results.filter((r) => r.skipped).map((r) => r.kind);
  const summary = [
    measured.length ? `worst p95: index ${worst('index').toFixed(1)} ms, post ${worst('post').toFixed(1)} ms (< ${PAGE_P95_MS}), search zh ${worst('search zh').toFixed(1)} ms, en ${worst('search en').toFixed(1)} ms (< ${SEARCH_P95_MS}); recall ${recallPct.toFixed(1)} %` : 'no database measured',
    bytesSummary,
    `data: ${data.cached ? 'cached' : 'generated'} (${(manifest.generatedMs / 1000).toFixed(1)} s to generate)`,
    skipped.length ? `skipped: ${skipped.join(', ')}` : '',
  ].filter(Boolean).join('; ') + ` → ${verdict(pass && measured.length === kinds.length)}`;
  console.log(`\n${summary}`);
  return { name: 'forum', pass: pass && measured.length === kinds.length, summary, table: [table, '', recallTable, '', bytesTable].join('\n'), results, bytes: bytesResult };
}
