// "Count, then write" limits (3 new conversations on the first day, one code a minute per
// address...) hold only when the count and the write cannot interleave with another request's.
import { sql } from 'drizzle-orm';
import type { Db } from './client';

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Runs `work` in one transaction that first takes a transaction-scoped advisory lock on
 * (`kind`, `actor`): writes of that kind by that actor take turns on every instance sharing the
 * database (PGlite runs one transaction at a time anyway), so a limit counted inside `work`
 * sees every earlier write and is charged by the write that follows the count.
 */
export async function serialised<T>(db: Db, kind: string, actor: number | string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    // Two 32-bit keys: the kind and the actor, hashed by the database so every instance agrees.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${kind}), hashtext(${String(actor)}))`);
    return work(tx);
  });
}
