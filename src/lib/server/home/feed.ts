// The home page's front: what moved lately in the forum, the docs and the market, read in one go.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Locale } from '../../i18n';
import type { Runtime } from '../runtime';
import { mdBook, mdPage, user } from '../db/schema';
import { listPosts, type PostSummary } from '../ask/posts';
import { listModules, marketFacets, type ModuleCard } from '../market/catalog';
import { askArea } from '../ask/cache-tags';
import { mdArea } from '../md/cache-tags';
import { marketArea } from '../market/cache-tags';

/** How many entries each list of the home page shows. */
export const HOME_POSTS = 6;
export const HOME_DOCS = 6;
export const HOME_MODULES = 4;

export interface HomeDoc {
  book: string;
  bookTitle: string;
  page: string;
  title: string;
  author: string;
  updateTime: number;
}

export interface HomeFeed {
  latest: PostSummary[];
  unsolved: PostSummary[];
  docs: HomeDoc[];
  newModules: ModuleCard[];
  popularModules: ModuleCard[];
}

/**
 * Pages of public books, most recently updated first; pages of books written in the reader's
 * language come first, so an English reader is not greeted with the Chinese guide.
 */
export async function recentDocs(runtime: Pick<Runtime, 'db'>, locale: Locale, limit = HOME_DOCS): Promise<HomeDoc[]> {
  return runtime.db.select({
    book: mdBook.name, bookTitle: locale === 'en' ? sql<string>`coalesce(nullif(${mdBook.titleEn}, ''), ${mdBook.title})` : mdBook.title, page: mdPage.name, title: mdPage.title,
    author: sql<string>`coalesce(nullif(${user.nickname}, ''), ${user.username}, '')`, updateTime: mdPage.updateTime,
  }).from(mdPage).innerJoin(mdBook, eq(mdBook.id, mdPage.bookId)).leftJoin(user, eq(user.id, mdPage.updatedBy))
    .where(and(eq(mdBook.visibility, 'public'), eq(mdBook.archiveTime, 0)))
    .orderBy(desc(sql`(${mdBook.lang} = ${locale})`), desc(mdPage.updateTime), desc(mdPage.id)).limit(limit);
}

/**
 * Latest and unsolved questions, recently updated docs pages, new and popular modules. The same for
 * every reader of a language, so members' pages (never in the page cache) share one read until a
 * forum, docs or market change drops it.
 */
export function homeFeed(runtime: Pick<Runtime, 'db' | 'memo'>, locale: Locale): Promise<HomeFeed> {
  return runtime.memo.get(`home:feed:${locale}`, [askArea, mdArea, marketArea], () => readHomeFeed(runtime, locale));
}

async function readHomeFeed(runtime: Pick<Runtime, 'db' | 'memo'>, locale: Locale): Promise<HomeFeed> {
  const { db } = runtime;
  // The market's memoised facets know whether there is anything to list, and spare the counts.
  const facets = await marketFacets(runtime);
  const market = { q: '', category: '', tag: '', price: '', page: 1 } as const;
  const [latest, unsolved, docs, newModules, popularModules] = await Promise.all([
    listPosts(db, { tab: 'latest', page: 1, limit: HOME_POSTS }),
    listPosts(db, { tab: 'unsolved', page: 1, limit: HOME_POSTS }),
    recentDocs(runtime, locale),
    facets.total ? listModules(db, { ...market, sort: 'newest' }, facets, HOME_MODULES, locale) : { list: [] },
    facets.total ? listModules(db, { ...market, sort: 'popular' }, facets, HOME_MODULES, locale) : { list: [] },
  ]);
  return { latest: latest.list, unsolved: unsolved.list, docs, newModules: newModules.list, popularModules: popularModules.list };
}
