// Connecting to another Atrium's market from the console, in Chromium with the keyboard: the
// administrator types the market's address, reads the key fingerprint the page shows, pastes a
// member's token and pins the key; lists what the market offers; an install the site refuses says
// why beside its button, in the administrator's language; the market is disconnected through the
// console's own confirm dialog. The site is its own market here (a member's token made on it):
// installing `math` from it is refused, since the site's own market already has a module `math`.
import { expect, test } from '@playwright/test';
import { createUser } from '../../src/lib/server/account/users';
import { seedMath } from '../../src/lib/server/market/demo';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { scaled } from '../helpers/time-scale.mjs';
import { PASSWORD, usePrivateSite, withRuntime } from './private-site';

const srv = usePrivateSite('remote-market', (dataDir) => withRuntime(dataDir, async (rt) => {
  await rt.site.set('user_login_captcha', '0');
  await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
  await createUser(rt.db, { username: 'alice', email: 'alice@example.com', password: PASSWORD });
  expect((await seedMath(rt)).join('\n')).toMatch(/math 1\.0\.0/);
}));

test('an administrator connects to a market with the keyboard, sees what it offers, is told why an install is refused, and disconnects', async ({ browser }) => {
  test.setTimeout(scaled(120_000));
  const alice = await srv.logIn(await browser.newContext(), 'alice', 'en');
  const made = await (await alice.request.post(`${srv.url}/api/account/apiTokens`, { data: { action: 'create', name: 'console' }, headers: { origin: srv.url } })).json() as { data: { token: string } };
  const fingerprint = (await (await alice.request.get(`${srv.url}/api/market/key`)).json() as { data: { fingerprint: string } }).data.fingerprint;

  const boss = await srv.logIn(await browser.newContext(), 'boss', 'en');
  await boss.goto(`${srv.url}/admin/modules`);
  const section = boss.getByRole('region', { name: 'Markets of other Atrium sites' });
  await expect(section.getByText('No market connected.')).toBeVisible();
  // The address, then Enter: the page shows the key's fingerprint to compare before anything is stored.
  await section.getByRole('textbox', { name: 'Market address' }).focus();
  await boss.keyboard.type(srv.url);
  await boss.keyboard.press('Enter');
  await expect(section.getByRole('heading', { name: 'Confirm the market\'s key' })).toBeVisible();
  await expect(section.locator('[data-fingerprint]')).toHaveText(fingerprint);
  await section.getByRole('textbox', { name: 'API token' }).focus();
  await boss.keyboard.type(made.data.token);
  await boss.keyboard.press('Enter');
  await expect(boss.locator('[data-admin-flash]')).toHaveText(`Connected to ${srv.url}: key ${fingerprint} pinned, 2 modules offered to this token`); // its math and the editor every market offers
  await expect(section.locator(`[data-remote="${srv.url}"]`)).toContainText(fingerprint);

  // What it offers, by the link and Enter.
  await section.getByRole('link', { name: 'Show what the markets offer' }).focus();
  await boss.keyboard.press('Enter');
  const row = boss.getByRole('region', { name: `Offered by ${srv.url}` }).locator('tr[data-remote-module="math"]');
  await expect(row).toContainText('Free');
  await expect(row).toContainText('Not installed');
  // Install asks first (focus starts on Cancel: Tab to Confirm); refused, it says why beside the button.
  await row.getByRole('button', { name: 'Install Math 1.0.0' }).focus();
  await boss.keyboard.press('Enter');
  const dialog = boss.getByRole('dialog', { name: 'Please confirm' });
  await expect(dialog).toContainText(`Install Math 1.0.0 from ${srv.url}? It asks to:`);
  await boss.keyboard.press('Tab');
  await boss.keyboard.press('Enter');
  await expect(row.getByRole('status')).toHaveText('This site\'s own market already has a module math: a remote module of the same uid is not installed over it');

  // Disconnected through the same dialog.
  await section.getByRole('button', { name: `Disconnect ${srv.url}` }).focus();
  await boss.keyboard.press('Enter');
  await expect(dialog).toContainText(`Disconnect ${srv.url}?`);
  await boss.keyboard.press('Tab');
  await boss.keyboard.press('Enter');
  await expect(boss.locator('[data-admin-flash]')).toHaveText(`Disconnected from ${srv.url}: the modules installed from it keep running`);
  await expect(section.getByText('No market connected.')).toBeVisible();
});
