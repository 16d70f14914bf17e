import { and, desc, eq, getTableColumns, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { askCategory, askPost, askPostTag, askTag, config, user } from '../db/schema';
import { AppError } from '../http';
import { adjustScore } from '../account/ledger';
import { displayNameSql as displayName } from '../account/users';
import { notify, type Notice } from '../messages/notify';
import { searchVector } from '../search/text';
import type { Locale } from '../../i18n';
import type { ListInput, PostInput } from '../../shared/validation/ask';
import { mentionedMembers, mentionsIn, renderBody } from './render';
import { currentRenderSet } from '../modules/markdown';
import { recordModuleEvent } from '../modules/events';
import { inTransaction, touched } from '../write-scope';
import { askArea } from './cache-tags';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
const now = (): number => Math.floor(Date.now() / 1000);

export interface Author { id: number; nickname: string; avatar: string }
export interface PostSummary {
  id: number; title: string; excerpt: string; categoryId: number; author: Author; tags: { id: number; name: string }[];
  replyCount: number; score: number; views: number; collectCount: number; pinned: boolean; featured: boolean; solved: boolean;
  status: string; lastActivityTime: number; createTime: number;
}


export function vectorOf(title: string, text: string, tags: readonly string[]): string {
  return searchVector([{ text: title, weight: 'A' }, { text: tags.join(' '), weight: 'B' }, { text, weight: 'C' }]);
}

export function titleVectorOf(title: string, tags: readonly string[]): string {
  return searchVector([{ text: title, weight: 'A' }, { text: tags.join(' '), weight: 'B' }]);
}

/** Recomputes the "hot" score: log10 of the activity plus age, so newer activity wins ties. */
export async function refreshHot(tx: Db | Tx, postId: number): Promise<void> {
  await tx.execute(sql`update ask_post set hot = sign(s) * log(greatest(abs(s), 1)) + create_time / 45000.0
    from (select up_count - down_count + reply_count + collect_count as s from ask_post where id = ${postId}) x where id = ${postId}`);
}

/** Tag names → ids, creating the ones that do not exist yet. */
async function tagIds(tx: Tx, names: readonly string[]): Promise<number[]> {
  const unique = [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  if (!unique.length) return [];
  await tx.insert(askTag).values(unique.map((name) => ({ name, createTime: now() }))).onConflictDoNothing();
  const rows = await tx.select({ id: askTag.id }).from(askTag).where(inArray(sql`lower(${askTag.name})`, unique.map((n) => n.toLowerCase())));
  return rows.map((r) => r.id);
}

async function categoryOf(tx: Db | Tx, id: number) {
  const [row] = await tx.select().from(askCategory).where(eq(askCategory.id, id));
  if (!row) throw new AppError('ask.categoryMissing', { fieldKeys: { category_id: 'ask.categoryMissing' } });
  return row;
}

/** A whole-number points setting from the site configuration (0 switches the reward off). */
export async function scoreSetting(db: Db | Tx, name: string, fallback: number): Promise<number> {
  const [row] = await db.select({ value: config.value }).from(config).where(eq(config.name, name));
  const value = Number(row?.value ?? fallback);
  return Number.isFinite(value) ? Math.max(0, Math.floor(value)) : fallback;
}

/** The notices for the members named with `@` who exist (`notify()` skips the author). */
export async function mentionNotices(tx: Db | Tx, body: string, senderId: number, title: string, link: string): Promise<Notice[]> {
  const names = mentionsIn(body);
  if (!names.length) return [];
  const rows = await tx.select({ id: user.id }).from(user).where(inArray(sql`lower(${user.username})`, names));
  return rows.map((r) => ({ type: 'ask_mention' as const, senderId, recipientId: r.id, title, link }));
}

/** Tells the members named with `@` (who exist and are not the author). */
export async function notifyMentions(tx: Db | Tx, body: string, senderId: number, title: string, link: string): Promise<void> {
  await notify(tx, await mentionNotices(tx, body, senderId, title, link));
}

/**
 * Publishes a post. The form's nonce makes a double submit return the post the first one created;
 * the category and tag counters and the points reward change in the same transaction.
 */
export async function createPost(db: Db, authorId: number, input: z.output<typeof PostInput>): Promise<{ id: number; created: boolean }> {
  const rendered = await renderBody(input.content, await mentionedMembers(db, input.content));
  return inTransaction(db, async (tx) => {
    touched(askArea);
    const category = await categoryOf(tx, input.category_id);
    const t = now();
    const [row] = await tx.insert(askPost).values({
      categoryId: category.id, userId: authorId, title: input.title, body: input.content, html: rendered.html, renderSet: rendered.renderSet, excerpt: rendered.excerpt,
      lastActivityTime: t, nonce: input.nonce ?? null, searchVector: vectorOf(input.title, rendered.text, input.tags), titleVector: titleVectorOf(input.title, input.tags), createTime: t, updateTime: t,
    }).onConflictDoNothing().returning({ id: askPost.id });
    if (!row) {
      const [existing] = await tx.select({ id: askPost.id }).from(askPost).where(and(eq(askPost.userId, authorId), eq(askPost.nonce, input.nonce ?? '')));
      if (!existing) throw new AppError('api.invalidInput');
      return { id: existing.id, created: false };
    }
    const ids = await tagIds(tx, input.tags);
    if (ids.length) {
      await tx.insert(askPostTag).values(ids.map((tagId) => ({ postId: row.id, tagId })));
      await tx.update(askTag).set({ postCount: sql`${askTag.postCount} + 1` }).where(inArray(askTag.id, ids));
    }
    await tx.update(askCategory).set({ postCount: sql`${askCategory.postCount} + 1` }).where(eq(askCategory.id, category.id));
    await refreshHot(tx, row.id);
    const reward = await scoreSetting(tx, 'ask_post_score', 2);
    if (reward > 0) await adjustScore(tx, authorId, reward, `Post #${row.id} published`, { key: 'user.ledger.memo.post', params: { id: row.id } });
    await notifyMentions(tx, input.content, authorId, input.title, `/ask/info/${row.id}`);
    await recordModuleEvent(tx, 'post.created', { id: row.id, title: input.title, url: `/ask/info/${row.id}`, authorId, categoryId: category.id });
    return { id: row.id, created: true };
  });
}

/** Edits a post: the author, or a moderator. The rendered HTML and search vector follow the new version. */
export async function updatePost(db: Db, editor: { id: number; moderator: boolean }, input: z.output<typeof PostInput> & { id: number }): Promise<void> {
  const rendered = await renderBody(input.content, await mentionedMembers(db, input.content));
  await inTransaction(db, async (tx) => {
    touched(askArea);
    const [post] = await tx.select().from(askPost).where(eq(askPost.id, input.id)).for('update');
    if (!post || post.status === 'deleted') throw new AppError('ask.notFound', { status: 404 });
    if (post.userId !== editor.id && !editor.moderator) throw new AppError('api.noPermission', { code: 401 });
    const category = await categoryOf(tx, input.category_id);
    const published = post.status === 'published';
    const oldTags = (await tx.select({ tagId: askPostTag.tagId }).from(askPostTag).where(eq(askPostTag.postId, post.id))).map((r) => r.tagId);
    const newTags = await tagIds(tx, input.tags);
    const removed = oldTags.filter((id) => !newTags.includes(id));
    const added = newTags.filter((id) => !oldTags.includes(id));
    if (removed.length) {
      await tx.delete(askPostTag).where(and(eq(askPostTag.postId, post.id), inArray(askPostTag.tagId, removed)));
      if (published) await tx.update(askTag).set({ postCount: sql`${askTag.postCount} - 1` }).where(inArray(askTag.id, removed));
    }
    if (added.length) {
      await tx.insert(askPostTag).values(added.map((tagId) => ({ postId: post.id, tagId })));
      if (published) await tx.update(askTag).set({ postCount: sql`${askTag.postCount} + 1` }).where(inArray(askTag.id, added));
    }
    if (published && category.id !== post.categoryId) {
      await tx.update(askCategory).set({ postCount: sql`${askCategory.postCount} - 1` }).where(eq(askCategory.id, post.categoryId));
      await tx.update(askCategory).set({ postCount: sql`${askCategory.postCount} + 1` }).where(eq(askCategory.id, category.id));
    }
    await tx.update(askPost).set({
      title: input.title, body: input.content, html: rendered.html, renderSet: rendered.renderSet, excerpt: rendered.excerpt, categoryId: category.id,
      version: post.version + 1, searchVector: vectorOf(input.title, rendered.text, input.tags), titleVector: titleVectorOf(input.title, input.tags), updateTime: now(),
    }).where(eq(askPost.id, post.id));
  });
}

export type PostRow = typeof askPost.$inferSelect;

export interface PostDetail {
  post: Omit<PostRow, 'searchVector' | 'titleVector' | 'nonce'>;
  author: Author & { username: string; motto: string };
  category: { id: number; slug: string; type: string; title: string };
  tags: { id: number; name: string }[];
}

// Everything but the search vectors (often larger than the body) and the form nonce.
const { searchVector: _v, titleVector: _tv, nonce: _n, ...detailColumns } = getTableColumns(askPost);

/** A post with its author, category and tags; null when missing (deleted counts as missing for non-moderators). */
export async function getPost(db: Db, id: number, locale: Locale, viewer: { id: number; moderator: boolean } | null): Promise<PostDetail | null> {
  const [row] = await db.select({
    post: detailColumns, username: user.username, nickname: displayName, avatar: user.avatar, motto: user.motto,
    categorySlug: askCategory.slug, categoryType: askCategory.type, categoryTitle: askCategory.title, tagIds: tagIdsColumn,
  }).from(askPost).innerJoin(user, eq(user.id, askPost.userId)).innerJoin(askCategory, eq(askCategory.id, askPost.categoryId))
    .where(eq(askPost.id, id));
  if (!row) return null;
  const { post } = row;
  if (post.status !== 'published' && !viewer?.moderator && !(post.status === 'hidden' && viewer?.id === post.userId)) return null;
  if (post.renderSet !== currentRenderSet()) Object.assign(post, await freshRender(db, post));
  return {
    post,
    author: { id: post.userId, username: row.username, nickname: row.nickname, avatar: row.avatar, motto: row.motto },
    category: { id: post.categoryId, slug: row.categorySlug, type: row.categoryType, title: row.categoryTitle[locale] },
    tags: (await tagsFromIds(db, [{ id: post.id, tagIds: row.tagIds }])).get(post.id) ?? [],
  };
}

/**
 * A post rendered with another set of markdown modules than the site's, rendered now (met on read
 * before the background walk reached it) and stored unless the post changed meanwhile.
 */
async function freshRender(db: Db, post: { id: number; body: string; version: number }): Promise<{ html: string; renderSet: string }> {
  const out = await renderBody(post.body, await mentionedMembers(db, post.body));
  await db.update(askPost).set({ html: out.html, renderSet: out.renderSet }).where(and(eq(askPost.id, post.id), eq(askPost.version, post.version)));
  return { html: out.html, renderSet: out.renderSet };
}

export async function recordView(db: Db, id: number): Promise<void> {
  await db.update(askPost).set({ views: sql`${askPost.views} + 1` }).where(eq(askPost.id, id));
}

/** Tags of many posts at once, by post id. */
export async function tagsOf(db: Db, postIds: readonly number[]): Promise<Map<number, { id: number; name: string }[]>> {
  const out = new Map<number, { id: number; name: string }[]>();
  if (!postIds.length) return out;
  const rows = await db.select({ postId: askPostTag.postId, id: askTag.id, name: askTag.name }).from(askPostTag)
    .innerJoin(askTag, eq(askTag.id, askPostTag.tagId)).where(inArray(askPostTag.postId, [...postIds]));
  for (const r of rows) {
    const list = out.get(r.postId) ?? [];
    list.push({ id: r.id, name: r.name });
    out.set(r.postId, list);
  }
  for (const list of out.values()) list.sort(byName);
  return out;
}

export const summaryColumns = {
  id: askPost.id, title: askPost.title, excerpt: askPost.excerpt, categoryId: askPost.categoryId, userId: askPost.userId,
  nickname: displayName, avatar: user.avatar, replyCount: askPost.replyCount, up: askPost.upCount, down: askPost.downCount,
  views: askPost.views, collectCount: askPost.collectCount, pinned: askPost.pinned, featured: askPost.featured,
  accepted: askPost.acceptedReplyId, status: askPost.status, lastActivityTime: askPost.lastActivityTime, createTime: askPost.createTime,
};
/**
 * The post's tag ids read with the row (`"3,17"`), names from `tagNames`: a forum page is one query
 * instead of two (on PGlite every query is a round trip to its thread, and joining the names in
 * SQL cost as much as the list itself). Select it only for rows already cut to a page: with an
 * OFFSET, PostgreSQL computes it for every skipped row too.
 */
export const tagIdsColumn = sql<string | null>`(select string_agg(${askPostTag.tagId}::text, ',') from ${askPostTag} where ${askPostTag.postId} = ${askPost.id})`;

// A tag's name never changes once the tag exists (posts only add tags and move counters), so each
// process keeps the names it has read: nothing to invalidate on this or any other instance.
const TAG_NAMES_MAX = 100_000;
const tagNameCache = new WeakMap<object, Map<number, string>>();

/** Names of tags by id, read from the database only for ids this process has not seen. */
export async function tagNames(db: Db | Tx, ids: Iterable<number>): Promise<Map<number, string>> {
  let known = tagNameCache.get(db);
  if (!known || known.size > TAG_NAMES_MAX) tagNameCache.set(db, (known = new Map()));
  const missing = [...new Set(ids)].filter((id) => !known.has(id));
  if (missing.length) {
    const rows = await db.select({ id: askTag.id, name: askTag.name }).from(askTag).where(inArray(askTag.id, missing));
    for (const r of rows) known.set(r.id, r.name);
  }
  return known;
}

const idsOf = (text: string | null | undefined): number[] => (text ? text.split(',').map(Number) : []);
const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The tags of rows read with `tagIdsColumn`, by name. */
async function tagsFromIds(db: Db | Tx, rows: readonly { id: number; tagIds?: string | null }[]): Promise<Map<number, { id: number; name: string }[]>> {
  const names = await tagNames(db, rows.flatMap((r) => idsOf(r.tagIds)));
  return new Map(rows.map((r) => [r.id, idsOf(r.tagIds).filter((id) => names.has(id)).map((id) => ({ id, name: names.get(id)! })).sort(byName)]));
}

interface SummaryRow {
  id: number; title: string; excerpt: string; categoryId: number; userId: number; nickname: string; avatar: string; replyCount: number;
  up: number; down: number; views: number; collectCount: number; pinned: number; featured: number; accepted: number | null; status: string;
  lastActivityTime: number; createTime: number; tagIds?: string | null;
}

/** Rows read with `tagIdsColumn` carry their tags; others get them in one query for the lot. */
export async function toSummaries(db: Db, rows: readonly SummaryRow[]): Promise<PostSummary[]> {
  const tags = rows.every((r) => r.tagIds !== undefined) ? await tagsFromIds(db, rows) : await tagsOf(db, rows.map((r) => r.id));
  return rows.map((r) => ({
    id: r.id, title: r.title, excerpt: r.excerpt, categoryId: r.categoryId, author: { id: r.userId, nickname: r.nickname, avatar: r.avatar },
    tags: tags.get(r.id) ?? [], replyCount: r.replyCount, score: r.up - r.down, views: r.views, collectCount: r.collectCount,
    pinned: r.pinned === 1, featured: r.featured === 1, solved: r.accepted !== null, status: r.status, lastActivityTime: r.lastActivityTime, createTime: r.createTime,
  }));
}

/**
 * One page of a forum list (tabs, category, tag or member), newest activity first unless "hot".
 * `categories`, when the caller already holds the categories' counters (the sidebar's memo, kept
 * exact by the writes and dropped with every forum change), gives the total of a plain list
 * without a query.
 */
export async function listPosts(db: Db, input: z.output<typeof ListInput>, categories?: readonly { id: number; postCount: number }[]): Promise<{ list: PostSummary[]; total: number }> {
  const where: SQL[] = [eq(askPost.status, 'published')];
  let total: Promise<number>;
  const countWhere = (extra: SQL[]) => db.select({ n: sql<number>`count(*)::int` }).from(askPost).where(and(...where, ...extra)).then((r) => r[0]?.n ?? 0);
  if (input.category) where.push(eq(askPost.categoryId, input.category));
  if (input.user) where.push(eq(askPost.userId, input.user));
  if (input.tag) where.push(inArray(askPost.id, db.select({ id: askPostTag.postId }).from(askPostTag).where(eq(askPostTag.tagId, input.tag))));
  if (input.tab === 'featured') where.push(eq(askPost.featured, 1));
  if (input.tab === 'unsolved') {
    where.push(isNull(askPost.acceptedReplyId));
    where.push(inArray(askPost.categoryId, db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.type, 'question'))));
  }
  const plain = input.tab === 'latest' || input.tab === 'hot';
  if (plain && input.tag && !input.category && !input.user) {
    total = db.select({ n: askTag.postCount }).from(askTag).where(eq(askTag.id, input.tag)).then((r) => r[0]?.n ?? 0);
  } else if (plain && !input.tag && !input.user && categories) {
    total = Promise.resolve(categories.filter((c) => !input.category || c.id === input.category).reduce((sum, c) => sum + c.postCount, 0));
  } else if (plain && !input.tag && !input.user) {
    // Exact counters kept by the writes: no count(*) over the whole forum on every page view.
    total = db.select({ n: sql<number>`coalesce(sum(${askCategory.postCount}), 0)::int` }).from(askCategory)
      .where(input.category ? eq(askCategory.id, input.category) : undefined).then((r) => r[0]?.n ?? 0);
  } else {
    total = countWhere([]);
  }
  const order = input.tab === 'hot' ? [desc(askPost.hot), desc(askPost.id)]
    : input.tab === 'latest' && !input.category && !input.tag && !input.user ? [desc(askPost.pinned), desc(askPost.lastActivityTime), desc(askPost.id)]
      : [desc(askPost.lastActivityTime), desc(askPost.id)];
  // The page's ids first (an index walk that skips the earlier pages' rows cheaply), then their
  // rows, authors and tags: the tags' subquery runs for the page alone, not for every skipped row.
  const page = db.select({ id: askPost.id }).from(askPost).where(and(...where)).orderBy(...order)
    .limit(input.limit).offset((input.page - 1) * input.limit).as('page');
  const rows = await db.select({ ...summaryColumns, tagIds: tagIdsColumn }).from(page)
    .innerJoin(askPost, eq(askPost.id, page.id)).innerJoin(user, eq(user.id, askPost.userId)).orderBy(...order);
  return { list: await toSummaries(db, rows), total: await total };
}
