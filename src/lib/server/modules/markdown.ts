// Markdown with the installed modules' extensions, for everything the site renders and stores
// (posts, replies, docs pages, chat answers). The site's parser finds the spans each module declared
// (`contributes.markdown`), the module renders them in its host process (one call per module and
// document), its HTML passes the allow-list sanitiser, and the result records the set of modules and
// versions it was made with (`renderSet`), so content made with another set is re-rendered.
//
// The active set is a cache of the database's wanted state, kept by SiteModules (site-modules.ts)
// and refreshed through the bus on every instance; it is held in a registry (a global symbol) so
// the Astro bundle and the server bundle see the same one.
import { applyClaims, renderMarkdown, type MarkdownExtension, type Rendered, type RenderOptions } from '../../markdown/render';
import { registry } from '../../shared/registry';
import type { MarkdownItem, RenderContext } from './host/types';
import { sanitizeModuleHtml } from './sanitize';

export interface MarkdownProvider {
  /**
   * The active modules' syntax, one array per set (the parser is cached by its identity), and
   * `uid@version` of those modules, sorted, comma-separated ('' : none).
   */
  current(): { extensions: readonly MarkdownExtension[]; renderSet: string };
  render(uid: string, items: MarkdownItem[], ctx: RenderContext): Promise<string[]>;
  /** A module failed to render: logged and shown to administrators; the content keeps its source. */
  reportFailure(uid: string, err: unknown): void;
}

const providers = registry<{ key: 'site'; provider: MarkdownProvider }>('markdown-provider', (e) => e.key);

/** Sets (or, with null, clears) the provider of modules' markdown for this process. */
export function setMarkdownProvider(provider: MarkdownProvider | null): void {
  if (provider) providers.add({ key: 'site', provider });
  else providers.remove('site');
}

function provider(): MarkdownProvider | null {
  return providers.get('site')?.provider ?? null;
}

/** The set stored renders are compared with: content rendered with another one is re-rendered. */
export function currentRenderSet(): string {
  return provider()?.current().renderSet ?? '';
}

/** The active modules' markdown syntax (for the editor's preview). */
export function activeMarkdownExtensions(): readonly MarkdownExtension[] {
  return provider()?.current().extensions ?? [];
}

export interface RenderedWithModules extends Rendered {
  renderSet: string;
}

/**
 * `renderMarkdown` plus the modules' spans. A module that fails leaves its spans as source text
 * (as code) and is left out of the returned `renderSet`, so the content is rendered again later.
 */
export async function renderWithModules(source: string, options: RenderOptions, ctx: RenderContext): Promise<RenderedWithModules> {
  const p = provider();
  const { extensions, renderSet: set } = p?.current() ?? { extensions: [], renderSet: '' };
  if (!p || !extensions.length) return { ...renderMarkdown(source, options), renderSet: '' };
  const rendered = renderMarkdown(source, { ...options, extensions });
  if (!rendered.claims.length) return { ...rendered, renderSet: set };
  const outputs: (string | null)[] = rendered.claims.map(() => null);
  const byModule = new Map<string, number[]>();
  rendered.claims.forEach((c, i) => byModule.set(c.uid, [...(byModule.get(c.uid) ?? []), i]));
  const failed = new Set<string>();
  await Promise.all([...byModule].map(async ([uid, indexes]) => {
    try {
      const html = await p.render(uid, indexes.map((i) => ({ kind: rendered.claims[i]!.kind, src: rendered.claims[i]!.src })), ctx);
      indexes.forEach((i, k) => { outputs[i] = sanitizeModuleHtml(html[k] ?? ''); });
    } catch (err) {
      failed.add(uid);
      p.reportFailure(uid, err);
    }
  }));
  const renderSet = failed.size ? set.split(',').filter((e) => !failed.has(e.slice(0, e.lastIndexOf('@')))).join(',') : set;
  return { ...rendered, html: applyClaims(rendered.html, rendered.claims, outputs), renderSet };
}
