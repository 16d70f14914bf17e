import { asc, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askCategory, askPost, askTag, user, type LocalizedText } from '../db/schema';
import type { Locale } from '../../i18n';
import type { Runtime } from '../runtime';
import { displayNameSql } from '../db/rows';
import { registerSeed } from '../seeds';
import { askArea } from './cache-tags';

type CategorySeed = { slug: string; type: 'question' | 'discussion' | 'share' | 'announcement'; title: LocalizedText; description: LocalizedText };

/** The post types a new forum starts with. */
export const DEFAULT_CATEGORIES: CategorySeed[] = [
  { slug: 'question', type: 'question', title: { 'zh-cn': '问答', en: 'Q&A' }, description: { 'zh-cn': '提出问题，采纳最好的回答', en: 'Ask a question and accept the best answer' } },
  { slug: 'discussion', type: 'discussion', title: { 'zh-cn': '讨论', en: 'Discussion' }, description: { 'zh-cn': '想法、建议和经验交流', en: 'Ideas, suggestions and experience' } },
  { slug: 'share', type: 'share', title: { 'zh-cn': '分享', en: 'Share' }, description: { 'zh-cn': '教程、技巧和作品', en: 'Tutorials, tips and showcases' } },
  { slug: 'announcement', type: 'announcement', title: { 'zh-cn': '公告', en: 'Announcements' }, description: { 'zh-cn': '站点新闻与版本发布', en: 'Site news and releases' } },
];

export async function seedCategories(db: Db): Promise<string | null> {
  const [{ n } = { n: 0 }] = await db.select({ n: sql<number>`count(*)::int` }).from(askCategory);
  if (n > 0) return null;
  const t = Math.floor(Date.now() / 1000);
  await db.insert(askCategory).values(DEFAULT_CATEGORIES.map((c, i) => ({ ...c, weigh: 100 - i, createTime: t })));
  return `ask_category: added ${DEFAULT_CATEGORIES.map((c) => c.slug).join(', ')}`;
}

export interface CategoryView { id: number; slug: string; type: string; title: string; description: string; postCount: number }

export async function listCategories(db: Db, locale: Locale): Promise<CategoryView[]> {
  const rows = await db.select().from(askCategory).orderBy(desc(askCategory.weigh), asc(askCategory.id));
  return rows.map((r) => ({ id: r.id, slug: r.slug, type: r.type, title: r.title[locale], description: r.description[locale], postCount: r.postCount }));
}

export async function popularTags(db: Db, limit = 20): Promise<{ id: number; name: string; postCount: number }[]> {
  return db.select({ id: askTag.id, name: askTag.name, postCount: askTag.postCount }).from(askTag)
    .where(gt(askTag.postCount, 0)).orderBy(desc(askTag.postCount), asc(askTag.id)).limit(limit);
}

export async function findTag(db: Db, id: number): Promise<{ id: number; name: string; postCount: number } | null> {
  const [row] = await db.select({ id: askTag.id, name: askTag.name, postCount: askTag.postCount }).from(askTag).where(eq(askTag.id, id));
  return row ?? null;
}

/** Members who posted most in the last 30 days. */
export async function activeMembers(db: Db, limit = 8): Promise<{ id: number; nickname: string; avatar: string; posts: number }[]> {
  const since = Math.floor(Date.now() / 1000) - 30 * 86400;
  return db.select({ id: user.id, nickname: displayNameSql, avatar: user.avatar, posts: sql<number>`count(*)::int` })
    .from(askPost).innerJoin(user, eq(user.id, askPost.userId))
    .where(sql`${askPost.status} = 'published' and ${askPost.createTime} > ${since}`)
    .groupBy(user.id).orderBy(desc(sql`count(*)`), asc(user.id)).limit(limit);
}

/** The sidebar's data, shared by every forum page until a forum change drops it. */
export function forumSidebar(runtime: Runtime, locale: Locale): Promise<{ categories: CategoryView[]; tags: Awaited<ReturnType<typeof popularTags>>; members: Awaited<ReturnType<typeof activeMembers>> }> {
  return runtime.memo.get(`ask:sidebar:${locale}`, [askArea], async () => {
    const [categories, tags, members] = await Promise.all([listCategories(runtime.db, locale), popularTags(runtime.db, 20), activeMembers(runtime.db, 8)]);
    return { categories, tags, members };
  });
}

registerSeed({ name: 'ask/categories', order: 10, run: (db) => seedCategories(db) });
