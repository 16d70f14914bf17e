// Budget 2: the home page ships no framework JavaScript to an anonymous visitor. Fetches `/` and
// everything a browser loads before the page is usable (scripts, stylesheets, modulepreloads and
// the modules those scripts import statically), all with `accept-encoding: br, gzip`, and reports
// the compressed bytes of a first visit plus any file that looks like the React runtime.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { basename } from 'node:path';
import { get, printTable, fmtInt, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium } from './lib/processes.mjs';

export const HEADERS = { 'accept-encoding': 'br, gzip' };

/**
 * Signs of React/ReactDOM in a file: ReactDOM internals, noted with the file name when it is
 * @astrojs/react's `client.*.js` renderer. The name alone proves nothing: the app's own client
 * dictionary chunk is called client.*.js too (2 KB of messages).
 */
const REACT_MARKERS = ['react-dom', '__reactContainer', 'createRoot', 'react.transitional.element'];
const looksLikeReact = (name, text) => {
  const hits = REACT_MARKERS.filter((m) => text.includes(m));
  if (hits.length && /(^|[^A-Za-z])client\.[\w-]+\.m?js$/.test(basename(name))) hits.unshift('file name client.*');
  return hits;
};

export function decode(res) {
  const enc = res.headers['content-encoding'];
  if (enc === 'br') return brotliDecompressSync(res.body);
  if (enc === 'gzip') return gunzipSync(res.body);
  return res.body;
}

const attr = (tag, name) => new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag)?.slice(1).find((v) => v !== undefined);

/** Assets the HTML makes the browser fetch at once, plus the inline module scripts (which may import). */
function htmlAssets(html) {
  const assets = [];
  for (const m of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attr(m[0], 'src');
    if (src) assets.push({ url: src, kind: 'script' });
  }
  for (const m of html.matchAll(/<link\b[^>]*>/gi)) {
    const rel = (attr(m[0], 'rel') ?? '').toLowerCase().split(/\s+/);
    const href = attr(m[0], 'href');
    if (href && rel.includes('stylesheet')) assets.push({ url: href, kind: 'stylesheet' });
    else if (href && rel.includes('modulepreload')) assets.push({ url: href, kind: 'modulepreload' });
  }
  const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter((m) => !/\ssrc\s*=/i.test(m[1])).map((m) => m[2]);
  return { assets, inline };
}

/**
 * Module specifiers a JS file imports. Static ones (`import x from "./a.js"`, `import "./a.js"`,
 * `export … from "./a.js"`) load with the page; dynamic `import("./a.js")` ones only when the code
 * runs that path, so they are listed but not counted in a first visit.
 */
export function jsImports(code) {
  const statics = new Set();
  const dynamics = new Set();
  for (const m of code.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?["'`]([^"'`\s]+\.m?js)["'`]/g)) statics.add(m[1]);
  for (const m of code.matchAll(/\bimport\s*\(\s*["'`]([^"'`\s]+)["'`]\s*\)/g)) dynamics.add(m[1]);
  for (const s of statics) dynamics.delete(s);
  return { statics: [...statics], dynamics: [...dynamics] };
}

/**
 * A first visit to `pageUrl`: the page (`html`, the response already fetched) and every file the
 * browser loads with it, followed through static imports. Returns the rows (one per file, wire and
 * uncompressed bytes), the files that look like a framework runtime and the modules only imported
 * dynamically (loaded on demand, not counted). bench/forum.mjs measures the post page with it.
 */
export async function firstVisit(pageUrl, html) {
  const htmlText = decode(html).toString('utf8');
  const rows = [];
  const frameworkFiles = [];
  const add = (name, kind, res, raw) => {
    rows.push({ name, kind, status: res.status, encoding: res.headers['content-encoding'] ?? 'identity', wire: res.body.length, headerBytes: res.headerBytes, raw: raw.length });
  };
  add(new URL(pageUrl).pathname, 'html', html, Buffer.from(htmlText));
  const { assets, inline } = htmlAssets(htmlText);
  const inlineHits = looksLikeReact('inline', inline.join('\n'));
  if (inlineHits.length) frameworkFiles.push({ name: `${new URL(pageUrl).pathname} (inline scripts)`, hits: inlineHits });

  const queue = assets.map((a) => ({ ...a, url: new URL(a.url, pageUrl).href }));
  for (const code of inline) for (const s of jsImports(code).statics) queue.push({ url: new URL(s, pageUrl).href, kind: 'import (inline)' });
  const seen = new Set();
  const lazy = new Set();
  // Bounded: a page that pulls more than 200 files is a finding in itself.
  for (let i = 0; i < queue.length && i < 200; i++) {
    const { url, kind } = queue[i];
    if (seen.has(url)) continue;
    seen.add(url);
    const res = await get(url, HEADERS);
    const text = res.status === 200 ? decode(res).toString('utf8') : '';
    const path = new URL(url).pathname;
    add(path, kind, res, Buffer.from(text));
    const hits = looksLikeReact(path, text);
    if (hits.length) frameworkFiles.push({ name: path, hits });
    if (/\.m?js$/.test(path)) {
      const { statics, dynamics } = jsImports(text);
      for (const s of statics) queue.push({ url: new URL(s, url).href, kind: `import (${basename(path).split('.')[0]})` });
      for (const d of dynamics) lazy.add(new URL(d, url).pathname);
    }
  }
  return { htmlText, rows, frameworkFiles, lazy };
}

/** The files table (one row per file and a total) as printed by the bytes budgets. */
export function printFiles(rows) {
  const total = rows.reduce((a, r) => ({ wire: a.wire + r.wire, raw: a.raw + r.raw, headerBytes: a.headerBytes + r.headerBytes }), { wire: 0, raw: 0, headerBytes: 0 });
  const table = printTable(
    ['file', 'loaded as', 'status', 'encoding', 'bytes sent', 'uncompressed', 'headers ≈'],
    [
      ...rows.map((r) => [r.name.length > 60 ? r.name.slice(0, 57) + '…' : r.name, r.kind, r.status, r.encoding, fmtInt(r.wire), fmtInt(r.raw), fmtInt(r.headerBytes)]),
      ['total', `${rows.length} files`, '', '', fmtInt(total.wire), fmtInt(total.raw), fmtInt(total.headerBytes)],
    ],
  );
  return { table, total };
}

export async function bytes(ctx) {
  const server = await startAtrium({ dataDir: ctx.dataDir });
  ctx.hasDatabase = true;
  try {
    const base = `${server.url}/`;
    // The first request after a start renders (and compresses on the fly); a visitor normally
    // meets a warm server, so measure the second, cached answer and mention the first.
    const miss = await get(base, HEADERS);
    const html = await get(base, HEADERS);
    if (html.status !== 200) throw new Error(`GET / answered ${html.status}`);
    const { htmlText, rows, frameworkFiles, lazy } = await firstVisit(base, html);

    const buildId = /<meta name="atrium-build" content="([^"]+)"/.exec(htmlText)?.[1] ?? '?';
    console.log(`\nBudget 2: first anonymous visit to / (accept-encoding: br, gzip; build ${buildId})\n`);
    const { table, total } = printFiles(rows);
    const bad = rows.filter((r) => r.status !== 200);
    if (bad.length) console.log(`[bench] warning: ${bad.length} file(s) did not answer 200`);
    console.log(`\nfirst response after start (page cache miss): ${fmtInt(miss.body.length)} B ${miss.headers['content-encoding'] ?? 'identity'}; counted above: the cached answer (x-atrium-cache=${html.headers['x-atrium-cache'] ?? 'none'})`);
    if (lazy.size) console.log(`loaded only on demand (dynamic import, not counted): ${[...lazy].join(', ')}`);
    for (const f of frameworkFiles) console.log(`framework runtime suspect: ${f.name} (${f.hits.join(', ')})`);
    const pass = frameworkFiles.length === 0 && bad.length === 0;
    const summary = `${rows.length} files, ${fmtInt(total.wire)} B compressed (${fmtInt(total.wire + total.headerBytes)} B with headers); framework JS: ${frameworkFiles.length ? frameworkFiles.map((f) => f.name).join(', ') : 'none'} → ${verdict(pass)}`;
    console.log(summary);
    return { name: 'bytes', pass, summary, table, rows, lazy: [...lazy] };
  } finally {
    await stopAtrium(server);
  }
}
