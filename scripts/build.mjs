// Builds Atrium: Astro's server and client bundles, then our HTTP server (src/server/main.ts) with
// esbuild, a build manifest for new-deployment detection, and brotli/gzip copies of client files.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();

// Always the production build, whoever calls: under vitest (NODE_ENV=test, the integration setup's
// buildIfStale) Astro compiled islands for React's development runtime (jsxDEV), and the server,
// which runs React's production build, then answered 500 on every page with an island.
const astro = spawnSync('astro', ['build'], { cwd: root, stdio: 'inherit', env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' } });
if (astro.status !== 0) process.exit(astro.status ?? 1);

await build({
  // atrium: the entry (re-executes with the server's flags, then loads atrium-main: the server);
  // pglite-worker: the thread PGlite runs in (PGLITE_WORKER), found beside atrium.mjs and cli.mjs;
  // chat-worker: the thread the chat models' token streams are parsed in (src/lib/server/chat/provider.ts).
  entryPoints: {
    atrium: join(root, 'src/server/entry.ts'), 'atrium-main': join(root, 'src/server/main.ts'), cli: join(root, 'src/server/cli-entry.ts'),
    'pglite-worker': join(root, 'src/lib/server/db/pglite-worker.ts'), 'chat-worker': join(root, 'src/lib/server/chat/completion-worker.ts'),
  },
  outdir: join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// dist/pglite-template.tar.gz: the empty database a first start on PGlite loads (cached between builds).
const template = spawnSync(process.execPath, ['--liftoff-only', join(root, 'scripts/pglite-template.mjs')], { cwd: root, stdio: 'inherit' });
if (template.status !== 0) process.exit(template.status ?? 1);

const clientDir = join(root, 'dist/client');
const id = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
writeFileSync(join(clientDir, 'build-manifest.json'), JSON.stringify({ id, builtAt: new Date().toISOString() }));

let files = 0;
let saved = 0;
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) { walk(full); continue; }
    if (!/\.(?:js|mjs|css|html|json|svg|txt|xml|webmanifest|map)$/.test(entry.name) || statSync(full).size < 1024) continue;
    const body = readFileSync(full);
    const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    writeFileSync(`${full}.br`, br);
    writeFileSync(`${full}.gz`, gzipSync(body, { level: 9 }));
    files++;
    saved += body.length - br.length;
  }
};
walk(clientDir);
console.log(`[atrium] build ${id}: ${files} client files precompressed (${Math.round(saved / 1024)} KB saved with brotli) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

// dist/modules/<uid>-<version>.zip: the modules of this repository (modules/), as reproducible packages.
const modules = spawnSync(process.execPath, [join(root, 'scripts/build-modules.mjs')], { cwd: root, stdio: 'inherit' });
if (modules.status !== 0) process.exit(modules.status ?? 1);
