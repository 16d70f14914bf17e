// Lighthouse on the pages readers open most (issue 27): `/`, `/ask`, a post, a docs page,
// `/modules` and `/chat`, on a fresh PGlite site with the demo forum (`--migrate-only --demo`), in
// Lighthouse's mobile (default) and desktop configurations, Debian's Chromium (BENCH_CHROMIUM).
// Budget on every page and both configurations: accessibility 100, SEO 100, performance ≥ 95.
// Best practices are printed beside them. The page cache is on, as a visitor meets it; each page is
// opened once before it is measured so the run measures the page, not its first render.
// Lighthouse's simulated throttling scales the CPU time it observes, so other work on the machine
// moves the performance score: BENCH_LIGHTHOUSE_RUNS (1) measures each page that many times and
// judges the run with the median performance score, printing the spread of the score and of the
// total blocking time. BENCH_LIGHTHOUSE_PAGES (e.g. `/chat`) and BENCH_LIGHTHOUSE_PRESETS (`mobile`)
// narrow the run to some pages (the post and docs page match `post` and `docs`) or one preset.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, get, printTable, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium } from './lib/processes.mjs';
import { CATEGORIES, CHROMIUM, lostPoints, runLighthouse } from './docs.mjs';

const BUDGET = { performance: 95, accessibility: 100, seo: 100 };
const PRESETS = ['mobile', 'desktop'];

function options() {
  const runs = Number(process.env.BENCH_LIGHTHOUSE_RUNS || 1);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`BENCH_LIGHTHOUSE_RUNS must be a whole number ≥ 1, got "${process.env.BENCH_LIGHTHOUSE_RUNS}"`);
  const list = (name) => (process.env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const presets = list('BENCH_LIGHTHOUSE_PRESETS');
  for (const p of presets) if (!PRESETS.includes(p)) throw new Error(`BENCH_LIGHTHOUSE_PRESETS: unknown preset "${p}" (${PRESETS.join(', ')})`);
  return { runs, pages: list('BENCH_LIGHTHOUSE_PAGES'), presets: presets.length ? presets : PRESETS };
}

/** Whether a measured page is one BENCH_LIGHTHOUSE_PAGES names: a path, or `post` / `docs` for the found pages. */
function chosen(path, pages) {
  if (!pages.length) return true;
  return pages.some((p) => p === path || (p === 'post' && path.startsWith('/ask/info/')) || (p === 'docs' && path.startsWith('/md/')));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs, fmt = (x) => String(Math.round(x))) => (xs.length > 1 ? `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}` : '');

/** The measured pages: the first post of /ask and the first page of the guide are found on the site. */
async function pagesOf(base) {
  const pages = ['/', '/ask'];
  const ask = await get(`${base}/ask`);
  const post = /href="(\/ask\/info\/\d+)"/.exec(ask.body.toString('utf8'))?.[1];
  if (!post) throw new Error('the demo site has no post on /ask');
  pages.push(post);
  const book = await get(`${base}/md/guide`);
  pages.push(book.status >= 300 && book.status < 400 ? new URL(book.headers.location, base).pathname : '/md/guide');
  pages.push('/modules', '/chat');
  return pages;
}

export async function lighthouse(ctx) {
  if (!existsSync(CHROMIUM)) return { name: 'lighthouse', pass: null, summary: `SKIP (no browser at ${CHROMIUM})`, tables: [] };
  const env = { ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: ctx.dataDir };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SITE_DOMAIN']) delete env[k];
  if (!ctx.hasDatabase) {
    const seeded = spawnSync(process.execPath, [join(ROOT, 'dist', 'atrium.mjs'), '--migrate-only', '--demo'], { cwd: ROOT, env, encoding: 'utf8' });
    if (seeded.status !== 0) throw new Error(`seeding the demo site failed: ${seeded.stderr}`);
    ctx.hasDatabase = true;
  }
  const opts = options();
  const server = await startAtrium({ dataDir: ctx.dataDir });
  const rows = [];
  const lost = [];
  try {
    const base = server.url;
    for (const path of (await pagesOf(base)).filter((p) => chosen(p, opts.pages))) {
      await get(`${base}${path}`);
      for (const preset of opts.presets) {
        const runs = [];
        for (let i = 0; i < opts.runs; i++) {
          const load = loadavg()[0];
          console.log(`[lighthouse] ${preset} → ${path}${opts.runs > 1 ? ` (run ${i + 1}/${opts.runs})` : ''}, load average ${load.toFixed(2)}`);
          const lhr = await runLighthouse(`${base}${path}`, preset);
          const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round(lhr.categories[c].score * 100)]));
          runs.push({ lhr, scores, load, tbt: lhr.audits['total-blocking-time']?.numericValue });
          if (opts.runs > 1) console.log(`[lighthouse]   performance ${scores.performance}, TBT ${Math.round(runs.at(-1).tbt ?? 0)} ms`);
        }
        // The run with the median performance score stands for the page (its other figures with it).
        const byScore = [...runs].sort((a, b) => a.scores.performance - b.scores.performance);
        const { lhr, scores } = byScore[Math.floor((byScore.length - 1) / 2)];
        const perf = runs.map((r) => r.scores.performance);
        const tbts = runs.map((r) => r.tbt ?? 0);
        rows.push({
          path, preset, scores, lcp: lhr.audits['largest-contentful-paint']?.numericValue, tbt: median(tbts), cls: lhr.audits['cumulative-layout-shift']?.numericValue, version: lhr.lighthouseVersion,
          perfSpread: spread(perf), tbtSpread: spread(tbts, (x) => `${Math.round(x)}`), loads: spread(runs.map((r) => r.load), (x) => x.toFixed(1)),
        });
        for (const l of lostPoints(lhr)) lost.push(`${path} ${preset}: ${l}`);
      }
    }
  } finally {
    await stopAtrium(server);
  }
  const ok = (r) => Object.entries(BUDGET).every(([c, min]) => r.scores[c] >= min);
  const several = opts.runs > 1;
  console.log(`\nBudget: Lighthouse ${rows[0]?.version} (${CHROMIUM}): accessibility ${BUDGET.accessibility}, SEO ${BUDGET.seo}, performance ≥ ${BUDGET.performance} on every page, ${opts.presets.join(' and ')}${several ? `; median of ${opts.runs} runs each` : ''}\n`);
  const table = printTable(
    ['page', 'preset', 'performance', ...(several ? ['perf. range'] : []), 'accessibility', 'best practices', 'SEO', 'LCP', several ? 'TBT (median)' : 'TBT', ...(several ? ['TBT range (ms)', 'load average'] : []), 'CLS', 'budget'],
    rows.map((r) => [r.path, r.preset, r.scores.performance, ...(several ? [r.perfSpread] : []), r.scores.accessibility, r.scores['best-practices'], r.scores.seo,
      r.lcp === undefined ? '' : `${Math.round(r.lcp)} ms`, r.tbt === undefined ? '' : `${Math.round(r.tbt)} ms`, ...(several ? [r.tbtSpread, r.loads] : []),
      r.cls === undefined ? '' : r.cls.toFixed(3), verdict(ok(r))]),
  );
  if (lost.length) console.log(`\npoints lost:\n  ${lost.join('\n  ')}`);
  const pass = rows.every(ok);
  const worst = (c) => Math.min(...rows.map((r) => r.scores[c]));
  const summary = `Lighthouse on ${rows.length / opts.presets.length} pages × ${opts.presets.join('/')}${several ? ` (median of ${opts.runs})` : ''}: lowest performance ${worst('performance')}, accessibility ${worst('accessibility')}, SEO ${worst('seo')}, best practices ${worst('best-practices')} → ${verdict(pass)}`;
  console.log(`\n${summary}`);
  return { name: 'lighthouse', pass, summary, table };
}
