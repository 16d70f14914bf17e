// Direct uploads in the `s3` mode, in Chromium against a real object store (Swift + s3api): a 200 MB
// file paused and resumed, then reloaded mid-way and resumed sending only the missing parts; an
// image pasted into the editor; the switch back to local mode.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { storedZip } from '../../src/lib/server/market/zip';
import { addMember, logInTo, pasteIntoPostEditor, randomFile, startCloudSite, storedSha1, type CloudSite } from './cloud-upload';
import { scaled } from '../helpers/time-scale.mjs';
import { moduleManifest } from '../helpers/module-package';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const MB = 1024 * 1024;

let site: CloudSite;
let memberId = 0;
/** Folders of the big files this spec wrote: removed at the end, pass or fail. */
const made: string[] = [];
test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(scaled(180_000));
  if (!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL) return;
  site = await startCloudSite();
  site.cli('config:set', 'upload_max_size', '300mb');
  site.cli('config:set', 'upload_params', JSON.stringify({ bucket: site.swift.bucket, region: site.swift.region, endpoint: site.swift.endpoint }));
  site.cli('config:set', 'upload_mode', 's3');
  memberId = await addMember(site, 'clouds3');
});
test.afterAll(async () => {
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

test('s3: 200 MB paused, resumed, reloaded mid-way and resumed with only the missing parts; the stored object is the file', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  test.setTimeout(scaled(300_000));
  const size = 200 * MB;
  const file = randomFile('big.png', size);
  made.push(dirname(file.path));
  const totalParts = Math.ceil(size / (5 * MB));
  const page = await logInTo(site, browser, 'clouds3');
  await page.goto('/user/account/profile');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const before = trackParts(page, site.swift.endpoint);

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
  const after = trackParts(page, site.swift.endpoint);
  await page.locator('input[name="avatarFile"]').setInputFiles(file.path);
  await expect(page.locator('.upq-row').first()).toHaveAttribute('data-state', 'success', { timeout: scaled(240_000) });
  const resent = [...after].filter((n) => sentBefore.has(n));
  expect(resent).toEqual([]);
  expect(after.size).toBeLessThan(totalParts - sentBefore.size + 4);
  // The queue's own count: what the store listed was skipped, the rest sent once (a part that
  // finished on the store just as the page went away is skipped too, though the page never saw its reply).
  const stats = await page.evaluate(() => {
    const q = (window as unknown as { __atriumUploads: { list(): { id: number }[]; stats(id: number): { partsSent: number; partsSkipped: number } } }).__atriumUploads;
    return q.stats(q.list()[0]!.id);
  });
  expect(stats.partsSent).toBe(after.size);
  expect(stats.partsSkipped).toBeGreaterThanOrEqual(sentBefore.size);
  expect(stats.partsSkipped + stats.partsSent).toBe(totalParts);

  // The avatar is the stored object's URL; the object read back is the file.
  const src = await page.locator('.avatar-row img').getAttribute('src');
  expect(src).toMatch(new RegExp(`^${site.swift.endpoint}/${site.swift.bucket}/uploads/${memberId}/avatar/`));
  const key = decodeURIComponent(new URL(src!).pathname.slice(`/${site.swift.bucket}/`.length));
  expect(await storedSha1(site, key)).toBe(file.sha1);
  const [row2] = await site.sql<{ size: string; storage: string }>('select size, storage from attachment where url = $1', [`/${key}`]);
  expect(row2).toMatchObject({ size: String(size), storage: 's3' });
  await page.getByRole('button', { name: '保存' }).click();
  await expect(page.getByRole('status').filter({ hasText: '资料已保存' })).toBeVisible();
});

test('s3: an image pasted into the editor appears with the store URL', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  test.setTimeout(scaled(120_000));
  site.cli('module:install', 'editor');
  const page = await logInTo(site, browser, 'clouds3');
  const editor = await pasteIntoPostEditor(page, PNG);
  await expect(editor).toHaveValue(new RegExp(`!\\[pasted\\.png\\]\\(${site.swift.endpoint}/${site.swift.bucket}/uploads/${memberId}/`), { timeout: scaled(30_000) });
  await expect(page.locator('.upq-row').first()).toHaveAttribute('data-state', 'success');
});

test('s3: a module cover goes to the public prefix, its package to the private one, downloaded only by a signed URL', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  test.setTimeout(scaled(150_000));
  const devId = await addMember(site, 'clouddev');
  const t = Math.floor(Date.now() / 1000);
  await site.sql(`insert into developer (user_id, real_name, id_number, mobile, email, province, status, create_time, update_time) values ($1, '张三', '11010519491231002X', '13800138000', 'clouddev@example.com', '11', 'approved', $2, $2)`, [devId, t]);
  const page = await logInTo(site, browser, 'clouddev');
  await page.goto('/user/developer/modules');
  await page.getByRole('link', { name: '新建模块' }).first().click();
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByLabel('标识').fill('cloud-notes');
  await page.getByLabel('名称').fill('Cloud notes');
  await page.getByLabel('一句话简介').fill('云端存储的模块');
  await page.getByLabel('分类').selectOption('tools');
  await page.getByRole('textbox', { name: '介绍（Markdown）' }).fill('安装包在私有前缀里。');
  // The cover: through the queue and the s3 driver, kept as the store's public URL.
  await page.getByRole('group', { name: '封面' }).locator('input[type=file]').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: PNG });
  const cover = page.locator('.studio-thumb img').first();
  await expect(cover).toHaveAttribute('src', new RegExp(`^${site.swift.endpoint}/${site.swift.bucket}/uploads/${devId}/module/`), { timeout: scaled(30_000) });
  await page.getByRole('button', { name: '创建模块' }).click();
  await expect(page).toHaveURL(/\?versions=\d+$/);

  // The package: through the queue to private/<id>/, never a public URL.
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  await page.getByLabel('版本号').fill('1.0.0');
  await page.getByRole('textbox', { name: '更新说明' }).fill('首个版本。');
  // A real package: its manifest is inspected once the store has it.
  const zip = await storedZip([{ name: 'atrium.json', text: JSON.stringify(moduleManifest('cloud-notes')) }, { name: 'README.md', text: '# Cloud notes\n' }]);
  const zipSha1 = createHash('sha1').update(zip).digest('hex');
  await page.locator('input[type=file][accept*=zip]').setInputFiles({ name: 'cloud-notes.zip', mimeType: 'application/zip', buffer: zip });
  await expect(page.getByText(/已上传：cloud-notes\.zip/)).toBeVisible({ timeout: scaled(30_000) });
  const [pkg] = await site.sql<{ url: string; storage: string }>(`select url, storage from attachment where user_id = $1 and topic = 'package'`, [devId]);
  expect(pkg).toMatchObject({ storage: 'private' });
  expect(pkg!.url.startsWith(`/private/${devId}/`)).toBe(true);
  await page.getByRole('button', { name: '提交版本' }).click();
  await expect(page.getByRole('cell', { name: '1.0.0', exact: true })).toBeVisible();
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: '提交审核' }).click();
  await expect(page.getByText('审核中').first()).toBeVisible();
  site.cli('module:review', 'cloud-notes', 'approve');

  // The published page shows the cover from the store (another tab: the studio may still reload).
  const modulePage = await page.context().newPage();
  await modulePage.goto('/modules/cloud-notes');
  await expect(modulePage.locator(`img[src^="${site.swift.endpoint}/${site.swift.bucket}/uploads/${devId}/module/"]`).first()).toBeAttached();
  const token = (await page.context().cookies()).find((c) => c.name === 'ba-user-token')?.value ?? '';
  expect(token).not.toBe('');
  // The download: a redirect to a signed URL (300 s) that gives the package; the object's plain URL gives nothing.
  const res = await fetch(`${site.app.url}/api/modules/download?uid=cloud-notes`, { headers: { 'ba-user-token': token }, redirect: 'manual' });
  expect(res.status).toBe(302);
  const signed = res.headers.get('location')!;
  expect(new URL(signed).searchParams.get('X-Amz-Expires')).toBe('300');
  const got = await fetch(signed);
  expect(got.status).toBe(200);
  expect(createHash('sha1').update(new Uint8Array(await got.arrayBuffer())).digest('hex')).toBe(zipSha1);
  expect((await fetch(`${site.swift.endpoint}/${site.swift.bucket}${pkg!.url}`)).ok).toBe(false);
  // Visitors are sent to log in.
  const anonymous = await fetch(`${site.app.url}/api/modules/download?uid=cloud-notes`, { redirect: 'manual' });
  expect(((await anonymous.json()) as { code: number }).code).toBe(303);
});

test('switching back to local mode: uploads go to the app server again', async ({ browser }) => {
  test.skip(!site, 'set TEST_DATABASE_URL and TEST_REDIS_URL (.ci/run does)');
  site.cli('config:set', 'upload_mode', 'local');
  const page = await logInTo(site, browser, 'clouds3');
  await page.goto('/user/account/profile');
  await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
  const uploaded = page.waitForResponse((r) => r.url().includes('/api/ajax/upload'));
  await page.locator('input[name="avatarFile"]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
  expect((await (await uploaded).json()).code).toBe(1);
  await expect(page.locator('.avatar-row img')).toHaveAttribute('src', /^\/storage\/avatar\//);
  await expect(page.locator('.upq-row').first()).toHaveAttribute('data-state', 'success');
});
