// The chat page loads the conversation's code (the AI SDK, the answer renderer) only when it is
// needed (issue 27: mobile Lighthouse performance on /chat): the welcome and the question box come
// with the page; turning to the box loads the rest; a question sent before it has loaded is asked
// once it has, and a conversation named in the address shows no welcome while it loads.
import { expect, test } from '@playwright/test';
import { answers } from './chat-page';
import { scaled } from '../helpers/time-scale.mjs';

const VIEW_CHUNK = /\/_astro\/ChatView\.[\w-]+\.js$/;

test('the conversation’s code loads when the reader turns to the question box, and a question sent before is asked once it has', async ({ page }) => {
  const fetched: string[] = [];
  page.on('request', (r) => { if (VIEW_CHUNK.test(r.url())) fetched.push(r.url()); });
  // The chunk is held until the question has been sent, as on a slow phone.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  await page.route(VIEW_CHUNK, async (route) => { await held; await route.continue(); });

  const response = await page.goto('/chat');
  const html = await response!.text();
  // Server-rendered: the welcome and the question box, before any script runs.
  expect(html).toMatch(/<div class="chat-welcome"><h2>有什么可以帮你？<\/h2>/);
  expect(html).toMatch(/<form[^>]*class="chat-compose"/);
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.waitForLoadState('networkidle');
  expect(fetched, 'nothing asked yet: the conversation’s code is not loaded').toEqual([]);

  await page.locator('.chat-model select').selectOption('site');
  const box = page.locator('.chat-compose textarea');
  await box.click();
  await expect.poll(() => fetched.length, { timeout: scaled(5_000) }).toBe(1);
  await page.keyboard.type('如何把站点迁移到 PostgreSQL？');
  await page.keyboard.press('Enter');
  // Waiting for the code: the box is empty again, Stop is offered, the model cannot change.
  await expect(box).toHaveValue('');
  await expect(page.getByRole('button', { name: '停止' })).toBeVisible();
  await expect(page.locator('.chat-model select')).toBeDisabled();

  release();
  await expect(page.locator('.chat-msg[data-role="user"] .chat-bubble')).toHaveText('如何把站点迁移到 PostgreSQL？', { timeout: scaled(10_000) });
  await expect(answers(page).last()).toContainText('站点助手', { timeout: scaled(20_000) });
  await expect(answers(page).last().getByRole('button', { name: '重新生成' })).toBeVisible({ timeout: scaled(20_000) });
  expect(fetched).toHaveLength(1);

  // Reloaded, the conversation (named in the address now) shows with no welcome before it.
  expect(page.url()).toMatch(/[?&]c=[\w-]+/);
  const again = await page.goto(page.url());
  expect(await again!.text()).not.toContain('class="chat-welcome"');
  await expect(page.locator('.chat-msg[data-role="user"] .chat-bubble')).toHaveText('如何把站点迁移到 PostgreSQL？', { timeout: scaled(10_000) });
  await expect(page.locator('.chat-welcome')).toHaveCount(0);
});
