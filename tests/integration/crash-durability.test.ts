// No acknowledged write is lost: forum replies, daily check-ins and module purchases are driven
// through the API of the built server, every reply with code 1 is recorded, the process is killed
// with SIGKILL in the middle of the load and restarted on the same data, several rounds, on PGlite
// and on PostgreSQL. Every acknowledged write must be found again, by the restarted server (a retry
// with the same one-time key returns the same row instead of writing a new one) and in the database,
// and every member's balance and points must still equal their logs.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { adjustMoney, adjustScore } from '../../src/lib/server/account/ledger';
import { startSession } from '../../src/lib/server/auth/sessions';
import { createPost } from '../../src/lib/server/ask/posts';
import { installModule, isInstalled } from '../../src/lib/server/modules/installs';
import { moduleText } from '../../src/lib/server/market/text';
import { askCategory, askReply, module, moduleOrder, moduleVersion, user, userMoneyLog, userScoreLog, userSignIn } from '../../src/lib/server/db/schema';
import { freshPostgres, postJson, startServer, type TestServer } from '../helpers/server';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

const ROUNDS = 3;
/** Fresh members per round: each checks in once, replies once and buys every module of its round. */
const MEMBERS = 12;
/** Paid modules per round (a module is bought once per member). */
const MODULES = 6;
const EN = { 'think-lang': 'en' };

type Env = { code: number; msg: string; data: Record<string, unknown> };
type Member = { id: number; token: string };
type Write =
  | { kind: 'checkIn'; member: Member }
  | { kind: 'reply'; member: Member; postId: number; nonce: string; content: string; id?: number }
  | { kind: 'buy'; member: Member; uid: string; payType: 'balance' | 'score'; nonce: string; orderNo?: string };

interface Plan {
  postId: number;
  rounds: { members: Member[]; modules: string[] }[];
}

interface Site {
  dataDir: string;
  env: Record<string, string>;
  /** Everything the test needs opened in this process: only while no server runs (PGlite is one process). */
  open(): Promise<Runtime>;
}

const dirs: string[] = [];
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) if (s.process.exitCode === null && s.process.signalCode === null) await s.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function site(kind: 'pglite' | 'postgres'): Promise<Site> {
  const dataDir = mkdtempSync(join(TMP, 'crash-'));
  dirs.push(dataDir);
  // Plenty of API budget: the load comes from one address.
  const env: Record<string, string> = { API_RATE_LIMIT: '100000' };
  if (kind === 'pglite') cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  else env.DATABASE_URL = await freshPostgres();
  return {
    dataDir,
    env,
    open: () => createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DEPLOY_POLL_SECONDS: '0', ...env })),
  };
}

/** Members (old enough to reply without the new-member wait) with money, points and a session; a post; a developer's paid modules. */
async function prepare(s: Site): Promise<Plan> {
  const rt = await s.open();
  try {
    const stamp = Date.now().toString(36);
    if (!(await isInstalled(rt.db, 'editor'))) await installModule(rt.db, 'editor');
    const dev = await createUser(rt.db, { username: `kdev${stamp}`, password: 'crash-test1' });
    const [discussion] = await rt.db.select().from(askCategory).where(eq(askCategory.slug, 'discussion'));
    const post = await createPost(rt.db, dev.id, { title: 'Where the replies land', category_id: discussion!.id, content: 'Reply here.', tags: [] } as Parameters<typeof createPost>[2]);
    const rounds: Plan['rounds'] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const members: Member[] = [];
      for (let i = 0; i < MEMBERS; i++) {
        const row = await createUser(rt.db, { username: `k${stamp}r${r}m${i}`, password: 'crash-test1' });
        await rt.db.update(user).set({ joinTime: sql`${user.joinTime} - 200000` }).where(eq(user.id, row.id));
        await adjustMoney(rt.db, row.id, 100_000, 'top-up');
        await adjustScore(rt.db, row.id, 5_000, 'top-up');
        const session = await startSession(rt.db, rt.tokenSecret, row.id, false);
        members.push({ id: row.id, token: session.token });
      }
      const modules: string[] = [];
      for (let i = 0; i < MODULES; i++) {
        const uid = `crash-r${r}-m${i}`;
        const t = Math.floor(Date.now() / 1000);
        const text = await moduleText({ name: uid, summary: 'A module to buy', tags: [], description: 'Bought under load.' });
        const [m] = await rt.db.insert(module).values({
          uid, developerId: dev.id, name: `Module ${uid}`, summary: 'A module to buy', description: 'Bought under load.', category: 'tools',
          price: 100 + 37 * i, scorePrice: 10 + 7 * i, status: 'published', latestVersion: '1.0.0', publishTime: t - 10, createTime: t, updateTime: t, ...text,
        }).returning({ id: module.id });
        await rt.db.insert(moduleVersion).values({ moduleId: m!.id, version: '1.0.0', changelog: 'First', packagePath: `test/${uid}.zip`, packageName: 'p.zip', packageSize: 20, status: 'published', publishTime: t - 10, createTime: t });
        modules.push(uid);
      }
      rounds.push({ members, modules });
    }
    return { postId: post.id, rounds };
  } finally {
    await rt.close();
  }
}

const headers = (m: Member): Record<string, string> => ({ 'ba-user-token': m.token, ...EN });
const nonce = (): string => `kn${Math.random().toString(36).slice(2, 12)}${Date.now().toString(36)}`;

/** Sends one write; resolves with the reply's body, or throws when the connection failed or the body is not an envelope. */
async function send(url: string, w: Write): Promise<Env> {
  const res = w.kind === 'checkIn'
    ? await postJson(url, '/api/account/signIn', {}, headers(w.member))
    : w.kind === 'reply'
      ? await postJson(url, '/api/ask/reply', { post_id: w.postId, content: w.content, nonce: w.nonce }, headers(w.member))
      : await postJson(url, '/api/modules/buy', { uid: w.uid, pay_type: w.payType, nonce: w.nonce }, headers(w.member));
  return res.json<Env>();
}

/** Every write of one round, each member's in its own shuffled order. */
function writesOf(plan: Plan, round: number): Write[][] {
  const { members, modules } = plan.rounds[round]!;
  return members.map((member, mi) => {
    const own: Write[] = [
      { kind: 'checkIn', member },
      { kind: 'reply', member, postId: plan.postId, nonce: nonce(), content: `Round ${round} reply from member ${member.id}: ${nonce()}` },
      ...modules.map((uid, i): Write => ({ kind: 'buy', member, uid, payType: (mi + i) % 2 ? 'score' : 'balance', nonce: nonce() })),
    ];
    for (let i = own.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [own[i], own[j]] = [own[j]!, own[i]!];
    }
    return own;
  });
}

/**
 * Runs one round against a started server: all members at once, and SIGKILL once `killAfter`
 * writes are acknowledged, while the others are in flight. Returns the acknowledged writes.
 */
async function loadAndKill(server: TestServer, plan: Plan, round: number, killAfter: number): Promise<{ acked: Write[]; lostInFlight: number }> {
  const acked: Write[] = [];
  let killed = false;
  let lostInFlight = 0;
  const exited = new Promise<void>((resolve) => server.process.once('exit', () => resolve()));
  const kill = (): void => {
    if (killed) return;
    killed = true;
    server.process.kill('SIGKILL');
  };
  const safety = setTimeout(kill, 20_000);
  await Promise.all(writesOf(plan, round).map(async (queue) => {
    for (const w of queue) {
      if (killed) return;
      let body: Env;
      try {
        body = await send(server.url, w);
      } catch {
        lostInFlight++;
        return; // the connection died with the server: not acknowledged, may or may not be there
      }
      if (body.code !== 1) throw new Error(`round ${round}: ${w.kind} refused before the kill: ${body.msg}`);
      if (w.kind === 'checkIn' && body.data.added !== true) throw new Error(`round ${round}: check-in not added: ${JSON.stringify(body)}`);
      if (w.kind === 'reply') w.id = body.data.id as number;
      if (w.kind === 'buy') w.orderNo = (body.data.order as { order_no: string }).order_no;
      acked.push(w);
      if (acked.length >= killAfter) kill();
    }
  }));
  kill();
  clearTimeout(safety);
  await exited;
  expect(server.process.signalCode).toBe('SIGKILL');
  return { acked, lostInFlight };
}

/** The restarted server finds each acknowledged write: a retry with the same key returns it and writes nothing new. */
async function retriesFindEverything(url: string, acked: readonly Write[]): Promise<void> {
  const missing: string[] = [];
  for (const w of acked) {
    const body = await send(url, w);
    if (w.kind === 'checkIn' && !(body.code === 1 && body.data.added === false)) missing.push(`check-in of member ${w.member.id}: ${body.msg}`);
    if (w.kind === 'reply' && !(body.code === 1 && body.data.id === w.id)) missing.push(`reply ${w.id} of member ${w.member.id}: ${JSON.stringify(body.data)}`);
    if (w.kind === 'buy' && !(body.code === 1 && (body.data.order as { order_no?: string } | undefined)?.order_no === w.orderNo)) missing.push(`order ${w.orderNo}: ${body.msg}`);
  }
  expect(missing).toEqual([]);
}

/** Every acknowledged write is a row, and every member's balance and points equal their logs. */
async function databaseHoldsEverything(rt: Runtime, acked: readonly Write[]): Promise<void> {
  const replies = acked.filter((w): w is Extract<Write, { kind: 'reply' }> => w.kind === 'reply');
  const orders = acked.filter((w): w is Extract<Write, { kind: 'buy' }> => w.kind === 'buy');
  const checkIns = acked.filter((w) => w.kind === 'checkIn');
  const replyRows = replies.length ? await rt.db.select().from(askReply).where(inArray(askReply.id, replies.map((w) => w.id!))) : [];
  for (const w of replies) {
    const row = replyRows.find((r) => r.id === w.id);
    expect(row, `reply ${w.id}`).toMatchObject({ userId: w.member.id, postId: w.postId, body: w.content });
  }
  const orderRows = orders.length ? await rt.db.select().from(moduleOrder).where(inArray(moduleOrder.orderNo, orders.map((w) => w.orderNo!))) : [];
  const moneyLogs = await rt.db.select().from(userMoneyLog).orderBy(userMoneyLog.id);
  const scoreLogs = await rt.db.select().from(userScoreLog).orderBy(userScoreLog.id);
  for (const w of orders) {
    expect(orderRows.find((o) => o.orderNo === w.orderNo), `order ${w.orderNo}`).toMatchObject({ userId: w.member.id, status: 'paid', payType: w.payType });
    const logs = w.payType === 'balance' ? moneyLogs : scoreLogs;
    expect(logs.filter((l) => l.userId === w.member.id && l.memo === `module:${w.uid} order:${w.orderNo}`), `debit of ${w.orderNo}`).toHaveLength(1);
  }
  for (const w of checkIns) {
    const days = await rt.db.select().from(userSignIn).where(eq(userSignIn.userId, w.member.id));
    expect(days, `check-in of member ${w.member.id}`).toHaveLength(1);
    expect(scoreLogs.filter((l) => l.userId === w.member.id && l.memoKey === 'user.ledger.memo.checkIn'), `check-in points of member ${w.member.id}`).toHaveLength(1);
  }

  // The ledger: for every member, the balance equals the sum of the log and the last row's `after`,
  // and each row starts where the previous one ended.
  const members = await rt.db.select({ id: user.id, money: user.money, score: user.score }).from(user);
  const broken: string[] = [];
  const money = moneyLogs.map((l) => ({ userId: l.userId, amount: l.money, before: l.before, after: l.after }));
  const score = scoreLogs.map((l) => ({ userId: l.userId, amount: l.score, before: l.before, after: l.after }));
  for (const m of members) {
    for (const [what, have, all] of [['money', m.money, money], ['score', m.score, score]] as const) {
      const rows = all.filter((l) => l.userId === m.id);
      const sum = rows.reduce((s, l) => s + l.amount, 0);
      const last = rows.at(-1)?.after ?? 0;
      if (sum !== have || last !== have) broken.push(`member ${m.id} ${what}: ${have}, log sum ${sum}, last after ${last}`);
      rows.forEach((r, i) => { if (i > 0 && r.before !== rows[i - 1]!.after) broken.push(`member ${m.id} ${what}: row ${i} starts at ${r.before}, previous ended at ${rows[i - 1]!.after}`); });
    }
  }
  expect(broken).toEqual([]);
}

async function crashRounds(kind: 'pglite' | 'postgres'): Promise<void> {
  const s = await site(kind);
  const plan = await prepare(s);
  const perRound = MEMBERS * (2 + MODULES);
  const all: Write[] = [];
  let previous: Write[] = [];
  const report: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Round 0 is a first start; every later start is a restart on the data a SIGKILL left.
    const server = await startServer({ dataDir: s.dataDir, env: s.env });
    servers.push(server);
    await retriesFindEverything(server.url, previous);
    // Somewhere between a quarter and three quarters of the round's writes.
    const killAfter = Math.floor(perRound * (0.25 + Math.random() * 0.5));
    const { acked, lostInFlight } = await loadAndKill(server, plan, round, killAfter);
    expect(acked.length).toBeGreaterThanOrEqual(killAfter);
    report.push(`round ${round}: ${acked.length} acknowledged, ${lostInFlight} cut off`);
    all.push(...acked);
    previous = acked;
  }
  const last = await startServer({ dataDir: s.dataDir, env: s.env });
  servers.push(last);
  await retriesFindEverything(last.url, previous);
  await last.stop();
  const rt = await s.open();
  try {
    await databaseHoldsEverything(rt, all);
  } finally {
    await rt.close();
  }
  console.info(`[crash-durability ${kind}] ${report.join('; ')}`);
}

describe('kill -9 in the middle of the load', () => {
  it(`loses no acknowledged reply, check-in or purchase on PGlite (${ROUNDS} rounds)`, async () => {
    await crashRounds('pglite');
  }, scaled(90_000));

  it.skipIf(!process.env.TEST_DATABASE_URL)(`loses no acknowledged reply, check-in or purchase on PostgreSQL (${ROUNDS} rounds)`, async () => {
    await crashRounds('postgres');
  }, scaled(90_000));
});
