// A member's public card: what they posted, the answers that were accepted and the modules they
// publish, like a Q&A site's profile. Only published, public things.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { askPost, askReply, module } from '../db/schema';
import { listPosts, type PostSummary } from '../ask/posts';
import { plainText } from '../search/text';
import { inLanguage } from '../market/catalog';
import type { Locale } from '../../i18n/types';

/** Entries per list on the card. */
export const CARD_LIST = 10;

export interface CardAnswer { id: number; postId: number; title: string; excerpt: string; score: number; createTime: number }
export interface CardModule { uid: string; name: string; summary: string; price: number; scorePrice: number; downloads: number; rating: number; ratingCount: number }

export interface MemberActivity {
  counts: { posts: number; replies: number; accepted: number; modules: number };
  posts: PostSummary[];
  accepted: CardAnswer[];
  modules: CardModule[];
}

const repliesWhere = (userId: number) => and(eq(askReply.userId, userId), eq(askReply.status, 'published'), eq(askPost.status, 'published'));
const acceptedWhere = (userId: number) => and(
  eq(askReply.userId, userId), eq(askReply.status, 'published'), eq(askPost.status, 'published'), eq(askPost.acceptedReplyId, askReply.id),
);

export async function memberActivity(db: Db, userId: number, locale: Locale, limit = CARD_LIST): Promise<MemberActivity> {
  const publishedModule = and(eq(module.developerId, userId), eq(module.status, 'published'));
  const [posts, accepted, modules, [counts]] = await Promise.all([
    listPosts(db, { tab: 'latest', user: userId, page: 1, limit }),
    db.select({
      id: askReply.id, postId: askPost.id, title: askPost.title, excerpt: sql<string>`left(${askReply.body}, 800)`,
      score: sql<number>`${askReply.upCount} - ${askReply.downCount}`, createTime: askReply.createTime,
    }).from(askReply).innerJoin(askPost, eq(askPost.id, askReply.postId)).where(acceptedWhere(userId)).orderBy(desc(askReply.id)).limit(limit),
    db.select({
      uid: module.uid, name: inLanguage(module.name, module.nameEn, locale), summary: inLanguage(module.summary, module.summaryEn, locale), price: module.price, scorePrice: module.scorePrice,
      downloads: module.downloads, rating: module.rating, ratingCount: module.ratingCount,
    }).from(module).where(publishedModule).orderBy(desc(module.publishTime), desc(module.id)).limit(limit),
    db.select({
      replies: sql<number>`(select count(*)::int from ${askReply} inner join ${askPost} on ${eq(askPost.id, askReply.postId)} where ${repliesWhere(userId)})`,
      accepted: sql<number>`(select count(*)::int from ${askReply} inner join ${askPost} on ${eq(askPost.id, askReply.postId)} where ${acceptedWhere(userId)})`,
      modules: sql<number>`(select count(*)::int from ${module} where ${publishedModule})`,
    }).from(sql`(select 1) as one`),
  ]);
  return {
    counts: { posts: posts.total, replies: Number(counts?.replies ?? 0), accepted: Number(counts?.accepted ?? 0), modules: Number(counts?.modules ?? 0) },
    posts: posts.list,
    accepted: accepted.map((a) => ({ ...a, excerpt: plainExcerpt(a.excerpt) })),
    modules,
  };
}

/** The first words of a reply, without its markdown, for a one-line preview. */
function plainExcerpt(markdown: string): string {
  const text = plainText(markdown);
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}
