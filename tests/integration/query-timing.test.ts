// Statement timing (issue 18, slow queries): every statement drizzle sends is seen once, with its
// text and whether it ran in a transaction, on each driver Atrium uses: PGlite in process, PGlite in
// its worker thread, and a PostgreSQL pool (when TEST_DATABASE_URL is set).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db/client';
import { timeQueries } from '../../src/lib/server/db/query-timing';
import { config } from '../../src/lib/server/db/schema';
import { TEMPLATE_DIR, TMP } from '../helpers/paths';
import { freshPostgres } from '../helpers/server';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

async function open(kind: 'inproc' | 'worker' | 'postgres'): Promise<Database> {
  const dir = mkdtempSync(join(TMP, `qt-${kind}-`));
  if (kind !== 'postgres') cpSync(TEMPLATE_DIR, dir, { recursive: true });
  const database = await openDatabase({ databaseUrl: kind === 'postgres' ? await freshPostgres() : null, dataDir: dir, pgliteWorker: kind === 'worker' });
  cleanups.push(async () => { await database.close(); rmSync(dir, { recursive: true, force: true }); });
  return database;
}

const kinds = ['inproc', 'worker', ...(process.env.TEST_DATABASE_URL ? ['postgres' as const] : [])] as const;

describe.each(kinds)('timing statements on %s', (kind) => {
  it('sees statements outside and inside transactions (savepoints too), each once, and leaves the driver working', async () => {
    const { db } = await open(kind);
    const seen: { sql: string; inTransaction: boolean; ms: number }[] = [];
    const client = (db as unknown as { $client: unknown }).$client;
    timeQueries(client, (ms, text, inTransaction) => seen.push({ sql: text, inTransaction, ms }));
    timeQueries(client, () => { throw new Error('wrapped twice'); });

    await db.select().from(config).where(eq(config.name, 'site_name'));
    await db.transaction(async (tx) => {
      await tx.update(config).set({ value: 'Timed' }).where(eq(config.name, 'site_name'));
      await tx.transaction(async (inner) => { await inner.execute(sql`select 42 as answer`); });
    });
    // After the transaction, outside again (on PostgreSQL: the pooled client was given back unwrapped).
    const [after] = await db.select({ value: config.value }).from(config).where(eq(config.name, 'site_name'));
    expect(after?.value).toBe('Timed');
    // A failing transaction is timed too and still rolls back.
    await expect(db.transaction(async (tx) => {
      await tx.update(config).set({ value: 'Lost' }).where(eq(config.name, 'site_name'));
      throw new Error('abort');
    })).rejects.toThrow('abort');
    const [kept] = await db.select({ value: config.value }).from(config).where(eq(config.name, 'site_name'));
    expect(kept?.value).toBe('Timed');

    const outside = seen.filter((s) => !s.inTransaction).map((s) => s.sql.slice(0, 30));
    const inside = seen.filter((s) => s.inTransaction).map((s) => s.sql);
    expect(outside).toHaveLength(3);
    for (const s of outside) expect(s).toMatch(/^select /);
    expect(inside.filter((s) => s.startsWith('update "config"'))).toHaveLength(2);
    expect(inside).toContain('select 42 as answer');
    expect(inside.some((s) => s.startsWith('savepoint'))).toBe(true);
    for (const s of seen) expect(s.ms).toBeGreaterThanOrEqual(0);
  });
});
