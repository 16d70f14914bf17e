// The script every page loads: theme and language switches, the navigation progress bar,
// new-deployment detection and `window.Atrium` for modules. No framework code.
import { setDark, isDark, setLanguage } from './preferences';
import { finishProgress, startProgress } from './progress';
import { watchDeployments } from './deploy-watch';
import { takeCarriedNote } from './carried-note';
import { clearLegacyTokens } from './auth-token';
import type { NotifyOptions, NotifyHandle } from './notify';

declare global {
  interface Window {
    Atrium: { notify(options: NotifyOptions | string): Promise<NotifyHandle> };
  }
}

// Tokens an older release left in localStorage: the HttpOnly cookies carry the session now.
clearLegacyTokens();

window.Atrium = {
  // The notification code loads on first use: most visits never show one.
  notify: (options) => import('./notify').then((m) => m.notify(options)),
};

// A message the previous page handed over as it navigated here (a redirect's reason, spec §4).
const carried = takeCarriedNote();
if (carried) void window.Atrium.notify(carried);

// Member names and avatars (links to /user/card/{id}) open the small user card; modified clicks open the page.
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = (event.target as HTMLElement | null)?.closest<HTMLAnchorElement>('a[href]');
  const id = link && !link.closest('.ucard') ? /^\/user\/card\/(\d{1,10})$/.exec(new URL(link.href, location.href).pathname)?.[1] : undefined;
  if (!link || !id || location.pathname.startsWith('/user/card/')) return;
  event.preventDefault();
  void import('./user-card').then((m) => m.openUserCard(link, Number(id)));
}, true);

document.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement | null)?.closest<HTMLElement>('[data-action]');
  if (!target) return;
  if (target.dataset.action === 'toggle-theme') {
    setDark(!isDark());
    target.setAttribute('aria-pressed', String(isDark()));
  } else if (target.dataset.action === 'set-language' && target.dataset.locale) {
    setLanguage(target.dataset.locale);
  } else if (target.dataset.action === 'logout') {
    void import('./session').then((m) => m.logout());
  }
});

document.addEventListener('astro:before-preparation', startProgress);

// An import map (what module code imports from the page: React, the client SDK; Base.astro) takes
// effect only in a document parsed with it, never in one the in-app router swaps in: a page whose
// import map is not this one's is loaded whole instead.
const importMapOf = (doc: Document): string => doc.querySelector('script[type="importmap"]')?.textContent ?? '';
document.addEventListener('astro:before-preparation', (event) => {
  const e = event as Event & { to: URL; newDocument: Document; loader: () => Promise<void> };
  const load = e.loader;
  e.loader = async () => {
    await load();
    const next = importMapOf(e.newDocument);
    if (!next || next === importMapOf(document)) return;
    location.assign(e.to.href);
    // The page is going away: the swap never comes.
    await new Promise<never>(() => undefined);
  };
});
document.addEventListener('astro:after-swap', finishProgress);
document.addEventListener('astro:page-load', finishProgress);

const meta = (name: string): string => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
const build = meta('atrium-build');
const poll = Number(meta('atrium-deploy-poll') || 60);
if (build && build !== 'dev') watchDeployments(build, Number.isFinite(poll) ? poll : 60);
