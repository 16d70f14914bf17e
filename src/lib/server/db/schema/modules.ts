import { bigint, integer, pgTable, varchar } from 'drizzle-orm/pg-core';

/** Site modules installed on this site (the editor, …); the market issue adds its catalogue beside it. */
export const moduleInstall = pgTable('module_install', {
  uid: varchar('uid', { length: 40 }).primaryKey(),
  version: varchar('version', { length: 20 }).notNull(),
  installedBy: integer('installed_by').notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull(),
});
