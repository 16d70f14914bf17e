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
