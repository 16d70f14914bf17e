// The loading overlay the request layer shows for calls that ask for it. It closes 400 ms after
// the last such request ends, so a burst of calls shows one overlay instead of a flicker.
import { tc } from '../i18n/client';

export const CLOSE_DELAY = 400;
let pending = 0;
let closeTimer: ReturnType<typeof setTimeout> | undefined;

function overlay(): HTMLElement {
  let el = document.getElementById('ba-loading');
  if (!el) {
    el = document.createElement('div');
    el.id = 'ba-loading';
    el.className = 'ba-loading';
    el.setAttribute('role', 'progressbar');
    el.setAttribute('aria-busy', 'true');
    el.setAttribute('aria-label', tc('loading'));
    el.innerHTML = '<span class="ba-loading__spinner" aria-hidden="true"></span>';
    document.body.append(el);
  }
  return el;
}

export function showLoading(): void {
  pending++;
  clearTimeout(closeTimer);
  overlay().hidden = false;
}

export function hideLoading(): void {
  pending = Math.max(0, pending - 1);
  if (pending > 0) return;
  clearTimeout(closeTimer);
  closeTimer = setTimeout(() => { if (pending === 0) overlay().hidden = true; }, CLOSE_DELAY);
}
