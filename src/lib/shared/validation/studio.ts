// The developer studio's input (modules, versions, sales filters, withdrawals), shared by the API
// and the forms. Wire names are snake_case; the parsed values are what the services take.
// Messages are keys of the `devstudio` and `validation` groups.
import { z } from 'zod';
import { MODULE_CATEGORIES, MODULE_UID, SEMVER } from '../market';
import { TAG } from './ask';
import { INT_MAX, NAME_SPOOF_CHARS } from './common';

export const MAX_DESCRIPTION = 30_000;
export const MAX_CHANGELOG = 10_000;
export const MAX_SCREENSHOTS = 8;
export const MAX_MODULE_TAGS = 5;
/** Yuan with at most two decimals and seven whole digits (what an integer column of cents holds). */
export const YUAN = /^\d{1,7}(\.\d{1,2})?$/;
/** A point price is at most this many points. */
export const MAX_SCORE_PRICE = 100_000_000;

/** '12.5' → 1250: decimal yuan to cents, computed on the digits so no float rounding creeps in. */
export function yuanToCents(value: string): number {
  const [whole = '0', fraction = ''] = value.trim().split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

/** 'a, b，c' or 'a b' → ['a', 'b', 'c'], once each (case-insensitive), '#' dropped. */
export function splitTags(text: string): string[] {
  const seen = new Set<string>();
  return text.split(/[\s,，、]+/).map((s) => s.replace(/^#/, '').trim()).filter((s) => {
    if (!s || seen.has(s.toLowerCase())) return false;
    seen.add(s.toLowerCase());
    return true;
  });
}

const id = z.coerce.number({ error: 'validation.required' }).int().positive({ error: 'validation.required' }).max(INT_MAX);
/** Not a number at all: the spec's "Floating point number" (§5); a number out of shape: `key`. */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
export const yuan = (key: string) => z.union([z.string(), z.number()], { error: key }).transform((v) => String(v).trim())
  .pipe(z.string().regex(NUMBER, { error: 'validation.float' }).regex(YUAN, { error: key }));
/**
 * An image the developer uploaded (the service checks the attachment): `/storage/…` in local mode,
 * the store's public URL of an `uploads/<id>/…` object in a cloud mode.
 */
const imageUrl = z.string({ error: 'devstudio.error.image' }).trim().max(255, { error: 'devstudio.error.image' })
  .regex(/^(\/storage\/[^\s?#\\]+|https?:\/\/[^\s?#\\"'<>]+)$/, { error: 'devstudio.error.image' });
/** 'yyyy-mm-dd' naming a real calendar day (no February 30th). */
export function isDay(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.getUTCFullYear() === Number(m[1]) && date.getUTCMonth() === Number(m[2]) - 1 && date.getUTCDate() === Number(m[3]);
}
/** A day filter: empty, or a real 'yyyy-mm-dd'. */
const day = z.string().trim().refine((v) => v === '' || isDay(v), { error: 'devstudio.error.date' }).default('');

export const ModuleInput = z.object({
  /** Present when editing one of the developer's modules. */
  id: id.optional(),
  uid: z.string({ error: 'devstudio.error.uid' }).trim().toLowerCase().regex(MODULE_UID, { error: 'devstudio.error.uid' }),
  name: z.string({ error: 'devstudio.error.name' }).trim().min(2, { error: 'devstudio.error.name' }).max(60, { error: 'devstudio.error.name' })
    .refine((v) => !NAME_SPOOF_CHARS.test(v), { error: 'validation.nameInvisible' }),
  summary: z.string().trim().max(150, { error: 'devstudio.error.summary' }).default(''),
  description: z.string({ error: 'devstudio.error.description' }).trim().min(1, { error: 'devstudio.error.description' })
    .max(MAX_DESCRIPTION, { error: 'devstudio.error.descriptionLong' }),
  /** The English name, summary and description ('' : English readers see the ones above). */
  name_en: z.union([z.literal(''), z.string().trim().min(2, { error: 'devstudio.error.name' }).max(60, { error: 'devstudio.error.name' })]).default(''),
  summary_en: z.string().trim().max(150, { error: 'devstudio.error.summary' }).default(''),
  description_en: z.string().trim().max(MAX_DESCRIPTION, { error: 'devstudio.error.descriptionLong' }).default(''),
  cover: z.union([z.literal(''), imageUrl], { error: 'devstudio.error.image' }).default(''),
  screenshots: z.array(imageUrl).max(MAX_SCREENSHOTS, { error: 'devstudio.error.screenshots' }).default([]),
  category: z.enum(MODULE_CATEGORIES, { error: 'devstudio.error.category' }),
  tags: z.array(z.string().trim().regex(TAG, { error: 'validation.tag' })).max(MAX_MODULE_TAGS, { error: 'validation.tags' }).default([]),
  /** Yuan, e.g. "19.90"; "0" with a point price of 0 makes the module free. */
  price: yuan('devstudio.error.price').default('0'),
  score_price: z.coerce.number({ error: 'devstudio.error.scorePrice' }).int({ error: 'devstudio.error.scorePrice' })
    .min(0, { error: 'devstudio.error.scorePrice' }).max(MAX_SCORE_PRICE, { error: 'devstudio.error.scorePrice' }).default(0),
}).strict().transform((v) => ({
  id: v.id,
  uid: v.uid,
  name: v.name,
  summary: v.summary,
  description: v.description,
  nameEn: v.name_en,
  summaryEn: v.summary_en,
  descriptionEn: v.description_en,
  cover: v.cover,
  screenshots: [...new Set(v.screenshots)],
  category: v.category,
  tags: splitTags(v.tags.join(' ')),
  price: yuanToCents(v.price),
  scorePrice: v.score_price,
}));
export type ModuleValues = z.output<typeof ModuleInput>;

export const VersionInput = z.object({
  module_id: id,
  version: z.string({ error: 'devstudio.error.version' }).trim().max(20, { error: 'devstudio.error.version' }).regex(SEMVER, { error: 'devstudio.error.version' }),
  changelog: z.string({ error: 'devstudio.error.changelog' }).trim().min(1, { error: 'devstudio.error.changelog' })
    .max(MAX_CHANGELOG, { error: 'devstudio.error.changelogLong' }),
  /** The oldest Atrium release the package runs on; empty when any. */
  min_atrium: z.union([z.literal(''), z.string().trim().max(20, { error: 'devstudio.error.minAtrium' }).regex(SEMVER, { error: 'devstudio.error.minAtrium' })], { error: 'devstudio.error.minAtrium' }).default(''),
  /** The attachment id `POST /api/developer/package` replied with. */
  package_id: z.coerce.number({ error: 'devstudio.error.package' }).int({ error: 'devstudio.error.package' }).positive({ error: 'devstudio.error.package' }).max(INT_MAX),
}).strict().transform((v) => ({ moduleId: v.module_id, version: v.version, changelog: v.changelog, minAtrium: v.min_atrium, packageId: v.package_id }));
export type VersionValues = z.output<typeof VersionInput>;

export const ModuleIdInput = z.object({ id }).strict();
export const PageInput = z.object({ page: z.coerce.number().int().min(1).max(10_000).default(1) });

export const SALE_STATUSES = ['unpaid', 'paid', 'refunded'] as const;
export const SALE_PAY_TYPES = ['balance', 'score', 'free'] as const;

export const SalesInput = z.object({
  status: z.enum(['', ...SALE_STATUSES]).default(''),
  pay_type: z.enum(['', ...SALE_PAY_TYPES]).default(''),
  /** Site-time-zone days, inclusive. */
  from: day,
  to: day,
  /** An order number or part of the buyer's name. */
  q: z.string().trim().max(40).default(''),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
}).transform((v) => ({
  status: v.status || null, payType: v.pay_type || null, from: v.from || null, to: v.to || null, q: v.q, page: v.page,
}));
export type SalesFilter = z.output<typeof SalesInput>;

export const WithdrawInput = z.object({
  /** Yuan, e.g. "100.00". */
  amount: yuan('validation.amount'),
  /** Where to pay: a bank or payment account as the developer writes it. */
  account: z.string({ error: 'devstudio.error.account' }).trim().min(4, { error: 'devstudio.error.account' }).max(120, { error: 'devstudio.error.account' }),
}).strict().transform((v) => ({ amount: yuanToCents(v.amount), account: v.account }));
