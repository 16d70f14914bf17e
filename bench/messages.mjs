// Message center budgets:
//   count     GET /api/interaction/count for a logged-in member serves ≥ 50 % of the cached
//             anonymous home page's requests per second, same run (the count is kept in memory)
//   streams   10,000 idle /api/interaction/stream connections on one instance: RSS growth
//             ≤ 300 MB (≤ 30 KB each), reported against a bare node:http SSE server in the same run
//   delivery  1,000 streams over two instances on PostgreSQL + Redis: a private message sent on
//             either instance reaches every stream of its recipient with p99 ≤ 250 ms. Needs
//             BENCH_MESSAGES_DATABASE_URL (an empty PostgreSQL database) and BENCH_MESSAGES_REDIS_URL;
//             skipped without them.
// BENCH_STREAMS (10000) and BENCH_DELIVERY_STREAMS (1000) change the connection counts.
import { connect } from 'node:net';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { HOST, ROOT, fmtInt, freePort, makeDir, printTable, sleep, verdict } from './lib/common.mjs';
import { startAtrium, stopAtrium, track, stop } from './lib/processes.mjs';
import { load } from './lib/load.mjs';

const COUNT_RATIO = 0.5;
const STREAMS = Number(process.env.BENCH_STREAMS || 10_000);
const PER_STREAM_BUDGET_KB = 30;
const DELIVERY_STREAMS = Number(process.env.BENCH_DELIVERY_STREAMS || 1000);
const DELIVERY_SENDS = 200;
const DELIVERY_P99_BUDGET = 250;
const PG_URL = process.env.BENCH_MESSAGES_DATABASE_URL;
const REDIS_URL = process.env.BENCH_MESSAGES_REDIS_URL;
const PASSWORD = 'benchpass1';

function cli(dataDir, env, ...args) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.mjs'), ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
  });
  if (r.status !== 0) throw new Error(`atrium ${args.join(' ')} failed: ${r.stderr}`);
}

async function call(url, path, { token, body } = {}) {
  const res = await fetch(url + path, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json', ...(token ? { 'ba-user-token': token } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

async function login(url, username) {
  const r = await call(url, '/api/user/checkIn', { body: { tab: 'login', username, password: PASSWORD, keep: false } });
  if (r.code !== 1) throw new Error(`login ${username}: ${r.msg}`);
  return r.data.userInfo.token;
}

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/**
 * Opens one raw stream connection and resolves once the server has answered (first bytes);
 * `onData` sees every later chunk. Plain sockets: the client side must stay light for 10,000.
 */
function openStream(port, path, headers, onData) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST);
    socket.setNoDelay(true);
    let answered = false;
    socket.once('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAccept: text/event-stream\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
    });
    socket.on('data', (chunk) => {
      if (!answered) {
        answered = true;
        if (!chunk.toString('latin1').startsWith('HTTP/1.1 200')) { socket.destroy(); reject(new Error(`stream refused: ${chunk.toString().slice(0, 200)}`)); return; }
        resolve(socket);
      }
      onData?.(chunk);
    });
    socket.once('error', reject);
  });
}

async function openMany(n, open) {
  const sockets = [];
  for (let i = 0; i < n; i += 200) sockets.push(...await Promise.all(Array.from({ length: Math.min(200, n - i) }, open)));
  return sockets;
}

/** RSS growth of a server process for `n` idle streams, in KB per connection. */
async function streamMemory(pid, n, open) {
  await sleep(1000);
  const before = rssKb(pid);
  const sockets = await openMany(n, open);
  await sleep(3000);
  const after = rssKb(pid);
  for (const s of sockets) s.destroy();
  await sleep(500);
  return { before, after, perConnKb: (after - before) / n };
}

async function countAndStreams(ctx) {
  const dataDir = makeDir(join(ctx.runDir, 'messages'));
  cli(dataDir, {}, 'user:create-admin', 'benchuser', 'bench@example.com', PASSWORD);
  cli(dataDir, {}, 'config:set', 'user_login_captcha', '0');
  const server = await startAtrium({ dataDir, env: { API_RATE_LIMIT: '100000000', LOGIN_IP_LIMIT: '100000' } });
  try {
    const token = await login(server.url, 'benchuser');
    const check = await call(server.url, '/api/interaction/count', { token });
    if (check.code !== 1) throw new Error(`count: ${JSON.stringify(check)}`);
    await load(`${server.url}/`, { connections: ctx.connections, seconds: Math.max(1, ctx.warmupSeconds), headers: {} });
    const home = await load(`${server.url}/`, { connections: ctx.connections, seconds: ctx.seconds, headers: {} });
    const count = await load(`${server.url}/api/interaction/count`, { connections: ctx.connections, seconds: ctx.seconds, headers: { 'ba-user-token': token } });
    const ratio = count.rps / home.rps;
    const countPass = ratio >= COUNT_RATIO && count.non2xx === 0;

    const atrium = await streamMemory(server.child.pid, STREAMS, () => openStream(server.port, '/api/interaction/stream', { 'ba-user-token': token }));
    const barePort = await freePort();
    const bare = track(process.execPath, [join(ROOT, 'bench', 'lib', 'bare-sse.mjs'), String(barePort)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => bare.stdout.once('data', resolve));
    let reference;
    try {
      reference = await streamMemory(bare.pid, STREAMS, () => openStream(barePort, '/', {}));
    } finally {
      await stop(bare);
    }
    const streamPass = atrium.perConnKb <= PER_STREAM_BUDGET_KB;
    return { home, count, ratio, countPass, atrium, reference, streamPass };
  } finally {
    await stopAtrium(server);
  }
}

async function delivery(ctx) {
  const prefix = `benchmsg${Date.now().toString(36)}:`;
  const env = { DATABASE_URL: PG_URL, REDIS_URL, REDIS_PREFIX: prefix, API_RATE_LIMIT: '100000000', LOGIN_IP_LIMIT: '100000' };
  const dirA = makeDir(join(ctx.runDir, 'msg-a'));
  const dirB = makeDir(join(ctx.runDir, 'msg-b'));
  cli(dirA, env, 'user:create-admin', 'member0', 'member0@example.com', PASSWORD);
  cli(dirA, env, 'config:set', 'user_login_captcha', '0');
  const members = Math.max(2, Math.min(100, Math.round(DELIVERY_STREAMS / 25)));
  // More members with the same password: rows copied from the first, as the e2e helpers do.
  const db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
  await db.query(`insert into "user" (username, nickname, email, password, group_id, join_time, create_time, update_time)
    select 'member' || g, 'member' || g, '', u.password, u.group_id, u.join_time - 86400 * 3, u.create_time, u.update_time
    from generate_series(1, $1::int) g, "user" u where u.username = 'member0'`, [members - 1]);
  await db.query(`update "user" set join_time = join_time - 86400 * 3 where username = 'member0'`);
  const ids = new Map((await db.query(`select id, username from "user" where username like 'member%'`)).rows.map((r) => [r.username, r.id]));
  await db.end();
  const a = await startAtrium({ dataDir: dirA, env });
  const b = await startAtrium({ dataDir: dirB, env });
  const sockets = [];
  try {
    const names = [...ids.keys()];
    const tokens = new Map();
    for (const name of names) tokens.set(name, await login(a.url, name));
    // Streams: spread evenly over members and over the two instances.
    const arrivals = new Map(); // marker → [times]
    const perMember = new Map(names.map((n) => [n, 0]));
    for (let i = 0; i < DELIVERY_STREAMS; i++) {
      const name = names[i % names.length];
      perMember.set(name, perMember.get(name) + 1);
      const server = i % 2 ? b : a;
      sockets.push(openStream(server.port, '/api/interaction/stream', { 'ba-user-token': tokens.get(name) }, (chunk) => {
        const now = performance.now();
        for (const m of chunk.toString().matchAll(/bench-(\d+)-/g)) {
          const list = arrivals.get(m[1]) ?? [];
          list.push(now);
          arrivals.set(m[1], list);
        }
      }));
      if (sockets.length % 200 === 0) await Promise.all(sockets.slice(-200));
    }
    const opened = await Promise.all(sockets);
    await sleep(1000);
    const latencies = [];
    const afterReply = [];
    let lost = 0;
    for (let i = 0; i < DELIVERY_SENDS; i++) {
      const from = names[i % names.length];
      const to = names[(i * 7 + 1) % names.length] === from ? names[(i * 7 + 2) % names.length] : names[(i * 7 + 1) % names.length];
      const server = i % 2 ? b : a;
      const t0 = performance.now();
      const r = await call(server.url, '/api/interaction/sendMessage', { token: tokens.get(from), body: { user_id: ids.get(to), content: `bench-${i}-` } });
      if (r.code !== 1) throw new Error(`send: ${r.msg}`);
      const replied = performance.now();
      const want = perMember.get(to) * 2; // the marker appears in the summary and the content
      const deadline = performance.now() + 5000;
      while ((arrivals.get(String(i))?.length ?? 0) < want && performance.now() < deadline) await sleep(2);
      const got = arrivals.get(String(i)) ?? [];
      if (got.length < want) { lost++; continue; }
      latencies.push(Math.max(...got) - t0);
      afterReply.push(Math.max(0, Math.max(...got) - replied));
      await sleep(20);
    }
    for (const s of opened) s.destroy();
    latencies.sort((x, y) => x - y);
    afterReply.sort((x, y) => x - y);
    const pct = (p, list = latencies) => list[Math.min(list.length - 1, Math.ceil((p / 100) * list.length) - 1)];
    return { members, p50: pct(50), p99: pct(99), max: latencies.at(-1), replyP99: pct(99, afterReply), lost, pass: lost === 0 && pct(99) <= DELIVERY_P99_BUDGET };
  } finally {
    await stopAtrium(a);
    await stopAtrium(b);
  }
}

export async function messages(ctx) {
  const m = await countAndStreams(ctx);
  const d = PG_URL && REDIS_URL ? await delivery(ctx) : null;
  console.log(`\nMessages: count and home page at ${ctx.connections} connections × ${ctx.seconds} s (PGlite); ${fmtInt(STREAMS)} idle streams; delivery over two instances${d ? '' : ' skipped (set BENCH_MESSAGES_DATABASE_URL and BENCH_MESSAGES_REDIS_URL)'}\n`);
  const rows = [
    ['home page, visitor, cached (req/s)', fmtInt(m.home.rps), '', ''],
    ['interaction/count, member (req/s)', fmtInt(m.count.rps), '', ''],
    ['count / home page', `${(m.ratio * 100).toFixed(1)}%`, `≥ ${COUNT_RATIO * 100}%`, verdict(m.countPass)],
    [`Atrium RSS, ${fmtInt(STREAMS)} idle streams`, `${Math.round(m.atrium.before / 1024)} → ${Math.round(m.atrium.after / 1024)} MB`, '', ''],
    ['Atrium per stream', `${m.atrium.perConnKb.toFixed(1)} KB`, `≤ ${PER_STREAM_BUDGET_KB} KB`, verdict(m.streamPass)],
    ['bare node:http SSE per stream (reference)', `${m.reference.perConnKb.toFixed(1)} KB`, '', ''],
    ['Atrium / bare', `${(m.atrium.perConnKb / m.reference.perConnKb).toFixed(2)}×`, '', ''],
  ];
  if (d) {
    rows.push(
      [`delivery p50 (${fmtInt(DELIVERY_STREAMS)} streams, ${d.members} members, 2 instances)`, `${Math.round(d.p50)} ms`, '', ''],
      ['delivery p99 (from the send request)', `${Math.round(d.p99)} ms`, `≤ ${DELIVERY_P99_BUDGET} ms`, verdict(d.pass)],
      ['delivery p99 after the send call replied', `${Math.round(d.replyP99)} ms`, '', ''],
      ['delivery max / lost', `${Math.round(d.max)} ms / ${d.lost}`, '0 lost', ''],
    );
  }
  const table = printTable(['measure', 'value', 'budget', 'verdict'], rows);
  const summary = `count ${(m.ratio * 100).toFixed(1)} % of home → ${verdict(m.countPass)}; ${m.atrium.perConnKb.toFixed(1)} KB/stream (bare ${m.reference.perConnKb.toFixed(1)}) → ${verdict(m.streamPass)}; delivery ${d ? `p99 ${Math.round(d.p99)} ms → ${verdict(d.pass)}` : 'skipped'}`;
  console.log(`\n${summary}`);
  return { name: 'messages', pass: m.countPass && m.streamPass && (d ? d.pass : true), summary, table };
}
