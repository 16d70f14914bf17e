import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { moduleKv } from '../../db/schema';
import type { JsonValue, KvBackend } from './types';

/** Modules' key-value data in the `module_kv` table (PGlite or PostgreSQL). */
export class DbKvBackend implements KvBackend {
  constructor(private readonly db: Db) {}

  async get(uid: string, key: string): Promise<JsonValue | null> {
    const [row] = await this.db
      .select({ value: moduleKv.value })
      .from(moduleKv)
      .where(and(eq(moduleKv.moduleUid, uid), eq(moduleKv.key, key)))
      .limit(1);
    return row ? (row.value as JsonValue) : null;
  }

  async set(uid: string, key: string, value: JsonValue): Promise<void> {
    // The value goes in as JSON text cast to jsonb, so a JSON null is stored as null, not as SQL NULL.
    const json = sql`${JSON.stringify(value)}::jsonb`;
    const now = Math.floor(Date.now() / 1000);
    await this.db
      .insert(moduleKv)
      .values({ moduleUid: uid, key, value: json, updatedAt: now })
      .onConflictDoUpdate({ target: [moduleKv.moduleUid, moduleKv.key], set: { value: json, updatedAt: now } });
  }

  async delete(uid: string, key: string): Promise<boolean> {
    const rows = await this.db
      .delete(moduleKv)
      .where(and(eq(moduleKv.moduleUid, uid), eq(moduleKv.key, key)))
      .returning({ key: moduleKv.key });
    return rows.length > 0;
  }

  async list(uid: string, prefix: string, limit: number): Promise<{ key: string; value: JsonValue }[]> {
    // Byte order (collate "C") so the order does not depend on the database's locale.
    const rows = await this.db
      .select({ key: moduleKv.key, value: moduleKv.value })
      .from(moduleKv)
      .where(and(eq(moduleKv.moduleUid, uid), sql`starts_with(${moduleKv.key}, ${prefix})`))
      .orderBy(asc(sql`${moduleKv.key} collate "C"`))
      .limit(limit);
    return rows.map((r) => ({ key: r.key, value: r.value as JsonValue }));
  }

  /** Removes every key of a module (uninstall with "remove data"). */
  async purge(uid: string): Promise<number> {
    const rows = await this.db.delete(moduleKv).where(eq(moduleKv.moduleUid, uid)).returning({ key: moduleKv.key });
    return rows.length;
  }
}
