// The module SDK: what a module author imports. Server-side types and `defineModule` are the ones
// the module host runs against (src/lib/server/modules/host/sdk.ts, re-exported so there is one
// definition); the browser half's contract is below. Imports of this file are bundled into the
// module (`defineModule` is an identity function), so a package never loads anything from the site.
export { defineModule } from '../../src/lib/server/modules/host/sdk';
export type {
  JsonValue, MarkdownItem, ModuleContext, ModuleDefinition, ModuleHooks, ModuleRoutes, ModuleStore, RenderContext, RouteRequest, RouteResponse,
} from '../../src/lib/server/modules/host/sdk';
export type { Capability, Manifest, ManifestJob, ManifestSetting } from '../../src/lib/server/modules/manifest';

import type { MarkdownItem } from '../../src/lib/server/modules/host/sdk';

/**
 * The browser half of a markdown contribution (`contributes.markdown.browser`): an ES module whose
 * default export renders the same spans as the server's `markdown` hook, so the editor's preview and
 * the chat's streaming view show what will be posted. The site imports it from a hashed URL and
 * passes the result through the same allow-list sanitiser as the server's output.
 */
export interface BrowserMarkdown {
  markdown(items: MarkdownItem[]): string[] | Promise<string[]>;
}

/** Declares a browser half (an identity function that gives the object its type). */
export function defineBrowserMarkdown<T extends BrowserMarkdown>(definition: T): T {
  return definition;
}
