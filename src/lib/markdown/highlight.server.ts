// Code highlighting at render time (no JavaScript in the reader's browser): shiki with the
// JavaScript regex engine (no WebAssembly), a fixed set of languages, light and dark themes.
import { createHighlighter, createJavaScriptRegexEngine, type Highlighter } from 'shiki';
import type { Highlight } from './render';

export const LANGUAGES = ['bash', 'css', 'diff', 'html', 'ini', 'java', 'javascript', 'json', 'jsx', 'markdown', 'nginx', 'php', 'python', 'rust', 'go', 'sql', 'toml', 'tsx', 'typescript', 'vue', 'yaml', 'dockerfile', 'c', 'cpp'] as const;
const ALIASES: Record<string, string> = { js: 'javascript', ts: 'typescript', sh: 'bash', shell: 'bash', zsh: 'bash', yml: 'yaml', md: 'markdown', py: 'python', rs: 'rust', golang: 'go' };

// Once per process, whichever copy of this module asks first (the server's bundle renders chat
// answers of POST /api/chat/send, Astro's bundle the pages): shiki is tens of megabytes.
// Kept on the same global symbol as lib/server/process-wide.ts would (lib/markdown imports nothing of lib/server).
type Shared = { highlighter: Promise<Highlighter> | null; highlight: Highlight | null };
const shared: Shared = ((globalThis as unknown as Record<symbol, Shared | undefined>)[Symbol.for('atrium.highlighter')] ??= { highlighter: null, highlight: null });

/** The highlight function for `renderMarkdown`; the highlighter loads once per process. */
export async function serverHighlight(): Promise<Highlight> {
  shared.highlighter ??= createHighlighter({ themes: ['github-light', 'github-dark'], langs: [...LANGUAGES], engine: createJavaScriptRegexEngine() });
  const h = await shared.highlighter;
  // The same function every time: the markdown pipeline keeps one parser per highlighter.
  if (shared.highlight) return shared.highlight;
  const known = new Set<string>(LANGUAGES);
  return shared.highlight = (code, lang) => {
    const language = ALIASES[lang] ?? lang;
    if (!known.has(language)) return null;
    return h.codeToHtml(code, { lang: language, themes: { light: 'github-light', dark: 'github-dark' }, defaultColor: 'light' });
  };
}
