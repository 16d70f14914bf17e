// The post page's buttons without a framework: votes, collections, acceptance, reports, comments,
// deletion and moderation. Every call goes through the request layer; errors are shown there.
import { request } from './api';
import { formNonce } from './nonce';

function targetOf(el: Element): { type: 'post' | 'reply'; id: number } | null {
  const box = el.closest<HTMLElement>('[data-target]');
  if (!box) return null;
  return { type: box.dataset.target as 'post' | 'reply', id: Number(box.dataset.id) };
}

function postId(): number {
  return Number(document.querySelector<HTMLElement>('[data-post]')?.dataset.post ?? 0);
}

/** Reloads the page at an anchor, so the server renders the new state (the page cache was invalidated). */
function reloadAt(hash: string): void {
  const url = new URL(location.href);
  url.hash = hash;
  if (url.href === location.href) location.reload();
  else { location.assign(url.href); location.reload(); }
}

async function onClick(event: MouseEvent): Promise<void> {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-ask]');
  if (!button || button.disabled) return;
  const action = button.dataset.ask;
  const target = targetOf(button);
  if (!target) return;
  if (action === 'remove' && !confirm(button.dataset.confirm ?? '')) return;
  button.disabled = true;
  try {
    if (action === 'vote') {
      const value = Number(button.dataset.value);
      const { data } = await request<{ my_vote: number; score: number }>('/api/ask/vote', { method: 'POST', data: { type: target.type, id: target.id, value } });
      const box = button.closest('[data-target]')!;
      box.querySelector('[data-score]')!.textContent = String(data.score);
      for (const b of box.querySelectorAll<HTMLButtonElement>(':scope > button[data-ask="vote"]')) {
        b.setAttribute('aria-pressed', String(Number(b.dataset.value) === data.my_vote));
      }
    } else if (action === 'collect') {
      const { data } = await request<{ collected: boolean; count: number }>('/api/ask/collect', { method: 'POST', data: { post_id: target.id }, showSuccessMessage: true });
      button.setAttribute('aria-pressed', String(data.collected));
      button.textContent = (data.collected ? button.dataset.on : button.dataset.off) ?? '';
      const count = document.querySelector('[data-collect-count]');
      if (count) count.textContent = count.textContent!.replace(/\d+/, String(data.count));
    } else if (action === 'accept') {
      await request('/api/ask/accept', { method: 'POST', data: { reply_id: target.id }, showSuccessMessage: true });
      reloadAt(`reply-${target.id}`);
    } else if (action === 'remove') {
      await request('/api/ask/remove', { method: 'POST', data: target, showSuccessMessage: true });
      if (target.type === 'post') location.reload(); else reloadAt('replies-title');
    }
  } catch {
    // The request layer already told the user what went wrong.
  } finally {
    button.disabled = false;
  }
}

async function onSubmit(event: SubmitEvent): Promise<void> {
  const form = (event.target as Element).closest<HTMLFormElement>('form[data-ask]');
  if (!form) return;
  event.preventDefault();
  const submitter = event.submitter as HTMLButtonElement | null;
  const fields = new FormData(form);
  const kind = form.dataset.ask;
  for (const el of form.querySelectorAll('button')) el.disabled = true;
  try {
    if (kind === 'report') {
      const target = targetOf(form)!;
      const reply = await request('/api/ask/report', { method: 'POST', data: { ...target, reason: String(fields.get('reason') ?? '') }, showSuccessMessage: true });
      form.reset();
      // The reader stays where they were: the form folds away and its line says the report was sent.
      const details = form.closest('details');
      details?.removeAttribute('open');
      const status = details?.parentElement?.querySelector<HTMLElement>('[data-report-status]');
      if (status) status.textContent = reply.msg;
    } else if (kind === 'comment') {
      const parent = Number(form.dataset.parent);
      await request('/api/ask/reply', { method: 'POST', data: { post_id: postId(), parent_id: parent, content: String(fields.get('content') ?? ''), nonce: form.dataset.nonce ??= formNonce() }, showSuccessMessage: true });
      reloadAt(`reply-${parent}`);
    } else if (kind === 'moderate') {
      const action = submitter?.value ?? '';
      const data: Record<string, unknown> = { post_id: postId(), action };
      if (action === 'move') data.category_id = Number(fields.get('category_id'));
      await request('/api/ask/moderate', { method: 'POST', data, showSuccessMessage: true });
      location.reload();
    }
  } catch {
    // Shown by the request layer; what was typed stays in the form.
  } finally {
    for (const el of form.querySelectorAll('button')) el.disabled = false;
  }
}

document.addEventListener('click', (e) => { void onClick(e); });
// Capture phase: ahead of the client router, which would otherwise turn the form into a page
// navigation carrying its fields (a report went to `?reason=…`).
document.addEventListener('submit', (e) => { void onSubmit(e); }, true);
// One view per reader and post; the server counts it at most every 30 minutes. `astro:page-load`
// also fires after client-side navigations, where this module does not run again.
document.addEventListener('astro:page-load', () => {
  if (postId()) void request('/api/ask/view', { method: 'POST', data: { post_id: postId() }, showErrorMessage: false }).catch(() => undefined);
});
