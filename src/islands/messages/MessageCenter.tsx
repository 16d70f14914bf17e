// The message center (`/user/messageCenter`): tabs by kind with unread counts, the list with
// pagination, mark read on open, mark all read, delete with undo, empty states per tab, the
// private conversations and the e-mail preferences. New messages appear live.
import { useCallback, useEffect, useRef, useState, type ReactElement } from 'react';
import { useStore } from '@nanostores/react';
import { request } from '../../lib/client/api';
import { $lastEvent } from '../../lib/client/stores/messages';
import { MAIL_KINDS, MESSAGE_TABS, type MessageTab } from '../../lib/shared/messages';
import Conversations from './Conversations';
import { initial, makeT, when, type Messages } from './shared';
import './messages.css';

interface Item {
  id: number; type: string; tab: string; sender: { id: number; nickname: string; avatar: string } | null;
  action: string; title: string; summary: string; link: string; read: boolean; create_time: number;
}
interface ListReply { list: Item[]; total: number; page: number; page_size: number; unread: Record<MessageTab, number> }
type View = MessageTab | 'settings';

export interface MessageCenterProps {
  messages: Messages;
  tab: View;
  partner: number | null;
  me: { id: number; nickname: string; avatar: string };
  timeZone: string;
  mailDelay: number;
  hasEmail: boolean;
}

const UNDO_MS = 5000;

export default function MessageCenter(props: MessageCenterProps): ReactElement {
  const t = makeT(props.messages);
  const [view, setView] = useState<View>(props.tab);
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [page, setPage] = useState(1);
  const [data, setData] = useState<ListReply | null>(null);
  const [failed, setFailed] = useState(false);
  const [pendingDelete, setPendingDelete] = useState<{ ids: number[]; timer: ReturnType<typeof setTimeout> } | null>(null);
  const event = useStore($lastEvent);
  const seq = useRef(0);

  const load = useCallback(async (): Promise<void> => {
    const mine = ++seq.current;
    const listTab: MessageTab = view === 'settings' || view === 'private' ? 'all' : view;
    try {
      const reply = await request<ListReply>('/api/interaction/messageList', { params: { tab: listTab, unread: unreadOnly ? 1 : undefined, page }, showErrorMessage: false });
      if (mine === seq.current) { setData(reply.data); setFailed(false); }
    } catch {
      if (mine === seq.current) setFailed(true);
    }
  }, [view, unreadOnly, page]);

  useEffect(() => { void load(); }, [load]);

  // Live: new messages reload the first page; reads and deletes from other tabs update in place.
  useEffect(() => {
    if (!event) return;
    if (event.kind === 'message' && page === 1) void load();
    else if (event.kind === 'read' || event.kind === 'delete') void load();
  }, [event]);

  const go = (next: View): void => {
    setView(next);
    setPage(1);
    const url = new URL(location.href);
    url.searchParams.set('tab', next);
    if (next !== 'private') url.searchParams.delete('user');
    history.replaceState(history.state, '', url);
  };

  const markRead = async (ids: number[]): Promise<void> => {
    try {
      await request('/api/interaction/markRead', { method: 'POST', data: { ids } });
      setData((d) => d && { ...d, list: d.list.map((m) => (ids.includes(m.id) ? { ...m, read: true } : m)) });
    } catch { /* shown by the request layer */ }
  };

  const markAll = async (): Promise<void> => {
    const tab: MessageTab = view === 'settings' ? 'all' : view;
    try {
      await request('/api/interaction/markRead', { method: 'POST', data: { all: true, tab } });
      await load();
    } catch { /* shown */ }
  };

  const open = async (m: Item): Promise<void> => {
    if (!m.read) await markRead([m.id]).catch(() => undefined);
    if (m.link) location.assign(m.link);
  };

  // Deleting waits a few seconds so it can be undone; only then is the call made.
  const commitDelete = async (ids: number[]): Promise<void> => {
    try { await request('/api/interaction/delMessage', { method: 'POST', data: { ids } }); } catch { /* shown */ }
    await load();
  };
  const remove = (ids: number[]): void => {
    if (pendingDelete) { clearTimeout(pendingDelete.timer); void commitDelete(pendingDelete.ids); }
    const timer = setTimeout(() => { setPendingDelete(null); void commitDelete(ids); }, UNDO_MS);
    setPendingDelete({ ids, timer });
  };
  const undo = (): void => {
    if (!pendingDelete) return;
    clearTimeout(pendingDelete.timer);
    setPendingDelete(null);
  };
  useEffect(() => () => { if (pendingDelete) { clearTimeout(pendingDelete.timer); void commitDelete(pendingDelete.ids); } }, []);

  const unread = data?.unread;
  const hidden = new Set(pendingDelete?.ids ?? []);
  const list = (data?.list ?? []).filter((m) => !hidden.has(m.id));
  const pages = data ? Math.max(1, Math.ceil(data.total / data.page_size)) : 1;
  const tabs: View[] = [...MESSAGE_TABS, 'settings'];

  return (
    <div className="msg-center">
      <div className="msg-tabs" role="tablist" aria-label={t('messages.tabs')}>
        {tabs.map((tab) => (
          <button key={tab} type="button" role="tab" id={`msg-tab-${tab}`} aria-selected={view === tab} className={view === tab ? 'msg-tab active' : 'msg-tab'} onClick={() => go(tab)}>
            {tab === 'settings' ? t('messages.prefs.title') : t(`messages.tab.${tab}`)}
            {tab !== 'settings' && !!unread?.[tab] && <span className="msg-tab-count">{unread[tab] > 99 ? '99+' : unread[tab]}</span>}
          </button>
        ))}
      </div>

      {view === 'private' && <Conversations messages={props.messages} me={props.me} partner={props.partner} timeZone={props.timeZone} />}
      {view === 'settings' && <MailPrefs messages={props.messages} mailDelay={props.mailDelay} hasEmail={props.hasEmail} />}

      {view !== 'private' && view !== 'settings' && (
        <section role="tabpanel" aria-labelledby={`msg-tab-${view}`} className="card msg-panel">
          <div className="msg-toolbar">
            <label className="msg-check"><input type="checkbox" checked={unreadOnly} onChange={(e) => { setUnreadOnly(e.currentTarget.checked); setPage(1); }} /> {t('messages.unreadOnly')}</label>
            <button type="button" className="btn" disabled={!unread?.[view]} onClick={() => void markAll()}>{t('messages.markAllRead')}</button>
          </div>
          {pendingDelete && (
            <div className="msg-undo" role="status">
              <span>{t('messages.deleted')}</span>
              <button type="button" className="btn" onClick={undo}>{t('messages.undo')}</button>
            </div>
          )}
          {failed && (
            <div className="empty" role="alert">
              <p>{t('messages.loadFailed')}</p>
              <button type="button" className="btn" onClick={() => void load()}>{t('messages.retry')}</button>
            </div>
          )}
          {!failed && data && list.length === 0 && (
            <p className="empty">{unreadOnly ? t('messages.empty.unread') : t(`messages.empty.${view}`)}</p>
          )}
          {list.length > 0 && (
            <ul className="msg-list">
              {list.map((m) => (
                <li key={m.id} className={m.read ? 'msg-item' : 'msg-item unread'}>
                  <span className="avatar" aria-hidden="true">{m.sender?.avatar ? <img src={m.sender.avatar} alt="" /> : initial(m.sender?.nickname ?? '!')}</span>
                  <div className="msg-body">
                    <a href={m.link || '#'} className="msg-title" onClick={(e) => { e.preventDefault(); void open(m); }}>
                      {!m.read && <span className="msg-dot" aria-label={t('messages.unread')} />}
                      {m.sender && <strong>{m.sender.nickname} </strong>}
                      <span>{m.action}</span>{m.title && <>: <span className="msg-subject">{m.title}</span></>}
                    </a>
                    {m.summary && <p className="msg-summary">{m.summary}</p>}
                    <time className="muted" dateTime={new Date(m.create_time * 1000).toISOString()}>{when(m.create_time, props.timeZone)}</time>
                  </div>
                  <div className="msg-actions">
                    {!m.read && <button type="button" className="btn" onClick={() => void markRead([m.id])}>{t('messages.markRead')}</button>}
                    {m.type !== 'private' && <button type="button" className="btn" onClick={() => remove([m.id])}>{t('messages.delete')}</button>}
                  </div>
                </li>
              ))}
            </ul>
          )}
          {pages > 1 && (
            <nav className="msg-pager" aria-label={t('messages.pageOf', { page, pages })}>
              <button type="button" className="btn" disabled={page <= 1} onClick={() => setPage(page - 1)}>{t('messages.prev')}</button>
              <span>{t('messages.pageOf', { page, pages })}</span>
              <button type="button" className="btn" disabled={page >= pages} onClick={() => setPage(page + 1)}>{t('messages.next')}</button>
            </nav>
          )}
        </section>
      )}
    </div>
  );
}

function MailPrefs(props: { messages: Messages; mailDelay: number; hasEmail: boolean }): ReactElement {
  const t = makeT(props.messages);
  const [kinds, setKinds] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void request<{ kinds: string[] }>('/api/interaction/mailPref').then((r) => setKinds(r.data.kinds)).catch(() => setKinds([]));
  }, []);
  const save = async (): Promise<void> => {
    setBusy(true);
    try { await request('/api/interaction/mailPref', { method: 'POST', data: { kinds }, showSuccessMessage: true }); } catch { /* shown */ }
    setBusy(false);
  };
  return (
    <section role="tabpanel" aria-labelledby="msg-tab-settings" className="card msg-panel">
      <p>{t('messages.prefs.lead', { minutes: props.mailDelay })}</p>
      {!props.hasEmail && <p className="muted" role="note">{t('messages.prefs.noEmail')}</p>}
      {kinds && (
        <fieldset className="msg-prefs">
          <legend>{t('messages.prefs.title')}</legend>
          {MAIL_KINDS.map((k) => (
            <label key={k} className="msg-check">
              <input type="checkbox" name="kinds" value={k} checked={kinds.includes(k)}
                onChange={(e) => { const on = e.currentTarget.checked; setKinds((cur) => (on ? [...(cur ?? []), k] : (cur ?? []).filter((x) => x !== k))); }} />
              {t(`messages.tab.${k}`)}
            </label>
          ))}
        </fieldset>
      )}
      <button type="button" className="btn btn-primary" disabled={busy || !kinds} onClick={() => void save()}>{t('messages.prefs.save')}</button>
    </section>
  );
}
