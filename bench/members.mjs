// Members' budgets:
//   login   p50/p95 of real logins (scrypt) at 10 concurrent; budget p95 < 250 ms
//   auth    authenticated GET /api/index/index?requiredLogin=1 serves ≥ 60 % of the anonymous
//           call's requests per second, measured in the same run (token lookup must not dominate)
// The member is made with the operator CLI and the login captcha is switched off for the run
// (`config:set user_login_captcha 0`, an operator setting), so the figure is the password check.
import { request } from 'node:http';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, fmtInt, fmtMs, makeDir, printTable, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium } from './lib/processes.mjs';
import { load } from './lib/load.mjs';

const LOGINS = 200;
const CONCURRENCY = 10;
const P95_BUDGET = 250;
const AUTH_RATIO = 0.6;
// BENCH_MEMBERS_DATABASE_URL: measure on that (empty) PostgreSQL database instead of PGlite.
const DATABASE = process.env.BENCH_MEMBERS_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_MEMBERS_DATABASE_URL } : {};

function cli(dataDir, ...args) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.mjs'), ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...DATABASE },
  });
  if (r.status !== 0) throw new Error(`atrium ${args.join(' ')} failed: ${r.stderr}`);
}

function post(url, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const t0 = performance.now();
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ ms: performance.now() - t0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export async function members(ctx) {
  const dataDir = makeDir(join(ctx.runDir, 'members'));
  cli(dataDir, 'user:create-admin', 'benchuser', 'bench@example.com', 'benchpass1');
  cli(dataDir, 'config:set', 'user_login_captcha', '0');
  // The API and login rate limits would answer a load test with 429s: lift them for this server.
  const server = await startAtrium({ dataDir, env: { API_RATE_LIMIT: '100000000', LOGIN_IP_LIMIT: '100000', ...DATABASE } });
  try {
    const login = { tab: 'login', username: 'benchuser', password: 'benchpass1', keep: false };
    const batchOfLogins = () => Promise.all(Array.from({ length: CONCURRENCY }, () => post(`${server.url}/api/user/checkIn`, login)));
    // Warm-up at full concurrency: every KDF thread has its memory and the login path is compiled,
    // as on a server that has been up for more than a second.
    const cold = (await batchOfLogins()).map((r) => r.ms).sort((a, b) => a - b);
    const times = [];
    let token = '';
    for (let done = 0; done < LOGINS; done += CONCURRENCY) {
      const batch = await batchOfLogins();
      for (const r of batch) {
        if (r.json.code !== 1) throw new Error(`login failed: ${r.json.msg}`);
        times.push(r.ms);
        token = r.json.data.userInfo.token;
      }
    }
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    const loginPass = p95 < P95_BUDGET;

    const check = await new Promise((resolve, reject) => {
      request(`${server.url}/api/index/index?requiredLogin=1`, { headers: { 'ba-user-token': token }, agent: false }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve(JSON.parse(text)));
      }).on('error', reject).end();
    });
    if (check.code !== 1) throw new Error(`the token does not authenticate: ${JSON.stringify(check)}`);
    const anon = await load(`${server.url}/api/index/index?requiredLogin=0`, { connections: ctx.connections, seconds: ctx.seconds, headers: {} });
    const auth = await load(`${server.url}/api/index/index?requiredLogin=1`, { connections: ctx.connections, seconds: ctx.seconds, headers: { 'ba-user-token': token } });
    const ratio = auth.rps / anon.rps;
    const authPass = ratio >= AUTH_RATIO && auth.non2xx === 0;

    console.log(`\nMembers (${DATABASE.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}): ${LOGINS} logins in batches of ${CONCURRENCY} concurrent after one warm-up batch (scrypt N=8192, r=8), then ${ctx.connections} connections × ${ctx.seconds} s per index call\n`);
    const table = printTable(
      ['measure', 'value', 'budget', 'verdict'],
      [
        ['first batch after start (warm-up), slowest', fmtMs(cold[cold.length - 1]), '', ''],
        ['login p50', fmtMs(p50), '', ''],
        ['login p95', fmtMs(p95), `< ${P95_BUDGET} ms`, verdict(loginPass)],
        ['index, visitor (req/s)', fmtInt(anon.rps), '', ''],
        ['index, member with token (req/s)', fmtInt(auth.rps), '', ''],
        ['member / visitor', `${(ratio * 100).toFixed(1)}%`, `≥ ${AUTH_RATIO * 100}%`, verdict(authPass)],
      ],
    );
    const summary = `login p95 ${Math.round(p95)} ms → ${verdict(loginPass)}; authenticated index ${(ratio * 100).toFixed(1)} % of anonymous → ${verdict(authPass)}`;
    console.log(`\n${summary}`);
    return { name: 'members', pass: loginPass && authPass, summary, table };
  } finally {
    await stopAtrium(server);
  }
}
