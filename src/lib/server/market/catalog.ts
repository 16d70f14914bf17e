// The market's reading side: the module list (filters, sorts, search), a module's page, its
// versions and ratings, and the facets beside the list. Only published modules are public.
import { and, arrayContains, asc, desc, eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Locale } from '../../i18n';
import type { Db } from '../db/client';
import { module, moduleVersion, user } from '../db/schema';
import type { Runtime } from '../runtime';
import { displayNameSql } from '../account/users';
import { renderBody } from '../ask/render';
import { highlight, searchQuery } from '../search/text';
import { compareVersions, MODULE_CATEGORIES, type ModuleCategory } from '../../shared/market';
import { MARKET_PAGE_SIZE, type MarketQuery } from '../../shared/market-query';
import { marketArea } from './cache-tags';

/** Search results are counted up to this many; the page says "1,000+" beyond. */
export const SEARCH_CAP = 1000;
/** Tags shown beside the list. */
export const POPULAR_TAGS = 20;

export interface ModuleCard {
  uid: string;
  name: string;
  summary: string;
  cover: string;
  price: number;
  scorePrice: number;
  rating: number;
  ratingCount: number;
  downloads: number;
  siteModule: boolean;
  /** The name and summary HTML-escaped with the search terms in <mark>, when searching. */
  nameHtml?: string;
  summaryHtml?: string;
}

export interface ModulePage {
  list: ModuleCard[];
  /** Matching modules; a search stops counting at SEARCH_CAP. */
  total: number;
  page: number;
  limit: number;
}

export interface CategoryCount {
  category: ModuleCategory;
  total: number;
  free: number;
}

export interface MarketFacets {
  /** Every category, in MODULE_CATEGORIES order, with its published modules. */
  categories: CategoryCount[];
  total: number;
  free: number;
  tags: { tag: string; count: number }[];
}

/**
 * A module's text in the reader's language: English readers get the developer's English name,
 * summary and description where written, everyone else (and English readers where not) the main
 * ones, which fall back to the English ones when empty.
 */
export function inLanguage(main: AnyColumn, english: AnyColumn, locale: Locale): SQL<string> {
  return locale === 'en'
    ? sql<string>`coalesce(nullif(${english}, ''), ${main})`
    : sql<string>`coalesce(nullif(${main}, ''), ${english})`;
}

/** Only what a card shows: the list never reads descriptions or search vectors. */
const cardColumns = (locale: Locale) => ({
  uid: module.uid, name: inLanguage(module.name, module.nameEn, locale), summary: inLanguage(module.summary, module.summaryEn, locale),
  cover: module.cover, price: module.price, scorePrice: module.scorePrice,
  rating: module.rating, ratingCount: module.ratingCount, downloads: module.downloads, siteModule: module.siteModule,
});

const isFree = sql`(${module.price} = 0 and ${module.scorePrice} = 0)`;

/** Published modules per category, and how many of them are free (one grouped scan). */
export async function categoryCounts(db: Db): Promise<CategoryCount[]> {
  const rows = await db.select({ category: module.category, free: sql<boolean>`${isFree}`, n: sql<number>`count(*)::int` })
    .from(module).where(eq(module.status, 'published')).groupBy(module.category, isFree);
  return MODULE_CATEGORIES.map((category) => {
    const mine = rows.filter((r) => r.category === category);
    return {
      category,
      total: mine.reduce((sum, r) => sum + Number(r.n), 0),
      free: mine.reduce((sum, r) => sum + (r.free ? Number(r.n) : 0), 0),
    };
  });
}

/** The tags most published modules carry, most used first. */
export async function popularTags(db: Db, limit = POPULAR_TAGS): Promise<{ tag: string; count: number }[]> {
  const tags = db.select({ tag: sql<string>`unnest(${module.tags})`.as('tag') }).from(module).where(eq(module.status, 'published')).as('t');
  const rows = await db.select({ tag: tags.tag, count: sql<number>`count(*)::int` }).from(tags)
    .groupBy(tags.tag).orderBy(desc(sql`count(*)`), asc(tags.tag)).limit(limit);
  return rows.map((r) => ({ tag: r.tag, count: Number(r.count) }));
}

/**
 * Category counts and popular tags, shared by every list page until a module changes (the
 * `modules` tag: purchases, reviews, installs, publishing). The list's total comes from here when
 * it is filtered by category and price only, so such a page costs one query.
 */
export function marketFacets(runtime: Pick<Runtime, 'db' | 'memo'>): Promise<MarketFacets> {
  return runtime.memo.get('modules:facets', [marketArea], async () => {
    const [categories, tags] = await Promise.all([categoryCounts(runtime.db), popularTags(runtime.db)]);
    return {
      categories,
      total: categories.reduce((sum, c) => sum + c.total, 0),
      free: categories.reduce((sum, c) => sum + c.free, 0),
      tags,
    };
  });
}

/**
 * The total of an unsearched list when the facets know it: a category and price filter, or one of
 * the popular tags alone. Null when it has to be counted.
 */
function totalFromFacets(facets: MarketFacets, query: MarketQuery): number | null {
  if (query.tag) return query.category || query.price ? null : facets.tags.find((t) => t.tag === query.tag)?.count ?? null;
  const scope = query.category ? facets.categories.find((c) => c.category === query.category) : facets;
  if (!scope) return 0;
  return query.price === 'free' ? scope.free : query.price === 'paid' ? scope.total - scope.free : scope.total;
}

// Every order ends in the id, so a module never shows on two pages (or on none). Served without a
// sort when the status index of the key ends in the same columns (module_*_idx in the schema).
function orderOf(sort: MarketQuery['sort'], rank: SQL | null): SQL[] {
  switch (sort) {
    case 'relevance':
      return rank ? [desc(rank), desc(module.downloads), desc(module.id)] : [desc(module.publishTime), desc(module.id)];
    case 'popular':
      return [desc(module.downloads), desc(module.id)];
    case 'rating':
      return [desc(module.rating), desc(module.ratingCount), desc(module.id)];
    case 'price':
      return [asc(module.price), asc(module.scorePrice), asc(module.id)];
    default:
      return [desc(module.publishTime), desc(module.id)];
  }
}

/**
 * One page of published modules. A search matches the name, tags, summary and description (Chinese
 * and English, as the forum does) and ranks by the name-and-tags vector; every filter and sort
 * follows an index of the module table. Pass the facets to have the total of an unsearched list
 * filtered by category and price, or by a popular tag, read from them rather than counted.
 */
export async function listModules(db: Db, query: MarketQuery, facets?: MarketFacets, limit = MARKET_PAGE_SIZE, locale: Locale = 'zh-cn'): Promise<ModulePage> {
  const page = { page: query.page, limit };
  const parsed = query.q ? searchQuery(query.q) : null;
  if (query.q && !parsed) return { list: [], total: 0, ...page };

  const where: SQL[] = [eq(module.status, 'published')];
  if (query.category) where.push(eq(module.category, query.category));
  if (query.tag) where.push(arrayContains(module.tags, [query.tag]));
  if (query.price === 'free') where.push(and(eq(module.price, 0), eq(module.scorePrice, 0))!);
  // Prices are never negative: "paid" is a range of the price index, (price, score_price) > (0, 0).
  if (query.price === 'paid') where.push(sql`(${module.price}, ${module.scorePrice}) > (0, 0)`);
  const tsquery = parsed ? sql`${parsed.query}::tsquery` : null;
  if (tsquery) where.push(sql`${module.searchVector} @@ ${tsquery}`);
  const rank = tsquery ? sql`ts_rank(${module.titleVector}, ${tsquery})` : null;

  const filter = and(...where);
  const known = !tsquery && facets ? totalFromFacets(facets, query) : null;
  const total: Promise<number> = known !== null ? Promise.resolve(known)
    // Counting every match of a common word costs more than the page itself: stop at SEARCH_CAP.
    : tsquery ? db.select({ n: sql<number>`count(*)::int` }).from(db.select({ one: sql`1` }).from(module).where(filter).limit(SEARCH_CAP).as('hits')).then((r) => Number(r[0]?.n ?? 0))
      : db.select({ n: sql<number>`count(*)::int` }).from(module).where(filter).then((r) => Number(r[0]?.n ?? 0));
  const rows = db.select(cardColumns(locale)).from(module).where(filter).orderBy(...orderOf(query.sort, rank))
    .limit(limit).offset((query.page - 1) * limit);
  const [list, count] = await Promise.all([rows, total]);
  return {
    ...page,
    total: count,
    list: list.map((r) => ({
      ...r,
      siteModule: r.siteModule === 1,
      ...(parsed ? { nameHtml: highlight(r.name, parsed.terms), summaryHtml: highlight(r.summary, parsed.terms) } : {}),
    })),
  };
}

export interface ModuleDetail {
  id: number;
  uid: string;
  name: string;
  summary: string;
  /** Sanitised when the module was saved: safe for set:html. */
  descriptionHtml: string;
  cover: string;
  screenshots: string[];
  category: string;
  tags: string[];
  price: number;
  scorePrice: number;
  siteModule: boolean;
  status: string;
  reviewReason: string;
  latestVersion: string;
  downloads: number;
  purchases: number;
  rating: number;
  ratingCount: number;
  publishTime: number;
  updateTime: number;
  developer: { id: number; name: string; avatar: string };
}

/** Who is looking at a module page: the developer and market reviewers may preview unpublished ones. */
export interface MarketViewer {
  id: number;
  /** Holds the rule `market/approve`. */
  approver: boolean;
}

/**
 * A module by uid: published ones for everybody; a draft, one in review or a delisted one only for
 * its developer and market reviewers (`preview` true, the page says so). Null otherwise.
 */
export async function moduleByUid(db: Db, uid: string, viewer: MarketViewer | null, locale: Locale = 'zh-cn'): Promise<{ module: ModuleDetail; preview: boolean } | null> {
  const [row] = await db.select({
    id: module.id, uid: module.uid, name: inLanguage(module.name, module.nameEn, locale), summary: inLanguage(module.summary, module.summaryEn, locale),
    descriptionHtml: inLanguage(module.descriptionHtml, module.descriptionEnHtml, locale), cover: module.cover,
    screenshots: module.screenshots, category: module.category, tags: module.tags, price: module.price, scorePrice: module.scorePrice,
    siteModule: module.siteModule, status: module.status, reviewReason: module.reviewReason, latestVersion: module.latestVersion,
    downloads: module.downloads, purchases: module.purchases, rating: module.rating, ratingCount: module.ratingCount,
    publishTime: module.publishTime, updateTime: module.updateTime, developerId: module.developerId,
    developerName: displayNameSql, developerAvatar: user.avatar,
  }).from(module).leftJoin(user, eq(user.id, module.developerId)).where(eq(module.uid, uid)).limit(1);
  if (!row) return null;
  const preview = row.status !== 'published';
  if (preview && !(viewer && (viewer.approver || viewer.id === row.developerId))) return null;
  const { developerId, developerName, developerAvatar, siteModule, screenshots, ...rest } = row;
  return {
    preview,
    module: {
      ...rest,
      siteModule: siteModule === 1,
      screenshots: Array.isArray(screenshots) ? screenshots.filter((s): s is string => typeof s === 'string' && s !== '') : [],
      developer: { id: developerId, name: developerName ?? '', avatar: developerAvatar ?? '' },
    },
  };
}

export interface VersionItem {
  id: number;
  version: string;
  /** The changelog rendered with the site's markdown pipeline (sanitised). */
  changelogHtml: string;
  minAtrium: string;
  packageSize: number;
  hasPackage: boolean;
  publishTime: number;
  /** What its package's manifest asks for (capability ids; none without a manifest). */
  capabilities: string[];
}

/** A module's published versions, highest version first, changelogs rendered. */
export async function versionsOf(db: Db, moduleId: number, locale: Locale = 'zh-cn'): Promise<VersionItem[]> {
  const rows = await db.select({
    id: moduleVersion.id, version: moduleVersion.version, changelog: inLanguage(moduleVersion.changelog, moduleVersion.changelogEn, locale), minAtrium: moduleVersion.minAtrium,
    packageSize: moduleVersion.packageSize, packagePath: moduleVersion.packagePath, publishTime: moduleVersion.publishTime, manifest: moduleVersion.manifest,
  }).from(moduleVersion).where(and(eq(moduleVersion.moduleId, moduleId), eq(moduleVersion.status, 'published')));
  rows.sort((a, b) => compareVersions(b.version, a.version) || b.publishTime - a.publishTime);
  // Rendered on read: a module has a handful of versions, and anonymous pages are cached whole.
  const html = await Promise.all(rows.map((r) => (r.changelog.trim() ? renderBody(r.changelog).then((x) => x.html) : Promise.resolve(''))));
  return rows.map(({ changelog: _c, packagePath, manifest, ...r }, i) => ({
    ...r, changelogHtml: html[i]!, hasPackage: packagePath !== '', capabilities: (manifest as { capabilities?: string[] } | null)?.capabilities ?? [],
  }));
}


