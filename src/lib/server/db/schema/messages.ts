import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, serial, varchar } from 'drizzle-orm/pg-core';

/**
 * The message center's records: one row per recipient. Written only through `notify()`
 * (lib/server/messages/notify.ts); `readTime` 0 means unread.
 */
export const messages = pgTable('messages', {
  id: serial('id').primaryKey(),
  type: varchar('type', { length: 30 }).notNull(),
  senderId: integer('sender_id').notNull().default(0),
  recipientId: integer('recipient_id').notNull(),
  title: varchar('title', { length: 200 }).notNull(),
  summary: varchar('summary', { length: 300 }).notNull().default(''),
  link: varchar('link', { length: 255 }).notNull().default(''),
  readTime: bigint('read_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [
  index('messages_recipient_idx').on(t.recipientId, t.id),
  index('messages_unread_idx').on(t.recipientId).where(sql`${t.readTime} = 0`),
]);
