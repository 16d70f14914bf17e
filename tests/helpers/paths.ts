import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TMP = join(ROOT, 'tests', '.tmp');
/** A migrated, seeded PGlite directory copied for each test server: initdb costs ~4 s, a copy ~50 ms. */
export const TEMPLATE_DIR = join(TMP, 'template');
/** Prefix of the PostgreSQL databases a run creates: several checkouts can test on one server at once. */
export const PG_PREFIX = process.env.TEST_PG_PREFIX || 'atrium';
export const TEMPLATE_PG = `${PG_PREFIX}_template`;
