// The AI chat page as the chat specs drive it: open it on a model, ask, read the answers.
import type { Locator, Page } from '@playwright/test';

/** Opens `path` (the chat page), waits for its island and picks `model`. */
export async function openChat(page: Page, model: string, path = '/chat'): Promise<void> {
  await page.goto(path);
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.locator('.chat-model select').selectOption(model);
}

/** Types a question and sends it with Enter. */
export async function ask(page: Page, text: string): Promise<void> {
  const box = page.locator('.chat-compose textarea');
  await box.fill(text);
  await box.press('Enter');
}

/** The assistant's answers, in order. */
export const answers = (page: Page): Locator => page.locator('.chat-msg[data-role="assistant"]');
