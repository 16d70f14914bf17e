// New-deployment detection (spec §4): poll the build manifest; once its id differs from the build
// this page came from, a script chunk that fails to load (a lazy import, a module script, an
// island's component) means the page is out of date, so we reload to the route the user was going
// to, at most once every 10 s.
export const RELOAD_GUARD_MS = 10_000;
const GUARD_KEY = 'ba-reload-at';

/** True when no guarded reload happened within the guard time. */
export function mayReload(now: number, lastReloadAt: number | null, guard = RELOAD_GUARD_MS): boolean {
  return lastReloadAt === null || !Number.isFinite(lastReloadAt) || now - lastReloadAt >= guard || now < lastReloadAt;
}

/** Messages browsers use for a dynamic import or module script that could not be fetched. */
export function isChunkLoadError(reason: unknown): boolean {
  const message = reason instanceof Error ? reason.message : String(reason ?? '');
  return /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i.test(message);
}

export function watchDeployments(currentId: string, pollSeconds: number): void {
  let latest = currentId;
  let target: string | null = null;

  const check = async (): Promise<string> => {
    try {
      const res = await fetch(`/build-manifest.json?t=${Date.now()}`, { cache: 'no-store' });
      if (res.ok) latest = ((await res.json()) as { id: string }).id || latest;
    } catch { /* offline: try again next time */ }
    return latest;
  };

  const reloadIfStale = async (): Promise<void> => {
    if ((await check()) === currentId) return;
    const last = Number(sessionStorage.getItem(GUARD_KEY) ?? NaN);
    if (!mayReload(Date.now(), Number.isNaN(last) ? null : last)) return;
    sessionStorage.setItem(GUARD_KEY, String(Date.now()));
    location.assign(target ?? location.href);
  };

  document.addEventListener('astro:before-preparation', (e) => {
    target = (e as Event & { to?: URL }).to?.href ?? null;
  });
  window.addEventListener('error', (e) => {
    const el = e.target as HTMLElement | null;
    if (el && (el.tagName === 'SCRIPT' || (el.tagName === 'LINK' && (el as HTMLLinkElement).rel === 'modulepreload'))) void reloadIfStale();
  }, true);
  window.addEventListener('unhandledrejection', (e) => { if (isChunkLoadError(e.reason)) void reloadIfStale(); });
  window.addEventListener('vite:preloadError', (e) => { e.preventDefault(); void reloadIfStale(); });
  // An island whose code could not be imported (Astro retries once, then reports it on the island
  // and leaves the server-rendered HTML without its script): the same as a failed lazy import.
  document.addEventListener('astro:hydration-error', () => { void reloadIfStale(); });

  if (pollSeconds > 0) {
    setInterval(() => { if (document.visibilityState === 'visible') void check(); }, pollSeconds * 1000);
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') void check(); });
  }
}
