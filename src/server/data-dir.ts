// DATA_DIR holds the embedded database, reset codes in outbox/, private module packages and
// backups: only the account the server runs as may read it, whatever umask it was started with.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Files and folders the server creates from now on: owner only (0600 / 0700). */
export const OWNER_ONLY_UMASK = 0o077;

/**
 * Creates DATA_DIR owner-only, and takes group and other access away from everything already in it
 * (a site started before, a copy, a restore): folders become 0700, files 0600 (0700 if executable).
 * Symbolic links are left alone (their modes mean nothing; their targets are not ours to change).
 * Returns what could not be changed (another owner), for a warning; the start goes on.
 */
export function makeOwnerOnly(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const refused: string[] = [];
  const visit = (path: string): void => {
    let st;
    try { st = lstatSync(path); } catch { return; }
    if (st.isSymbolicLink()) return;
    if (st.mode & 0o077) {
      try { chmodSync(path, (st.mode & 0o700) | (st.isDirectory() ? 0o700 : 0o600)); } catch { refused.push(path); }
    }
    if (!st.isDirectory()) return;
    let names: string[];
    try { names = readdirSync(path); } catch { return; }
    for (const name of names) visit(join(path, name));
  };
  visit(dataDir);
  return refused;
}
