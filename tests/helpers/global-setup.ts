// Once per integration run: build when the sources changed, and migrate the template databases.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { PG_PREFIX, ROOT, TEMPLATE_DIR, TEMPLATE_PG, TMP } from './paths';

export default async function setup(): Promise<void> {
  const { buildIfStale } = (await import(pathToFileURL(join(ROOT, 'scripts/start.mjs')).href)) as { buildIfStale: () => void };
  buildIfStale();
  mkdirSync(TMP, { recursive: true });
  rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  migrate({ DATA_DIR: TEMPLATE_DIR });
  if (existsSync(join(TEMPLATE_DIR, 'atrium.lock'))) rmSync(join(TEMPLATE_DIR, 'atrium.lock'));

  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Databases left by earlier runs (tests create one per server) go first.
    const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${PG_PREFIX}\\_%`]);
    for (const { datname } of rows) {
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [datname]);
      await admin.query(`drop database if exists "${datname}"`);
    }
    await admin.query(`create database ${TEMPLATE_PG}`);
    await admin.end();
    const u = new URL(url);
    u.pathname = `/${TEMPLATE_PG}`;
    migrate({ DATABASE_URL: u.toString() });
  }
}

function migrate(env: Record<string, string>): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/atrium.mjs'), '--migrate-only'], {
    env: { ...process.env, ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`migrating the template failed:\n${r.stderr}`);
}
