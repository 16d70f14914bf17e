// Moderation that tells people (issue 28, item 7): removing or restoring reported content from the
// console's Reports tells the author (with the reason) and the reporters (that the report was
// handled), each reading in their own language; the reporter's member center lists their reports
// with what became of them.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { postJson, raw } from '../helpers/server';
import { createUser } from '../../src/lib/server/account/users';
import { createPost } from '../../src/lib/server/ask/posts';
import { createReply } from '../../src/lib/server/ask/replies';
import { askCategory, askPost, askReply, askReport } from '../../src/lib/server/db/schema';
import { PostInput, ReplyInput } from '../../src/lib/shared/validation/ask';
import { scaled } from '../helpers/time-scale.mjs';

type Env<T = Record<string, unknown>> = { code: number; msg: string; data: T };
interface Item { type: string; tab: string; action: string; title: string; summary: string; link: string; sender: unknown }

const PASSWORD = 'secret123';
let srv: InProcessServer;
const cookies: Record<string, string> = {};
let postId = 0;
let replyId = 0;

async function login(username: string): Promise<string> {
  const res = await postJson(srv.url, '/api/user/checkIn', { tab: 'login', username, password: PASSWORD });
  expect(res.json<Env>().code, res.text).toBe(1);
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
}
const post = async (who: string, path: string, body: unknown, lang = 'en'): Promise<Env> =>
  (await postJson(srv.url, path, body, { cookie: cookies[who]!, origin: srv.url, 'think-lang': lang })).json<Env>();
const inbox = async (who: string, lang: string): Promise<Item[]> =>
  (await raw(srv.url, '/api/interaction/messageList?tab=system', { headers: { cookie: cookies[who]!, 'think-lang': lang } })).json<Env<{ list: Item[] }>>().data.list;
const reportId = async (who: string, type: 'post' | 'reply', id: number): Promise<number> => {
  expect((await post(who, '/api/ask/report', { type, id, reason: `reported by ${who}` })).code).toBe(1);
  const rows = await srv.runtime.db.select({ id: askReport.id, userId: askReport.userId, targetId: askReport.targetId }).from(askReport);
  return rows.filter((r) => r.targetId === id).at(-1)!.id;
};

beforeAll(async () => {
  srv = await startInProcess();
  const rt = srv.runtime;
  await rt.site.set('user_login_captcha', '0');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: 2 });
  const writer = await createUser(rt.db, { username: 'writer', email: 'writer@example.com', password: PASSWORD });
  const replier = await createUser(rt.db, { username: 'replier', email: 'replier@example.com', password: PASSWORD });
  await createUser(rt.db, { username: 'tattler', email: 'tattler@example.com', password: PASSWORD });
  await createUser(rt.db, { username: 'second', email: 'second@example.com', password: PASSWORD });
  const [category] = await rt.db.select({ id: askCategory.id }).from(askCategory).limit(1);
  postId = (await createPost(rt.db, writer.id, PostInput.parse({ title: 'A post to report', category_id: category!.id, content: 'Buy cheap things at example dot com' }))).id;
  replyId = (await createReply(rt.db, replier.id, ReplyInput.parse({ post_id: postId, content: 'A rude reply to report' }))).id;
  for (const name of ['boss', 'writer', 'replier', 'tattler', 'second']) cookies[name] = await login(name);
}, scaled(120_000));

afterAll(async () => {
  await srv?.stop();
});

describe('moderation that tells people', () => {
  it('removing a post tells its author (zh-cn) with the reason and every reporter (en) that it was handled', async () => {
    const id = await reportId('tattler', 'post', postId);
    await reportId('second', 'post', postId);
    expect(await inbox('writer', 'zh-cn')).toEqual([]);
    const done = await post('boss', '/api/admin/reports', { id, action: 'remove', reason: 'Advertising is not allowed' });
    expect(done.code, done.msg).toBe(1);
    expect((await srv.runtime.db.select({ status: askPost.status }).from(askPost).where(eq(askPost.id, postId)))[0]!.status).toBe('deleted');

    const [author] = await inbox('writer', 'zh-cn');
    expect(author).toMatchObject({ type: 'ask_report', tab: 'system', title: '你的帖子因举报被管理员删除', summary: 'Advertising is not allowed', link: `/ask/info/${postId}`, sender: null });
    expect(author!.action).toBe('举报处理结果');
    // The same message read on an English page is in English.
    expect((await inbox('writer', 'en'))[0]!.title).toBe('Your post was removed by the moderators after a report');

    for (const who of ['tattler', 'second']) {
      const [told] = await inbox(who, 'en');
      expect(told, who).toMatchObject({ type: 'ask_report', title: 'Your report was handled: the content was removed', summary: 'A post to report', action: 'Report outcome' });
    }
    // Both reports are closed by the one decision.
    const statuses = (await srv.runtime.db.select({ status: askReport.status }).from(askReport).where(eq(askReport.targetId, postId))).map((r) => r.status);
    expect(statuses).toEqual(['resolved', 'resolved']);
  });

  it('restoring it tells the author again; the reporters see the report dismissed', async () => {
    const [row] = await srv.runtime.db.select({ id: askReport.id }).from(askReport).where(eq(askReport.targetId, postId)).limit(1);
    const done = await post('boss', '/api/admin/reports', { id: row!.id, action: 'restore', reason: '' }, 'zh-cn');
    expect(done.code, done.msg).toBe(1);
    expect(done.msg).toBe('内容已恢复，作者已收到通知');
    expect((await srv.runtime.db.select({ status: askPost.status }).from(askPost).where(eq(askPost.id, postId)))[0]!.status).toBe('published');
    const [author] = await inbox('writer', 'en');
    expect(author).toMatchObject({ title: 'Your removed post was restored by the moderators', summary: 'reported by tattler' });
    expect((await inbox('tattler', 'zh-cn'))[0]!.title).toBe('你的举报已处理：内容保留');
    // A restore needs a report closed as resolved: once done, there is nothing to restore.
    expect((await post('boss', '/api/admin/reports', { id: row!.id, action: 'restore' })).code).toBe(0);
  });

  it('removing a reply tells its author (en) and the reporter (zh-cn); dismissing tells only the reporter', async () => {
    const id = await reportId('tattler', 'reply', replyId);
    expect((await post('boss', '/api/admin/reports', { id, action: 'remove', reason: '请文明发言' })).code).toBe(1);
    expect((await srv.runtime.db.select({ status: askReply.status }).from(askReply).where(eq(askReply.id, replyId)))[0]!.status).toBe('deleted');
    const [author] = await inbox('replier', 'en');
    expect(author).toMatchObject({ title: 'Your reply was removed by the moderators after a report', summary: '请文明发言', link: `/ask/info/${postId}#reply-${replyId}` });
    expect((await inbox('tattler', 'zh-cn'))[0]).toMatchObject({ title: '你的举报已处理：内容已删除', action: '举报处理结果' });

    const writerBefore = (await inbox('writer', 'en')).length;
    const again = await reportId('second', 'post', postId);
    expect((await post('boss', '/api/admin/reports', { id: again, action: 'dismiss' })).code).toBe(1);
    expect((await inbox('second', 'zh-cn'))[0]!.title).toBe('你的举报已处理：内容保留');
    expect(await inbox('writer', 'en')).toHaveLength(writerBefore);
  });

  it("lists the reporter's reports with their status in the member center, in the page's language", async () => {
    // tattler: the post report (removed, then restored: dismissed) and the reply report (removed).
    const zh = await raw(srv.url, '/user/ask/myReports', { headers: { cookie: `${cookies.tattler!}; ba-lang=zh-cn` } });
    expect(zh.status).toBe(200);
    expect(zh.text).toContain('<h1 class="page-title">我的举报</h1>');
    expect(zh.text).toMatch(/已处理：内容已删除[\s\S]*已驳回：内容保留/);
    const en = await raw(srv.url, '/user/ask/myReports', { headers: { cookie: `${cookies.tattler!}; ba-lang=en` } });
    expect(en.text).toMatch(/Handled: content removed[\s\S]*Dismissed: content stays/);
    expect(en.text).toContain(`/ask/info/${postId}#reply-${replyId}`);
    // Only their own reports: second's reason is not on tattler's page.
    expect(en.text).toContain('reported by tattler');
    expect(en.text).not.toContain('reported by second');
    // The page is in the member-center menu (a rule of the member group, like the other pages).
    expect(en.text).toContain('<a href="/user/ask/myReports" aria-current="page">My reports</a>');
    // Visitors are sent to log in.
    expect((await raw(srv.url, '/user/ask/myReports')).status).toBe(302);
  });
});
