// What a running server does for its operator besides serving: the first-start setup link, the
// CLI socket (PGlite, or PostgreSQL without Redis) and nightly backups.
import type { Runtime } from '../lib/server/runtime';
import { setupTokenAtStart } from '../lib/server/admin/setup';
import { startNightlyBackups } from '../lib/server/admin/nightly';
import { listenCliSocket } from './cli-socket';

export async function startOperatorServices(runtime: Runtime, origin: string): Promise<() => Promise<void>> {
  const token = await setupTokenAtStart(runtime);
  if (token) {
    const base = runtime.config.siteUrl ?? origin;
    runtime.log.info(`first start: no administrator yet. Create one at ${base}/install?token=${token} (this link works once; a restart makes a new one)`);
  }
  // The CLI runs its commands here when it can: PGlite allows one process, and without Redis a
  // command run in a process of its own could not tell this one to drop its caches. Several
  // instances share Redis (and may share DATA_DIR), so there the CLI runs on its own.
  const closeSocket = runtime.database.kind === 'pglite' || !runtime.config.redisUrl ? await listenCliSocket(runtime) : null;
  const stopNightly = startNightlyBackups(runtime);
  return async () => {
    stopNightly();
    await closeSocket?.();
  };
}
