// One conversation: the messages of the branch shown, streaming through the AI SDK's useChat.
// The page loads it (and the AI SDK with it) when it is needed: a conversation to show, or the
// reader turning to the question box, which ChatApp keeps (so nothing typed is lost meanwhile).
import { useEffect, useImperativeHandle, useMemo, useRef, useState, type RefObject } from 'react';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, generateId, type UIMessage } from 'ai';
import { copyText } from '../../lib/client/secure-context';
import { textOfParts, type ChatMetadata } from '../../lib/shared/chat';
import { SITE_ASSISTANT_MODEL, expandFraming, framedText } from '../../lib/shared/chat-frame';
import { mergeBranch, newestLeaf, pathTo, siblingsOf, type ChatNode, type Tree } from './tree';
import { translate, type Messages } from '../user/form-helpers';
import MessageBody from './MessageBody';
import Welcome from './Welcome';
import { sendsOnEnter } from './keys';
import { chatKeyHeader } from './visitor-key';

type Message = UIMessage<ChatMetadata>;

export interface ModelOption { name: string; title: string; assistant: boolean; pricePer1k: number; pricePerMessage: number; freeDaily: number; freeUnit: string }

/** What the question box (in ChatApp) asks of the conversation. */
export interface ChatHandle {
  /** Asks `text`; false while an answer is being written. */
  send(text: string): boolean;
  stop(): Promise<void>;
}

interface Props {
  chatId: string;
  tree: Tree;
  leafId: string;
  model: string;
  messages: Messages;
  locale: string;
  /** Longest question (the edit box's limit). */
  maxQuestion: number;
  handle: RefObject<ChatHandle | null>;
  /** A question sent before this conversation had loaded: asked as soon as it has. */
  pending: string;
  onPendingSent(): void;
  /** An answer is being written (busy), and Stop has been pressed (stopping). */
  onBusy(busy: boolean, stopping: boolean): void;
  /** A question the server refused (quota, length): it goes back into the box. */
  onRefused(text: string): void;
  /** The tree changed (a message came or a branch was picked). */
  onChange(tree: Tree, leafId: string, busy: boolean): void;
  /** A branch was picked with ‹ ›: its last message. */
  onBranch(leafId: string): void;
}

/** How long Stop waits for the server to end the reply's stream before cutting it here (a second Stop cuts at once). */
const STOP_WAIT_MS = 15_000;

const toMessage = (n: ChatNode): Message => ({ id: n.id, role: n.role, parts: [{ type: 'text', text: n.text }], metadata: n.metadata });

/** The error text a failed send carries: the envelope's message when there is one. */
function errorText(error: Error, fallback: string): string {
  try {
    const parsed = JSON.parse(error.message) as { msg?: string };
    if (parsed.msg) return parsed.msg;
  } catch { /* not an envelope */ }
  return error.message && !/^(Failed to fetch|NetworkError|Load failed)/i.test(error.message) ? error.message : fallback;
}

export default function ChatView(props: Props) {
  const { chatId, messages: dict } = props;
  const t = (key: string, values?: Record<string, string | number>): string => translate(dict, key, values);
  // An answer's text as the reader reads it: the site assistant's framing in their language.
  const readable = (m: Message): string => {
    const text = textOfParts(m.parts as { type: string; text?: string }[]);
    return m.metadata?.model === SITE_ASSISTANT_MODEL ? expandFraming(framedText(text), t) : text;
  };
  const [tree, setTree] = useState<Tree>(props.tree);
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null);
  const [copied, setCopied] = useState('');
  const modelRef = useRef(props.model);
  modelRef.current = props.model;
  const composing = useRef(false);
  const endRef = useRef<HTMLDivElement>(null);

  const transport = useMemo(() => new DefaultChatTransport<Message>({
    api: '/api/chat/send',
    credentials: 'same-origin',
    // The key binds a visitor's reply to this browser: only it can stop or resume it.
    headers: () => ({ 'think-lang': props.locale, ...chatKeyHeader() }) as Record<string, string>,
    // `turn` names this send: Stop names it too, so the server stops its reply even when the stop
    // arrives before the question does (Stop pressed right after sending).
    prepareSendMessagesRequest: ({ id, messages, headers }) => ({
      headers,
      body: { id, model: modelRef.current, turn: (turn.current = generateId()), messages: messages.map((m) => ({ id: m.id, role: m.role, parts: [{ type: 'text', text: textOfParts(m.parts as { type: string; text?: string }[]) }] })) },
    }),
    // `after`: the question still waiting for its answer here, so an answer that finished while the
    // page was away comes back too (a visitor's conversation lives only in this browser).
    prepareReconnectToStreamRequest: ({ id, headers }) => ({
      api: `/api/chat/stream?id=${encodeURIComponent(id)}${waiting.current ? `&after=${encodeURIComponent(waiting.current)}` : ''}`, headers,
    }),
  }), [props.locale]);

  // An answer still being written when the page was left is resumed, not shown half.
  const waiting = useRef('');
  const turn = useRef('');
  const initial = useMemo(() => {
    const path = pathTo(props.tree, props.leafId);
    if (path.at(-1)?.role === 'assistant' && !path.at(-1)?.metadata?.status) path.pop();
    waiting.current = path.at(-1)?.role === 'user' ? path.at(-1)!.id : '';
    return path.map(toMessage);
  }, []);

  // Only a conversation with messages can have an answer to resume (a new one has none to ask for).
  const chat = useChat<Message>({ id: chatId, messages: initial, transport, resume: initial.length > 0, throttle: 40 });
  const busy = chat.status === 'submitted' || chat.status === 'streaming';
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const [stopping, setStopping] = useState(false);
  const cutNow = useRef(false);
  // What a screen reader hears of an answer: the whole of it once it has finished, politely, never
  // each token as it streams in (the message list itself is not a live region).
  const [announced, setAnnounced] = useState('');
  const wasStreaming = useRef(false);
  useEffect(() => {
    if (chat.status === 'streaming') { wasStreaming.current = true; setAnnounced(''); return; }
    if (!wasStreaming.current) return;
    wasStreaming.current = false;
    const last = chat.messages.at(-1);
    if (last?.role === 'assistant') setAnnounced(`${t('chat.ui.answer')}: ${readable(last)}`);
  }, [chat.status]);

  // Every message the chat shows joins the tree.
  useEffect(() => {
    const branch = chat.messages.map((m) => ({ id: m.id, role: m.role as 'user' | 'assistant', text: textOfParts(m.parts as { type: string; text?: string }[]), metadata: m.metadata }));
    const next = mergeBranch(tree, branch);
    if (next !== tree) setTree(next);
    props.onChange(next, branch.at(-1)?.id ?? '', busy);
  }, [chat.messages, busy]);

  useEffect(() => { endRef.current?.scrollIntoView({ block: 'end' }); }, [chat.messages.length, busy]);

  // A refused question (quota, length) goes back into the box: nothing typed is lost.
  useEffect(() => {
    if (chat.status !== 'error') return;
    const last = chat.messages.at(-1);
    if (last?.role === 'user') {
      props.onRefused(textOfParts(last.parts as { type: string; text?: string }[]));
      // Refused before any answer: the question leaves the conversation (and its tree) for the box.
      setTree((old) => { const next = new Map(old); next.delete(last.id); return next; });
      chat.setMessages(chat.messages.slice(0, -1));
    }
  }, [chat.status]);

  const send = (text: string): boolean => {
    if (!text || busyRef.current) return false;
    // Busy at once: a second Enter before React renders again does not ask twice.
    busyRef.current = true;
    void chat.sendMessage({ text });
    return true;
  };

  // Stop asks the server to stop, then lets the reply's stream end by itself: it ends with what the
  // server produced up to the stop and the "stopped" mark (what it stored), or whole when it had
  // ended already. Cutting the stream here instead showed less than was kept, or nothing when the
  // answer had not started. Only when the server cannot be told, or its end does not come (or Stop
  // is pressed again), is the stream cut here and the reply marked stopped as it stands.
  const stop = async (): Promise<void> => {
    if (stopping) { cutNow.current = true; return; }
    cutNow.current = false;
    setStopping(true);
    try {
      const told = await fetch('/api/chat/stop', {
        method: 'POST', credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'think-lang': props.locale, ...chatKeyHeader() },
        body: JSON.stringify({ id: chatId, ...(turn.current ? { turn: turn.current } : {}) }),
      }).then(async (r) => r.ok && ((await r.json()) as { code?: number }).code === 1, () => false);
      for (let waited = 0; told && busyRef.current && !cutNow.current && waited < STOP_WAIT_MS; waited += 100) await new Promise((r) => setTimeout(r, 100));
      if (!busyRef.current) return;
      await chat.stop();
      chat.setMessages((messages) => {
        const last = messages.at(-1);
        if (last?.role === 'assistant') return messages.map((m) => (m === last ? { ...m, metadata: { ...m.metadata, status: 'stopped' as const } } : m));
        return [...messages, { id: generateId(), role: 'assistant', parts: [], metadata: { status: 'stopped' } }];
      });
    } finally {
      setStopping(false);
    }
  };

  useImperativeHandle(props.handle, () => ({ send, stop }));
  useEffect(() => { props.onBusy(busy, stopping); }, [busy, stopping]);
  // The question sent while this conversation was loading.
  useEffect(() => {
    if (!props.pending) return;
    send(props.pending);
    props.onPendingSent();
  }, []);

  const showBranch = (node: ChatNode): void => {
    const leaf = newestLeaf(tree, node.id);
    chat.setMessages(pathTo(tree, leaf).map(toMessage));
    props.onBranch(leaf);
  };

  const saveEdit = (): void => {
    if (!editing || busy) return;
    const text = editing.text.trim();
    if (!text) return;
    const node = tree.get(editing.id);
    setEditing(null);
    // The edited question is a new message after the same parent: the old branch stays.
    const keep = node?.parentId ? pathTo(tree, node.parentId).map(toMessage) : [];
    chat.setMessages(keep);
    void chat.sendMessage({ text });
  };

  const copy = async (id: string, text: string): Promise<void> => {
    if (!(await copyText(text))) return;
    setCopied(id);
    setTimeout(() => setCopied(''), 1500);
  };

  const error = chat.error ? errorText(chat.error, t('chat.ui.failed')) : '';
  const lastId = chat.messages.at(-1)?.id;

  return (
    <>
      <p className="visually-hidden" role="status">{announced}</p>
      <div className="chat-scroll">
        {chat.messages.length === 0 && <Welcome title={t('chat.ui.welcome')} lead={t('chat.ui.welcomeLead')} />}
        {chat.messages.map((m) => {
          const node = tree.get(m.id);
          const siblings = node ? siblingsOf(tree, node) : [];
          const index = node ? siblings.findIndex((s) => s.id === node.id) : -1;
          const text = textOfParts(m.parts as { type: string; text?: string }[]);
          const streaming = busy && m.id === lastId && m.role === 'assistant';
          return (
            <article key={m.id} className={`chat-msg chat-${m.role}`} data-role={m.role} aria-label={m.role === 'user' ? t('chat.ui.you') : t('chat.ui.answer')}>
              {editing?.id === m.id ? (
                <div className="chat-edit">
                  <textarea value={editing.text} rows={3} aria-label={t('chat.ui.edit')} maxLength={props.maxQuestion}
                    onChange={(e) => setEditing({ id: m.id, text: e.target.value })}
                    onCompositionStart={() => { composing.current = true; }} onCompositionEnd={() => { composing.current = false; }}
                    onKeyDown={(e) => { if (sendsOnEnter(e, composing.current)) { e.preventDefault(); saveEdit(); } }} />
                  <div className="chat-actions">
                    <button type="button" className="btn btn-primary" onClick={saveEdit}>{t('chat.ui.send')}</button>
                    <button type="button" className="btn" onClick={() => setEditing(null)}>{t('chat.ui.cancel')}</button>
                  </div>
                </div>
              ) : m.role === 'user' ? (
                <div className="chat-bubble">{text}</div>
              ) : (
                <MessageBody text={text} metadata={m.metadata} streaming={streaming} messages={dict} />
              )}
              {!streaming && editing?.id !== m.id && (
                <div className="chat-actions">
                  {siblings.length > 1 && (
                    <span className="chat-branch">
                      <button type="button" className="btn btn-sm" aria-label={t('chat.ui.prev')} disabled={busy || index <= 0} onClick={() => showBranch(siblings[index - 1]!)}>‹</button>
                      <span><span aria-hidden="true">{index + 1}/{siblings.length}</span><span className="visually-hidden">{t('chat.ui.branch', { n: index + 1, total: siblings.length })}</span></span>
                      <button type="button" className="btn btn-sm" aria-label={t('chat.ui.next')} disabled={busy || index >= siblings.length - 1} onClick={() => showBranch(siblings[index + 1]!)}>›</button>
                    </span>
                  )}
                  {m.role === 'user' ? (
                    <button type="button" className="btn btn-sm" disabled={busy} onClick={() => setEditing({ id: m.id, text })}>{t('chat.ui.edit')}</button>
                  ) : (
                    <>
                      <button type="button" className="btn btn-sm" onClick={() => void copy(m.id, readable(m))}>{copied === m.id ? t('chat.ui.copied') : t('chat.ui.copy')}</button>
                      {m.id === lastId && <button type="button" className="btn btn-sm" disabled={busy} onClick={() => void chat.regenerate()}>{t('chat.ui.regenerate')}</button>}
                      {m.metadata?.status === 'stopped' && <span className="muted">{t('chat.ui.stopped')}</span>}
                      {!!m.metadata?.points && <span className="muted">{t('chat.ui.charged', { points: m.metadata.points })}</span>}
                    </>
                  )}
                </div>
              )}
            </article>
          );
        })}
        {chat.status === 'submitted' && <p className="chat-thinking muted" role="status">{t('chat.ui.thinking')}</p>}
        {error && (
          <div className="chat-error" role="alert">
            <span>{error}</span>
            {chat.messages.at(-1)?.role === 'assistant' && <button type="button" className="btn btn-sm" onClick={() => void chat.regenerate()}>{t('chat.ui.retry')}</button>}
          </div>
        )}
        <div ref={endRef} />
      </div>
    </>
  );
}
