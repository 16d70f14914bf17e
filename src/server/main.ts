// Atrium's HTTP server process: opens the runtime, listens, shuts down cleanly on SIGTERM.
// Built as dist/atrium-main.mjs and loaded by the entry, dist/atrium.mjs (entry.ts), once the process
// runs with its flags; `npm start` (scripts/start.mjs) and process managers start the entry.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readConfig } from '../lib/server/env';
import { exposedTrustProblem } from '../lib/server/proxy';
import type { Runtime } from '../lib/server/runtime';
import { createRuntime } from '../lib/server/boot/runtime';
import { DatabaseLockedError } from '../lib/server/db/client';
import { assertRouteMiddleware } from '../lib/shared/routes';
import { ROUTE_MIDDLEWARE } from '../lib/server/route-middleware';
import { createApp, type AstroHandler } from './app';
import { startOperatorServices } from './operator';
import { collectWhenIdle } from './idle-gc';
import { makeOwnerOnly, OWNER_ONLY_UMASK } from './data-dir';

export async function main(): Promise<void> {
  // Before anything is written: the database, uploads, mails and packages are the owner's alone.
  process.umask(OWNER_ONLY_UMASK);
  const config = readConfig();
  // Before anything listens or writes: a server anyone can hand a client address to does not start.
  const exposed = exposedTrustProblem(process.env.TRUST_PROXY, config.proxy, config.host);
  if (exposed && !process.argv.includes('--migrate-only')) {
    process.stderr.write(`[atrium] error ${exposed}\n`);
    process.exit(1);
  }
  assertRouteMiddleware(Object.keys(ROUTE_MIDDLEWARE));
  const started = Date.now();
  const migrateOnly = process.argv.includes('--migrate-only');
  const refused = makeOwnerOnly(config.dataDir);
  if (refused.length) process.stderr.write(`[atrium] warn ${refused.length} file(s) in ${config.dataDir} belong to another user and stay readable by others, e.g. ${refused[0]}: chown them to the server's user\n`);
  const setUp = firstStartSetup(config);
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
  // PGlite sets some modes itself: a new site's files come out of the template tarball with the
  // tarball's modes, and the relation cache files it rewrites at every start are 0644.
  if (!config.databaseUrl) makeOwnerOnly(join(config.dataDir, 'db'), true);
  log.info(`database ready (${runtime.database.kind}: ${runtime.database.where})${config.redisUrl ? ', redis connected' : ''}`);
  if (migrateOnly) {
    if (process.argv.includes('--demo')) {
      // One unit of work: the seeds declare what they wrote, published (to the running instances) at its end.
      await runtime.invalidation.unit(async () => {
        const { seedDemo } = await import('../lib/server/ask/demo');
        for (const line of await seedDemo(runtime.db)) log.info(line);
        const { seedMarketDemo } = await import('../lib/server/market/demo');
        for (const line of await seedMarketDemo(runtime)) log.info(line);
      });
    }
    await runtime.close();
    return;
  }
  if (setUp && !migrateOnly) {
    await runtime.close();
    setUp(log);
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

const FIRST_START_DONE = 'ATRIUM_FIRST_START_DONE';

/**
 * A new site on PGlite: its first start migrates, seeds the demo forum and market and imports the
 * bundled guide (Markdown rendered with shiki's grammars, loaded on this thread for good), and V8
 * recompiles PGlite's hot WebAssembly on the way. The process keeps much of that resident (a first
 * start idled at ~320 MB, a restart of the same site at ~260 MB). When this process is the server's
 * entry (not a script that imported it) and can replace itself, it does so once the database is
 * ready: the same pid, the same arguments, and the rest of its life is a restart's. Returns what to
 * call after the runtime is closed, or null for a site that exists or a process that cannot exec.
 */
function firstStartSetup(config: { databaseUrl: string | null; dataDir: string }): ((log: Runtime['log']) => void) | null {
  const done = process.env[FIRST_START_DONE] === '1';
  delete process.env[FIRST_START_DONE]; // not inherited by processes the server starts
  // Node loads the main module by its real path (a release directory behind a symlink, say).
  const entry = fileURLToPath(new URL('./atrium.mjs', import.meta.url));
  const isEntry = !!process.argv[1] && existsSync(process.argv[1]) && realpathSync(resolve(process.argv[1])) === realpathSync(entry);
  if (done || !isEntry || typeof process.execve !== 'function' || config.databaseUrl) return null;
  if (existsSync(join(config.dataDir, 'db', 'PG_VERSION'))) return null;
  const execve = process.execve;
  return (log) => {
    const peak = peakResidentMb();
    log.info(`first start: site created${peak ? ` (peak ${peak} MB resident)` : ''}; restarting to leave the setup's memory behind`);
    execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, [FIRST_START_DONE]: '1' });
  };
}

/** The process's peak resident memory (VmHWM), where /proc tells it: an exec starts it afresh. */
function peakResidentMb(): number | null {
  try {
    const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
  } catch {
    return null;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[atrium] error failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
