// Once per integration run: build when the sources changed, and migrate the template databases —
// unless scripts/test.mjs did both already for this run (it then runs the e2e layer beside this one).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './paths';

export default async function setup(): Promise<void> {
  if (process.env.ATRIUM_TEST_PREPARED === '1') return;
  const { buildIfStale } = (await import(pathToFileURL(join(ROOT, 'scripts/start.mjs')).href)) as { buildIfStale: () => void };
  buildIfStale();
  const { prepareTemplates } = (await import(pathToFileURL(join(ROOT, 'tests/helpers/prepare.mjs')).href)) as { prepareTemplates: () => Promise<void> };
  await prepareTemplates();
}
