// What module client code gets from the site through the import map (issue 26): the lists the
// server writes its re-exporting modules from are the real export names of the React the site
// bundles and of the client SDK, so a module importing any of them finds it.
import * as React from 'react';
import * as jsxRuntime from 'react/jsx-runtime';
import { describe, expect, it } from 'vitest';
import { CLIENT_SDK_EXPORTS, JSX_RUNTIME_EXPORTS, REACT_EXPORTS } from '../../src/lib/shared/module-client';
import { moduleImportMap, shimAt } from '../../src/lib/server/modules/client-shims';

describe('the import map given to module code', () => {
  it('re-exports React\'s public API and the jsx runtime', () => {
    // Named exports only (not the `default` and `module.exports` of the CommonJS interop), React's internals left out.
    const publicNames = Object.keys(React).filter((k) => k !== 'default' && !k.startsWith('__') && /^[A-Za-z_$][\w$]*$/.test(k)).sort();
    expect([...REACT_EXPORTS].sort()).toEqual(publicNames);
    for (const name of JSX_RUNTIME_EXPORTS) expect(jsxRuntime).toHaveProperty(name);
  });

  it('re-exports every export of the client SDK', async () => {
    const sdk = await import('../../src/islands/modules/client-sdk');
    expect([...CLIENT_SDK_EXPORTS].sort()).toEqual(Object.keys(sdk).sort());
  });

  it('maps each specifier to a hashed URL whose module re-exports the page\'s instance', () => {
    const { imports } = moduleImportMap();
    expect(Object.keys(imports).sort()).toEqual(['@atrium/client', 'react', 'react/jsx-runtime']);
    for (const [specifier, url] of Object.entries(imports)) {
      expect(url).toMatch(/^\/_modules\/_site\/[0-9a-f]{16}\/[a-z-]+\.mjs$/);
      const body = shimAt(url)!.toString();
      expect(body).toContain(`globalThis.__atriumModuleDeps?.[${JSON.stringify(specifier)}]`);
      expect(body).toMatch(/^export default m;$/m);
    }
    expect(shimAt('/_modules/_site/0000000000000000/react.mjs')).toBeNull();
  });
});
