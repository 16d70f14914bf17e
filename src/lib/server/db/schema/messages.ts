import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, primaryKey, serial, text, varchar } from 'drizzle-orm/pg-core';

/**
 * The message center's records: one row per recipient. Written only through `notify()`
 * (lib/server/messages/notify.ts) and the private conversations (messages/dialog.ts); `readTime`
 * 0 means unread. A private message keeps its text in `content`; grouped likes count their
 * members in `groupCount`. `mailTime` is when the e-mail job handled the row (0: not yet).
 */
export const messages = pgTable('messages', {
  id: serial('id').primaryKey(),
  type: varchar('type', { length: 30 }).notNull(),
  senderId: integer('sender_id').notNull().default(0),
  recipientId: integer('recipient_id').notNull(),
  title: varchar('title', { length: 200 }).notNull(),
  summary: varchar('summary', { length: 300 }).notNull().default(''),
  link: varchar('link', { length: 255 }).notNull().default(''),
  content: text('content').notNull().default(''),
  groupCount: integer('group_count').notNull().default(1),
  readTime: bigint('read_time', { mode: 'number' }).notNull().default(0),
  mailTime: bigint('mail_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  index('messages_recipient_idx').on(t.recipientId, t.id),
  index('messages_unread_idx').on(t.recipientId).where(sql`${t.readTime} = 0`),
  index('messages_dialog_idx').on(t.senderId, t.recipientId, t.id).where(sql`${t.type} = 'private'`),
  index('messages_mail_idx').on(t.createTime).where(sql`${t.readTime} = 0 and ${t.mailTime} = 0`),
]);

/**
 * What a member's open streams were told (new message, read, delete), kept a day so a reconnect
 * with `Last-Event-ID` replays what it missed. `data` is the event's JSON.
 */
export const messageEvent = pgTable('message_event', {
  id: serial('id').primaryKey(),
  userId: integer('user_id').notNull(),
  kind: varchar('kind', { length: 10 }).notNull(),
  data: text('data').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('message_event_user_idx').on(t.userId, t.id), index('message_event_time_idx').on(t.createTime)]);

/** `userId` blocked `blockedId`: the blocked member's messages and mentions stop reaching them. */
export const userBlock = pgTable('user_block', {
  userId: integer('user_id').notNull(),
  blockedId: integer('blocked_id').notNull(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [primaryKey({ columns: [t.userId, t.blockedId] }), index('user_block_blocked_idx').on(t.blockedId)]);

/**
 * Which kinds of message also reach a member by e-mail (comma-separated tabs; no row: the
 * defaults), and the language their mails are written in (the one they last used the site in).
 */
export const messagePref = pgTable('message_pref', {
  userId: integer('user_id').primaryKey(),
  mailKinds: varchar('mail_kinds', { length: 100 }).notNull(),
  locale: varchar('locale', { length: 5 }).notNull().default('zh-cn'),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
});
