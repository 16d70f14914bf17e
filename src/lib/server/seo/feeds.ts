// Pure builders for feed readers (RSS 2.0) and crawlers (sitemaps.org 0.9, robots.txt): strings in,
// a whole document out. What goes into them is gathered by ./sitemap.ts.

/** sitemaps.org allows 50,000 URLs per file; smaller files keep each response under ~2 MB. */
export const MAX_SITEMAP_URLS = 10_000;
/** The protocol's limit on the number of sitemaps one index may list. */
export const MAX_SITEMAPS_PER_INDEX = 50_000;

export interface FeedItem {
  title: string;
  link: string;
  /** Stable id of the item; marked as a permalink when it equals `link`. */
  guid: string;
  /** Plain text: escaped, never interpreted as HTML. */
  description: string;
  /** Unix seconds. */
  pubDate: number;
  category?: string;
}

export interface FeedChannel {
  title: string;
  /** The page the feed belongs to. */
  link: string;
  /** Absolute URL of the feed itself (atom:link rel="self"). */
  self: string;
  description: string;
  /** RFC 1766 language, e.g. `zh-cn` or `en`. */
  language: string;
  items: readonly FeedItem[];
}

export interface SitemapUrl {
  /** Absolute URL. */
  loc: string;
  /** Unix seconds of the last change. */
  lastmod?: number | null;
}

// XML 1.0 (§2.2) forbids C0 controls other than tab, LF and CR, the non-characters U+FFFE/U+FFFF
// and unpaired surrogates: a single one makes a reader reject the whole feed.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDFFF]/gu;
const SPECIAL = /[&<>"']/g;
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe inside an XML element or a quoted attribute: forbidden characters dropped, markup escaped (so `]]>` cannot occur). */
export function escapeXml(value: string): string {
  return value.replace(NOT_XML, '').replace(SPECIAL, (c) => ENTITY[c] ?? c);
}

/** RFC 822 date with a four-digit year, in GMT, as RSS 2.0 asks: `Tue, 05 Mar 2024 10:00:00 GMT`. */
export function rfc822Date(seconds: number): string {
  return new Date(seconds * 1000).toUTCString();
}

/** W3C Datetime as sitemaps ask: `2024-03-05T10:00:00Z`. */
export function w3cDate(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}

/** Splits a list into sitemap-sized files (10,000 each). */
export function chunkUrls<T>(items: readonly T[], size: number = MAX_SITEMAP_URLS): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const el = (name: string, text: string): string => `<${name}>${escapeXml(text)}</${name}>`;

/** An RSS 2.0 document; `lastBuildDate` is the newest item's date, so an unchanged feed stays byte-identical. */
export function rssFeed(channel: FeedChannel): string {
  const newest = channel.items.reduce<number | null>((max, i) => (max === null || i.pubDate > max ? i.pubDate : max), null);
  const items = channel.items.map((item) => [
    '<item>',
    el('title', item.title),
    el('link', item.link),
    `<guid isPermaLink="${item.guid === item.link}">${escapeXml(item.guid)}</guid>`,
    el('description', item.description),
    el('pubDate', rfc822Date(item.pubDate)),
    item.category ? el('category', item.category) : '',
    '</item>',
  ].join(''));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">',
    '<channel>',
    el('title', channel.title),
    el('link', channel.link),
    el('description', channel.description),
    el('language', channel.language),
    newest === null ? '' : el('lastBuildDate', rfc822Date(newest)),
    `<atom:link href="${escapeXml(channel.self)}" rel="self" type="application/rss+xml"/>`,
    ...items,
    '</channel>',
    '</rss>',
  ].filter(Boolean).join('\n') + '\n';
}

function locEntry(tag: 'url' | 'sitemap', { loc, lastmod }: SitemapUrl): string {
  return `<${tag}>${el('loc', loc)}${lastmod ? el('lastmod', w3cDate(lastmod)) : ''}</${tag}>`;
}

/** A sitemaps.org `urlset`. Throws past 10,000 URLs: split with `chunkUrls` and list the parts in an index. */
export function sitemapXml(urls: readonly SitemapUrl[]): string {
  if (urls.length > MAX_SITEMAP_URLS) throw new RangeError(`A sitemap holds at most ${MAX_SITEMAP_URLS} URLs, got ${urls.length}`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls.map((u) => locEntry('url', u)),
    '</urlset>',
    '',
  ].join('\n');
}

/** A sitemaps.org `sitemapindex` listing sitemap files. */
export function sitemapIndexXml(sitemaps: readonly SitemapUrl[]): string {
  if (sitemaps.length > MAX_SITEMAPS_PER_INDEX) throw new RangeError(`A sitemap index lists at most ${MAX_SITEMAPS_PER_INDEX} sitemaps, got ${sitemaps.length}`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...sitemaps.map((s) => locEntry('sitemap', s)),
    '</sitemapindex>',
    '',
  ].join('\n');
}

/** robots.txt: everything may be crawled but the member center and the API; `sitemap` is an absolute URL. */
export function robotsTxt(sitemap: string): string {
  return ['User-agent: *', 'Allow: /', 'Disallow: /user', 'Disallow: /api', '', `Sitemap: ${sitemap.replace(/[\r\n]/g, '')}`, ''].join('\n');
}
