// The server end-to-end tests run against: the built app on a fresh embedded database.
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
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
Object.assign(process.env, {
  ATRIUM_ROOT: root, DATA_DIR: dataDir, PORT: process.env.E2E_PORT ?? '4399', HOST: '127.0.0.1',
  DEPLOY_POLL_SECONDS: '1', LOG_LEVEL: 'warn',
});
await import(pathToFileURL(join(root, 'dist/atrium.mjs')).href);
