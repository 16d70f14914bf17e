// A notification that travels with a full-page navigation (spec §4: a redirect's message is shown
// unless the reader is already on the target route). Shown before `location.assign`, it would die
// with the page it was on; it is kept in sessionStorage and shown by the next page's boot script.
import type { NotifyOptions } from './notify';

const KEY = 'atrium-carried-note';

type Note = Pick<NotifyOptions, 'message' | 'type' | 'title'>;

/** Keeps `note` for the next page of this tab. */
export function carryNote(note: Note): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ message: note.message, type: note.type, title: note.title }));
  } catch { /* storage refused: the navigation still happens, without the message */ }
}

/** The note carried from the previous page, once. */
export function takeCarriedNote(): Note | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (raw === null) return null;
    sessionStorage.removeItem(KEY);
    const note = JSON.parse(raw) as Partial<Note> | null;
    return note && typeof note.message === 'string' && note.message ? { message: note.message, type: note.type, title: note.title } : null;
  } catch {
    return null;
  }
}
