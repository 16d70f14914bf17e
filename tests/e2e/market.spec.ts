// The module market as its users meet it: a developer applies, is approved by CLI and publishes a
// paid module with a version; a member topped up by CLI buys it, downloads it and reviews it; an
// administrator installs the editor from the market and the forum's post form starts working.
// Needs the e2e server on PostgreSQL (TEST_DATABASE_URL): the CLI and the test share its database.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { storedZip } from '../../src/lib/server/market/zip';
import { atrium as runCli, logIn as logInAs, newMember as addMember, readEnv, uniqueIdNumber, withLock, type E2eEnv } from './helpers';
import { scaled } from '../helpers/time-scale.mjs';

let env: E2eEnv = { dataDir: '', databaseUrl: null };
test.beforeAll(() => { env = readEnv(); });
const atrium = (...args: string[]): string => runCli(env, ...args);
const logIn = (browser: Parameters<typeof logInAs>[1], name: string) => logInAs(env, browser, name);

/** Confirms the next `confirm()` the page opens. */
function acceptNextDialog(page: Page): void {
  page.once('dialog', (d) => void d.accept());
}

test.describe.serial('the module market', () => {
  const suffix = Date.now().toString(36).slice(-6);
  const uid = `notes-${suffix}`;
  const developer = `dev${suffix}`;
  const buyer = `buy${suffix}`;
  const name = `Release notes ${suffix}`;

  test('a developer applies, is approved by CLI, and publishes a paid module with a version', async ({ browser }) => {
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the market flow (.ci/run does)');
    test.setTimeout(scaled(150_000));
    await addMember(env, developer);
    const page = await logIn(browser, developer);
    // Other specs file approved developers with fixed numbers in the same database: one of our own.
    const idNumber = uniqueIdNumber();

    // Not a developer yet: the studio sends them to the application.
    await page.goto('/user/developer/modules');
    await expect(page.getByRole('heading', { name: '只有通过认证的开发者才能使用此页面' })).toBeVisible();
    await page.getByRole('link', { name: '开发者认证' }).last().click();
    await expect(page).toHaveURL(/\/user\/developer\/verif$/);
    await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
    await page.getByLabel('真实姓名').fill('张三');
    await page.getByLabel('身份证号码').fill(idNumber);
    await page.getByLabel('手机号码').fill('13800138000');
    await page.getByLabel('邮箱').fill(`${developer}@example.com`);
    const province = page.getByLabel('省份');
    await expect(province.locator('option[value="11"]')).toHaveCount(1);
    await province.selectOption('11');
    const city = page.getByLabel('城市');
    await expect(city.locator('option[value="1101"]')).toHaveCount(1);
    await city.selectOption('1101');
    await page.getByLabel('个人简介').fill('写了五年 Node.js，准备发布几个写作相关的模块。');
    // A wrong check character is refused beside the field, and nothing is lost.
    await page.getByLabel('身份证号码').fill(`${idNumber.slice(0, 17)}${idNumber.endsWith('0') ? '1' : '0'}`);
    await page.getByRole('button', { name: '提交认证' }).click();
    await expect(page.getByText('请输入正确的身份证号码')).toBeVisible();
    await page.getByLabel('身份证号码').fill(idNumber);
    // The form reloads the page once the application is in: wait for that load, or the next
    // navigation below is interrupted by it.
    // Read the server's answer on its way to the page (the page reloads as soon as it has it, so
    // the response's body is gone by the time a waitForResponse could read it), so a refusal fails
    // here with its message instead of waiting for a reload that never comes.
    let answer: { code?: number; msg?: string } | null = null;
    await page.route('**/api/developer/verif', async (route) => {
      const response = await route.fetch();
      answer = await response.json() as { code?: number; msg?: string };
      await route.fulfill({ response });
    });
    const reloaded = page.waitForEvent('load', { timeout: scaled(30_000) });
    await page.getByRole('button', { name: '提交认证' }).click();
    await expect.poll(() => answer).not.toBeNull();
    expect(answer, JSON.stringify(answer)).toMatchObject({ code: 1 });
    await reloaded;
    await page.unroute('**/api/developer/verif');
    await expect(page.getByText('认证申请已提交，请等待审核').first()).toBeVisible({ timeout: scaled(15_000) });

    expect(atrium('developer:list', 'pending')).toContain(developer);
    atrium('developer:review', developer, 'approve');

    // The description and the changelog are written in the editor module: installed for this part,
    // taking turns with the specs that uninstall it for a while.
    await withLock('editor-module', async () => {
      atrium('module:install', 'editor');
      await page.goto('/user/developer/modules');
      await page.getByRole('link', { name: '新建模块' }).first().click();
      await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
      await page.getByLabel('标识').fill(uid);
      await page.getByLabel('名称').fill(name);
      await page.getByLabel('一句话简介').fill('把 git 提交整理成中文发布说明');
      await page.getByLabel('分类').selectOption('tools');
      await page.getByRole('textbox', { name: '介绍（Markdown）' }).fill('## 用法\n\n在仓库根目录运行 `notes build`。');
      await page.getByLabel('余额价格（元）').fill('9.90');
      await page.getByRole('button', { name: '创建模块' }).click();
      await expect(page).toHaveURL(/\?versions=\d+$/);

      await page.waitForFunction(() => !document.querySelector('astro-island[ssr]'));
      await page.getByLabel('版本号').fill('1.0.0');
      await page.getByRole('textbox', { name: '更新说明' }).fill('首个版本：支持中文和英文提交信息。');
      // The package is inspected on upload: a broken manifest has every problem listed, in Chinese.
      const manifest = (over: Record<string, unknown> = {}): string => JSON.stringify({
        uid, version: '1.0.0', name: { 'zh-cn': name, en: name }, description: { 'zh-cn': '发布说明工具', en: 'Release notes tool' }, atrium: '>=0.1.0', ...over,
      });
      const packageInput = page.locator('input[type=file][accept*=zip]');
      await packageInput.setInputFiles({ name: `${uid}.zip`, mimeType: 'application/zip', buffer: await storedZip([{ name: 'atrium.json', text: manifest({ version: '1.0', colour: 'red' }) }]) });
      await expect(page.getByText('安装包未通过检查：')).toBeVisible({ timeout: scaled(15_000) });
      await expect(page.getByText('atrium.json：version 的格式不对')).toBeVisible();
      await expect(page.getByText('atrium.json：colour 不是可识别的字段')).toBeVisible();
      await packageInput.setInputFiles({ name: `${uid}.zip`, mimeType: 'application/zip', buffer: await storedZip([{ name: 'atrium.json', text: manifest() }, { name: 'README.md', text: '# Release notes\n' }]) });
      await expect(page.getByText(/已上传：/)).toBeVisible({ timeout: scaled(15_000) });
      await page.getByRole('button', { name: '提交版本' }).click();
      await expect(page.getByRole('cell', { name: '1.0.0', exact: true })).toBeVisible();
      acceptNextDialog(page);
      await page.getByRole('button', { name: '提交审核' }).click();
      await expect(page.getByText('审核中').first()).toBeVisible();
    });

    // Not public until approved.
    const visitor = await browser.newPage();
    expect((await visitor.goto(`/modules/${uid}`))!.status()).toBe(404);
    atrium('module:review', uid, 'approve');
    await visitor.goto(`/modules/${uid}`);
    await expect(visitor.getByRole('heading', { level: 1, name })).toBeVisible();
    await expect(visitor.getByText('首个版本：支持中文和英文提交信息。')).toBeVisible();
    await visitor.goto(`/modules?q=${encodeURIComponent('发布说明')}`);
    await expect(visitor.getByRole('link', { name: new RegExp(`Release notes ${suffix}`) }).first()).toBeVisible();
    await visitor.close();
  });

  test('a member tops up by CLI, buys the module, downloads it and reviews it', async ({ browser }) => {
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the market flow (.ci/run does)');
    test.setTimeout(scaled(120_000));
    await addMember(env, buyer);
    expect(atrium('user:money', buyer, '20', 'bank transfer')).toContain(buyer);
    const page = await logIn(browser, buyer);
    await page.goto(`/modules/${uid}`);
    await expect(page.getByText('购买（免费模块为下载）后可以评价。')).toBeVisible();
    // Buying asks first: price, method, the balance now and afterwards. Cancelling debits nothing.
    await page.getByRole('button', { name: '余额购买 ¥9.90' }).click();
    const confirmBox = page.getByRole('dialog', { name: '确认购买' });
    await expect(confirmBox).toBeVisible();
    await expect(confirmBox).toContainText('¥9.90');
    await expect(confirmBox).toContainText('当前余额¥20.00');
    await expect(confirmBox).toContainText('支付后余额¥10.10');
    await confirmBox.getByRole('button', { name: '取消' }).click();
    await expect(confirmBox).toBeHidden();
    await page.reload();
    await expect(page.getByRole('button', { name: '余额购买 ¥9.90' })).toBeVisible();
    await page.getByRole('button', { name: '余额购买 ¥9.90' }).click();
    await page.getByRole('dialog', { name: '确认购买' }).getByRole('button', { name: '确认支付 ¥9.90' }).click();
    await expect(page.getByText(/你已拥有此模块，更新服务至 \d{4}-\d{2}-\d{2}/)).toBeVisible();

    // One click is one download: the client router leaves the link to the browser, so the server
    // gets one request and the count rises by exactly one.
    const downloads = async (): Promise<number> => Number((await page.locator('.module-facts dt:text-is("下载次数") + dd').textContent())?.replace(/\D/g, ''));
    const before = await downloads();
    const downloading = page.waitForEvent('download');
    await page.getByRole('link', { name: /^下载/ }).first().click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${uid}-1.0.0.zip`);
    const bytes = readFileSync((await download.path())!);
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    // A second request (the router's fetch, then the browser's load) would land within this wait.
    await page.waitForTimeout(1000);
    await page.reload();
    expect(await downloads()).toBe(before + 1);

    await page.locator('label[for="rating-4"]').click();
    await page.getByLabel('评价内容').fill('中文提交也能整理得很好。');
    await page.getByRole('button', { name: '提交评价' }).click();
    await expect(page.locator('[id^="review-"]').getByText('中文提交也能整理得很好。')).toBeVisible();
    await expect(page.getByText('平均 4.0 分，共 1 条评价')).toBeVisible();

    // The order, the balance paid and the download are in the member center.
    await page.goto('/user/account/moduleOrders');
    const row = page.getByRole('row', { name: new RegExp(name) });
    await expect(row).toContainText('¥9.90');
    await expect(row).toContainText('已支付');
    await expect(row.getByRole('link', { name: '下载' })).toBeVisible();
    await page.goto('/user/account/balance');
    // The ledger says what happened in the reader's language, not an internal memo.
    await expect(page.getByText(`购买模块 ${uid}（订单 `).first()).toBeVisible();
    await expect(page.getByText(`module:${uid}`)).toHaveCount(0);

    // Buying again is refused without a second debit.
    await page.goto(`/modules/${uid}`);
    await expect(page.getByRole('button', { name: '余额购买 ¥9.90' })).toHaveCount(0);
  });

  test('the administrator installs the editor from the market and the post form starts working', async ({ browser }) => {
    test.skip(!env.databaseUrl, 'set TEST_DATABASE_URL to run the market flow (.ci/run does)');
    test.setTimeout(scaled(90_000));
    const admin = `adm${suffix}`;
    await addMember(env, admin, 2);
    const page = await logIn(browser, admin);
    const installFromMarket = async (): Promise<void> => {
      await page.goto('/ask/post');
      await expect(page.getByRole('heading', { name: '请先安装编辑器' })).toBeVisible();
      await page.goto('/modules/editor');
      await expect(page.getByText('本站尚未安装此模块。')).toBeVisible();
      // The editor runs code in members' browsers: the administrator confirms that first.
      const asked = new Promise<string>((resolve) => page.once('dialog', (d) => { resolve(d.message()); void d.accept(); }));
      await page.getByRole('button', { name: '安装到本站' }).click();
      expect(await asked).toContain('在会员的浏览器中运行代码');
      await expect(page.getByText('已安装版本 1.0.0')).toBeVisible();
      await page.goto('/ask/post');
      await expect(page.getByRole('textbox', { name: '标题' })).toBeVisible();
      await expect(page.getByRole('heading', { name: '请先安装编辑器' })).toHaveCount(0);
    };
    // Other specs use the editor too: they wait while it is uninstalled here; it is back afterwards
    // whatever happens.
    await withLock('editor-module', async () => {
      atrium('module:uninstall', 'editor');
      try {
        await installFromMarket();
      } finally {
        atrium('module:install', 'editor');
      }
    });
  });
});
