// What module client code imports from the site, through the page's import map: `react`,
// `react/jsx-runtime` and the client SDK `@atrium/client` (src/lib/shared/module-client.ts). Each
// specifier maps to a tiny ES module served by every instance at a hashed, immutable URL
// (`/_modules/_site/<hash>/<name>.mjs`) that re-exports what the site's island put on a global
// before importing the module: the page's own React instance (one React per page, so hooks work)
// and the site's SDK, never bundled copies. The export names are fixed here, at start, from the
// React the server renders with (the same package the client bundle holds) and the SDK's list.
import { createHash } from 'node:crypto';
import * as React from 'react';
import { CLIENT_SDK_EXPORTS, JSX_RUNTIME_EXPORTS, MODULE_DEPS_GLOBAL, type ModuleSpecifier } from '../../shared/module-client';
import { MODULE_ASSETS } from './assets';

/** The folder of the re-exporting modules under `/_modules/` (no module uid starts with `_`). */
const SITE_FOLDER = '_site';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const FILES: Record<ModuleSpecifier, { file: string; names: () => readonly string[] }> = {
  react: { file: 'react.mjs', names: () => Object.keys(React).filter((k) => k !== 'default' && IDENTIFIER.test(k)).sort() },
  'react/jsx-runtime': { file: 'react-jsx-runtime.mjs', names: () => JSX_RUNTIME_EXPORTS },
  '@atrium/client': { file: 'atrium-client.mjs', names: () => CLIENT_SDK_EXPORTS },
};

/** The source of the module that stands for `specifier`. */
function shimSource(specifier: ModuleSpecifier): string {
  const names = FILES[specifier].names();
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
