// The click captcha's pure parts: the PNG encoder, the icons, placement and answer checking.
import { crc32 as zlibCrc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createRandom, createRaster, crc32, drawIcon, encodePng, iconCover, ICON_NAMES, ICONS, paintBackground, type Raster } from '../../src/lib/server/captcha/raster';
import { ICON_FAMILIES } from '../../src/lib/server/captcha/scene';
import {
  CLICK_DECOY_SPACING, CLICK_DECOYS, CLICK_HEIGHT, CLICK_MAX_SIZE, CLICK_MIN_SIZE, CLICK_TARGET_SPACING, CLICK_TARGETS, CLICK_TOLERANCE, CLICK_WIDTH, captchaIdSchema, clickCaptchaKey, clicksMatch, hitsBox, parseClickInfo, placeIcons, renderClickCaptcha,
} from '../../src/lib/server/captcha/click-captcha';
import zh from '../../src/lib/i18n/zh-cn/captcha';
import en from '../../src/lib/i18n/en/captcha';
import { scaled } from '../helpers/time-scale.mjs';

interface Chunk { type: string; data: Buffer; crc: number }

function chunks(png: Buffer): Chunk[] {
  const out: Chunk[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    out.push({ type: png.toString('latin1', at + 4, at + 8), data: png.subarray(at + 8, at + 8 + length), crc: png.readUInt32BE(at + 8 + length) });
    at += 12 + length;
  }
  return out;
}

/** An independent PNG decoder for 8-bit RGB/RGBA without interlace: undoes the five filters. */
function decode(png: Buffer): { width: number; height: number; bpp: number; pixels: Uint8Array } {
  const all = chunks(png);
  const ihdr = all[0]!.data;
  const width = ihdr.readUInt32BE(0), height = ihdr.readUInt32BE(4);
  const bpp = ihdr[9] === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(all.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  expect(raw.length).toBe(height * (1 + width * bpp));
  const stride = width * bpp;
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i]!;
      const a = i >= bpp ? pixels[y * stride + i - bpp]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const c = i >= bpp && y > 0 ? pixels[(y - 1) * stride + i - bpp]! : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter]!;
      pixels[y * stride + i] = (x + predictor) & 0xff;
    }
  }
  return { width, height, bpp, pixels };
}

function opaqueScene(seed: number): Raster {
  const r = createRaster(CLICK_WIDTH, CLICK_HEIGHT);
  const random = createRandom(seed);
  paintBackground(r, random);
  drawIcon(r, 'star', 100, 100, 40, 0.4, [200, 40, 40]);
  return r;
}

describe('PNG encoder', () => {
  it('writes the signature, an IHDR with the size, valid CRCs and IEND last', () => {
    const png = encodePng(opaqueScene(1));
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const all = chunks(png);
    expect(all.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const ihdr = all[0]!.data;
    expect(ihdr.length).toBe(13);
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)]).toEqual([350, 200]);
    expect([...ihdr.subarray(8)]).toEqual([8, 2, 0, 0, 0]);
    for (const c of all) {
      const typed = Buffer.concat([Buffer.from(c.type, 'latin1'), c.data]);
      expect(c.crc).toBe(zlibCrc32(typed));
      expect(c.crc).toBe(crc32(typed));
    }
  });

  it('CRC-32 matches the check value and zlib', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7919) & 0xff));
    expect(crc32(bytes)).toBe(zlibCrc32(bytes));
  });

  it('decodes back to the raster, opaque (RGB) and translucent (RGBA)', () => {
    const opaque = opaqueScene(7);
    const d = decode(encodePng(opaque));
    expect([d.width, d.height, d.bpp]).toEqual([350, 200, 3]);
    const rgb = new Uint8Array(350 * 200 * 3);
    for (let i = 0, j = 0; i < opaque.data.length; i += 4, j += 3) rgb.set(opaque.data.subarray(i, i + 3), j);
    expect(Buffer.from(d.pixels).equals(Buffer.from(rgb))).toBe(true);

    const clear = createRaster(61, 33);
    drawIcon(clear, 'heart', 30, 16, 30, 0.2, [10, 200, 90]);
    const e = decode(encodePng(clear));
    expect([e.width, e.height, e.bpp]).toEqual([61, 33, 4]);
    expect(Buffer.from(e.pixels).equals(Buffer.from(clear.data))).toBe(true);
  });

  it('draws and encodes a captcha in a few tens of milliseconds', () => {
    const count = CLICK_TARGETS + CLICK_DECOYS;
    for (let i = 0; i < 5; i++) renderClickCaptcha(placeIcons(createRandom(i), count), createRandom(i));
    const started = performance.now();
    const runs = 20;
    for (let i = 0; i < runs; i++) renderClickCaptcha(placeIcons(createRandom(i), count), createRandom(i));
    const each = (performance.now() - started) / runs;
    // Typically 15–30 ms (bench/captcha-solver.mjs); the bound leaves room for a busy CI machine.
    expect(each).toBeLessThan(scaled(150));
  });
});

describe('icons', () => {
  it('has at least 10, each inside the unit disc, each a distinct, substantial shape', () => {
    expect(ICON_NAMES.length).toBeGreaterThanOrEqual(10);
    const grid = 81;
    const masks = new Map<string, string>();
    for (const name of ICON_NAMES) {
      let mask = '', inside = 0;
      for (let j = 0; j < grid; j++) {
        for (let i = 0; i < grid; i++) {
          const u = -1.1 + (2.2 * i) / (grid - 1), v = -1.1 + (2.2 * j) / (grid - 1);
          const hit = ICONS[name].inside(u, v);
          if (hit) {
            inside++;
            // Anything outside the disc could leave the answer box once rotated.
            expect(u * u + v * v, `${name} at ${u},${v}`).toBeLessThanOrEqual(1.0001);
          }
          mask += hit ? '1' : '0';
        }
      }
      expect(inside / (grid * grid), name).toBeGreaterThan(0.08);
      expect(masks.has(mask), `${name} looks like ${masks.get(mask)}`).toBe(false);
      masks.set(mask, name);
    }
  });

  it('stay inside their box whatever the rotation', () => {
    for (const name of ICON_NAMES) {
      for (const angle of [0, 0.7, 1.6, 2.9, -0.8]) {
        const r = createRaster(80, 80);
        drawIcon(r, name, 40, 40, 44, angle, [0, 0, 0]);
        let painted = 0;
        for (let y = 0; y < 80; y++) {
          for (let x = 0; x < 80; x++) {
            const alpha = r.data[(y * 80 + x) * 4 + 3]!;
            if (alpha === 0) continue;
            painted++;
            // Box [18, 62); the drop shadow may reach 2 px further right and down.
            expect(x >= 17 && x <= 64 && y >= 17 && y <= 64, `${name} ${angle} at ${x},${y}`).toBe(true);
          }
        }
        expect(painted).toBeGreaterThan(200);
      }
    }
  });

  it('stay inside their box when bent as far as the picture bends them', () => {
    for (const name of ICON_NAMES) {
      for (const warp of [
        { squashU: 0.88, squashV: 1, wobble: 0.035, frequency: 4.5, phase: 1 },
        { squashU: 1, squashV: 1, wobble: 0.035, frequency: 2, phase: 4 },
      ]) {
        const { x0, y0, w, h, cover } = iconCover(name, 40, 40, 44, 0.9, warp);
        let painted = 0;
        for (let py = 0; py < h; py++) {
          for (let px = 0; px < w; px++) {
            if (cover[py * w + px] === 0) continue;
            painted++;
            const x = x0 + px, y = y0 + py;
            expect(x >= 17 && x <= 62 && y >= 17 && y <= 62, `${name} at ${x},${y}`).toBe(true);
          }
        }
        // Still a substantial shape, close to the unbent one.
        const plain = iconCover(name, 40, 40, 44, 0.9).cover.reduce((a, b) => a + b, 0);
        expect(painted, name).toBeGreaterThan(plain * 0.75);
      }
    }
  });

  it('every icon belongs to a family of look-alikes', () => {
    for (const name of ICON_NAMES) expect(ICON_FAMILIES.some((f) => f.includes(name)), name).toBe(true);
    for (const family of ICON_FAMILIES) for (const name of family) expect(ICON_NAMES).toContain(name);
  });

  it('every icon has a name in both languages', () => {
    for (const name of ICON_NAMES) {
      expect(zh[`captcha.icon.${name}`]).toMatch(/\S/);
      expect(en[`captcha.icon.${name}`]).toMatch(/\S/);
    }
  });
});

describe('placement', () => {
  it('places distinct icons inside the picture over many seeds: targets apart, a decoy of each target\'s family, overlaps bounded', () => {
    const count = CLICK_TARGETS + CLICK_DECOYS;
    expect(count).toBeGreaterThanOrEqual(6);
    for (let seed = 0; seed < 300; seed++) {
      const icons = placeIcons(createRandom(seed), count);
      expect(icons).toHaveLength(count);
      expect(new Set(icons.map((p) => p.icon)).size).toBe(count);
      for (const p of icons) {
        expect(p.size).toBeGreaterThanOrEqual(CLICK_MIN_SIZE);
        expect(p.size).toBeLessThanOrEqual(CLICK_MAX_SIZE);
        expect(p.width).toBe(p.size);
        expect(p.x).toBeGreaterThanOrEqual(0);
        expect(p.y).toBeGreaterThanOrEqual(0);
        expect(p.x + p.width).toBeLessThanOrEqual(CLICK_WIDTH);
        expect(p.y + p.height).toBeLessThanOrEqual(CLICK_HEIGHT);
        expect(Math.abs(p.angle)).toBeLessThanOrEqual((ICONS[p.icon].tilt * Math.PI) / 180 + 1e-9);
      }
      for (const target of icons.slice(0, CLICK_TARGETS)) {
        const kin = ICON_FAMILIES.filter((f) => f.includes(target.icon)).flat();
        expect(icons.slice(CLICK_TARGETS).some((d) => kin.includes(d.icon)), `seed ${seed}: no look-alike of ${target.icon}`).toBe(true);
      }
      for (let i = 0; i < count; i++) {
        for (let j = i + 1; j < count; j++) {
          const a = icons[i]!, b = icons[j]!;
          if (i < CLICK_TARGETS && j < CLICK_TARGETS) {
            // Even grown by the tolerance on both sides, the targets' boxes stay apart: no click fits both.
            const apart = a.x + a.width + 2 * CLICK_TOLERANCE < b.x || b.x + b.width + 2 * CLICK_TOLERANCE < a.x
              || a.y + a.height + 2 * CLICK_TOLERANCE < b.y || b.y + b.height + 2 * CLICK_TOLERANCE < a.y;
            expect(apart, `seed ${seed}`).toBe(true);
          }
          const spacing = i < CLICK_TARGETS ? CLICK_TARGET_SPACING : CLICK_DECOY_SPACING;
          const distance = Math.hypot(a.x + a.size / 2 - b.x - b.size / 2, a.y + a.size / 2 - b.y - b.size / 2);
          expect(distance, `seed ${seed}`).toBeGreaterThanOrEqual((spacing * (a.size + b.size)) / 2);
        }
      }
    }
  });

  it('is random: different seeds give different layouts', () => {
    const layouts = new Set(Array.from({ length: 50 }, (_, s) => JSON.stringify(placeIcons(createRandom(s), 4).map((p) => [p.icon, p.x, p.y]))));
    expect(layouts.size).toBe(50);
    expect(createRandom(3)()).toBe(createRandom(3)());
    expect(createRandom()()).not.toBe(createRandom()());
  });
});

describe('answers', () => {
  it('parses clicks and scales them from the rendered size', () => {
    expect(parseClickInfo('10,20-30,40;350;200')).toEqual([{ x: 10, y: 20 }, { x: 30, y: 40 }]);
    expect(parseClickInfo('175,50-35,190;175;200')).toEqual([{ x: 350, y: 50 }, { x: 70, y: 190 }]);
    expect(parseClickInfo('70,40;700;400')).toEqual([{ x: 35, y: 20 }]);
    expect(parseClickInfo('10.5,20.25;350;200')).toEqual([{ x: 10.5, y: 20.25 }]);
  });

  it('rejects malformed info', () => {
    for (const bad of ['', '10,20', '10,20;350', '10,20;350;200;1', '10,20;0;200', '10,20;abc;200', '10;350;200', 'a,b;350;200',
      '10,20,30;350;200', '-10,20;350;200', '10,20--30,40;350;200', '1e3,20;350;200', '10,20;350;-200', ' 10,20;350;200', '10,20;99999;200']) {
      expect(parseClickInfo(bad), bad).toBeNull();
    }
    expect(parseClickInfo(`${Array.from({ length: 17 }, () => '1,1').join('-')};350;200`)).toBeNull();
  });

  it('accepts clicks within the tolerance around a box and nothing further', () => {
    const box = { x: 100, y: 50, width: 40, height: 40 };
    expect(hitsBox({ x: 120, y: 70 }, box)).toBe(true);
    expect(hitsBox({ x: 100 - CLICK_TOLERANCE, y: 50 - CLICK_TOLERANCE }, box)).toBe(true);
    expect(hitsBox({ x: 140 + CLICK_TOLERANCE, y: 90 + CLICK_TOLERANCE }, box)).toBe(true);
    expect(hitsBox({ x: 100 - CLICK_TOLERANCE - 0.01, y: 70 }, box)).toBe(false);
    expect(hitsBox({ x: 120, y: 90 + CLICK_TOLERANCE + 0.01 }, box)).toBe(false);
    expect(hitsBox({ x: 120, y: 70 }, box, 0)).toBe(true);
    expect(hitsBox({ x: 99, y: 70 }, box, 0)).toBe(false);
  });

  it('needs every target in order, and exactly as many clicks as targets', () => {
    const targets = [{ x: 10, y: 10, width: 40, height: 40 }, { x: 200, y: 100, width: 36, height: 36 }];
    const first = '30,30', second = '218,118';
    expect(clicksMatch(parseClickInfo(`${first}-${second};350;200`), targets)).toBe(true);
    expect(clicksMatch(parseClickInfo(`15,15-109,59;175;100`), targets)).toBe(true);
    expect(clicksMatch(parseClickInfo(`${second}-${first};350;200`), targets)).toBe(false);
    expect(clicksMatch(parseClickInfo(`${first};350;200`), targets)).toBe(false);
    expect(clicksMatch(parseClickInfo(`${first}-${second}-${second};350;200`), targets)).toBe(false);
    expect(clicksMatch(parseClickInfo(`${first}-100,180;350;200`), targets)).toBe(false);
    expect(clicksMatch(null, targets)).toBe(false);
    expect(clicksMatch([], [])).toBe(false);
  });

  it('validates ids and keys rows by a hash of the id', () => {
    for (const good of ['a', 'A-b_9', 'x'.repeat(64), '3f2504e0-4f89-11d3-9a0c-0305e82c3301']) expect(captchaIdSchema.safeParse(good).success, good).toBe(true);
    for (const bad of ['', 'x'.repeat(65), 'a b', 'a/b', 'é', 'a.b']) expect(captchaIdSchema.safeParse(bad).success, bad).toBe(false);
    expect(clickCaptchaKey('abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(clickCaptchaKey('abc')).not.toBe(clickCaptchaKey('abd'));
  });
});
