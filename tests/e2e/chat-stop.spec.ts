// Stopping a chat reply (issue 29): Stop pressed right after sending shows what was received, the
// "stopped" mark and Regenerate, and the server really stopped (what it kept is what was shown);
// a reply that ended before the stop reached the server shows whole; Regenerate replaces the
// stopped reply with a new one. And the site assistant's framing follows the reader's language.
import { expect, test, type Page } from '@playwright/test';
import { atrium, logIn, newMember, query, readEnv, type E2eEnv } from './helpers';
import { mockReplyWords, startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';

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

async function openChat(page: Page, model: string, path = '/chat'): Promise<void> {
  await page.goto(path);
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.locator('.chat-model select').selectOption(model);
}

async function ask(page: Page, text: string): Promise<void> {
  const box = page.locator('.chat-compose textarea');
  await box.fill(text);
  await box.press('Enter');
}

const answers = (page: Page) => page.locator('.chat-msg[data-role="assistant"]');
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
  await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: 10_000 }).toBe('stopped');
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
  await expect(answers(page).last()).toContainText('see the guide', { timeout: 10_000 });
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
  await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: 10_000 }).toBe('stopped');
  await page.reload();
  await expect(answers(page).last()).toContainText('已停止');
  expect(await shownText(page)).toBe(shown);
});

test('a reply that ended before the stop reached the server shows whole, without the stopped mark', async ({ page }) => {
  await openChat(page, 'e2e-stop-slow');
  let chatId = '';
  // The stop is held until the server has finished the reply (a stop that came too late).
  await page.route('**/api/chat/stop', async (route) => {
    await expect.poll(async () => (await query<{ status: string }>(env, 'select status from chat_reply where chat_id = $1', [chatId]))[0]?.status, { timeout: 15_000 }).toBe('done');
    await route.continue();
  });
  await ask(page, 'Finish before the stop');
  await expect(answers(page).last()).toContainText('Answer to');
  chatId = new URL(page.url()).searchParams.get('c')!;
  await page.getByRole('button', { name: '停止' }).click();
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible({ timeout: 15_000 });
  await expect(answers(page).last()).toContainText('see the guide [1].');
  expect(await shownText(page)).toBe(flat(mockReplyWords('Finish before the stop', WORDS).join('')));
  await expect(answers(page).last()).not.toContainText('已停止');
});
