// The docs editor: the book's page tree (create, rename, move, delete) beside the page being
// edited in the site's markdown editor. A save names the revision the text started from; when
// someone saved in between, nothing is overwritten and a merge view opens instead. The text is
// kept in a local draft (with that revision) until a save succeeds, so a crash, a reload or a
// conflict never loses what was typed.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import { ApiError, request } from '../../lib/client/api';
import { notify } from '../../lib/client/notify';
import { SaveInput } from '../../lib/shared/validation/md';
import EditorSlot, { type EditorState } from '../modules/EditorSlot';
import { clearDraft, hasDraft } from '../../lib/client/drafts';
import { serverFields, zodFields, type Fields } from '../user/form-helpers';
import HistoryView from './HistoryView';
import MergeView from './MergeView';
import NewPageForm from './NewPageForm';
import PageActions from './PageActions';
import PageTree from './PageTree';
import { findNode, flattenTree, pageAddress, showError, showSuccess, translator, type Conflict, type Messages, type PageData, type TreeNode } from './shared';
import './doc-editor.css';

export interface DocEditorProps {
  book: { name: string; title: string };
  tree: TreeNode[];
  /** The page to edit, or null: then `missing` is offered as a new page. */
  page: PageData | null;
  /** A page name that does not exist yet ('' for a book without pages); null when `page` is set. */
  missing: string | null;
  /** `{...editor, ...mdedit, ...validation}` and the md error keys. */
  messages: Messages;
  /** A page's public address, `{name}` in place of its name. */
  pageUrl: string;
  /** A page's editor address, `{name}` in place of its name. */
  editUrl: string;
  /** The book's public address. */
  bookUrl: string;
  /** The reader's time zone (their profile's, else the site's): history and conflicts show times in it, as the server does. */
  timeZone: string;
  /** The editor module: installed or not, its client component (EditorSlot). */
  editor: EditorState;
}

// What the text draft (kept by the editor) needs besides the text: the title, and the revision
// the text started from, so a draft saved after someone else's save still ends in the merge view.
const META_PREFIX = 'atrium-draft-meta:';
const META_MAX_AGE = 30 * 24 * 3600 * 1000;

interface DraftMeta {
  title: string;
  base: number;
  t: number;
}

function draftKeyOf(book: string, name: string): string {
  return `md:${book}:${name}`;
}

function readMeta(key: string): DraftMeta | null {
  try {
    const meta = JSON.parse(localStorage.getItem(META_PREFIX + key) ?? 'null') as Partial<DraftMeta> | null;
    if (!meta || typeof meta.title !== 'string' || typeof meta.base !== 'number' || typeof meta.t !== 'number') return null;
    return Date.now() - meta.t > META_MAX_AGE ? null : { title: meta.title, base: meta.base, t: meta.t };
  } catch {
    return null;
  }
}

function writeMeta(key: string, meta: DraftMeta): void {
  try { localStorage.setItem(META_PREFIX + key, JSON.stringify(meta)); } catch { /* storage full or blocked: the text is still on screen */ }
}

function removeMeta(key: string): void {
  try { localStorage.removeItem(META_PREFIX + key); } catch { /* nothing was kept */ }
}

/** Forgets a page's local draft: its text and what goes with it. */
function forgetDraft(key: string): void {
  clearDraft(key);
  removeMeta(key);
}

export default function DocEditor({ book, tree: initialTree, page: initialPage, missing: initialMissing, messages, pageUrl, editUrl, bookUrl, timeZone, editor }: DocEditorProps): ReactElement {
  const t = useMemo(() => translator(messages), [messages]);
  const [tree, setTree] = useState(initialTree);
  const [page, setPage] = useState(initialPage);
  const [missing, setMissing] = useState(initialMissing);
  const [title, setTitle] = useState(initialPage?.title ?? '');
  const [content, setContent] = useState(initialPage?.content ?? '');
  /** The text as the server has it (after loading or saving): what "unsaved" compares with. */
  const [saved, setSaved] = useState({ title: initialPage?.title ?? '', content: initialPage?.content ?? '' });
  /** The revision the text started from: a save is based on it. */
  const [base, setBase] = useState(initialPage?.revision_id ?? 0);
  const [message, setMessage] = useState('');
  /** Bumped when a page is (re)loaded: the markdown editor starts afresh from the new text. */
  const [loadId, setLoadId] = useState(0);
  const [view, setView] = useState<'edit' | 'history'>('edit');
  // Narrow screens: the page tree folds under a toggle so the text comes first.
  const [treeOpen, setTreeOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<Fields>({});
  /** Set once hydrated: end-to-end tests wait for it before typing. */
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);

  const dirty = page !== null && (title !== saved.title || content !== saved.content);
  const draftKey = page ? draftKeyOf(book.name, page.name) : '';
  const latest = useRef({ dirty, title, content, draftKey, save: async (): Promise<void> => {} });

  const confirmLeave = useCallback((): boolean => !latest.current.dirty || confirm(t('mdedit.leaveConfirm')), [t]);

  const open = useCallback((data: PageData): void => {
    setPage(data);
    setTitle(data.title);
    setContent(data.content);
    setSaved({ title: data.title, content: data.content });
    setBase(data.revision_id);
    setMessage('');
    setConflict(null);
    setErrors({});
    setView('edit');
    setCreating(false);
    setMissing(null);
    setLoadId((n) => n + 1);
    history.replaceState(history.state, '', pageAddress(editUrl, data.name));
  }, [editUrl]);

  const fetchPage = async (name: string): Promise<PageData | null> => {
    try {
      const { data } = await request<PageData>('/api/md/page', { params: { book: book.name, name }, showErrorMessage: false });
      return { name: data.name, title: data.title, content: data.content, revision_id: data.revision_id };
    } catch (err) {
      showError(err);
      return null;
    }
  };

  const refreshTree = async (): Promise<TreeNode[]> => {
    try {
      const { data } = await request<{ tree: TreeNode[] }>('/api/md/tree', { params: { book: book.name }, showErrorMessage: false });
      setTree(data.tree);
      return data.tree;
    } catch (err) {
      showError(err);
      return tree;
    }
  };

  const select = async (name: string): Promise<void> => {
    setTreeOpen(false);
    if (page?.name === name) {
      setView('edit');
      setCreating(false);
      return;
    }
    if (!confirmLeave()) return;
    const data = await fetchPage(name);
    if (data) open(data);
  };

  // Opened without a page name (the book's first page): the address names the page.
  useEffect(() => {
    if (initialPage && !location.pathname.endsWith(`/${initialPage.name}`)) history.replaceState(history.state, '', pageAddress(editUrl, initialPage.name));
  }, [initialPage, editUrl]);

  // A draft from an earlier visit: its title, and the revision its text started from.
  useEffect(() => {
    if (!page) return;
    const key = draftKeyOf(book.name, page.name);
    const meta = readMeta(key);
    if (!meta) return;
    if (!hasDraft(key) && meta.title === page.title) {
      removeMeta(key);
      return;
    }
    if (meta.title !== page.title) setTitle(meta.title);
    setBase(meta.base);
    // Once per loaded page: later changes are the author's own.
  }, [loadId]);

  // Keeps that draft information while the page has unsaved changes.
  const metaLoadRef = useRef(-1);
  useEffect(() => {
    if (!draftKey) return;
    if (metaLoadRef.current !== loadId) {
      metaLoadRef.current = loadId;
      return;
    }
    if (dirty) writeMeta(draftKey, { title, base, t: Date.now() });
    else removeMeta(draftKey);
  }, [draftKey, loadId, dirty, title, base]);

  /** A save on its way: a second Ctrl+S must not race it (it would meet the first as a conflict). */
  const savingRef = useRef(false);
  const save = async (onTopOf?: number): Promise<void> => {
    if (!page || savingRef.current) return;
    if (onTopOf === undefined && !dirty) {
      notify({ type: 'info', message: t('mdedit.noChanges') });
      return;
    }
    const parsed = SaveInput.safeParse({ book: book.name, name: page.name, title, content, base_revision: onTopOf ?? base, message });
    if (!parsed.success) {
      setErrors(zodFields(parsed.error, messages));
      return;
    }
    setErrors({});
    savingRef.current = true;
    setSaving(true);
    const sent = { title, content, key: draftKey };
    try {
      const reply = await request<{ revision_id: number }>('/api/md/save', { method: 'POST', data: parsed.data, showErrorMessage: false });
      showSuccess(reply.msg || t('mdedit.saved'));
      setBase(reply.data.revision_id);
      setSaved({ title: parsed.data.title, content: parsed.data.content });
      setConflict(null);
      setMessage('');
      // Typed while the save was on its way: that is not saved yet, so neither title nor draft goes.
      if (latest.current.title === sent.title) setTitle(parsed.data.title);
      if (latest.current.content === sent.content && latest.current.draftKey === sent.key) clearDraft(sent.key);
    } catch (err) {
      const theirs = err instanceof ApiError ? (err.data as { conflict?: Conflict } | null)?.conflict : undefined;
      if (theirs && theirs.content === sent.content && theirs.title === parsed.data.title) {
        // The newer version already says the same (saved from another tab): nothing to merge.
        setBase(theirs.revision_id);
        setSaved({ title: theirs.title, content: theirs.content });
        setConflict(null);
        if (latest.current.content === sent.content && latest.current.draftKey === sent.key) clearDraft(sent.key);
        showSuccess(t('mdedit.saved'));
        return;
      }
      if (theirs) {
        setConflict(theirs);
        return;
      }
      const fields = serverFields(err);
      setErrors(fields);
      showError(err);
    } finally {
      savingRef.current = false;
      setSaving(false);
    }
  };

  useLayoutEffect(() => {
    latest.current = { dirty, title, content, draftKey, save: () => save() };
  });

  // Ctrl/Cmd+S saves from anywhere on the page; leaving with unsaved changes asks first (the
  // draft stays in this browser either way).
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.key.toLowerCase() !== 's') return;
      e.preventDefault();
      void latest.current.save();
    };
    const onUnload = (e: BeforeUnloadEvent): void => {
      if (latest.current.dirty) e.preventDefault();
    };
    // The in-app router falls back to a full page load when its navigation is cancelled: the
    // browser's own leave-page prompt (beforeunload) then asks, once.
    const onNavigate = (e: Event): void => {
      if (latest.current.dirty) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('beforeunload', onUnload);
    document.addEventListener('astro:before-preparation', onNavigate);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('beforeunload', onUnload);
      document.removeEventListener('astro:before-preparation', onNavigate);
    };
  }, []);

  const takeTheirs = (): void => {
    if (!page || !conflict) return;
    if ((content !== conflict.content || title !== conflict.title) && !confirm(t('mdedit.conflict.confirmTheirs'))) return;
    forgetDraft(draftKey);
    open({ name: page.name, title: conflict.title, content: conflict.content, revision_id: conflict.revision_id });
    notify({ type: 'info', message: t('mdedit.conflict.tookTheirs') });
  };

  const reloadAfterRestore = async (): Promise<void> => {
    if (!page) return;
    const data = await fetchPage(page.name);
    if (!data) return;
    forgetDraft(draftKey);
    open(data);
  };

  const afterCreate = async (data: PageData): Promise<void> => {
    await refreshTree();
    open(data);
  };

  const afterRename = async (newName: string): Promise<void> => {
    if (!page) return;
    // The draft follows the page to its new name.
    const meta = readMeta(draftKey);
    forgetDraft(draftKey);
    if (meta) writeMeta(draftKeyOf(book.name, newName), meta);
    setPage({ ...page, name: newName });
    history.replaceState(history.state, '', pageAddress(editUrl, newName));
    await refreshTree();
  };

  const afterDelete = async (): Promise<void> => {
    forgetDraft(draftKey);
    const next = await refreshTree();
    const first = flattenTree(next)[0]?.node;
    const data = first ? await fetchPage(first.name) : null;
    if (data) {
      open(data);
      return;
    }
    setPage(null);
    setMissing('');
    setConflict(null);
    setView('edit');
    history.replaceState(history.state, '', pageAddress(editUrl, '').replace(/\/$/, ''));
  };

  const currentParent = page ? (flattenTree(tree).find((e) => e.node.id === findNode(tree, page.name)?.parentId)?.node.name ?? '') : '';
  const hidden = conflict !== null || view !== 'edit';

  return (
    <div className="doc-editor" data-testid="doc-editor" data-ready={ready ? 'true' : undefined}>
      <aside className={`md-side${treeOpen ? ' is-open' : ''}`} aria-label={t('mdedit.pages')}>
        <button type="button" className="btn md-side__toggle" aria-expanded={treeOpen} aria-controls="md-side-body" onClick={() => setTreeOpen(!treeOpen)}>
          <span aria-hidden="true">☰</span> {t('mdedit.pages')} · {book.title}
        </button>
        <div className="md-side__body" id="md-side-body">
        <p className="md-side__book"><a href={bookUrl}>{book.title}</a></p>
        <h2 className="md-side__heading">{t('mdedit.pages')}</h2>
        {tree.length > 0
          ? <PageTree nodes={tree} current={page?.name ?? null} onSelect={(name) => void select(name)} label={t('mdedit.treeLabel', { book: book.title })} />
          : <p className="muted small">{t('mdedit.noPages')}</p>}
        {page && (creating ? (
          <NewPageForm key="new" book={book.name} tree={tree} heading={t('mdedit.newPage')} initialParent={currentParent}
            confirmLeave={confirmLeave} onCreated={(data) => void afterCreate(data)} onCancel={() => setCreating(false)} messages={messages} />
        ) : (
          <button type="button" className="btn md-side__new" onClick={() => setCreating(true)}>{t('mdedit.newPage')}</button>
        ))}
        {page && (
          <PageActions key={page.name} book={book.name} tree={tree} page={{ name: page.name, title: saved.title }}
            onMoved={async () => { await refreshTree(); }} onRenamed={afterRename} onDeleted={afterDelete} messages={messages} />
        )}
        </div>
      </aside>

      <section className="md-main">
        {page ? (
          <>
            <header className="md-main__head">
              <h1 className="md-main__title">{t('mdedit.editing', { title: saved.title })}</h1>
              <div className="md-main__tools">
                <span className={`md-main__state${dirty ? ' is-dirty' : ''}`} role="status" data-testid="save-state">
                  {dirty ? t('mdedit.unsaved') : t('mdedit.allSaved')}
                </span>
                <button type="button" className="btn" aria-pressed={view === 'history'} data-testid="history-toggle"
                  onClick={() => setView(view === 'history' ? 'edit' : 'history')}>
                  {t('mdedit.history')}
                </button>
                <a className="btn" href={pageAddress(pageUrl, page.name)} target="_blank" rel="noopener">{t('mdedit.view')}</a>
              </div>
            </header>

            {conflict && (
              <MergeView conflict={conflict} title={title} content={content} onTitle={setTitle} onContent={setContent}
                onKeepMine={() => void save(conflict.revision_id)} onTakeTheirs={takeTheirs} busy={saving} timeZone={timeZone} messages={messages} />
            )}
            {!conflict && view === 'history' && (
              <HistoryView key={`${page.name}:${base}`} book={book.name} name={page.name} timeZone={timeZone} messages={messages}
                confirmReplace={() => !latest.current.dirty || confirm(t('mdedit.replaceConfirm'))}
                onRestored={() => void reloadAfterRestore()} onClose={() => setView('edit')} />
            )}

            {/* Hidden, not unmounted, while merging or reading history: the draft keeps being saved. */}
            <form method="post" className="md-edit" hidden={hidden} noValidate data-testid="doc-edit-form"
              onSubmit={(e) => { e.preventDefault(); void save(); }}>
              <div className="field">
                <label htmlFor="md-edit-title">{t('mdedit.pageTitle')}</label>
                <input type="text" id="md-edit-title" name="title" value={title} maxLength={150} onChange={(e) => setTitle(e.target.value)}
                  aria-invalid={errors.title ? true : undefined} aria-describedby={errors.title ? 'md-edit-title-error' : undefined} />
                {errors.title && <p className="field-error" id="md-edit-title-error" role="alert">{errors.title}</p>}
              </div>
              <EditorSlot editor={editor} key={loadId} name="content" label={t('mdedit.content')} value={content} onChange={setContent}
                messages={messages} draftKey={draftKey} uploadTopic="md" rows={26} layout="split" syncScroll />
              {errors.content && <p className="field-error" role="alert">{errors.content}</p>}
              <div className="md-edit__save">
                <div className="field md-edit__message">
                  <label htmlFor="md-edit-message">{t('mdedit.message')}</label>
                  <input type="text" id="md-edit-message" name="message" value={message} maxLength={200} placeholder={t('mdedit.messagePlaceholder')}
                    onChange={(e) => setMessage(e.target.value)} aria-invalid={errors.message ? true : undefined} />
                  {errors.message && <p className="field-error" role="alert">{errors.message}</p>}
                </div>
                <button type="submit" className="btn btn-primary" disabled={saving} aria-keyshortcuts="Control+S Meta+S" data-testid="save">
                  {t('mdedit.save')}
                </button>
                <span className="md-edit__hint small muted">{saving ? t('mdedit.saving') : t('mdedit.saveHint')}</span>
              </div>
            </form>
          </>
        ) : (
          <>
            <header className="md-main__head">
              <h1 className="md-main__title">{t('mdedit.bookTitle', { book: book.title })}</h1>
            </header>
            <NewPageForm key={`missing:${missing ?? ''}`} book={book.name} tree={tree} initialName={missing ?? ''} messages={messages}
              heading={missing ? t('mdedit.createMissing', { name: missing }) : t('mdedit.createFirst')}
              lead={missing ? t('mdedit.createMissingLead') : t('mdedit.createFirstLead')}
              onCreated={(data) => void afterCreate(data)} />
          </>
        )}
      </section>
    </div>
  );
}
