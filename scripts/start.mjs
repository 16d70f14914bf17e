// `npm start`: builds when there is no build (or the sources changed since), then runs the server.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = join(root, 'dist', 'atrium.mjs');

/** Newest modification time under the inputs of the build. */
function newestInput() {
  let newest = 0;
  const visit = (path) => {
    if (!existsSync(path)) return;
    const st = statSync(path);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['src', 'public', 'astro.config.mjs', 'package-lock.json', 'scripts/build.mjs', 'scripts/pglite-template.mjs']) visit(join(root, p));
  return newest;
}

export function buildIfStale() {
  const fresh = existsSync(server) && existsSync(join(root, 'dist/cli.mjs')) && existsSync(join(root, 'dist/server/entry.mjs')) && statSync(server).mtimeMs >= newestInput();
  if (fresh) return;
  console.error(existsSync(server) ? '[atrium] sources changed since the last build: building…' : '[atrium] no build yet: building…');
  const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  buildIfStale();
  process.env.ATRIUM_ROOT ??= root;
  await import(pathToFileURL(server).href);
}
