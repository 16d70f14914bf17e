// Notifications (spec §3, §4, §9): visible on creation, auto-close after `duration` (default
// 4500 ms, 0 keeps it), paused while hovered or while Delete/Backspace is held, Escape closes the
// newest, stacked per corner with 16 px gaps and re-flowed on close, base z-index 2000.
import { tc } from '../i18n/client';

export type NotifyType = 'success' | 'info' | 'warning' | 'error';
export type NotifyPosition = 'top-right' | 'top-left' | 'bottom-right' | 'bottom-left';

export interface NotifyOptions {
  message: string;
  title?: string;
  type?: NotifyType;
  duration?: number;
  position?: NotifyPosition;
  /** Distance in px from the top or bottom edge of the window for the first notification. */
  offset?: number;
  showClose?: boolean;
  customClass?: string;
  onClose?: () => void;
}

export interface NotifyHandle {
  close(): void;
  readonly element: HTMLElement;
}

export const DEFAULT_DURATION = 4500;
export const GAP = 16;
export const BASE_Z_INDEX = 2000;

interface Item { el: HTMLElement; position: NotifyPosition; offset: number; close: () => void }
const stacks: Record<NotifyPosition, Item[]> = { 'top-right': [], 'top-left': [], 'bottom-right': [], 'bottom-left': [] };
let zIndex = BASE_Z_INDEX;
let keyListening = false;

function reflow(position: NotifyPosition): void {
  const vertical = position.startsWith('top') ? 'top' : 'bottom';
  let offset = stacks[position][0]?.offset ?? GAP;
  for (const item of stacks[position]) {
    item.el.style[vertical] = `${offset}px`;
    offset += item.el.getBoundingClientRect().height + GAP;
  }
}

function newest(): Item | undefined {
  return Object.values(stacks).flat().sort((a, b) => Number(b.el.style.zIndex) - Number(a.el.style.zIndex))[0];
}

function listenKeys(): void {
  if (keyListening) return;
  keyListening = true;
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') newest()?.close();
  });
}

const ICONS: Record<NotifyType, string> = { success: '✓', info: 'i', warning: '!', error: '×' };

/** Shows a notification and returns a handle to close it early. */
export function notify(options: NotifyOptions | string): NotifyHandle {
  const opts: NotifyOptions = typeof options === 'string' ? { message: options } : options;
  const type = opts.type ?? 'info';
  const position = opts.position ?? 'top-right';
  const duration = opts.duration ?? DEFAULT_DURATION;
  const el = document.createElement('div');
  el.className = `ba-notify ba-notify--${type} ba-notify--${position}${opts.customClass ? ` ${opts.customClass}` : ''}`;
  // Errors and warnings interrupt a screen reader; the others wait their turn.
  el.setAttribute('role', type === 'error' || type === 'warning' ? 'alert' : 'status');
  el.setAttribute('aria-live', type === 'error' || type === 'warning' ? 'assertive' : 'polite');
  el.style.zIndex = String(zIndex++);
  el.style[position.endsWith('right') ? 'right' : 'left'] = `${GAP}px`;
  const icon = document.createElement('span');
  icon.className = 'ba-notify__icon';
  icon.setAttribute('aria-hidden', 'true');
  icon.textContent = ICONS[type];
  const group = document.createElement('div');
  group.className = 'ba-notify__group';
  if (opts.title) {
    const title = document.createElement('h2');
    title.className = 'ba-notify__title';
    title.textContent = opts.title;
    group.append(title);
  }
  const message = document.createElement('div');
  message.className = 'ba-notify__content';
  message.textContent = opts.message;
  group.append(message);
  el.append(icon, group);

  let timer: ReturnType<typeof setTimeout> | undefined;
  let remaining = duration;
  let startedAt = 0;
  let closed = false;
  const stop = (): void => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    remaining -= Date.now() - startedAt;
  };
  const start = (): void => {
    if (closed || duration <= 0 || timer !== undefined) return;
    startedAt = Date.now();
    timer = setTimeout(close, Math.max(remaining, 0));
  };
  function close(): void {
    if (closed) return;
    closed = true;
    stop();
    const stack = stacks[position];
    stack.splice(stack.findIndex((i) => i.el === el), 1);
    el.remove();
    document.removeEventListener('keydown', onKeyDown);
    document.removeEventListener('keyup', onKeyUp);
    reflow(position);
    opts.onClose?.();
  }
  // Holding Delete or Backspace (e.g. while correcting a field) keeps the message on screen.
  const onKeyDown = (e: KeyboardEvent): void => { if (e.key === 'Delete' || e.key === 'Backspace') stop(); };
  const onKeyUp = (e: KeyboardEvent): void => { if (e.key === 'Delete' || e.key === 'Backspace') start(); };
  document.addEventListener('keydown', onKeyDown);
  document.addEventListener('keyup', onKeyUp);
  el.addEventListener('mouseenter', stop);
  el.addEventListener('mouseleave', start);
  el.addEventListener('focusin', stop);
  el.addEventListener('focusout', start);

  if (opts.showClose !== false) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'ba-notify__close';
    button.setAttribute('aria-label', tc('notify.close'));
    button.textContent = '×';
    button.addEventListener('click', close);
    el.append(button);
  }
  const item: Item = { el, position, offset: opts.offset ?? GAP, close };
  stacks[position].push(item);
  document.body.append(el);
  reflow(position);
  listenKeys();
  start();
  return { close, element: el };
}
