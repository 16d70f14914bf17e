// The probe's smaller points: one identity per developer, names without invisible characters,
// announcements for moderators only, ratings that are numbers, uploaded files under a CSP sandbox
// (PDF downloaded), and `user:money` saying "too large" when it is.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcessServer } from '../helpers/in-process';
import { loginAs } from '../helpers/members';
import { postJson, raw } from '../helpers/server';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { listCategories } from '../../src/lib/server/ask/categories';
import { installModule } from '../../src/lib/server/modules/installs';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

let srv: InProcessServer;
const tokens: Record<string, string> = {};

function idNumber(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...first17].reduce((acc, d, i) => acc + Number(d) * weights[i]!, 0);
  return first17 + '10X98765432'[sum % 11]!;
}
const application = (id: string) => ({
  real_name: '王开发', id_number: id, mobile: '13800138000', email: 'dev@example.com',
  province: '11', city: '1101', intro: '我开发 Atrium 的编辑器插件和主题，计划在市场发布两个模块。',
});
const call = (who: string, path: string, body: unknown) => postJson(srv.url, path, body, { 'ba-user-token': tokens[who]!, 'think-lang': 'en' });

beforeAll(async () => {
  srv = await startInProcess();
  await installModule(srv.runtime.db, 'editor');
  for (const [name, groupId] of [['ann', 1], ['bob', 1], ['cat', 1], ['dan', 1], ['boss', ADMIN_GROUP]] as const) {
    await createUser(srv.runtime.db, { username: name, password: 'secret-pass1', groupId });
    tokens[name] = (await loginAs(srv.url, srv.runtime, name, 'secret-pass1')).token;
  }
});
afterAll(async () => { await srv?.stop(); });

describe('developer applications', () => {
  it('accept one ID number for one member only, also when two apply at once', async () => {
    const shared = idNumber('11010819850307123');
    const [a, b] = await Promise.all([call('ann', '/api/developer/verif', application(shared)), call('bob', '/api/developer/verif', application(shared))]);
    const codes = [a.json().code, b.json().code].sort();
    expect(codes).toEqual([0, 1]);
    const refused = [a, b].find((r) => r.json().code === 0)!.json<{ msg: string; data: { fields: Record<string, string> } }>();
    expect(refused.msg).toBe("This ID number is already on another account's application");
    expect(refused.data.fields.id_number).toBe(refused.msg);
    // The member who has it may change their own application.
    const owner = a.json().code === 1 ? 'ann' : 'bob';
    expect((await call(owner, '/api/developer/verif', application(shared))).json().code).toBe(1);
    expect((await call('cat', '/api/developer/verif', application(idNumber('11010819850307456')))).json().code).toBe(1);
  });
});

describe('names', () => {
  it.each([['a right-to-left override', 'admin\u202Egnp.exe'], ['a zero-width space', 'ad\u200Bmin'], ['a zero-width joiner', 'boss\u200D'], ['a zero-width no-break space', 'bo\uFEFFss']])(
    'refuses a nickname with %s', async (_, nickname) => {
      const res = await call('dan', '/api/account/profile', { nickname, gender: 0 });
      expect(res.json()).toMatchObject({ code: 0, msg: 'Names may not contain invisible or direction-changing characters' });
    },
  );

  it('still takes an ordinary name in any script', async () => {
    expect((await call('dan', '/api/account/profile', { nickname: '丹 Dan-Oneil', gender: 0 })).json().code).toBe(1);
  });
});

describe('the Announcements category', () => {
  it('is for moderators: a member is refused with a field error, an administrator may post', async () => {
    const announcement = (await listCategories(srv.runtime.db, 'en')).find((c) => c.type === 'announcement')!;
    const post = { title: 'Site maintenance tonight', category_id: announcement.id, tags: [], content: 'We will be down for ten minutes.' };
    const member = (await call('dan', '/api/ask/post', post)).json<{ code: number; msg: string; data: { fields: Record<string, string> } }>();
    expect(member).toMatchObject({ code: 0, msg: 'Only moderators can post in this category', data: { fields: { category_id: 'Only moderators can post in this category' } } });
    expect((await call('boss', '/api/ask/post', post)).json().code).toBe(1);
  });

  it('is not offered on a member\'s post form', async () => {
    const cookie = (await loginAs(srv.url, srv.runtime, 'dan', 'secret-pass1')).cookie;
    const page = await raw(srv.url, '/ask/post', { headers: { cookie: `${cookie}; ba-lang=en` } });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Announcements');
  });
});

describe('review ratings', () => {
  it.each([[true], ['true'], [[5]], [''], [4.5]])('refuses %j as a rating', async (rating) => {
    const res = await call('dan', '/api/modules/review', { uid: 'editor', rating, content: '' });
    const body = res.json<{ code: number; data: { fields?: Record<string, string> } }>();
    expect(body.code).toBe(0);
    expect(body.data.fields?.rating).toBe('Please choose 1 to 5 stars');
  });
});

describe('uploaded files', () => {
  it('are served under a CSP sandbox, and a PDF downloads instead of opening on our origin', async () => {
    const dir = join(srv.dataDir, 'storage', 'files');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'doc.pdf'), '%PDF-1.4\n<< /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>\n');
    writeFileSync(join(dir, 'pic.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    const pdf = await raw(srv.url, '/storage/files/doc.pdf');
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-security-policy']).toBe('sandbox');
    expect(pdf.headers['content-disposition']).toBe('attachment');
    const png = await raw(srv.url, '/storage/files/pic.png');
    expect(png.headers['content-security-policy']).toBe('sandbox');
    expect(png.headers['content-disposition']).toBeUndefined();
  });
});

describe('user:money', () => {
  it('says the amount is too large rather than "negative"', async () => {
    const dataDir = mkdtempSync(join(TMP, 'money-'));
    cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
    try {
      const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
      await createUser(rt.db, { username: 'rich', password: 'secret-pass1' });
      await rt.close();
      const env: Record<string, string> = { ...(process.env as Record<string, string>), ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
      delete env.DATABASE_URL;
      const atrium = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist/cli.mjs'), ...args], { env, encoding: 'utf8' });
      const huge = atrium('user:money', 'rich', '99999999999999999.99', 'bonus');
      expect(huge.status).toBe(1);
      expect(huge.stderr).toMatch(/The amount is too large/);
      const negative = atrium('user:money', 'rich', '-5', 'fine');
      expect(negative.stderr).toMatch(/would be negative/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, scaled(120_000));
});
