// A spec's own site and server, for specs that change site-wide things (groups, rules, settings)
// the shared e2e server's other specs must not see: a copy of the test template's data directory,
// prepared by the spec while no server holds it, then the built server on it; stopped and removed
// after the spec. And a login through the API that leaves the browser holding the session cookies.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startServer, type TestServer } from '../helpers/server';
import { ROOT, TEMPLATE_DIR, TMP } from '../helpers/paths';
import { PASSWORD } from '../helpers/admin-site';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { scaled } from '../helpers/time-scale.mjs';

/** Every account a private site's spec creates logs in with this password (helpers/admin-site's). */
export { PASSWORD };

export interface PrivateSite {
  /** The server's base URL (from beforeAll on). */
  readonly url: string;
  readonly dataDir: string;
  /**
   * Logs `username` in through the API with the request client of the page's context (or of a
   * context, on a new page) and sets the page language; returns the page.
   */
  logIn(target: Page | BrowserContext, username: string, lang: 'zh-cn' | 'en'): Promise<Page>;
}

/** Opens the site's runtime on `dataDir` for `fn` and closes it again (PGlite allows one holder). */
export async function withRuntime<T>(dataDir: string, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, LOG_LEVEL: 'warn', DATA_DIR: dataDir }));
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

/**
 * Registers beforeAll/afterAll hooks in the current scope: `prepare(dataDir)` fills the copied
 * data directory (with `withRuntime` or helpers that open their own), then the server starts on it.
 */
export function usePrivateSite(name: string, prepare: (dataDir: string) => Promise<void>): PrivateSite {
  let srv: TestServer | null = null;
  let dataDir = '';

  test.beforeAll(async () => {
    test.setTimeout(scaled(180_000));
    mkdirSync(TMP, { recursive: true });
    dataDir = mkdtempSync(join(TMP, `e2e-${name}-`));
    if (existsSync(join(TEMPLATE_DIR, 'db'))) cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
    await prepare(dataDir);
    srv = await startServer({ dataDir, env: { DEPLOY_POLL_SECONDS: '0' } });
  });

  test.afterAll(async () => {
    await srv?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const site: PrivateSite = {
    get url(): string {
      if (!srv) throw new Error(`the private site "${name}" is not started (used outside its spec's tests?)`);
      return srv.url;
    },
    get dataDir(): string {
      return dataDir;
    },
    async logIn(target, username, lang) {
      const page = 'newPage' in target ? await target.newPage() : target;
      await page.context().addCookies([{ name: 'ba-lang', value: lang, url: site.url }]);
      const res = await page.request.post(`${site.url}/api/user/checkIn`, { data: { tab: 'login', username, password: PASSWORD, keep: false }, headers: { origin: site.url } });
      const body = await res.json() as { code: number; msg: string };
      expect(body.code, body.msg).toBe(1);
      return page;
    },
  };
  return site;
}
