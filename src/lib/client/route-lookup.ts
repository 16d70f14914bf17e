// The route rule lookup followed (spec §4, §7): on a page not found, the client asks
// GET /api/index/route whether a rule of the visitor's tree holds this path with a redirect; an
// http(s) target is a full page load, an app path an in-app navigation by the client router.
import { navigate } from 'astro:transitions/client';
import { request } from './api';

async function follow(): Promise<void> {
  if (!document.querySelector('[data-route-lookup]')) return;
  try {
    const reply = await request<{ redirect: string }>('/api/index/route', { params: { path: location.pathname }, showErrorMessage: false });
    const to = reply.data?.redirect ?? '';
    if (/^https?:\/\//i.test(to)) location.replace(to);
    else if (to.startsWith('/') && !to.startsWith('//') && to !== location.pathname) await navigate(to, { history: 'replace' });
  } catch {
    // No rule for this path: the page says it was not found, as it does.
  }
}

// Once per page shown: the module may first run after the router swapped this page in (its
// page-load event then already fired) or before the first page-load event.
let handled: Document | null = null;
const run = (): void => {
  if (handled === document && document.documentElement.dataset.routeLookupDone === location.href) return;
  handled = document;
  document.documentElement.dataset.routeLookupDone = location.href;
  void follow();
};
run();
document.addEventListener('astro:page-load', run);
