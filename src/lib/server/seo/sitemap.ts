// What crawlers and feed readers may see: the site's public URLs (sitemap, from a list of sources)
// and the forum's newest posts (RSS), as absolute, canonical URLs. Members-only content never
// appears: every source lists only what an anonymous visitor can open.
import { and, asc, desc, eq, gt, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askCategory, askPost, mdBook, mdPage, module } from '../db/schema';
import { translator, type Locale } from '../../i18n';
import { areaOfPath, linkFor, type HostContext } from '../../shared/hosts';
import { chunkUrls, MAX_SITEMAP_URLS, rssFeed, sitemapIndexXml, sitemapXml } from './feeds';
import { forwardedProto, type ProxyTrust } from '../proxy';
import { uniqueTags, type CacheTag } from '../cache-tags';
import { siteWide } from '../site/cache-tags';
import { askArea } from '../ask/cache-tags';
import { mdArea } from '../md/cache-tags';
import { marketArea } from '../market/cache-tags';

// ---------------------------------------------------------------------------------------------
// Absolute URLs

/** Where the request came in: enough to turn an app path into an absolute URL. */
export interface PublicOrigin {
  /** `http:` or `https:`. */
  protocol: string;
  /**
   * The host (with its port) absolute URLs name: SITE_URL's, or the request's Host when the
   * operator allowed it; null when neither, and URLs stay relative to the page.
   */
  requestHost: string | null;
  host: HostContext;
}

/** The settings publicOrigin reads (a ServerConfig fits). */
export interface OriginSettings {
  trustProxy: boolean;
  proxy?: ProxyTrust | null;
  /** SITE_URL's origin, e.g. `https://example.com`. */
  siteUrl?: string | null;
  /** Host names (optionally with port) absolute URLs may name when SITE_URL is unset. */
  allowedHosts?: readonly string[];
}

// Loopback names cannot point a visitor anywhere else: local runs and tests keep absolute URLs.
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/;

/** Whether absolute URLs may name this Host header value. */
export function hostAllowed(requestHost: string, allowed: readonly string[] = [], siteDomain: string | null = null): boolean {
  const h = requestHost.toLowerCase();
  if (LOOPBACK.test(h)) return true;
  const bare = h.replace(/:\d+$/, '');
  if (siteDomain && (bare === siteDomain || bare.endsWith(`.${siteDomain}`))) return true;
  return allowed.some((a) => a === h || a === bare);
}

/**
 * The scheme and host absolute URLs use. SITE_URL wins; with SITE_DOMAIN the canonical hosts come
 * from it; otherwise the request's Host only when the operator allowed it (ALLOWED_HOSTS, or a
 * loopback name), else none: a forged `Host: evil.example` never reaches the sitemap or a link.
 * X-Forwarded-Proto counts only from a trusted proxy. (A bare boolean is the older trustProxy form.)
 */
export function publicOrigin(url: URL, headers: Headers, host: HostContext, settings: OriginSettings | boolean, peer = ''): PublicOrigin {
  const cfg: OriginSettings = typeof settings === 'boolean' ? { trustProxy: settings } : settings;
  if (cfg.siteUrl) {
    const site = new URL(cfg.siteUrl);
    return { protocol: site.protocol, requestHost: site.host, host };
  }
  const forwarded = forwardedProto(headers.get('x-forwarded-proto'), peer, cfg.proxy ?? cfg.trustProxy);
  const protocol = forwarded ? `${forwarded}:` : url.protocol;
  const requestHost = headers.get('host') || url.host;
  return { protocol, requestHost: hostAllowed(requestHost, cfg.allowedHosts, host.siteDomain) ? requestHost : null, host };
}

/**
 * The canonical href of an app path: with subdomains on, on the host of the area that owns it
 * (`/ask/info/5` → `//ask.example.com/info/5`, `/` → `//example.com/`), whatever host asked;
 * without subdomains, the path itself.
 */
export function canonicalHref(appPath: string, host: HostContext): string {
  if (!host.siteDomain) return appPath;
  const area = areaOfPath(appPath);
  const authority = `${area === 'main' ? '' : `${area}.`}${host.siteDomain}${host.port ? `:${host.port}` : ''}`;
  return `//${authority}${linkFor(appPath, { ...host, area })}`;
}

/** The absolute canonical URL of an app path (absolute URLs pass through). */
export function absoluteUrl(appPath: string, origin: PublicOrigin): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(appPath)) return appPath;
  if (appPath.startsWith('//')) return `${origin.protocol}${appPath}`;
  const href = canonicalHref(appPath, origin.host);
  if (href.startsWith('//')) return `${origin.protocol}${href}`;
  return origin.requestHost ? `${origin.protocol}//${origin.requestHost}${href}` : href;
}

// Parameters that only say where a visitor came from: a canonical URL never carries them.
const TRACKING = /^(?:utm_\w+|gclid|gbraid|wbraid|dclid|fbclid|msclkid|yclid|twclid|igshid|mc_cid|mc_eid|_ga|_gl|spm|ref|ref_src)$/i;

/** The app path and query of a page without tracking parameters (`/ask?tab=hot&utm_source=x` → `/ask?tab=hot`). */
export function withoutTracking(url: URL): string {
  const params = new URLSearchParams(url.search);
  for (const name of [...params.keys()]) if (TRACKING.test(name)) params.delete(name);
  const query = params.toString();
  return query ? `${url.pathname}?${query}` : url.pathname;
}

// ---------------------------------------------------------------------------------------------
// Sitemap

export interface SitemapEntry {
  /** App path (`/ask/info/5`), made absolute and canonical when written. */
  path: string;
  /** Unix seconds. */
  lastmod?: number | null;
}

export interface SitemapFileInfo {
  /** File number within the source, from 1. */
  n: number;
  count: number;
  /** Newest change among the file's URLs, when known. */
  lastmod: number | null;
}

/**
 * One kind of public page. The docs and the module market add theirs to SITEMAP_SOURCES; a source
 * with few URLs is a `listSource`, a large table pages by id like `askPosts`.
 */
export interface SitemapSource {
  /** Lower-case words and dashes: the files are `/sitemap/{name}-{n}.xml`. */
  name: string;
  /** Page-cache tags invalidated when the source's URLs change. */
  tags: readonly CacheTag[];
  /** The source's non-empty files, at most 10,000 URLs each. */
  files(db: Db): Promise<SitemapFileInfo[]>;
  /** The URLs of file `n` ([] when there is no such file). */
  entries(db: Db, n: number): Promise<SitemapEntry[]>;
}

/** A source whose whole list is cheap to build on every request. */
export function listSource(name: string, tags: readonly CacheTag[], list: (db: Db) => Promise<SitemapEntry[]>): SitemapSource {
  return {
    name,
    tags,
    async files(db) {
      return chunkUrls(await list(db)).map((part, i) => ({ n: i + 1, count: part.length, lastmod: newest(part) }));
    },
    async entries(db, n) {
      return chunkUrls(await list(db))[n - 1] ?? [];
    },
  };
}

function newest(entries: readonly SitemapEntry[]): number | null {
  return entries.reduce<number | null>((max, e) => (e.lastmod && (max === null || e.lastmod > max) ? e.lastmod : max), null);
}

/** The area home pages. */
const sitePages = listSource('pages', [siteWide], async () => ['/', '/ask', '/md', '/modules'].map((path) => ({ path })));

const askCategories = listSource('ask-categories', [askArea], async (db) => {
  const rows = await db.select({ id: askCategory.id }).from(askCategory).orderBy(asc(askCategory.id));
  return rows.map((r) => ({ path: `/ask/lists/category/${r.id}` }));
});

// File n of the posts holds ids ((n-1)·10,000, n·10,000]: a file is one primary-key range scan and
// needs no offset, however many posts there are; only the index groups the whole table (and is cached).
const PER_FILE = sql.raw(String(MAX_SITEMAP_URLS));

/** Published forum posts, paged by id; lastmod is the last activity (new reply, edit, accepted answer). */
export const askPosts: SitemapSource = {
  name: 'ask-posts',
  tags: [askArea],
  async files(db) {
    const n = sql<number>`((${askPost.id} - 1) / ${PER_FILE} + 1)::int`;
    const rows = await db.select({ n, count: sql<number>`count(*)::int`, lastmod: sql<string | number>`max(${askPost.lastActivityTime})` })
      .from(askPost).where(eq(askPost.status, 'published')).groupBy(n).orderBy(n);
    return rows.map((r) => ({ n: Number(r.n), count: Number(r.count), lastmod: r.lastmod === null ? null : Number(r.lastmod) }));
  },
  async entries(db, n) {
    const after = (n - 1) * MAX_SITEMAP_URLS;
    const rows = await db.select({ id: askPost.id, lastmod: askPost.lastActivityTime }).from(askPost)
      .where(and(eq(askPost.status, 'published'), gt(askPost.id, after), lte(askPost.id, after + MAX_SITEMAP_URLS)))
      .orderBy(asc(askPost.id)).limit(MAX_SITEMAP_URLS);
    return rows.map((r) => ({ path: `/ask/info/${r.id}`, lastmod: r.lastmod }));
  },
};

/** Every page of every public book (members-only and archived books never), book by book. */
const mdPages = listSource('md-pages', [siteWide, mdArea], async (db) => {
  const rows = await db.select({ book: mdBook.name, page: mdPage.name, lastmod: mdPage.updateTime }).from(mdPage)
    .innerJoin(mdBook, eq(mdBook.id, mdPage.bookId)).where(and(eq(mdBook.visibility, 'public'), eq(mdBook.archiveTime, 0)))
    .orderBy(desc(mdBook.weigh), asc(mdBook.id), asc(mdPage.id));
  return rows.map((r) => ({ path: `/md/${r.book}/${r.page}`, lastmod: r.lastmod }));
});

/** Published modules of the market, newest first; lastmod is the module's last edit. */
const marketModules = listSource('modules', [marketArea], async (db) => {
  const rows = await db.select({ uid: module.uid, lastmod: module.updateTime }).from(module)
    .where(eq(module.status, 'published')).orderBy(desc(module.publishTime), desc(module.id));
  return rows.map((r) => ({ path: `/modules/${r.uid}`, lastmod: r.lastmod }));
});

/** Everything the sitemap lists, in order. */
export const SITEMAP_SOURCES: readonly SitemapSource[] = [sitePages, askCategories, askPosts, mdPages, marketModules];

/** Page-cache tags of the sitemap: those of all its sources. */
export function sitemapTags(sources: readonly SitemapSource[] = SITEMAP_SOURCES): CacheTag[] {
  return uniqueTags(sources.flatMap((s) => s.tags));
}

export function sitemapFilePath(source: string, n: number): string {
  return `/sitemap/${source}-${n}.xml`;
}

/** `ask-posts-3` (the `[file]` of `/sitemap/[file].xml`) → source and number; null when malformed. */
export function parseSitemapFile(file: string): { source: string; n: number } | null {
  const m = /^([a-z][a-z0-9-]*)-([1-9]\d{0,8})$/.exec(file);
  return m ? { source: m[1]!, n: Number(m[2]) } : null;
}

/**
 * `/sitemap.xml`: one urlset while the whole site fits in one file (10,000 URLs), else an index
 * of `/sitemap/{source}-{n}.xml` files.
 */
export async function siteSitemap(db: Db, origin: PublicOrigin, sources: readonly SitemapSource[] = SITEMAP_SOURCES): Promise<string> {
  const files = await Promise.all(sources.map(async (source) => ({ source, files: await source.files(db) })));
  const total = files.reduce((sum, s) => sum + s.files.reduce((n, f) => n + f.count, 0), 0);
  if (total <= MAX_SITEMAP_URLS) {
    const parts = await Promise.all(files.flatMap(({ source, files: list }) => list.map((f) => source.entries(db, f.n))));
    return sitemapXml(parts.flat().map((e) => ({ loc: absoluteUrl(e.path, origin), lastmod: e.lastmod })));
  }
  return sitemapIndexXml(files.flatMap(({ source, files: list }) => list.map((f) => ({
    loc: absoluteUrl(sitemapFilePath(source.name, f.n), origin),
    lastmod: f.lastmod,
  }))));
}

/** One file of the index (`file` as in `ask-posts-3`); null when there is no such file or it is empty. */
export async function siteSitemapFile(db: Db, origin: PublicOrigin, file: string, sources: readonly SitemapSource[] = SITEMAP_SOURCES): Promise<string | null> {
  const parsed = parseSitemapFile(file);
  const source = parsed && sources.find((s) => s.name === parsed.source);
  if (!parsed || !source) return null;
  const entries = await source.entries(db, parsed.n);
  if (!entries.length) return null;
  return sitemapXml(entries.map((e) => ({ loc: absoluteUrl(e.path, origin), lastmod: e.lastmod })));
}

// ---------------------------------------------------------------------------------------------
// Forum feeds

export const ASK_FEED_PATH = '/ask/feed.xml';
export const FEED_ITEMS = 30;

export function askCategoryFeedPath(slug: string): string {
  return `/ask/feed/${encodeURIComponent(slug)}.xml`;
}

/**
 * The forum's RSS feed (the newest published posts), or one category's when `category` is a slug;
 * null for an unknown slug. Channel texts are in `locale`.
 */
export async function askFeed(db: Db, opts: { locale: Locale; origin: PublicOrigin; siteName: string; category?: string | null; limit?: number }): Promise<string | null> {
  const { locale, origin, siteName } = opts;
  const t = translator(locale, 'ask');
  let category: { id: number; slug: string; title: string } | null = null;
  if (opts.category != null) {
    const [row] = await db.select({ id: askCategory.id, slug: askCategory.slug, title: askCategory.title }).from(askCategory).where(eq(askCategory.slug, opts.category));
    if (!row) return null;
    category = { id: row.id, slug: row.slug, title: row.title[locale] };
  }
  const rows = await db.select({
    id: askPost.id, title: askPost.title, excerpt: askPost.excerpt, createTime: askPost.createTime, category: askCategory.title,
  }).from(askPost).innerJoin(askCategory, eq(askCategory.id, askPost.categoryId))
    .where(and(eq(askPost.status, 'published'), category ? eq(askPost.categoryId, category.id) : undefined))
    .orderBy(desc(askPost.id)).limit(opts.limit ?? FEED_ITEMS);
  const names = { site: siteName, category: category?.title ?? '' };
  return rssFeed({
    title: category ? t('ask.feed.categoryTitle', names) : t('ask.feed.title', names),
    link: absoluteUrl(category ? `/ask/lists/category/${category.id}` : '/ask', origin),
    self: absoluteUrl(category ? askCategoryFeedPath(category.slug) : ASK_FEED_PATH, origin),
    description: category ? t('ask.feed.categoryDescription', names) : t('ask.feed.description', names),
    language: locale,
    items: rows.map((r) => {
      const link = absoluteUrl(`/ask/info/${r.id}`, origin);
      return { title: r.title, link, guid: link, description: r.excerpt, pubDate: r.createTime, category: r.category[locale] };
    }),
  });
}
