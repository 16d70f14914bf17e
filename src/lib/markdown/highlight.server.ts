// Code highlighting at render time (no JavaScript in the reader's browser): shiki with the
// JavaScript regex engine (no WebAssembly), a fixed set of languages, light and dark themes.
import { createHighlighter, createJavaScriptRegexEngine, type Highlighter } from 'shiki';
import type { Highlight } from './render';

export const LANGUAGES = ['bash', 'css', 'diff', 'html', 'ini', 'java', 'javascript', 'json', 'jsx', 'markdown', 'nginx', 'php', 'python', 'rust', 'go', 'sql', 'toml', 'tsx', 'typescript', 'vue', 'yaml', 'dockerfile', 'c', 'cpp'] as const;
const ALIASES: Record<string, string> = { js: 'javascript', ts: 'typescript', sh: 'bash', shell: 'bash', zsh: 'bash', yml: 'yaml', md: 'markdown', py: 'python', rs: 'rust', golang: 'go' };

let highlighter: Promise<Highlighter> | null = null;

/** The highlight function for `renderMarkdown`; the highlighter loads once per process. */
let highlight: Highlight | null = null;

export async function serverHighlight(): Promise<Highlight> {
  highlighter ??= createHighlighter({ themes: ['github-light', 'github-dark'], langs: [...LANGUAGES], engine: createJavaScriptRegexEngine() });
  const h = await highlighter;
  // The same function every time: the markdown pipeline keeps one parser per highlighter.
  if (highlight) return highlight;
  const known = new Set<string>(LANGUAGES);
  return highlight = (code, lang) => {
    const language = ALIASES[lang] ?? lang;
    if (!known.has(language)) return null;
    return h.codeToHtml(code, { lang: language, themes: { light: 'github-light', dark: 'github-dark' }, defaultColor: 'light' });
  };
}
