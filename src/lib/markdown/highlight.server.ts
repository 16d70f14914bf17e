// Code highlighting at render time (no JavaScript in the reader's browser): shiki with the
// JavaScript regex engine (no WebAssembly), a fixed set of languages, light and dark themes.
import { createHighlighter, createJavaScriptRegexEngine, type Highlighter } from 'shiki';
import type { Highlight } from './render';

export const LANGUAGES = ['bash', 'css', 'diff', 'html', 'ini', 'java', 'javascript', 'json', 'jsx', 'markdown', 'nginx', 'php', 'python', 'rust', 'go', 'sql', 'toml', 'tsx', 'typescript', 'vue', 'yaml', 'dockerfile', 'c', 'cpp'] as const;
const ALIASES: Record<string, string> = { js: 'javascript', ts: 'typescript', sh: 'bash', shell: 'bash', zsh: 'bash', yml: 'yaml', md: 'markdown', py: 'python', rs: 'rust', golang: 'go' };

// Once per process, whichever copy of this module asks first (the server's bundle renders chat
// answers of POST /api/chat/send, Astro's bundle the pages). The highlighter starts with its two
// themes only and loads a language's grammar the first time a text to render has a code block in
// it: all 24 at once cost ~0.6 s of CPU and ~50 MB, which a site whose posts hold no code (or the
// first render after a module install) need not pay.
// Kept on the same global symbol as lib/server/process-wide.ts would (lib/markdown imports nothing of lib/server).
type Shared = { highlighter: Promise<Highlighter> | null; highlight: Highlight | null; loading: Map<string, Promise<void>> };
const shared: Shared = ((globalThis as unknown as Record<symbol, Shared | undefined>)[Symbol.for('atrium.highlighter')] ??= { highlighter: null, highlight: null, loading: new Map() });

const KNOWN = new Set<string>(LANGUAGES);

type Language = (typeof LANGUAGES)[number];

/** A fence's language as the highlighter knows it, or null. */
function languageOf(lang: string): Language | null {
  const language = ALIASES[lang] ?? lang;
  return KNOWN.has(language) ? (language as Language) : null;
}

/**
 * The languages of the fenced code blocks in `markdown` that the highlighter knows: the first word
 * of each fence's info string, wherever the fence is (lists and quotes included; a fence that is
 * not one only loads a grammar for nothing).
 */
export function fenceLanguages(markdown: string): Language[] {
  const found = new Set<Language>();
  for (const m of markdown.matchAll(/^[ \t>*+\-\d.)]*(?:`{3,}|~{3,})[ \t]*([^\s`{]+)/gm)) {
    const language = languageOf(m[1]!.toLowerCase());
    if (language) found.add(language);
  }
  return [...found];
}

/**
 * The highlight function for `renderMarkdown`, with the grammars of the code blocks in `markdown`
 * loaded (a language not loaded yet renders as plain code). The highlighter loads once per process.
 */
export async function serverHighlight(markdown = ''): Promise<Highlight> {
  shared.highlighter ??= createHighlighter({ themes: ['github-light', 'github-dark'], langs: [], engine: createJavaScriptRegexEngine() });
  const h = await shared.highlighter;
  // One load per language, shared by renders that meet it at once; a failed load is forgotten (the
  // code renders plain meanwhile) so the next text with that language tries again.
  await Promise.all(fenceLanguages(markdown).map((l) => {
    let p = shared.loading.get(l);
    if (!p) shared.loading.set(l, p = h.loadLanguage(l).catch(() => { shared.loading.delete(l); }));
    return p;
  }));
  // The same function every time: the markdown pipeline keeps one parser per highlighter.
  if (shared.highlight) return shared.highlight;
  return shared.highlight = (code, lang) => {
    const language = languageOf(lang);
    if (!language || !h.getLoadedLanguages().includes(language)) return null;
    return h.codeToHtml(code, { lang: language, themes: { light: 'github-light', dark: 'github-dark' }, defaultColor: 'light' });
  };
}
