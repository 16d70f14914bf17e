// The server end-to-end tests run against: the built app on a fresh embedded database.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { buildIfStale } = await import(pathToFileURL(join(root, 'scripts/start.mjs')).href);
buildIfStale();
const tmp = join(root, 'tests', '.tmp');
mkdirSync(tmp, { recursive: true });
const dataDir = mkdtempSync(join(tmp, 'e2e-'));
const template = join(tmp, 'template');
if (existsSync(join(template, 'db'))) cpSync(template, dataDir, { recursive: true });
// With a PostgreSQL server at hand the member flows run against it, so tests can read what only the
// database knows (the click captcha's answer) while the server runs: PGlite allows one process.
let databaseUrl = null;
if (process.env.TEST_DATABASE_URL) {
  const { default: pg } = await import('pg');
  // Under the run's prefix (TEST_PG_PREFIX): the next run of this checkout drops it, other checkouts leave it alone.
  const name = `${process.env.TEST_PG_PREFIX || 'atrium'}_e2e_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  // From the migrated template when this run prepared one (scripts/test.mjs): the server starts without migrating.
  const prefix = process.env.TEST_PG_PREFIX || 'atrium';
  await admin.query(process.env.ATRIUM_TEST_PREPARED === '1' ? `create database ${name} template ${prefix}_template` : `create database ${name}`);
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  process.env.DATABASE_URL = databaseUrl;
}
writeFileSync(join(tmp, 'e2e.json'), JSON.stringify({ dataDir, databaseUrl }));
// A lock left by an interrupted run would make specs wait for nothing.
rmSync(join(tmp, 'editor-module.lock'), { force: true });
// Every browser of the run logs in from 127.0.0.1: the per-address login limit (50 in 15 minutes,
// tested in tests/integration/nginx-instances.test.ts) would refuse the later specs' members.
Object.assign(process.env, {
  ATRIUM_ROOT: root, DATA_DIR: dataDir, PORT: process.env.E2E_PORT ?? '4399', HOST: '127.0.0.1',
  DEPLOY_POLL_SECONDS: '1', LOG_LEVEL: 'warn', LOGIN_IP_LIMIT: process.env.LOGIN_IP_LIMIT ?? '100000',
});
await import(pathToFileURL(join(root, 'dist/atrium.mjs')).href);
