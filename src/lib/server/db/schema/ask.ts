import { sql } from 'drizzle-orm';
import { bigint, check, customType, doublePrecision, index, integer, jsonb, pgTable, primaryKey, serial, smallint, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';

/** Built in JavaScript as a literal (lib/server/search/text.ts), so no text-search parser is involved. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export type LocalizedText = { 'zh-cn': string; en: string };

/** The post types: question (can accept an answer), discussion, share, announcement. */
export const askCategory = pgTable('ask_category', {
  id: serial('id').primaryKey(),
  slug: varchar('slug', { length: 30 }).notNull().unique(),
  type: varchar('type', { length: 12 }).notNull().default('discussion'),
  title: jsonb('title').$type<LocalizedText>().notNull(),
  description: jsonb('description').$type<LocalizedText>().notNull(),
  weigh: integer('weigh').notNull().default(0),
  /** Published posts; kept exact by the same transactions that publish, hide or move posts. */
  postCount: integer('post_count').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [check('ask_category_type_chk', sql`${t.type} in ('question','discussion','share','announcement')`)]);

export const askTag = pgTable('ask_tag', {
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 30 }).notNull(),
  postCount: integer('post_count').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [uniqueIndex('ask_tag_name_uq').on(sql`lower(${t.name})`), index('ask_tag_count_idx').on(t.postCount)]);

export const askPost = pgTable('ask_post', {
  id: serial('id').primaryKey(),
  categoryId: integer('category_id').notNull(),
  userId: integer('user_id').notNull(),
  title: varchar('title', { length: 150 }).notNull(),
  body: text('body').notNull(),
  /** Rendered once per content version (at write time): readers never pay for markdown. */
  html: text('html').notNull(),
  /** The modules' markdown (uid@version, sorted) `html` was rendered with; re-rendered when the site's set differs. */
  renderSet: varchar('render_set', { length: 400 }).notNull().default(''),
  excerpt: varchar('excerpt', { length: 300 }).notNull().default(''),
  version: integer('version').notNull().default(1),
  status: varchar('status', { length: 10 }).notNull().default('published'),
  pinned: smallint('pinned').notNull().default(0),
  featured: smallint('featured').notNull().default(0),
  views: integer('views').notNull().default(0),
  replyCount: integer('reply_count').notNull().default(0),
  upCount: integer('up_count').notNull().default(0),
  downCount: integer('down_count').notNull().default(0),
  collectCount: integer('collect_count').notNull().default(0),
  acceptedReplyId: integer('accepted_reply_id'),
  /** Reddit-style score: log10 of the votes plus age, so "hot" is one indexed sort. */
  hot: doublePrecision('hot').notNull().default(0),
  lastReplyUserId: integer('last_reply_user_id'),
  lastActivityTime: bigint('last_activity_time', { mode: 'number' }).notNull(),
  /** The form's one-time key: a double-submitted form finds the post it already created. */
  nonce: varchar('nonce', { length: 40 }),
  searchVector: tsvector('search_vector').notNull(),
  /** Title and tags only: ranking a match by it is cheap, and ranks title hits above body hits. */
  titleVector: tsvector('title_vector').notNull().default(sql`''::tsvector`),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('ask_post_status_chk', sql`${t.status} in ('published','hidden','deleted')`),
  index('ask_post_latest_idx').on(t.status, t.pinned, t.lastActivityTime),
  index('ask_post_hot_idx').on(t.status, t.hot),
  index('ask_post_category_idx').on(t.categoryId, t.status, t.lastActivityTime),
  index('ask_post_user_idx').on(t.userId, t.id),
  index('ask_post_recent_user_idx').on(t.status, t.createTime, t.userId),
  index('ask_post_featured_idx').on(t.lastActivityTime).where(sql`${t.featured} = 1 and ${t.status} = 'published'`),
  index('ask_post_unsolved_idx').on(t.lastActivityTime).where(sql`${t.acceptedReplyId} is null and ${t.status} = 'published'`),
  uniqueIndex('ask_post_nonce_uq').on(t.userId, t.nonce),
  index('ask_post_search_idx').using('gin', t.searchVector),
  // Search lists title matches, then title-and-tags matches, before the rest (lib/server/ask/search.ts):
  // these find each tier's few thousand posts, where the whole-post index hands over every match.
  index('ask_post_title_idx').using('gin', sql`ts_filter(${t.titleVector}, '{a}')`).where(sql`${t.status} = 'published'`),
  index('ask_post_title_tags_idx').using('gin', t.titleVector).where(sql`${t.status} = 'published'`),
]);

export const askPostTag = pgTable('ask_post_tag', {
  postId: integer('post_id').notNull(),
  tagId: integer('tag_id').notNull(),
}, (t) => [primaryKey({ columns: [t.postId, t.tagId] }), index('ask_post_tag_tag_idx').on(t.tagId, t.postId)]);

/** Replies to a post (`parentId` 0) and comments on a reply (`parentId` = the reply): one level. */
export const askReply = pgTable('ask_reply', {
  id: serial('id').primaryKey(),
  postId: integer('post_id').notNull(),
  parentId: integer('parent_id').notNull().default(0),
  userId: integer('user_id').notNull(),
  body: text('body').notNull(),
  html: text('html').notNull(),
  /** The modules' markdown (uid@version, sorted) `html` was rendered with; re-rendered when the site's set differs. */
  renderSet: varchar('render_set', { length: 400 }).notNull().default(''),
  status: varchar('status', { length: 10 }).notNull().default('published'),
  upCount: integer('up_count').notNull().default(0),
  downCount: integer('down_count').notNull().default(0),
  commentCount: integer('comment_count').notNull().default(0),
  nonce: varchar('nonce', { length: 40 }),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('ask_reply_status_chk', sql`${t.status} in ('published','hidden','deleted')`),
  index('ask_reply_post_idx').on(t.postId, t.parentId, t.id),
  index('ask_reply_user_idx').on(t.userId, t.id),
  uniqueIndex('ask_reply_nonce_uq').on(t.userId, t.nonce),
]);

/** One vote per member per target; `value` is 1 or -1. */
export const askVote = pgTable('ask_vote', {
  userId: integer('user_id').notNull(),
  targetType: varchar('target_type', { length: 5 }).notNull(),
  targetId: integer('target_id').notNull(),
  value: smallint('value').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.userId, t.targetType, t.targetId] }),
  check('ask_vote_chk', sql`${t.value} in (1,-1) and ${t.targetType} in ('post','reply')`),
]);

export const askCollect = pgTable('ask_collect', {
  userId: integer('user_id').notNull(),
  postId: integer('post_id').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [primaryKey({ columns: [t.userId, t.postId] }), index('ask_collect_post_idx').on(t.postId, t.createTime)]);

export const askReport = pgTable('ask_report', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  targetType: varchar('target_type', { length: 5 }).notNull(),
  targetId: integer('target_id').notNull(),
  postId: integer('post_id').notNull(),
  reason: varchar('reason', { length: 500 }).notNull(),
  status: varchar('status', { length: 10 }).notNull().default('open'),
  handledBy: integer('handled_by'),
  handleTime: bigint('handle_time', { mode: 'number' }),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  check('ask_report_status_chk', sql`${t.status} in ('open','resolved','dismissed')`),
  uniqueIndex('ask_report_once_uq').on(t.userId, t.targetType, t.targetId).where(sql`${t.status} = 'open'`),
  index('ask_report_status_idx').on(t.status, t.id),
]);
