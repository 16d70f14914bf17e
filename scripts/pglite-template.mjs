// Writes dist/pglite-template.tar.gz: an empty PGlite database made by initdb, with the settings of
// src/lib/server/db/pglite-options.ts. A first start on a new DATA_DIR loads it (PGlite's
// loadDataDir) instead of running initdb, which needs a second PGlite instance and a copy of its
// whole WASM memory and peaked at ~1 GB resident. The file depends only on the PGlite version and
// the settings, so it is cached under node_modules/.cache/atrium/ and made again when either changes.
// Run by scripts/build.mjs with --liftoff-only (see src/server/v8-flags.ts).
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_SETTINGS, pgliteCreateOptions } from '../src/lib/server/db/pglite-options.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'dist', 'pglite-template.tar.gz');
const version = JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version;
const key = createHash('sha256').update(JSON.stringify([version, PGLITE_SETTINGS])).digest('hex').slice(0, 16);
const cacheDir = join(root, 'node_modules', '.cache', 'atrium');
const cached = join(cacheDir, `pglite-template-${key}.tar.gz`);

if (!existsSync(cached)) {
  const started = Date.now();
  // In memory: nothing of it touches the disk until the tarball.
  const pg = await PGlite.create(pgliteCreateOptions(PGlite.defaultStartParams));
  const blob = await pg.dumpDataDir('gzip');
  await pg.close();
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(`${cached}.tmp`, Buffer.from(await blob.arrayBuffer()));
  renameSync(`${cached}.tmp`, cached);
  console.log(`[atrium] PGlite template database made (PGlite ${version}, ${Math.round(blob.size / 1024)} KB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
mkdirSync(dirname(target), { recursive: true });
copyFileSync(cached, target);
