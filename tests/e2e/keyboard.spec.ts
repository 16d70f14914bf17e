// Keyboard only (issue 27, WCAG 2.1.1): a member posts, replies, sends a private message, chats and
// buys a module, in Chinese and in English, with nothing but key presses. The test reads the page
// (which element has focus, what is shown) but never clicks, focuses or fills an element: every
// step is `keyboard.press` or `keyboard.type`. Needs the e2e server on PostgreSQL (TEST_DATABASE_URL).
import { expect, test, type Page } from '@playwright/test';
import { atrium, logIn, newMember, query, readEnv, tabTo, withLock, type E2eEnv } from './helpers';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';
import { scaled } from '../helpers/time-scale.mjs';

const LANGS = ['zh-cn', 'en'] as const;

const T = {
  'zh-cn': {
    title: '标题', category: '分类', content: '内容', publish: '发布', reply: '写回复', sendReply: '发表回复',
    compose: '输入私信内容', send: '发送', chat: '输入问题，Enter 发送，Shift+Enter 换行',
    buy: '余额购买 ¥9.90', confirm: '确认购买', pay: '确认支付 ¥9.90', owned: /你已拥有此模块/,
  },
  en: {
    title: 'Title', category: 'Category', content: 'Content', publish: 'Publish', reply: 'Write a reply', sendReply: 'Post reply',
    compose: 'Write a private message', send: 'Send', chat: 'Ask a question; Enter sends, Shift+Enter adds a line',
    buy: 'Buy with balance ¥9.90', confirm: 'Confirm your purchase', pay: 'Pay ¥9.90', owned: /You own this module/,
  },
} as const;

/** Loads a page and waits until its islands have hydrated (reading only). */
async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr][client="load"]'));
}

let env: E2eEnv;
let mock: MockOpenAI | null = null;
const suffix = Date.now().toString(36).slice(-5);

test.beforeAll(async () => {
  env = readEnv();
  if (!env.databaseUrl) return;
  mock = await startMockOpenAI({ delayMs: 5, words: 12 });
  const existing = await query<{ name: string }>(env, 'select name from chat_model where name = $1', ['e2e-keyboard']);
  if (existing.length) await query(env, 'update chat_model set base_url = $1 where name = $2', [mock.url, 'e2e-keyboard']);
  else atrium(env, 'chat:add', 'e2e-keyboard', '--base-url', mock.url, '--model', 'mock', '--title', 'Keyboard model', '--audience', 'visitors');
});

test.afterAll(async () => { await mock?.close(); });

for (const lang of LANGS) {
  test(`a member posts, replies, messages, chats and buys with the keyboard only (${lang})`, async ({ browser }) => {
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the keyboard walk (.ci/run does)');
    test.setTimeout(scaled(180_000));
    const t = T[lang];
    const me = `kb${lang === 'en' ? 'e' : 'z'}${suffix}`;
    const friend = `kf${lang === 'en' ? 'e' : 'z'}${suffix}`;
    const seller = `ks${lang === 'en' ? 'e' : 'z'}${suffix}`;
    await newMember(env, me);
    await newMember(env, friend);
    await newMember(env, seller);
    atrium(env, 'user:money', me, '20', 'top-up for the keyboard walk');
    const [sellerRow] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [seller]);
    const [friendRow] = await query<{ id: number }>(env, 'select id from "user" where username = $1', [friend]);
    const uid = `kbd-${lang}-${suffix}`;
    const now = Math.floor(Date.now() / 1000);
    const [mod] = await query<{ id: number }>(env, `insert into module (uid, developer_id, name, summary, category, price, status, latest_version, publish_time, create_time, update_time)
      values ($1, $2, $3, 'A module bought with the keyboard', 'tools', 990, 'published', '1.0.0', $4, $4, $4) returning id`, [uid, sellerRow!.id, `Keyboard module ${lang} ${suffix}`, now]);
    await query(env, `insert into module_version (module_id, version, status, publish_time, create_time) values ($1, '1.0.0', 'published', $2, $2)`, [mod!.id, now]);

    const page = await logIn(env, browser, me);
    await page.context().addCookies([{ name: 'ba-lang', value: lang, url: test.info().project.use.baseURL! }]);

    // 1. A post: title, category (arrow keys), content, Publish with Enter.
    const title = `Keyboard ${lang} ${suffix}`;
    await withLock('editor-module', async () => {
      atrium(env, 'module:install', 'editor');
      await open(page, '/ask/post');
      await tabTo(page, page.getByRole('textbox', { name: t.title }));
      await page.keyboard.type(title);
      await tabTo(page, page.getByLabel(t.category));
      await page.keyboard.press('ArrowDown');
      await tabTo(page, page.getByRole('textbox', { name: t.content }));
      await page.keyboard.type('Written without a mouse.');
      await tabTo(page, page.getByRole('button', { name: t.publish }));
      await page.keyboard.press('Enter');
      await expect(page).toHaveURL(/\/ask\/info\/\d+$/);
      await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();

      // 2. A reply on it.
      await tabTo(page, page.getByRole('textbox', { name: t.reply }));
      await page.keyboard.type('A reply typed with the keyboard.');
      await tabTo(page, page.getByRole('button', { name: t.sendReply }));
      await page.keyboard.press('Enter');
      await expect(page.locator('.reply .markdown-body').filter({ hasText: 'A reply typed with the keyboard.' })).toBeVisible();
    });

    // 3. A private message.
    await open(page, `/user/messageCenter?tab=private&user=${friendRow!.id}`);
    await tabTo(page, page.getByRole('textbox', { name: t.compose }));
    await page.keyboard.type('Hello from the keyboard');
    await page.keyboard.press('Enter');
    // Shown at once as "sending", then sent: one bubble in the end (the live copy and the reply meet).
    await expect(page.locator('.msg-bubble[data-state="sent"]').filter({ hasText: 'Hello from the keyboard' })).toBeVisible();
    await expect(page.locator('.msg-bubble').filter({ hasText: 'Hello from the keyboard' })).toHaveCount(1);

    // 4. A chat question to the test model: the model picker with arrow keys, Enter sends.
    await open(page, '/chat');
    await tabTo(page, page.locator('.chat-model select'));
    const options = await page.locator('.chat-model select option').allTextContents();
    const current = await page.locator('.chat-model select').evaluate((el) => (el as HTMLSelectElement).selectedIndex);
    const wanted = options.findIndex((o) => o.includes('Keyboard model'));
    for (let i = current; i < wanted; i++) await page.keyboard.press('ArrowDown');
    for (let i = current; i > wanted; i--) await page.keyboard.press('ArrowUp');
    await expect(page.locator('.chat-model select')).toHaveValue(/.+/);
    await tabTo(page, page.getByRole('textbox', { name: t.chat }));
    await page.keyboard.type('What is Atrium?');
    await page.keyboard.press('Enter');
    await expect(page.locator('.chat-msg[data-role="assistant"]').last()).toContainText(/\w+/, { timeout: scaled(20_000) });

    // 5. Buying the module: the button, the confirmation dialog, Pay.
    await open(page, `/modules/${uid}`);
    await tabTo(page, page.getByRole('button', { name: t.buy }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: t.confirm });
    await expect(dialog).toBeVisible();
    await tabTo(page, dialog.getByRole('button', { name: t.pay }));
    await page.keyboard.press('Enter');
    await expect(page.getByText(t.owned)).toBeVisible();
    const [paid] = await query<{ n: string }>(env, `select count(*) as n from module_order o join "user" u on u.id = o.user_id where u.username = $1 and o.status = 'paid'`, [me]);
    expect(Number(paid!.n)).toBe(1);
    await page.context().close();
  });
}

// Focus not obscured (WCAG 2.2 2.4.11): tabbing forwards and back through the key pages, on a wide
// window and on phones, the focused element is never hidden by what the page puts over it — the
// sticky header (scroll-padding-top keeps what focus scrolls to below it), the upload panel or a
// notification. Checked at points across the element: the topmost element there must be it (or
// inside it, or what holds it); and no part of it may sit under the sticky header. A notification
// may cover what has focus only while Escape, pressed without moving focus, takes it away.
const FOCUS_WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 720 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: '320 px', viewport: { width: 320, height: 568 } },
] as const;

interface FocusSeen { what: string; covered: string | null; underHeader: boolean; underNote: boolean }

/** Where the focused element is, and what (if anything) covers it. */
async function focusSeen(page: Page): Promise<FocusSeen | null> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body || el === document.documentElement) return null;
    const box = el.getBoundingClientRect();
    // Visually hidden controls (a file input behind its label) have nothing to obscure.
    if (box.width < 2 || box.height < 2) return null;
    const what = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}"`;
    const name = (n: Element): string => `${n.tagName.toLowerCase()}${typeof n.className === 'string' && n.className ? `.${n.className.trim().split(/\s+/).join('.')}` : ''}`;
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const points: [number, number][] = [];
    for (const fx of [0.2, 0.5, 0.8]) for (const fy of [0.2, 0.5, 0.8]) {
      const x = box.left + box.width * fx;
      const y = box.top + box.height * fy;
      if (x >= 0 && x < vw && y >= 0 && y < vh) points.push([x, y]);
    }
    let covered: string | null = points.length ? null : 'outside the window';
    if (points.length) {
      const hits = points.map(([x, y]) => document.elementFromPoint(x, y));
      const mine = (hit: Element | null): boolean => !!hit && (hit === el || el.contains(hit) || hit.contains(el));
      if (!hits.some(mine)) covered = hits.map((h) => (h ? name(h) : 'nothing')).join(', ');
    }
    const header = document.querySelector('.site-header');
    let underHeader = false;
    if (header && !header.contains(el) && getComputedStyle(header).position === 'sticky') {
      const h = header.getBoundingClientRect();
      underHeader = box.top < h.bottom - 1 && box.bottom > h.top;
    }
    const underNote = [...document.querySelectorAll('.ba-notify')].some((n) => {
      if (n.contains(el)) return false;
      const r = n.getBoundingClientRect();
      return box.left < r.right && box.right > r.left && box.top < r.bottom && box.bottom > r.top;
    });
    return { what, covered, underHeader, underNote };
  });
}

/**
 * Tabs `presses` times (Shift+Tab when `back`) and lists every focused element that was hidden;
 * `closed` counts the notifications Escape took off a focused element.
 */
async function walk(page: Page, presses: number, back: boolean, closed = { count: 0 }): Promise<string[]> {
  const hidden: string[] = [];
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const seen = await focusSeen(page);
    if (!seen) continue;
    if (seen.underNote) {
      // Under a notification: Escape closes it and focus stays where it was.
      const before = seen.what;
      await page.keyboard.press('Escape');
      const after = await focusSeen(page);
      if (!after || after.what !== before || after.covered || after.underNote) hidden.push(`${before}: under a notification that Escape did not take away (${after?.covered ?? 'focus moved'})`);
      else closed.count++;
      continue;
    }
    if (seen.covered) hidden.push(`${seen.what}: covered by ${seen.covered}`);
    else if (seen.underHeader) hidden.push(`${seen.what}: partly under the sticky header`);
  }
  return hidden;
}

test.describe('focus is never hidden under the header, the upload panel or a notification (2.4.11)', () => {
  for (const width of FOCUS_WIDTHS) {
    test(`tabbing through the key pages, ${width.name}`, async ({ browser }) => {
      test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL (the member pages need a member)');
      test.setTimeout(scaled(300_000));
      const name = `kbf${suffix}${width.viewport.width}`;
      await newMember(env, name);
      const member = await logIn(env, browser, name);
      // A post with a reply box under it (the editor module), made the way the page makes it.
      const post = await withLock('editor-module', async () => {
        atrium(env, 'module:install', 'editor');
        const [category] = await query<{ id: number }>(env, `select id from ask_category where slug = 'question'`);
        return member.evaluate(async (data) => {
          const res = await fetch('/api/ask/post', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(data) });
          return ((await res.json()) as { data: { id: number } }).data.id;
        }, { title: `Focus walk ${name}`, category_id: category!.id, content: 'A post to tab through.', tags: ['focus'], nonce: `kbf-${name}` });
      });
      expect(post).toBeGreaterThan(0);
      const state = await member.context().storageState();
      await member.context().close();

      const hidden: string[] = [];
      const visitor = await browser.newContext({ viewport: width.viewport, locale: 'zh-CN' });
      const page = await visitor.newPage();
      const pages = ['/', '/ask', `/ask/info/${post}`, '/md/guide/install', '/modules', '/modules/webhook', '/chat', '/user/login'];
      for (const path of pages) {
        await open(page, path);
        const found = [...await walk(page, 45, false), ...await walk(page, 45, true)];
        hidden.push(...found.map((f) => `${path}: ${f}`));
      }
      // A notification over the page (a message carried from the last page, as after saving).
      await page.evaluate(() => sessionStorage.setItem('atrium-carried-note', JSON.stringify({ message: 'Saved', type: 'success' })));
      await open(page, '/ask');
      await expect(page.locator('.ba-notify')).toBeVisible();
      const closed = { count: 0 };
      hidden.push(...(await walk(page, 20, false, closed)).map((f) => `/ask with a notification: ${f}`));
      // The notification (top right, over the header's tools) was met, and Escape took it away.
      expect(closed.count).toBe(1);
      await expect(page.locator('.ba-notify')).toHaveCount(0);
      await visitor.close();

      const signed = await browser.newContext({ viewport: width.viewport, locale: 'zh-CN', storageState: state });
      const mine = await signed.newPage();
      await withLock('editor-module', async () => {
        atrium(env, 'module:install', 'editor');
        for (const path of ['/user/account/overview', '/user/account/profile', '/ask/post', `/ask/info/${post}`, '/user/messageCenter']) {
          await open(mine, path);
          const found = [...await walk(mine, 45, false), ...await walk(mine, 45, true)];
          hidden.push(...found.map((f) => `${path} (member): ${f}`));
        }
      });
      // The upload panel, with an avatar uploaded (the file is chosen by the test: picking a file is
      // the operating system's dialog), walked through with its rows in view.
      await open(mine, '/user/account/profile');
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      await mine.locator('input[name="avatarFile"]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
      await expect(mine.locator('.upq-row').first()).toHaveAttribute('data-state', 'success', { timeout: scaled(20_000) });
      const withPanel = [...await walk(mine, 45, false), ...await walk(mine, 45, true)];
      hidden.push(...withPanel.map((f) => `/user/account/profile with the upload panel: ${f}`));
      await signed.close();
      expect(hidden).toEqual([]);
    });
  }
});
