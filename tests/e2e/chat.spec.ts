// The AI chat page as people use it: the site assistant and a test-server model, in Chinese and
// English, citations, stop, regenerate, edit-and-branch (a member's branch kept over a reload),
// reload mid-stream, a visitor back after the reply ended, a member out of points.
import { expect, test } from '@playwright/test';
import { atrium, logIn, newMember, query, readEnv, type E2eEnv } from './helpers';
import { answers, ask, openChat } from './chat-page';
import { mockReplyWords, startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv;
let mock: MockOpenAI;

test.beforeAll(async () => {
  env = readEnv();
  test.skip(!env.databaseUrl, 'needs TEST_DATABASE_URL: the spec adds models to the running server');
  mock = await startMockOpenAI({ delayMs: 20, words: 40 });
  const add = (name: string, model: string, ...more: string[]): string => atrium(env, 'chat:add', name, '--base-url', mock.url, '--model', model, ...more);
  const existing = await query<{ name: string }>(env, 'select name from chat_model');
  if (!existing.some((m) => m.name === 'e2e-mock')) {
    add('e2e-mock', 'mock', '--title', 'Test model', '--audience', 'visitors');
    add('e2e-slow', 'mock@150', '--title', 'Slow model', '--audience', 'visitors');
    add('e2e-paid', 'mock', '--title', 'Paid model', '--audience', 'members', '--price-message', '5');
  } else {
    // Another run's rows point at a server that is gone.
    await query(env, 'update chat_model set base_url = $1', [mock.url]);
  }
  atrium(env, 'config:set', 'chat_rate_ip', '1000');
});

test.afterAll(async () => { await mock?.close(); });


test('site assistant answers in Chinese with citations that open the docs section', async ({ page }) => {
  await openChat(page, 'site');
  await ask(page, '如何把站点迁移到 PostgreSQL？');
  const answer = answers(page).last();
  await expect(answer).toContainText('站点助手');
  await expect(answer.getByRole('button', { name: '重新生成' })).toBeVisible();
  const cite = answer.locator('a.chat-cite').first();
  await cite.hover();
  await expect(page.getByRole('tooltip')).toBeVisible();
  const href = await cite.getAttribute('href');
  expect(href).toMatch(/^\/md\/[\w-]+\/[\w.-]+#/);
  await cite.click();
  await expect(page).toHaveURL(new RegExp(`${href!.split('#')[0]}`));
});

test('a test-server model answers in English, and the page has no sideways scroll on a phone', async ({ browser }) => {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 800 } });
  const page = await context.newPage();
  await openChat(page, 'e2e-mock');
  await ask(page, 'How do I move Atrium to PostgreSQL?');
  await expect(answers(page).last()).toContainText('see the guide');
  await expect(answers(page).last().getByRole('button', { name: 'Copy' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
  // The conversation list is a drawer on phones.
  await page.getByRole('button', { name: /Conversations/ }).click();
  await expect(page.locator('.chat-list').getByText('How do I move Atrium to PostgreSQL?')).toBeVisible();
  await context.close();
});

test('stop ends the reply; regenerate and edit-and-resend keep the earlier branch', async ({ page }) => {
  await openChat(page, 'e2e-slow');
  await ask(page, 'Tell me about backups');
  const answer = answers(page).last();
  await expect(answer).toContainText('Answer to');
  await page.getByRole('button', { name: '停止' }).click();
  await expect(answer).toContainText('已停止');
  // The server stopped it too: the page sent this browser's key, without which a visitor's stop stops nothing.
  await expect(page).toHaveURL(/\?c=/);
  const chatId = new URL(page.url()).searchParams.get('c')!;
  await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: scaled(15_000) }).toBe('stopped');
  const stopped = (await answer.locator('.markdown-body').innerText()).length;

  await page.locator('.chat-model select').selectOption('e2e-mock');
  await answer.getByRole('button', { name: '重新生成' }).click();
  await expect(answers(page).last()).toContainText('see the guide');
  expect((await answers(page).last().locator('.markdown-body').innerText()).length).toBeGreaterThan(stopped);
  await expect(answers(page).last().locator('.chat-branch')).toContainText('2/2');
  await answers(page).last().getByRole('button', { name: '上一个版本' }).click();
  await expect(answers(page).last()).toContainText('已停止');

  const question = page.locator('.chat-msg[data-role="user"]').last();
  await question.getByRole('button', { name: '编辑' }).click();
  await page.locator('.chat-edit textarea').fill('Tell me about restores');
  await page.locator('.chat-edit').getByRole('button', { name: '发送' }).click();
  await expect(answers(page).last()).toContainText('Answer to "Tell me about restores"');
  await expect(page.locator('.chat-msg[data-role="user"]').last().locator('.chat-branch')).toContainText('2/2');
  await page.locator('.chat-msg[data-role="user"]').last().getByRole('button', { name: '上一个版本' }).click();
  await expect(page.locator('.chat-msg[data-role="user"]').last()).toContainText('Tell me about backups');
});

test('a reply keeps streaming through a reload and finishes', async ({ page }) => {
  await openChat(page, 'e2e-slow');
  await ask(page, 'Explain the page cache');
  await expect(answers(page).last()).toContainText('Answer to');
  await expect(page).toHaveURL(/\?c=/);
  await page.reload();
  // 40 words at 150 ms: the end arrives after the reload, through the resumed stream.
  await expect(answers(page).last()).toContainText('see the guide [1].', { timeout: scaled(15_000) });
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible({ timeout: scaled(15_000) });
  // The whole reply once: nothing lost or repeated across the reload.
  const text = await answers(page).last().locator('.markdown-body').innerText();
  expect(text.replace(/\s+/g, ' ').trim()).toBe(mockReplyWords('Explain the page cache', 40).join('').replace(/\s+/g, ' ').trim());
});

test('a visitor who comes back after the reply ended sees it whole', async ({ page }) => {
  await openChat(page, 'e2e-slow');
  await ask(page, 'Explain the backups');
  await expect(answers(page).last()).toContainText('Answer to');
  await expect(page).toHaveURL(/\?c=/);
  const url = page.url();
  const chatId = new URL(url).searchParams.get('c')!;
  // Away while it is written (40 words at 150 ms), back once it ended: the browser kept only a part.
  await page.goto('/');
  await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: scaled(15_000) }).toBe('done');
  await page.goto(url);
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible({ timeout: scaled(15_000) });
  const text = await answers(page).last().locator('.markdown-body').innerText();
  expect(text.replace(/\s+/g, ' ').trim()).toBe(mockReplyWords('Explain the backups', 40).join('').replace(/\s+/g, ' ').trim());
});

test('a member’s branch choice survives a reload', async ({ browser }) => {
  const name = `chatb${Date.now().toString(36).slice(-6)}`;
  await newMember(env, name);
  const page = await logIn(env, browser, name);
  await openChat(page, 'e2e-mock');
  await ask(page, 'Which branch is shown?');
  await expect(answers(page).last()).toContainText('see the guide');
  await answers(page).last().getByRole('button', { name: '重新生成' }).click();
  await expect(answers(page).last().locator('.chat-branch')).toContainText('2/2');
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible();
  const saved = page.waitForResponse((r) => r.url().includes('/api/chat/branch'));
  await answers(page).last().getByRole('button', { name: '上一个版本' }).click();
  await expect(answers(page).last().locator('.chat-branch')).toContainText('1/2');
  expect(((await (await saved).json()) as { code: number }).code).toBe(1);
  await page.reload();
  await expect(answers(page).last().locator('.chat-branch')).toContainText('1/2');
  await page.context().close();
});

test('a member without points is refused, with the question kept and the reset time given', async ({ browser }) => {
  const name = `chat${Date.now().toString(36).slice(-6)}`;
  await newMember(env, name);
  const page = await logIn(env, browser, name);
  const before = mock.requests.length;
  await openChat(page, 'e2e-paid');
  await ask(page, '付费模型的问题');
  await expect(page.getByRole('alert')).toContainText('这次回答约需 5 积分，你还有 0 积分');
  await expect(page.getByRole('alert')).toContainText('重置');
  await expect(page.locator('.chat-compose textarea')).toHaveValue('付费模型的问题');
  expect(mock.requests.length).toBe(before);
  // With points the same question is answered and charged once.
  atrium(env, 'user:score', name, '12', 'top-up');
  await page.getByRole('button', { name: '发送' }).click();
  await expect(answers(page).last()).toContainText('see the guide');
  await expect(answers(page).last()).toContainText('本次消耗 5 积分');
  const [row] = await query<{ score: number }>(env, 'select score from "user" where username = $1', [name]);
  expect(row!.score).toBe(7);
  await page.context().close();
});

test('renaming a conversation to nothing says "Illegal input" and keeps the field open, in both languages', async ({ browser }) => {
  for (const [locale, message, save] of [['zh-CN', '非法输入', '保存'], ['en-US', 'Illegal input', 'Save']] as const) {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    await openChat(page, 'site');
    await ask(page, locale === 'zh-CN' ? '怎么修改站点名称？' : 'How do I change the site name?');
    await expect(answers(page).last().locator('a.chat-cite').first()).toBeVisible();
    const item = page.locator('.chat-list .chat-item').first();
    await item.locator('.chat-item-tools button').first().click();
    const field = page.locator('.chat-rename input');
    await field.fill('   ');
    await page.locator('.chat-rename').getByRole('button', { name: save }).click();
    await expect(page.locator('.chat-rename').getByRole('alert')).toHaveText(message);
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    // A real title saves and closes the field.
    await field.fill('Renamed here');
    await expect(page.locator('.chat-rename').getByRole('alert')).toHaveCount(0);
    await page.locator('.chat-rename').getByRole('button', { name: save }).click();
    await expect(page.locator('.chat-rename')).toHaveCount(0);
    await expect(page.locator('.chat-list')).toContainText('Renamed here');
    await context.close();
  }
});
