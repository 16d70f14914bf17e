// Every process the bench starts (Atrium servers, nginx, wrk) goes through here, so that an error,
// a failed budget or Ctrl-C never leaves one running on the machine.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { HOST, ROOT, freePort, get, makeDir, sleep } from './common.mjs';

const live = new Set();

const TASKSET = '/usr/bin/taskset';
let pinned = false;

/**
 * Pins what is spawned from now on (with `taskset`, which execs: the pid stays the process's own):
 * the load generator on CPU 1, every server on CPU 0 with all its threads. Unpinned, the scheduler
 * moves wrk and the server between the two cores of this machine from run to run, and the same
 * server measured twice in a row differs by a third; pinned, by a few percent. Needs taskset and two
 * CPUs; returns whether pinning is on.
 */
export function pinProcesses(on) {
  pinned = on && existsSync(TASKSET) && availableParallelism() >= 2;
  return pinned;
}

/** Spawns a tracked child; it leaves the set when it exits. */
export function track(command, args, options) {
  const child = pinned ? spawn(TASKSET, ['-c', command === WRK ? '1' : '0', command, ...args], options) : spawn(command, args, options);
  live.add(child);
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
    // spawn failures (ENOENT…) emit 'error' without 'exit'.
    child.once('error', (err) => {
      live.delete(child);
      resolve({ code: null, signal: null, error: err });
    });
  });
  return child;
}

/** Sends `signal`, waits up to `graceMs` for the exit, then SIGKILLs. Resolves the exit status. */
export async function stop(child, signal = 'SIGTERM', graceMs = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null || !live.has(child)) return child.exited;
  child.kill(signal);
  const timer = sleep(graceMs).then(() => 'timeout');
  if ((await Promise.race([child.exited, timer])) === 'timeout') {
    child.kill('SIGKILL');
    const status = await child.exited;
    return { ...status, forced: true };
  }
  return child.exited;
}

export async function stopAll() {
  await Promise.all([...live].map((c) => stop(c, 'SIGTERM', 5000)));
}

let interruptedBy = null;
/** The signal that interrupted the bench, if any: errors raised while it unwinds are not news. */
export const interrupted = () => interruptedBy;

// Ctrl-C / kill: stop our children first, then leave with the conventional status.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(sig, () => {
    interruptedBy = sig;
    console.error(`\n[bench] ${sig}: stopping ${live.size} child process(es)…`);
    stopAll().finally(() => process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 })[sig]));
  });
}
// Last resort if the bench dies some other way: 'exit' handlers must be synchronous.
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** Environment for an Atrium server, free of settings from the caller's shell that would change what we measure. */
function atriumEnv(dataDir, port, extra) {
  const env = { ...process.env };
  // An outer DATABASE_URL/REDIS_URL would swap PGlite for Postgres/Redis; SITE_DOMAIN would change
  // routing; PAGE_CACHE_MB must be the default unless the caller sets it.
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SITE_DOMAIN', 'PAGE_CACHE_MB', 'LOG_LEVEL', 'TRUST_PROXY']) delete env[k];
  return { ...env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, PORT: String(port), HOST, ...extra };
}

const LISTENING = /listening on http:\/\/\S+:(\d+) \(ready in (\d+) ms\)/;

/**
 * Starts dist/atrium.mjs and resolves once it logs "listening on …". Returns the child, its port,
 * the server's own "ready in N ms", and the wall time from spawn to that log line. `port` is picked
 * by the caller when it needs to poll the server before it reports itself ready.
 */
export async function startAtrium({ dataDir, env = {}, port, timeoutMs = 60_000, cgroupProcs }) {
  port ??= await freePort();
  const t0 = performance.now();
  // cgroupProcs: a cgroup's cgroup.procs file the server runs in (a shell joins it, then execs node: same pid).
  const [command, args] = cgroupProcs
    ? ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', cgroupProcs, process.execPath, join(ROOT, 'dist', 'atrium.mjs')]]
    : [process.execPath, [join(ROOT, 'dist', 'atrium.mjs')]];
  const child = track(command, args, {
    cwd: ROOT,
    env: atriumEnv(dataDir, port, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = [];
  const ready = new Promise((resolve, reject) => {
    const onLine = (line) => {
      log.push(line);
      if (log.length > 200) log.shift();
      const m = LISTENING.exec(line);
      if (m) resolve({ readyInMs: Number(m[2]), logLineMs: performance.now() - t0 });
    };
    for (const stream of [child.stdout, child.stderr]) {
      let buf = '';
      stream.setEncoding('utf8');
      stream.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          onLine(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
    }
    child.exited.then(({ code, signal, error }) =>
      reject(new Error(`Atrium exited before listening (code ${code}, signal ${signal}${error ? `, ${error.message}` : ''}):\n${log.slice(-15).join('\n')}`)),
    );
    setTimeout(() => reject(new Error(`Atrium did not log "listening" within ${timeoutMs} ms:\n${log.slice(-15).join('\n')}`)), timeoutMs).unref();
  });
  try {
    const r = await ready;
    // Atrium logs "listening" a moment before it installs its SIGTERM handler; a SIGTERM in that
    // window kills it uncleanly (PGlite not closed). One answered /healthz means main() has
    // finished, so every later stop() is a clean shutdown.
    const url = `http://${HOST}:${port}`;
    for (let i = 0; ; i++) {
      const h = await get(`${url}/healthz`, {}, 2000).catch(() => null);
      if (h?.status === 200) break;
      if (i >= 100) throw new Error(`Atrium logged "listening" but /healthz did not answer 200 (last status ${h?.status})`);
      await sleep(20);
    }
    return { child, port, url, t0, log, ...r };
  } catch (err) {
    await stop(child);
    throw err;
  }
}

/** Stops an Atrium server with SIGTERM (it drains and exits 0) and warns if it did not. */
export async function stopAtrium(server) {
  const { code, signal, forced } = await stop(server.child);
  if (code !== 0 || forced) console.error(`[bench] warning: Atrium on port ${server.port} exited with code ${code}, signal ${signal}${forced ? ' (killed after timeout)' : ''}`);
}

// Debian's paths (apt-get install -y nginx-light wrk); BENCH_NGINX / BENCH_WRK point elsewhere.
export const NGINX = process.env.BENCH_NGINX || '/usr/sbin/nginx';
export const WRK = process.env.BENCH_WRK || '/usr/bin/wrk';

/** Which of nginx's temp-path directives this build knows (nginx-light may drop some modules). */
function nginxTempDirectives() {
  // `nginx -V` prints its configure arguments to stderr.
  const r = spawnSync(NGINX, ['-V'], { encoding: 'utf8' });
  const info = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const modules = { client_body: null, proxy: 'http_proxy', fastcgi: 'http_fastcgi', uwsgi: 'http_uwsgi', scgi: 'http_scgi' };
  return Object.entries(modules).filter(([, m]) => !m || !info.includes(`--without-${m}_module`)).map(([k]) => k);
}

/**
 * Starts nginx in the foreground serving `docRoot/index.html` on a free loopback port, with a
 * minimal config of our own: no access log, long keep-alive, pid/logs/temp files inside `dir`.
 */
export async function startNginx({ dir, docRoot }) {
  if (!existsSync(NGINX)) return null;
  const port = await freePort();
  makeDir(dir);
  const temps = nginxTempDirectives().map((k) => `  ${k}_temp_path ${makeDir(join(dir, `${k}_temp`))};`).join('\n');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `# Written by bench/run.mjs: the smallest config that serves one file fast, for the serve budget.
daemon off;
master_process on;
worker_processes auto;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  types { text/html html; }
  default_type text/html;
  sendfile on;
  keepalive_requests 100000;
  keepalive_timeout 65;
${temps}
  server {
    listen ${HOST}:${port};
    root ${docRoot};
    index index.html;
  }
}
`,
  );
  // -e: nginx opens its compiled-in error log before reading the config; keep that inside dir too.
  const child = track(NGINX, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = `http://${HOST}:${port}/`;
  // Poll until it answers (bounded: 250 × 20 ms).
  for (let i = 0; i < 250; i++) {
    if (!live.has(child)) throw new Error(`nginx exited at start: ${stderr.trim()}`);
    try {
      const r = await get(url, {}, 1000);
      if (r.status) return { child, port, url, conf };
    } catch {
      /* not listening yet */
    }
    await sleep(20);
  }
  await stop(child);
  throw new Error(`nginx did not answer on ${url} within 5 s: ${stderr.trim()}`);
}

/** Starts bench/lib/bare-server.mjs (plain node:http, same bytes) and resolves once it listens. */
export async function startBare(file) {
  const port = await freePort();
  const child = track(process.execPath, [join(ROOT, 'bench', 'lib', 'bare-server.mjs'), file, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const listening = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => { if (String(d).includes('listening')) resolve(); });
    child.exited.then(({ code }) => reject(new Error(`bare node:http server exited (code ${code})`)));
    setTimeout(() => reject(new Error('bare node:http server did not start within 10 s')), 10_000).unref();
  });
  try {
    await listening;
  } catch (err) {
    await stop(child);
    throw err;
  }
  return { child, port, url: `http://${HOST}:${port}/` };
}
