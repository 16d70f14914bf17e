// Where a form edits markdown: the installed editor module's component, loaded on demand from its
// package's hashed URL (never from the site's bundles), given the props forms always gave the
// editor. React and the client SDK reach it through the page's import map: this island puts its
// own React and SDK on a global first, so the module renders with the page's one React instance.
// Until it has loaded, the place holds a plain textarea with the same name, label and value, in the
// space the module reserves: a reader can click it (which hydrates a `client:interact` form) and type
// at once, and the editor takes over the text and the focus. An editor that fails to load or throws
// leaves that plain box, with a note (an error boundary: a failing module never breaks the form).
// Without the module, the place says "Please install editor". Other modules' `editor.toolbar`
// components sit in a row above it (the ModuleSlot island's loader, error boundary and reserved
// space), given `editor.insert(text)`: the text goes in at the caret of the box's textarea as if
// typed (the browser's insertText, an input event), so the editor's own change handler, draft and
// preview follow.
import * as React from 'react';
import { Component, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type ComponentType, type CSSProperties, type ErrorInfo, type ReactElement, type ReactNode } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import * as sdk from './client-sdk';
import { flushDraft, scheduleDraft } from '../../lib/client/drafts';
import { MODULE_DEPS_GLOBAL, type EditorClient, type EditorProps, type EditorState } from '../../lib/shared/module-client';
import type { EditorToolbarApi } from '../../lib/shared/module-slots';
import ModuleSlot from './ModuleSlot';
import '../../styles/markdown.css';
import './editor-slot.css';
// The upload queue's styles come with the forms that show it (UploadQueue itself brings none, so the
// client SDK it belongs to adds nothing to pages that only might load a module).
import '../upload/upload-queue.css';

export type { EditorState };

export interface EditorSlotProps extends EditorProps {
  editor: EditorState;
}

type EditorComponent = ComponentType<EditorProps>;

const loads = new Map<string, Promise<EditorComponent>>();

/** Imports the module's client entry once per URL, after giving it the page's React and SDK. */
function loadEditor(client: EditorClient): Promise<EditorComponent> {
  let p = loads.get(client.url);
  if (!p) {
    const deps = globalThis as unknown as Record<string, unknown>;
    deps[MODULE_DEPS_GLOBAL] ??= { react: React, 'react/jsx-runtime': { Fragment, jsx, jsxs }, '@atrium/client': sdk };
    if (client.css && !document.querySelector(`link[rel="stylesheet"][href="${client.css}"]`)) {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = client.css;
      document.head.append(link);
    }
    p = import(/* @vite-ignore */ client.url).then((m: Record<string, unknown>) => {
      const found = m[client.component];
      if (typeof found !== 'function' && (typeof found !== 'object' || found === null)) throw new Error(`the editor module has no export "${client.component}"`);
      return found as EditorComponent;
    });
    // A failed import may succeed on the next page (a deploy in between): do not keep the failure.
    p.catch(() => loads.delete(client.url));
    loads.set(client.url, p);
  }
  return p;
}

const t = (messages: Record<string, string>, key: string): string => messages[key] ?? key;

/** The plain box used while the editor loads or when it cannot run: the text, its name for the form, its draft. */
function PlainEditor({ name, value, onChange, messages, label, rows = 10, placeholder, draftKey, note }: EditorProps & { note: 'editor.loading' | 'editor.failed' }): ReactElement {
  const id = useId();
  useEffect(() => {
    if (!draftKey) return;
    const flush = (): void => flushDraft(draftKey);
    window.addEventListener('pagehide', flush);
    return () => { window.removeEventListener('pagehide', flush); flush(); };
  }, [draftKey]);
  return (
    <div className="editor-slot__plain">
      <label htmlFor={`${id}text`}>{label}</label>
      <p className="editor-slot__note" role="status" id={`${id}note`}>{t(messages, note)}</p>
      <textarea id={`${id}text`} name={name} value={value} rows={rows} placeholder={placeholder} aria-describedby={`${id}note`}
        onChange={(e) => { onChange(e.target.value); if (draftKey) scheduleDraft(draftKey, e.target.value, ''); }} />
    </div>
  );
}

interface BoundaryProps { fallback: ReactNode; children: ReactNode; onError(error: unknown): void }

/** Catches what the module's component throws while rendering: the form shows the plain box instead. */
class EditorBoundary extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    this.props.onError(error);
    console.error('editor module failed', error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

/**
 * Puts `text` at the caret of the textarea in `box`, in place of the selection (a textarea keeps its
 * selection while a toolbar button has the focus), as typed text: through the browser's insertText
 * command where it can (one step of the textarea's undo history, as the editor's own toolbar does),
 * else by setting the range; either way an input event reaches the editor's onChange. The caret
 * ends after the text.
 */
function insertAtCaret(box: HTMLElement | null, text: string): void {
  const area = box?.querySelector('textarea');
  if (!area || !text) return;
  const { selectionStart: start, selectionEnd: end } = area;
  area.focus();
  area.setSelectionRange(start, end);
  let done = false;
  // Only while the textarea really has focus (it cannot while a Preview tab hides it).
  if (document.activeElement === area) {
    try {
      done = document.execCommand('insertText', false, text);
    } catch {
      done = false;
    }
  }
  if (done) return;
  area.setRangeText(text, start, end, 'end');
  area.dispatchEvent(new Event('input', { bubbles: true }));
}

/** The `editor.toolbar` components: a row above the editor, in the page's language. */
function ModuleToolbar({ editor, api }: { editor: EditorState; api: EditorToolbarApi }): ReactElement | null {
  if (!editor.toolbar?.fills.length) return null;
  return (
    <div className="module-slot editor-slot__toolbar" data-slot="editor.toolbar">
      <ModuleSlot slot="editor.toolbar" fills={editor.toolbar.fills} locale={editor.toolbar.locale} context={{}} editor={api} landmarks={false} />
    </div>
  );
}

export default function EditorSlot({ editor, ...props }: EditorSlotProps): ReactElement {
  const { client } = editor;
  const [loaded, setLoaded] = useState<{ url: string; component: EditorComponent } | null>(null);
  const [failed, setFailed] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const api = useMemo<EditorToolbarApi>(() => ({ insert: (text: string) => insertAtCaret(box.current, String(text)) }), []);
  const toolbar = <ModuleToolbar editor={editor} api={api} />;
  /** Where the caret was in the plain box when the editor took over (null: it had no focus). */
  const caret = useRef<[number, number] | null>(null);
  const Editor = client && loaded?.url === client.url ? loaded.component : null;

  // The editor takes over the focus and the caret of the plain box it replaces.
  useLayoutEffect(() => {
    const at = caret.current;
    caret.current = null;
    const area = at && Editor ? box.current?.querySelector('textarea') : null;
    if (!area || !at) return;
    area.focus();
    area.setSelectionRange(at[0], at[1]);
  }, [Editor]);

  useEffect(() => {
    if (!client) return;
    let live = true;
    loadEditor(client).then(
      (component) => {
        if (!live) return;
        const plain = box.current?.querySelector('textarea');
        caret.current = plain && document.activeElement === plain ? [plain.selectionStart, plain.selectionEnd] : null;
        setLoaded({ url: client.url, component });
      },
      (err: unknown) => { console.error('editor module could not be loaded', err); if (live) setFailed(true); },
    );
    return () => { live = false; };
  }, [client?.url, client?.component]);

  if (!editor.installed) {
    return (
      <div className="editor-slot editor-slot--missing" data-editor="missing">
        <p className="editor-slot__title">{editor.notice?.title}</p>
        <p className="small muted">{editor.notice?.lead}</p>
      </div>
    );
  }
  const plain = <PlainEditor {...props} note="editor.failed" />;
  if (!client || failed) return <div className="editor-slot" data-editor="plain" ref={box}>{toolbar}{plain}</div>;
  if (!Editor) {
    return (
      <div className="editor-slot editor-slot--loading" data-editor="loading" ref={box} style={{ '--editor-reserve': `${client.height}px` } as CSSProperties}>
        {toolbar}
        <PlainEditor {...props} note="editor.loading" />
      </div>
    );
  }
  return (
    <div className="editor-slot" data-editor="module" data-editor-version={client.version} ref={box}>
      {toolbar}
      <EditorBoundary fallback={plain} onError={() => undefined}>
        <Editor {...props} />
      </EditorBoundary>
    </div>
  );
}
