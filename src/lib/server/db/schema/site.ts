import { bigint, integer, pgTable, serial, smallint, text, varchar } from 'drizzle-orm/pg-core';

/** Site configuration rows, BuildAdmin-style: one named value per row, grouped for the admin form. */
export const config = pgTable('config', {
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 30 }).notNull().unique(),
  group: varchar('group', { length: 30 }).notNull().default('basics'),
  title: varchar('title', { length: 50 }).notNull().default(''),
  tip: varchar('tip', { length: 100 }).notNull().default(''),
  type: varchar('type', { length: 30 }).notNull().default('string'),
  value: text('value').notNull().default(''),
  content: text('content').notNull().default(''),
  rule: varchar('rule', { length: 100 }).notNull().default(''),
  extend: varchar('extend', { length: 255 }).notNull().default(''),
  allowDel: smallint('allow_del').notNull().default(0),
  weigh: integer('weigh').notNull().default(0),
  updateTime: bigint('update_time', { mode: 'number' }).notNull().default(0),
});
