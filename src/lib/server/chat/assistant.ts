// The built-in site assistant: no generative model. It answers from retrieval alone, honestly
// labelled: a lead from the best-matching section, the passages quoted with their links, related
// forum questions, or an offer to ask the forum with the question filled in.
import { translator, type Locale } from '../../i18n';
import type { Source } from './retrieve';

function firstSentence(text: string): string {
  const m = /^[\s\S]{20,}?[.!?。！？](?=\s|$)/u.exec(text);
  const s = (m ? m[0] : text).trim();
  return Array.from(s).length > 220 ? `${Array.from(s).slice(0, 220).join('')}…` : s;
}

function quote(text: string): string {
  return text.split('\n').map((l) => `> ${l.replace(/^([#>*+-]|\d+\.)\s/, '\\$1 ')}`).join('\n');
}

function shorten(text: string, chars: number): string {
  const all = Array.from(text);
  return all.length > chars ? `${all.slice(0, chars).join('').trimEnd()}…` : text;
}

const escapeMd = (s: string): string => s.replace(/([[\]\\*_`<>])/g, '\\$1');

/** The assistant's answer in markdown; citations are `[n]` like a model's. */
export function assistantAnswer(question: string, sources: Source[], locale: Locale, askUrl: string): string {
  const t = translator(locale, 'chat');
  const lines: string[] = [t('chat.assistant.label'), ''];
  if (!sources.length) {
    const short = Array.from(question.trim()).slice(0, 80).join('');
    lines.push(t('chat.assistant.nothing', { question: escapeMd(short) }), '');
    lines.push(`[${t('chat.assistant.askForum')}](${askUrl})`);
    return lines.join('\n');
  }
  const docs = sources.filter((s) => s.kind === 'doc' || s.kind === 'answer');
  const best = docs[0] ?? sources[0]!;
  lines.push(t('chat.assistant.lead', { title: escapeMd(best.heading || best.title) }), '', `${firstSentence(best.text)} [${best.n}]`, '');
  if (docs.length) {
    lines.push(`**${t('chat.assistant.passages')}**`, '');
    for (const s of docs.slice(0, 3)) {
      const name = s.heading && s.heading !== s.title ? `${s.title} › ${s.heading}` : s.title;
      lines.push(`[${escapeMd(name)}](${s.url}) [${s.n}]`, '', quote(shorten(s.text, 300)), '');
    }
  }
  const related = sources.filter((s) => s.kind === 'post');
  if (related.length) {
    lines.push(`**${t('chat.assistant.related')}**`, '');
    for (const s of related) lines.push(`- [${escapeMd(s.title)}](${s.url}) [${s.n}]`);
  }
  return lines.join('\n').trimEnd();
}

/** Cuts an answer into the pieces it streams in: words, and CJK a few characters at a time. */
export function* pieces(text: string): Generator<string> {
  const re = /\s*[^\s\p{sc=Han}]+|\s*\p{sc=Han}{1,3}|\s+/gu;
  for (const m of text.matchAll(re)) yield m[0];
}
