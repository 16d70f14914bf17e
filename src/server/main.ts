// Atrium's HTTP server process: opens the runtime, listens, shuts down cleanly on SIGTERM.
// Started by `npm start` (scripts/start.mjs) as dist/atrium.mjs.
import './reexec'; // first: may re-exec the process with its V8 flags before anything loads
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readConfig } from '../lib/server/env';
import { createRuntime, type Runtime } from '../lib/server/runtime';
import { DatabaseLockedError } from '../lib/server/db/client';
import { assertRouteMiddleware } from '../lib/shared/routes';
import { ROUTE_MIDDLEWARE } from '../lib/server/route-middleware';
import { createApp, type AstroHandler } from './app';
import { startOperatorServices } from './operator';
import { collectWhenIdle } from './idle-gc';

export async function main(): Promise<void> {
  const config = readConfig();
  assertRouteMiddleware(Object.keys(ROUTE_MIDDLEWARE));
  const started = Date.now();
  const migrateOnly = process.argv.includes('--migrate-only');
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config);
  } catch (err) {
    if (err instanceof DatabaseLockedError) {
      process.stderr.write(`[atrium] error ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const { log } = runtime;
  log.info(`database ready (${runtime.database.kind}: ${runtime.database.where})${config.redisUrl ? ', redis connected' : ''}`);
  if (migrateOnly) {
    if (process.argv.includes('--demo')) {
      const { seedDemo } = await import('../lib/server/ask/demo');
      for (const line of await seedDemo(runtime.db)) log.info(line);
      const { seedMarketDemo } = await import('../lib/server/market/demo');
      for (const line of await seedMarketDemo(runtime)) log.info(line);
      await runtime.pageCache.invalidate(['ask', 'modules']);
    }
    await runtime.close();
    return;
  }

  // The built site is production code: React (islands rendered on the server) reads NODE_ENV when
  // it loads and would otherwise run its development build (~12 MB more resident, extra checks).
  process.env.NODE_ENV ||= 'production';
  const { handler } = (await import(pathToFileURL(join(config.root, 'dist', 'server', 'entry.mjs')).href)) as { handler: AstroHandler };
  const app = createApp(runtime, handler, join(config.root, 'dist', 'client'));
  const { server } = app;

  // Handlers before listening: a SIGTERM right after start must still close the database.
  let stopping = false;
  let stopOperator: () => Promise<void> = async () => undefined;
  let stopIdleGc: () => void = () => undefined;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.drain();
    log.info(`${signal}: finishing ${app.inFlight()} request(s), then closing`);
    const force = setTimeout(() => { log.warn('shutdown timed out; closing connections'); server.closeAllConnections(); }, 10_000);
    force.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    clearTimeout(force);
    stopIdleGc();
    await stopOperator();
    await runtime.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  // Before "listening": whoever waits for that line finds the setup link and the CLI socket ready.
  stopOperator = await startOperatorServices(runtime, `http://${shown}:${port}`);
  log.info(`listening on http://${shown}:${port} (ready in ${Date.now() - started} ms)`);
  // Migrations, seeding, module loading and every busy spell leave garbage an idle server would keep
  // resident until the next full collection: one runs whenever the process goes quiet (idle-gc.ts).
  stopIdleGc = collectWhenIdle();

}

main().catch((err: unknown) => {
  process.stderr.write(`[atrium] error failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
