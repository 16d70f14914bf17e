// Loading a module's client code in the browser: the page's React and the client SDK are put on the
// global the import map's modules read (client-shims.ts), then the module's entry is imported from
// its hashed URL, once per URL. Used by every island that mounts module components.
import * as React from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { MODULE_DEPS_GLOBAL } from '../../lib/shared/module-client';

const entries = new Map<string, Promise<Record<string, unknown>>>();

/**
 * Gives module code the page's React and SDK (the import map's specifiers read this global). The SDK
 * (upload queue, markdown renderer) is imported here, when a module loads, so that a page which only
 * might mount one carries none of it (nor its styles).
 */
export async function provideModuleDeps(): Promise<void> {
  const deps = globalThis as unknown as Record<string, unknown>;
  if (deps[MODULE_DEPS_GLOBAL]) return;
  const sdk = await import('./client-sdk');
  deps[MODULE_DEPS_GLOBAL] ??= { react: React, 'react/jsx-runtime': { Fragment, jsx, jsxs }, '@atrium/client': sdk };
}

/** The export `name` of the module entry at `url`: a component (a function or a memo/forwardRef object). */
export async function loadModuleExport<T>(url: string, name: string): Promise<T> {
  await provideModuleDeps();
  let entry = entries.get(url);
  if (!entry) {
    entry = import(/* @vite-ignore */ url) as Promise<Record<string, unknown>>;
    // A failed import may succeed on the next page (a deploy in between): do not keep the failure.
    entry.catch(() => entries.delete(url));
    entries.set(url, entry);
  }
  const found = (await entry)[name];
  if (typeof found !== 'function' && (typeof found !== 'object' || found === null)) throw new Error(`the module at ${url} has no export "${name}"`);
  return found as T;
}
