// Test helpers for member flows: solving a click captcha from the database the server writes,
// and logging in through the real API.
import { eq } from 'drizzle-orm';
import { captcha } from '../../src/lib/server/db/schema';
import { clickCaptchaKey } from '../../src/lib/server/captcha/click-captcha';
import type { Runtime } from '../../src/lib/server/runtime';
import { postJson, raw } from './server';

/** Asks the server for a captcha, then answers it by clicking the middle of each target box. */
export async function solvedCaptcha(url: string, runtime: Runtime): Promise<{ captchaId: string; captchaInfo: string }> {
  const captchaId = `t${Math.random().toString(36).slice(2)}`;
  const created = await raw(url, `/api/common/clickCaptcha?id=${captchaId}`);
  if (created.json().code !== 1) throw new Error(`captcha: ${created.text}`);
  const [row] = await runtime.db.select().from(captcha).where(eq(captcha.key, clickCaptchaKey(captchaId)));
  const stored = JSON.parse(row!.captcha) as { text: { x: number; y: number; width: number; height: number }[]; width: number; height: number };
  const clicks = stored.text.map((b) => `${Math.round(b.x + b.width / 2)},${Math.round(b.y + b.height / 2)}`).join('-');
  return { captchaId, captchaInfo: `${clicks};${stored.width};${stored.height}` };
}

export interface LoggedIn {
  token: string;
  refreshToken: string;
  cookie: string;
  userInfo: Record<string, unknown>;
}

export async function loginAs(url: string, runtime: Runtime, username: string, password: string, keep = true): Promise<LoggedIn> {
  const res = await postJson(url, '/api/user/checkIn', { tab: 'login', username, password, keep, ...(await solvedCaptcha(url, runtime)) });
  const body = res.json<{ code: number; msg: string; data: { userInfo: Record<string, unknown> & { token: string; refresh_token: string } } }>();
  if (body.code !== 1) throw new Error(`login failed: ${body.msg}`);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return {
    token: body.data.userInfo.token,
    refreshToken: body.data.userInfo.refresh_token,
    cookie: setCookie.map((c) => c.split(';')[0]).join('; '),
    userInfo: body.data.userInfo,
  };
}
