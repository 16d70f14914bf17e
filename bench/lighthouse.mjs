// Lighthouse on the pages readers open most (issue 27): `/`, `/ask`, a post, a docs page,
// `/modules` and `/chat`, on a fresh PGlite site with the demo forum (`--migrate-only --demo`), in
// Lighthouse's mobile (default) and desktop configurations, Debian's Chromium (BENCH_CHROMIUM).
// Budget on every page and both configurations: accessibility 100, SEO 100, performance ≥ 95.
// Best practices are printed beside them. The page cache is on, as a visitor meets it; each page is
// opened once before it is measured so the run measures the page, not its first render.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, get, printTable, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium } from './lib/processes.mjs';
import { CATEGORIES, CHROMIUM, lostPoints, runLighthouse } from './docs.mjs';

const BUDGET = { performance: 95, accessibility: 100, seo: 100 };

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
  const server = await startAtrium({ dataDir: ctx.dataDir });
  const rows = [];
  const lost = [];
  try {
    const base = server.url;
    for (const path of await pagesOf(base)) {
      await get(`${base}${path}`);
      for (const preset of ['mobile', 'desktop']) {
        console.log(`[lighthouse] ${preset} → ${path}`);
        const lhr = await runLighthouse(`${base}${path}`, preset);
        const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round(lhr.categories[c].score * 100)]));
        rows.push({ path, preset, scores, lcp: lhr.audits['largest-contentful-paint']?.numericValue, tbt: lhr.audits['total-blocking-time']?.numericValue, cls: lhr.audits['cumulative-layout-shift']?.numericValue, version: lhr.lighthouseVersion });
        for (const l of lostPoints(lhr)) lost.push(`${path} ${preset}: ${l}`);
      }
    }
  } finally {
    await stopAtrium(server);
  }
  const ok = (r) => Object.entries(BUDGET).every(([c, min]) => r.scores[c] >= min);
  console.log(`\nBudget: Lighthouse ${rows[0]?.version} (${CHROMIUM}): accessibility ${BUDGET.accessibility}, SEO ${BUDGET.seo}, performance ≥ ${BUDGET.performance} on every page, mobile and desktop\n`);
  const table = printTable(
    ['page', 'preset', 'performance', 'accessibility', 'best practices', 'SEO', 'LCP', 'TBT', 'CLS', 'budget'],
    rows.map((r) => [r.path, r.preset, r.scores.performance, r.scores.accessibility, r.scores['best-practices'], r.scores.seo,
      r.lcp === undefined ? '' : `${Math.round(r.lcp)} ms`, r.tbt === undefined ? '' : `${Math.round(r.tbt)} ms`, r.cls === undefined ? '' : r.cls.toFixed(3), verdict(ok(r))]),
  );
  if (lost.length) console.log(`\npoints lost:\n  ${lost.join('\n  ')}`);
  const pass = rows.every(ok);
  const worst = (c) => Math.min(...rows.map((r) => r.scores[c]));
  const summary = `Lighthouse on ${rows.length / 2} pages × mobile/desktop: lowest performance ${worst('performance')}, accessibility ${worst('accessibility')}, SEO ${worst('seo')}, best practices ${worst('best-practices')} → ${verdict(pass)}`;
  console.log(`\n${summary}`);
  return { name: 'lighthouse', pass, summary, table };
}
