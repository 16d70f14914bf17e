// Install to effective on two instances (issue 26 budget: ≤ 2 s). Two built servers on one
// PostgreSQL database and one Redis (each with its own data folder: instance B has never seen the
// package and unpacks it from the copy the market keeps in the database), math published in the
// site's market but not installed, and one post with two formulas. A round: the administrator
// installs math through instance A (`POST /api/modules/lifecycle`, as the console does); from the
// moment the request is sent, the post is fetched from each instance as a visitor (cached pages
// included) every 20 ms until its HTML holds MathML; the round's figure is the later of the two.
// Then math is uninstalled the same way and timed until both show the source text again (the host
// stops: the next install starts it cold). Quiet rounds first, then the same rounds while wrk loads
// `/ask` on both instances as a logged-in member (uncached pages: the site's real work).
//   BENCH_MODULES_DATABASE_URL  an empty PostgreSQL database (required; without it the step is skipped)
//   BENCH_MODULES_REDIS_URL     Redis (required with it)
//   BENCH_MODULES_INSTALL_ROUNDS (5) rounds of each kind; BENCH_MODULES_CONNECTIONS (10) wrk's connections
import { join } from 'node:path';
import { fmtInt, get, makeDir, printTable, sleep, verdict } from './lib/common.mjs';
import { WRK, startAtrium, stopAtrium, track } from './lib/processes.mjs';
import { bundleData, data, logIn, post, wholeNumber } from './modules.mjs';

const EFFECTIVE_MS = 2000;
const POLL_MS = 20;
const ROUND_TIMEOUT_MS = 60_000;
const PG_URL = process.env.BENCH_MODULES_DATABASE_URL;
const REDIS_URL = process.env.BENCH_MODULES_REDIS_URL;
const MATH = /<span class="md-ext" data-ext="math"><math/;

/** Fetches `path` from every server every POLL_MS until `holds` its body; resolves each server's ms since `since`. */
async function untilAll(servers, path, holds, since) {
  return Promise.all(servers.map(async (s) => {
    for (;;) {
      const r = await get(`${s.url}${path}`, {}, 10_000).catch(() => null);
      if (r?.status === 200 && holds(r.body.toString('utf8'))) return performance.now() - since;
      if (performance.now() - since > ROUND_TIMEOUT_MS) throw new Error(`${s.url}${path} did not change within ${ROUND_TIMEOUT_MS / 1000} s`);
      await sleep(POLL_MS);
    }
  }));
}

/** wrk on each server's /ask as the member, until `stop()` is called. */
function loadBoth(servers, cookie, connections) {
  const children = servers.map((s) => track(WRK, ['-t', '1', '-c', String(connections), '-d', '600s', '--timeout', '5s', '-H', `Cookie: ${cookie}`, `${s.url}/ask`], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const outs = children.map((c) => {
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    return () => out;
  });
  return {
    async stop() {
      for (const c of children) c.kill('SIGINT');
      await Promise.all(children.map((c) => c.exited));
      return outs.map((o) => Number(/Requests\/sec:\s*([\d.]+)/.exec(o())?.[1] ?? NaN));
    },
  };
}

export async function moduleInstall(ctx) {
  if (!PG_URL || !REDIS_URL) {
    const summary = 'skipped: set BENCH_MODULES_DATABASE_URL (an empty PostgreSQL database) and BENCH_MODULES_REDIS_URL';
    console.log(`[module-install] ${summary}`);
    return { name: 'module-install', pass: true, summary, table: '' };
  }
  const rounds = wholeNumber('BENCH_MODULES_INSTALL_ROUNDS', 5);
  const connections = wholeNumber('BENCH_MODULES_CONNECTIONS', 10);
  const work = makeDir(join(ctx.runDir, 'module-install'));
  const dirs = ['a', 'b'].map((n) => makeDir(join(work, n)));
  const script = await bundleData();
  const site = await data(script, ['pg-site', PG_URL, dirs[0]], join(work, 'site.json'), 'preparing the PostgreSQL site');
  console.log(`[module-install] ${site.published}; post ${site.postId}`);
  const env = { DATABASE_URL: PG_URL, REDIS_URL, REDIS_PREFIX: `benchmodinst${Date.now().toString(36)}:`, API_RATE_LIMIT: '100000000', LOGIN_IP_LIMIT: '100000', LOG_LEVEL: 'info' };
  const servers = [];
  const results = [];
  try {
    for (const dataDir of dirs) servers.push(await startAtrium({ dataDir, env }));
    // The servers' lines about modules, timed, to show where a round's time went (BENCH_MODULES_INSTALL_TRACE=1).
    const trace = [];
    servers.forEach((s, i) => {
      let buf = '';
      s.child.stderr.on('data', (d) => {
        buf += d;
        for (let n; (n = buf.indexOf('\n')) >= 0; buf = buf.slice(n + 1)) {
          const line = buf.slice(0, n);
          if (/module/.test(line)) trace.push({ at: performance.now(), who: 'AB'[i], line: line.slice(0, 220) });
        }
      });
    });
    const show = (since) => {
      if (process.env.BENCH_MODULES_INSTALL_TRACE !== '1') return;
      for (const e of trace.filter((x) => x.at >= since)) console.log(`    +${Math.round(e.at - since)} ms ${e.who}: ${e.line}`);
    };
    const [a] = servers;
    const admin = await logIn(a.url, site.admin.username, site.admin.password);
    const path = `/ask/info/${site.postId}`;
    const lifecycle = async (action) => {
      const r = await post(`${a.url}/api/modules/lifecycle`, { uid: 'math', action }, { cookie: admin, origin: a.url });
      if (r.json.code !== 1) throw new Error(`POST /api/modules/lifecycle ${action} math: ${r.json.msg}`);
    };
    // Both instances show the source text and have served the page once (compiled, cached).
    await untilAll(servers, path, (html) => !MATH.test(html) && html.includes('$E=mc^2$'), performance.now());

    for (const loaded of [false, true]) {
      const load = loaded ? loadBoth(servers, admin, connections) : null;
      if (load) await sleep(3000);
      for (let round = 1; round <= rounds; round++) {
        let t = performance.now();
        const installed = lifecycle('install').then(() => performance.now() - t);
        const on = await untilAll(servers, path, (html) => MATH.test(html), t);
        const answered = await installed;
        show(t);
        await sleep(500);
        t = performance.now();
        const removedAnswer = lifecycle('uninstall').then(() => performance.now() - t);
        const off = await untilAll(servers, path, (html) => !MATH.test(html) && html.includes('$E=mc^2$'), t);
        const removed = await removedAnswer;
        const r = { loaded, round, answered, on, removed, off };
        results.push(r);
        console.log(`[module-install] ${loaded ? 'under load' : 'quiet'}, round ${round}: install answered in ${Math.round(answered)} ms, MathML on A ${Math.round(on[0])} ms, on B ${Math.round(on[1])} ms; uninstall answered in ${Math.round(removed)} ms, source text on A ${Math.round(off[0])} ms, on B ${Math.round(off[1])} ms`);
        await sleep(1000);
      }
      if (load) {
        const rps = await load.stop();
        console.log(`[module-install] load during those rounds: /ask as a member ${rps.map((x) => `${fmtInt(x)} req/s`).join(' and ')} (A and B)`);
        for (const r of results.filter((x) => x.loaded)) r.rps = rps;
      }
    }
  } finally {
    for (const s of servers) await stopAtrium(s);
  }

  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  const worst = (xs) => Math.max(...xs);
  const row = (loaded) => {
    const rs = results.filter((r) => r.loaded === loaded);
    const both = rs.map((r) => Math.max(...r.on));
    const back = rs.map((r) => Math.max(...r.off));
    return { rs, both, back, median: median(both), worst: worst(both) };
  };
  const quiet = row(false);
  const busy = row(true);
  const ms = (n) => `${Math.round(n)} ms`;
  const pass = quiet.worst <= EFFECTIVE_MS;
  const table = printTable(['install → MathML on both instances', 'per round (A / B)', 'median of the later', 'worst', 'budget', 'verdict'], [
    ['quiet', quiet.rs.map((r) => `${ms(r.on[0])} / ${ms(r.on[1])}`).join('; '), ms(quiet.median), ms(quiet.worst), `≤ ${EFFECTIVE_MS} ms`, verdict(pass)],
    [`/ask loaded on both (${connections} connections each)`, busy.rs.map((r) => `${ms(r.on[0])} / ${ms(r.on[1])}`).join('; '), ms(busy.median), ms(busy.worst), '', ''],
    ['uninstall → source text on both, quiet', quiet.rs.map((r) => `${ms(r.off[0])} / ${ms(r.off[1])}`).join('; '), ms(median(quiet.back)), ms(worst(quiet.back)), '', ''],
    ['uninstall → source text on both, loaded', busy.rs.map((r) => `${ms(r.off[0])} / ${ms(r.off[1])}`).join('; '), ms(median(busy.back)), ms(worst(busy.back)), '', ''],
  ]);
  const summary = `install → MathML on both instances: quiet median ${ms(quiet.median)}, worst ${ms(quiet.worst)} (≤ ${EFFECTIVE_MS} ms) → ${verdict(pass)}; under load median ${ms(busy.median)}, worst ${ms(busy.worst)}`;
  console.log(`\n${summary}`);
  return { name: 'module-install', pass, summary, table, results };
}
