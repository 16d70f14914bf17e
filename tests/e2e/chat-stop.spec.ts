// Stopping a chat reply (issue 29): Stop pressed right after sending shows what was received, the
// "stopped" mark and Regenerate, and the server really stopped (what it kept is what was shown);
// a reply that ended before the stop reached the server shows whole; Regenerate replaces the
// stopped reply with a new one. And the site assistant's framing follows the reader's language.
import { expect, test, type Page } from '@playwright/test';
import { atrium, logIn, newMember, query, readEnv, type E2eEnv } from './helpers';
import { answers, ask, openChat } from './chat-page';
import { mockReplyWords, startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv;
let mock: MockOpenAI;
const WORDS = 40;

test.beforeAll(async () => {
  env = readEnv();
  test.skip(!env.databaseUrl, 'needs TEST_DATABASE_URL: the spec adds models to the running server');
  mock = await startMockOpenAI({ delayMs: 20, words: WORDS });
  const existing = await query<{ name: string }>(env, "select name from chat_model where name like 'e2e-stop-%'");
  if (!existing.length) {
    atrium(env, 'chat:add', 'e2e-stop-slow', '--base-url', mock.url, '--model', 'mock@200', '--title', 'Slow stop model', '--audience', 'visitors');
    atrium(env, 'chat:add', 'e2e-stop-fast', '--base-url', mock.url, '--model', 'mock', '--title', 'Fast stop model', '--audience', 'visitors');
  } else {
    // Another run's rows point at a server that is gone.
    await query(env, "update chat_model set base_url = $1 where name like 'e2e-stop-%'", [mock.url]);
  }
  atrium(env, 'config:set', 'chat_rate_ip', '1000');
});

test.afterAll(async () => { await mock?.close(); });

const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();
const shownText = async (page: Page): Promise<string> => flat(await answers(page).last().locator('.markdown-body').innerText());

test('Stop right after sending: the part received, the stopped mark and Regenerate; the server kept that part; Regenerate replaces it', async ({ browser }) => {
  const name = `chats${Date.now().toString(36).slice(-6)}`;
  await newMember(env, name);
  const page = await logIn(env, browser, name);
  await openChat(page, 'e2e-stop-slow');
  await ask(page, 'Stop me right away');
  // Right after sending: the Stop button is there at once (the question is on its way).
  await page.getByRole('button', { name: '停止' }).click();
  const answer = answers(page).last();
  await expect(answer).toContainText('已停止');
  await expect(answer.getByRole('button', { name: '重新生成' })).toBeVisible();
  await expect(page.getByRole('button', { name: '发送' })).toBeVisible();
  const full = flat(mockReplyWords('Stop me right away', WORDS).join(''));
  const shown = await shownText(page);
  expect(full.startsWith(shown)).toBe(true);
  expect(shown.length).toBeLessThan(full.length);

  // The server stopped too: its reply is stopped, and what it kept is what the page shows, no more
  // (40 words at 200 ms would have gone on for 8 s).
  const chatId = new URL(page.url()).searchParams.get('c')!;
  await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: scaled(10_000) }).toBe('stopped');
  await page.waitForTimeout(1500);
  const stored = await query<{ text: string; metadata: { status?: string } }>(env, "select text, metadata from chat_message where conversation_id = $1 and role = 'assistant'", [chatId]);
  expect(stored).toHaveLength(1);
  expect(stored[0]!.metadata.status).toBe('stopped');
  expect(flat(stored[0]!.text)).toBe(shown);

  // After a reload the same: the part, the mark, Regenerate.
  await page.reload();
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await expect(answers(page).last()).toContainText('已停止');
  expect(await shownText(page)).toBe(shown);

  // Regenerate replaces the stopped reply with a new, whole one (the stopped one stays as version 1).
  await page.locator('.chat-model select').selectOption('e2e-stop-fast');
  await answers(page).last().getByRole('button', { name: '重新生成' }).click();
  await expect(answers(page)).toHaveCount(1);
  await expect(answers(page).last()).toContainText('see the guide', { timeout: scaled(10_000) });
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible();
  await expect(answers(page).last()).not.toContainText('已停止');
  await expect(answers(page).last().locator('.chat-branch')).toContainText('2/2');
  const again = await shownText(page);
  expect(again).toBe(full);
  await page.reload();
  await expect(answers(page).last()).toContainText('see the guide');
  expect(await shownText(page)).toBe(again);
  await page.context().close();
});

test('a visitor who stops right after sending sees the same part after a reload', async ({ page }) => {
  await openChat(page, 'e2e-stop-slow');
  await ask(page, 'Stop the visitor reply');
  await expect(page.getByRole('button', { name: '停止' })).toBeVisible();
  await page.waitForTimeout(700);
  await page.getByRole('button', { name: '停止' }).click();
  await expect(answers(page).last()).toContainText('已停止');
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible();
  const shown = await shownText(page);
  const chatId = new URL(page.url()).searchParams.get('c')!;
  await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: scaled(10_000) }).toBe('stopped');
  await page.reload();
  await expect(answers(page).last()).toContainText('已停止');
  expect(await shownText(page)).toBe(shown);
});

test('a reply that ended before the stop reached the server shows whole, without the stopped mark', async ({ page }) => {
  test.setTimeout(scaled(120_000));
  await openChat(page, 'e2e-stop-slow');
  let chatId = '';
  // The stop is held until the server has finished the reply (a stop that came too late).
  await page.route('**/api/chat/stop', async (route) => {
    await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: scaled(15_000) }).toBe('done');
    await route.continue();
  });
  // A slow line: the page receives the reply seconds after the server has written it all.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 3000, uploadThroughput: -1 });
  await ask(page, 'Finish before the stop');
  await expect(answers(page).last()).toContainText('Answer to', { timeout: scaled(25_000) });
  chatId = new URL(page.url()).searchParams.get('c')!;
  const told = page.waitForResponse('**/api/chat/stop', { timeout: scaled(60_000) });
  await page.getByRole('button', { name: '停止' }).click();
  // Once the server has answered the stop (nothing was running any more), the page has done all it does.
  expect((await told).ok()).toBe(true);
  await page.waitForTimeout(1000);
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible({ timeout: scaled(15_000) });
  await expect(answers(page).last()).toContainText('see the guide [1].');
  expect(await shownText(page)).toBe(flat(mockReplyWords('Finish before the stop', WORDS).join('')));
  await expect(answers(page).last()).not.toContainText('已停止');
});

test('the site assistant\'s framing is in the reader\'s language: an answer given on a Chinese page reads in English on an English one, old answers too', async ({ browser }) => {
  const name = `chatf${Date.now().toString(36).slice(-6)}`;
  await newMember(env, name);
  const page = await logIn(env, browser, name);
  await openChat(page, 'site');
  await ask(page, '如何把站点迁移到 PostgreSQL？');
  const answer = answers(page).last();
  await expect(answer).toContainText('站点助手：以下内容摘自本站文档与社区，不是 AI 生成的。');
  await expect(answer).toContainText('最相关的是《');
  await expect(answer.getByRole('button', { name: '重新生成' })).toBeVisible();
  const url = page.url();

  // The same member, the same stored answer, on an English page.
  await page.context().addCookies([{ name: 'ba-lang', value: 'en', url }]);
  await page.goto(url);
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const english = answers(page).last();
  await expect(english).toContainText("Site assistant: quoted from this site's docs and forum, not written by an AI model.");
  await expect(english).toContainText('The closest match is “');
  await expect(english.getByRole('button', { name: 'Regenerate' })).toBeVisible();
  await expect(english).not.toContainText('站点助手');
  await expect(english).not.toContainText('最相关的是');

  // An answer stored before, with the Chinese words in its text and its HTML, reads in English too.
  const [member] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [name]);
  const chatId = `legacy${Date.now().toString(36)}`;
  const now = Math.floor(Date.now() / 1000);
  const text = [
    '*站点助手：以下内容摘自本站文档与社区，不是 AI 生成的。*', '', '最相关的是《备份》：', '', '先停服务再复制数据目录。 [1]', '',
    '**相关段落**', '', '[指南 › 备份](/md/guide/ops#backups) [1]', '', '> 先停服务再复制数据目录。', '',
    '**社区里的相关问题**', '', '- [怎么备份？](/ask/info/3) [2]',
  ].join('\n');
  const html = '<p><em>站点助手：以下内容摘自本站文档与社区，不是 AI 生成的。</em></p>\n<p>最相关的是《备份》：</p>\n<p>先停服务再复制数据目录。</p>\n<p><strong>相关段落</strong></p>\n';
  await query(env, 'insert into chat_conversation (id, user_id, title, model, leaf_id, create_time, update_time) values ($1, $2, $3, $4, $5, $6, $6)', [chatId, member!.id, '怎么备份', 'site', 'a1', now]);
  await query(env, 'insert into chat_message (id, conversation_id, parent_id, role, text, metadata, create_time) values ($1, $2, $3, $4, $5, $6, $7)', ['q1', chatId, '', 'user', '怎么备份', '{}', now]);
  await query(env, 'insert into chat_message (id, conversation_id, parent_id, role, text, metadata, create_time) values ($1, $2, $3, $4, $5, $6, $7)',
    ['a1', chatId, 'q1', 'assistant', text, JSON.stringify({ model: 'site', status: 'done', html, sources: [] }), now]);
  await page.goto(`/chat?c=${chatId}`);
  const old = answers(page).last();
  await expect(old).toContainText("Site assistant: quoted from this site's docs and forum, not written by an AI model.");
  await expect(old).toContainText('The closest match is “备份”:');
  await expect(old).toContainText('Relevant passages');
  await expect(old).toContainText('Related questions in the forum');
  await expect(old).not.toContainText('站点助手');
  await expect(old).not.toContainText('相关段落');
  // Its content is as it was.
  await expect(old).toContainText('先停服务再复制数据目录。');

  // And back on a Chinese page, in Chinese.
  await page.context().addCookies([{ name: 'ba-lang', value: 'zh-cn', url }]);
  await page.goto(url);
  await expect(answers(page).last()).toContainText('站点助手：以下内容摘自本站文档与社区');
  await expect(answers(page).last()).not.toContainText('Site assistant');
  await page.context().close();
});
