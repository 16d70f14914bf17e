import { bigint, jsonb, pgTable, primaryKey, varchar } from 'drizzle-orm/pg-core';

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
