// The click captcha (reference §5): BuildAdmin's wire shape, without its weaknesses. The answer is
// checked click by click against the targets in order, the number of clicks must match, wrong
// answers are counted and the third voids the captcha, and the row key is a hash of the id.
import { createHash } from 'node:crypto';
import { and, eq, gt, gte, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { captcha } from '../db/schema';
import type { Db } from '../db/client';
import { translator, type Locale } from '../../i18n';
import { createRandom, createRaster, encodePng, ICON_NAMES, ICONS, randomInt, type IconName, type Random } from './raster';
import { ICON_FAMILIES, paintScene } from './scene';

export const CLICK_WIDTH = 350;
export const CLICK_HEIGHT = 200;
/** Icons the visitor must click, and icons drawn besides them (from the targets' families) to confuse a bot. */
export const CLICK_TARGETS = 2;
export const CLICK_DECOYS = 5;
/** Seconds a captcha stays valid. */
export const CLICK_TTL = 600;
/** The wrong answer that voids the captcha. */
export const CLICK_MAX_WRONG = 3;
/** Icons are drawn, not typeset: a click just off the shape's box still aims at it. */
export const CLICK_TOLERANCE = 4;
export const CLICK_MIN_SIZE = 40;
export const CLICK_MAX_SIZE = 54;
/** Edge, and gap between the targets' boxes: more than twice the tolerance, so no click fits both. */
const MARGIN = 4;
const GAP = 2 * CLICK_TOLERANCE + 2;
/**
 * Icons may overlap, which a person reads through and a shape fitter does not; their centres stay
 * this far apart, as a share of the sum of their radii: further when a target is involved, so a
 * target is never mostly hidden.
 */
export const CLICK_TARGET_SPACING = 0.8;
export const CLICK_DECOY_SPACING = 0.6;

/** Ids come from the client (BuildAdmin's clients send a uuid): kept short and plain. */
export const captchaIdSchema = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/);

export type ClickCheck = 'ok' | 'wrong' | 'expired';

/** The message key of each outcome, for the endpoints and the business calls that consume a captcha. */
export const CLICK_MESSAGE = { ok: 'captcha.success', wrong: 'captcha.failed', expired: 'captcha.expired' } as const satisfies Record<ClickCheck, string>;

export interface ClickBox {
  /** Left and top edge in image pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedIcon extends ClickBox {
  icon: IconName;
  size: number;
  /** Radians. */
  angle: number;
}

export interface ClickCaptcha {
  id: string;
  text: string[];
  /** `data:image/png;base64,…` */
  base64: string;
  width: typeof CLICK_WIDTH;
  height: typeof CLICK_HEIGHT;
}

/** What the `captcha` column holds: BuildAdmin's layout, `text` being the targets in order. */
interface StoredClick {
  text: (ClickBox & { size: number; icon: IconName; name: string; text: string })[];
  width: number;
  height: number;
}

const now = (): number => Math.floor(Date.now() / 1000);

/** The row key: a hash, so ids never sit in the table and cannot collide with e-mail/SMS code keys. */
export function clickCaptchaKey(id: string): string {
  return createHash('sha256').update(`click:${id}`).digest('hex');
}

function overlaps(a: ClickBox, b: ClickBox, gap: number): boolean {
  return a.x < b.x + b.width + gap && b.x < a.x + a.width + gap && a.y < b.y + b.height + gap && b.y < a.y + a.height + gap;
}

function shuffle<T>(random: Random, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(random, 0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** `count` distinct icons, the first `targets` to click; each target gets a decoy of its family. */
function chooseIcons(random: Random, count: number, targets: number): IconName[] {
  const names = shuffle(random, [...ICON_NAMES]);
  const chosen = names.slice(0, targets);
  for (const target of chosen.slice(0, targets)) {
    if (chosen.length >= count) break;
    const kin = shuffle(random, ICON_FAMILIES.filter((f) => f.includes(target)).flat().filter((n) => !chosen.includes(n)));
    if (kin[0]) chosen.push(kin[0]);
  }
  for (const name of names) {
    if (chosen.length >= count) break;
    if (!chosen.includes(name)) chosen.push(name);
  }
  return chosen;
}

/**
 * `count` distinct icons at random sizes, places and tilts, the first `targets` being the ones to
 * click: the targets' boxes never come closer than the gap; any two icons may overlap a little.
 * Throws only if the picture is far too small for the icons.
 */
export function placeIcons(random: Random, count: number, width = CLICK_WIDTH, height = CLICK_HEIGHT, targets = CLICK_TARGETS): PlacedIcon[] {
  if (count > ICON_NAMES.length) throw new RangeError('more icons asked for than there are');
  const names = chooseIcons(random, count, Math.min(targets, count));
  for (let round = 0; round < 50; round++) {
    const placed: PlacedIcon[] = [];
    for (let tries = 0; placed.length < count && tries < 800; tries++) {
      const size = randomInt(random, CLICK_MIN_SIZE, CLICK_MAX_SIZE);
      if (size + 2 * MARGIN > width || size + 2 * MARGIN > height) break;
      const box = { x: randomInt(random, MARGIN, width - MARGIN - size), y: randomInt(random, MARGIN, height - MARGIN - size), width: size, height: size };
      const target = placed.length < targets;
      const fits = placed.every((p, j) => {
        if (target && j < targets && overlaps(p, box, GAP)) return false;
        const spacing = target || j < targets ? CLICK_TARGET_SPACING : CLICK_DECOY_SPACING;
        return Math.hypot(p.x + p.size / 2 - box.x - size / 2, p.y + p.size / 2 - box.y - size / 2) >= (spacing * (p.size + size)) / 2;
      });
      if (!fits) continue;
      const icon = names[placed.length]!;
      const tilt = (ICONS[icon].tilt * Math.PI) / 180;
      placed.push({ ...box, icon, size, angle: (random() * 2 - 1) * tilt });
    }
    if (placed.length === count) return placed;
  }
  throw new RangeError('the icons do not fit in the picture');
}

/** The picture (see scene.ts): the icons drawn in a random order, so a decoy may lie over a target. */
export function renderClickCaptcha(icons: readonly PlacedIcon[], random: Random, width = CLICK_WIDTH, height = CLICK_HEIGHT): Buffer {
  const raster = createRaster(width, height);
  const order = shuffle(random, icons.map((p) => ({ icon: p.icon, cx: p.x + p.size / 2, cy: p.y + p.size / 2, size: p.size, angle: p.angle })));
  paintScene(raster, order, random);
  return encodePng(raster);
}

/**
 * Parses `x1,y1-x2,y2;renderedW;renderedH` and scales the clicks from the size the picture was
 * shown at back to `width`×`height`. Null when malformed.
 */
export function parseClickInfo(info: string, width = CLICK_WIDTH, height = CLICK_HEIGHT): { x: number; y: number }[] | null {
  const parts = info.split(';');
  if (parts.length !== 3) return null;
  const number = /^\d+(\.\d+)?$/;
  const [clicks, w, h] = parts as [string, string, string];
  if (!number.test(w) || !number.test(h)) return null;
  const shownW = Number(w), shownH = Number(h);
  if (shownW < 1 || shownH < 1 || shownW > 10_000 || shownH > 10_000) return null;
  const points: { x: number; y: number }[] = [];
  for (const pair of clicks.split('-')) {
    const xy = pair.split(',');
    if (xy.length !== 2 || !number.test(xy[0]!) || !number.test(xy[1]!)) return null;
    points.push({ x: (Number(xy[0]) * width) / shownW, y: (Number(xy[1]) * height) / shownH });
    if (points.length > 16) return null;
  }
  return points;
}

/** Whether a click lands in a box, allowing `tolerance` pixels around it. */
export function hitsBox(point: { x: number; y: number }, box: ClickBox, tolerance = CLICK_TOLERANCE): boolean {
  return point.x >= box.x - tolerance && point.x <= box.x + box.width + tolerance
    && point.y >= box.y - tolerance && point.y <= box.y + box.height + tolerance;
}

/** True when every click lands in its target's box, in order, with no click missing or extra. */
export function clicksMatch(clicks: readonly { x: number; y: number }[] | null, targets: readonly ClickBox[]): boolean {
  return clicks !== null && targets.length > 0 && clicks.length === targets.length && clicks.every((p, i) => hitsBox(p, targets[i]!));
}

function readStored(json: string): StoredClick | null {
  try {
    const value = JSON.parse(json) as StoredClick;
    return Array.isArray(value?.text) && value.text.length > 0 && value.width > 0 && value.height > 0 ? value : null;
  } catch {
    return null;
  }
}

/** Draws a new captcha for `id` and stores its answer; a previous one under the same id is replaced. */
export async function createClickCaptcha(db: Db, id: string, locale: Locale): Promise<ClickCaptcha> {
  if (!captchaIdSchema.safeParse(id).success) throw new RangeError('invalid captcha id');
  const random = createRandom();
  const icons = placeIcons(random, CLICK_TARGETS + CLICK_DECOYS);
  const png = renderClickCaptcha(icons, random);
  const t = translator(locale, 'captcha');
  // BuildAdmin marks icon names with angle brackets, telling them apart from characters to click.
  const targets = icons.slice(0, CLICK_TARGETS).map(({ x, y, width, height, size, icon }) => ({ x, y, width, height, size, icon, name: icon, text: `<${t(`captcha.icon.${icon}`)}>` }));
  const stored: StoredClick = { text: targets, width: CLICK_WIDTH, height: CLICK_HEIGHT };
  const time = now();
  const row = { captcha: JSON.stringify(stored), code: '', attempts: 0, createTime: time, expireTime: time + CLICK_TTL };
  await db.delete(captcha).where(lt(captcha.expireTime, time));
  await db.insert(captcha).values({ key: clickCaptchaKey(id), ...row }).onConflictDoUpdate({ target: captcha.key, set: row });
  return { id, text: targets.map((p) => p.text), base64: `data:image/png;base64,${png.toString('base64')}`, width: CLICK_WIDTH, height: CLICK_HEIGHT };
}

/**
 * Checks an answer. A wrong one counts against the captcha and the third voids it; an expired or
 * voided captcha is deleted. A right one deletes the captcha only when `unset` (clients pre-check
 * with `unset` false, then the business call consumes it).
 *
 * A try is taken before the answer is compared, by one conditional update that also says whether
 * one was left: parallel guesses cannot all read "0 wrong so far" and all be compared, so at most
 * `CLICK_MAX_WRONG` wrong answers are ever compared per picture, whatever the concurrency. A right
 * answer hands its try back, so only wrong ones count.
 */
export async function checkClickCaptcha(db: Db, id: string, info: string, unset: boolean): Promise<ClickCheck> {
  if (!captchaIdSchema.safeParse(id).success) return 'expired';
  const key = clickCaptchaKey(id);
  const time = now();
  const [taken] = await db.update(captcha)
    .set({ attempts: sql`${captcha.attempts} + 1` })
    .where(and(eq(captcha.key, key), lt(captcha.attempts, CLICK_MAX_WRONG), gte(captcha.expireTime, time)))
    .returning({ captcha: captcha.captcha, attempts: captcha.attempts });
  if (!taken) {
    // Unknown, used up (its last wrong answer deletes it) or expired: an expired row goes now.
    await db.delete(captcha).where(and(eq(captcha.key, key), lt(captcha.expireTime, time)));
    return 'expired';
  }
  const stored = readStored(taken.captcha);
  if (!stored) {
    await db.delete(captcha).where(eq(captcha.key, key));
    return 'expired';
  }
  if (!clicksMatch(parseClickInfo(info, stored.width, stored.height), stored.text)) {
    if (taken.attempts >= CLICK_MAX_WRONG) await db.delete(captcha).where(eq(captcha.key, key));
    return 'wrong';
  }
  if (unset) {
    // Only the call that actually deletes the row passes: one right answer, one business action.
    const gone = await db.delete(captcha).where(eq(captcha.key, key)).returning({ key: captcha.key });
    return gone.length === 0 ? 'expired' : 'ok';
  }
  await db.update(captcha).set({ attempts: sql`${captcha.attempts} - 1` }).where(and(eq(captcha.key, key), gt(captcha.attempts, 0)));
  return 'ok';
}

/** For business calls (login, sending codes): checks the answer and uses the captcha up. */
export function consumeClickCaptcha(db: Db, id: string, info: string): Promise<ClickCheck> {
  return checkClickCaptcha(db, id, info, true);
}
