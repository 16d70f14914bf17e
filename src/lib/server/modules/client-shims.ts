// What module client code imports from the site, through the page's import map: `react`,
// `react/jsx-runtime` and the client SDK `@atrium/client` (src/lib/shared/module-client.ts). Each
// specifier maps to a tiny ES module served by every instance at a hashed, immutable URL
// (`/_modules/_site/<hash>/<name>.mjs`) that re-exports what the site's island put on a global
// before importing the module: the page's own React instance (one React per page, so hooks work)
// and the site's SDK, never bundled copies. The export names are the lists of module-client.ts.
import { createHash } from 'node:crypto';
import { CLIENT_SDK_EXPORTS, JSX_RUNTIME_EXPORTS, MODULE_DEPS_GLOBAL, REACT_EXPORTS, type ModuleSpecifier } from '../../shared/module-client';
import { MODULE_ASSETS } from './assets';

/** The folder of the re-exporting modules under `/_modules/` (no module uid starts with `_`). */
const SITE_FOLDER = '_site';

const FILES: Record<ModuleSpecifier, { file: string; names: readonly string[] }> = {
  react: { file: 'react.mjs', names: REACT_EXPORTS },
  'react/jsx-runtime': { file: 'react-jsx-runtime.mjs', names: JSX_RUNTIME_EXPORTS },
  '@atrium/client': { file: 'atrium-client.mjs', names: CLIENT_SDK_EXPORTS },
};

/** The source of the module that stands for `specifier`. */
function shimSource(specifier: ModuleSpecifier): string {
  const { names } = FILES[specifier];
  return [
    `const m = globalThis.${MODULE_DEPS_GLOBAL}?.[${JSON.stringify(specifier)}];`,
    `if (!m) throw new Error(${JSON.stringify(`Atrium gives "${specifier}" to module code loaded by the site's islands only`)});`,
    'export default m;',
    `export const { ${names.join(', ')} } = m;`,
    '',
  ].join('\n');
}

interface Shim { url: string; body: Buffer }

let shims: Map<ModuleSpecifier, Shim> | null = null;

function allShims(): Map<ModuleSpecifier, Shim> {
  if (shims) return shims;
  const sources = (Object.keys(FILES) as ModuleSpecifier[]).map((s) => [s, Buffer.from(shimSource(s))] as const);
  // One hash for the set: a new React or SDK gives every file a new URL at once.
  const hash = createHash('sha256');
  for (const [, body] of sources) hash.update(body);
  const folder = `${MODULE_ASSETS}${SITE_FOLDER}/${hash.digest('hex').slice(0, 16)}/`;
  shims = new Map(sources.map(([s, body]) => [s, { url: `${folder}${FILES[s].file}`, body }]));
  return shims;
}

/** The page's import map: each specifier module code may import, and the URL that provides it. */
export function moduleImportMap(): { imports: Record<string, string> } {
  return { imports: Object.fromEntries([...allShims()].map(([s, shim]) => [s, shim.url])) };
}

/** The body of a `/_modules/_site/…` URL, or null. */
export function shimAt(pathname: string): Buffer | null {
  for (const shim of allShims().values()) if (shim.url === pathname) return shim.body;
  return null;
}
