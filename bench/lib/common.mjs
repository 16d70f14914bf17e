// Shared bits of the benchmark: paths, temp folders, free ports, raw HTTP requests and tables.
import { spawnSync } from 'node:child_process';
import { mkdirSync, chmodSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Git-ignored scratch space: databases, nginx config, the static copy of the page. */
export const TMP = join(ROOT, 'bench', '.tmp');
export const HOST = '127.0.0.1';

/**
 * Creates a folder that nginx's workers can read. When the bench runs as root, nginx drops its
 * workers to `nobody`, so a private (0700) folder would turn every request into a 403.
 */
export function makeDir(path) {
  mkdirSync(path, { recursive: true });
  chmodSync(path, 0o755);
  return path;
}

/** Asks the kernel for a free loopback port. The tiny race before the real server binds it is acceptable here. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One GET over a fresh connection, body left as sent on the wire (no decompression): the bytes
 * budget needs the compressed sizes, and fetch() would silently inflate br/gzip.
 * Resolves { status, headers, body, headerBytes } or rejects on a network error or timeout.
 */
export function get(url, headers = {}, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        // Approximate size of the status line and headers as sent (HTTP/1.1, `name: value\r\n`).
        let headerBytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n\r\n`.length;
        for (let i = 0; i < res.rawHeaders.length; i += 2) headerBytes += res.rawHeaders[i].length + 2 + Buffer.byteLength(res.rawHeaders[i + 1]) + 2;
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), headerBytes });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/** Prints rows (arrays of cells) as an aligned text table; numbers are right-aligned. */
export function printTable(head, rows) {
  const cells = [head, ...rows].map((r) => r.map((c) => (c === undefined || c === null ? '' : String(c))));
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = head.map((_, i) => rows.every((r) => typeof r[i] === 'number' || r[i] === '' || r[i] == null || /^[\d.,]+( ms| KB| B|%)?$/.test(String(r[i]))));
  const line = (r) => '| ' + r.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ') + ' |';
  const out = [line(cells[0]), '|' + widths.map((w, i) => (numeric[i] ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|') + '|', ...cells.slice(1).map(line)];
  console.log(out.join('\n'));
  return out.join('\n');
}

export const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
export const fmtMs = (n) => `${Math.round(n)} ms`;
export const verdict = (ok) => (ok ? 'PASS' : 'FAIL');

let clockTicks;
/**
 * CPU time (ms, user + system) used so far by a process and its direct children (nginx's workers
 * are children of its master), from /proc. Unlike req/s, CPU per request barely moves when other
 * work shares the machine, so it shows the servers' own cost. Null where /proc is missing.
 */
export function cpuMs(pid) {
  if (!existsSync(`/proc/${pid}/stat`)) return null;
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
  // Fields after the ")" that ends the command name: [1] ppid, [11] utime, [12] stime.
  const fields = (p) => {
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      return s.slice(s.lastIndexOf(')') + 2).split(' ');
    } catch {
      return null; // exited meanwhile
    }
  };
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = fields(entry);
    if (f && (entry === String(pid) || f[1] === String(pid))) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / clockTicks;
}

/** CPU ms of each thread of a process by thread name (/proc/<pid>/task/<tid>/comm), threads of one name summed. */
export function threadCpuMs(pid) {
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
  const out = {};
  let tasks = [];
  try { tasks = readdirSync(`/proc/${pid}/task`); } catch { return out; }
  for (const tid of tasks) {
    try {
      const s = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      // Worker threads are all called "node": told apart by thread id (the main thread's is the pid).
      const name = tid === String(pid) ? 'main' : comm === 'node' ? `node#${tid}` : comm;
      out[name] = (out[name] ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / clockTicks;
    } catch { /* exited meanwhile */ }
  }
  return out;
}

/** `after − before` of two threadCpuMs() readings, as "name 12 ms, …" (largest first, zeros left out). */
export function threadCpuDiff(before, after, per = 1) {
  return Object.entries(after).map(([name, ms]) => [name, (ms - (before[name] ?? 0)) / per]).filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(', ');
}

/** The port a spawned server logs as "listening on http://host:port", polled every 100 ms for `tries` polls. */
export async function listeningPort(child, tries) {
  let logs = '';
  child.stdout.on('data', (d) => { logs += d; });
  child.stderr.on('data', (d) => { logs += d; });
  for (let i = 0; i < tries; i++) {
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(logs);
    if (m) return Number(m[1]);
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`server did not start:\n${logs}`);
}
