// Row types and SQL fragments of the schema that many areas share, kept beside the schema so that
// no area has to import another just for a type.
import { sql } from 'drizzle-orm';
import { user } from './schema';

export type UserRow = typeof user.$inferSelect;

/** A member's name as pages show it: the nickname, else the username (for SQL selects). */
export const displayNameSql = sql<string>`coalesce(nullif(${user.nickname}, ''), ${user.username})`;
