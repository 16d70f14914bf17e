// Private conversations: the partner list and one conversation, live both ways. Enter sends
// (not while an IME is composing), Shift+Enter starts a new line; a failed send keeps its text
// and offers to send again.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactElement } from 'react';
import { useStore } from '@nanostores/react';
import { ApiError, request } from '../../lib/client/api';
import { $lastEvent } from '../../lib/client/stores/messages';
import { linkify, MAX_PRIVATE } from '../../lib/shared/messages';
import { SendMessageInput } from '../../lib/shared/validation/messages';
import { initial, makeT, when, type Messages } from './shared';

interface DialogMessage { id: number; sender_id: number; recipient_id: number; content: string; read: boolean; create_time: number }
interface Partner { id: number; nickname: string; avatar: string }
interface Recent { user: Partner; last: DialogMessage; unread: number }
interface DialogReply { partner: Partner & { available: boolean }; list: DialogMessage[]; more: boolean; blocked: boolean; blocked_me: boolean }
/** A message on screen: sent, or still on its way (negative local id), or failed. */
type Shown = DialogMessage & { state?: 'sending' | 'failed' };

export interface ConversationsProps { messages: Messages; me: Partner; partner: number | null; timeZone: string }

function Text({ value }: { value: string }): ReactElement {
  return <>{linkify(value).map((p, i) => (p.href ? <a key={i} href={p.href} rel="nofollow ugc noopener" target="_blank">{p.text}</a> : <span key={i}>{p.text}</span>))}</>;
}

export default function Conversations(props: ConversationsProps): ReactElement {
  const t = makeT(props.messages);
  const [recent, setRecent] = useState<Recent[] | null>(null);
  const [more, setMore] = useState(false);
  const [page, setPage] = useState(1);
  const [partnerId, setPartnerId] = useState<number | null>(props.partner);
  const event = useStore($lastEvent);

  const loadRecent = useCallback(async (p = 1): Promise<void> => {
    try {
      const r = await request<{ list: Recent[]; more: boolean }>('/api/interaction/loadMoreUserRecent', { params: { page: p }, showErrorMessage: false });
      setRecent((cur) => (p === 1 ? r.data.list : [...(cur ?? []), ...r.data.list]));
      setMore(r.data.more);
      setPage(p);
    } catch { setRecent((cur) => cur ?? []); }
  }, []);
  useEffect(() => { void loadRecent(1); }, [loadRecent]);
  useEffect(() => {
    if (event && (event.kind === 'message' || event.kind === 'sent' || event.kind === 'read') ) void loadRecent(1);
  }, [event]);

  const choose = (id: number | null): void => {
    setPartnerId(id);
    const url = new URL(location.href);
    if (id) url.searchParams.set('user', String(id)); else url.searchParams.delete('user');
    history.replaceState(history.state, '', url);
  };

  return (
    <section role="tabpanel" aria-labelledby="msg-tab-private" className={partnerId ? 'card msg-panel msg-chat has-partner' : 'card msg-panel msg-chat'}>
      <div className="msg-partners">
        <h2 className="msg-h">{t('messages.conversations')}</h2>
        {recent && recent.length === 0 && !partnerId && <p className="empty">{t('messages.empty.private')}</p>}
        <ul>
          {(recent ?? []).map((r) => (
            <li key={r.user.id}>
              <button type="button" className={r.user.id === partnerId ? 'msg-partner active' : 'msg-partner'} aria-current={r.user.id === partnerId} onClick={() => choose(r.user.id)}>
                <span className="avatar" aria-hidden="true">{r.user.avatar ? <img src={r.user.avatar} alt="" /> : initial(r.user.nickname)}</span>
                <span className="msg-partner-text">
                  <strong>{r.user.nickname}</strong>
                  <span className="muted">{r.last.content.slice(0, 60)}</span>
                </span>
                {r.unread > 0 && <span className="msg-tab-count" aria-label={t('messages.badge', { count: r.unread })}>{r.unread}</span>}
              </button>
            </li>
          ))}
        </ul>
        {more && <button type="button" className="btn" onClick={() => void loadRecent(page + 1)}>{t('messages.next')}</button>}
      </div>
      <div className="msg-dialog">
        {partnerId ? <Dialog key={partnerId} {...props} partnerId={partnerId} onBack={() => choose(null)} onOpened={() => void loadRecent(1)} /> : <p className="empty">{t('messages.noConversation')}</p>}
      </div>
    </section>
  );
}

function Dialog(props: ConversationsProps & { partnerId: number; onBack: () => void; onOpened: () => void }): ReactElement {
  const t = makeT(props.messages);
  const [info, setInfo] = useState<DialogReply | null>(null);
  const [list, setList] = useState<Shown[]>([]);
  const [more, setMore] = useState(false);
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [failed, setFailed] = useState(false);
  const event = useStore($lastEvent);
  const thread = useRef<HTMLDivElement>(null);
  // New and sent messages keep the thread at its end; loading older ones keeps the place.
  const stick = useRef(true);
  const toEnd = (): void => { stick.current = true; };
  useLayoutEffect(() => {
    const el = thread.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [list]);
  const localId = useRef(-1);

  const load = useCallback(async (before?: number): Promise<void> => {
    try {
      const r = await request<DialogReply>('/api/interaction/dialog', { params: { user_id: props.partnerId, before }, showErrorMessage: false });
      setInfo(r.data);
      setMore(r.data.more);
      const older = [...r.data.list].reverse();
      setList((cur) => (before ? [...older, ...cur] : older));
      setFailed(false);
      if (!before) { toEnd(); props.onOpened(); }
    } catch { setFailed(true); }
  }, [props.partnerId]);
  useEffect(() => { void load(); }, [load]);

  // Live: the partner's new messages, and what this member sent from another tab.
  useEffect(() => {
    const m = event?.message;
    if (!m || m.type !== 'private') return;
    const inThis = (m.sender_id === props.partnerId && m.recipient_id === props.me.id) || (m.sender_id === props.me.id && m.recipient_id === props.partnerId);
    if (!inThis) return;
    setList((cur) => (cur.some((x) => x.id === m.id) ? cur : [...cur, { id: m.id, sender_id: m.sender_id, recipient_id: m.recipient_id, content: m.content, read: false, create_time: m.create_time }]));
    toEnd();
    if (m.sender_id === props.partnerId) void request('/api/interaction/markRead', { method: 'POST', data: { ids: [m.id] }, showErrorMessage: false }).catch(() => undefined);
  }, [event]);

  const send = async (content: string, retryOf?: number): Promise<void> => {
    const check = SendMessageInput.safeParse({ user_id: props.partnerId, content });
    if (!check.success) {
      setError(props.messages[check.error.issues[0]?.message ?? ''] ?? t('messages.content.required'));
      return;
    }
    setError('');
    const id = retryOf ?? localId.current--;
    const now = Math.floor(Date.now() / 1000);
    setList((cur) => (retryOf ? cur.map((x) => (x.id === id ? { ...x, state: 'sending' } : x))
      : [...cur, { id, sender_id: props.me.id, recipient_id: props.partnerId, content, read: false, create_time: now, state: 'sending' }]));
    if (!retryOf) setText('');
    toEnd();
    try {
      const r = await request<DialogMessage>('/api/interaction/sendMessage', { method: 'POST', data: { user_id: props.partnerId, content } });
      // The stream may have brought it already.
      setList((cur) => (cur.some((x) => x.id === r.data.id) ? cur.filter((x) => x.id !== id) : cur.map((x) => (x.id === id ? r.data : x))));
    } catch (err) {
      setList((cur) => cur.map((x) => (x.id === id ? { ...x, state: 'failed' } : x)));
      if (err instanceof ApiError && err.status < 500 && err.code === 0) setError(err.message);
    }
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (e.key !== 'Enter' || e.shiftKey || e.nativeEvent.isComposing || e.keyCode === 229) return;
    e.preventDefault();
    if (text.trim()) void send(text);
  };

  const toggleBlock = async (): Promise<void> => {
    if (!info) return;
    try {
      await request('/api/interaction/block', { method: 'POST', data: { user_id: props.partnerId, block: !info.blocked }, showSuccessMessage: true });
      setInfo({ ...info, blocked: !info.blocked });
    } catch { /* shown */ }
  };

  const name = info?.partner.nickname ?? '';
  const canWrite = !!info && info.partner.available && !info.blocked_me;
  return (
    <>
      <header className="msg-dialog-head">
        <button type="button" className="btn msg-back" onClick={props.onBack} aria-label={t('messages.back')}>‹</button>
        <h2 className="msg-h">{name && t('messages.conversationWith', { name })}</h2>
        {info && <button type="button" className="btn" onClick={() => void toggleBlock()}>{info.blocked ? t('messages.unblock') : t('messages.block')}</button>}
      </header>
      {failed && <p role="alert">{t('messages.loadFailed')} <button type="button" className="btn" onClick={() => void load()}>{t('messages.retry')}</button></p>}
      <div className="msg-thread" aria-live="polite" ref={thread}>
        {more && <button type="button" className="btn msg-older" onClick={() => { stick.current = false; void load(list.find((m) => m.id > 0)?.id); }}>{t('messages.older')}</button>}
        {list.map((m) => {
          const mine = m.sender_id === props.me.id;
          return (
            <div key={m.id} className={mine ? 'msg-bubble mine' : 'msg-bubble'} data-state={m.state ?? 'sent'}>
              <div className="msg-bubble-text"><Text value={m.content} /></div>
              <div className="msg-bubble-meta muted">
                {mine ? t('messages.you') : name} · {when(m.create_time, props.timeZone)}
                {m.state === 'sending' && <> · {t('messages.sending')}</>}
                {m.state === 'failed' && <> · <span className="msg-failed">{t('messages.sendFailed')}</span> <button type="button" className="btn" onClick={() => void send(m.content, m.id)}>{t('messages.resend')}</button></>}
              </div>
            </div>
          );
        })}
      </div>
      {info?.blocked && <p className="muted">{t('messages.blockedNote')}</p>}
      {info?.blocked_me && <p className="muted">{t('messages.blockedMeNote')}</p>}
      {canWrite && (
        <form method="post" className="msg-compose" onSubmit={(e) => { e.preventDefault(); if (text.trim()) void send(text); }}>
          <label className="msg-sr" htmlFor="msg-compose-text">{t('messages.compose')}</label>
          <textarea id="msg-compose-text" name="content" rows={2} maxLength={MAX_PRIVATE * 2} value={text} placeholder={t('messages.compose')}
            aria-describedby="msg-compose-hint" aria-invalid={!!error} onChange={(e) => setText(e.currentTarget.value)} onKeyDown={onKey} />
          <button type="submit" className="btn btn-primary">{t('messages.send')}</button>
          <small id="msg-compose-hint" className="muted">{error ? <span role="alert" className="msg-failed">{error}</span> : t('messages.composeHint')}</small>
        </form>
      )}
    </>
  );
}
