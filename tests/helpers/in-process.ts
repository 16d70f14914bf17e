// The built Astro app served in the test process, so a test can read the same database the server
// writes (PGlite allows one process): used where a test needs what only the database knows.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readConfig } from '../../src/lib/server/env';
import type { Runtime } from '../../src/lib/server/runtime';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createApp, type AstroHandler } from '../../src/server/app';
import { ROOT, TEMPLATE_DIR, TMP } from './paths';

export interface InProcessServer {
  url: string;
  runtime: Runtime;
  dataDir: string;
  stop(): Promise<void>;
}

export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessServer> {
  const dataDir = mkdtempSync(join(TMP, 'inproc-'));
  // The migrated template of the integration run saves the first migration; without it (an end-to-end
  // run on its own) the runtime migrates the empty folder.
  if (existsSync(join(TEMPLATE_DIR, 'db'))) cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
  const runtime = await createRuntime(readConfig({ ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DEPLOY_POLL_SECONDS: '0', ...env }));
  const { handler } = (await import(pathToFileURL(join(ROOT, 'dist/server/entry.mjs')).href)) as { handler: AstroHandler };
  const app = createApp(runtime, handler, join(ROOT, 'dist/client'));
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    dataDir,
    async stop() {
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
