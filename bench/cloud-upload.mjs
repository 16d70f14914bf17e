// Direct uploads to an object store (s3 mode) against a local Swift + s3api, in one run:
//   1. a Node S3 client (AWS SDK v3, multipart, 5 MB parts, 3 at a time) uploads a file: the reference;
//   2. the same file through the upload queue in Chromium (sha1 in the worker, then presigned parts):
//      throughput ≥ 70 % of the reference, app server CPU ≤ 5 % of one core while it runs;
//   3. sha1 in the browser worker: ≥ 200 MB/s, no long task over 100 ms while it runs;
//   4. resume: a reload at 60 %, then the same file again: bytes sent twice ≤ one part.
//
//   npm run build && node scripts/node.mjs node bench/cloud-upload.mjs [sizeMB=1024]
//
// The server (dist/atrium.mjs) runs on a throw-away PGlite DATA_DIR; the member, its token and the
// upload settings are written into the database before it starts (as bench/upload-memory.mjs does).
import { spawn, spawnSync } from 'node:child_process';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, openSync, readSync, writeSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listeningPort, sleep } from './lib/common.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIZE_MB = Number(process.argv[2] ?? 1024);
const PART = 5 * 1024 * 1024;
const SECRET = 'cloud-upload-bench-secret';

mkdirSync(join(ROOT, 'bench', '.tmp'), { recursive: true });
const work = mkdtempSync(join(ROOT, 'bench', '.tmp', 'cloud-'));
const dataDir = join(work, 'data');
const filePath = join(work, 'big.bin');
const { startSwift } = await import('../tests/helpers/swift.ts');
const swift = await startSwift({ bucket: 'bench' });
const env = {
  ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, TOKEN_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DEPLOY_POLL_SECONDS: '0',
  S3_ACCESS_KEY_ID: swift.accessKeyId, S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
};
delete env.DATABASE_URL;
delete env.REDIS_URL;
let child = null;
let browser = null;
const cleanup = async () => {
  await browser?.close().catch(() => undefined);
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await swift.stop();
  rmSync(work, { recursive: true, force: true });
};
process.on('SIGINT', () => { void cleanup().then(() => process.exit(130)); });

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function makeFile() {
  const out = createWriteStream(filePath);
  const hash = createHash('sha1');
  const block = randomBytes(1024 * 1024);
  for (let i = 0; i < SIZE_MB; i++) {
    block.writeUInt32BE(i, 0);
    hash.update(block);
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return hash.digest('hex');
}

async function prepareDatabase() {
  const migrated = spawnSync(process.execPath, [join(ROOT, 'dist/atrium.mjs'), '--migrate-only'], { env, encoding: 'utf8' });
  if (migrated.status !== 0) throw new Error(`migrate failed:\n${migrated.stderr}`);
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(join(dataDir, 'db'));
  const now = Math.floor(Date.now() / 1000);
  const { rows } = await db.query(`insert into "user" (username, nickname, password, join_time, create_time, update_time) values ('bench', 'bench', 'x', $1, $1, $1) returning id`, [now]);
  const token = randomUUID();
  await db.query(`insert into token (token, type, user_id, family, create_time, expire_time) values ($1, 'user', $2, 'bench', $3, $4)`,
    [createHmac('sha256', SECRET).update(token).digest('hex'), rows[0].id, now, now + 7200]);
  const set = (name, value) => db.query('update config set value = $1 where name = $2', [value, name]);
  await set('upload_max_size', `${SIZE_MB + 100}mb`);
  await set('upload_allowed_suffixes', 'png,bin,zip');
  await set('upload_params', JSON.stringify({ bucket: swift.bucket, region: swift.region, endpoint: swift.endpoint }));
  await set('upload_mode', 's3');
  await db.close();
  return token;
}

async function startServer() {
  child = spawn(process.execPath, ['--expose-gc', join(ROOT, 'dist/atrium.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return listeningPort(child, 900);
}

/** The reference: a plain multipart upload of the file by a Node S3 client, 3 parts at a time. */
async function nodeUpload() {
  const { S3Client, CreateMultipartUploadCommand, UploadPartCommand, CompleteMultipartUploadCommand } = await import('@aws-sdk/client-s3');
  const s3 = new S3Client({ region: swift.region, endpoint: swift.endpoint, forcePathStyle: true, credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
  const Key = 'reference/big.bin';
  const started = performance.now();
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: swift.bucket, Key }));
  const size = SIZE_MB * 1024 * 1024;
  const total = Math.ceil(size / PART);
  const parts = [];
  let next = 1;
  const fd = openSync(filePath, 'r');
  const worker = async () => {
    for (let n = next++; n <= total; n = next++) {
      const buf = Buffer.alloc(Math.min(PART, size - (n - 1) * PART));
      readSync(fd, buf, 0, buf.length, (n - 1) * PART);
      const out = await s3.send(new UploadPartCommand({ Bucket: swift.bucket, Key, UploadId, PartNumber: n, Body: buf }));
      parts.push({ PartNumber: n, ETag: out.ETag });
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  closeSync(fd);
  parts.sort((a, b) => a.PartNumber - b.PartNumber);
  await s3.send(new CompleteMultipartUploadCommand({ Bucket: swift.bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
  return (performance.now() - started) / 1000;
}

async function openProfile(token, port) {
  const { chromium } = await import('@playwright/test');
  browser ??= await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--blink-settings=imagesEnabled=false'] });
  // Images off: the avatar would otherwise load the whole uploaded object back.
  const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}`, locale: 'en-US' });
  await context.addCookies([{ name: 'ba-user-token', value: token, url: `http://127.0.0.1:${port}` }]);
  await context.addInitScript((t) => { localStorage.setItem('ba-user-token', t); }, token);
  const page = await context.newPage();
  await page.goto('/user/account/profile');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  // Long tasks on the main thread while the worker hashes (the page must stay responsive).
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: false });
  });
  return page;
}

/** State and progress of the first queue row, polled every 50 ms until `until(state, value)`. */
async function waitRow(page, until, timeoutMs = 900_000) {
  const started = Date.now();
  for (;;) {
    const row = await page.evaluate(() => window.__atriumUploads?.list().at(-1) ?? null);
    if (row && until(row)) return row;
    if (row?.state === 'error') throw new Error(`upload failed: ${row.error}`);
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting; last ${JSON.stringify(row)}`);
    if (process.env.BENCH_DEBUG && Date.now() % 5000 < 60) console.log('[cloud] row', JSON.stringify(row));
    await sleep(50);
  }
}

const fmt = (n, d = 1) => n.toFixed(d);
const results = [];
/** Part numbers the page saw finish before the reload. */
let partsBeforeReload = new Set();
try {
  console.log(`[cloud] ${SIZE_MB} MB file, Swift at ${swift.endpoint}`);
  await makeFile();
  const token = await prepareDatabase();
  const port = await startServer();

  // 1. The reference.
  const nodeSeconds = await nodeUpload();
  const nodeRate = SIZE_MB / nodeSeconds;
  console.log(`[cloud] Node S3 client: ${fmt(nodeSeconds)} s, ${fmt(nodeRate)} MB/s`);

  // 2–3. Through the queue.
  const page = await openProfile(token, port);
  const t0 = Date.now();
  await page.locator('input[name="avatarFile"]').setInputFiles(filePath);
  await waitRow(page, (r) => r.state === 'checking' || r.state === 'uploading', 120_000);
  const hashStart = Date.now();
  await waitRow(page, (r) => r.state === 'uploading');
  const hashSeconds = (Date.now() - hashStart) / 1000;
  const longTasks = await page.evaluate(() => window.__longTasks.slice());
  const cpuStart = cpuSeconds(child.pid);
  const upStart = Date.now();
  const done = await waitRow(page, (r) => r.state === 'success');
  const upSeconds = (Date.now() - upStart) / 1000;
  const cpu = cpuSeconds(child.pid) - cpuStart;
  const totalSeconds = (Date.now() - t0) / 1000;
  const queueRate = SIZE_MB / upSeconds;
  const cpuPercent = (cpu / upSeconds) * 100;
  const hashRate = SIZE_MB / hashSeconds;
  const maxLong = longTasks.length ? Math.max(...longTasks) : 0;
  console.log(`[cloud] queue: sha1 ${fmt(hashSeconds)} s (${fmt(hashRate)} MB/s, longest main-thread task ${fmt(maxLong, 0)} ms), parts ${fmt(upSeconds)} s (${fmt(queueRate)} MB/s), total ${fmt(totalSeconds)} s; app server CPU ${fmt(cpu, 2)} s = ${fmt(cpuPercent)} % of one core`);
  if (done.size !== SIZE_MB * 1024 * 1024) throw new Error('size mismatch');
  results.push(['queue throughput / Node S3 client (parts phase)', queueRate / nodeRate, 0.7, '≥']);
  results.push(['queue throughput / Node S3 client (sha1 + parts)', (SIZE_MB / totalSeconds) / nodeRate, null, '']);
  results.push(['app server CPU, % of one core', cpuPercent, 5, '≤']);
  results.push(['browser sha1, MB/s', hashRate, 200, '≥']);
  results.push(['longest main-thread task during sha1, ms', maxLong, 100, '≤']);

  // 4. Resume: another file (one byte changed: no dedupe with the first), a reload at 60 %, then
  // the same file chosen again.
  const resumeSha1 = flipFirstByte();
  const first = await resumeRun(page, true);
  const after = await resumeRun(page, false);
  // Parts in flight at the reload that still finished on the store were skipped, not sent again.
  const finishedInFlight = Math.max(0, after.partsSkipped - first.completedParts);
  const twice = Math.max(0, first.inflightBytes - finishedInFlight * PART) + after.resentCompleted * PART;
  console.log(`[cloud] resume: reload at ${fmt(first.atPercent)} % with ${first.completedParts} parts on the store and ${first.inflightBytes} bytes of parts in flight; after it ${after.partsSent} parts sent, ${after.partsSkipped} skipped, ${after.resentCompleted} finished parts sent again; bytes sent twice ${twice} (${fmt(twice / PART, 2)} parts)`);
  results.push(['resume: finished parts sent again', after.resentCompleted, 0, '≤']);
  results.push(['resume: bytes sent twice / part size', twice / PART, 1, '≤']);
  if ((await storedSha1(after.key)) !== resumeSha1) throw new Error('stored sha1 differs from the file');
  console.log('[cloud] the resumed object read back: sha1 matches');
} finally {
  await cleanup();
}

/** Changes the file's first byte (a new sha1) and returns the new sha1. */
function flipFirstByte() {
  const fd = openSync(filePath, 'r+');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, 0);
  b[0] ^= 0xff;
  writeSync(fd, b, 0, 1, 0);
  closeSync(fd);
  const hash = createHash('sha1');
  const buf = Buffer.alloc(8 * 1024 * 1024);
  const rd = openSync(filePath, 'r');
  for (let n; (n = readSync(rd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  closeSync(rd);
  return hash.digest('hex');
}


/** First call: upload until 60 %, then reload. Second: the same file again, to the end. */
async function resumeRun(page, stopAt60) {
  const finished = [];
  const onFinished = async (req) => {
    if (req.method() !== 'PUT' || !req.url().startsWith(swift.endpoint)) return;
    const res = await req.response();
    if (res?.status() === 200) finished.push(Number(new URL(req.url()).searchParams.get('partNumber')));
  };
  page.on('requestfinished', onFinished);
  await page.locator('input[name="avatarFile"]').setInputFiles(filePath);
  if (stopAt60) {
    const row = await waitRow(page, (r) => r.state === 'uploading' && r.loaded >= r.size * 0.6);
    const completedBytes = finished.length * PART;
    page.off('requestfinished', onFinished);
    await page.reload();
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
    partsBeforeReload = new Set(finished);
    return { completedParts: finished.length, completedBytes, inflightBytes: Math.max(0, row.loaded - completedBytes), atPercent: (row.loaded / row.size) * 100 };
  }
  const row = await waitRow(page, (r) => r.state === 'success');
  page.off('requestfinished', onFinished);
  const stats = await page.evaluate((id) => window.__atriumUploads.stats(id), row.id);
  const src = await page.locator('.avatar-row img').getAttribute('src');
  return {
    ...stats, resentCompleted: finished.filter((n) => partsBeforeReload.has(n)).length,
    key: decodeURIComponent(new URL(src).pathname.slice(`/${swift.bucket}/`.length)),
  };
}

async function storedSha1(key) {
  const { S3Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const s3 = new S3Client({ region: swift.region, endpoint: swift.endpoint, forcePathStyle: true, credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey } });
  const out = await s3.send(new GetObjectCommand({ Bucket: swift.bucket, Key: key }));
  const hash = createHash('sha1');
  for await (const chunk of out.Body) hash.update(chunk);
  return hash.digest('hex');
}

console.log('\n| measure | value | budget | pass |\n|---|---|---|---|');
let failed = false;
for (const [name, value, budget, op] of results) {
  const pass = budget === null ? '' : op === '≥' ? value >= budget : value <= budget;
  if (pass === false) failed = true;
  console.log(`| ${name} | ${fmt(value, 2)} | ${budget === null ? '–' : `${op} ${budget}`} | ${pass === '' ? '–' : pass ? 'yes' : 'no'} |`);
}
process.exitCode = failed ? 1 : 0;
