import { bigint, integer, jsonb, pgTable, primaryKey, smallint, varchar } from 'drizzle-orm/pg-core';

/**
 * The values an administrator set for a module's settings (`contributes.settings`), by key; keys
 * not here have the manifest's default. Kept in the database (every instance reads the same) and
 * when the module is uninstalled, unless "remove data" is chosen. Secrets are stored as set: the
 * module needs them; the console never sends them back.
 */
export const moduleSetting = pgTable('module_setting', {
  moduleUid: varchar('module_uid', { length: 64 }).primaryKey(),
  values: jsonb('values').notNull(),
  updateTime: bigint('update_time', { mode: 'number' }).notNull(),
});

/**
 * A module's scheduled jobs (`contributes.jobs`): when each is due, who holds the current run and
 * how the last one went. A run is claimed by one update of the row (due, and not held by another
 * instance), so several instances never run the same tick twice; a claim runs out after the job's
 * timeout if its instance dies.
 */
export const moduleJob = pgTable('module_job', {
  moduleUid: varchar('module_uid', { length: 64 }).notNull(),
  name: varchar('name', { length: 40 }).notNull(),
  /** When it is due, epoch seconds. */
  nextTime: bigint('next_time', { mode: 'number' }).notNull(),
  claimedUntil: bigint('claimed_until', { mode: 'number' }).notNull().default(0),
  /** The last run: started (epoch seconds), how long it took (ms), 1 ok / 0 failed, the error. */
  lastTime: bigint('last_time', { mode: 'number' }).notNull().default(0),
  lastMs: integer('last_ms').notNull().default(0),
  lastOk: smallint('last_ok').notNull().default(0),
  lastError: varchar('last_error', { length: 255 }).notNull().default(''),
  runs: integer('runs').notNull().default(0),
  failures: integer('failures').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.moduleUid, t.name] })]);

/**
 * The site's live instances: each writes its row every few seconds with the module packages it
 * has unpacked (sha256s), so an install or upgrade is activated once every live instance has the
 * package. A row not refreshed for 15 s is an instance that is gone.
 */
export const moduleInstance = pgTable('module_instance', {
  id: varchar('id', { length: 64 }).primaryKey(),
  /** host name and process id, for the administrator. */
  label: varchar('label', { length: 120 }).notNull(),
  packages: jsonb('packages').$type<string[]>().notNull(),
  /** Epoch milliseconds of the last heartbeat. */
  seenTime: bigint('seen_time', { mode: 'number' }).notNull(),
});
