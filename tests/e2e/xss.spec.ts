// The XSS corpus where pages render member input in the browser (issue 17): the chat's conversation
// list and the site assistant quoting a post, the message center's list and private conversation,
// the member center and the admin console. Payloads are stored through the API; every page is
// opened in Chromium with `X7S` defined, so an injected `alert(X7S)` would fire a dialog; none may,
// and no element may carry a handler, srcdoc or script URL holding the marker.
import { expect, test, type Browser, type Page } from '@playwright/test';
import { atrium, logIn, newMember, query, readEnv, withLock, type E2eEnv } from './helpers';
import { ALL_PAYLOADS, PAGE_PAYLOADS } from '../helpers/xss';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

/** Waits for the islands to hydrate (those hydrated only when seen or touched may stay as rendered). */
async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]:is([client="load"],[client="idle"])'), undefined, { timeout: scaled(10_000) }).catch(async (err: unknown) => {
    const stuck = await page.evaluate(() => Array.from(document.querySelectorAll('astro-island[ssr]')).map((i) => `${i.getAttribute('client')} ${i.getAttribute('component-url')}`));
    throw new Error(`${page.url()}: islands not hydrated: ${stuck.join(', ')} (${String(err)})`);
  });
}

/** Live elements the marker reached in the rendered document (after scripts ran). */
function liveMarkup(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll('*'))) {
      for (const attr of Array.from(el.attributes)) {
        const name = attr.name.toLowerCase();
        const value = attr.value;
        if (!value.includes('X7S')) continue;
        if (name.startsWith('on') || name === 'srcdoc' || (['href', 'src', 'action', 'formaction'].includes(name) && /^\s*(?:javascript|vbscript|data):/i.test(value))) {
          found.push(el.outerHTML.slice(0, 200));
        }
      }
      if ((el.tagName === 'SCRIPT' || el.tagName === 'STYLE') && (el.textContent ?? '').includes('X7S') && !/json/.test(el.getAttribute('type') ?? '')) found.push(el.outerHTML.slice(0, 200));
    }
    return found;
  });
}

/** A browser context of `name`, with `X7S` defined and every dialog recorded. */
async function reader(browser: Browser, name: string, dialogs: string[]): Promise<Page> {
  const page = await logIn(env, browser, name);
  await page.context().addInitScript(() => { (window as unknown as { X7S: string }).X7S = 'xss-fired'; });
  page.context().on('page', (p) => p.on('dialog', (d) => { dialogs.push(`${p.url()}: ${d.message()}`); void d.dismiss(); }));
  page.on('dialog', (d) => { dialogs.push(`${page.url()}: ${d.message()}`); void d.dismiss(); });
  return page;
}

test('member input rendered in the browser stays text: chat, assistant, messages, member center, admin console', async ({ browser, baseURL }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run it (.ci/run does)');
  test.setTimeout(scaled(150_000));
  const suffix = Date.now().toString(36).slice(-6);
  const author = `xa${suffix}`;
  const sender = `xb${suffix}`;
  const admin = `xo${suffix}`;
  await newMember(env, author);
  await newMember(env, sender);
  await newMember(env, admin, 2);
  const [authorRow] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [author]);
  const authorId = authorRow!.id;
  const origin = { origin: baseURL! };
  const dialogs: string[] = [];
  const a = await reader(browser, author, dialogs);
  const b = await reader(browser, sender, dialogs);
  const o = await reader(browser, admin, dialogs);
  const ok = async (p: Page, path: string, data: unknown): Promise<void> => {
    const res = await p.request.post(path, { headers: origin, data });
    const body = (await res.json()) as { code: number; msg: string };
    expect(body.code, `${path}: ${body.msg}`).toBe(1);
  };

  // Stored through the API: a post whose title and text the assistant quotes, a profile motto, a
  // private message, a chat conversation's title, an invoice request.
  const [category] = await query<{ id: number }>(env, `select id from ask_category where slug = 'discussion'`);
  let postId = 0;
  await withLock('editor-module', async () => {
    atrium(env, 'module:install', 'editor');
    const created = await a.request.post('/api/ask/post', { headers: origin, data: { title: `Zebracorn ${PAGE_PAYLOADS[1]}`, category_id: category!.id, content: `Zebracorn migration notes.\n\n${ALL_PAYLOADS}`, tags: [], nonce: `xss-${suffix}-aaaa` } });
    postId = ((await created.json()) as { data: { id: number } }).data.id;
  });
  expect(postId).toBeGreaterThan(0);
  await ok(a, '/api/account/profile', { nickname: `X ${suffix}`, gender: 0, motto: PAGE_PAYLOADS[2] });
  await ok(b, '/api/interaction/sendMessage', { user_id: authorId, content: ALL_PAYLOADS.slice(0, 2000) });
  const chatId = `xss${suffix}`;
  const sent = await a.request.post('/api/chat/send', { headers: origin, data: { id: chatId, model: 'site', messages: [{ id: `m${suffix}`, role: 'user', parts: [{ type: 'text', text: 'Zebracorn migration' }] }] } });
  expect(sent.status()).toBe(200);
  await sent.body();
  await ok(a, '/api/chat/rename', { id: chatId, title: PAGE_PAYLOADS[0] });

  const visit = async (p: Page, path: string): Promise<void> => {
    await p.goto(path);
    await hydrated(p);
    await p.waitForTimeout(300);
    expect(await liveMarkup(p), path).toEqual([]);
  };

  // The chat: the conversation list, the stored conversation, and the assistant quoting the post live.
  await visit(a, '/chat');
  await expect(a.locator('.chat-list')).toContainText('alert(X7S)');
  await a.locator('.chat-list').getByText('alert(X7S)').first().click();
  await a.waitForTimeout(500);
  expect(await liveMarkup(a), 'stored conversation').toEqual([]);
  await visit(a, '/chat');
  await a.locator('.chat-model select').selectOption('site');
  const box = a.locator('.chat-compose textarea');
  await box.fill('Zebracorn');
  await box.press('Enter');
  await expect(a.locator('.chat-msg[data-role="assistant"]').last().getByRole('button', { name: '重新生成' })).toBeVisible({ timeout: scaled(20_000) });
  await expect(a.locator('.chat-msg[data-role="assistant"]').last()).toContainText('Zebracorn');
  expect(await liveMarkup(a), 'assistant answer').toEqual([]);
  await a.locator('a.chat-cite').first().hover().catch(() => undefined);
  await a.waitForTimeout(300);
  expect(await liveMarkup(a), 'citation preview').toEqual([]);

  // The message center: the list and the private conversation.
  await visit(a, '/user/messageCenter');
  const [senderRow] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [sender]);
  await visit(a, `/user/messageCenter?tab=private&user=${senderRow!.id}`);
  await expect(a.locator('body')).toContainText('alert(X7S)');
  await visit(b, `/user/messageCenter?tab=private&user=${authorId}`);

  // The member center, the post, the member card, the console.
  for (const path of ['/user/account/profile', '/user/account/overview', `/ask/info/${postId}`, `/user/card/${authorId}`, '/user/ask/post']) await visit(a, path);
  for (const path of ['/admin/members', `/admin/members/${authorId}`, '/admin/reports', '/admin/finance', '/admin/audit']) await visit(o, path);

  expect(dialogs).toEqual([]);
});
