// Docs budgets (issue 5), on a scratch data dir of their own. Its first start seeds the user guide
// from docs/ (books `guide`, zh-cn, and `guide-en`); the operator CLI then makes an administrator,
// switches the login captcha off, installs the editor module and imports two pages made by
// bench/lib/docs-pages.mjs from the guide's text: a ~1,500-word reader page with code blocks and
// callouts into guide-en, and a 2,000-line page into a book of its own.
//   bytes       a reader page transfers ≤ 40 KB (40,000 B) brotli on a first visit: HTML, CSS and
//               JS with their module imports followed (bench/bytes.mjs's firstVisit), and loads no
//               React or island script. Judged on the generated page and on every guide page
//   serve       the generated page from the page cache serves ≥ 40 % of nginx's req/s for the same
//               bytes, same run (bench/serve.mjs's method; BENCH_ROUNDS interleaves rounds)
//   lighthouse  performance, accessibility, best practices and SEO ≥ 95 on the generated page with
//               Lighthouse's default (mobile) config; the desktop preset is shown beside it
//   editor      keystroke → updated preview p95 < 50 ms on the 2,000-line page in /md/edit/…, in
//               Chromium: 100 characters typed at 10 places, timed in the page from each keydown
//               to the preview's DOM change (MutationObserver) and to the end of that frame
// BENCH_CHROMIUM (/usr/bin/chromium) is the browser for Lighthouse and the editor; none is ever
// downloaded. Without it those two budgets are skipped.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, fmtInt, get, makeDir, printTable, sleep, verdict } from './lib/common.mjs';
import { NGINX, startAtrium, startNginx, stop, stopAtrium } from './lib/processes.mjs';
import { loadTool } from './lib/load.mjs';
import { HEADERS, firstVisit, printFiles } from './bytes.mjs';
import { assertSameBytes, measure, median, warmCache } from './serve.mjs';
import { editorPage, readerPage } from './lib/docs-pages.mjs';

const BYTES_BUDGET = 40_000;
const SERVE_BUDGET = 0.4;
const LIGHTHOUSE_BUDGET = 95;
const KEY_P95_BUDGET = 50;
export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
export const CHROMIUM = process.env.BENCH_CHROMIUM || '/usr/bin/chromium';
const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu'];
const ADMIN = { username: 'docsbench', email: 'docsbench@example.com', password: 'docsbench1' };
const READER = { book: 'guide-en', name: 'bench-reader', title: 'Atrium in practice' };
const LONG = { book: 'bench-editor', name: 'long-page', title: 'A long page', bookTitle: 'Editor benchmark' };
/** Places to type at, by kind of line, spread over the page; 10 characters at each. */
const TYPE_AT = ['paragraph', 'list', 'table', 'code', 'heading', 'paragraph', 'list', 'table', 'code', 'heading'];
/**
 * What is typed there: ordinary words, each with a token the preview's text is checked for
 * afterwards. They go in before the line's last word (in a table, at the start of the last cell),
 * so that every keystroke changes the preview: a space typed at the end of a line would render to
 * the same HTML, and the preview rightly has nothing to redraw.
 */
const TYPED = ['note kq01 ', 'kq02 item ', 'cell kq03 ', 'kq04 = 1; ', 'kq05 plus ', 'more kq06 ', 'kq07 also ', '7 ms kq08 ', 'kq09 + 2; ', 'kq10 Done '];

/** The operator CLI on the scratch data dir (no server may be running on it). */
function cli(dataDir, ...args) {
  const env = { ...process.env };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SITE_DOMAIN', 'PAGE_CACHE_MB']) delete env[k];
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.mjs'), ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  });
  if (r.status !== 0) throw new Error(`atrium ${args.slice(0, 2).join(' ')} failed (status ${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** A folder of one page as `md:import` reads it. */
function pageFolder(dir, { name, title }, markdown, order) {
  makeDir(dir);
  writeFileSync(join(dir, `${name}.md`), `---\ntitle: ${title}\norder: ${order}\n---\n\n${markdown}\n`);
  return dir;
}

async function prepare(ctx) {
  const dataDir = makeDir(join(ctx.runDir, 'docs'));
  // The first command opens the database: migrations, the site's defaults and the user guide.
  cli(dataDir, 'user:create-admin', ADMIN.username, ADMIN.email, ADMIN.password);
  cli(dataDir, 'config:set', 'user_login_captcha', '0');
  cli(dataDir, 'module:install', 'editor');
  const reader = readerPage();
  const long = editorPage();
  cli(dataDir, 'md:import', pageFolder(join(ctx.runDir, 'docs-import', 'reader'), READER, reader.markdown, 900), '--book', READER.book);
  cli(dataDir, 'md:import', pageFolder(join(ctx.runDir, 'docs-import', 'long'), LONG, long.markdown, 10), '--book', LONG.book, '--title', LONG.bookTitle);
  const books = cli(dataDir, 'md:books');
  for (const b of ['guide', 'guide-en', LONG.book]) if (!new RegExp(`^${b}\\b`, 'm').test(books)) throw new Error(`book ${b} is missing after the first start:\n${books}`);
  console.log(`[docs] reader page /md/${READER.book}/${READER.name}: ${fmtInt(reader.words)} words, ${reader.fences} code blocks, ${reader.callouts} callouts (${reader.sections} sections of docs/en)`);
  console.log(`[docs] editor page /md/edit/${LONG.book}/${LONG.name}: ${fmtInt(long.lines)} lines, ${fmtInt(long.chars)} characters, ${long.fences} code blocks`);
  return { dataDir, reader, long };
}

// ---------------------------------------------------------------------------------------------
// bytes

const decodeEntities = (s) => s.replace(/&(lt|gt|quot|#39|amp|nbsp);/g, (_, e) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&', nbsp: ' ' })[e]);
/** The article's text: what the reader came for, to tell the longest page. */
const articleText = (html) => decodeEntities((/<article\b[\s\S]*?<\/article>/.exec(html)?.[0] ?? '').replace(/<script\b[\s\S]*?<\/script>/g, '').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();

/** A first visit to a page from a warm server (the second answer: the page cache's). */
async function visit(url) {
  await get(url, HEADERS);
  const html = await get(url, HEADERS);
  if (html.status !== 200) throw new Error(`GET ${url} answered ${html.status}`);
  const v = await firstVisit(url, html);
  const total = v.rows.reduce((a, r) => a + r.wire, 0);
  // The island runtime (an inline script defining <astro-island>) or an island: framework code.
  const islands = /astro-island/.test(v.htmlText);
  const ok = v.rows.every((r) => r.status === 200);
  return { url, path: new URL(url).pathname, ...v, total, islands, ok, text: articleText(v.htmlText), cache: html.headers['x-atrium-cache'] ?? 'none' };
}

/** The pages of a book, from its sidebar (reading order). */
async function bookPages(base, book) {
  let res = await get(`${base}/md/${book}`);
  if (res.status === 302) res = await get(new URL(res.headers.location, base).href);
  if (res.status !== 200) throw new Error(`GET /md/${book} answered ${res.status}`);
  const names = new Set();
  for (const m of res.body.toString('utf8').matchAll(new RegExp(`href="(?:https?://[^"/]+)?/md/${book}/([^"#?/]+)"`, 'g'))) names.add(decodeURIComponent(m[1]));
  return [...names];
}

async function measureBytes(base) {
  const generated = await visit(`${base}/md/${READER.book}/${READER.name}`);
  const guide = [];
  for (const book of ['guide-en', 'guide']) {
    for (const name of await bookPages(base, book)) if (!(book === READER.book && name === READER.name)) guide.push(await visit(`${base}/md/${book}/${name}`));
  }
  const longest = guide.filter((g) => g.path.startsWith('/md/guide-en/')).reduce((a, b) => (b.text.length > a.text.length ? b : a));
  const pageOk = (v) => v.ok && v.total <= BYTES_BUDGET && !v.islands && v.frameworkFiles.length === 0;

  const tables = [];
  for (const [label, v] of [['generated reader page', generated], ['longest English guide page', longest]]) {
    const words = v.text.split(' ').length;
    console.log(`\nBudget: first visit to ${v.path} (${label}, ~${fmtInt(words)} words in the article, accept-encoding: br, gzip; x-atrium-cache=${v.cache})\n`);
    const { table } = printFiles(v.rows);
    tables.push(`${label}: ${v.path}\n\n${table}`);
    if (v.lazy.size) console.log(`loaded only on demand (dynamic import, not counted): ${[...v.lazy].join(', ')}`);
    for (const f of v.frameworkFiles) console.log(`framework runtime suspect: ${f.name} (${f.hits.join(', ')})`);
    console.log(`${v.path}: ${fmtInt(v.total)} B compressed (budget ≤ ${fmtInt(BYTES_BUDGET)} B); island script: ${v.islands ? 'YES' : 'none'}; React: ${v.frameworkFiles.length ? 'YES' : 'none'} → ${verdict(pageOk(v))}`);
  }

  console.log(`\nEvery guide page (first visit, brotli)\n`);
  const all = [generated, ...guide];
  const guideTable = printTable(
    ['page', 'article chars', 'files', 'HTML B', 'CSS B', 'JS B', 'total B', 'React/island', 'verdict'],
    all.map((v) => [
      v === generated ? `${v.path} (generated)` : v.path,
      fmtInt(v.text.length),
      v.rows.length,
      fmtInt(v.rows.filter((r) => r.kind === 'html').reduce((a, r) => a + r.wire, 0)),
      fmtInt(v.rows.filter((r) => /\.css$/.test(r.name)).reduce((a, r) => a + r.wire, 0)),
      fmtInt(v.rows.filter((r) => /\.m?js$/.test(r.name)).reduce((a, r) => a + r.wire, 0)),
      fmtInt(v.total),
      v.islands || v.frameworkFiles.length ? 'YES' : 'none',
      verdict(pageOk(v)),
    ]),
  );
  tables.push(guideTable);
  const worst = all.reduce((a, b) => (b.total > a.total ? b : a));
  const pass = all.every(pageOk);
  const summary = `generated page ${fmtInt(generated.total)} B, longest guide page (${longest.path}) ${fmtInt(longest.total)} B, largest of ${all.length} pages ${fmtInt(worst.total)} B (budget ≤ ${fmtInt(BYTES_BUDGET)} B); React/island scripts: ${all.some((v) => v.islands || v.frameworkFiles.length) ? 'YES' : 'none'} → ${verdict(pass)}`;
  console.log(`\n${summary}`);
  return { pass, summary, tables, generated, longest, worst, pages: all.length };
}

// ---------------------------------------------------------------------------------------------
// serve: the cached reader page against nginx, same bytes (as bench/serve.mjs does for /)

async function measureServe(ctx, server, url) {
  const page = await warmCache(url);
  if (!existsSync(NGINX)) {
    console.log('[docs] nginx is not installed: skipping the serve comparison. Install it with: apt-get install -y nginx-light wrk');
    return { pass: null, summary: 'SKIP (no nginx)', tables: [] };
  }
  const dir = join(ctx.runDir, 'docs-nginx');
  const docRoot = makeDir(join(dir, 'html'));
  const file = join(docRoot, 'index.html');
  writeFileSync(file, page.body);
  chmodSync(file, 0o644);
  console.log(`[docs] ${new URL(url).pathname}: ${fmtInt(page.body.length)} bytes (identity) served by nginx as index.html`);
  const nginx = await startNginx({ dir, docRoot });
  const runs = [];
  try {
    await assertSameBytes('nginx', nginx.url, page);
    for (let round = 1; round <= ctx.rounds; round++) {
      if (ctx.rounds > 1) console.log(`[docs] round ${round}/${ctx.rounds}`);
      runs.push({ round, ...(await measure('nginx (static file)', nginx.url, nginx.child.pid, ctx)) });
      runs.push({ round, ...(await measure('Atrium, page cache', url, server.child.pid, ctx)) });
      const after = await get(url);
      if (after.headers['x-atrium-cache'] !== 'hit') console.log('[docs] warning: after the run the page no longer came from the page cache');
    }
  } finally {
    await stop(nginx.child);
  }
  const ratios = runs.filter((r) => r.name !== 'nginx (static file)').map((c) => c.rps / runs.find((n) => n.name === 'nginx (static file)' && n.round === c.round).rps);
  const ratio = median(ratios);
  const pick = (name) => {
    const mine = runs.filter((r) => r.name === name);
    const m = median(mine.map((r) => r.rps));
    return mine.reduce((best, r) => (Math.abs(r.rps - m) < Math.abs(best.rps - m) ? r : best));
  };
  const nginxR = pick('nginx (static file)');
  const rows = [nginxR, pick('Atrium, page cache')];
  const how = `${loadTool()}, ${ctx.connections} connections, ${ctx.seconds} s each after ${ctx.warmupSeconds} s warm-up${ctx.rounds > 1 ? `, median of ${ctx.rounds} interleaved rounds` : ''}`;
  console.log(`\nBudget: cached reader page vs nginx (${fmtInt(page.body.length)} B page, no Accept-Encoding, ${how})\n`);
  const table = printTable(
    ['target', 'req/s', 'vs nginx', 'server CPU', 'CPU µs/req', 'latency avg', 'latency p99', 'non-2xx+errors'],
    rows.map((r) => [
      r.name, fmtInt(r.rps), `${((r.rps / nginxR.rps) * 100).toFixed(1)}%`,
      r.cpuShare === null ? '' : `${Math.round(r.cpuShare * 100)}%`, r.cpuUsPerRequest === null ? '' : r.cpuUsPerRequest.toFixed(1),
      `${r.latencyAvgMs.toFixed(2)} ms`, `${r.latencyP99Ms.toFixed(2)} ms`, r.non2xx + r.errors,
    ]),
  );
  if (ctx.rounds > 1) console.log(`per round cached/nginx: ${ratios.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')}`);
  const pass = ratio >= SERVE_BUDGET && rows.every((r) => r.non2xx + r.errors === 0);
  const summary = `cached reader page / nginx = ${(ratio * 100).toFixed(1)}% (${fmtInt(page.body.length)} B page; budget ≥ ${SERVE_BUDGET * 100}%) → ${verdict(pass)}`;
  console.log(`\n${summary}`);
  return { pass, summary, tables: [table], ratio, bytes: page.body.length };
}

// ---------------------------------------------------------------------------------------------
// Lighthouse, through its node API, on /usr/bin/chromium started by chrome-launcher

export async function runLighthouse(url, preset) {
  // chrome-launcher comes with lighthouse: resolve it from there rather than rely on hoisting.
  const fromLighthouse = createRequire(join(ROOT, 'node_modules', 'lighthouse', 'package.json'));
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import(pathToFileURL(fromLighthouse.resolve('chrome-launcher')).href);
  const config = preset === 'desktop' ? (await import('lighthouse/core/config/desktop-config.js')).default : undefined;
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROME_FLAGS, logLevel: 'silent' });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES }, config);
    if (!result?.lhr) throw new Error(`Lighthouse gave no result for ${url}`);
    if (result.lhr.runtimeError) throw new Error(`Lighthouse: ${result.lhr.runtimeError.code}: ${result.lhr.runtimeError.message}`);
    return result.lhr;
  } finally {
    await chrome.kill();
  }
}

/** Audits that cost points: weighted in a category and below a full score. */
export function lostPoints(lhr) {
  const out = [];
  for (const id of CATEGORIES) {
    for (const ref of lhr.categories[id].auditRefs) {
      const a = lhr.audits[ref.id];
      if (ref.weight > 0 && a.score !== null && a.score < 1) out.push(`${id}: ${ref.id} (${Math.round(a.score * 100)}${a.displayValue ? `, ${a.displayValue}` : ''})`);
    }
  }
  return out;
}

async function measureLighthouse(url) {
  if (!existsSync(CHROMIUM)) return { pass: null, summary: `SKIP (no browser at ${CHROMIUM})`, tables: [] };
  const results = [];
  for (const preset of ['mobile', 'desktop']) {
    console.log(`[docs] Lighthouse (${preset}) → ${url}`);
    const lhr = await runLighthouse(url, preset);
    results.push({ preset, lhr, scores: Object.fromEntries(CATEGORIES.map((c) => [c, Math.round(lhr.categories[c].score * 100)])) });
  }
  const metric = (lhr, id, unit) => {
    const v = lhr.audits[id]?.numericValue;
    return v === undefined ? '' : unit === 'ms' ? `${fmtInt(v)} ms` : v.toFixed(3);
  };
  console.log(`\nBudget: Lighthouse ${results[0].lhr.lighthouseVersion} on ${new URL(url).pathname} (${CHROMIUM}, ${CHROME_FLAGS.join(' ')}; budget ≥ ${LIGHTHOUSE_BUDGET} each, judged on mobile)\n`);
  const table = printTable(
    ['preset', 'performance', 'accessibility', 'best practices', 'SEO', 'FCP', 'LCP', 'TBT', 'CLS', 'Speed Index', 'CPU benchmark'],
    results.map(({ preset, lhr, scores }) => [
      preset, scores.performance, scores.accessibility, scores['best-practices'], scores.seo,
      metric(lhr, 'first-contentful-paint', 'ms'), metric(lhr, 'largest-contentful-paint', 'ms'), metric(lhr, 'total-blocking-time', 'ms'),
      metric(lhr, 'cumulative-layout-shift'), metric(lhr, 'speed-index', 'ms'), fmtInt(lhr.environment?.benchmarkIndex ?? 0),
    ]),
  );
  for (const { preset, lhr } of results) {
    const lost = lostPoints(lhr);
    if (lost.length) console.log(`${preset}: points lost on ${lost.join('; ')}`);
    for (const w of lhr.runWarnings ?? []) console.log(`${preset}: Lighthouse warning: ${w}`);
  }
  const judged = results[0].scores;
  const pass = CATEGORIES.every((c) => judged[c] >= LIGHTHOUSE_BUDGET);
  const fmt = (s) => CATEGORIES.map((c) => s[c]).join('/');
  const summary = `Lighthouse mobile ${fmt(judged)}, desktop ${fmt(results[1].scores)} (performance/accessibility/best practices/SEO; budget ≥ ${LIGHTHOUSE_BUDGET} each on mobile) → ${verdict(pass)}`;
  console.log(`\n${summary}`);
  return { pass, summary, tables: [table], results: results.map(({ preset, scores, lhr }) => ({ preset, scores, lost: lostPoints(lhr) })) };
}

// ---------------------------------------------------------------------------------------------
// Editor: keystroke → preview, in Chromium

let seed = 0x5eed_d0c5;
/** mulberry32: the same delays on every run. */
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Each line's kind: the places a writer types at. */
function lineKinds(text) {
  let fence = false;
  return text.split('\n').map((line) => {
    if (/^ {0,3}(`{3,}|~{3,})/.test(line)) {
      fence = !fence;
      return 'fence';
    }
    if (fence) return line.trim() ? 'code' : 'blank';
    if (/^#{2,6} \S/.test(line)) return 'heading';
    if (/^\s*(?:[-*+]|\d+\.) \S.{20,}$/.test(line)) return 'list';
    if (/^\|.*[^\s|-].*\|\s*$/.test(line) && !/^\|[\s:|-]+\|\s*$/.test(line)) return 'table';
    if (/^[A-Za-z\u4e00-\u9fff*`[].{60,}$/.test(line)) return 'paragraph';
    return 'other';
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** In the page: timestamps of keydowns, preview mutations and frame ends (after rendering). */
function instrument() {
  const preview = document.querySelector('.md-editor__preview .markdown-body');
  const b = { keys: [], mutations: [], frames: [], longTasks: [] };
  window.__docsBench = b;
  // Characters only: the arrow keys that bring the caret into view are not keystrokes of the text.
  document.addEventListener('keydown', (e) => { if (e.key.length === 1) b.keys.push(e.timeStamp); }, true);
  new MutationObserver(() => { b.mutations.push(performance.now()); }).observe(preview, { childList: true, subtree: true, characterData: true });
  // Main-thread tasks over 50 ms (where the time goes when the budget is missed).
  new PerformanceObserver((list) => { for (const e of list.getEntries()) b.longTasks.push(e.duration); }).observe({ type: 'longtask' });
  // A message posted in a frame's animation callbacks runs once that frame's style, layout and
  // paint are done: its time is the frame's end.
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { b.frames.push(performance.now()); };
  const loop = () => {
    channel.port2.postMessage(0);
    b.raf = requestAnimationFrame(loop);
  };
  b.raf = requestAnimationFrame(loop);
}

async function measureEditor(base) {
  if (!existsSync(CHROMIUM)) return { pass: null, summary: `SKIP (no browser at ${CHROMIUM})`, tables: [] };
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    // Logged in in the browser, as the login form does: the answer sets the session cookies.
    const login = await page.evaluate(async ({ username, password }) => {
      const res = await fetch('/api/user/checkIn', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tab: 'login', username, password, keep: true }) });
      return res.json();
    }, ADMIN);
    if (login.code !== 1) throw new Error(`login in the browser failed: ${login.msg}`);

    let where = `/md/edit/${LONG.book}/${LONG.name}`;
    let fallback = null;
    await page.goto(`${base}${where}`);
    const ready = () => {
      const ta = document.querySelector('.md-editor textarea');
      const island = ta?.closest('astro-island');
      return Boolean(ta && island && !island.hasAttribute('ssr') && document.querySelector('.md-editor__preview .markdown-body'));
    };
    try {
      await page.waitForFunction(ready, null, { timeout: 30_000 });
      const lines = await page.evaluate(() => document.querySelector('.md-editor textarea').value.split('\n').length);
      if (lines < 1900) throw new Error(`the editor holds ${lines} lines`);
    } catch (err) {
      // The docs editor is not there (or not working): the forum's post form has the same editor.
      fallback = `${where}: ${err.message.split('\n')[0]}`;
      where = '/ask/post';
      console.log(`[docs] warning: the docs editor is not usable (${fallback}); measuring on ${where}, the same MarkdownEditor in split layout`);
      await page.goto(`${base}${where}`);
      await page.waitForFunction(ready, null, { timeout: 30_000 });
      const text = editorPage().markdown;
      await page.evaluate((value) => {
        const ta = document.querySelector('.md-editor textarea');
        Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(ta, value);
        ta.dispatchEvent(new Event('input', { bubbles: true }));
      }, text);
      await sleep(1500);
    }
    const value = await page.evaluate(() => document.querySelector('.md-editor textarea').value);
    const kinds = lineKinds(value);
    // One line of each kind per tenth of the page, the first at or after the tenth's start.
    const places = TYPE_AT.map((kind, i) => {
      const from = Math.floor((i / TYPE_AT.length) * kinds.length);
      const line = [...kinds.keys()].slice(from).concat([...kinds.keys()].slice(0, from)).find((l) => kinds[l] === kind);
      if (line === undefined) throw new Error(`no ${kind} line in the editor page`);
      return { kind, line, text: TYPED[i] };
    });

    await page.evaluate(instrument);
    // Chromium's own main-thread totals over the typing: where the time per keystroke goes.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const before = await metrics();
    let typed = 0;
    for (const place of places) {
      await page.evaluate(({ line, kind }) => {
        const ta = document.querySelector('.md-editor textarea');
        const lines = ta.value.split('\n');
        const start = lines.slice(0, line).reduce((a, l) => a + l.length + 1, 0);
        const text = lines[line];
        // In a table, at the start of the last cell's text; elsewhere before the line's last word.
        const body = kind === 'table' ? text.replace(/\s*\|\s*$/, '') : text.trimEnd();
        const at = start + (kind === 'table' ? body.lastIndexOf('|') + 1 + /^\s*/.exec(body.slice(body.lastIndexOf('|') + 1))[0].length : body.search(/\S+$/));
        ta.focus();
        ta.setSelectionRange(at, at);
      }, place);
      // As a click there would, the caret comes into view before typing starts (a caret move
      // reveals it), and the preview follows the scroll.
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowRight');
      await sleep(600);
      for (const ch of place.text) {
        await page.keyboard.type(ch);
        typed++;
        await sleep(60 + Math.floor(random() * 120)); // 60–180 ms between keys: a steady typist
      }
    }
    await sleep(1000);
    const after = await metrics();
    const perKey = (name) => ((after[name] - before[name]) * 1000) / typed;
    const cost = { script: perKey('ScriptDuration'), style: perKey('RecalcStyleDuration'), layout: perKey('LayoutDuration'), task: perKey('TaskDuration') };
    const b = await page.evaluate(() => {
      cancelAnimationFrame(window.__docsBench.raf);
      const text = document.querySelector('.md-editor__preview .markdown-body').textContent;
      return { ...window.__docsBench, text };
    });
    const missing = places.filter((p) => !b.text.includes(p.text.trim()));
    if (b.keys.length !== typed) throw new Error(`${typed} characters typed but ${b.keys.length} keydowns seen`);

    const dom = [];
    const frame = [];
    let coalesced = 0;
    b.keys.forEach((k, i) => {
      const m = b.mutations.find((t) => t >= k);
      const f = m === undefined ? undefined : b.frames.find((t) => t >= m);
      if (m === undefined || f === undefined) throw new Error(`keystroke ${i + 1} never reached the preview`);
      if (i + 1 < b.keys.length && m > b.keys[i + 1]) coalesced++;
      dom.push(m - k);
      frame.push(f - k);
    });
    const stats = (xs) => {
      const s = [...xs].sort((a, c) => a - c);
      return { p50: percentile(s, 50), p95: percentile(s, 95), max: s.at(-1) };
    };
    const d = stats(dom);
    const f = stats(frame);
    const ms = (x) => `${x.toFixed(1)} ms`;
    console.log(`\nBudget: keystroke → preview on ${where} (${fmtInt(kinds.length)} lines, ${fmtInt(value.length)} characters; ${typed} characters at ${places.length} places: ${[...new Set(TYPE_AT)].join(', ')}; 60–180 ms between keys; Chromium, 1440×900)\n`);
    const table = printTable(
      ['keydown →', 'p50', 'p95', 'max', 'budget', 'verdict'],
      [
        ['preview DOM updated (MutationObserver)', ms(d.p50), ms(d.p95), ms(d.max), '', ''],
        ['end of the frame showing it', ms(f.p50), ms(f.p95), ms(f.max), `p95 < ${KEY_P95_BUDGET} ms`, verdict(f.p95 < KEY_P95_BUDGET)],
      ],
    );
    let offset = 0;
    const perPlace = places.map((p) => {
      const mine = frame.slice(offset, (offset += p.text.length));
      return `${p.kind} (line ${p.line + 1}) p50 ${Math.round(stats(mine).p50)} / max ${Math.round(stats(mine).max)}`;
    });
    console.log(`per place, keydown → frame end in ms: ${perPlace.join('; ')}`);
    console.log(`main thread per keystroke (Chromium's Performance metrics, typing pauses included): script ${cost.script.toFixed(1)} ms, style ${cost.style.toFixed(1)} ms, layout ${cost.layout.toFixed(1)} ms, all tasks ${cost.task.toFixed(1)} ms`);
    const long = [...b.longTasks].sort((x, y) => x - y);
    if (long.length) console.log(`main-thread tasks over 50 ms while typing: ${long.length}, median ${Math.round(percentile(long, 50))} ms, longest ${Math.round(long.at(-1))} ms`);
    if (coalesced) console.log(`${coalesced} keystroke(s) reached the preview only after the next one (one render for both)`);
    if (missing.length) console.log(`warning: the preview does not show what was typed at ${missing.map((p) => `${p.kind}@${p.line + 1}`).join(', ')}`);
    const pass = f.p95 < KEY_P95_BUDGET && missing.length === 0;
    const summary = `editor keystroke → preview frame p50 ${Math.round(f.p50)} / p95 ${Math.round(f.p95)} / max ${Math.round(f.max)} ms (DOM p95 ${Math.round(d.p95)} ms) on ${where}${fallback ? ' (fallback: docs editor not usable)' : ''} (budget p95 < ${KEY_P95_BUDGET} ms) → ${verdict(pass)}`;
    console.log(`\n${summary}`);
    return { pass, summary, tables: [table], where, fallback, dom: d, frame: f, cost };
  } finally {
    await browser.close();
  }
}

// ---------------------------------------------------------------------------------------------

export async function docs(ctx) {
  const { dataDir } = await prepare(ctx);
  const server = await startAtrium({ dataDir });
  console.log(`[docs] Atrium listening on ${server.url} (ready in ${server.readyInMs} ms)`);
  const parts = {};
  try {
    parts.bytes = await measureBytes(server.url);
    parts.serve = await measureServe(ctx, server, `${server.url}/md/${READER.book}/${READER.name}`);
    parts.lighthouse = await measureLighthouse(`${server.url}/md/${READER.book}/${READER.name}`);
    parts.editor = await measureEditor(server.url);
  } finally {
    await stopAtrium(server);
  }
  const verdicts = Object.values(parts).map((p) => p.pass);
  const pass = verdicts.includes(false) ? false : verdicts.every((v) => v === null) ? null : true;
  const summary = Object.entries(parts).map(([k, p]) => `${k}: ${p.summary}`).join('\n         ');
  const table = Object.values(parts).flatMap((p) => p.tables).join('\n\n');
  return { name: 'docs', pass, summary, table, parts };
}
