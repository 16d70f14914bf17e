// Builds the modules of this repository (`modules/<name>/` with an `atrium.json`) into packages:
// `dist/modules/<uid>-<version>.zip`, byte-for-byte the same on every build, so the sha256 review
// pins is the same everywhere. For each module the entries its manifest names are bundled with
// esbuild from `src/<name>.ts` (the server entry for Node, the browser half and client entry for
// browsers; minified, no source maps; a client entry leaves `react`, `react/jsx-runtime` and
// `@atrium/client` to the page's import map), the other files it names (CSS, i18n) are copied, and the
// staged folder (kept as `dist/modules/<uid>/`) is packed as `module:pack` packs
// (src/lib/server/modules/pack.ts, inspected as an upload would be: a manifest with a problem fails
// the build), so `module:pack dist/modules/<uid>` gives the same zip.
// Run: node scripts/node.mjs node scripts/build-modules.mjs [module folder…]   (npm run build runs it)
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MODULES_DIR = join(root, 'modules');
export const OUT_DIR = join(root, 'dist', 'modules');

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs'];

// A client entry (`entry.client`) gets React and the site's client SDK from the page's import map
// (src/lib/shared/module-client.ts, MODULE_SPECIFIERS), never bundled copies: one React per page.
const CLIENT_EXTERNALS = ['react', 'react/jsx-runtime', '@atrium/client'];

let packer;
/** `packModule` from the site's sources, bundled once per process (its npm packages stay external). */
async function loadPacker() {
  if (!packer) {
    const out = join(root, 'node_modules', '.cache', 'atrium', `module-pack-${process.pid}.mjs`);
    mkdirSync(dirname(out), { recursive: true });
    await build({
      stdin: {
        contents: "export { packModule } from './src/lib/server/modules/pack'; export { describeProblems } from './src/lib/server/modules/inspect';",
        resolveDir: root, loader: 'ts', sourcefile: 'module-pack.ts',
      },
      outfile: out,
      bundle: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', logLevel: 'warning',
    });
    try {
      packer = await import(pathToFileURL(out).href);
    } finally {
      rmSync(out, { force: true });
    }
  }
  return packer;
}

/** The source of a built entry: `server.mjs` is built from `src/server.ts` (or .tsx, .mts, .js, .mjs). */
function sourceOf(folder, entry) {
  const name = basename(entry, extname(entry));
  for (const ext of SOURCE_EXTENSIONS) {
    const path = join(folder, 'src', `${name}${ext}`);
    if (existsSync(path)) return path;
  }
  return null;
}

/**
 * Builds one module folder into `<outDir>/<uid>-<version>.zip`.
 * `version` overrides the manifest's version and `define` adds esbuild defines (tests build variants
 * of a module this way: tests/helpers/module-build.ts).
 * @param {string} folder
 * @param {{ outDir?: string, version?: string, define?: Record<string, string> }} [options]
 * @returns {Promise<{ uid: string, version: string, zip: string, folder: string, bytes: number, sha256: string, files: string[] }>}
 */
export async function buildModule(folder, options = {}) {
  const src = resolve(folder);
  const outDir = resolve(options.outDir ?? OUT_DIR);
  const manifestText = readFileSync(join(src, 'atrium.json'), 'utf8');
  const manifest = JSON.parse(manifestText);
  const uid = String(manifest.uid);
  // The package's folder, kept beside the zip: `module:pack <outDir>/<uid>` gives the same bytes.
  const stage = join(outDir, uid);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  if (options.version) manifest.version = options.version;
  writeFileSync(join(stage, 'atrium.json'), options.version ? `${JSON.stringify(manifest, null, 2)}\n` : manifestText);

  const bundled = [
    [manifest.entry?.server, 'node'],
    [manifest.entry?.client, 'browser', CLIENT_EXTERNALS],
    [manifest.contributes?.markdown?.browser, 'browser'],
  ].filter(([entry]) => entry);
  for (const [entry, platform, external = []] of bundled) {
    const source = sourceOf(src, entry);
    if (!source) {
      if (!existsSync(join(src, entry))) throw new Error(`${uid}: no source for ${entry} (src/${basename(entry, extname(entry))}.ts) and no ${entry} in ${src}`);
      mkdirSync(dirname(join(stage, entry)), { recursive: true });
      copyFileSync(join(src, entry), join(stage, entry));
      continue;
    }
    await build({
      entryPoints: [source], outfile: join(stage, entry), absWorkingDir: root, nodePaths: [join(root, 'node_modules')],
      bundle: true, format: 'esm', platform, target: platform === 'node' ? 'node22' : 'es2022', external, jsx: 'automatic',
      minify: true, sourcemap: false, legalComments: 'eof', charset: 'utf8', logLevel: 'warning',
      define: { 'process.env.NODE_ENV': '"production"', ...(options.define ?? {}) },
    });
  }
  // The other files the manifest names, as they are.
  const copied = [
    manifest.entry?.css, manifest.contributes?.markdown?.css,
  ].filter((f) => f && !existsSync(join(stage, f)));
  for (const file of copied) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    copyFileSync(join(src, file), join(stage, file));
  }
  for (const extra of ['README.md', 'LICENSE']) {
    if (existsSync(join(src, extra))) copyFileSync(join(src, extra), join(stage, extra));
  }

  const { packModule, describeProblems } = await loadPacker();
  const packed = await packModule(stage);
  if ('problems' in packed) {
    throw new Error(`${uid} is not a valid module package:\n${describeProblems(packed.problems, 'en').map((p) => `  - ${p}`).join('\n')}`);
  }
  const { manifest: inspected, files } = packed.inspection;
  const zip = join(outDir, `${inspected.uid}-${inspected.version}.zip`);
  writeFileSync(zip, packed.zip);
  return {
    uid: inspected.uid, version: inspected.version, zip, folder: stage, bytes: packed.zip.length,
    sha256: createHash('sha256').update(packed.zip).digest('hex'), files: files.map((f) => f.path),
  };
}

/** Every module folder under `modules/` (those with an atrium.json). */
export function moduleFolders() {
  if (!existsSync(MODULES_DIR)) return [];
  return readdirSync(MODULES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(MODULES_DIR, d.name, 'atrium.json')))
    .map((d) => join(MODULES_DIR, d.name))
    .sort();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folders = process.argv.length > 2 ? process.argv.slice(2).map((f) => resolve(f)) : moduleFolders();
  mkdirSync(OUT_DIR, { recursive: true });
  let failed = false;
  for (const folder of folders) {
    try {
      const r = await buildModule(folder);
      console.log(`[atrium] module ${r.uid} ${r.version}: ${join('dist', 'modules', basename(r.zip))}, ${r.files.length} files, ${r.bytes} bytes, sha256 ${r.sha256}`);
    } catch (err) {
      failed = true;
      console.error(`[atrium] module ${basename(folder)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (failed) process.exit(1);
}
