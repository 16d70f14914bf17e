import { existsSync, mkdirSync, openAsBlob, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { PGlite } from '@electric-sql/pglite';
import * as schema from './schema';
import { pgliteCreateOptions, pgliteTemplate } from './pglite-options';

export type Schema = typeof schema;
/** The drizzle handle services take as their first argument: the same type for PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Where the data lives, for logs (never includes a password). */
  where: string;
  ping(): Promise<boolean>;
  /**
   * Applies the committed migrations in `<root>/drizzle`, then runs `then` (first-start seeding)
   * while still holding the migration lock, so instances starting together seed once.
   */
  migrate(root: string, then?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
  /** PostgreSQL only: the connection pool's counts, for /metrics. */
  poolStats?(): { total: number; idle: number; waiting: number };
}

export class DatabaseLockedError extends Error {}

/**
 * Opens PostgreSQL when `databaseUrl` is set, else embedded PGlite in `<dataDir>/db`: in a worker
 * thread when `pgliteWorker` is set (PGLITE_WORKER=1), else in-process.
 */
export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string; pgliteWorker?: boolean }): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(opts.dataDir, opts.pgliteWorker ?? false);
}

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  pool.on('error', (err) => process.stderr.write(`[atrium] error postgres pool: ${err.message}\n`));
  const db = drizzle({ client: pool, schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    where: url.replace(/\/\/([^:@/]+)(:[^@/]*)?@/, '//$1@'),
    ping: () => pingDb(db),
    // Several instances may start at once: a session advisory lock lets one migrate at a time.
    migrate: async (root, then) => {
      const { migrate } = await import('drizzle-orm/node-postgres/migrator');
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock(1098150505)');
        await migrate(drizzle({ client, schema }), { migrationsFolder: join(root, 'drizzle') });
        await then?.();
      } finally {
        await client.query('select pg_advisory_unlock(1098150505)').catch(() => undefined);
        client.release();
      }
    },
    close: () => pool.end(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is single-process: two servers writing one directory corrupt it. A lock file with our pid
 * refuses a second process with a clear message; a lock left by a dead process is taken over.
 */
function takeLock(dataDir: string): () => void {
  const lockPath = join(dataDir, 'atrium.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(lockPath, 'utf8').trim());
      if (owner && owner !== process.pid && pidAlive(owner)) {
        throw new DatabaseLockedError(
          `The embedded database in ${dataDir} is already open in process ${owner}. ` +
            'PGlite allows one process per data directory: stop that process, set another DATA_DIR, or set DATABASE_URL to use PostgreSQL.',
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new DatabaseLockedError(`Could not lock ${lockPath}`);
}

async function openInProcess(dir: string): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const template = pgliteTemplate(new URL(import.meta.url));
  const loadDataDir = template && !existsSync(join(dir, 'PG_VERSION')) ? await openAsBlob(template) : undefined;
  return PGlite.create(dir, { ...pgliteCreateOptions(PGlite.defaultStartParams), loadDataDir });
}

async function openPglite(dataDir: string, inWorker: boolean): Promise<Database> {
  const dir = join(dataDir, 'db');
  mkdirSync(dir, { recursive: true });
  const release = takeLock(dataDir);
  try {
    const { drizzle } = await import('drizzle-orm/pglite');
    // The worker client has the part of PGlite's API drizzle calls, so the same driver serves both.
    const client = inWorker
      ? ((await (await import('./pglite-worker-client')).PgliteWorkerClient.start(dir)) as unknown as PGlite)
      : await openInProcess(dir);
    const db = drizzle({ client, schema }) as unknown as Db;
    let closed = false;
    return {
      db,
      kind: 'pglite',
      where: inWorker ? `${dir} (worker thread)` : dir,
      ping: () => pingDb(db),
      migrate: async (root, then) => {
        const { migrate } = await import('drizzle-orm/pglite/migrator');
        await migrate(drizzle({ client, schema }), { migrationsFolder: join(root, 'drizzle') });
        await then?.();
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await client.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

async function pingDb(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
