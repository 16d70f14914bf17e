// How well does a bot that knows Atrium's icon shapes solve the click captcha from the picture
// alone? (issue 13, finding 12). The solver below is what any attacker can write: it imports the
// same icon geometry (`ICONS` in src/lib/server/captcha/raster.ts) and the icon names of both
// dictionaries, and sees only what the API returns: the PNG and the names to click, in order.
//
//   1. decode the PNG; median-filter it (removes pixel noise and hairlines)
//   2. split it into regions of similar colour (flood fill on neighbour differences), drop the
//      background (huge regions) and specks; open each region (erode + dilate) to cut off lines
//      that touch it; also try pairs of nearby regions of similar hue as one (a shape cut in two)
//   3. fit every icon to every candidate region: size from the area, rotation over the icon's
//      allowed tilt, position from the centroid; score = intersection over union of the masks
//   4. click, in order, the centres of the best pair of distinct regions for the asked icons
//
// Offline it solves BENCH_CAPTCHA_PICTURES (200) pictures drawn in process by the product's own
// code and scores them against the stored answer boxes; live it draws BENCH_CAPTCHA_LIVE (40)
// captchas from a server started on dist/ (`GET /api/common/clickCaptcha`) and answers each once
// (`POST /api/common/checkClickCaptcha`). It prints the success rates, the chance of a blind guess,
// and the drawing + encoding time and PNG size per picture.
//
// Usage: node scripts/node.mjs node bench/captcha-solver.mjs [--before REV] [--offline-only] [--save N]
//   --before REV  also measures the captcha code of that git revision (e.g. d0a436e, the picture
//                 before issue 13), offline, with the render times interleaved in the same run
//   --save N      writes the first N offline pictures to bench/.tmp/captcha/<version>/ to look at
import { spawnSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import { join } from 'node:path';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { build } from 'esbuild';
import { ROOT, TMP, makeDir } from './lib/common.mjs';
import { startAtrium, stopAtrium, stopAll } from './lib/processes.mjs';

const PICTURES = Number(process.env.BENCH_CAPTCHA_PICTURES || 200);
const RENDERS = 100;
const LIVE = Number(process.env.BENCH_CAPTCHA_LIVE || 40);
const args = process.argv.slice(2);
const offlineOnly = args.includes('--offline-only');
const saveAt = args.indexOf('--save');
const SAVE = saveAt >= 0 ? Number(args[saveAt + 1] || 20) : 0;
const beforeAt = args.indexOf('--before');
const BEFORE = beforeAt >= 0 ? args[beforeAt + 1] : null;

// --- the product's code, bundled: the attacker reads the same source -------------------------

async function loadProduct(src, name) {
  const entry = join(TMP, `captcha-entry-${name}.ts`);
  const outfile = join(TMP, `captcha-product-${name}.mjs`);
  makeDir(TMP);
  writeFileSync(entry, [
    `export * from ${JSON.stringify(join(src, 'src/lib/server/captcha/click-captcha.ts'))};`,
    `export { ICONS, ICON_NAMES, createRandom } from ${JSON.stringify(join(src, 'src/lib/server/captcha/raster.ts'))};`,
    `export { default as zh } from ${JSON.stringify(join(src, 'src/lib/i18n/zh-cn/captcha.ts'))};`,
    `export { default as en } from ${JSON.stringify(join(src, 'src/lib/i18n/en/captcha.ts'))};`,
  ].join('\n'));
  await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', logLevel: 'warning' });
  return import(`${outfile}?${Date.now()}`);
}

// --- PNG decoding (8-bit RGB/RGBA, no interlace: what the product writes) ---------------------

function decodePng(png) {
  let at = 8, width = 0, height = 0, bpp = 3;
  const idat = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') { width = data.readUInt32BE(0); height = data.readUInt32BE(4); bpp = data[9] === 6 ? 4 : 3; }
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i];
      const a = i >= bpp ? px[y * stride + i - bpp] : 0;
      const b = y > 0 ? px[(y - 1) * stride + i] : 0;
      const c = i >= bpp && y > 0 ? px[(y - 1) * stride + i - bpp] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      px[y * stride + i] = (x + [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f]) & 0xff;
    }
  }
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, j = 0; i < px.length; i += bpp, j += 3) { rgb[j] = px[i]; rgb[j + 1] = px[i + 1]; rgb[j + 2] = px[i + 2]; }
  return { width, height, rgb };
}

// --- the solver ----------------------------------------------------------------------------

function median3(img) {
  const { width: w, height: h, rgb } = img;
  const out = new Uint8Array(rgb.length);
  const v = new Uint8Array(9);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let ch = 0; ch < 3; ch++) {
        let n = 0;
        for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
          const xx = Math.min(w - 1, Math.max(0, x + dx)), yy = Math.min(h - 1, Math.max(0, y + dy));
          v[n++] = rgb[(yy * w + xx) * 3 + ch];
        }
        v.sort();
        out[(y * w + x) * 3 + ch] = v[4];
      }
    }
  }
  return { width: w, height: h, rgb: out };
}

/** Regions: flood fill over neighbours that `joins(p, q)` says belong together (skipping `skip(p)`). */
function regions(img, joins, skip = () => false) {
  const { width: w, height: h, rgb } = img;
  const label = new Int32Array(w * h).fill(-1);
  const out = [];
  const stack = [];
  for (let s = 0; s < w * h; s++) {
    if (label[s] >= 0 || skip(s)) continue;
    const id = out.length;
    const pixels = [];
    label[s] = id;
    stack.push(s);
    let r = 0, g = 0, b = 0;
    while (stack.length) {
      const p = stack.pop();
      pixels.push(p);
      r += rgb[p * 3]; g += rgb[p * 3 + 1]; b += rgb[p * 3 + 2];
      const x = p % w, y = (p - x) / w;
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, y > 0 ? p - w : -1, y < h - 1 ? p + w : -1]) {
        if (q < 0 || label[q] >= 0) continue;
        if (!skip(q) && joins(p, q)) {
          label[q] = id;
          stack.push(q);
        }
      }
    }
    const n = pixels.length;
    out.push({ id, pixels, color: [r / n, g / n, b / n] });
  }
  return out;
}

function hueOf([r, g, b]) {
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  if (max === min) return { hue: 0, sat: 0 };
  const d = max - min;
  let hue = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  hue *= 60;
  return { hue: (hue + 360) % 360, sat: d / max };
}

/** A region as a mask in its bounding box, opened by a square of 2·radius + 1 (thinner lines go). */
function maskOf(pixels, w, radius = 1) {
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (const p of pixels) { const x = p % w, y = (p - x) / w; x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
  const pad = radius;
  const mw = x1 - x0 + 1 + 2 * pad, mh = y1 - y0 + 1 + 2 * pad;
  const m = new Uint8Array(mw * mh);
  for (const p of pixels) { const x = p % w, y = (p - x) / w; m[(y - y0 + pad) * mw + (x - x0 + pad)] = 1; }
  const morph = (src, keep) => {
    const dst = new Uint8Array(src.length);
    for (let y = pad; y < mh - pad; y++) for (let x = pad; x < mw - pad; x++) {
      let all = 1, any = 0;
      for (let dy = -radius; dy <= radius; dy++) for (let dx = -radius; dx <= radius; dx++) { const v = src[(y + dy) * mw + x + dx]; all &= v; any |= v; }
      dst[y * mw + x] = keep === 'erode' ? all : any;
    }
    return dst;
  };
  const opened = morph(morph(m, 'erode'), 'dilate');
  let area = 0, sx = 0, sy = 0;
  for (let y = 0; y < mh; y++) for (let x = 0; x < mw; x++) if (opened[y * mw + x]) { area++; sx += x; sy += y; }
  return { mask: opened, mw, mh, ox: x0 - pad, oy: y0 - pad, area, cx: x0 - pad + sx / Math.max(area, 1) + 0.5, cy: y0 - pad + sy / Math.max(area, 1) + 0.5 };
}

/** Per icon and angle: the shape's area as a fraction of its unit box and its centroid offset. */
function iconStats(ICONS) {
  const stats = {};
  const N = 60;
  for (const [name, def] of Object.entries(ICONS)) {
    const tilt = Math.min(def.tilt, 180);
    const step = tilt >= 180 ? 10 : 5;
    const angles = [];
    for (let a = -tilt; a <= tilt + 1e-9; a += step) angles.push((a * Math.PI) / 180);
    if (angles.length === 0) angles.push(0);
    let inside = 0, su = 0, sv = 0;
    for (let j = 0; j < N; j++) for (let i = 0; i < N; i++) {
      const u = -1 + (2 * (i + 0.5)) / N, v = -1 + (2 * (j + 0.5)) / N;
      if (def.inside(u, v)) { inside++; su += u; sv += v; }
    }
    stats[name] = { inside: def.inside, fraction: inside / (N * N), cu: su / inside, cv: sv / inside, angles };
  }
  return stats;
}

/** Best fit of one icon to a region: IoU over sizes around the area estimate and allowed angles. */
function fit(region, stat) {
  const { mask, mw, mh, ox, oy, area, cx, cy } = region;
  const base = Math.sqrt(area / stat.fraction); // size of the icon's box
  let best = { score: 0, x: cx, y: cy };
  for (const scale of [0.92, 1, 1.1]) {
    const size = base * scale, r = size / 2;
    for (const angle of stat.angles) {
      const cos = Math.cos(angle), sin = Math.sin(angle);
      // Centroid offset rotated into the picture: the box centre is the centroid minus it.
      const ccx = cx - r * (stat.cu * cos - stat.cv * sin), ccy = cy - r * (stat.cu * sin + stat.cv * cos);
      const bx0 = Math.floor(Math.min(ox, ccx - r)), bx1 = Math.ceil(Math.max(ox + mw, ccx + r));
      const by0 = Math.floor(Math.min(oy, ccy - r)), by1 = Math.ceil(Math.max(oy + mh, ccy + r));
      let inter = 0, union = 0;
      for (let y = by0; y < by1; y++) {
        for (let x = bx0; x < bx1; x++) {
          const mx = x - ox, my = y - oy;
          const m = mx >= 0 && my >= 0 && mx < mw && my < mh ? mask[my * mw + mx] : 0;
          const dx = x + 0.5 - ccx, dy = y + 0.5 - ccy;
          const t = stat.inside((dx * cos + dy * sin) / r, (-dx * sin + dy * cos) / r) ? 1 : 0;
          inter += m & t; union += m | t;
        }
      }
      const score = union ? inter / union : 0;
      if (score > best.score) best = { score, x: ccx, y: ccy };
    }
  }
  return best;
}

/** From the picture and the asked icon names (in order) to click points. */
function solve(img, names, stats) {
  const clean = median3(img);
  const { width: w, height: h } = clean;
  const { rgb } = clean;
  const tol = 14;
  // (a) regions of one colour
  const byColour = regions(clean, (p, q) => Math.abs(rgb[p * 3] - rgb[q * 3]) < tol && Math.abs(rgb[p * 3 + 1] - rgb[q * 3 + 1]) < tol && Math.abs(rgb[p * 3 + 2] - rgb[q * 3 + 2]) < tol);
  // (b) regions of one hue among the saturated, darker "ink" pixels: blind to stripes and shading
  const hue = new Float32Array(w * h), ink = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) {
    const r = rgb[p * 3] / 255, g = rgb[p * 3 + 1] / 255, b = rgb[p * 3 + 2] / 255;
    const max = Math.max(r, g, b), min = Math.min(r, g, b), l = (max + min) / 2;
    const sat = max === min ? 0 : (max - min) / (1 - Math.abs(2 * l - 1));
    hue[p] = hueOf([r, g, b]).hue;
    ink[p] = sat > 0.25 && l < 0.74 ? 1 : 0;
  }
  const byHue = regions(clean, (p, q) => { const d = Math.abs(hue[p] - hue[q]); return Math.min(d, 360 - d) < 16; }, (p) => !ink[p]);
  const small = byColour.filter((r) => r.pixels.length >= 120 && r.pixels.length <= 3500);
  const candidates = [];
  for (const r of small) {
    const m = maskOf(r.pixels, w);
    if (m.area >= 120 && m.mw <= 70 && m.mh <= 70) candidates.push(m);
  }
  for (const r of byHue) {
    if (r.pixels.length < 200 || r.pixels.length > 6000) continue;
    for (const radius of [1, 2]) {
      const m = maskOf(r.pixels, w, radius);
      if (m.area >= 200 && m.mw <= 80 && m.mh <= 80) candidates.push(m);
    }
  }
  // A shape cut in two by a line or a stripe: nearby regions of similar hue, joined.
  const pieces = [...small, ...byHue.filter((r) => r.pixels.length >= 60 && r.pixels.length <= 6000)]
    .map((r) => ({ r, ...hueOf(r.color), c: maskOf(r.pixels, w, 0) }));
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      const a = pieces[i], b = pieces[j];
      // Of any hue: an icon painted in two tones is two regions of different hue.
      if (Math.hypot(a.c.cx - b.c.cx, a.c.cy - b.c.cy) > 32) continue;
      const m = maskOf([...new Set([...a.r.pixels, ...b.r.pixels])], w);
      if (m.area >= 200 && m.mw <= 70 && m.mh <= 70) candidates.push(m);
    }
  }
  if (candidates.length < names.length) return null;
  const fits = candidates.map((c) => Object.fromEntries(names.map((n) => [n, fit(c, stats[n])])));
  let best = null;
  for (let i = 0; i < candidates.length; i++) {
    for (let j = 0; j < candidates.length; j++) {
      if (i === j) continue;
      const a = fits[i][names[0]], b = fits[j][names[1]];
      if (Math.hypot(a.x - b.x, a.y - b.y) < 12) continue;
      if (!best || a.score + b.score > best.score) best = { score: a.score + b.score, points: [a, b] };
    }
  }
  if (!best) return null;
  return best.points.map((p) => ({ x: Math.min(w - 1, Math.max(0, p.x)), y: Math.min(h - 1, Math.max(0, p.y)) }));
}

// --- runs ----------------------------------------------------------------------------------

function nameToIcon(product) {
  const map = new Map();
  for (const dict of [product.zh, product.en]) {
    for (const [key, value] of Object.entries(dict)) if (key.startsWith('captcha.icon.')) map.set(`<${value}>`, key.slice('captcha.icon.'.length));
  }
  return map;
}

const pct = (n, d) => `${((100 * n) / Math.max(d, 1)).toFixed(1)} %`;
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

const iconCount = (product) => product.CLICK_TARGETS + product.CLICK_DECOYS;

/** Drawing and encoding times of both versions, interleaved so both see the same machine load. */
function renderTimes(products) {
  const times = products.map(() => []);
  const bytes = products.map(() => 0);
  for (let i = -10; i < RENDERS; i++) {
    products.forEach((product, k) => {
      const t0 = performance.now();
      const png = product.renderClickCaptcha(product.placeIcons(product.createRandom(i + 7e5), iconCount(product)), product.createRandom(i + 7e5));
      if (i < 0) return; // warm-up
      times[k].push(performance.now() - t0);
      bytes[k] += png.length;
    });
  }
  return products.map((_, k) => ({ p50: quantile(times[k], 0.5), p95: quantile(times[k], 0.95), bytes: bytes[k] / RENDERS }));
}

async function offline(product, stats, name) {
  const { placeIcons, renderClickCaptcha, clicksMatch, createRandom, CLICK_TARGETS } = product;
  const count = iconCount(product);
  const saveDir = join(TMP, 'captcha', name);
  if (SAVE) { rmSync(saveDir, { recursive: true, force: true }); mkdirSync(saveDir, { recursive: true }); }
  let solved = 0, solveMs = 0;
  for (let seed = 0; seed < PICTURES; seed++) {
    // Seeded from the system's random source, as the server draws them.
    const random = createRandom();
    const icons = placeIcons(random, count);
    const png = renderClickCaptcha(icons, random);
    if (seed < SAVE) writeFileSync(join(saveDir, `${String(seed).padStart(3, '0')}-${icons[0].icon}-${icons[1].icon}.png`), png);
    const targets = icons.slice(0, CLICK_TARGETS);
    const t1 = performance.now();
    const clicks = solve(decodePng(png), targets.map((t) => t.icon), stats);
    solveMs += performance.now() - t1;
    if (clicksMatch(clicks, targets)) solved++;
  }
  return { solved, total: PICTURES, solveMs: solveMs / PICTURES, count };
}

function call(url, method, body, headers) {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : undefined;
    const req = request(url, { method, agent: false, headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => { try { resolve(JSON.parse(text)); } catch { reject(new Error(`${res.statusCode}: ${text.slice(0, 200)}`)); } });
    });
    req.on('error', reject);
    req.end(data);
  });
}

async function live(product, stats) {
  const names = nameToIcon(product);
  const dataDir = makeDir(join(TMP, `captcha-live-${process.pid}`));
  // Every captcha comes from its own forwarded address, so the per-address limits do not stop the run.
  const server = await startAtrium({ dataDir, env: { TRUST_PROXY: '1' } });
  let solved = 0;
  try {
    for (let i = 0; i < LIVE; i++) {
      const headers = { 'x-forwarded-for': `10.77.${i >> 8}.${i & 255}`, 'think-lang': i % 2 ? 'en' : 'zh-cn' };
      const id = `bench-${process.pid}-${i}`;
      const made = await call(`${server.url}/api/common/clickCaptcha?id=${id}`, 'GET', null, headers);
      if (made.code !== 1) throw new Error(`clickCaptcha: ${JSON.stringify(made).slice(0, 200)}`);
      const png = Buffer.from(made.data.base64.slice(made.data.base64.indexOf(',') + 1), 'base64');
      const clicks = solve(decodePng(png), made.data.text.map((t) => names.get(t)), stats);
      const info = clicks ? `${clicks.map((p) => `${Math.round(p.x)},${Math.round(p.y)}`).join('-')};${made.data.width};${made.data.height}` : '0,0-0,0;350;200';
      const checked = await call(`${server.url}/api/common/checkClickCaptcha`, 'POST', { id, info, unset: false }, headers);
      if (checked.code === 1) solved++;
    }
  } finally {
    await stopAtrium(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return { solved, total: LIVE };
}

try {
  const versions = [{ name: 'current', src: ROOT }];
  if (BEFORE) {
    // The captcha as it was at that revision, unpacked beside the bench's scratch files.
    const dir = join(TMP, 'captcha-before');
    rmSync(dir, { recursive: true, force: true });
    makeDir(dir);
    const archive = spawnSync('sh', ['-c', `git -C "${ROOT}" archive "${BEFORE}" src | tar -x -C "${dir}"`], { encoding: 'utf8' });
    if (archive.status !== 0) throw new Error(`git archive ${BEFORE}: ${archive.stderr}`);
    versions.unshift({ name: `before (${BEFORE})`, src: dir });
  }
  for (const v of versions) v.product = await loadProduct(v.src, v.name.split(' ')[0]);
  const times = renderTimes(versions.map((v) => v.product));
  for (const [k, v] of versions.entries()) {
    const stats = iconStats(v.product.ICONS);
    const off = await offline(v.product, stats, v.name.split(' ')[0]);
    const blind = 1 / (off.count * (off.count - 1));
    const t = times[k];
    console.log(`[captcha] ${v.name}: ${off.count} icons a picture (${v.product.CLICK_TARGETS} to click, in order)`);
    console.log(`[captcha]   draw + encode: p50 ${t.p50.toFixed(1)} ms, p95 ${t.p95.toFixed(1)} ms, PNG ${(t.bytes / 1024).toFixed(1)} KiB (${RENDERS} pictures)${k > 0 ? `; p50 ${(t.p50 / times[0].p50).toFixed(2)}× before` : ''}`);
    console.log(`[captcha]   solver offline: ${off.solved}/${off.total} = ${pct(off.solved, off.total)} solved (${off.solveMs.toFixed(0)} ms a picture; a blind pick of two icons in order: ${(100 * blind).toFixed(1)} %)`);
  }
  if (!offlineOnly) {
    const current = versions.at(-1);
    const on = await live(current.product, iconStats(current.product.ICONS));
    console.log(`[captcha] current, live API (dist/, build first): ${on.solved}/${on.total} = ${pct(on.solved, on.total)} solved on the first try`);
  }
} catch (err) {
  console.error(err);
  process.exitCode = 2;
} finally {
  await stopAll();
}
