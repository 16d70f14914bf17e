import { resolve, sep } from 'node:path';
import type { Runtime } from '../runtime';

/**
 * Module packages live here, outside `/storage`, so no URL reaches them: downloads go through
 * `/api/modules/download`, which checks who asks. Instances that share uploads share this folder too.
 */
export function packageRoot(runtime: Pick<Runtime, 'config'>): string {
  return resolve(runtime.config.dataDir, 'packages');
}

/** The file behind a version's `packagePath`, or null when the path would leave the package root. */
export function packageFile(runtime: Pick<Runtime, 'config'>, relative: string): string | null {
  const root = packageRoot(runtime);
  if (!relative || relative.includes('\0') || relative.includes('\\')) return null;
  const file = resolve(root, relative);
  return file.startsWith(root + sep) ? file : null;
}
