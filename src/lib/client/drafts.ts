// Drafts of what members type in the markdown editor, kept in localStorage under
// `atrium-draft:<key>`. The site owns them (not the editor module), so a form can forget its draft
// after a submit, the docs editor can ask whether one is kept, and nothing typed is lost when the
// editor module is uninstalled, fails to load or is replaced by a newer version. The editor module
// reads and writes them through the client SDK (`@atrium/client`).

const DRAFT_PREFIX = 'atrium-draft:';
const DRAFT_DELAY = 800;
/** A draft older than this is a leftover, not work in progress. */
export const DRAFT_MAX_AGE = 30 * 24 * 3600 * 1000;

interface PendingDraft {
  timer: ReturnType<typeof setTimeout>;
  value: string;
  initial: string;
}

/** Saves waiting out the debounce, by draft key: clearDraft() must be able to cancel them. */
const pendingDrafts = new Map<string, PendingDraft>();

/** The saved draft (`v` its text, `t` when it was saved), or null. */
export function readDraft(key: string): { v: string; t: number } | null {
  try {
    const raw = localStorage.getItem(DRAFT_PREFIX + key);
    if (!raw) return null;
    const draft = JSON.parse(raw) as { v?: unknown; t?: unknown } | null;
    return typeof draft?.v === 'string' && typeof draft.t === 'number' ? { v: draft.v, t: draft.t } : null;
  } catch {
    return null;
  }
}

export function removeDraft(key: string): void {
  try { localStorage.removeItem(DRAFT_PREFIX + key); } catch { /* storage blocked: nothing was saved */ }
}

/** Writes a save still waiting out its debounce now (the page is going away). */
export function flushDraft(key: string): void {
  const pending = pendingDrafts.get(key);
  if (!pending) return;
  clearTimeout(pending.timer);
  pendingDrafts.delete(key);
  if (pending.value === pending.initial || !/\S/.test(pending.value)) return removeDraft(key);
  try {
    localStorage.setItem(DRAFT_PREFIX + key, JSON.stringify({ v: pending.value, t: Date.now() }));
  } catch { /* storage full or blocked: the text is still in the form */ }
}

/** Saves `value` after a pause in typing; a text equal to the one the form started with removes the draft. */
export function scheduleDraft(key: string, value: string, initial: string): void {
  const previous = pendingDrafts.get(key);
  if (previous) clearTimeout(previous.timer);
  pendingDrafts.set(key, { value, initial, timer: setTimeout(() => flushDraft(key), DRAFT_DELAY) });
}

/** Whether a draft is kept (or about to be) under this key. */
export function hasDraft(draftKey: string): boolean {
  return pendingDrafts.has(draftKey) || readDraft(draftKey) !== null;
}

/** Forgets the saved draft (and any save still waiting); call it after a successful submit. */
export function clearDraft(draftKey: string): void {
  const pending = pendingDrafts.get(draftKey);
  if (pending) clearTimeout(pending.timer);
  pendingDrafts.delete(draftKey);
  removeDraft(draftKey);
}
