// The member's unread count, shared by the header badge and the message center, and the live
// message events one browser receives (see ../message-live.ts).
import { atom } from 'nanostores';

export const $unread = atom<number>(0);

export interface LiveMessage {
  id: number; type: string; sender_id: number; recipient_id: number; title: string; summary: string;
  link: string; content: string; group_count: number; create_time: number;
}
/** One event of the stream: a new message (`message`), one the member sent (`sent`), `read` or `delete`. */
export interface MessageEvent { kind: 'message' | 'sent' | 'read' | 'delete' | 'count'; id: number; count?: number; message?: LiveMessage; ids?: number[]; partner?: number }

/** The latest event, for views that follow the conversation or the list. */
export const $lastEvent = atom<MessageEvent | null>(null);

export function setUnread(count: number): void {
  if (Number.isFinite(count) && count >= 0 && count !== $unread.get()) $unread.set(count);
}

export function pushEvent(event: MessageEvent): void {
  if (typeof event.count === 'number') setUnread(event.count);
  if (event.kind !== 'count') $lastEvent.set(event);
}
