import { bigint, index, integer, pgTable, primaryKey, serial, text, varchar } from 'drizzle-orm/pg-core';

/** Every operator action, from the console or the CLI: who, what, before/after, when, from where. */
export const adminLog = pgTable('admin_log', {
  id: serial('id').primaryKey(),
  /** 0 for the CLI. */
  userId: integer('user_id').notNull().default(0),
  username: varchar('username', { length: 50 }).notNull().default(''),
  action: varchar('action', { length: 60 }).notNull(),
  target: varchar('target', { length: 200 }).notNull().default(''),
  before: text('before').notNull().default(''),
  after: text('after').notNull().default(''),
  ip: varchar('ip', { length: 50 }).notNull().default(''),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('admin_log_time_idx').on(t.createTime), index('admin_log_action_idx').on(t.action, t.createTime)]);

/** One-time links: the first-start setup (`install`) and password resets (`reset`). Only hashes are kept. */
export const adminToken = pgTable('admin_token', {
  id: serial('id').primaryKey(),
  kind: varchar('kind', { length: 20 }).notNull(),
  userId: integer('user_id').notNull().default(0),
  tokenHash: varchar('token_hash', { length: 64 }).notNull().unique(),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
  /** 0: valid until used. */
  expireTime: bigint('expire_time', { mode: 'number' }).notNull().default(0),
});

/** Per-day counters the dashboard charts that no other table records (server errors). */
export const siteDaily = pgTable('site_daily', {
  day: varchar('day', { length: 10 }).notNull(),
  name: varchar('name', { length: 30 }).notNull(),
  count: integer('count').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.day, t.name] })]);
