// Once per test run, before the integration and end-to-end layers: the templates every test server
// is copied from (a migrated, seeded PGlite folder; with TEST_DATABASE_URL, a migrated PostgreSQL
// database), and the databases earlier runs of this prefix left behind dropped.
// `scripts/test.mjs` calls it once and sets ATRIUM_TEST_PREPARED=1, so the two layers can then run
// side by side; a `vitest run --project integration` on its own calls it from global-setup.ts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TMP = join(ROOT, 'tests', '.tmp');
const TEMPLATE_DIR = join(TMP, 'template');
const PG_PREFIX = process.env.TEST_PG_PREFIX || 'atrium';
const TEMPLATE_PG = `${PG_PREFIX}_template`;

export async function prepareTemplates() {
  mkdirSync(TMP, { recursive: true });
  rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  // The two migrations run side by side: each mostly waits on its database.
  const jobs = [migrate({ DATA_DIR: TEMPLATE_DIR }).then(() => {
    if (existsSync(join(TEMPLATE_DIR, 'atrium.lock'))) rmSync(join(TEMPLATE_DIR, 'atrium.lock'));
  })];
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    jobs.push((async () => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      // Databases left by earlier runs (tests create one per server, the e2e server one) go first.
      const { rows } = await admin.query('select datname from pg_database where datname like $1', [`${PG_PREFIX}\\_%`]);
      for (const { datname } of rows) {
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [datname]);
        await admin.query(`drop database if exists "${datname}"`);
      }
      await admin.query(`create database ${TEMPLATE_PG}`);
      await admin.end();
      const u = new URL(url);
      u.pathname = `/${TEMPLATE_PG}`;
      // Its own data folder: first-party packages the seed stores go there, not into the checkout's data/.
      const dataDir = join(TMP, 'template-pg');
      rmSync(dataDir, { recursive: true, force: true });
      await migrate({ DATABASE_URL: u.toString(), DATA_DIR: dataDir });
    })());
  }
  await Promise.all(jobs);
}

function migrate(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/atrium.mjs'), '--migrate-only'], {
      env: { ...process.env, ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { stderr += d; });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`migrating the template failed:\n${stderr}`))));
  });
}

// `node tests/helpers/prepare.mjs`: build when the sources changed, then the templates.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { buildIfStale } = await import(pathToFileURL(join(ROOT, 'scripts/start.mjs')).href);
  buildIfStale();
  await prepareTemplates();
}
