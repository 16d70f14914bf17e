// The first start of a new site on PGlite: the process creates the site, then replaces itself
// (same pid) so that what the setup loaded stays behind (src/server/main.ts, firstStartSetup).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { raw, startServer, type TestServer } from '../helpers/server';
import { TMP } from '../helpers/paths';
import { scaled } from '../helpers/time-scale.mjs';

const dataDir = mkdtempSync(join(TMP, 'first-'));
let srv: TestServer | undefined;

afterAll(async () => {
  await srv?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const CREATED = /first start: site created \(peak (\d+) MB resident\); restarting/g;

describe('first start on a new data directory', () => {
  it('creates the site, replaces itself once under the same pid, then serves it', async () => {
    srv = await startServer({ dataDir, startTimeout: scaled(90_000) });
    const logs = srv.logs();
    const created = [...logs.matchAll(CREATED)];
    expect(created, logs).toHaveLength(1);
    expect(Number(created[0]![1])).toBeGreaterThan(50);
    // The seeding ran before the exec, not again after it; the setup link comes once, from the new image.
    expect(logs.match(/first start: md: added the user guide/g)).toHaveLength(1);
    expect(logs.match(/\/install\?token=/g)).toHaveLength(1);
    expect(logs.indexOf('database ready')).toBeLessThan(created[0]!.index!);
    expect(logs.lastIndexOf('database ready')).toBeGreaterThan(created[0]!.index!);
    // Same process: the child the test spawned is the server answering, with the flags it re-executed with.
    expect(srv.process.exitCode).toBeNull();
    const cmdline = readFileSync(`/proc/${srv.process.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain('--max-semi-space-size=4');
    expect(process.env.ATRIUM_FIRST_START_DONE).toBeUndefined();
    // The guide the setup imported: the book's address leads to its first page.
    let page = await raw(srv.url, '/md/guide');
    for (let hops = 0; page.status === 302 && hops < 3; hops++) page = await raw(srv.url, String(page.headers.location));
    expect(page.status).toBe(200);
    expect(page.text).toContain('class="markdown-body"');
    expect((await raw(srv.url, '/healthz')).status).toBe(200);
  }, scaled(120_000));

  it('does not replace itself when the site exists', async () => {
    await srv!.stop();
    srv = await startServer({ dataDir });
    expect(srv.logs()).not.toMatch(CREATED);
    expect(srv.logs()).not.toMatch(/first start: md:/);
    expect((await raw(srv.url, '/healthz')).status).toBe(200);
  }, scaled(90_000));
});
