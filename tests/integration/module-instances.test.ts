// A module installed on one instance runs on the other within 2 seconds, without a restart:
// two built servers on one PostgreSQL and one Redis, each with its own data folder (so instance B
// cannot read the package A's market stored on A's disk: it unpacks the copy kept in the database).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/lib/server/account/users';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { askCategory, module, moduleVersion } from '../../src/lib/server/db/schema';
import { createPost } from '../../src/lib/server/ask/posts';
import { readConfig } from '../../src/lib/server/env';
import { packageFile } from '../../src/lib/server/market/packages';
import { inspectPackage } from '../../src/lib/server/modules/inspect';
import { installModule } from '../../src/lib/server/modules/installs';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { modulePackage } from '../helpers/module-package';
import { PG_PREFIX, ROOT, TMP } from '../helpers/paths';
import { freshPostgres, postJson, raw, startServer, type TestServer } from '../helpers/server';
import { scaled } from '../helpers/time-scale.mjs';

const PASSWORD = 'instances1';
const pgEnabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

const shout = modulePackage('shout', '1.0.0', [
  { name: 'server/index.mjs', data: Buffer.from('export default { hooks: { markdown: (items) => items.map((i) => "<mi>" + i.src.toUpperCase().replace(/</g, "&lt;") + "</mi>") } };\n') },
], { entry: { server: 'server/index.mjs' }, capabilities: ['markdown'], contributes: { markdown: { inline: [{ open: '$', close: '$' }] } } });

describe.skipIf(!pgEnabled)('a module on two instances (PostgreSQL + Redis)', () => {
  let a: TestServer;
  let b: TestServer;
  const dirs: string[] = [];
  let postId = 0;

  beforeAll(async () => {
    const databaseUrl = await freshPostgres();
    for (let i = 0; i < 2; i++) dirs.push(mkdtempSync(join(TMP, `modules-pg-${i}-`)));
    const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', DATA_DIR: dirs[0]!, DATABASE_URL: databaseUrl }));
    try {
      await rt.site.set('user_login_captcha', '0');
      const boss = await createUser(rt.db, { username: 'boss', email: 'boss@example.com', password: PASSWORD, groupId: ADMIN_GROUP });
      await installModule(rt.db, 'editor');
      const inspected = await inspectPackage(shout);
      if (!inspected.ok) throw new Error(JSON.stringify(inspected.problems));
      const packagePath = `test/shout-${inspected.sha256.slice(0, 8)}.zip`;
      const file = packageFile(rt, packagePath)!;
      await mkdir(dirname(file), { recursive: true });
      writeFileSync(file, shout);
      const t = Math.floor(Date.now() / 1000);
      const [m] = await rt.db.insert(module).values({ uid: 'shout', developerId: boss.id, name: 'Shout', category: 'tools', status: 'published', latestVersion: '1.0.0', siteModule: 1, createTime: t, updateTime: t }).returning();
      await rt.db.insert(moduleVersion).values({
        moduleId: m!.id, version: '1.0.0', packagePath, packageName: 'shout-1.0.0.zip', packageSize: shout.length, sha256: inspected.sha256,
        reviewedSha256: inspected.sha256, manifest: inspected.manifest, files: inspected.files, status: 'published', publishTime: t, createTime: t,
      });
      const [discussion] = await rt.db.select({ id: askCategory.id }).from(askCategory).where(eq(askCategory.slug, 'discussion'));
      postId = (await createPost(rt.db, boss.id, { title: 'Shouting', content: 'Say $hello$ twice', category_id: discussion!.id, tags: [] } as never)).id;
    } finally {
      await rt.close();
    }
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_PREFIX: `${PG_PREFIX}-modules-${Date.now()}:` };
    a = await startServer({ dataDir: dirs[0]!, env });
    b = await startServer({ dataDir: dirs[1]!, env });
  }, scaled(120_000));

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const onB = async (): Promise<string> => (await raw(b.url, `/ask/info/${postId}`, { headers: { cookie: 'ba-lang=en' } })).text;

  it('is installed on A and renders on B within 2 s; disabled on A, B shows the source again', async () => {
    const login = (await postJson(a.url, '/api/user/checkIn', { tab: 'login', username: 'boss', password: PASSWORD, keep: true })).json<{ data: { userInfo: { token: string } } }>();
    const token = login.data.userInfo.token;
    expect(await onB()).toContain('Say $hello$ twice');
    const step = async (body: unknown): Promise<number> => {
      const started = Date.now();
      const res = (await postJson(a.url, '/api/modules/lifecycle', body, { 'ba-user-token': token, 'think-lang': 'en' })).json<{ code: number; msg: string }>();
      expect(res.code, res.msg).toBe(1);
      return started;
    };
    const until = async (started: number, want: string): Promise<number> => {
      while (!(await onB()).includes(want)) {
        if (Date.now() - started > scaled(10_000)) throw new Error(`B did not show ${want}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return Date.now() - started;
    };
    const installMs = await until(await step({ uid: 'shout', action: 'install' }), '<span class="md-ext" data-ext="shout"><mi>HELLO</mi></span>');
    const disableMs = await until(await step({ uid: 'shout', action: 'disable' }), 'Say $hello$ twice');
    console.log(`install effective on the other instance in ${installMs} ms, disable in ${disableMs} ms`);
    // Budget: 2 s on an unloaded machine (the time scale allows for a loaded CI host).
    expect(installMs).toBeLessThan(scaled(2000));
    expect(disableMs).toBeLessThan(scaled(2000));
  }, scaled(60_000));
});
