// Backups: one gzip'd file of JSON lines — a header, every table's rows (as PostgreSQL's own
// row_to_json writes them, so PGlite and PostgreSQL agree on every type), then the uploaded files
// (DATA_DIR/storage) and module packages (DATA_DIR/packages). The rows are read in one read-only
// transaction: a consistent snapshot on PostgreSQL, and on PGlite a transaction holds the database
// while it reads. The same file restores into an empty PGlite directory or an empty PostgreSQL
// database, whichever the backup came from.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { createGunzip, createGzip } from 'node:zlib';
import { getTableConfig, PgSerial, PgTable } from 'drizzle-orm/pg-core';
import { is, sql } from 'drizzle-orm';
import * as schema from '../db/schema';
import type { Db } from '../db/client';

export const BACKUP_FORMAT = 'atrium-backup';
const ROWS_PER_LINE = 500;
const FILE_DIRS = ['storage', 'packages'] as const;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: 1;
  created: string;
  source: 'pglite' | 'postgres';
  /** Migrations applied to the database the backup came from. */
  migrations: number;
  lastMigration: string;
}

type Line =
  | { header: BackupHeader }
  | { table: string; rows: string[] }
  | { file: string; data: string }
  | { end: { tables: number; rows: number; files: number } };

/** Every table of the schema, parents before the tables that reference them. */
export function tablesInOrder(): PgTable[] {
  const tables = (Object.values(schema) as unknown[]).filter((v): v is PgTable => is(v, PgTable));
  const byName = new Map(tables.map((t) => [getTableConfig(t).name, t]));
  const done = new Set<string>();
  const out: PgTable[] = [];
  const visit = (t: PgTable, path: Set<string>): void => {
    const name = getTableConfig(t).name;
    if (done.has(name) || path.has(name)) return;
    path.add(name);
    for (const fk of getTableConfig(t).foreignKeys) {
      const parent = getTableConfig(fk.reference().foreignTable).name;
      const p = byName.get(parent);
      if (p && parent !== name) visit(p, path);
    }
    done.add(name);
    out.push(t);
  };
  for (const t of byName.values()) visit(t, new Set());
  return out;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function primaryKeyOrder(t: PgTable): string {
  const cfg = getTableConfig(t);
  const cols = cfg.columns.filter((c) => c.primary).map((c) => quote(c.name));
  if (!cols.length) for (const pk of cfg.primaryKeys) cols.push(...pk.columns.map((c) => quote(c.name)));
  return cols.length ? cols.join(', ') : '1';
}

async function rowsOf(db: Db, query: ReturnType<typeof sql>): Promise<Record<string, unknown>[]> {
  const result = (await db.execute(query)) as unknown as { rows?: Record<string, unknown>[] } | Record<string, unknown>[];
  return Array.isArray(result) ? result : result.rows ?? [];
}

export async function appliedMigrations(db: Db): Promise<{ count: number; last: string }> {
  try {
    const rows = await rowsOf(db, sql`select count(*)::int as n, max(created_at)::text as last from drizzle.__drizzle_migrations`);
    return { count: Number(rows[0]?.n ?? 0), last: String(rows[0]?.last ?? '') };
  } catch {
    return { count: 0, last: '' };
  }
}

function* walkFiles(base: string, dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walkFiles(base, full);
    else if (entry.isFile()) yield relative(base, full).split(sep).join('/');
  }
}

export interface BackupResult { file: string; bytes: number; tables: number; rows: number; files: number }

/** Writes a backup of the database and DATA_DIR's files to `file` (gzip). */
export async function writeBackup(db: Db, source: 'pglite' | 'postgres', dataDir: string, file: string): Promise<BackupResult> {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  const gzip = createGzip({ level: 6 });
  const outFile = createWriteStream(partial, { mode: 0o600 });
  gzip.pipe(outFile);
  const write = async (line: Line): Promise<void> => {
    if (!gzip.write(`${JSON.stringify(line)}\n`)) await once(gzip, 'drain');
  };
  const migrations = await appliedMigrations(db);
  await write({ header: { format: BACKUP_FORMAT, version: 1, created: new Date().toISOString(), source, migrations: migrations.count, lastMigration: migrations.last } });
  let rows = 0;
  const tables = tablesInOrder();
  await db.transaction(async (tx) => {
    for (const t of tables) {
      const name = getTableConfig(t).name;
      const order = primaryKeyOrder(t);
      for (let offset = 0; ; offset += ROWS_PER_LINE) {
        const chunk = await rowsOf(tx as unknown as Db, sql.raw(`select row_to_json(t)::text as j from ${quote(name)} t order by ${order} limit ${ROWS_PER_LINE} offset ${offset}`));
        if (!chunk.length) break;
        rows += chunk.length;
        await write({ table: name, rows: chunk.map((r) => String(r.j)) });
        if (chunk.length < ROWS_PER_LINE) break;
      }
    }
  }, source === 'postgres' ? { isolationLevel: 'repeatable read', accessMode: 'read only' } : undefined);
  let files = 0;
  for (const dir of FILE_DIRS) {
    for (const rel of walkFiles(dataDir, join(dataDir, dir))) {
      await write({ file: rel, data: readFileSync(join(dataDir, rel)).toString('base64') });
      files++;
    }
  }
  await write({ end: { tables: tables.length, rows, files } });
  gzip.end();
  await once(outFile, 'close');
  renameSync(partial, file);
  return { file, bytes: statSync(file).size, tables: tables.length, rows, files };
}

/** Reads a backup's header without restoring it; null when the file is not a backup. */
export async function readBackupHeader(file: string): Promise<BackupHeader | null> {
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      const line = JSON.parse(text) as Partial<Line & { header: BackupHeader }>;
      return line.header?.format === BACKUP_FORMAT ? line.header : null;
    }
  } catch {
    return null;
  } finally {
    lines.close();
  }
  return null;
}

/** Number of migrations this build knows (drizzle/meta/_journal.json). */
export function knownMigrations(root: string): number {
  try {
    return (JSON.parse(readFileSync(join(root, 'drizzle', 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;
  } catch {
    return 0;
  }
}

export class RestoreRefused extends Error {}

/**
 * Restores a backup into `db`, which must be migrated and hold no members yet (an empty site):
 * every table is emptied, then filled from the backup, and the files are written under `dataDir`.
 */
export async function restoreBackup(db: Db, root: string, dataDir: string, file: string): Promise<{ rows: number; files: number; header: BackupHeader }> {
  const header = await readBackupHeader(file);
  if (!header) throw new RestoreRefused(`${file} is not an Atrium backup.`);
  const known = knownMigrations(root);
  if (header.migrations > known) throw new RestoreRefused(`This backup comes from a newer schema (${header.migrations} migrations; this version knows ${known}). Upgrade Atrium first.`);
  const tables = tablesInOrder();
  const byName = new Map(tables.map((t) => [getTableConfig(t).name, t]));
  const names = tables.map((t) => quote(getTableConfig(t).name));
  let rows = 0;
  let files = 0;
  const base = resolve(dataDir);
  await db.transaction(async (tx) => {
    const run = (q: ReturnType<typeof sql>): Promise<unknown> => (tx as unknown as Db).execute(q);
    await run(sql.raw(`truncate ${names.join(', ')} restart identity cascade`));
    const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const text of lines) {
      if (!text) continue;
      const line = JSON.parse(text) as Line;
      if ('table' in line) {
        if (!byName.has(line.table)) throw new RestoreRefused(`The backup has a table this version does not know: ${line.table}`);
        const columns = Object.keys(JSON.parse(line.rows[0] ?? '{}') as object);
        if (!columns.length) continue;
        const cols = columns.map(quote).join(', ');
        await run(sql`insert into ${sql.raw(quote(line.table))} (${sql.raw(cols)}) select ${sql.raw(cols)} from json_populate_recordset(null::${sql.raw(quote(line.table))}, ${`[${line.rows.join(',')}]`}::json)`);
        rows += line.rows.length;
      } else if ('file' in line) {
        const target = resolve(base, line.file);
        if (!target.startsWith(base + sep) || !FILE_DIRS.some((d) => line.file.startsWith(`${d}/`))) throw new RestoreRefused(`Refusing a file outside the data directory: ${line.file}`);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, Buffer.from(line.data, 'base64'));
        files++;
      }
    }
    // Serial columns continue after the restored ids.
    for (const t of tables) {
      const cfg = getTableConfig(t);
      for (const c of cfg.columns.filter((col) => is(col, PgSerial))) {
        await run(sql.raw(`select setval(pg_get_serial_sequence('${quote(cfg.name)}', '${c.name}'), coalesce((select max(${quote(c.name)}) from ${quote(cfg.name)}), 0) + 1, false)`));
      }
    }
  });
  return { rows, files, header };
}

/** Whether a database holds no members yet (a new site restore may fill). */
export async function isEmptySite(db: Db): Promise<boolean> {
  try {
    const rows = await rowsOf(db, sql`select count(*)::int as n from "user"`);
    return Number(rows[0]?.n ?? 0) === 0;
  } catch {
    return true;
  }
}

/** Deletes all but the newest `keep` nightly backups in `dir`; the names removed. */
export function pruneBackups(dir: string, keep: number): string[] {
  if (!existsSync(dir)) return [];
  const nightly = readdirSync(dir).filter((n) => /^atrium-nightly-\d{8}T\d{6}Z\.backup\.gz$/.test(n)).sort().reverse();
  const removed = nightly.slice(Math.max(1, keep));
  for (const name of removed) rmSync(join(dir, name), { force: true });
  return removed;
}
