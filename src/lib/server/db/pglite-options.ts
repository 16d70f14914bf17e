// The settings embedded PGlite runs with, in the worker thread and in-process alike.
// PGlite starts PostgreSQL with its stock shared_buffers of 128 MB inside the WASM memory, and the
// buffer pool fills as pages are read, so an ordinary site's PGlite grew to ~600 MB resident. A
// community site's working set is small and the operating system caches the files beneath it
// anyway (PGlite's files are ordinary files in DATA_DIR/db), so 16 MB of buffers serve it with no
// measurable cost to the forum bench and keep the engine around 200 MB (bench/footprint.mjs).
// No import of PGlite here: this module is loaded on the PostgreSQL path too.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `name=value` settings for PostgreSQL inside PGlite (also written by initdb into a new database's postgresql.conf). */
export const PGLITE_SETTINGS: readonly string[] = ['shared_buffers=16MB'];

/** PGlite.create options for PGLITE_SETTINGS, given PGlite's own `PGlite.defaultStartParams`. */
export function pgliteCreateOptions(defaultStartParams: readonly string[]): { startParams: string[]; initDbStartParams: string[] } {
  return {
    startParams: [...defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])],
    initDbStartParams: PGLITE_SETTINGS.flatMap((s) => ['--set', s]),
  };
}

/**
 * dist/pglite-template.tar.gz (scripts/pglite-template.mjs) beside `besideFile`, when the build made
 * it: a new database is loaded from it instead of running initdb. Null from the sources (tests).
 */
export function pgliteTemplate(besideFile: URL): string | null {
  const path = fileURLToPath(new URL('./pglite-template.tar.gz', besideFile));
  return existsSync(path) ? path : null;
}
