// A newer version's rules on an existing site (issue 28): each group keeps what it could do. A new
// rule goes to the groups holding its parent; a new top-level rule (posting, docs editing, saved
// chats were open to every member before they had rules) to every group; a group that does not
// hold the parent does not get the child; administrators (`*`) are left alone.
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { userGroup, userRule } from '../../src/lib/server/db/schema';
import { ADMIN_GROUP, MEMBER_GROUP, seedDefaults } from '../../src/lib/server/site/seed';
import { scaled } from '../helpers/time-scale.mjs';

let srv: InProcessServer;
beforeAll(async () => { srv = await startInProcess(); }, scaled(120_000));
afterAll(async () => { await srv?.stop(); });

describe('rules a newer version adds to an existing site', () => {
  it('go to the groups that held their parent, top-level ones to every group', async () => {
    const db = srv.runtime.db;
    const ids = async (names: string[]): Promise<Map<string, number>> =>
      new Map((await db.select({ id: userRule.id, name: userRule.name }).from(userRule).where(inArray(userRule.name, names))).map((r) => [r.name, r.id]));
    const before = await ids(['account', 'account/balance', 'forum', 'forum/post', 'forum/interact']);
    // Two custom groups: one holds the account directory (not the balance page), one holds nothing of it.
    const [withAccount] = await db.insert(userGroup).values({ name: '账户组', nameEn: 'Account group', rules: String(before.get('account')), status: 1, createTime: 1, updateTime: 1 }).returning({ id: userGroup.id });
    const [bare] = await db.insert(userGroup).values({ name: '空组', nameEn: 'Bare group', rules: '', status: 1, createTime: 1, updateTime: 1 }).returning({ id: userGroup.id });
    // An older version had neither the balance page's rule nor the forum's.
    await db.delete(userRule).where(inArray(userRule.name, ['account/balance', 'forum', 'forum/post', 'forum/interact']));

    const done = await seedDefaults(db);
    expect(done.join('\n')).toContain('user_rule: added');
    const now = await ids(['account/balance', 'forum', 'forum/post', 'forum/interact']);
    const rulesOf = async (id: number): Promise<number[]> =>
      (await db.select({ rules: userGroup.rules }).from(userGroup).where(eq(userGroup.id, id)))[0]!.rules.split(',').map(Number);

    const a = await rulesOf(withAccount!.id);
    expect(a).toContain(now.get('account/balance'));
    expect(a).toEqual(expect.arrayContaining([now.get('forum'), now.get('forum/post'), now.get('forum/interact')]));
    const b = await rulesOf(bare!.id);
    expect(b).not.toContain(now.get('account/balance'));
    expect(b).toEqual(expect.arrayContaining([now.get('forum'), now.get('forum/post'), now.get('forum/interact')]));
    const m = await rulesOf(MEMBER_GROUP);
    expect(m).toEqual(expect.arrayContaining([now.get('account/balance'), now.get('forum'), now.get('forum/post')]));
    const [admins] = await db.select({ rules: userGroup.rules }).from(userGroup).where(eq(userGroup.id, ADMIN_GROUP));
    expect(admins!.rules).toBe('*');
    // A second start adds nothing more.
    expect((await seedDefaults(db)).join('\n')).not.toContain('user_rule: added');
    expect(await rulesOf(bare!.id)).toEqual(b);
  });
});
