// The pages bench/docs.mjs measures besides the guide itself, made from the guide's own text in
// docs/ so that their prose, tables, code and callouts are what a real book holds:
//   readerPage()  about 1,500 words: `##` sections of the English guide, chosen so that the page
//                 has at least 4 code blocks and 2 callouts (a typical reader page of the issue)
//   editorPage()  2,000 lines: the English and Chinese guides one after the other, repeated, with
//                 the headings of each repeat numbered so that their anchors stay unique
// Both are deterministic for a given docs/ folder. The step imports them with `md:import`.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.mjs';

export const READER_WORDS = { min: 1450, max: 1600 };
export const READER_FENCES = 4;
export const READER_CALLOUTS = 2;
export const EDITOR_LINES = 2000;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CALLOUT_OPEN = /^:::\s*(tip|note|info|warning|danger)\b/;
const CALLOUT_CLOSE = /^:::\s*$/;

/** Every `.md` file under docs/<lang>, in a stable order (a folder's index.md before its children). */
function guideFiles(lang) {
  const out = [];
  const walk = (dir) => {
    const entries = readdirSync(dir).sort((a, b) => (a === 'index.md' ? -1 : b === 'index.md' ? 1 : a.localeCompare(b)));
    for (const e of entries) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.md')) out.push(p);
    }
  };
  walk(join(ROOT, 'docs', lang));
  return out;
}

/** A guide file's text without its front matter. */
function body(file) {
  const text = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
  const m = /^---\n[\s\S]*?\n(?:---|\.\.\.)\n\n?/.exec(text);
  return (m ? text.slice(m[0].length) : text).trim();
}

export const countWords = (text) => text.split(/\s+/).filter(Boolean).length;
const countFences = (text) => text.split('\n').filter((l) => FENCE.test(l)).length / 2;
const countCallouts = (text) => text.split('\n').filter((l) => CALLOUT_OPEN.test(l)).length;

/** The English guide's `##` sections (with what follows each up to the next one). */
function sections() {
  const out = [];
  for (const file of guideFiles('en')) {
    const parts = body(file).split(/\n(?=## )/);
    for (const text of parts.slice(1)) out.push({ file, text: text.trim(), words: countWords(text), fences: countFences(text), callouts: countCallouts(text) });
  }
  return out;
}

/**
 * About 1,500 words of the English guide: first sections with code until there are 4 code blocks,
 * then sections with callouts until there are 2, then any section while the page stays under the
 * maximum, in the guide's own order. Returns the markdown and its counts.
 */
export function readerPage() {
  const all = sections();
  const chosen = new Set();
  const total = () => [...chosen].reduce((a, s) => ({ words: a.words + s.words, fences: a.fences + s.fences, callouts: a.callouts + s.callouts }), { words: 0, fences: 0, callouts: 0 });
  const heading = (s) => s.text.split('\n', 1)[0];
  // One section per heading: two "## Site settings" would make the table of contents repeat itself.
  const fits = (s) => !chosen.has(s) && ![...chosen].some((c) => heading(c) === heading(s)) && total().words + s.words <= READER_WORDS.max;
  for (const s of all) if (total().fences < READER_FENCES && s.fences && fits(s)) chosen.add(s);
  for (const s of all) if (total().callouts < READER_CALLOUTS && s.callouts && fits(s)) chosen.add(s);
  // Small sections last: fill up to the minimum without overshooting the maximum.
  for (const s of [...all].sort((a, b) => a.words - b.words)) {
    if (total().words >= READER_WORDS.min) break;
    if (fits(s)) chosen.add(s);
  }
  const t = total();
  if (t.words < READER_WORDS.min || t.fences < READER_FENCES || t.callouts < READER_CALLOUTS) {
    throw new Error(`docs/en does not give a reader page of ${READER_WORDS.min}–${READER_WORDS.max} words with ${READER_FENCES} code blocks and ${READER_CALLOUTS} callouts (got ${JSON.stringify(t)})`);
  }
  const intro = 'This page gathers the parts of the guide that a new operator reads first: how the site is installed, configured, deployed and kept running. Each section stands on its own; the commands can be copied as they are.';
  const markdown = `${intro}\n\n${all.filter((s) => chosen.has(s)).map((s) => s.text).join('\n\n')}\n`;
  return { markdown, words: countWords(markdown), fences: countFences(markdown), callouts: countCallouts(markdown), sections: chosen.size };
}

/**
 * 2,000 lines of the English and Chinese guides, repeated; each repeat numbers its headings. The
 * last lines close a code block or callout left open by the cut.
 */
export function editorPage() {
  const source = ['en', 'zh-cn'].flatMap((lang) => guideFiles(lang).map(body)).join('\n\n').split('\n');
  const lines = [];
  for (let round = 1; lines.length < EDITOR_LINES; round++) {
    for (const line of source) {
      lines.push(round > 1 && /^#{1,6} /.test(line) ? `${line} (${round})` : line);
      if (lines.length === EDITOR_LINES) break;
    }
    if (lines.length < EDITOR_LINES) lines.push('');
  }
  // Close what the cut left open, on the last lines.
  let fence = null;
  let callout = false;
  for (const line of lines) {
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
    } else if (f) fence = f[1];
    else if (CALLOUT_OPEN.test(line)) callout = true;
    else if (CALLOUT_CLOSE.test(line)) callout = false;
  }
  const closers = [...(fence ? [fence] : []), ...(callout ? [':::'] : [])];
  lines.splice(lines.length - closers.length, closers.length, ...closers);
  const markdown = lines.join('\n');
  return { markdown, lines: lines.length, chars: markdown.length, fences: countFences(markdown) };
}
