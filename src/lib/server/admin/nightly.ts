// Backups on demand (CLI, console) and the nightly one (setting `backup_keep`: 0 off, N keeps N).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../runtime';
import { pruneBackups, writeBackup, type BackupResult } from './backup';
import { recordAction, type Actor } from './audit';

const stamp = (d = new Date()): string => d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

export function backupDir(runtime: Runtime): string {
  return join(runtime.config.dataDir, 'backups');
}

/** Writes a backup (default name in DATA_DIR/backups) and records it in the audit log. */
export async function backupNow(runtime: Runtime, file: string | null, actor: Actor, nightly = false): Promise<BackupResult> {
  const target = file ?? join(backupDir(runtime), `atrium-${nightly ? 'nightly-' : ''}${stamp()}.backup.gz`);
  const done = await writeBackup(runtime.db, runtime.database.kind, runtime.config.dataDir, target);
  await recordAction(runtime.db, actor, 'backup', done.file, '', { bytes: done.bytes, rows: done.rows, files: done.files });
  return done;
}

/** The newest nightly backup's time (ms), or 0. */
function lastNightly(dir: string): number {
  if (!existsSync(dir)) return 0;
  const names = readdirSync(dir).filter((n) => n.startsWith('atrium-nightly-')).sort();
  const newest = names.at(-1);
  return newest ? statSync(join(dir, newest)).mtimeMs : 0;
}

/**
 * Checks hourly whether a nightly backup is due (none in the last 23 hours, after 03:00 in the
 * site's time zone) and keeps the newest `backup_keep`. With several instances sharing DATA_DIR the
 * file's time stops the others. Returns the stop function.
 */
export function startNightlyBackups(runtime: Runtime, everyMs = 3_600_000): () => void {
  let running = false;
  const tick = async (): Promise<void> => {
    if (running) return;
    const keep = Number(await runtime.site.get('backup_keep', '0')) || 0;
    if (keep <= 0) return;
    const tz = await runtime.site.get('time_zone', 'Asia/Shanghai');
    const hour = Number(new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: tz }).format(new Date()));
    const dir = backupDir(runtime);
    if (hour < 3 || Date.now() - lastNightly(dir) < 23 * 3_600_000) return;
    running = true;
    try {
      const done = await backupNow(runtime, null, { id: 0, username: 'nightly', ip: '' }, true);
      const removed = pruneBackups(dir, keep);
      runtime.log.info(`nightly backup ${done.file} (${done.bytes} bytes)${removed.length ? `; removed ${removed.join(', ')}` : ''}`);
    } catch (err) {
      runtime.log.error('nightly backup failed', { err: err instanceof Error ? err.message : String(err) });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  const first = setTimeout(() => void tick(), 60_000);
  first.unref();
  return () => { clearInterval(timer); clearTimeout(first); };
}
