// The message center as two members use it: a reply reaches the author's open tabs at once
// through one push stream per browser, the message links to the reply and reading it clears the
// badge everywhere, a private conversation is live both ways, and the badge keeps counting after
// the tab holding the stream is closed. Needs the e2e server on PostgreSQL (TEST_DATABASE_URL).
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { atrium, logIn, newMember, query, readEnv, withLock, type E2eEnv } from './helpers';
import { MESSAGE_STREAMS_PER_MEMBER } from '../../src/lib/server/auth/session-streams';
import { openSse, type SseClient } from '../helpers/sse';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });

const STREAM = '/api/interaction/stream';

/** Streams of a browser context that are open right now. */
function trackStreams(context: BrowserContext): { open(): number } {
  const live = new Map<object, Page>();
  context.on('request', (r) => { if (r.url().includes(STREAM)) live.set(r, r.frame().page()); });
  const done = (r: object): void => { live.delete(r); };
  context.on('requestfinished', done);
  context.on('requestfailed', done);
  // A closed page's requests may never report their end: they count as closed with their page.
  return { open: () => [...live.values()].filter((page) => !page.isClosed()).length };
}

async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
}

const badge = (page: Page) => page.locator('.user-box .msg-badge');

test('a reply reaches the author live in every tab through one stream; reading it clears the badge; private messages both ways', async ({ browser, baseURL }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the message flow (.ci/run does)');
  test.setTimeout(scaled(120_000));
  const suffix = Date.now().toString(36).slice(-6);
  const author = `au${suffix}`;
  const replier = `re${suffix}`;
  await newMember(env, author);
  await newMember(env, replier);
  const origin = { origin: baseURL! };

  const b1 = await logIn(env, browser, author);
  const bContext = b1.context();
  const streams = trackStreams(bContext);
  const a = await logIn(env, browser, replier);

  // The author's post (the editor module must be installed to write).
  const [category] = await query<{ id: number }>(env, `select id from ask_category where slug = 'discussion'`);
  let postId = 0;
  await withLock('editor-module', async () => {
    atrium(env, 'module:install', 'editor');
    const created = await b1.request.post('/api/ask/post', { headers: origin, data: { title: `Live messages ${suffix}`, category_id: category!.id, content: 'Does the badge update by itself?', tags: [], nonce: `post-${suffix}-aaaa` } });
    postId = ((await created.json()) as { data: { id: number } }).data.id;
  });
  expect(postId).toBeGreaterThan(0);

  // Three tabs of the author's browser; they hold exactly one stream between them.
  await b1.goto('/ask');
  await hydrated(b1);
  const b2 = await bContext.newPage();
  await b2.goto('/md');
  await hydrated(b2);
  const b3 = await bContext.newPage();
  await b3.goto('/modules');
  await hydrated(b3);
  await expect.poll(() => streams.open(), { timeout: scaled(5000) }).toBe(1);
  await b1.waitForTimeout(500);
  expect(streams.open()).toBe(1);
  await expect(badge(b1)).toHaveCount(0);

  // The reply: every tab shows the badge within a second, without reloading.
  let replyId = 0;
  await withLock('editor-module', async () => {
    atrium(env, 'module:install', 'editor');
    const sent = Date.now();
    const reply = await a.request.post('/api/ask/reply', { headers: origin, data: { post_id: postId, content: 'It does, through the stream.' } });
    replyId = ((await reply.json()) as { data: { id: number } }).data.id;
    await expect(badge(b1)).toHaveText('1', { timeout: scaled(1000) });
    expect(Date.now() - sent).toBeLessThan(scaled(1500));
  });
  await expect(badge(b2)).toHaveText('1');
  await expect(badge(b3)).toHaveText('1');

  // The message center lists it, linking to the reply; opening it clears the badge in the other tabs.
  await b2.goto('/user/messageCenter');
  await hydrated(b2);
  const item = b2.locator('.msg-item').filter({ hasText: `Live messages ${suffix}` });
  await expect(item).toBeVisible();
  await expect(item.getByRole('link')).toHaveAttribute('href', `/ask/info/${postId}#reply-${replyId}`);
  await item.getByRole('link').click();
  await expect(b2).toHaveURL(new RegExp(`/ask/info/${postId}#reply-${replyId}$`));
  await expect(badge(b1)).toHaveCount(0, { timeout: scaled(2000) });
  await expect(badge(b3)).toHaveCount(0);
  expect(streams.open()).toBe(1);

  // The author's name on the post opens the small card; "Send message" opens the conversation.
  const authorId = (await query<{ id: number }>(env, 'select id from "user" where username = $1', [author]))[0]!.id;
  await a.goto(`/ask/info/${postId}`);
  await a.locator(`a[href="/user/card/${authorId}"]`).first().click();
  const card = a.getByRole('dialog', { name: author });
  await expect(card).toBeVisible();
  await expect(card).toContainText('帖子 1');
  await a.keyboard.press('Escape');
  await expect(card).toHaveCount(0);
  await a.locator(`a[href="/user/card/${authorId}"]`).first().click();
  await a.getByRole('dialog', { name: author }).getByRole('link', { name: '发私信' }).click();
  await expect(a).toHaveURL(new RegExp(`/user/messageCenter\\?tab=private&user=${authorId}$`));

  // A private conversation, live both ways.
  await hydrated(a);
  await b2.goto(`/user/messageCenter?tab=private&user=${(await query<{ id: number }>(env, 'select id from "user" where username = $1', [replier]))[0]!.id}`);
  await hydrated(b2);
  const aBox = a.getByRole('textbox', { name: '输入私信内容' });
  await aBox.fill('你好，这是一条私信');
  await aBox.press('Shift+Enter');
  await aBox.pressSequentially('第二行');
  await aBox.press('Enter');
  await expect(aBox).toHaveValue('');
  await expect(b2.locator('.msg-bubble').filter({ hasText: '你好，这是一条私信' })).toContainText('第二行', { timeout: scaled(2000) });
  const bBox = b2.getByRole('textbox', { name: '输入私信内容' });
  await bBox.fill('收到！https://example.com/x');
  await bBox.press('Enter');
  const echoed = a.locator('.msg-bubble').filter({ hasText: '收到！' });
  await expect(echoed).toBeVisible({ timeout: scaled(2000) });
  await expect(echoed.getByRole('link', { name: 'https://example.com/x' })).toHaveAttribute('href', 'https://example.com/x');

  // Delete with undo: the message comes back on Undo; without it, it is gone for good. The page's clock
  // stands still meanwhile: a busy machine cannot run out the 5-second undo window before the click.
  await b2.clock.install();
  await b2.goto('/user/messageCenter?tab=reply');
  await hydrated(b2);
  await b2.clock.pauseAt(Date.now() + 1000);
  const row = b2.locator('.msg-item').filter({ hasText: `Live messages ${suffix}` });
  await row.getByRole('button', { name: '删除' }).click();
  await expect(row).toHaveCount(0);
  await b2.getByRole('button', { name: '撤销' }).click();
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: '删除' }).click();
  await expect(b2.getByRole('button', { name: '撤销' })).toBeVisible();
  const deleted = b2.waitForResponse('**/api/interaction/delMessage');
  await b2.clock.runFor(6000); // past the undo window: the delete is sent
  await expect(b2.getByRole('button', { name: '撤销' })).toHaveCount(0);
  expect((await deleted).ok()).toBe(true);
  await b2.clock.resume();
  await b2.reload();
  await hydrated(b2);
  await expect(b2.getByText('还没有人回复或评论你')).toBeVisible();
  expect(await query(env, `select id from messages where id in (select id from messages where link = $1)`, [`/ask/info/${postId}#reply-${replyId}`])).toHaveLength(0);

  // The tab holding the stream closes: another takes over and the badge keeps counting.
  const leader = await (async () => {
    for (const p of [b1, b2, b3]) if (await p.evaluate(() => navigator.locks.query().then((s) => (s.held ?? []).length > 0))) return p;
    return b1;
  })();
  await b1.close();
  await b3.close();
  if (leader !== b2) await expect.poll(() => streams.open(), { timeout: scaled(3000) }).toBe(1);
  await b2.goto('/ask');
  await hydrated(b2);
  await a.goto('/user/messageCenter?tab=private&user=' + (await query<{ id: number }>(env, 'select id from "user" where username = $1', [author]))[0]!.id);
  await hydrated(a);
  const again = a.getByRole('textbox', { name: '输入私信内容' });
  await again.fill('还在吗？');
  await again.press('Enter');
  await expect(badge(b2)).toHaveText('1', { timeout: scaled(3000) });
  await bContext.close();
  await a.context().close();
});

test('without EventSource the badge falls back to polling at the interval the server names', async ({ browser, baseURL }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the message flow (.ci/run does)');
  test.setTimeout(scaled(90_000));
  const suffix = Date.now().toString(36).slice(-6);
  const reader = `po${suffix}`;
  const writer = `pw${suffix}`;
  await newMember(env, reader);
  await newMember(env, writer);
  const page = await logIn(env, browser, reader);
  const w = await logIn(env, browser, writer);
  const streams = trackStreams(page.context());
  const polls: number[] = [];
  page.on('request', (r) => { if (r.url().includes('/api/interaction/count')) polls.push(Date.now()); });
  await page.context().addInitScript(() => { delete (window as { EventSource?: unknown }).EventSource; });
  // The page's clock is the test's: the interval is moved through, not waited for.
  await page.clock.install();
  await page.goto('/ask');
  await hydrated(page);
  await expect.poll(() => polls.length, { timeout: scaled(5000) }).toBeGreaterThan(0);
  await page.clock.pauseAt(Date.now() + 500);
  const readerId = (await query<{ id: number }>(env, 'select id from "user" where username = $1', [reader]))[0]!.id;
  const sent = await w.request.post('/api/interaction/sendMessage', { headers: { origin: baseURL! }, data: { user_id: readerId, content: 'polled' } });
  expect(((await sent.json()) as { code: number }).code).toBe(1);
  // The default interval without a stream is 15 s.
  await page.clock.runFor(15_500);
  await expect(badge(page)).toHaveText('1');
  expect(streams.open()).toBe(0);
  expect(polls.length).toBeGreaterThanOrEqual(2);
  await page.context().close();
  await w.context().close();
});

test('a stream the server ends (newer streams of the member took its place) is not reopened: the page polls the count', async ({ browser, baseURL }) => {
  test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the message flow (.ci/run does)');
  test.setTimeout(scaled(90_000));
  const name = `ca${Date.now().toString(36).slice(-6)}`;
  await newMember(env, name);
  const page = await logIn(env, browser, name);
  const streamRequests: number[] = [];
  const polls: number[] = [];
  page.on('request', (r) => {
    if (r.url().includes(STREAM)) streamRequests.push(Date.now());
    if (r.url().includes('/api/interaction/count')) polls.push(Date.now());
  });
  const streams = trackStreams(page.context());
  await page.goto('/ask');
  await hydrated(page);
  await expect.poll(() => streams.open(), { timeout: scaled(5000) }).toBe(1);
  // The member's other devices: as many streams as the cap, so the page's, the oldest, is closed.
  const token = (await page.context().cookies()).find((c) => c.name === 'ba-user-token')!.value;
  const others: SseClient[] = [];
  const polled = polls.length;
  const opened = streamRequests.length;
  for (let i = 0; i < MESSAGE_STREAMS_PER_MEMBER; i++) others.push(await openSse(baseURL!, STREAM, { 'ba-user-token': token }));
  await expect.poll(() => streams.open(), { timeout: scaled(3000) }).toBe(0);
  await expect.poll(() => polls.length, { timeout: scaled(5000) }).toBeGreaterThan(polled);
  // EventSource would reconnect after the stream's 2 s retry and push another device's stream out.
  await page.waitForTimeout(3000);
  expect(streamRequests).toHaveLength(opened);
  expect(others.filter((s) => s.ended)).toHaveLength(0);
  for (const s of others) s.close();
  await page.context().close();
});
