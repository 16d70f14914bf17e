// The chat page: the conversation list (new, search, rename, delete; collapsible on phones) and
// the conversation shown. Members' conversations come from the server, visitors' from this browser.
// The conversation itself (ChatView, with the AI SDK and the markdown renderer behind it) is loaded
// when it is needed: when there is a conversation to show, or when the reader turns to the question
// box. Until then the page is its server-rendered welcome and this small island, so a phone does not
// spend its first seconds running code for an answer nobody has asked for yet. The question box
// lives here, outside the lazily loaded part: what is typed (an IME composition too) stays put
// while the conversation loads, and a question sent before it has loaded is asked once it has.
import { Suspense, lazy, useCallback, useEffect, useRef, useState } from 'react';
import { translate, type Messages } from '../user/form-helpers';
import { legalChatTitle, MAX_CHAT_TITLE } from '../../lib/shared/chat';
import { memberStore, visitorStore, type Summary } from './store';
import type { Tree } from './tree';
import type { ChatHandle, ModelOption } from './ChatView';
import Welcome from './Welcome';
import { sendsOnEnter } from './keys';
import { newChatId } from './visitor-key';
import './chat.css';

let viewModule: Promise<typeof import('./ChatView')> | null = null;
/** Starts loading the conversation's code (once); React.lazy below waits for the same import. */
const loadView = (): Promise<typeof import('./ChatView')> => (viewModule ??= import('./ChatView'));
const ChatView = lazy(loadView);

interface Props {
  member: boolean;
  models: ModelOption[];
  defaultModel: string;
  messages: Messages;
  locale: string;
  maxQuestion: number;
  signInUrl: string;
  /** The address names a conversation (`?c=`): the page shows no welcome while it loads. */
  opening: boolean;
}

interface Open { id: string; tree: Tree; leafId: string; title: string }

const MODEL_KEY = 'atrium-chat:model';
const CHAT_ID = /^[A-Za-z0-9_-]{1,64}$/;

function chatInUrl(): string {
  const id = new URLSearchParams(location.search).get('c') ?? '';
  return CHAT_ID.test(id) ? id : '';
}

function putInUrl(id: string): void {
  const url = new URL(location.href);
  if (id) url.searchParams.set('c', id); else url.searchParams.delete('c');
  history.replaceState(history.state, '', url);
}

export default function ChatApp(props: Props) {
  const t = (key: string, values?: Record<string, string | number>): string => translate(props.messages, key, values);
  const store = props.member ? memberStore : visitorStore;
  const [list, setList] = useState<Summary[]>([]);
  const [q, setQ] = useState('');
  const [open, setOpen] = useState<Open | null>(null);
  const [model, setModel] = useState(props.defaultModel);
  const [renaming, setRenaming] = useState<{ id: string; title: string } | null>(null);
  const [renameError, setRenameError] = useState('');
  const [menu, setMenu] = useState(false);
  // The question box, and what the conversation tells it.
  const [input, setInput] = useState('');
  const [busy, setBusy] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [pending, setPending] = useState('');
  const [opening, setOpening] = useState(props.opening);
  // The conversation's code is wanted (and then stays: loaded once, it costs nothing more).
  const [wanted, setWanted] = useState(false);
  const want = (): void => { if (!wanted) { void loadView(); setWanted(true); } };
  const handle = useRef<ChatHandle | null>(null);
  const composing = useRef(false);
  // On phones the conversation list is a drawer over the page. Closed, it is out of reach (inert,
  // so Tab does not walk into what is off screen); open, it is a modal dialog: the rest of the page
  // is inert, focus moves into it, Escape closes it and focus returns to the menu button.
  const sideRef = useRef<HTMLDivElement>(null);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const [narrow, setNarrow] = useState(false);
  useEffect(() => {
    const mq = matchMedia('(max-width: 760px)');
    const on = (): void => setNarrow(mq.matches);
    on();
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  useEffect(() => {
    const side = sideRef.current;
    if (!side) return undefined;
    side.inert = narrow && !menu;
    if (!narrow || !menu) return undefined;
    const others = [...document.querySelectorAll<HTMLElement>('body > *, .chat-app > *')].filter((el) => el !== side && !el.contains(side) && !el.classList.contains('chat-backdrop'));
    // The backdrop stays live: a tap on it closes the drawer (it is hidden from assistive technology).
    for (const el of others) el.inert = true;
    side.querySelector<HTMLElement>('button, input, a[href]')?.focus();
    const onKey = (e: KeyboardEvent): void => { if (e.key === 'Escape') { e.preventDefault(); setMenu(false); } };
    document.addEventListener('keydown', onKey);
    return () => {
      for (const el of others) el.inert = false;
      document.removeEventListener('keydown', onKey);
      menuButtonRef.current?.focus();
    };
  }, [menu, narrow]);
  const current = useRef<Open | null>(null);
  current.current = open;

  const refresh = useCallback(async (query = q): Promise<void> => {
    try { setList(await store.list(query)); } catch { /* the list stays as it was */ }
  }, [q, store]);

  const startNew = (): void => {
    setOpen({ id: newChatId(), tree: new Map(), leafId: '', title: '' });
    setOpening(false);
    setPending('');
    putInUrl('');
    setMenu(false);
  };

  const show = async (id: string): Promise<void> => {
    const loaded = await store.load(id);
    if (!loaded) { startNew(); return; }
    if (loaded.tree.size) want();
    setOpening(false);
    setPending('');
    setOpen({ id, tree: loaded.tree, leafId: loaded.leafId, title: loaded.title });
    if (loaded.model && props.models.some((m) => m.name === loaded.model)) setModel(loaded.model);
    putInUrl(id);
    setMenu(false);
  };

  useEffect(() => {
    const saved = localStorage.getItem(MODEL_KEY);
    if (saved && props.models.some((m) => m.name === saved)) setModel(saved);
    const id = chatInUrl();
    if (id) void show(id); else startNew();
    void refresh('');
  }, []);

  useEffect(() => {
    const timer = setTimeout(() => void refresh(q), 250);
    return () => clearTimeout(timer);
  }, [q]);

  const pickModel = (name: string): void => {
    setModel(name);
    try { localStorage.setItem(MODEL_KEY, name); } catch { /* private mode */ }
  };

  const wasBusy = useRef(false);
  const onChange = (tree: Tree, leafId: string, busy: boolean): void => {
    const now = current.current;
    if (!now || !tree.size) return;
    const first = [...tree.values()].find((n) => n.role === 'user');
    const title = now.title || (first ? Array.from(first.text.replace(/\s+/g, ' ').trim()).slice(0, 40).join('') : '');
    if (!chatInUrl()) putInUrl(now.id);
    if (!props.member) store.save(now.id, title, tree, leafId, model);
    if (title !== now.title) setOpen({ ...now, title });
    // The list learns of a conversation when its first answer starts and when each ends.
    if (busy !== wasBusy.current || !list.some((s) => s.id === now.id)) void refresh();
    wasBusy.current = busy;
  };

  const tooLong = Array.from(input).length > props.maxQuestion;
  const send = (): void => {
    const text = input.trim();
    if (!text || busy || pending || tooLong || !open) return;
    if (handle.current) {
      if (handle.current.send(text)) setInput('');
      return;
    }
    // Not loaded yet: asked as soon as the conversation is.
    setPending(text);
    setInput('');
    want();
  };

  const priceOf = (m: ModelOption): string => (m.assistant || (!m.pricePer1k && !m.pricePerMessage) ? t('chat.ui.free') : t('chat.ui.price', { points: m.pricePerMessage || m.pricePer1k }));
  const waiting = busy || !!pending;
  const idle = <div className="chat-scroll">{!opening && <Welcome title={t('chat.ui.welcome')} lead={t('chat.ui.welcomeLead')} />}</div>;

  const rename = async (): Promise<void> => {
    if (!renaming) return;
    // A title of only spaces or with control characters stays open with the spec's "Illegal input" (§8).
    if (!legalChatTitle(renaming.title)) { setRenameError(t('validation.illegal')); return; }
    setRenameError('');
    await store.rename(renaming.id, renaming.title.trim()).catch(() => undefined);
    setRenaming(null);
    await refresh();
  };

  const remove = async (id: string): Promise<void> => {
    if (!confirm(t('chat.ui.deleteConfirm'))) return;
    await store.remove(id).catch(() => undefined);
    if (open?.id === id) startNew();
    await refresh();
  };

  return (
    <div className={`chat-app${menu ? ' menu-open' : ''}`}>
      <div className="chat-side" id="chat-side" ref={sideRef} {...(narrow && menu ? { role: 'dialog', 'aria-modal': true, 'aria-label': t('chat.ui.conversations') } : {})}>
        <div className="chat-side-head">
          <button type="button" className="btn btn-primary" onClick={startNew}>{t('chat.ui.new')}</button>
          <button type="button" className="btn chat-close" onClick={() => setMenu(false)} aria-label={t('chat.ui.close')}>×</button>
        </div>
        <input type="search" className="input" value={q} placeholder={t('chat.ui.search')} aria-label={t('chat.ui.search')} maxLength={100} onChange={(e) => setQ(e.target.value)} />
        <nav className="chat-list" aria-label={t('chat.ui.conversations')}>
          {list.length === 0 && <p className="muted">{q.trim() ? t('chat.ui.noMatch', { q: q.trim() }) : t('chat.ui.noConversations')}</p>}
          {list.map((s) => (
            <div key={s.id} className={`chat-item${open?.id === s.id ? ' active' : ''}`}>
              {renaming?.id === s.id ? (
                <form method="post" onSubmit={(e) => { e.preventDefault(); void rename(); }} className="chat-rename">
                  <input type="text" className="input" value={renaming.title} maxLength={MAX_CHAT_TITLE} aria-label={t('chat.ui.rename')} autoFocus
                    aria-invalid={renameError ? true : undefined} aria-describedby={renameError ? 'chat-rename-error' : undefined}
                    onChange={(e) => { setRenameError(''); setRenaming({ id: s.id, title: e.target.value }); }} />
                  <button type="submit" className="btn btn-sm">{t('chat.ui.save')}</button>
                  {renameError && <p className="field-error chat-rename-error" id="chat-rename-error" role="alert">{renameError}</p>}
                </form>
              ) : (
                <>
                  <a href={`?c=${s.id}`} aria-current={open?.id === s.id ? 'page' : undefined} onClick={(e) => { e.preventDefault(); void show(s.id); }}>{s.title || '…'}</a>
                  <span className="chat-item-tools">
                    <button type="button" className="btn btn-sm" onClick={() => { setRenameError(''); setRenaming({ id: s.id, title: s.title }); }} aria-label={`${t('chat.ui.rename')}: ${s.title}`}>✎</button>
                    <button type="button" className="btn btn-sm" onClick={() => void remove(s.id)} aria-label={`${t('chat.ui.delete')}: ${s.title}`}>×</button>
                  </span>
                </>
              )}
            </div>
          ))}
        </nav>
        {!props.member && <p className="muted chat-note">{t('chat.ui.visitorNote')} <a href={props.signInUrl}>{t('chat.ui.signIn')}</a></p>}
      </div>
      {/* Phones: the open drawer dims the page behind it, and a tap there closes it. */}
      {menu && <div className="chat-backdrop" aria-hidden="true" onClick={() => setMenu(false)} />}
      <section className="chat-main">
        <div className="chat-topbar">
          <button type="button" ref={menuButtonRef} className="btn chat-menu" aria-controls="chat-side" aria-expanded={menu} onClick={() => setMenu(!menu)}>☰ {t('chat.ui.menu')}</button>
          <span className="chat-title">{open?.title}</span>
        </div>
        <div className="chat-view">
          {open && wanted ? (
            <Suspense fallback={idle}>
              <ChatView key={open.id} chatId={open.id} tree={open.tree} leafId={open.leafId} model={model}
                messages={props.messages} locale={props.locale} maxQuestion={props.maxQuestion} handle={handle} pending={pending} onPendingSent={() => setPending('')}
                onBusy={(b, s) => { setBusy(b); setStopping(s); }} onRefused={(text) => setInput((current) => current || text)}
                onChange={onChange} onBranch={(leafId) => void store.branch(open.id, leafId).catch(() => undefined)} />
            </Suspense>
          ) : idle}
          {/* Any sign that the reader is turning to the box loads the conversation's code. */}
          <form method="post" className="chat-compose" onSubmit={(e) => { e.preventDefault(); send(); }}
            onFocus={want} onPointerEnter={want}>
            <textarea value={input} rows={2} placeholder={t('chat.ui.placeholder')} aria-label={t('chat.ui.placeholder')}
              onChange={(e) => setInput(e.target.value)}
              onCompositionStart={() => { composing.current = true; }} onCompositionEnd={() => { composing.current = false; }}
              onKeyDown={(e) => { if (sendsOnEnter(e, composing.current)) { e.preventDefault(); send(); } }} />
            {tooLong && <p className="field-error">{t('chat.questionTooLong', { max: props.maxQuestion })}</p>}
            <div className="chat-compose-bar">
              <label className="chat-model">
                <span>{t('chat.ui.model')}</span>
                <select value={model} onChange={(e) => pickModel(e.target.value)} disabled={waiting}>
                  {props.models.map((m) => <option key={m.name} value={m.name}>{`${m.title} · ${priceOf(m)}`}</option>)}
                </select>
              </label>
              {waiting
                ? <button type="button" className="btn" aria-busy={stopping} onClick={() => {
                    if (handle.current) void handle.current.stop();
                    else { setInput((current) => current || pending); setPending(''); } // stopped before it was asked
                  }}>{t('chat.ui.stop')}</button>
                : <button type="submit" className="btn btn-primary" disabled={!input.trim()}>{t('chat.ui.send')}</button>}
            </div>
          </form>
        </div>
      </section>
    </div>
  );
}
