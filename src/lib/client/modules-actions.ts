// A module page's buttons and forms without a framework: buy with balance or points (after a
// confirmation showing the price and what is left), install and
// uninstall a site module, write or edit a review, answer one. Each control is disabled while its
// request runs, so a double click sends one request; errors are written beside it (role=alert).
// After a change the page reloads, so the server renders the new state (owned, installed, …).
import { ApiError, request } from './api';
import { formNonce } from './nonce';

function say(scope: HTMLElement | null, error: string, status = ''): void {
  const alert = scope?.querySelector<HTMLElement>('[data-market-error]');
  if (alert) alert.textContent = error;
  const note = scope?.querySelector<HTMLElement>('[data-market-status]');
  if (note) note.textContent = status;
}

function setBusy(scope: HTMLElement, busy: boolean): void {
  for (const button of scope.querySelectorAll<HTMLButtonElement>('button')) button.disabled = busy;
  scope.toggleAttribute('aria-busy', busy);
}

function reloadAt(hash: string): void {
  const url = new URL(location.href);
  url.hash = hash;
  if (url.href !== location.href) history.replaceState(history.state, '', url.href);
  location.reload();
}

/** Runs one call for a scope: buttons off meanwhile, the API's message shown on failure. */
async function run(scope: HTMLElement, call: () => Promise<string>): Promise<void> {
  setBusy(scope, true);
  say(scope, '', scope.dataset.pending ?? '');
  try {
    reloadAt(await call());
  } catch (err) {
    // Login redirects are handled by the request layer; anything else is said here.
    say(scope, err instanceof ApiError ? err.message : String(err));
    setBusy(scope, false);
  }
}

async function onClick(event: MouseEvent): Promise<void> {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-market]');
  const box = button?.closest<HTMLElement>('[data-market-box]');
  if (!button || !box || button.disabled) return;
  const uid = box.dataset.uid ?? '';
  const action = button.dataset.market;
  // Buying first shows what it costs and leaves (a dialog rendered with the page); only its
  // confirm button debits.
  if (action === 'ask-buy') {
    box.querySelector<HTMLDialogElement>(`dialog[data-confirm-pay="${button.dataset.pay ?? ''}"]`)?.showModal();
    return;
  }
  const dialog = button.closest('dialog');
  dialog?.close();
  if (action === 'cancel-buy') return;
  // Uninstalling, and installing a module that asks for something (its capabilities in words), are confirmed first.
  if ((action === 'uninstall' || action === 'install') && button.dataset.confirm && !confirm(button.dataset.confirm)) return;
  await run(box, async () => {
    if (action === 'buy') {
      // One key per page view: a retry of the same click finds the order the first one paid.
      box.dataset.nonce ??= formNonce();
      await request('/api/modules/buy', { method: 'POST', data: { uid, pay_type: button.dataset.pay, nonce: box.dataset.nonce }, showErrorMessage: false });
    } else if (action === 'install' || action === 'uninstall') {
      await request(`/api/modules/${action}`, { method: 'POST', data: { uid }, showErrorMessage: false });
    }
    return 'buy';
  });
}

async function onSubmit(event: SubmitEvent): Promise<void> {
  const form = (event.target as Element).closest<HTMLFormElement>('form[data-market]');
  if (!form) return;
  event.preventDefault();
  if (form.getAttribute('aria-busy') !== null) return;
  const fields = new FormData(form);
  const content = String(fields.get('content') ?? '');
  await run(form, async () => {
    if (form.dataset.market === 'review') {
      await request('/api/modules/review', { method: 'POST', data: { uid: form.dataset.uid, rating: Number(fields.get('rating')), content }, showErrorMessage: false });
      return 'reviews';
    }
    const id = Number(form.dataset.review);
    await request('/api/modules/reviewReply', { method: 'POST', data: { review_id: id, content }, showErrorMessage: false });
    return `review-${id}`;
  });
}

document.addEventListener('click', (e) => { void onClick(e); });
// Capture phase: ahead of the client router, which would otherwise turn the form into a page
// navigation carrying its fields.
document.addEventListener('submit', (e) => { void onSubmit(e); }, true);
