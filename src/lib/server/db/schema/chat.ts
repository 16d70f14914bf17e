import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, serial, smallint, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';

/** Models operators connect (`npm run atrium -- chat:add`): any OpenAI-compatible endpoint. */
export const chatModel = pgTable('chat_model', {
  id: serial('id').primaryKey(),
  /** What the API and the page call it: letters, digits, `.`, `_`, `-`. */
  name: varchar('name', { length: 64 }).notNull(),
  title: varchar('title', { length: 100 }).notNull(),
  baseUrl: varchar('base_url', { length: 255 }).notNull(),
  /** Sent to the provider only; never in an API reply. */
  apiKey: text('api_key').notNull().default(''),
  modelId: varchar('model_id', { length: 128 }).notNull(),
  contextWindow: integer('context_window').notNull().default(8192),
  /** Points per 1,000 tokens (prompt and completion together) once the free allowance is used. */
  pricePer1k: integer('price_per_1k').notNull().default(0),
  /** Points per reply once the free allowance is used. */
  pricePerMessage: integer('price_per_message').notNull().default(0),
  /** Free replies (or tokens, see freeUnit) per member and per visitor address per day. */
  freeDaily: integer('free_daily').notNull().default(0),
  freeUnit: varchar('free_unit', { length: 10 }).notNull().default('messages'),
  /** `visitors` (everyone), `members`, or `groups` (the member groups in `groups`). */
  audience: varchar('audience', { length: 10 }).notNull().default('members'),
  groups: varchar('groups', { length: 255 }).notNull().default(''),
  status: smallint('status').notNull().default(1),
  weigh: integer('weigh').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull().default(0),
  updateTime: bigint('update_time', { mode: 'number' }).notNull().default(0),
}, (t) => [
  uniqueIndex('chat_model_name_uq').on(t.name),
  check('chat_model_audience_chk', sql`${t.audience} in ('visitors','members','groups')`),
  check('chat_model_free_unit_chk', sql`${t.freeUnit} in ('messages','tokens')`),
]);

/** A member's conversation; visitors' stay in their browser. The id is the AI SDK chat id. */
export const chatConversation = pgTable('chat_conversation', {
  id: varchar('id', { length: 64 }).primaryKey(),
  userId: integer('user_id').notNull(),
  title: varchar('title', { length: 100 }).notNull(),
  model: varchar('model', { length: 64 }).notNull().default(''),
  /** The last message of the branch shown (edit-and-resend keeps the other branches). */
  leafId: varchar('leaf_id', { length: 64 }).notNull().default(''),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
}, (t) => [index('chat_conversation_user_idx').on(t.userId, t.updateTime)]);

/** Messages of members' conversations as a tree: a message's parent is the one before it in its branch. */
export const chatMessage = pgTable('chat_message', {
  seq: serial('seq').primaryKey(),
  id: varchar('id', { length: 64 }).notNull(),
  conversationId: varchar('conversation_id', { length: 64 }).notNull(),
  parentId: varchar('parent_id', { length: 64 }).notNull().default(''),
  role: varchar('role', { length: 10 }).notNull(),
  text: text('text').notNull(),
  /** Sources, model and usage of an answer. */
  metadata: jsonb('metadata').notNull().default({}),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  uniqueIndex('chat_message_id_uq').on(t.conversationId, t.id),
  check('chat_message_role_chk', sql`${t.role} in ('user','assistant')`),
]);

/**
 * One row per reply, members' and visitors' alike: the running stream to resume or stop, what it
 * used, and what it cost. Settling moves status from `streaming` once, so it is charged once.
 * While a priced reply streams, its tokens and points are its reservation (chat/quota.ts
 * reserveReply: the tokens it may use, the points it holds); settling sets what it used and paid.
 */
export const chatReply = pgTable('chat_reply', {
  id: varchar('id', { length: 64 }).primaryKey(),
  chatId: varchar('chat_id', { length: 64 }).notNull(),
  userId: integer('user_id').notNull().default(0),
  ip: varchar('ip', { length: 50 }).notNull().default(''),
  /** A visitor's reply: the SHA-256 (base64url) of the key their browser sends to stop or resume it. Members': ''. */
  ownerKey: varchar('owner_key', { length: 64 }).notNull().default(''),
  model: varchar('model', { length: 64 }).notNull(),
  status: varchar('status', { length: 10 }).notNull().default('streaming'),
  promptTokens: integer('prompt_tokens').notNull().default(0),
  completionTokens: integer('completion_tokens').notNull().default(0),
  /** Whether this reply was within the free allowance. */
  free: smallint('free').notNull().default(1),
  points: integer('points').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  finishTime: bigint('finish_time', { mode: 'number' }).notNull().default(0),
}, (t) => [
  index('chat_reply_chat_idx').on(t.chatId, t.status),
  index('chat_reply_user_idx').on(t.userId, t.createTime),
  index('chat_reply_ip_idx').on(t.ip, t.createTime),
  check('chat_reply_status_chk', sql`${t.status} in ('streaming','done','stopped','failed')`),
]);
