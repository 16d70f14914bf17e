// The installed markdown modules in the browser, so the editor's preview and the chat's streaming
// view show what the server will store: the page lists them (Base.astro, `#atrium-markdown-modules`:
// nothing on a site without one), the shared parser finds their spans, and each module's browser
// half (loaded on first use from its hashed URL) renders them. Its HTML passes DOMPurify with the
// same allow-list as the server's sanitiser before it is shown.
import { applyClaims, renderMarkdown, type Claim, type MarkdownExtension, type Rendered } from '../markdown/render';
import { ALLOWED_ATTRIBUTES, ALLOWED_TAGS } from '../markdown/allow-list';

interface ModuleEntry extends MarkdownExtension {
  browser: string | null;
}

interface BrowserHalf {
  markdown(items: { kind: Claim['kind']; src: string }[]): string[] | Promise<string[]>;
}

let entries: ModuleEntry[] | null = null;

/** The page's markdown modules (read once; an array whose identity keeps the parser cached). */
export function pageMarkdownModules(): readonly ModuleEntry[] {
  if (entries) return entries;
  try {
    const el = typeof document === 'undefined' ? null : document.getElementById('atrium-markdown-modules');
    entries = el?.textContent ? (JSON.parse(el.textContent) as ModuleEntry[]) : [];
  } catch {
    entries = [];
  }
  return entries;
}

const done = new Map<string, string>();
const asked = new Set<string>();
const halves = new Map<string, Promise<BrowserHalf | null>>();
const listeners = new Set<() => void>();
let purify: Promise<(html: string) => string> | null = null;

const keyOf = (c: Pick<Claim, 'uid' | 'kind' | 'src'>): string => `${c.uid}\u0000${c.kind}\u0000${c.src}`;

function sanitizer(): Promise<(html: string) => string> {
  purify ??= import('dompurify').then(({ default: DOMPurify }) => (html: string) =>
    DOMPurify.sanitize(html, { ALLOWED_TAGS: [...ALLOWED_TAGS], ALLOWED_ATTR: [...ALLOWED_ATTRIBUTES], ALLOW_DATA_ATTR: false }));
  return purify;
}

function half(entry: ModuleEntry): Promise<BrowserHalf | null> {
  let p = halves.get(entry.uid);
  if (!p) {
    p = entry.browser
      ? import(/* @vite-ignore */ entry.browser).then((m: { default?: BrowserHalf }) => (m.default && typeof m.default.markdown === 'function' ? m.default : null), () => null)
      : Promise.resolve(null);
    halves.set(entry.uid, p);
  }
  return p;
}

/** Renders the claims not rendered yet, then tells the listeners (who render their preview again). */
async function renderMissing(claims: readonly Claim[]): Promise<void> {
  const byModule = new Map<string, Claim[]>();
  for (const c of claims) {
    const key = keyOf(c);
    if (done.has(key) || asked.has(key)) continue;
    asked.add(key);
    byModule.set(c.uid, [...(byModule.get(c.uid) ?? []), c]);
  }
  if (!byModule.size) return;
  const clean = await sanitizer();
  await Promise.all([...byModule].map(async ([uid, list]) => {
    const entry = pageMarkdownModules().find((e) => e.uid === uid);
    const module = entry ? await half(entry) : null;
    if (!module) return;
    try {
      const html = await module.markdown(list.map((c) => ({ kind: c.kind, src: c.src })));
      list.forEach((c, i) => { if (typeof html[i] === 'string') done.set(keyOf(c), clean(html[i])); });
    } catch {
      // The preview keeps showing the source of what the module could not render.
    }
  }));
  for (const listener of listeners) listener();
}

/** Called when more of the modules' output is ready; returns the unsubscribe. */
export function onModuleMarkdown(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * `renderMarkdown` with the page's markdown modules: what they rendered already is in place, the
 * rest shows its source until their browser half answers (then `onModuleMarkdown` listeners run).
 */
export function renderWithPageModules(source: string): Rendered {
  const extensions = pageMarkdownModules();
  if (!extensions.length) return renderMarkdown(source);
  const rendered = renderMarkdown(source, { extensions });
  if (!rendered.claims.length) return rendered;
  if (rendered.claims.some((c) => !done.has(keyOf(c)))) void renderMissing(rendered.claims);
  return { ...rendered, html: applyClaims(rendered.html, rendered.claims, rendered.claims.map((c) => done.get(keyOf(c)) ?? null)) };
}
