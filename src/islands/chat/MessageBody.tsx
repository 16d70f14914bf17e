// An answer: markdown through the shared pipeline (no raw HTML), citations as links with a preview
// of the passage on hover or focus, copy buttons on code, and the sources listed underneath.
import { useEffect, useMemo, useRef, useState } from 'react';
import { copyText } from '../../lib/client/secure-context';
import { linkCitations, type ChatMetadata, type SourceMeta } from '../../lib/shared/chat';
import { SITE_ASSISTANT_MODEL, expandFramingHtml, framedText } from '../../lib/shared/chat-frame';
import { translate, type Messages } from '../user/form-helpers';

interface Props { text: string; metadata?: ChatMetadata; streaming: boolean; messages: Messages }

const CITE = /^\[(\d{1,2})\]$/;

type Render = (source: string) => { html: string };
let renderer: Render | null = null;
let loading: Promise<Render> | null = null;

/**
 * The shared markdown pipeline, loaded when the first answer needs it: an empty chat page does
 * not download it, and answers the server rendered do not wait for it.
 */
function useRenderer(needed: boolean): Render | null {
  // A function as the initial state would be called as an initialiser: wrap it.
  const [render, setRender] = useState<Render | null>(() => renderer);
  useEffect(() => {
    if (render || !needed) return;
    // With the site's markdown modules (math…): their spans render with each module's browser half.
    loading ??= import('../../lib/client/module-markdown').then((m) => (renderer = m.renderWithPageModules));
    void loading.then((r) => setRender(() => r));
  }, [needed, render]);
  return render;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export default function MessageBody({ text: stored, metadata, streaming, messages }: Props) {
  const sources = metadata?.sources ?? [];
  const ref = useRef<HTMLDivElement>(null);
  const [preview, setPreview] = useState<{ source: SourceMeta; top: number; left: number } | null>(null);
  // The site assistant's framing is in the reader's language (an answer stored with it in words is
  // recognised: its stored HTML holds the words of the language it was asked in, so it is rendered again).
  const assistant = metadata?.model === SITE_ASSISTANT_MODEL;
  const text = useMemo(() => (assistant ? framedText(stored) : stored), [assistant, stored]);
  // The server's rendering (code highlighted) once the answer is complete; the same pipeline here while it streams.
  const serverHtml = !streaming && metadata?.html && text === stored ? metadata.html : null;
  const render = useRenderer(serverHtml === null);
  const html = useMemo(() => {
    const made = serverHtml ?? (render ? render(linkCitations(text, sources)).html : `<p style="white-space:pre-wrap">${escapeHtml(text)}</p>`);
    return assistant ? expandFramingHtml(made, (key, values) => translate(messages, key, values)) : made;
  }, [text, serverHtml, render, sources, assistant, messages]);

  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    for (const a of root.querySelectorAll('a')) if (CITE.test(a.textContent ?? '')) a.classList.add('chat-cite');
    if (streaming) return;
    for (const pre of root.querySelectorAll('pre')) {
      if (pre.querySelector('.chat-copy')) continue;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'btn btn-sm chat-copy';
      button.textContent = translate(messages, 'chat.ui.copy');
      button.addEventListener('click', () => {
        void copyText(pre.querySelector('code')?.textContent ?? pre.textContent ?? '').then((done) => {
          if (!done) return;
          button.textContent = translate(messages, 'chat.ui.copied');
          setTimeout(() => { button.textContent = translate(messages, 'chat.ui.copy'); }, 1500);
        });
      });
      pre.append(button);
    }
  }, [html, streaming, messages]);

  const show = (target: EventTarget | null): void => {
    const a = (target as HTMLElement | null)?.closest?.('a');
    const m = a ? CITE.exec(a.textContent ?? '') : null;
    const source = m ? sources.find((s) => s.n === Number(m[1])) : undefined;
    if (!a || !source || !ref.current) { setPreview(null); return; }
    const box = a.getBoundingClientRect();
    const host = ref.current.getBoundingClientRect();
    setPreview({ source, top: box.bottom - host.top + 6, left: Math.max(0, Math.min(box.left - host.left, host.width - 300)) });
  };

  return (
    <div className="chat-answer" onMouseOver={(e) => show(e.target)} onFocus={(e) => show(e.target)} onMouseLeave={() => setPreview(null)} onBlur={() => setPreview(null)}>
      <div ref={ref} className="markdown-body" dangerouslySetInnerHTML={{ __html: html }} />
      {streaming && <span className="chat-caret" aria-hidden="true" />}
      {preview && (
        <div className="chat-preview card" role="tooltip" style={{ top: preview.top, left: preview.left }}>
          <strong>{preview.source.title}{preview.source.heading && preview.source.heading !== preview.source.title ? ` › ${preview.source.heading}` : ''}</strong>
          <p>{preview.source.excerpt}</p>
        </div>
      )}
      {sources.length > 0 && !streaming && (
        <details className="chat-sources">
          <summary>{translate(messages, 'chat.ui.sources')} ({sources.length})</summary>
          <ol>
            {sources.map((s) => (
              <li key={s.n} value={s.n}><a href={s.url}>{s.title}{s.heading && s.heading !== s.title ? ` › ${s.heading}` : ''}</a></li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
