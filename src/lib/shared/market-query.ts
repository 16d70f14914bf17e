// The module market's list query: read from the URL, normalised, and written back into links.
// Unknown or malformed values are dropped rather than refused, so an old or hand-edited link still
// shows a list; the links the pages write only ever carry values that differ from the defaults.
import { MODULE_CATEGORIES, type ModuleCategory } from './market';

export const MARKET_SORTS = ['relevance', 'newest', 'popular', 'rating', 'price'] as const;
export type MarketSort = (typeof MARKET_SORTS)[number];

export const MARKET_PRICES = ['', 'free', 'paid'] as const;
export type MarketPrice = (typeof MARKET_PRICES)[number];

/** Cards per page: a full last row at two, three and four columns. */
export const MARKET_PAGE_SIZE = 24;
/** Deeper pages are refused: nobody pages that far, and a large offset is a slow query. */
export const MARKET_MAX_PAGE = 500;
export const MAX_MARKET_Q = 100;
const MAX_TAG = 30;

export interface MarketQuery {
  /** What the visitor searched for, trimmed; '' for none. */
  q: string;
  category: ModuleCategory | '';
  tag: string;
  price: MarketPrice;
  sort: MarketSort;
  page: number;
}

type Params = URLSearchParams | Record<string, string | undefined>;

function read(params: Params, name: string): string {
  const value = params instanceof URLSearchParams ? params.get(name) : params[name];
  return typeof value === 'string' ? value : '';
}

/** Whitespace collapsed, control characters gone, at most `max` code points. */
function clean(value: string, max: number): string {
  const text = value.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/\s+/g, ' ').trim();
  const points = Array.from(text);
  return points.length > max ? points.slice(0, max).join('').trim() : text;
}

const includes = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value);

/** The sort a list gets when the URL names none: by relevance while searching, else newest first. */
export function defaultSort(q: string): MarketSort {
  return q ? 'relevance' : 'newest';
}

/** Reads `q`, `category`, `tag`, `price`, `sort` and `page` from a URL's parameters. */
export function parseMarketQuery(params: Params): MarketQuery {
  const q = clean(read(params, 'q'), MAX_MARKET_Q);
  const category = read(params, 'category').trim();
  const price = read(params, 'price').trim();
  const sort = read(params, 'sort').trim();
  const page = Number(read(params, 'page').trim() || '1');
  return {
    q,
    category: includes(MODULE_CATEGORIES, category) ? category : '',
    tag: clean(read(params, 'tag'), MAX_TAG),
    price: includes(MARKET_PRICES, price) ? price : '',
    // Relevance means nothing without a search.
    sort: includes(MARKET_SORTS, sort) && (sort !== 'relevance' || q) ? sort : defaultSort(q),
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MARKET_MAX_PAGE) : 1,
  };
}

/** The sorts a visitor can choose: relevance only while searching. */
export function sortsFor(q: string): MarketSort[] {
  return q ? [...MARKET_SORTS] : MARKET_SORTS.filter((s) => s !== 'relevance');
}

/**
 * The query string of a list (`?category=editor&sort=rating`), defaults left out, parameters in a
 * fixed order so that one list has one URL. Changing a filter goes back to page 1 unless `page`
 * is part of the change.
 */
export function marketSearch(query: MarketQuery, change: Partial<MarketQuery> = {}): string {
  const next = { ...query, ...change };
  if (!('page' in change)) next.page = 1;
  if (change.q !== undefined && change.sort === undefined && next.sort === 'relevance' && !next.q) next.sort = 'newest';
  const params = new URLSearchParams();
  if (next.q) params.set('q', next.q);
  if (next.category) params.set('category', next.category);
  if (next.tag) params.set('tag', next.tag);
  if (next.price) params.set('price', next.price);
  if (next.sort !== defaultSort(next.q)) params.set('sort', next.sort);
  if (next.page > 1) params.set('page', String(next.page));
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}

/** App path of the market list for a query (`/modules?tag=markdown`). */
export function marketPath(query: MarketQuery, change: Partial<MarketQuery> = {}): string {
  return `/modules${marketSearch(query, change)}`;
}

/** Whether the list is narrowed by anything but the search words. */
export function hasFilters(query: MarketQuery): boolean {
  return Boolean(query.category || query.tag || query.price);
}

/** A stable colour for a module without a cover: a hue from its uid. */
export function tileHue(uid: string): number {
  let hash = 0;
  for (const ch of uid) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return hash % 360;
}

/** The letter on a module's generated tile: its name's first character, upper-cased. */
export function tileLetter(name: string): string {
  const first = Array.from(name.trim())[0] ?? '?';
  return first.toUpperCase();
}

/** Rating as stars show it: 0–5 in steps of a tenth. */
export function roundRating(rating: number): number {
  if (!Number.isFinite(rating) || rating <= 0) return 0;
  return Math.min(5, Math.round(rating * 10) / 10);
}

/** A package size for people: 850 B, 12.3 KB, 4.5 MB. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${Math.max(0, Math.round(bytes || 0))} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}

/** Building an Intl formatter costs far more than using one: one per locale, kept. */
const COUNT_FORMATS = new Map<string, Intl.NumberFormat>();

/** A count with the locale's digit grouping: 12,345. */
export function formatCount(n: number, locale: string): string {
  let format = COUNT_FORMATS.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale === 'en' ? 'en-US' : 'zh-CN');
    COUNT_FORMATS.set(locale, format);
  }
  return format.format(n);
}
