// The operator CLI beside a running site on PostgreSQL without Redis: nothing but the server itself
// can drop the server's caches, so the command runs in the server, through DATA_DIR/atrium.sock.
// (It ran in a process of its own: a model added by `chat:add` stayed missing from the /chat page a
// visitor had already been served from the page cache.)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgres, raw, startServer, type TestServer } from '../helpers/server';
import { ROOT } from '../helpers/paths';

describe.skipIf(!process.env.TEST_DATABASE_URL)('the CLI on PostgreSQL without Redis, site running', () => {
  let server: TestServer;
  let databaseUrl = '';

  beforeAll(async () => {
    databaseUrl = await freshPostgres();
    server = await startServer({ env: { DATABASE_URL: databaseUrl } });
  });
  afterAll(async () => { await server?.stop(); });

  it('runs in the server, so a page the server cached shows the change at once', async () => {
    const page = async (): Promise<string> => (await raw(server.url, '/chat', { headers: { 'accept-language': 'en' } })).text;
    expect(await page()).not.toContain('Socket test model');
    expect(await page()).not.toContain('Socket test model'); // served from the page cache now
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ATRIUM_ROOT: ROOT, DATA_DIR: server.dataDir, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl };
    delete env.REDIS_URL;
    const added = spawnSync(process.execPath, [join(ROOT, 'dist/cli.mjs'), 'chat:add', 'socket-test', '--base-url', 'http://127.0.0.1:9', '--model', 'm', '--title', 'Socket test model', '--audience', 'visitors'], { env, encoding: 'utf8' });
    expect(added.stderr).toBe('');
    expect(added.stdout).toContain('Model socket-test added.');
    expect(await page()).toContain('Socket test model');
  });
});
