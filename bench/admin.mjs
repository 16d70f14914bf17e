// Operator figures (issue 18): a CLI command while the site runs (through DATA_DIR/atrium.sock)
// against the same command on the stopped site (the CLI opens PGlite itself), and a backup of the
// demo site. Run: node scripts/node.mjs node bench/admin.mjs (after npm run build).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(join(tmpdir(), 'atrium-bench-admin-'));
const env = { ...process.env, ATRIUM_ROOT: root, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' };
delete env.DATABASE_URL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cli(...args) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.mjs'), ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t;
}

const load = loadavg()[0].toFixed(1);
// A seeded site with the demo forum and market.
const seed = spawnSync(process.execPath, [join(root, 'dist/atrium.mjs'), '--migrate-only', '--demo'], { env, encoding: 'utf8' });
if (seed.status !== 0) throw new Error(seed.stderr);

const stopped = [];
for (let i = 0; i < ROUNDS; i++) stopped.push(cli('config:get', 'site_name'));

const server = spawn(process.execPath, [join(root, 'dist/atrium.mjs')], { env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });
await new Promise((resolve) => server.stderr.on('data', (d) => { if (/listening on/.test(String(d))) resolve(); }));
const running = [];
for (let i = 0; i < ROUNDS; i++) running.push(cli('config:get', 'site_name'));
const file = join(dataDir, 'bench.backup.gz');
const backupMs = cli('backup', file);
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));

console.log(`load average at start ${load}; ${ROUNDS} rounds each`);
console.log(`| command | median ms | vs stopped site |`);
console.log(`|---|---:|---:|`);
console.log(`| config:get, site stopped (CLI opens PGlite) | ${median(stopped).toFixed(0)} | 100 % |`);
console.log(`| config:get, site running (socket) | ${median(running).toFixed(0)} | ${((median(running) / median(stopped)) * 100).toFixed(0)} % |`);
console.log(`| backup of the demo site, site running | ${backupMs.toFixed(0)} | ${(statSync(file).size / 1024).toFixed(0)} KB file |`);
rmSync(dataDir, { recursive: true, force: true });
