// `npm run atrium -- <command>`: builds if needed, then runs the operator CLI (src/server/cli.ts).
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './start.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
buildIfStale();
const r = spawnSync(process.execPath, [join(root, 'dist/cli.mjs'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env: { ...process.env, ATRIUM_ROOT: process.env.ATRIUM_ROOT ?? root } });
process.exit(r.status ?? 1);
