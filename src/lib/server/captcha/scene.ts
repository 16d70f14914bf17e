// The click captcha's picture, made for people and against bots that know the icon shapes (issue
// 13, finding 12). A person recognises a shape by its outline and ignores stripes, tints, grain and
// a line across it; a program that cuts the picture into regions of one colour and fits the known
// shapes to them does not. So every icon is bent a little (squash, wavy outline), filled with a
// tint that drifts between two hues and with hard-edged stripes, rimmed in a darker shade, may
// overlap its neighbours, and sits among decoys of its own family (a ring beside a circle and a
// moon); lines in the icons' own colours run over everything and background-coloured cuts break
// the outlines. (Pixel grain was tried and left out: a median filter undoes it, and it made the
// PNG four times larger.) See bench/captcha-solver.mjs for the measurement.
import { blend, disc, hsl, iconCover, paintBackground, paintNoiseLines, type IconName, type IconWarp, type Random, type Raster, type Rgb } from './raster';

/** Icons a hurried glance could take for one another: decoys come from the targets' families. */
export const ICON_FAMILIES: readonly (readonly IconName[])[] = [
  ['circle', 'ring', 'moon', 'drop'],
  ['square', 'diamond', 'hexagon', 'triangle'],
  ['star', 'cross', 'bolt', 'arrow'],
  ['heart', 'drop', 'moon', 'triangle'],
];

export interface SceneIcon {
  icon: IconName;
  /** Centre and box size in picture pixels; `angle` in radians. */
  cx: number;
  cy: number;
  size: number;
  angle: number;
}

export interface StyledIcon extends SceneIcon {
  warp: IconWarp;
  /** Two hues the fill drifts between along `tintAngle`; stripes of `period` px along `stripeAngle`. */
  from: Rgb;
  to: Rgb;
  tintAngle: number;
  /** Where, from the centre along `tintAngle`, the first tone gives way to the second. */
  split: number;
  stripeAngle: number;
  period: number;
}

/** Random looks for the icons: hues spread around the wheel so neighbours rarely share a colour. */
export function styleIcons(icons: readonly SceneIcon[], random: Random): StyledIcon[] {
  const hueStart = random() * 360;
  return icons.map((p, i) => {
    const hue = (hueStart + (360 / icons.length) * i + random() * 30) % 360;
    // The second tone is far round the wheel: the icon is two-coloured, split by a line.
    const drift = (random() < 0.5 ? -1 : 1) * (70 + random() * 80);
    const sat = 0.55 + random() * 0.25, light = 0.38 + random() * 0.12;
    return {
      ...p,
      warp: {
        squashU: 0.88 + random() * 0.12,
        squashV: 0.88 + random() * 0.12,
        wobble: 0.015 + random() * 0.02,
        frequency: 2 + random() * 2.5,
        phase: random() * Math.PI * 2,
      },
      from: hsl(hue, sat, light),
      to: hsl((hue + drift + 360) % 360, sat, light + 0.06),
      tintAngle: random() * Math.PI * 2,
      // Near the middle, so both tones hold a good part of the shape.
      split: (random() - 0.5) * p.size * 0.3,
      stripeAngle: random() * Math.PI,
      period: 5 + random() * 3,
    };
  });
}

/** One icon: shadow, drifting tint, stripes, a darker rim and the light-from-above shade. */
function paintIcon(r: Raster, p: StyledIcon): void {
  const { x0, y0, w, h, cover } = iconCover(p.icon, p.cx, p.cy, p.size, p.angle, p.warp);
  const shadow: Rgb = [30, 30, 40];
  for (let py = 0; py < h; py++) {
    for (let px = 0; px < w; px++) {
      const c = cover[py * w + px]!;
      if (c > 0) blend(r, x0 + px + 2, y0 + py + 2, shadow, c * 0.25);
    }
  }
  const tcos = Math.cos(p.tintAngle), tsin = Math.sin(p.tintAngle);
  const scos = Math.cos(p.stripeAngle), ssin = Math.sin(p.stripeAngle);
  const color: [number, number, number] = [0, 0, 0];
  // The rim: inside pixels within ~2 px of the outline, found from the coverage around them.
  const at = (x: number, y: number): number => (x < 0 || y < 0 || x >= w || y >= h ? 0 : cover[y * w + x]!);
  for (let py = 0; py < h; py++) {
    const lift = 0.18 * (1 - (py / h) * 2);
    for (let px = 0; px < w; px++) {
      const c = cover[py * w + px]!;
      if (c <= 0) continue;
      const dx = x0 + px - p.cx, dy = y0 + py - p.cy;
      const base = dx * tcos + dy * tsin < p.split ? p.from : p.to;
      // Lighter stripes, the light from above, and a darker rim, without an array per pixel.
      const stripe = Math.floor((dx * scos + dy * ssin) / (p.period / 2)) % 2 === 0 ? 0.12 : 0;
      const edge = Math.min(at(px - 1, py), at(px + 1, py), at(px, py - 1), at(px, py + 1), at(px - 2, py), at(px + 2, py), at(px, py - 2), at(px, py + 2));
      const dim = (edge < 0.5 ? 0.58 : 1) * (lift < 0 ? 1 + lift : 1);
      const up = lift > 0 ? lift : 0;
      for (let k = 0; k < 3; k++) {
        const lit = base[k]! + (255 - base[k]!) * stripe;
        color[k] = (lit + (255 - lit) * up) * dim;
      }
      blend(r, x0 + px, y0 + py, color, c);
    }
  }
}

/** A wavy line across the picture, `thickness` px wide. */
function stroke(r: Raster, random: Random, color: Rgb, thickness: number, alpha: number): void {
  const vertical = random() < 0.3;
  const length = vertical ? r.height : r.width, across = vertical ? r.width : r.height;
  const base = across * (0.1 + random() * 0.8);
  const amplitude = 8 + random() * 26;
  const frequency = (Math.PI * 2) / (70 + random() * 180);
  const phase = random() * Math.PI * 2;
  for (let s = -2; s <= length + 2; s += 0.7) {
    const o = base + amplitude * Math.sin(s * frequency + phase);
    if (vertical) disc(r, o, s, thickness / 2, color, alpha);
    else disc(r, s, o, thickness / 2, color, alpha);
  }
}

/** Short background-coloured arcs through some icons: outlines with gaps, as a person barely notices. */
function cut(r: Raster, random: Random, p: StyledIcon, color: Rgb): void {
  const angle = random() * Math.PI;
  const offset = (random() - 0.5) * p.size * 0.4;
  const cos = Math.cos(angle), sin = Math.sin(angle);
  const reach = p.size * 0.62;
  for (let s = -reach; s <= reach; s += 0.6) {
    disc(r, p.cx + s * cos - offset * sin, p.cy + s * sin + offset * cos, 0.9, color, 0.9);
  }
}

/** Paints the whole picture: background, icons in the given order (later ones on top), and lines over them. */
export function paintScene(r: Raster, icons: readonly SceneIcon[], random: Random): void {
  paintBackground(r, random);
  const styled = styleIcons(icons, random);
  for (const p of styled) paintIcon(r, p);
  // Lines in the icons' own colours join icons to each other and to the background.
  const strokes = 3 + Math.floor(random() * 2);
  for (let k = 0; k < strokes; k++) {
    const from = styled[Math.floor(random() * styled.length)]!;
    stroke(r, random, random() < 0.5 ? from.from : from.to, 1.6 + random() * 1.2, 0.85);
  }
  for (const p of styled) {
    const cuts = random() < 0.5 ? 1 : 2;
    for (let k = 0; k < cuts; k++) cut(r, random, p, hsl(random() * 360, 0.5, 0.9));
  }
  paintNoiseLines(r, random, 2, 0.22);
}
