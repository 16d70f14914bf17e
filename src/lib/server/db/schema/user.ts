import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, serial, smallint, text, varchar } from 'drizzle-orm/pg-core';

export const RULE_TYPES = ['route', 'menu_dir', 'menu', 'nav_user_menu', 'nav', 'button'] as const;
export const MENU_TYPES = ['tab', 'link', 'iframe'] as const;
export const RULE_EXTENDS = ['none', 'add_rules_only', 'add_menu_only'] as const;

/** The member-side rule tree: routes, menus, navigation and button permissions. */
export const userRule = pgTable('user_rule', {
  id: serial('id').primaryKey(),
  pid: integer('pid').notNull().default(0),
  type: varchar('type', { length: 20 }).notNull().default('menu'),
  title: varchar('title', { length: 50 }).notNull().default(''),
  /** The English title an administrator gave; empty: the dictionary's, else `title`. */
  titleEn: varchar('title_en', { length: 50 }).notNull().default(''),
  name: varchar('name', { length: 50 }).notNull().default(''),
  path: varchar('path', { length: 100 }).notNull().default(''),
  icon: varchar('icon', { length: 50 }).notNull().default(''),
  menuType: varchar('menu_type', { length: 10 }).notNull().default('tab'),
  url: varchar('url', { length: 255 }).notNull().default(''),
  component: varchar('component', { length: 100 }).notNull().default(''),
  noLoginValid: smallint('no_login_valid').notNull().default(0),
  extend: varchar('extend', { length: 20 }).notNull().default('none'),
  remark: varchar('remark', { length: 255 }).notNull().default(''),
  /** Where the route rule lookup (GET /api/index/route) sends a visitor of `path`: an app path or an http(s) URL. */
  redirect: varchar('redirect', { length: 255 }).notNull().default(''),
  /** 1: created by Atrium's code or a module (seeded): administrators may rename, move, disable or regroup it, not delete it. */
  system: smallint('system').notNull().default(0),
  weigh: integer('weigh').notNull().default(0),
  status: smallint('status').notNull().default(1),
  updateTime: bigint('update_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull().default(0),
}, (t) => [
  index('user_rule_pid_idx').on(t.pid),
  check('user_rule_type_chk', sql`${t.type} in ('route','menu_dir','menu','nav_user_menu','nav','button')`),
  check('user_rule_menu_type_chk', sql`${t.menuType} in ('tab','link','iframe')`),
  check('user_rule_extend_chk', sql`${t.extend} in ('none','add_rules_only','add_menu_only')`),
]);

/** Member groups; `rules` is `*` or a comma-separated list of user_rule ids. */
export const userGroup = pgTable('user_group', {
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 50 }).notNull(),
  /** The English name shown on English pages; empty: the name is shown. */
  nameEn: varchar('name_en', { length: 50 }).notNull().default(''),
  rules: text('rules').notNull().default(''),
  status: smallint('status').notNull().default(1),
  updateTime: bigint('update_time', { mode: 'number' }).notNull().default(0),
  createTime: bigint('create_time', { mode: 'number' }).notNull().default(0),
});
