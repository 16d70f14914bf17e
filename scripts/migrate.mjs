// `npm run db:migrate` / `npm run seed`: applies committed migrations and the default rows, then exits.
// `npm run seed -- --demo` also adds the demo content (Atrium's own forum posts).
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './start.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
buildIfStale();
const r = spawnSync(process.execPath, [join(root, 'dist/atrium.mjs'), '--migrate-only', ...process.argv.slice(2).filter((a) => a === '--demo')], { cwd: root, stdio: 'inherit', env: { ...process.env, ATRIUM_ROOT: root } });
process.exit(r.status ?? 1);
