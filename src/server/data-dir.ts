// DATA_DIR holds the embedded database, reset codes in outbox/, private module packages and
// backups: only the account the server runs as may read it, whatever umask it was started with.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Files and folders the server creates from now on: owner only (0600 / 0700). */
export const OWNER_ONLY_UMASK = 0o077;

/** Written once the whole of DATA_DIR was made owner-only: from then on the umask keeps it so. */
const DONE_MARK = '.owner-only';

/**
 * Creates DATA_DIR owner-only, and takes group and other access away from everything already in it
 * (a site started before this rule, a copy): folders become 0700, files 0600 (0700 if executable).
 * The whole tree is walked once (a mark file remembers it; a site with many uploads would otherwise
 * pay the walk at every start); later starts check DATA_DIR itself, which alone keeps others out.
 * `whole` walks the tree whatever the mark says. Symbolic links are left alone (their modes mean
 * nothing; their targets are not ours to change). Returns what could not be changed (another
 * owner), for a warning; the start goes on.
 */
export function makeOwnerOnly(dataDir: string, whole = false): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mark = join(dataDir, DONE_MARK);
  const walk = whole || !existsSync(mark);
  const refused: string[] = [];
  const visit = (path: string): void => {
    let st;
    try { st = lstatSync(path); } catch { return; }
    if (st.isSymbolicLink()) return;
    if (st.mode & 0o077) {
      try { chmodSync(path, (st.mode & 0o700) | (st.isDirectory() ? 0o700 : 0o600)); } catch { refused.push(path); }
    }
    if (!st.isDirectory() || (!walk && path === dataDir)) return;
    let names: string[];
    try { names = readdirSync(path); } catch { return; }
    for (const name of names) visit(join(path, name));
  };
  visit(dataDir);
  if (walk && !whole && !refused.length && !existsSync(mark)) {
    writeFileSync(mark, 'DATA_DIR and everything in it were made owner-only (0700/0600); the server keeps new files so.\n', { mode: 0o600 });
  }
  return refused;
}
