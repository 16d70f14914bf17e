// A tiny RGBA raster and PNG encoder for the click captcha. Pure JavaScript on purpose: no native
// image library to install, and every icon is drawn from geometry, so there are no image assets
// whose pixels a solver could match byte for byte.
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';

export interface Raster {
  readonly width: number;
  readonly height: number;
  /** RGBA, row by row, 4 bytes a pixel. */
  readonly data: Uint8Array;
}

export type Rgb = readonly [number, number, number];

/** Uniform numbers in [0, 1). */
export type Random = () => number;

export function createRaster(width: number, height: number): Raster {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) throw new RangeError('raster size must be positive integers');
  return { width, height, data: new Uint8Array(width * height * 4) };
}

/**
 * sfc32 seeded from the system's random source, or from `seed` (tests). The pictures hold no
 * secret a predictable generator could leak: where the icons are is what the image shows, and
 * which ones to click is told to the visitor.
 */
export function createRandom(seed?: number): Random {
  let a: number, b: number, c: number, d: number;
  if (seed === undefined) {
    const bytes = randomBytes(16);
    [a, b, c, d] = [bytes.readUInt32LE(0), bytes.readUInt32LE(4), bytes.readUInt32LE(8), bytes.readUInt32LE(12)];
  } else {
    [a, b, c, d] = [0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0];
  }
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const out = (t + d) | 0;
    c = (c + out) | 0;
    return (out >>> 0) / 4294967296;
  };
  // The first outputs of a weakly mixed seed are correlated; discard them.
  for (let i = 0; i < 15; i++) next();
  return next;
}

export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** HSL (h in degrees, s and l in 0..1) to RGB bytes. */
export function hsl(h: number, s: number, l: number): Rgb {
  const k = (n: number): number => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number): number => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return [f(0), f(8), f(4)];
}

/** Source-over blend of one colour into a pixel; `alpha` in 0..1. */
export function blend(r: Raster, x: number, y: number, color: Rgb, alpha: number): void {
  if (x < 0 || y < 0 || x >= r.width || y >= r.height || alpha <= 0) return;
  const i = (y * r.width + x) * 4;
  const a = Math.min(1, alpha);
  const d = r.data;
  d[i] = d[i]! + (color[0] - d[i]!) * a;
  d[i + 1] = d[i + 1]! + (color[1] - d[i + 1]!) * a;
  d[i + 2] = d[i + 2]! + (color[2] - d[i + 2]!) * a;
  d[i + 3] = d[i + 3]! + (255 - d[i + 3]!) * a;
}

/** A disc with a one-pixel soft edge. */
export function disc(r: Raster, cx: number, cy: number, radius: number, color: Rgb, alpha: number): void {
  const x0 = Math.floor(cx - radius - 1), x1 = Math.ceil(cx + radius + 1);
  const y0 = Math.floor(cy - radius - 1), y1 = Math.ceil(cy + radius + 1);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const dx = x + 0.5 - cx, dy = y + 0.5 - cy;
      const dist = Math.sqrt(dx * dx + dy * dy);
      const cover = Math.max(0, Math.min(1, radius + 0.5 - dist));
      if (cover > 0) blend(r, x, y, color, cover * alpha);
    }
  }
}

/**
 * A light diagonal gradient between two pastel tones, sprinkled with dots and a few wavy lines, so
 * the icons cannot be cut out by looking for the one flat background colour.
 */
export function paintBackground(r: Raster, random: Random): void {
  const hue = random() * 360;
  const from = hsl(hue, 0.55, 0.9 + random() * 0.05);
  const to = hsl((hue + 60 + random() * 120) % 360, 0.55, 0.86 + random() * 0.06);
  const span = r.width + r.height;
  const d = r.data;
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      const t = (x + y) / span;
      const i = (y * r.width + x) * 4;
      d[i] = from[0] + (to[0] - from[0]) * t;
      d[i + 1] = from[1] + (to[1] - from[1]) * t;
      d[i + 2] = from[2] + (to[2] - from[2]) * t;
      d[i + 3] = 255;
    }
  }
  const dots = Math.round((r.width * r.height) / 260);
  for (let k = 0; k < dots; k++) {
    disc(r, random() * r.width, random() * r.height, 0.6 + random() * 1.6, hsl(random() * 360, 0.5, 0.55 + random() * 0.3), 0.35 + random() * 0.35);
  }
  paintNoiseLines(r, random, 5, 0.35);
}

/** Wavy lines across the picture; drawn once more, fainter, over the icons. */
export function paintNoiseLines(r: Raster, random: Random, count: number, alpha: number): void {
  for (let k = 0; k < count; k++) {
    const color = hsl(random() * 360, 0.45, 0.55 + random() * 0.25);
    const baseY = random() * r.height;
    const amplitude = 6 + random() * 24;
    const frequency = (Math.PI * 2) / (80 + random() * 220);
    const phase = random() * Math.PI * 2;
    const thickness = 0.5 + random() * 0.9;
    for (let x = -2; x <= r.width + 2; x++) {
      disc(r, x, baseY + amplitude * Math.sin(x * frequency + phase), thickness, color, alpha);
    }
  }
}

type Point = readonly [number, number];

function polygon(points: readonly Point[]): (u: number, v: number) => boolean {
  // Flat coordinates: this runs for every sample of every icon, and destructuring pairs is slow.
  const xs = Float64Array.from(points, (p) => p[0]);
  const ys = Float64Array.from(points, (p) => p[1]);
  const n = points.length;
  return (u, v) => {
    let inside = false;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const yi = ys[i]!, yj = ys[j]!;
      if ((yi > v) !== (yj > v) && u < ((xs[j]! - xs[i]!) * (v - yi)) / (yj - yi) + xs[i]!) inside = !inside;
    }
    return inside;
  };
}

function regular(sides: number, radius: number, startDeg: number): Point[] {
  return Array.from({ length: sides }, (_, i) => {
    const a = ((startDeg + (360 / sides) * i) * Math.PI) / 180;
    return [radius * Math.cos(a), radius * Math.sin(a)] as const;
  });
}

function starPoints(tips: number, outer: number, inner: number): Point[] {
  return Array.from({ length: tips * 2 }, (_, i) => {
    const a = -Math.PI / 2 + (Math.PI / tips) * i;
    const rad = i % 2 === 0 ? outer : inner;
    return [rad * Math.cos(a), rad * Math.sin(a)] as const;
  });
}

const inTriangle = polygon(regular(3, 0.98, -90));
const inStar = polygon(starPoints(5, 1, 0.44));
const inHexagon = polygon(regular(6, 0.95, 0));
const inDiamond = polygon([[0, -0.98], [0.6, 0], [0, 0.98], [-0.6, 0]]);
const inArrow = polygon([[-0.92, -0.22], [0.12, -0.22], [0.12, -0.62], [0.95, 0], [0.12, 0.62], [0.12, 0.22], [-0.92, 0.22]]);
const inBolt = polygon([[0.22, -0.95], [-0.55, 0.1], [-0.06, 0.1], [-0.22, 0.95], [0.55, -0.14], [0.06, -0.14]]);
const inDropTip = polygon([[0, -0.95], [0.526, 0.012], [-0.526, 0.012]]);

/**
 * Every icon lies inside the unit disc (u, v in screen orientation, v down), so any rotation of an
 * icon drawn at size s stays inside the s×s square the captcha stores as its answer box.
 * `tilt` is the largest rotation in degrees that keeps the icon recognisable (a square turned 45°
 * would read as a diamond, a turned heart as something else).
 */
export const ICONS = {
  circle: { tilt: 0, inside: (u: number, v: number) => u * u + v * v <= 0.85 },
  ring: { tilt: 0, inside: (u: number, v: number) => { const q = u * u + v * v; return q <= 0.9 && q >= 0.3; } },
  square: { tilt: 20, inside: (u: number, v: number) => Math.abs(u) <= 0.68 && Math.abs(v) <= 0.68 },
  triangle: { tilt: 30, inside: inTriangle },
  star: { tilt: 36, inside: inStar },
  heart: {
    tilt: 30,
    // (x² + y² − 1)³ − x²y³ ≤ 0 with y up, scaled into the unit disc and centred.
    inside: (u: number, v: number) => {
      const x = u * 1.27, y = -v * 1.27 + 0.25;
      const q = x * x + y * y - 1;
      return q * q * q - x * x * y * y * y <= 0;
    },
  },
  diamond: { tilt: 30, inside: inDiamond },
  hexagon: { tilt: 30, inside: inHexagon },
  cross: { tilt: 20, inside: (u: number, v: number) => (Math.abs(u) <= 0.3 && Math.abs(v) <= 0.94) || (Math.abs(v) <= 0.3 && Math.abs(u) <= 0.94) },
  moon: { tilt: 60, inside: (u: number, v: number) => u * u + v * v <= 0.85 && (u - 0.42) ** 2 + (v + 0.28) ** 2 > 0.6 },
  arrow: { tilt: 180, inside: inArrow },
  bolt: { tilt: 30, inside: inBolt },
  drop: { tilt: 30, inside: (u: number, v: number) => u * u + (v - 0.3) ** 2 <= 0.36 || inDropTip(u, v) },
} as const satisfies Record<string, { tilt: number; inside: (u: number, v: number) => boolean }>;

export type IconName = keyof typeof ICONS;
export const ICON_NAMES = Object.keys(ICONS) as IconName[];

const SUB = 4; // 4×4 samples a pixel: smooth enough edges at icon sizes, still a few ms an image.

/**
 * How an icon is bent away from its exact geometry, so that it reads the same to a person but no
 * longer matches the source's shape pixel for pixel. `squashU`/`squashV` (0 < s ≤ 1) narrow it
 * along its own axes; `wobble` (unit-disc units) shifts its outline by a smooth wave.
 */
export interface IconWarp {
  squashU: number;
  squashV: number;
  wobble: number;
  frequency: number;
  phase: number;
}

/** Coverage (0..1) of an icon over the pixels of the square [x0, x0 + w) × [y0, y0 + h). */
export interface IconCover {
  x0: number;
  y0: number;
  w: number;
  h: number;
  cover: Float32Array;
}

/**
 * The pixels an icon covers, centred at (cx, cy) inside a `size`×`size` square, rotated by `angle`
 * radians and bent by `warp`. Whatever the warp, nothing is drawn outside the unit disc, so the
 * icon never leaves the square the captcha stores as its answer box.
 */
export function iconCover(icon: IconName, cx: number, cy: number, size: number, angle: number, warp?: IconWarp): IconCover {
  const inside = ICONS[icon].inside;
  const radius = size / 2;
  const cos = Math.cos(angle), sin = Math.sin(angle);
  const x0 = Math.floor(cx - radius) - 1, y0 = Math.floor(cy - radius) - 1;
  const w = Math.ceil(size) + 3, h = w;
  const test = (px: number, py: number): boolean => {
    const dx = px - cx, dy = py - cy;
    // Rotate the point back into the icon's own frame.
    const u = (dx * cos + dy * sin) / radius, v = (-dx * sin + dy * cos) / radius;
    if (!warp) return inside(u, v);
    if (u * u + v * v > 1) return false;
    const su = u / warp.squashU, sv = v / warp.squashV;
    return inside(su + warp.wobble * Math.sin(warp.frequency * sv + warp.phase), sv + warp.wobble * Math.cos(warp.frequency * su + warp.phase * 1.7));
  };
  // Which pixel corners lie inside: a pixel whose four corners agree is wholly in or out (no icon
  // has a feature thinner than a pixel), so only the edge pixels need the 4×4 samples.
  const corners = new Uint8Array((w + 1) * (h + 1));
  for (let py = 0; py <= h; py++) {
    for (let px = 0; px <= w; px++) corners[py * (w + 1) + px] = test(x0 + px, y0 + py) ? 1 : 0;
  }
  const cover = new Float32Array(w * h);
  for (let py = 0; py < h; py++) {
    for (let px = 0; px < w; px++) {
      const k = py * (w + 1) + px;
      const sum = corners[k]! + corners[k + 1]! + corners[k + w + 1]! + corners[k + w + 2]!;
      if (sum === 0 || sum === 4) {
        cover[py * w + px] = sum / 4;
        continue;
      }
      let hits = 0;
      for (let sy = 0; sy < SUB; sy++) {
        for (let sx = 0; sx < SUB; sx++) if (test(x0 + px + (sx + 0.5) / SUB, y0 + py + (sy + 0.5) / SUB)) hits++;
      }
      cover[py * w + px] = hits / (SUB * SUB);
    }
  }
  return { x0, y0, w, h, cover };
}

/**
 * Draws `icon` centred at (cx, cy) inside a `size`×`size` square, rotated by `angle` radians, with
 * a soft drop shadow and a light-from-above shade so it reads as an object, not a flat blot.
 */
export function drawIcon(r: Raster, icon: IconName, cx: number, cy: number, size: number, angle: number, color: Rgb): void {
  const { x0, y0, w, h, cover } = iconCover(icon, cx, cy, size, angle);
  const shadow: Rgb = [30, 30, 40];
  for (let py = 0; py < h; py++) {
    for (let px = 0; px < w; px++) {
      const c = cover[py * w + px]!;
      if (c > 0) blend(r, x0 + px + 2, y0 + py + 2, shadow, c * 0.28);
    }
  }
  for (let py = 0; py < h; py++) {
    const lift = 0.22 * (1 - (py / h) * 2); // +0.22 at the top edge, −0.22 at the bottom
    const shaded: Rgb = lift >= 0
      ? [color[0] + (255 - color[0]) * lift, color[1] + (255 - color[1]) * lift, color[2] + (255 - color[2]) * lift]
      : [color[0] * (1 + lift), color[1] * (1 + lift), color[2] * (1 + lift)];
    for (let px = 0; px < w; px++) {
      const c = cover[py * w + px]!;
      if (c > 0) blend(r, x0 + px, y0 + py, shaded, c);
    }
  }
}

// --- PNG ---------------------------------------------------------------------------------------

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, as PNG uses it). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  out.set(body, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

/**
 * Scanlines with one filter each, picked by the usual minimum-sum-of-absolute-differences rule
 * (PNG spec §12.8); what deflate then compresses best for gradients and noise alike.
 */
function filterScanlines(pixels: Uint8Array, width: number, height: number, bpp: number): Uint8Array {
  const stride = width * bpp;
  const out = new Uint8Array(height * (stride + 1));
  const lines = Array.from({ length: 5 }, () => new Uint8Array(stride));
  const zero = new Uint8Array(stride);
  const [none, sub, up, avg, pae] = lines as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  for (let y = 0; y < height; y++) {
    const row = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : zero;
    // One pass fills all five candidates and their costs (sum of bytes read as signed); typed-array
    // stores wrap modulo 256 as PNG wants.
    let c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    for (let i = 0; i < stride; i++) {
      const x = row[i]!, b = prev[i]!;
      const a = i >= bpp ? row[i - bpp]! : 0, c = i >= bpp ? prev[i - bpp]! : 0;
      const p = a + b - c;
      const pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
      const v0 = x, v1 = (x - a) & 0xff, v2 = (x - b) & 0xff, v3 = (x - ((a + b) >> 1)) & 0xff;
      const v4 = (x - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      none[i] = v0; sub[i] = v1; up[i] = v2; avg[i] = v3; pae[i] = v4;
      c0 += v0 < 128 ? v0 : 256 - v0;
      c1 += v1 < 128 ? v1 : 256 - v1;
      c2 += v2 < 128 ? v2 : 256 - v2;
      c3 += v3 < 128 ? v3 : 256 - v3;
      c4 += v4 < 128 ? v4 : 256 - v4;
    }
    const costs = [c0, c1, c2, c3, c4];
    let best = 0;
    for (let f = 1; f < 5; f++) if (costs[f]! < costs[best]!) best = f;
    out[y * (stride + 1)] = best;
    out.set(lines[best]!, y * (stride + 1) + 1);
  }
  return out;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG of the raster: truecolour (RGB) when every pixel is opaque, else truecolour with alpha. */
export function encodePng(r: Raster): Buffer {
  let opaque = true;
  for (let i = 3; i < r.data.length; i += 4) if (r.data[i] !== 255) { opaque = false; break; }
  let pixels = r.data;
  if (opaque) {
    pixels = new Uint8Array(r.width * r.height * 3);
    for (let i = 0, j = 0; i < r.data.length; i += 4, j += 3) {
      pixels[j] = r.data[i]!;
      pixels[j + 1] = r.data[i + 1]!;
      pixels[j + 2] = r.data[i + 2]!;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(r.width, 0);
  header.writeUInt32BE(r.height, 4);
  header[8] = 8; // bits per channel
  header[9] = opaque ? 2 : 6; // colour type: RGB or RGBA
  // compression 0, filter method 0, no interlace: the zero bytes Buffer.alloc left
  const idat = deflateSync(filterScanlines(pixels, r.width, r.height, opaque ? 3 : 4), { level: 6 });
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
}
