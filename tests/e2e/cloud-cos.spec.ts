// Direct uploads in the `cos` mode, in Chromium: cos-js-sdk-v5 with temporary credentials from
// /api/Cos/refreshToken, through the COS-dialect gateway (q-sign, token policy) to Swift: a 200 MB
// file paused and resumed, then reloaded mid-way and resumed sending only the missing parts; an
// image pasted into the editor; the switch back to local mode.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { addMember, logInTo, pasteIntoPostEditor, randomFile, startCloudSite, storedSha1, type CloudSite } from './cloud-upload';
import { startCosGateway, type CosGateway } from '../helpers/cos-gateway';
import { qSign } from '../helpers/cos-sign';
import { scaled } from '../helpers/time-scale.mjs';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const MB = 1024 * 1024;

let site: CloudSite;
let gateway: CosGateway;
const BUCKET = 'atrium-1250000000';
let memberId = 0;
/** Folders of the big files this spec wrote: removed at the end, pass or fail. */
const made: string[] = [];
test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(scaled(180_000));
  if (!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL) return;
  site = await startCloudSite({ COS_SECRET_ID: 'test:tester', COS_SECRET_KEY: 'testing', COS_STS: 'local' }, { bucket: BUCKET, region: 'ap-guangzhou' });
  gateway = await startCosGateway({ backend: site.swift.endpoint, accessKeyId: site.swift.accessKeyId, secretAccessKey: site.swift.secretAccessKey, master: 'testing' });
  site.cli('config:set', 'upload_max_size', '300mb');
  site.cli('config:set', 'upload_params', JSON.stringify({ bucket: BUCKET, region: 'ap-guangzhou', endpoint: site.swift.endpoint, domain: `${gateway.url}/{Bucket}`, publicUrl: `${site.swift.endpoint}/${BUCKET}` }));
  site.cli('config:set', 'upload_mode', 'cos');
  memberId = await addMember(site, 'cloudcos');
});
test.afterAll(async () => {
  await gateway?.close();
  await site?.stop();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Part numbers whose PUT to the store finished with 200, as the page saw them. */
function trackParts(page: Page, endpoint: string): Set<number> {
  const done = new Set<number>();
  page.on('requestfinished', async (req) => {
    if (req.method() !== 'PUT' || !req.url().startsWith(endpoint)) return;
    const res = await req.response();
    if (res?.status() === 200) done.add(Number(new URL(req.url()).searchParams.get('partNumber')));
  });
  return done;
}

async function progressOf(page: Page): Promise<number> {
  return Number(await page.locator('.upq-row progress').first().getAttribute('value'));
}

test('cos: 200 MB paused, resumed, reloaded mid-way and resumed with only the missing parts; the stored object is the file', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  test.setTimeout(scaled(300_000));
  const size = 200 * MB;
  const file = randomFile('big.png', size);
  made.push(dirname(file.path));
  const totalParts = Math.ceil(size / (5 * MB));
  const page = await logInTo(site, browser, 'cloudcos');
  await page.goto('/user/account/profile');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const before = trackParts(page, gateway.url);

  // Uploads limited to 12 MB/s, so that a quick store cannot finish before the test pauses and reloads.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 12 * MB });
  await page.locator('input[name="avatarFile"]').setInputFiles(file.path);
  const row = page.locator('.upq-row').first();
  await expect(row).toHaveAttribute('data-state', 'uploading', { timeout: scaled(60_000) });
  await expect.poll(() => progressOf(page), { timeout: scaled(60_000) }).toBeGreaterThanOrEqual(15);
  await expect(page.locator('.upq-meta')).toContainText(/\/s/);

  // Pause: the parts in flight stop, nothing more is sent.
  await row.getByRole('button', { name: '暂停' }).click();
  await expect(row).toHaveAttribute('data-state', 'paused');
  await expect(row).toContainText('已暂停');
  const sentAtPause = before.size;
  await page.waitForTimeout(1500);
  expect(before.size).toBeLessThanOrEqual(sentAtPause + 3);
  const settled = before.size;
  await page.waitForTimeout(1500);
  expect(before.size).toBe(settled);

  // Resume: back to waiting, then uploading again from where it stopped.
  await row.getByRole('button', { name: '继续' }).click();
  await expect(row).toHaveAttribute('data-state', 'uploading', { timeout: scaled(30_000) });
  await expect.poll(() => progressOf(page), { timeout: scaled(120_000) }).toBeGreaterThanOrEqual(50);

  // A reload in the middle: the upload id stays in localStorage; the same file chosen again sends only what is missing.
  await page.reload();
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const sentBefore = new Set(before);
  expect(sentBefore.size).toBeGreaterThan(totalParts / 3);
  const after = trackParts(page, gateway.url);
  await page.locator('input[name="avatarFile"]').setInputFiles(file.path);
  await expect(page.locator('.upq-row').first()).toHaveAttribute('data-state', 'success', { timeout: scaled(240_000) });
  const resent = [...after].filter((n) => sentBefore.has(n));
  expect(resent).toEqual([]);
  expect(after.size).toBeLessThan(totalParts - sentBefore.size + 4);
  // The SDK found the upload again (ListMultipartUploads, ListParts) and skipped what the store had.
  expect(gateway.passed.some((p) => /^GET \?uploads/.test(p) || p.startsWith('GET ?'))).toBe(true);
  expect(gateway.passed.some((p) => /uploadId=/.test(p) && p.startsWith('GET '))).toBe(true);

  // The avatar is the stored object's URL; the object read back is the file.
  const src = await page.locator('.avatar-row img').getAttribute('src');
  expect(src).toMatch(new RegExp(`^${site.swift.endpoint}/${BUCKET}/uploads/${memberId}/avatar/`));
  const key = decodeURIComponent(new URL(src!).pathname.slice(`/${site.swift.bucket}/`.length));
  expect(await storedSha1(site, key)).toBe(file.sha1);
  const [row2] = await site.sql<{ size: string; storage: string }>('select size, storage from attachment where url = $1', [`/${key}`]);
  expect(row2).toMatchObject({ size: String(size), storage: 'cos' });
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByRole('status').filter({ hasText: '资料已保存' })).toBeVisible();
});

test('cos: an image pasted into the editor appears with the store URL', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  test.setTimeout(scaled(120_000));
  site.cli('module:install', 'editor');
  const page = await logInTo(site, browser, 'cloudcos');
  const editor = await pasteIntoPostEditor(page, PNG);
  await expect(editor).toHaveValue(new RegExp(`!\\[pasted\\.png\\]\\(${site.swift.endpoint}/${BUCKET}/uploads/${memberId}/`), { timeout: scaled(30_000) });
  await expect(page.locator('.upq-row').first()).toHaveAttribute('data-state', 'success');
});

/** The queue's page with a 3 MB/s upload link, so that a 24 MB upload lasts several seconds. */
async function slowProfile(browser: import('@playwright/test').Browser): Promise<Page> {
  const page = await logInTo(site, browser, 'cloudcos');
  await page.goto('/user/account/profile');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 3 * MB });
  return page;
}

test('cos: credentials that expire mid-upload are renewed by the queue, and the upload completes', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  test.setTimeout(scaled(120_000));
  const file = randomFile('expiring.png', 24 * MB);
  made.push(dirname(file.path));
  const page = await slowProfile(browser);
  // Credentials live 61 s and the store's clock runs 55 s ahead: the store refuses them 6 s after they
  // were issued. The SDK reuses credentials only while more than 60 s are left (spec §9), i.e. for 1 s,
  // so it must fetch new ones during the upload, which lasts about 8 s at 3 MB/s.
  const issued: { tmpSecretId: string; tmpSecretKey: string; sessionToken: string; startTime: number; expiredTime: number }[] = [];
  await page.route('**/api/cos/refreshToken', async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { data: (typeof issued)[number] };
    body.data.expiredTime = body.data.startTime + 61;
    issued.push(body.data);
    await route.fulfill({ response, json: body });
  });
  gateway.clockOffset = 55;
  try {
    await page.locator('input[name="avatarFile"]').setInputFiles(file.path);
    await expect(page.locator('.upq-row').first()).toHaveAttribute('data-state', 'success', { timeout: scaled(90_000) });
    expect(issued.length).toBeGreaterThanOrEqual(3);
    // The first credentials did expire at the store while the upload went on: a request signed with
    // them now is refused as expired.
    const first = issued[0]!;
    const wait = (first.startTime + 7) * 1000 - Date.now();
    if (wait > 0) await page.waitForTimeout(wait);
    const key = `uploads/${memberId}/avatar/probe.txt`;
    const host = new URL(gateway.url).host;
    const authorization = qSign({
      secretId: first.tmpSecretId, secretKey: first.tmpSecretKey, method: 'PUT', pathname: `/${key}`, query: {},
      headers: { host }, keyTime: `${first.startTime};${first.expiredTime}`,
    });
    const stale = await fetch(`${gateway.url}/${BUCKET}/${key}`, { method: 'PUT', body: 'x', headers: { authorization, 'x-cos-security-token': first.sessionToken } });
    expect(stale.status).toBe(403);
    expect(await stale.text()).toContain('Request has expired');
  } finally {
    gateway.clockOffset = 0;
  }
  const src = await page.locator('.avatar-row img').getAttribute('src');
  const key = decodeURIComponent(new URL(src!).pathname.slice(`/${site.swift.bucket}/`.length));
  expect(await storedSha1(site, key)).toBe(file.sha1);
});

test('cos: the store refusing expired credentials shows the error in the member\'s language, and a retry completes', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  test.setTimeout(scaled(120_000));
  for (const [locale, expired, retry] of [['zh-CN', '上传凭证已过期，请重试', '重试'], ['en', 'The upload credentials expired; please retry', 'Retry']] as const) {
    // One file per language: the second would otherwise be answered at once by the sha1 dedupe.
    const file = randomFile(`refused-${locale}.png`, 6 * MB);
    made.push(dirname(file.path));
    const page = await logInTo(site, browser, 'cloudcos', locale);
    await page.goto('/user/account/profile');
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
    // The store's clock is past every credential the site issues (900 s): each request is refused as expired.
    gateway.clockOffset = 1000;
    const refusedBefore = gateway.refused.length;
    try {
      await page.locator('input[name="avatarFile"]').setInputFiles(file.path);
      const row = page.locator('.upq-row').first();
      await expect(row).toHaveAttribute('data-state', 'error', { timeout: scaled(90_000) });
      await expect(row).toContainText(expired);
      expect(gateway.refused.slice(refusedBefore).some((r) => r.status === 403 && r.code === 'ExpiredToken')).toBe(true);
      gateway.clockOffset = 0;
      await row.getByRole('button', { name: retry }).click();
      await expect(row).toHaveAttribute('data-state', 'success', { timeout: scaled(60_000) });
    } finally {
      gateway.clockOffset = 0;
      await page.context().close();
    }
  }
});

test('switching back to local mode: uploads go to the app server again', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  site.cli('config:set', 'upload_mode', 'local');
  const page = await logInTo(site, browser, 'cloudcos');
  await page.goto('/user/account/profile');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const uploaded = page.waitForResponse((r) => r.url().includes('/api/ajax/upload'));
  await page.locator('input[name="avatarFile"]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
  expect((await (await uploaded).json()).code).toBe(1);
  await expect(page.locator('.avatar-row img')).toHaveAttribute('src', /^\/storage\/avatar\//);
  await expect(page.locator('.upq-row').first()).toHaveAttribute('data-state', 'success');
});
