// The small card a member's name opens anywhere (forum, docs, market): nickname, avatar, motto,
// join date, posts and answers, "Send message" when the viewer may write to them. Loaded on the
// first click of a `/user/card/{id}` link; modified clicks (new tab) keep the link's own behaviour.
import { request } from './api';
import { pageLocale } from '../i18n/client';
import zh from '../i18n/zh-cn/messages';
import en from '../i18n/en/messages';
import { interpolate } from '../i18n/types';

interface Card { id: number; nickname: string; avatar: string; motto: string; join_time: number; join_date: string; posts: number; answers: number; can_message: boolean; blocked: boolean }

const STYLE = `.ucard{position:absolute;z-index:2100;padding:1rem;box-shadow:0 8px 24px rgba(0,0,0,.15);display:flex;flex-direction:column;gap:.5rem}
.ucard-head{display:flex;gap:.75rem;align-items:center;padding-right:1.5rem}.ucard-head .avatar{width:2.5rem;height:2.5rem;flex:none}
.ucard-head strong{overflow-wrap:anywhere}.ucard p{margin:0}.ucard-motto{overflow-wrap:anywhere}.ucard .small{font-size:.85rem}
.ucard-actions{display:flex;flex-wrap:wrap;gap:.5rem}.ucard-close{position:absolute;top:.35rem;right:.5rem;background:none;border:0;font-size:1.25rem;line-height:1;cursor:pointer;color:var(--muted)}`;

function ensureStyle(): void {
  if (document.getElementById('ucard-style')) return;
  const style = document.createElement('style');
  style.id = 'ucard-style';
  style.textContent = STYLE;
  document.head.append(style);
}

let open: { box: HTMLElement; link: HTMLElement; close: () => void } | null = null;

function t(key: keyof typeof zh, values?: Record<string, string | number>): string {
  return interpolate((pageLocale() === 'en' ? en : zh)[key], values);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text = ''): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function place(box: HTMLElement, link: HTMLElement): void {
  const r = link.getBoundingClientRect();
  const width = Math.min(288, document.documentElement.clientWidth - 16);
  box.style.width = `${width}px`;
  box.style.left = `${Math.max(8, Math.min(r.left + scrollX, scrollX + document.documentElement.clientWidth - width - 8))}px`;
  box.style.top = `${r.bottom + scrollY + 6}px`;
}

function fill(box: HTMLElement, card: Card, link: HTMLAnchorElement): void {
  box.replaceChildren();
  box.setAttribute('aria-label', card.nickname);
  const head = el('div', { class: 'ucard-head' });
  const avatar = el('span', { class: 'avatar', 'aria-hidden': 'true' });
  if (card.avatar) avatar.append(el('img', { src: card.avatar, alt: '' }));
  else avatar.textContent = [...card.nickname][0]?.toUpperCase() ?? '?';
  const who = el('div');
  who.append(el('strong', {}, card.nickname), el('div', { class: 'muted small' }, t('messages.card.joined', { date: card.join_date })));
  head.append(avatar, who);
  box.append(head);
  if (card.motto) box.append(el('p', { class: 'ucard-motto' }, card.motto));
  const stats = el('p', { class: 'muted small' }, `${t('messages.card.posts')} ${card.posts} · ${t('messages.card.answers')} ${card.answers}`);
  box.append(stats);
  const actions = el('div', { class: 'ucard-actions' });
  actions.append(el('a', { class: 'btn', href: link.href }, t('messages.card.profile')));
  const target = `/user/messageCenter?tab=private&user=${card.id}`;
  const me = document.querySelector('.user-box');
  if (card.can_message) actions.append(el('a', { class: 'btn btn-primary', href: target }, t('messages.sendMessage')));
  else if (!me) actions.append(el('a', { class: 'btn btn-primary', href: `/user/login?to=${encodeURIComponent(target)}` }, t('messages.sendMessage')));
  box.append(actions);
}

function close(): void {
  if (!open) return;
  const { box, link, close: detach } = open;
  open = null;
  detach();
  box.remove();
  link.focus();
}

/** Opens the card for a `/user/card/{id}` link. */
export async function openUserCard(link: HTMLAnchorElement, id: number): Promise<void> {
  if (open?.link === link) { close(); return; }
  close();
  ensureStyle();
  const box = el('div', { class: 'card ucard', role: 'dialog', tabindex: '-1', 'aria-busy': 'true' });
  box.append(el('p', { class: 'muted' }, t('messages.card.loading')));
  const closeBtn = el('button', { type: 'button', class: 'ucard-close', 'aria-label': t('messages.card.close') }, '×');
  document.body.append(box);
  place(box, link);
  const onKey = (e: KeyboardEvent): void => { if (e.key === 'Escape') close(); };
  const onDown = (e: MouseEvent): void => { if (!box.contains(e.target as Node) && e.target !== link && !link.contains(e.target as Node)) close(); };
  document.addEventListener('keydown', onKey);
  document.addEventListener('mousedown', onDown);
  addEventListener('astro:before-swap', close, { once: true });
  open = { box, link, close: () => { document.removeEventListener('keydown', onKey); document.removeEventListener('mousedown', onDown); } };
  try {
    const reply = await request<Card>('/api/interaction/userCard', { params: { user_id: id } });
    if (open?.box !== box) return;
    fill(box, reply.data, link);
  } catch {
    if (open?.box === box) close();
    return;
  }
  box.prepend(closeBtn);
  closeBtn.addEventListener('click', close);
  box.removeAttribute('aria-busy');
  box.focus();
}
