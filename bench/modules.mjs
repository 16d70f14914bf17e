// Module budgets (issue 26), on a PGlite site seeded with a forum written before math existed:
//   rerender  installing math re-renders every stored post in the background (rerender.ts: batches
//             with a pause between them) without the site's p95 on /ask rising more than 20 %:
//             /ask p95 for a logged-in member (uncached: the page cache serves visitors only) with
//             wrk before the install (the reference, same server, just before), then again for two
//             windows of the same length from the moment the install returns, while the re-render
//             runs (the first one is the budget's: it holds the host's start); the server's
//             "content re-rendered {rows, ms}" line gives the re-render's duration. Rounds: the
//             module is uninstalled between them (every row rendered back without math, no host
//             left) and the median round's ratio is judged. At the end every stored render has
//             render_set math@<version> and the math posts hold MathML; a last load after the
//             re-render shows how much of the difference is the machine.
//   render    renderBody of a typical post with 5 formulas through the module host adds p95 ≤ 5 ms
//             over the same post rendered without modules (interleaved, BENCH_MODULES_RENDERS each);
//             the host's and the bench's CPU and run-queue wait per pair (/proc/<pid>/schedstat)
//             show how much of it is waiting for a core
//   host      the math host ≤ 60 MB resident while running (VmRSS after each re-render and during
//             the renders, VmHWM beside it); before each install and after each uninstall, no
//             `module-host-` process of this site
// The site is made by bench/lib/modules-data.ts (bundled here with esbuild, since it imports the
// app's TypeScript): the member the load logs in as, math published in the site's market from
// dist/modules/math-<version>.zip (`npm run build`), and the posts, rendered with no modules; it is
// made once per size, generator and math package and kept in bench/.tmp/modules-cache/, each run
// working on a copy.
//   BENCH_MODULES_POSTS (10000), BENCH_MODULES_MATH_POSTS (300) size the forum;
//   BENCH_MODULES_SECONDS (15) is each /ask load, BENCH_MODULES_CONNECTIONS (10) its connections,
//   BENCH_MODULES_WARMUP (5) the seconds of load before the first reference (a fresh server
//   compiles); BENCH_MODULES_ROUNDS (3) the install → load → uninstall rounds;
//   BENCH_MODULES_RENDERS (500) the renders of each kind; BENCH_MODULES_INSTALL (cli | api) how
//   math is installed and uninstalled (`atrium module:install math` through the site's socket, or
//   POST /api/modules/lifecycle as an administrator the CLI makes before the server starts).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT, TMP, fmtInt, get, makeDir, printTable, sleep, verdict } from './lib/common.mjs';
import { WRK, startAtrium, stopAtrium, track } from './lib/processes.mjs';
import { run } from './forum.mjs';

const RATIO_BUDGET = 1.2;
const RENDER_P95_ADDED_MS = 5;
const HOST_RSS_MB = 60;
const RERENDER_TIMEOUT_MS = 15 * 60_000;

export const wholeNumber = (name, fallback, min = 1) => {
  const n = Number(process.env[name] || fallback);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${process.env[name]}"`);
  return n;
};

/** VmRSS / VmHWM of a process in MB, or null once it has exited. */
function memMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** Processes whose command line holds `module-host-` (the host's bootstrap file), with their parent and arguments. */
function moduleHosts() {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (!args.some((a) => a.includes('module-host-'))) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.push({ pid: Number(entry), ppid, args });
    } catch { /* exited meanwhile */ }
  }
  return out;
}

export async function bundleData() {
  const outfile = join(TMP, 'modules-data.mjs');
  await build({
    entryPoints: [join(ROOT, 'bench', 'lib', 'modules-data.ts')], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22',
    packages: 'external', logLevel: 'warning',
  });
  return outfile;
}

/**
 * The seeded site for these sizes, made once and kept in bench/.tmp/modules-cache/ under a key of
 * the sizes and a hash of the generator and the math package it publishes (each run works on a
 * copy: the re-render changes it). Newer migrations are applied by the server when it starts.
 */
async function seededSite(script, posts, mathPosts, dataDir) {
  const h = createHash('sha256').update(`${posts} ${mathPosts}\n`);
  for (const f of ['bench/lib/modules-data.ts', 'bench/lib/random.ts']) h.update(`${f}\n`).update(readFileSync(join(ROOT, f)));
  const zips = existsSync(join(ROOT, 'dist', 'modules')) ? readdirSync(join(ROOT, 'dist', 'modules')).filter((f) => /^math-.*\.zip$/.test(f)).sort() : [];
  if (!zips.length) throw new Error('dist/modules/math-<version>.zip is missing: npm run build');
  for (const z of zips) h.update(`${z}\n`).update(readFileSync(join(ROOT, 'dist', 'modules', z)));
  const dir = join(TMP, 'modules-cache', `${posts}p-${mathPosts}m-${h.digest('hex').slice(0, 12)}`);
  let cached = true;
  if (!existsSync(join(dir, 'seed.json'))) {
    cached = false;
    const partial = `${dir}.partial`;
    rmSync(partial, { recursive: true, force: true });
    makeDir(join(partial, 'data'));
    await data(script, ['seed', join(partial, 'data'), String(posts), String(mathPosts)], join(partial, 'seed.json'), 'seeding the modules site');
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  }
  cpSync(join(dir, 'data'), dataDir, { recursive: true });
  return { ...JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')), cached };
}

/** Runs the bundled modules-data.mjs and returns the JSON it wrote. */
export async function data(script, args, out, what) {
  await run([script, ...args, out], {}, what);
  return JSON.parse(readFileSync(out, 'utf8'));
}

export function post(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode, headers: res.headers, json: JSON.parse(text) });
        } catch {
          reject(new Error(`POST ${url} answered ${res.statusCode}: ${text.slice(0, 300)}`));
        }
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Logs in through the API as a browser would; resolves the session cookie header. */
export async function logIn(base, username, password) {
  const r = await post(`${base}/api/user/checkIn`, { tab: 'login', username, password, keep: false }, { origin: base });
  if (r.json.code !== 1) throw new Error(`login as ${username} failed: ${r.json.msg}`);
  const cookies = [].concat(r.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]);
  const session = cookies.find((c) => c.startsWith('ba-user-token='));
  if (!session) throw new Error(`login set no session cookie: ${cookies.join('; ')}`);
  return cookies.join('; ');
}

/** `atrium <args>` against the site's data folder (through its socket while it runs); resolves stdout and the wall time. */
async function cli(dataDir, ...args) {
  const t0 = performance.now();
  const env = { ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  // The site is PGlite: an outer DATABASE_URL/REDIS_URL would point the command elsewhere.
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = track(process.execPath, [join(ROOT, 'dist', 'cli.mjs'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`atrium ${args.join(' ')} failed (code ${code}): ${out}`);
  return { out: out.trim(), ms: performance.now() - t0 };
}

/** wrk on one path with the member's cookies: p50/p95/p99 from a Lua done() (wrk's --latency has no p95). */
async function wrkPage(url, cookie, seconds, connections, scriptDir) {
  const script = join(scriptDir, 'latency.lua');
  writeFileSync(script, `-- Written by bench/modules.mjs: p50/p95/p99 at the end.
done = function(summary, latency, requests)
  io.write(string.format("MODULES-LATENCY %d %d %d %d\\n", latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max))
end
`);
  const started = Date.now();
  const child = track(WRK, ['-t', '2', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '5s', '-s', script, '-H', `Cookie: ${cookie}`, url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const { code } = await child.exited;
  const m = /MODULES-LATENCY (\d+) (\d+) (\d+) (\d+)/.exec(out);
  const rps = /Requests\/sec:\s*([\d.]+)/.exec(out);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  if (code !== 0 || !m || !rps) throw new Error(`wrk failed (code ${code}):\n${out}`);
  return {
    started, ended: Date.now(), load1: loadavg()[0],
    rps: Number(rps[1]), p50: Number(m[1]) / 1000, p95: Number(m[2]) / 1000, p99: Number(m[3]) / 1000, max: Number(m[4]) / 1000,
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN),
    non2xx: Number(/Non-2xx or 3xx responses:\s*(\d+)/.exec(out)?.[1] ?? 0),
    errors: errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

/** The constants of src/lib/server/modules/rerender.ts as the build has them (read from the source: the bench reports what it measured). */
function rerenderSettings() {
  const src = readFileSync(join(ROOT, 'src', 'lib', 'server', 'modules', 'rerender.ts'), 'utf8');
  return { batch: Number(/RERENDER_BATCH = (\d+)/.exec(src)?.[1]), pauseMs: Number(/RERENDER_PAUSE_MS = (\d+)/.exec(src)?.[1]), rest: Number(/RERENDER_REST = ([\d.]+)/.exec(src)?.[1]) };
}

export async function modules(ctx) {
  if (!existsSync(WRK)) throw new Error(`the modules bench needs wrk (${WRK}): apt-get install -y wrk`);
  const posts = wholeNumber('BENCH_MODULES_POSTS', 10_000);
  const mathPosts = wholeNumber('BENCH_MODULES_MATH_POSTS', 300, 0);
  const seconds = wholeNumber('BENCH_MODULES_SECONDS', 15);
  const connections = wholeNumber('BENCH_MODULES_CONNECTIONS', 10);
  const renders = wholeNumber('BENCH_MODULES_RENDERS', 500);
  const warmup = wholeNumber('BENCH_MODULES_WARMUP', 5, 0);
  const roundsWanted = wholeNumber('BENCH_MODULES_ROUNDS', 3);
  const installBy = process.env.BENCH_MODULES_INSTALL || 'cli';
  if (!['cli', 'api'].includes(installBy)) throw new Error(`BENCH_MODULES_INSTALL must be cli or api, got "${installBy}"`);
  const settings = rerenderSettings();
  const work = makeDir(join(ctx.runDir, 'modules'));
  const dataDir = makeDir(join(work, 'data'));
  const script = await bundleData();

  let t0 = performance.now();
  const seeded = await seededSite(script, posts, mathPosts, dataDir);
  console.log(`[modules] ${fmtInt(seeded.posts)} posts (${seeded.mathPosts} with formulas) ${seeded.cached ? `copied from the cache in ${((performance.now() - t0) / 1000).toFixed(1)} s (seeded in ${(seeded.seedMs / 1000).toFixed(1)} s)` : `written in ${((performance.now() - t0) / 1000).toFixed(1)} s`}; ${seeded.published}`);
  console.log(`[modules] render sets before: ${seeded.counts.map((c) => `${c.table} '${c.set}' ${c.rows}`).join(', ')}`);
  if (installBy === 'api') await cli(dataDir, 'user:create-admin', 'benchadmin', 'benchadmin@example.com', 'benchpass1');

  const rounds = [];
  const server = await startAtrium({ dataDir, env: { API_RATE_LIMIT: '100000000', LOGIN_IP_LIMIT: '100000', LOG_LEVEL: 'info' } });
  let result;
  try {
    // The server's lines about modules, and each "content re-rendered" with the time it was logged.
    const log = [];
    const rerenders = [];
    const setChanges = [];
    let buf = '';
    server.child.stderr.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (/module/.test(line)) log.push(`${new Date().toISOString()} ${line}`);
        const set = /module markdown set (\{.*\})/.exec(line);
        if (set) setChanges.push({ at: Date.now(), ...JSON.parse(set[1]) });
        const m = /module markdown: content re-rendered (\{.*\})/.exec(line);
        if (m) rerenders.push({ at: Date.now(), ...JSON.parse(m[1]) });
      }
    });
    /** The first "content re-rendered" logged after `since` with render set `set`. */
    const rerenderDone = async (since, set) => {
      const end = Date.now() + RERENDER_TIMEOUT_MS;
      for (;;) {
        const found = rerenders.find((r) => r.at >= since && r.set === set);
        if (found) return found;
        if (Date.now() > end) throw new Error(`no "content re-rendered" (${set}) within ${RERENDER_TIMEOUT_MS / 60_000} min:\n${log.slice(-20).join('\n')}`);
        await sleep(200);
      }
    };

    const cookie = await logIn(server.url, seeded.member.username, seeded.member.password);
    const admin = installBy === 'api' ? await logIn(server.url, 'benchadmin', 'benchpass1') : null;
    const pageUrl = `${server.url}/ask`;
    for (let i = 0; i < 2; i++) {
      const r = await get(pageUrl, { cookie }, 30_000);
      if (r.status !== 200 || r.headers['x-atrium-cache'] || !r.body.toString('utf8').includes(seeded.member.username)) {
        throw new Error(`GET /ask as the member: ${r.status}, x-atrium-cache=${r.headers['x-atrium-cache']}, member ${r.body.includes(seeded.member.username) ? 'shown' : 'not shown'}`);
      }
    }
    const ours = (h) => h.ppid === server.child.pid || h.args.some((a) => a.startsWith(dataDir));
    const lifecycle = async (action) => {
      if (installBy === 'cli') return cli(dataDir, `module:${action}`, 'math');
      const t = performance.now();
      const r = await post(`${server.url}/api/modules/lifecycle`, { uid: 'math', action }, { cookie: admin, origin: server.url });
      if (r.json.code !== 1) throw new Error(`POST /api/modules/lifecycle ${action} math: ${r.json.msg}`);
      return { out: r.json.msg, ms: performance.now() - t };
    };
    const fmtLoad = (m) => `${fmtInt(m.rps)} req/s, p50 ${m.p50.toFixed(1)} ms, p95 ${m.p95.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, non-2xx ${m.non2xx}, errors ${m.errors} (load ${m.load1.toFixed(2)})`;

    if (warmup > 0) await wrkPage(pageUrl, cookie, warmup, connections, work);
    for (let round = 1; round <= roundsWanted; round++) {
      const hostsBefore = moduleHosts();
      const hostsBeforeOurs = hostsBefore.filter(ours);
      console.log(`[modules] round ${round}: before install ${hostsBeforeOurs.length} module-host- process(es) of this site (${hostsBefore.length} on the machine)`);
      const baseline = await wrkPage(pageUrl, cookie, seconds, connections, work);
      console.log(`[modules] round ${round}: /ask before install: ${fmtLoad(baseline)}`);

      const installStarted = Date.now();
      const install = await lifecycle('install');
      console.log(`[modules] round ${round}: math installed via ${installBy} in ${Math.round(install.ms)} ms: ${install.out.split('\n').at(-1)}`);
      const during = await wrkPage(pageUrl, cookie, seconds, connections, work);
      console.log(`[modules] round ${round}: /ask during the re-render, first ${seconds} s: ${fmtLoad(during)}`);
      const later = await wrkPage(pageUrl, cookie, seconds, connections, work);
      console.log(`[modules] round ${round}: /ask during the re-render, next ${seconds} s: ${fmtLoad(later)}`);
      const done = await rerenderDone(installStarted, 'math@1.0.0');
      const setActive = setChanges.find((c) => c.at >= installStarted && c.set.includes('math@'))?.at ?? null;
      const rerenderStart = done.at - done.ms;
      const overlap = (m) => Math.max(0, Math.min(m.ended, done.at) - Math.max(m.started, rerenderStart));
      console.log(`[modules] round ${round}: re-rendered ${fmtInt(done.rows)} rows in ${(done.ms / 1000).toFixed(1)} s (install started → set active ${setActive ? `${setActive - installStarted} ms` : '?'}); the loads overlapped it for ${(overlap(during) / 1000).toFixed(1)} and ${(overlap(later) / 1000).toFixed(1)} of ${seconds} s`);

      // The host right after its work (it stops after 5 idle minutes).
      const hostMem = moduleHosts().filter(ours).map((h) => ({ ...h, mem: memMb(h.pid) }));
      for (const h of hostMem) console.log(`[modules] round ${round}: host pid ${h.pid} (parent ${h.ppid}${h.ppid === server.child.pid ? ', the site' : ''}): VmRSS ${h.mem?.rss.toFixed(1)} MB, VmHWM ${h.mem?.hwm.toFixed(1)} MB`);
      const r = { round, baseline, during, later, install, done, setActive: setActive ? setActive - installStarted : null, overlapMs: [overlap(during), overlap(later)], hostsBefore, hostsBeforeOurs, hostMem };
      rounds.push(r);

      if (round < roundsWanted) {
        // Back to the state before the install, for the next round: every row rendered again without math.
        const removed = Date.now();
        await lifecycle('uninstall');
        const back = await rerenderDone(removed, '(none)');
        await sleep(1000);
        r.hostsAfterUninstall = moduleHosts().filter(ours);
        console.log(`[modules] round ${round}: uninstalled; ${fmtInt(back.rows)} rows rendered again without math in ${(back.ms / 1000).toFixed(1)} s; ${r.hostsAfterUninstall.length} module-host- process(es) of this site left`);
      }
    }
    const after = await wrkPage(pageUrl, cookie, seconds, connections, work);
    console.log(`[modules] /ask after the last re-render: ${fmtLoad(after)}`);
    const last = rounds.at(-1);
    const hostLate = last.hostMem.map((h) => memMb(h.pid));
    result = { rounds, after, hostLate };
  } finally {
    await stopAtrium(server);
  }

  const checked = await data(script, ['check', dataDir], join(work, 'check.json'), 'reading the render sets');
  const wanted = 'math@1.0.0';
  const stale = checked.counts.filter((c) => c.set !== wanted && c.rows > 0);
  const postRows = checked.counts.filter((c) => c.table === 'ask_post' && c.set === wanted).reduce((a, c) => a + c.rows, 0);
  console.log(`[modules] render sets after: ${checked.counts.map((c) => `${c.table} '${c.set}' ${c.rows}`).join(', ')}; math posts with MathML ${checked.mathml}/${checked.mathPosts}`);

  t0 = performance.now();
  const timed = await data(script, ['render', dataDir, String(renders)], join(work, 'render.json'), 'timing renderBody');
  console.log(`[modules] renderBody, ${renders} each interleaved (${((performance.now() - t0) / 1000).toFixed(1)} s): with math p50 ${timed.math.p50.toFixed(2)} ms p95 ${timed.math.p95.toFixed(2)} ms; without modules p50 ${timed.plain.p50.toFixed(2)} ms p95 ${timed.plain.p95.toFixed(2)} ms; first render (host start) ${timed.coldMs.toFixed(0)} ms`);
  const sp = timed.schedPerPair;
  const schedText = sp.host && sp.bench ? `per pair of renders: host CPU ${sp.host.cpu.toFixed(2)} ms, host waiting for a CPU ${sp.host.wait.toFixed(2)} ms; bench process CPU ${sp.bench.cpu.toFixed(2)} ms, waiting ${sp.bench.wait.toFixed(2)} ms` : 'scheduler figures unavailable';
  console.log(`[modules] ${schedText}; host during the renders: VmRSS ${timed.hostMem?.rss.toFixed(1)} MB, VmHWM ${timed.hostMem?.hwm.toFixed(1)} MB`);

  // Verdicts: the median round's ratio (the machine's own drift moves single rounds both ways).
  const { rounds: rs, after } = result;
  const clean = (m) => m.non2xx === 0 && m.errors === 0;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  for (const r of rs) r.ratio = r.during.p95 / r.baseline.p95;
  const ratio = median(rs.map((r) => r.ratio));
  const ratioOk = ratio <= RATIO_BUDGET && rs.every((r) => clean(r.baseline) && clean(r.during));
  const allRendered = stale.length === 0 && postRows >= posts && checked.mathml === checked.mathPosts && checked.mathPosts >= mathPosts;
  const added = timed.math.p95 - timed.plain.p95;
  const renderOk = added <= RENDER_P95_ADDED_MS;
  const hosts = rs.map((r) => r.hostMem[0]);
  const maxRss = Math.max(...hosts.map((h) => h?.mem?.rss ?? Infinity), timed.hostMem?.rss ?? 0);
  const hostOk = rs.every((r) => r.hostMem.length === 1 && r.hostMem[0].mem !== null) && maxRss <= HOST_RSS_MB;
  const noHostBefore = rs.every((r) => r.hostsBeforeOurs.length === 0 && (r.hostsAfterUninstall?.length ?? 0) === 0);
  const pass = ratioOk && allRendered && renderOk && hostOk && noHostBefore;

  console.log(`\nModules: ${fmtInt(posts)} posts (${checked.mathPosts} with formulas), PGlite; RERENDER_BATCH ${settings.batch}, RERENDER_PAUSE_MS ${settings.pauseMs}, RERENDER_REST ${settings.rest}; /ask as a member, ${connections} connections × ${seconds} s (wrk); math installed via ${installBy}; ${rs.length} round(s) (uninstall between them)\n`);
  const ms = (n) => `${n.toFixed(1)} ms`;
  const loadRow = (label, m) => [label, fmtInt(m.rps), ms(m.p50), ms(m.p95), ms(m.p99), m.non2xx + m.errors, m.load1.toFixed(2)];
  const loadTable = printTable(['/ask as a member', 'req/s', 'p50', 'p95', 'p99', 'non-2xx+errors', 'load (1 min) at end'], [
    ...rs.flatMap((r) => [
      loadRow(`round ${r.round}: before install (reference)`, r.baseline),
      loadRow(`round ${r.round}: re-render, first ${seconds} s (×${r.ratio.toFixed(2)})`, r.during),
      loadRow(`round ${r.round}: re-render, next ${seconds} s (×${(r.later.p95 / r.baseline.p95).toFixed(2)})`, r.later),
    ]),
    loadRow('after the last re-render', after),
  ]);
  console.log('');
  const rerenderText = rs.map((r) => `${fmtInt(r.done.rows)} rows in ${(r.done.ms / 1000).toFixed(1)} s`).join('; ');
  const table = printTable(['measure', 'value', 'budget', 'verdict'], [
    ['/ask p95 during ÷ before, per round', rs.map((r) => `${r.ratio.toFixed(2)} (${ms(r.during.p95)} ÷ ${ms(r.baseline.p95)})`).join('; '), '', ''],
    ['/ask p95 during ÷ before, median round', ratio.toFixed(2), `≤ ${RATIO_BUDGET.toFixed(2)}`, verdict(ratioOk)],
    ['re-render after install: rows, wall time', rerenderText, '', ''],
    ['install → set active (host unpacked, set switched)', rs.map((r) => `${r.setActive ?? '?'} ms`).join('; '), '', ''],
    ['render sets after', checked.counts.map((c) => `${c.table} ${c.set || "''"} ${fmtInt(c.rows)}`).join(', '), `all ${wanted}`, verdict(stale.length === 0 && postRows >= posts)],
    ['math posts with MathML', `${checked.mathml}/${checked.mathPosts}`, 'all', verdict(checked.mathml === checked.mathPosts && checked.mathPosts >= mathPosts)],
    ['renderBody with math p50 / p95', `${timed.math.p50.toFixed(2)} / ${timed.math.p95.toFixed(2)} ms`, '', ''],
    ['renderBody without modules p50 / p95', `${timed.plain.p50.toFixed(2)} / ${timed.plain.p95.toFixed(2)} ms`, '', ''],
    ['scheduler, per pair of renders (/proc/…/schedstat)', schedText.replace('per pair of renders: ', ''), '', ''],
    ['p95 added by math (5 formulas)', `${added.toFixed(2)} ms (p50 +${(timed.math.p50 - timed.plain.p50).toFixed(2)} ms)`, `≤ ${RENDER_P95_ADDED_MS} ms`, verdict(renderOk)],
    ['math host VmRSS after each re-render; during the renders', `${hosts.map((h) => (h?.mem ? `${h.mem.rss.toFixed(1)} MB (HWM ${h.mem.hwm.toFixed(1)})` : 'no host')).join('; ')}; ${timed.hostMem ? `${timed.hostMem.rss.toFixed(1)} MB (HWM ${timed.hostMem.hwm.toFixed(1)})` : '?'}`, `≤ ${HOST_RSS_MB} MB`, verdict(hostOk)],
    ['module-host- processes of the site before each install / after each uninstall', `${rs.map((r) => r.hostsBeforeOurs.length).join(', ')} / ${rs.slice(0, -1).map((r) => r.hostsAfterUninstall.length).join(', ') || '–'}`, '0', verdict(noHostBefore)],
  ]);
  const summary = `/ask p95 during the re-render ÷ before: ${rs.map((r) => r.ratio.toFixed(2)).join(', ')} (median ${ratio.toFixed(2)}, ≤ ${RATIO_BUDGET}) → ${verdict(ratioOk)}; ${fmtInt(rs[0].done.rows)} rows re-rendered in ${rs.map((r) => (r.done.ms / 1000).toFixed(1)).join(', ')} s (batch ${settings.batch}, pause ${settings.pauseMs} ms, rest ×${settings.rest}), all ${wanted} → ${verdict(allRendered)}; render p95 +${added.toFixed(2)} ms (≤ ${RENDER_P95_ADDED_MS}) → ${verdict(renderOk)}; host ≤ ${maxRss.toFixed(1)} MB (≤ ${HOST_RSS_MB}) → ${verdict(hostOk)}; no host before install → ${verdict(noHostBefore)}`;
  console.log(`\n${summary}`);
  return { name: 'modules', pass, summary, table: [loadTable, '', table].join('\n'), result, checked, timed, settings };
}
