import { bigint, index, jsonb, pgTable, primaryKey, serial, smallint, varchar } from 'drizzle-orm/pg-core';

/**
 * The key-value data of modules (the module host's `ctx.store`), scoped by module: a module never
 * reaches Atrium's tables. Kept when a module is uninstalled unless "remove data" is chosen; part of
 * backups like every table of the schema.
 */
export const moduleKv = pgTable('module_kv', {
  moduleUid: varchar('module_uid', { length: 64 }).notNull(),
  key: varchar('key', { length: 200 }).notNull(),
  value: jsonb('value').notNull(),
  /** Unix seconds of the last write. */
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
}, (t) => [primaryKey({ columns: [t.moduleUid, t.key] })]);

/**
 * Site events waiting for the modules that subscribe to them (`contributes.events`): written in the
 * transaction of the change (a post, a reply, a member, a paid order), so an event is never lost
 * nor sent for a change that rolled back; delivered after commit by whichever instance claims the
 * row, once, and deleted once the module has handled it (retried with a pause, at most 5 times).
 */
export const moduleEvent = pgTable('module_event', {
  id: serial('id').primaryKey(),
  moduleUid: varchar('module_uid', { length: 64 }).notNull(),
  event: varchar('event', { length: 20 }).notNull(),
  payload: jsonb('payload').notNull(),
  attempts: smallint('attempts').notNull().default(0),
  /** When it may be tried (again), epoch seconds. */
  nextTime: bigint('next_time', { mode: 'number' }).notNull(),
  /** A claiming instance holds it until then (a crashed instance's claim runs out). */
  claimedUntil: bigint('claimed_until', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
}, (t) => [index('module_event_next_idx').on(t.nextTime)]);
