import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TMP = join(ROOT, 'tests', '.tmp');
/** A migrated, seeded PGlite directory copied for each test server: initdb costs ~4 s, a copy ~50 ms. */
export const TEMPLATE_DIR = join(TMP, 'template');
export const TEMPLATE_PG = 'atrium_template';
