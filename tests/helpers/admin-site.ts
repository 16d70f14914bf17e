// A site with something for an operator to do: forum posts (the demo set), a member `alice`, an
// open report on a post, a developer `devone` with a pending withdrawal, a stored file; login
// captcha off so tests log in through the API. Built through the product's own services, with the
// data directory (or database) closed again before a server opens it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { seedDemo } from '../../src/lib/server/ask/demo';
import { askPost, askReport, developer, developerEarning, developerWithdrawal } from '../../src/lib/server/db/schema';
import { upsertBook } from '../../src/lib/server/md/books';
import { ROOT } from './paths';

export interface AdminSite { postId: number; reportId: number; withdrawalId: number; aliceId: number; devId: number; file: string }

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
    mkdirSync(join(env.DATA_DIR, 'storage', 'test'), { recursive: true });
    writeFileSync(join(env.DATA_DIR, 'storage', 'test', 'hello.txt'), 'hello from the backup test\n');
    return { postId: post!.id, reportId: report!.id, withdrawalId: w!.id, aliceId: alice.id, devId: dev.id, file: '/storage/test/hello.txt' };
  } finally {
    await rt.close();
  }
}

/** The one-time setup link a started server logged, as a path. */
export function setupPath(logs: string): string | null {
  const m = /\/install\?token=[\w-]+/.exec(logs);
  return m ? m[0] : null;
}
