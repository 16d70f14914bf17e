// Memory of the server process while it receives one large upload (budget: RSS grows < 50 MB).
//
//   npm run build && node scripts/node.mjs node bench/upload-memory.mjs [sizeMB=200]
//
// Runs the built server (dist/atrium.mjs) as a child process on a throw-away DATA_DIR and samples
// its RSS from /proc/<pid>/status every 100 ms while a client streams a multipart upload to
// POST /api/ajax/upload. The member and its access token are written straight into the embedded
// database between `--migrate-only` and the real start (PGlite allows one process at a time, and
// the API only signs members in through a click captcha): with TOKEN_SECRET fixed, the stored
// token is HMAC-SHA256(secret, value), exactly what the server computes.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listeningPort, sleep } from './lib/common.mjs';
import { once } from 'node:events';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIZE_MB = Number(process.argv[2] ?? 200);
const BUDGET_MB = 50;
const SECRET = 'upload-memory-bench-secret';

mkdirSync(join(ROOT, 'bench', '.tmp'), { recursive: true });
const work = mkdtempSync(join(ROOT, 'bench', '.tmp', 'upload-'));
const dataDir = join(work, 'data');
const env = { ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, TOKEN_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DEPLOY_POLL_SECONDS: '0' };
delete env.DATABASE_URL;
delete env.REDIS_URL;
let child = null;
const cleanup = () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
};
process.on('SIGINT', () => { cleanup(); process.exit(130); });

function rssKb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

async function prepareDatabase() {
  const migrated = spawnSync(process.execPath, [join(ROOT, 'dist/atrium.mjs'), '--migrate-only'], { env, encoding: 'utf8' });
  if (migrated.status !== 0) throw new Error(`migrate failed:\n${migrated.stderr}`);
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(join(dataDir, 'db'));
  const now = Math.floor(Date.now() / 1000);
  const { rows } = await db.query(
    `insert into "user" (username, nickname, password, join_time, create_time, update_time) values ('bench', 'bench', 'x', $1, $1, $1) returning id`, [now]);
  const token = randomUUID();
  await db.query(`insert into token (token, type, user_id, family, create_time, expire_time) values ($1, 'user', $2, 'bench', $3, $4)`,
    [createHmac('sha256', SECRET).update(token).digest('hex'), rows[0].id, now, now + 3600]);
  await db.query(`update config set value = $1 where name = 'upload_max_size'`, [`${SIZE_MB + 100}mb`]);
  await db.close();
  return token;
}

async function makeFile(path) {
  const block = randomBytes(1024 * 1024);
  const out = createWriteStream(path);
  const hash = createHash('sha1');
  for (let i = 0; i < SIZE_MB; i++) {
    block.writeUInt32BE(i, 0);
    hash.update(block);
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return hash.digest('hex');
}

/** Starts `args` under node with `flags`; resolves its port once it logs "listening on …:port". */
async function startServer(flags = [], args = [join(ROOT, 'dist/atrium.mjs')]) {
  child = spawn(process.execPath, [...flags, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return listeningPort(child, 200);
}

/** The floor: a bare node:http server that writes the body to a file and does nothing else. */
const BARE_SERVER = `
const { createServer } = require('node:http');
const { createWriteStream } = require('node:fs');
const server = createServer((req, res) => {
  const out = createWriteStream(process.env.BARE_OUT);
  req.on('data', (c) => { if (!out.write(c)) { req.pause(); out.once('drain', () => req.resume()); } });
  req.on('end', () => out.end(() => res.end(JSON.stringify({ code: 1, data: null }))));
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

/** Streams `path` as the `file` part of a multipart body; resolves the parsed reply. */
function upload(port, token, path, name, topic = 'bench') {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/zip\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(path).size + tail.length;
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port, method: 'POST', path: `/api/ajax/upload?topic=${topic}`, agent: false,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length), 'ba-user-token': token, 'think-lang': 'en' },
    }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => { try { resolve(JSON.parse(text)); } catch { reject(new Error(`HTTP ${res.statusCode}: ${text}`)); } });
    });
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path);
    file.on('error', reject);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}

/** One server run: warm up, take the idle RSS, upload, return the growth in MB. */
async function measure(label, { flags = [], args, token, big, small, sha1, topic, check = true }) {
  const port = await startServer(flags, args);
  // Warm up: the first upload loads modules and the database paths.
  const warm = await upload(port, token, small, 'warm.zip', topic);
  if (warm.code !== 1) throw new Error(`${label}: warm-up upload failed: ${JSON.stringify(warm)}`);
  const idle = [];
  for (let i = 0; i < 10; i++) { idle.push(rssKb(child.pid)); await sleep(100); }
  const baseline = idle.sort((a, b) => a - b)[Math.floor(idle.length / 2)];
  let peak = baseline;
  let samples = 0;
  const sampler = setInterval(() => { peak = Math.max(peak, rssKb(child.pid)); samples++; }, 100);
  const started = Date.now();
  const reply = await upload(port, token, big, 'big.zip', topic);
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssKb(child.pid));
  child.kill('SIGTERM');
  await once(child, 'exit');
  if (reply.code !== 1) throw new Error(`${label}: upload failed: ${JSON.stringify(reply)}`);
  if (check) {
    if (reply.data.file.sha1 !== sha1 || reply.data.file.size !== SIZE_MB * 1024 * 1024) throw new Error(`${label}: reply does not match the file`);
    if (statSync(join(dataDir, reply.data.file.url)).size !== SIZE_MB * 1024 * 1024) throw new Error(`${label}: stored file has the wrong size`);
  }
  const growth = (peak - baseline) / 1024;
  console.log(`${label.padEnd(34)} ${(SIZE_MB / seconds).toFixed(0).padStart(4)} MB/s  RSS baseline ${(baseline / 1024).toFixed(0).padStart(4)} MB  peak ${(peak / 1024).toFixed(0).padStart(4)} MB  growth ${growth.toFixed(1).padStart(5)} MB  (${samples} samples)`);
  return growth;
}

try {
  const token = await prepareDatabase();
  const small = join(work, 'small.zip');
  const big = join(work, 'big.zip');
  const sha1 = await makeFile(big);
  writeFileSync(small, randomBytes(64 * 1024));
  console.log(`${SIZE_MB} MB multipart upload to POST /api/ajax/upload, server RSS from /proc/<pid>/status every 100 ms`);
  const common = { token, big, small, sha1 };
  const growth = await measure('atrium (node dist/atrium.mjs)', { ...common, topic: 'plain' });
  const withGc = await measure('atrium (node --expose-gc …)', { ...common, topic: 'gc', flags: ['--expose-gc'] });
  env.BARE_OUT = join(work, 'bare.bin');
  await measure('floor: bare node:http to a file', { ...common, args: ['-e', BARE_SERVER], check: false });
  console.log(`RSS growth during the upload: ${growth.toFixed(1)} MB (budget < ${BUDGET_MB} MB): ${growth < BUDGET_MB ? 'PASS' : 'FAIL'}; with --expose-gc ${withGc.toFixed(1)} MB: ${withGc < BUDGET_MB ? 'PASS' : 'FAIL'}`);
  process.exitCode = growth < BUDGET_MB ? 0 : 1;
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  cleanup();
}
