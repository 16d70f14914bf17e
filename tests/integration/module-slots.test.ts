// Slots (issue 26): an installed module's client components mount in named places of the site's
// pages (post footer, docs aside, home section, the console's modules section), loaded from its
// package's hashed URL with the page's React through an import map. A page whose slots are empty
// keeps its bytes; uninstalling takes the components (and the import map) away again.
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import type { Runtime } from '../../src/lib/server/runtime';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { fixturePackage, publishPackage } from '../helpers/module-package';
import { postJson, raw } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';
import { until } from '../helpers/until';

const FIXTURE = join(import.meta.dirname, '../fixtures/modules/cheer');

let srv: InProcessServer;
let rt: Runtime;
let boss: { token: string; cookie: string };
let postId = 0;

const page = async (path: string, cookie = 'ba-lang=en'): Promise<string> => (await raw(srv.url, path, { headers: { cookie } })).text;
const lifecycle = async (action: string) =>
  (await postJson(srv.url, '/api/modules/lifecycle', { uid: 'cheer', action }, { 'think-lang': 'en', 'ba-user-token': boss.token })).json<{ code: number; msg: string }>();

beforeAll(async () => {
  srv = await startInProcess();
  rt = srv.runtime;
  const admin = await createUser(rt.db, { username: 'boss', password: 'slots12345', groupId: ADMIN_GROUP });
  boss = await loginAs(srv.url, rt, 'boss', 'slots12345');
  const dev = await createUser(rt.db, { username: 'dev', password: 'slots12345' });
  await publishPackage(rt, dev.id, fixturePackage(FIXTURE), 'Cheer');
  const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  postId = (await createPost(rt.db, admin.id, { title: 'Slots', content: 'A post with a footer.', category_id: discussion!.id, tags: [] } as never)).id;
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('module slots', () => {
  let before: Record<string, string> = {};

  it('are not in a page while no module fills them: no import map, no island', async () => {
    before = { home: await page('/'), post: await page(`/ask/info/${postId}`), docs: await page('/md/guide-en/install') };
    for (const html of Object.values(before)) {
      expect(html).not.toContain('importmap');
      expect(html).not.toContain('data-slot=');
    }
  });

  it('are named to the administrator on the market page before installing: the module runs code in browsers', async () => {
    const res = await raw(srv.url, '/modules/cheer', { headers: { cookie: `ba-lang=en; ${boss.cookie}` } });
    expect(res.text).toContain('Install on this site');
    expect(res.text).toContain('Runs code in members&#39; browsers');
  });

  it('mount where the manifest says once the module is installed, with the import map and its stylesheet, without a restart', async () => {
    expect(await lifecycle('install')).toMatchObject({ code: 1 });
    await until(() => rt.modules.list().some((m) => m.uid === 'cheer'), 'cheer active');
    const active = rt.modules.list().find((m) => m.uid === 'cheer')!;
    const base = `/_modules/cheer/1.0.0-${active.sha256.slice(0, 16)}/`;

    const post = await page(`/ask/info/${postId}`);
    expect(post).toContain('<script type="importmap">');
    expect(post).toContain(`<link rel="stylesheet" href="${base}cheer.css">`);
    expect(post).toContain('data-slot="post.footer"');
    expect(post).toContain(`${base}client.mjs`);
    expect(post).toContain('PostFooter');
    expect(post).toContain(`&quot;postId&quot;:[0,${postId}]`);
    // The space is reserved before the component loads.
    expect(post).toMatch(/<div[^>]*data-module="cheer"[^>]*>/);
    expect(/<div[^>]*data-module="cheer"[^>]*>/.exec(post)![0]).toContain('--module-reserve:40px');
    // Only the post's slot: the others stay out of this page.
    expect(post).not.toContain('HomeSection');

    const home = await page('/');
    expect(home).toContain('data-slot="home.section"');
    expect(home).toContain('HomeSection');
    expect(home).toContain('Broken');
    const docs = await page('/md/guide-en/install');
    expect(docs).toContain('data-slot="docs.aside"');
    expect(docs).toContain('&quot;page&quot;:[0,&quot;install&quot;]');

    // A page without a slot keeps its bytes: no import map on /ask.
    expect(await page('/ask')).not.toContain('importmap');

    // The entry and the stylesheet are served from their hashed URLs, for a year; nothing else of the package is.
    const entry = await raw(srv.url, `${base}client.mjs`);
    expect(entry.status).toBe(200);
    expect(entry.headers['content-type']).toMatch(/javascript/);
    expect(entry.headers['cache-control']).toContain('immutable');
    expect(entry.text).toContain("from 'react'");
    expect((await raw(srv.url, `${base}atrium.json`)).status).toBe(404);
    // The import map's react resolves to the site's re-export of the page's React.
    const map = JSON.parse(/<script type="importmap">([^<]+)<\/script>/.exec(post)![1]!) as { imports: Record<string, string> };
    const react = await raw(srv.url, map.imports.react!);
    expect(react.status).toBe(200);
    expect(react.text).toContain('useState');
  });

  it('puts the console panel in the modules section, for the administrator', async () => {
    const html = await page('/admin/modules', `ba-lang=en; ${boss.cookie}`);
    expect(html).toContain('data-slot="admin.section"');
    expect(html).toContain('AdminPanel');
    expect(html).toContain('<script type="importmap">');
  });

  it('leave the pages when the module is disabled or uninstalled, and the pages get their old bytes back', async () => {
    expect(await lifecycle('disable')).toMatchObject({ code: 1 });
    await until(() => !rt.modules.list().some((m) => m.uid === 'cheer'), 'cheer stopped');
    expect(await page(`/ask/info/${postId}`)).not.toContain('data-slot=');
    expect(await lifecycle('enable')).toMatchObject({ code: 1 });
    await until(() => rt.modules.list().some((m) => m.uid === 'cheer'), 'cheer active again');
    expect(await page('/')).toContain('data-slot="home.section"');
    expect(await lifecycle('uninstall')).toMatchObject({ code: 1 });
    await until(() => !rt.modules.list().some((m) => m.uid === 'cheer'), 'cheer gone');
    const strip = (html: string): string => html.replace(/ data-request-id="[^"]*"/g, '').replace(/nonce-[\w-]+/g, '');
    expect(strip(await page('/'))).toBe(strip(before.home!));
    expect(strip(await page('/md/guide-en/install'))).toBe(strip(before.docs!));
  });
});
