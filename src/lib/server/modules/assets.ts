// The files of an active module that browsers load (its markdown CSS and browser half, its client
// entry and CSS), at hashed immutable URLs: `/_modules/{uid}/{version}-{sha256 prefix}/{path}`.
// Every instance serves them from its own unpacked copy of the same package (same hash, same
// bytes), so a page rendered by one instance loads its files from any other.
import type { ActiveModule } from './active';

/** The URL prefix of module files (deploy/nginx/atrium.conf passes it to Atrium like any page). */
export const MODULE_ASSETS = '/_modules/';

/** The files of a module that browsers may load: what its manifest names for them, nothing else. */
export function publicFiles(m: Pick<ActiveModule, 'manifest'>): string[] {
  const { entry, contributes } = m.manifest;
  return [contributes.markdown?.css, contributes.markdown?.browser, entry.client, entry.css].filter((f): f is string => Boolean(f));
}

export function assetUrl(m: Pick<ActiveModule, 'uid' | 'version' | 'sha256'>, path: string): string {
  return `${MODULE_ASSETS}${m.uid}/${m.version}-${m.sha256.slice(0, 16)}/${path}`;
}

/** The stylesheets of the active markdown modules, for pages that show markdown. */
export function markdownStyles(active: readonly ActiveModule[]): string[] {
  return active.filter((m) => m.manifest.contributes.markdown?.css).map((m) => assetUrl(m, m.manifest.contributes.markdown!.css!));
}

/** What the editor's preview needs to render the active modules' markdown in the browser. */
export interface BrowserMarkdownModule {
  uid: string;
  inline?: readonly { open: string; close: string }[];
  block?: readonly { open: string; close: string }[];
  fence?: readonly string[];
  /** The browser half's URL (without one, the preview shows the source of the module's spans). */
  browser: string | null;
}

export function browserMarkdown(active: readonly ActiveModule[]): BrowserMarkdownModule[] {
  return active.filter((m) => m.manifest.contributes.markdown).map((m) => {
    const { inline, block, fence, browser } = m.manifest.contributes.markdown!;
    return { uid: m.uid, ...(inline ? { inline } : {}), ...(block ? { block } : {}), ...(fence ? { fence } : {}), browser: browser ? assetUrl(m, browser) : null };
  });
}

/** The active module and file a `/_modules/…` path names, or null (unknown, old version, not public). */
export function resolveAsset(active: readonly ActiveModule[], pathname: string): { module: ActiveModule; file: string } | null {
  const m = /^\/_modules\/([a-z0-9][a-z0-9_-]{0,39})\/([^/]+)-([0-9a-f]{16})\/(.+)$/.exec(pathname);
  if (!m) return null;
  const module = active.find((a) => a.uid === m[1] && a.version === m[2] && a.sha256.startsWith(m[3]!));
  if (!module || !publicFiles(module).includes(m[4]!)) return null;
  return { module, file: m[4]! };
}
