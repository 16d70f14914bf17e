// The site's markdown editor (forum posts, replies, documents, the developer studio), the `editor`
// module's client entry: a controlled textarea with a toolbar, keyboard shortcuts, list
// continuation, image paste/drop upload, a live preview through the same pipeline the server uses,
// and an autosaved draft. The site mounts it (src/islands/modules/EditorSlot.tsx) only where the
// module is installed; React and the site's client SDK (`@atrium/client`: uploads, the browser
// markdown renderer, drafts, i18n) come from the page through its import map, never bundled here.
import { memo, useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type ChangeEvent, type ClipboardEvent, type DragEvent, type KeyboardEvent, type MouseEvent, type ReactElement, type UIEvent } from 'react';
import { DRAFT_MAX_AGE, UploadQueue, clearDraft, enqueueUpload, flushDraft, interpolate, onModuleMarkdown, readDraft, removeDraft, renderWithPageModules, scheduleDraft, type EditorProps } from '@atrium/client';
import { createSectionRenderer } from './section-render';
import { applyFormat, continueList, mergeTaskMarkers, diffRange, escapeAlt, imageMarkdown, indentLines, insertText, replaceFirst, splitBlocks, type Edit, type FormatKind } from './format';
import { buildAnchors, headingKey, invert, mapThrough, measureTextLines, measureTops, pairHeadings, sourceHeadings, type ScrollAnchor } from './scroll-sync';

export type MarkdownEditorProps = EditorProps;

// ---------------------------------------------------------------------------------------------
// Toolbar

interface Tool {
  kind: FormatKind;
  label: string;
  /** The shortcut's key, with Shift when `shift`. */
  key?: string;
  shift?: boolean;
  icon: ReactElement;
}

function Icon({ d }: { d: string }): ReactElement {
  return <svg viewBox="0 0 16 16" aria-hidden="true" focusable="false"><path d={d} /></svg>;
}

const TOOLS: Tool[] = [
  { kind: 'bold', label: 'editor.bold', key: 'B', icon: <span className="md-editor__glyph md-editor__glyph--bold" aria-hidden="true">B</span> },
  { kind: 'italic', label: 'editor.italic', key: 'I', icon: <span className="md-editor__glyph md-editor__glyph--italic" aria-hidden="true">I</span> },
  { kind: 'heading', label: 'editor.heading', icon: <span className="md-editor__glyph" aria-hidden="true">H</span> },
  { kind: 'link', label: 'editor.link', key: 'K', icon: <Icon d="M6.5 9.5l3-3M7.5 4.5l1-1a2.5 2.5 0 0 1 3.5 3.5l-1 1M8.5 11.5l-1 1A2.5 2.5 0 0 1 4 9l1-1" /> },
  { kind: 'quote', label: 'editor.quote', icon: <Icon d="M2.5 3v10M6 5h7.5M6 8h7.5M6 11h5" /> },
  { kind: 'code', label: 'editor.code', key: 'E', icon: <Icon d="M5.5 4.5L2 8l3.5 3.5M10.5 4.5L14 8l-3.5 3.5" /> },
  { kind: 'codeBlock', label: 'editor.codeBlock', icon: <Icon d="M1.5 2.5h13v11h-13zM6 6L4 8l2 2M10 6l2 2-2 2" /> },
  { kind: 'bulletList', label: 'editor.bulletList', key: '8', shift: true, icon: <Icon d="M6 4h8M6 8h8M6 12h8M2 4h.5M2 8h.5M2 12h.5" /> },
  { kind: 'numberedList', label: 'editor.numberedList', key: '7', shift: true, icon: <Icon d="M6 4h8M6 8h8M6 12h8M2 2.5l1-.5v4M1.5 9.5a1 1 0 0 1 2 0c0 1-2 1.5-2 2.5h2" /> },
  { kind: 'taskList', label: 'editor.taskList', icon: <Icon d="M1.5 2.5h4v4h-4zM2.5 4.5l1 1 1.5-2M8 4.5h6M1.5 9.5h4v4h-4zM8 11.5h6" /> },
  { kind: 'table', label: 'editor.table', icon: <Icon d="M1.5 2.5h13v11h-13zM1.5 6.5h13M1.5 10h13M8 2.5v11" /> },
];
const IMAGE_ICON = <Icon d="M1.5 2.5h13v11h-13zM1.5 11l4-4 3 3 2-2 4 4M10.5 5.5h.5" />;

const SHORTCUTS: Record<string, FormatKind> = { b: 'bold', i: 'italic', k: 'link', e: 'code' };
const SHIFT_SHORTCUTS: Record<string, FormatKind> = { Digit7: 'numberedList', Digit8: 'bulletList' };
const MODIFIER_KEYS = new Set(['Shift', 'Control', 'Alt', 'Meta']);

function shortcutText(mac: boolean, key: string, shift = false): string {
  return mac ? `⌘${shift ? '⇧' : ''}${key}` : `Ctrl+${shift ? 'Shift+' : ''}${key}`;
}

interface ToolbarProps {
  messages: Record<string, string>;
  mac: boolean;
  controls: string;
  onFormat(kind: FormatKind): void;
  onImage(): void;
}

/** One tab stop; arrow keys, Home and End move between the buttons (WAI-ARIA toolbar). */
const Toolbar = memo(function Toolbar({ messages, mac, controls, onFormat, onImage }: ToolbarProps): ReactElement {
  const [active, setActive] = useState(0);
  const count = TOOLS.length + 1;
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const moves: Record<string, number> = { ArrowRight: active + 1, ArrowLeft: active - 1, Home: 0, End: count - 1 };
    const target = moves[e.key];
    if (target === undefined) return;
    e.preventDefault();
    const next = (target + count) % count;
    setActive(next);
    e.currentTarget.querySelectorAll('button')[next]?.focus();
  };
  // Pressing a button must not take focus (and the selection) away from the text.
  const keepSelection = (e: MouseEvent): void => e.preventDefault();
  const button = (index: number, label: string, icon: ReactElement, onClick: () => void, shortcut?: string): ReactElement => (
    <button key={label} type="button" className="md-editor__btn" tabIndex={index === active ? 0 : -1} aria-label={label}
      title={shortcut ? `${label} (${shortcut})` : label} onMouseDown={keepSelection} onFocus={() => setActive(index)} onClick={onClick}>
      {icon}
    </button>
  );
  return (
    <div role="toolbar" className="md-editor__toolbar" aria-label={messages['editor.toolbar'] ?? 'editor.toolbar'} aria-controls={controls} onKeyDown={onKeyDown}>
      {TOOLS.map((tool, i) => button(i, messages[tool.label] ?? tool.label, tool.icon, () => onFormat(tool.kind), tool.key ? shortcutText(mac, tool.key, tool.shift) : undefined))}
      {button(TOOLS.length, messages['editor.image'] ?? 'editor.image', IMAGE_ICON, onImage)}
    </div>
  );
});

// ---------------------------------------------------------------------------------------------
// Preview

/** One top-level block of the preview: its HTML and the nodes it became. */
interface Block {
  html: string;
  nodes: ChildNode[];
}

/** Pairs blocks with their nodes (an element, then the text after it); null if they do not line up. */
function pairBlocks(htmls: string[], nodes: ChildNode[]): Block[] | null {
  const blocks: Block[] = [];
  let i = 0;
  for (const html of htmls) {
    const first = nodes[i];
    if (!first || first.nodeType !== Node.ELEMENT_NODE || !html.startsWith('<')) return null;
    const group: ChildNode[] = [first];
    for (i++; i < nodes.length && nodes[i]!.nodeType === Node.TEXT_NODE; i++) group.push(nodes[i]!);
    blocks.push({ html, nodes: group });
  }
  return i === nodes.length ? blocks : null;
}

/**
 * Replaces only the blocks whose HTML changed: images do not reload and flicker on every
 * keystroke, and the parsing and layout stay proportional to the edit, not to the document.
 * Returns the new block list, or null after a full redraw it could not pair up.
 */
function patchPreview(target: HTMLElement, previous: Block[] | null, html: string): Block[] | null {
  const next = splitBlocks(html);
  const prev = previous ?? [];
  let head = 0;
  let tail = 0;
  if (previous) {
    while (head < prev.length && head < next.length && prev[head]!.html === next[head]) head++;
    while (tail < prev.length - head && tail < next.length - head && prev[prev.length - 1 - tail]!.html === next[next.length - 1 - tail]) tail++;
  }
  const changed = next.slice(head, next.length - tail);
  const template = document.createElement('template');
  template.innerHTML = changed.join('');
  const fresh = pairBlocks(changed, Array.from(template.content.childNodes));
  if (!previous || !fresh) {
    template.innerHTML = html;
    const nodes = Array.from(template.content.childNodes);
    target.replaceChildren(template.content);
    return pairBlocks(next, nodes);
  }
  const anchor = prev[prev.length - tail]?.nodes[0] ?? null;
  for (const block of prev.slice(head, prev.length - tail)) for (const node of block.nodes) node.remove();
  target.insertBefore(template.content, anchor);
  return [...prev.slice(0, head), ...fresh, ...prev.slice(prev.length - tail)];
}

const NARROW = '(max-width: 800px)';

// ---------------------------------------------------------------------------------------------
// Uploads

interface UploadedFile {
  url: string;
  full_url?: string;
  name?: string;
}

const IMAGE_TYPES = 'image/png,image/jpeg,image/gif,image/webp';

function isImage(file: File): boolean {
  return file.type.startsWith('image/');
}

/** A CDN address when the site has one; otherwise the site-relative path, which survives a change of domain. */
function imageUrl(file: UploadedFile): string {
  if (file.full_url) {
    try {
      if (new URL(file.full_url, location.href).host !== location.host) return file.full_url;
    } catch { /* not a URL: use the path */ }
  }
  return file.url;
}

// ---------------------------------------------------------------------------------------------

export default function MarkdownEditor({
  name, value, onChange, messages, draftKey, uploadTopic, rows = 10, placeholder, label, autoFocus, layout = 'tabs', syncScroll = false,
}: MarkdownEditorProps): ReactElement {
  const t = (key: string, values?: Record<string, string | number>): string => interpolate(messages[key] ?? key, values);
  const id = useId();
  const ids = { text: `${id}text`, hint: `${id}hint`, tabWrite: `${id}tw`, tabPreview: `${id}tp`, write: `${id}pw`, preview: `${id}pp` };

  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const previewRef = useRef<HTMLDivElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const valueRef = useRef(value);
  const onChangeRef = useRef(onChange);
  const messagesRef = useRef(messages);
  const initialRef = useRef(value);
  const macRef = useRef(false);
  const composingRef = useRef(false);
  /** Escape was pressed: the next Tab leaves the editor even inside a list. */
  const tabEscapesRef = useRef(false);
  const mountedRef = useRef(false);

  const [tab, setTab] = useState<'write' | 'preview'>('write');
  const [narrow, setNarrow] = useState(false);
  const [mac, setMac] = useState(false);
  const [draftRestored, setDraftRestored] = useState(false);
  const [uploads, setUploads] = useState(0);
  const [dragging, setDragging] = useState(false);
  // Split view shows the preview in the server's HTML too; tabs render it when first opened.
  const [initialHtml] = useState(() => (layout === 'split' ? renderWithPageModules(value).html : ''));
  const renderedRef = useRef<string | null>(layout === 'split' ? value : null);
  // What the visitor typed before hydration: React resets a controlled textarea to its initial value.
  const [typedEarly] = useState(() => (typeof document === 'undefined' ? null : (document.getElementById(ids.text) as HTMLTextAreaElement | null)?.value ?? null));

  useLayoutEffect(() => {
    valueRef.current = value;
    onChangeRef.current = onChange;
    messagesRef.current = messages;
  });

  // Mount: platform, viewport, the text typed before hydration or else a saved draft.
  useEffect(() => {
    mountedRef.current = true;
    macRef.current = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
    setMac(macRef.current);
    const media = window.matchMedia(NARROW);
    setNarrow(media.matches);
    const onMedia = (e: MediaQueryListEvent): void => setNarrow(e.matches);
    media.addEventListener('change', onMedia);

    if (typedEarly !== null && typedEarly !== initialRef.current) {
      onChangeRef.current(typedEarly);
    } else if (draftKey) {
      const draft = readDraft(draftKey);
      if (draft && Date.now() - draft.t > DRAFT_MAX_AGE) removeDraft(draftKey);
      else if (draft && draft.v !== initialRef.current && /\S/.test(draft.v)) {
        onChangeRef.current(draft.v);
        setDraftRestored(true);
      }
    }
    return () => {
      mountedRef.current = false;
      media.removeEventListener('change', onMedia);
    };
    // Once: later prop changes are the caller's own edits, not a new initial state.
  }, []);

  // Draft autosave, debounced; written at once when the page goes away or the editor unmounts.
  const draftArmedRef = useRef(false);
  useEffect(() => {
    if (!draftKey) return;
    // The first run is the mount: nothing typed yet, and a saved draft may be about to come back.
    if (!draftArmedRef.current) {
      draftArmedRef.current = true;
      return;
    }
    scheduleDraft(draftKey, value, initialRef.current);
  }, [value, draftKey]);
  useEffect(() => {
    if (!draftKey) return;
    const flush = (): void => flushDraft(draftKey);
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, [draftKey]);

  // Live preview: the first change renders at once, further ones at most once per frame; none
  // while the preview is hidden.
  const previewShown = layout === 'split' ? !(narrow && tab === 'write') : tab === 'preview';
  /** The preview's blocks; undefined until the server's HTML (split view) has been paired up. */
  const blocksRef = useRef<Block[] | null | undefined>(undefined);
  const frameRef = useRef({ id: 0, dirty: false });
  /** Synchronised scrolling: pairs of textarea → preview scroll positions; null until measured again. */
  const anchorsRef = useRef<ScrollAnchor[] | null>(null);
  // One per editor: each keystroke re-renders only the section it changed.
  // Installed markdown modules render in the browser after a moment: then the preview is drawn again.
  const [sectionRender, setSectionRender] = useState(() => createSectionRenderer((markdown) => renderWithPageModules(markdown).html));
  useEffect(() => onModuleMarkdown(() => {
    renderedRef.current = null;
    setSectionRender(() => createSectionRenderer((markdown) => renderWithPageModules(markdown).html));
  }), []);
  const flushPreview = useCallback((): void => {
    const el = previewRef.current;
    const source = valueRef.current;
    if (!el || renderedRef.current === source) return;
    // The server's HTML is already there: pair it up instead of drawing it again.
    if (blocksRef.current === undefined) blocksRef.current = renderedRef.current === null ? null : pairBlocks(splitBlocks(initialHtml), Array.from(el.childNodes));
    renderedRef.current = source;
    blocksRef.current = patchPreview(el, blocksRef.current, sectionRender(source));
    anchorsRef.current = null;
  }, [initialHtml, sectionRender]);
  const requestPreview = useCallback((): void => {
    const frame = frameRef.current;
    if (frame.id) {
      frame.dirty = true;
      return;
    }
    flushPreview();
    const tick = (): void => {
      frame.id = frame.dirty ? requestAnimationFrame(tick) : 0;
      if (frame.dirty) flushPreview();
      frame.dirty = false;
    };
    frame.id = requestAnimationFrame(tick);
  }, [flushPreview]);
  useLayoutEffect(() => {
    if (previewShown && renderedRef.current !== value) requestPreview();
  }, [value, previewShown, requestPreview]);
  useEffect(() => () => {
    cancelAnimationFrame(frameRef.current.id);
    frameRef.current = { id: 0, dirty: false };
  }, []);

  // Synchronised scrolling (split view, side by side). Where headings sit on both sides is measured
  // on the first scroll after a change of text, size or rendering, not while typing.
  const syncing = syncScroll && layout === 'split' && !narrow;
  const paneRef = useRef<HTMLDivElement>(null);
  /** Where a pane was just scrolled to by the other side: its next scroll event is that echo. */
  const echoRef = useRef(new Map<Element, number>());
  const syncFrameRef = useRef(0);
  const measureAnchors = useCallback((): ScrollAnchor[] | null => {
    const ta = textareaRef.current;
    const pane = paneRef.current;
    const body = previewRef.current;
    if (!ta || !pane || !body) return null;
    if (anchorsRef.current) return anchorsRef.current;
    const headings = sourceHeadings(ta.value);
    const elements = Array.from(body.querySelectorAll('h1, h2, h3, h4, h5, h6'));
    const pairs = pairHeadings(headings, elements.map((el) => headingKey(el.textContent ?? '')));
    const textTops = pairs.length ? measureTextLines(ta, pairs.map(([s]) => headings[s]!.line)) : [];
    const previewTops = measureTops(pane, pairs.map(([, p]) => elements[p]!));
    const points = pairs.map((_, i) => ({ from: textTops[i]!, to: previewTops[i]! }));
    anchorsRef.current = buildAnchors(points, ta.scrollHeight - ta.clientHeight, pane.scrollHeight - pane.clientHeight);
    return anchorsRef.current;
  }, []);
  const syncFrom = useCallback((side: 'text' | 'preview'): void => {
    if (syncFrameRef.current) return;
    syncFrameRef.current = requestAnimationFrame(() => {
      syncFrameRef.current = 0;
      const ta = textareaRef.current;
      const pane = paneRef.current;
      const anchors = measureAnchors();
      if (!ta || !pane || !anchors) return;
      const [from, to, map] = side === 'text' ? [ta, pane, anchors] : [pane, ta, invert(anchors)];
      const top = Math.round(mapThrough(map, from.scrollTop));
      if (Math.abs(to.scrollTop - top) < 1) return;
      to.scrollTop = top;
      echoRef.current.set(to, to.scrollTop);
    });
  }, [measureAnchors]);
  const onSyncScroll = (side: 'text' | 'preview') => (e: UIEvent<HTMLElement>): void => {
    if (!syncing) return;
    const echo = echoRef.current.get(e.currentTarget);
    if (echo !== undefined) {
      echoRef.current.delete(e.currentTarget);
      if (Math.abs(echo - e.currentTarget.scrollTop) < 2) return;
    }
    syncFrom(side);
  };
  useEffect(() => {
    if (!syncing || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => { anchorsRef.current = null; });
    for (const el of [textareaRef.current, paneRef.current, previewRef.current]) if (el) observer.observe(el);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(syncFrameRef.current);
      syncFrameRef.current = 0;
    };
  }, [syncing]);
  // Typing can move what the preview shows (a picture, a table): line it up again once typing pauses.
  useEffect(() => {
    anchorsRef.current = null;
    if (!syncing) return;
    const timer = setTimeout(() => syncFrom('text'), 250);
    return () => clearTimeout(timer);
  }, [value, syncing, syncFrom]);

  /**
   * Applies an edit through the browser's editing commands, so Ctrl+Z undoes it like typing;
   * sets the value directly where the browser refuses.
   */
  const commit = useCallback((edit: Edit): void => {
    const ta = textareaRef.current;
    if (!ta) return;
    if (edit.value !== ta.value) {
      const { start, end, text } = diffRange(ta.value, edit.value);
      ta.focus();
      ta.setSelectionRange(start, end);
      let done = false;
      // Only while the textarea really has focus (it cannot while the Preview tab hides it).
      if (document.activeElement === ta) {
        try {
          done = document.execCommand(text ? 'insertText' : 'delete', false, text);
        } catch {
          done = false;
        }
      }
      if (!done || ta.value !== edit.value) {
        ta.value = edit.value;
        onChangeRef.current(edit.value);
      }
    } else {
      ta.focus();
    }
    ta.setSelectionRange(edit.selStart, edit.selEnd);
  }, []);

  const format = useCallback((kind: FormatKind): void => {
    const ta = textareaRef.current;
    if (ta) commit(applyFormat(ta.value, ta.selectionStart, ta.selectionEnd, kind));
  }, [commit]);

  /** Swaps an upload placeholder for its result wherever it now is, leaving the author's caret alone. */
  const replacePlaceholder = useCallback((candidates: string[], replacement: string): void => {
    const ta = textareaRef.current;
    if (!ta || !mountedRef.current) return;
    // Changing the text under an IME would break the word being composed: wait for it.
    if (composingRef.current) {
      setTimeout(() => replacePlaceholder(candidates, replacement), 250);
      return;
    }
    const current = ta.value;
    const search = candidates.find((c) => current.includes(c));
    const next = search === undefined ? null : replaceFirst(current, search, replacement);
    if (search === undefined || next === null) return;
    const at = current.indexOf(search);
    const delta = replacement.length - search.length;
    const move = (p: number): number => (p <= at ? p : p >= at + search.length ? p + delta : at + replacement.length);
    const [selStart, selEnd] = [move(ta.selectionStart), move(ta.selectionEnd)];
    if (document.activeElement === ta) {
      // The edit selects the placeholder for a moment; the author's view must not jump there.
      const scroll = ta.scrollTop;
      commit({ value: next, selStart, selEnd });
      ta.scrollTop = scroll;
      return;
    }
    ta.value = next;
    ta.setSelectionRange(selStart, selEnd);
    onChangeRef.current(next);
  }, [commit]);

  const topic = uploadTopic ?? 'default';
  const uploadImages = useCallback(async (files: File[]): Promise<void> => {
    const ta = textareaRef.current;
    const images = files.filter(isImage);
    if (!ta || images.length === 0) return;
    const placeholders = images.map((f) => `![${escapeAlt(interpolate(messagesRef.current['editor.uploading'] ?? 'editor.uploading', { name: f.name }))}]()`);
    commit(insertText(ta.value, ta.selectionStart, ta.selectionEnd, placeholders.join('\n')));
    setUploads((n) => n + images.length);
    // Through the page's upload queue (3 files at a time, pause/resume there); each image appears in
    // the text when its upload succeeds, and its placeholder goes when it is canceled.
    await Promise.all(images.map(async (file, i) => {
      const placeholder = placeholders[i]!;
      let replacement = '';
      try {
        const stored = await enqueueUpload(file, { topic });
        replacement = imageMarkdown(stored.name || file.name, imageUrl(stored));
      } catch {
        // Canceled in the queue: the placeholder goes, with the line break it came with.
      } finally {
        if (mountedRef.current) setUploads((n) => n - 1);
      }
      const candidates = replacement || images.length === 1 ? [placeholder] : [`${placeholder}\n`, `\n${placeholder}`, placeholder];
      replacePlaceholder(candidates, replacement);
    }));
  }, [commit, replacePlaceholder, topic]);

  const onInput = (e: ChangeEvent<HTMLTextAreaElement>): void => {
    const ta = e.target;
    const merged = !composingRef.current && ta.selectionStart === ta.selectionEnd ? mergeTaskMarkers(ta.value, ta.selectionStart) : null;
    if (merged) commit({ value: merged.value, selStart: merged.caret, selEnd: merged.caret });
    else onChange(ta.value);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): void => {
    // Chinese and other IMEs use Enter and letters to pick candidates: leave those keys to them.
    if (composingRef.current || e.nativeEvent.isComposing || e.keyCode === 229 || MODIFIER_KEYS.has(e.key)) return;
    const escaped = tabEscapesRef.current;
    tabEscapesRef.current = e.key === 'Escape';
    const ta = e.currentTarget;
    const mod = macRef.current ? e.metaKey : e.ctrlKey;
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      ta.form?.requestSubmit();
      return;
    }
    if (mod && !e.altKey) {
      const kind = e.shiftKey ? SHIFT_SHORTCUTS[e.code] : SHORTCUTS[e.key.toLowerCase()];
      if (kind) {
        e.preventDefault();
        format(kind);
      }
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && ta.selectionStart === ta.selectionEnd) {
      const next = continueList(ta.value, ta.selectionStart);
      if (next) {
        e.preventDefault();
        commit({ value: next.value, selStart: next.caret, selEnd: next.caret });
      }
      return;
    }
    if (e.key === 'Tab' && !escaped && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const next = indentLines(ta.value, ta.selectionStart, ta.selectionEnd, e.shiftKey);
      if (next) {
        e.preventDefault();
        commit(next);
      }
    }
  };

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>): void => {
    const images = Array.from(e.clipboardData.files).filter(isImage);
    // Text wins: spreadsheets and word processors put a picture of the copied text beside it.
    if (images.length === 0 || e.clipboardData.getData('text/plain')) return;
    e.preventDefault();
    void uploadImages(images);
  };

  const onDragOver = (e: DragEvent<HTMLTextAreaElement>): void => {
    if (!Array.from(e.dataTransfer.types).includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };

  const onDrop = (e: DragEvent<HTMLTextAreaElement>): void => {
    setDragging(false);
    const files = Array.from(e.dataTransfer.files);
    if (files.length === 0) return;
    // A file dropped on the page would otherwise replace it with the file.
    e.preventDefault();
    void uploadImages(files);
  };

  const onImage = useCallback((): void => fileRef.current?.click(), []);

  const discardDraft = (): void => {
    if (draftKey) clearDraft(draftKey);
    setDraftRestored(false);
    const initial = initialRef.current;
    commit({ value: initial, selStart: initial.length, selEnd: initial.length });
  };

  const selectTab = (next: 'write' | 'preview', focus = false): void => {
    setTab(next);
    if (focus) document.getElementById(next === 'write' ? ids.tabWrite : ids.tabPreview)?.focus();
  };

  const onTabKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) return;
    e.preventDefault();
    const next = e.key === 'Home' ? 'write' : e.key === 'End' ? 'preview' : tab === 'write' ? 'preview' : 'write';
    selectTab(next, true);
  };

  // Preview links open elsewhere: following one here would leave the unsaved text behind.
  const onPreviewClick = (e: MouseEvent<HTMLDivElement>): void => {
    const link = (e.target as Element).closest('a');
    if (!link) return;
    e.preventDefault();
    const href = link.getAttribute('href') ?? '';
    if (href && !href.startsWith('#')) window.open(link.href, '_blank', 'noopener');
  };

  const empty = !/\S/.test(value);
  const tabButton = (which: 'write' | 'preview'): ReactElement => (
    <button type="button" role="tab" id={which === 'write' ? ids.tabWrite : ids.tabPreview} className="md-editor__tab"
      aria-selected={tab === which} aria-controls={which === 'write' ? ids.write : ids.preview} tabIndex={tab === which ? 0 : -1}
      onClick={() => selectTab(which)}>
      {t(which === 'write' ? 'editor.write' : 'editor.preview')}
    </button>
  );

  return (
    <div className={`md-editor md-editor--${layout}${dragging ? ' is-dragging' : ''}`} data-tab={tab}>
      <label className="md-editor__label" htmlFor={ids.text}>{label}</label>
      <div className="md-editor__frame">
        <div className="md-editor__bar">
          <div role="tablist" className="md-editor__tabs" aria-label={label} onKeyDown={onTabKey}>
            {tabButton('write')}
            {tabButton('preview')}
          </div>
          <Toolbar messages={messages} mac={mac} controls={ids.text} onFormat={format} onImage={onImage} />
          <input ref={fileRef} type="file" accept={IMAGE_TYPES} multiple hidden tabIndex={-1}
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              void uploadImages(files);
            }} />
        </div>
        {draftRestored && (
          <div className="md-editor__draft" role="status">
            <span>{t('editor.draftRestored')}</span>
            <button type="button" className="link-btn" onClick={discardDraft}>{t('editor.discardDraft')}</button>
          </div>
        )}
        <div className="md-editor__panes">
          <div role="tabpanel" id={ids.write} aria-labelledby={ids.tabWrite} className="md-editor__pane md-editor__write">
            <textarea ref={textareaRef} id={ids.text} name={name} value={value} rows={rows} placeholder={placeholder}
              autoFocus={autoFocus} aria-describedby={ids.hint}
              onChange={onInput} onKeyDown={onKeyDown} onScroll={onSyncScroll('text')}
              onCompositionStart={() => { composingRef.current = true; }}
              onCompositionEnd={() => { composingRef.current = false; }}
              onPaste={onPaste} onDragOver={onDragOver} onDragLeave={() => setDragging(false)} onDrop={onDrop} />
          </div>
          <div ref={paneRef} role="tabpanel" id={ids.preview} aria-labelledby={ids.tabPreview} className="md-editor__pane md-editor__preview" tabIndex={0} onScroll={onSyncScroll('preview')}>
            {empty && <p className="md-editor__empty">{t('editor.empty')}</p>}
            {/* Filled by patchChildren after the first render; React keeps the same initial HTML and never touches it again. */}
            <div ref={previewRef} className="markdown-body" hidden={empty} onClick={onPreviewClick} dangerouslySetInnerHTML={{ __html: initialHtml }} />
          </div>
        </div>
        <div className="md-editor__foot">
          <span id={ids.hint}>{t('editor.hint')}</span>
          <span role="status">{uploads > 0 ? t('editor.uploadingCount', { count: uploads }) : ''}</span>
        </div>
      </div>
      <UploadQueue />
    </div>
  );
}
