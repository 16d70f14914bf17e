// Slots (issue 26): an installed module's client components mount in named places of the site's
// pages (post footer, docs aside, home section, the console's modules section, the member center's
// menu and the module's own member-center page, the editor's toolbar), loaded from its
// package's hashed URL with the page's React through an import map. A page whose slots are empty
// keeps its bytes; uninstalling takes the components (and the import map) away again.
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { askCategory, userGroup } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { installModule } from '../../src/lib/server/modules/installs';
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
let fan: { token: string; cookie: string };
/** A member whose group holds no rule at all. */
let bare: { token: string; cookie: string };
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
  await createUser(rt.db, { username: 'fan', password: 'slots12345' });
  fan = await loginAs(srv.url, rt, 'fan', 'slots12345');
  const [empty] = await rt.db.insert(userGroup).values({ name: 'No rules', rules: '', status: 1 }).returning({ id: userGroup.id });
  await createUser(rt.db, { username: 'bare', password: 'slots12345', groupId: empty!.id });
  bare = await loginAs(srv.url, rt, 'bare', 'slots12345');
  // The editor runs, so the post form shows it (and, later, the module's toolbar component above it).
  await installModule(rt.db, 'editor', admin.id);
  await rt.modules.reconcile();
  await publishPackage(rt, dev.id, fixturePackage(FIXTURE), 'Cheer');
  const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
  postId = (await createPost(rt.db, admin.id, { title: 'Slots', content: 'A post with a footer.', category_id: discussion!.id, tags: [] } as never)).id;
}, scaled(120_000));

afterAll(async () => { await srv?.stop(); });

describe('module slots', () => {
  let before: Record<string, string> = {};

  it('are not in a page while no module fills them: no import map, no island', async () => {
    before = {
      home: await page('/'), post: await page(`/ask/info/${postId}`), docs: await page('/md/guide-en/install'),
      member: await page('/user/account/profile', `ba-lang=en; ${fan.cookie}`),
    };
    for (const html of Object.values(before)) {
      expect(html).not.toContain('importmap');
      expect(html).not.toContain('data-slot=');
    }
    // No module page in the menu, and none to open.
    expect(before.member).not.toContain('/user/m/');
    expect((await raw(srv.url, '/user/m/cheer', { headers: { cookie: `ba-lang=en; ${fan.cookie}` } })).status).toBe(404);
    // The post form has the editor, without a toolbar row (its props carry no `toolbar`).
    const form = await page('/ask/post', `ba-lang=en; ${boss.cookie}`);
    expect(form).toContain('EditorSlot');
    expect(form).not.toContain('&quot;toolbar&quot;');
    expect(form).not.toContain('data-slot="editor.toolbar"');
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
    expect(post).toMatch(/<section[^>]*data-module="cheer"[^>]*>/);
    expect(/<section[^>]*data-module="cheer"[^>]*>/.exec(post)![0]).toContain('--module-reserve:40px');
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

  it('give the module a member-center page listed in the menu, and a component under the menu', async () => {
    const member = `ba-lang=en; ${fan.cookie}`;
    const profile = await page('/user/account/profile', member);
    // The menu lists the module's page under its name, in the reader's language.
    expect(profile).toContain('<a href="/user/m/cheer">Cheer</a>');
    expect(profile).toContain('<summary class="side-title">Modules</summary>');
    const zh = await page('/user/account/profile', `ba-lang=zh-cn; ${fan.cookie}`);
    expect(zh).toContain('<a href="/user/m/cheer">喝彩</a>');
    expect(zh).toContain('<summary class="side-title">模块</summary>');
    // The `user.menu` component under the menu, with the import map; not the page's component.
    expect(profile).toContain('data-slot="user.menu"');
    expect(profile).toContain('MenuNote');
    expect(profile).toContain('<script type="importmap">');
    expect(profile).not.toContain('MemberPage');

    const res = await raw(srv.url, '/user/m/cheer', { headers: { cookie: member } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1 class="page-title">Cheer</h1>');
    expect(res.text).toContain('data-slot="user.page"');
    expect(res.text).toContain('MemberPage');
    expect(res.text).toContain('<a href="/user/m/cheer" aria-current="page">Cheer</a>');
    expect(res.text).toMatch(/<link rel="stylesheet" href="\/_modules\/cheer\/1\.0\.0-[0-9a-f]{16}\/cheer\.css">/);
    expect(/<section[^>]*data-module="cheer"[^>]*data-module-state="loading"[^>]*>/.exec(res.text.slice(res.text.indexOf('data-slot="user.page"')))![0]).toContain('--module-reserve:80px');

    // Visitors go to the login page; a module that is not running, or a malformed uid, is the 404 page.
    const visitor = await raw(srv.url, '/user/m/cheer', { headers: { cookie: 'ba-lang=en' } });
    expect(visitor.status).toBe(302);
    expect(visitor.headers.location).toBe('/user/login?to=%2Fuser%2Fm%2Fcheer');
    expect((await raw(srv.url, '/user/m/webhook', { headers: { cookie: member } })).status).toBe(404);
    // A group that holds no rule has no menu, so no module entry, and the page is the permission page.
    const denied = await raw(srv.url, '/user/m/cheer', { headers: { cookie: `ba-lang=en; ${bare.cookie}` } });
    expect(denied.status).toBe(401);
    expect(denied.text).not.toContain('MemberPage');
    expect(denied.text).not.toContain('<a href="/user/m/cheer"');
    expect(denied.text).not.toContain('data-slot=');
    expect((await raw(srv.url, '/user/m/Not%20a%20uid', { headers: { cookie: member } })).status).toBe(404);
  });

  it('put the toolbar component above the editor, given with the editor\'s state', async () => {
    const form = await page('/ask/post', `ba-lang=en; ${boss.cookie}`);
    expect(form).toContain('&quot;toolbar&quot;');
    expect(form).toContain('ToolbarButton');
    expect(form).toMatch(/<link rel="stylesheet" href="\/_modules\/cheer\/1\.0\.0-[0-9a-f]{16}\/cheer\.css">/);
    // Only the toolbar's components: not the member center's.
    expect(form).not.toContain('MemberPage');
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
    // Disabled: its member-center page and menu entry are gone at once.
    expect(await page('/user/account/profile', `ba-lang=en; ${fan.cookie}`)).not.toContain('/user/m/cheer');
    expect((await raw(srv.url, '/user/m/cheer', { headers: { cookie: `ba-lang=en; ${fan.cookie}` } })).status).toBe(404);
    expect(await lifecycle('enable')).toMatchObject({ code: 1 });
    await until(() => rt.modules.list().some((m) => m.uid === 'cheer'), 'cheer active again');
    expect(await page('/')).toContain('data-slot="home.section"');
    expect(await lifecycle('uninstall')).toMatchObject({ code: 1 });
    await until(() => !rt.modules.list().some((m) => m.uid === 'cheer'), 'cheer gone');
    const strip = (html: string): string => html.replace(/ data-request-id="[^"]*"/g, '').replace(/nonce-[\w-]+/g, '');
    expect(strip(await page('/'))).toBe(strip(before.home!));
    expect(strip(await page('/md/guide-en/install'))).toBe(strip(before.docs!));
    // The member page's islands are numbered in the order their renders finish (React's id prefix), which varies.
    const unnumbered = (html: string): string => strip(html).replace(/ prefix="r\d+"/g, '');
    expect(unnumbered(await page('/user/account/profile', `ba-lang=en; ${fan.cookie}`))).toBe(unnumbered(before.member!));
    expect(await page('/ask/post', `ba-lang=en; ${boss.cookie}`)).not.toContain('&quot;toolbar&quot;');
  });
});
