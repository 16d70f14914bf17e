// A site with something for an operator to do: forum posts (the demo set), a member `alice`, an
// open report on a post, a developer `devone` with a pending withdrawal and a module that `bob`
// bought from his balance (an order and its ledger lines), a stored file; login
// captcha off so tests log in through the API. Built through the product's own services, with the
// data directory (or database) closed again before a server opens it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { seedDemo } from '../../src/lib/server/ask/demo';
import { askPost, askReport, developer, developerEarning, developerWithdrawal, module } from '../../src/lib/server/db/schema';
import { adjustMoney } from '../../src/lib/server/account/ledger';
import { buyModule } from '../../src/lib/server/market/orders';
import { upsertBook } from '../../src/lib/server/md/books';
import { ROOT } from './paths';
import { postJson, raw } from './server';

export interface AdminSite { postId: number; reportId: number; withdrawalId: number; aliceId: number; devId: number; file: string; buyer: string; orderNo: string }

export const PASSWORD = 'secret123';

export async function prepareAdminSite(env: { DATA_DIR: string; DATABASE_URL?: string }): Promise<AdminSite> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', ...env }));
  try {
    await seedDemo(rt.db);
    await rt.site.set('user_login_captcha', '0');
    const alice = await createUser(rt.db, { username: 'alice', email: 'alice@example.com', password: PASSWORD });
    const dev = await createUser(rt.db, { username: 'devone', email: 'dev@example.com', password: PASSWORD });
    const t = Math.floor(Date.now() / 1000);
    const [post] = await rt.db.select({ id: askPost.id }).from(askPost).orderBy(askPost.id).limit(1);
    const [report] = await rt.db.insert(askReport).values({ userId: alice.id, targetType: 'post', targetId: post!.id, postId: post!.id, reason: 'spam link', createTime: t }).returning({ id: askReport.id });
    await rt.db.insert(developer).values({ userId: dev.id, realName: '李开发', idNumber: '110108199003071234', mobile: '13800138000', email: 'dev@example.com', province: '11', status: 'approved', createTime: t, updateTime: t });
    await rt.db.insert(developerEarning).values({ developerId: dev.id, orderId: 999_001, kind: 'money', gross: 50_000, commission: 7_500, amount: 42_500, createTime: t });
    const [w] = await rt.db.insert(developerWithdrawal).values({ developerId: dev.id, amount: 20_000, account: 'ICBC 6222 0000 1111', status: 'pending', createTime: t, updateTime: t }).returning({ id: developerWithdrawal.id });
    await upsertBook(rt.db, 'handbook', { title: 'Operator handbook', visibility: 'public' });
    const bob = await createUser(rt.db, { username: 'bob', email: 'bob@example.com', password: PASSWORD });
    await rt.db.insert(module).values({ uid: 'ops-tools', developerId: dev.id, name: 'Ops tools', category: 'tools', price: 1990, status: 'published', latestVersion: '1.0.0', publishTime: t, createTime: t, updateTime: t });
    await adjustMoney(rt.db, bob.id, 5000, 'top-up for the backup test');
    const { order } = await buyModule(rt.db, { userId: bob.id, uid: 'ops-tools', payType: 'balance', nonce: 'backup-test', commission: 15 });
    mkdirSync(join(env.DATA_DIR, 'storage', 'test'), { recursive: true });
    writeFileSync(join(env.DATA_DIR, 'storage', 'test', 'hello.txt'), 'hello from the backup test\n');
    return { postId: post!.id, reportId: report!.id, withdrawalId: w!.id, aliceId: alice.id, devId: dev.id, file: '/storage/test/hello.txt', buyer: 'bob', orderNo: order.orderNo };
  } finally {
    await rt.close();
  }
}

/** The one-time setup link a started server logged, as a path. */
export function setupPath(logs: string): string | null {
  const m = /\/install\?token=[\w-]+/.exec(logs);
  return m ? m[0] : null;
}

/**
 * What a member sees of their module orders and balance log on a server, through the API (to
 * compare a restored copy with the original). Logs in with the test password.
 */
export async function memberRecords(url: string, username: string): Promise<{ orders: { order_no: string; amount: number; status: string; pay_time: number }[]; balance: { money: string; memo: string; create_time: number }[] }> {
  const login = await postJson(url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD });
  if (login.json<{ code: number }>().code !== 1) throw new Error(`login as ${username} on ${url} failed: ${login.text}`);
  const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  const read = async <T>(path: string): Promise<T> => (await raw(url, path, { headers: { cookie } })).json<{ data: T }>().data;
  const orders = await read<{ list: { order_no: string; amount: number; status: string; pay_time: number }[] }>('/api/modules/orders');
  const balance = await read<{ list: { money: string; memo: string; create_time: number }[] }>('/api/account/balance');
  return {
    orders: orders.list.map(({ order_no, amount, status, pay_time }) => ({ order_no, amount, status, pay_time })),
    balance: balance.list.map(({ money, memo, create_time }) => ({ money, memo, create_time })),
  };
}
