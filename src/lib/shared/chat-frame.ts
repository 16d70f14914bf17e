// The site assistant's framing (its label, the lead-in to the best match, the section headings, the
// offer to ask the forum) is not stored as words in the language of the page that asked: the answer
// holds one marker line per piece, naming it and its values (`%%frame:lead:<hex of JSON>%%`), and
// each reader sees it in their own language, rendered when the answer is shown. Answers stored before
// (with the words in them) are recognised and shown the same way.

/** The model name of the site assistant's answers (src/lib/server/chat/models.ts SITE_ASSISTANT). */
export const SITE_ASSISTANT_MODEL = 'site';

export const FRAME_KEYS = ['label', 'lead', 'passages', 'related', 'nothing', 'askForum'] as const;
export type FrameKey = (typeof FRAME_KEYS)[number];
/** The values a piece of framing names: `title` (lead), `question` (nothing), `url` (askForum). */
export type FrameValues = Partial<Record<'title' | 'question' | 'url', string>>;

/** A dictionary lookup: `chat.assistant.<key>` with values. */
export type Translate = (key: string, values?: Record<string, string>) => string;

const MARKER = /^%%frame:([A-Za-z]+)(?::([0-9a-f]+))?%%$/;
// In rendered HTML a marker line is a paragraph of its own.
const MARKER_HTML = /<p(?:\s[^>]*)?>%%frame:([A-Za-z]+)(?::([0-9a-f]+))?%%<\/p>\n?/g;

const toHex = (s: string): string => Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, '0')).join('');
function fromHex(hex: string): string {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return new TextDecoder().decode(bytes);
}

/** The marker line of one piece of framing (hex keeps its values clear of markdown). */
export function frameLine(key: FrameKey, values?: FrameValues): string {
  return `%%frame:${key}${values ? `:${toHex(JSON.stringify(values))}` : ''}%%`;
}

function parse(key: string, hex: string | undefined): { key: FrameKey; values: FrameValues } | null {
  if (!(FRAME_KEYS as readonly string[]).includes(key)) return null;
  let values: FrameValues = {};
  if (hex) {
    try {
      const parsed = JSON.parse(fromHex(hex)) as unknown;
      if (parsed && typeof parsed === 'object') {
        for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string' && (k === 'title' || k === 'question' || k === 'url')) values[k] = v;
      }
    } catch { values = {}; }
  }
  return { key: key as FrameKey, values };
}

const escapeMd = (s: string): string => s.replace(/([[\]\\*_`<>])/g, '\\$1');
const unescapeMd = (s: string): string => s.replace(/\\([[\]\\*_`<>])/g, '$1');
const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** A link the framing may carry: this site's path or an http(s) address. */
const safeUrl = (url: string | undefined): string | null => (url && /^(https?:\/\/|\/(?!\/))/i.test(url) ? url : null);

// What answers stored before the markers said, in both languages, word for word (they stay so in the
// database whatever the dictionaries say now).
const LEGACY_LABELS = new Set([
  '*站点助手：以下内容摘自本站文档与社区，不是 AI 生成的。*',
  "*Site assistant: quoted from this site's docs and forum, not written by an AI model.*",
]);
const LEGACY: { key: FrameKey; re: RegExp; value?: keyof FrameValues; raw?: boolean }[] = [
  { key: 'lead', re: /^最相关的是《(.*)》：$/, value: 'title' },
  { key: 'lead', re: /^The closest match is “(.*)”:$/, value: 'title' },
  { key: 'passages', re: /^\*\*(?:相关段落|Relevant passages)\*\*$/ },
  { key: 'related', re: /^\*\*(?:社区里的相关问题|Related questions in the forum)\*\*$/ },
  { key: 'nothing', re: /^本站文档和社区里还没有与“(.*)”相关的内容。$/, value: 'question' },
  { key: 'nothing', re: /^Nothing in this site's docs or forum matches “(.*)” yet\.$/, value: 'question' },
  { key: 'askForum', re: /^\[(?:到社区提问|Ask the community)\]\((\S*)\)$/, value: 'url', raw: true },
];

/**
 * A site assistant's answer with its framing as markers: one stored with the words of the language
 * it was asked in (before the markers) is recognised by its label line and turned into markers; any
 * other text is returned as it is.
 */
export function framedText(text: string): string {
  const lines = text.split('\n');
  if (!LEGACY_LABELS.has(lines[0] ?? '')) return text;
  lines[0] = frameLine('label');
  let fence = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^ {0,3}(```|~~~)/.test(line)) fence = !fence;
    // Quoted passages start with `>` and code sits in fences: only the framing's own lines match.
    if (fence || line.startsWith('>')) continue;
    for (const rule of LEGACY) {
      const m = rule.re.exec(line);
      if (!m) continue;
      lines[i] = frameLine(rule.key, rule.value ? { [rule.value]: rule.raw ? m[1]! : unescapeMd(m[1]!) } : undefined);
      break;
    }
  }
  return lines.join('\n');
}

/** One piece of framing as markdown, in the reader's language. */
function frameMarkdown(key: FrameKey, values: FrameValues, t: Translate): string {
  const text = t(`chat.assistant.${key}`, { title: escapeMd(values.title ?? ''), question: escapeMd(values.question ?? '') });
  if (key === 'passages' || key === 'related') return `**${text}**`;
  if (key === 'askForum') {
    const url = safeUrl(values.url);
    return url ? `[${text}](${url.replace(/[()\s]/g, encodeURIComponent)})` : text;
  }
  return text;
}

/** One piece of framing as HTML, in the reader's language (its values escaped). */
function frameHtml(key: FrameKey, values: FrameValues, t: Translate): string {
  const text = escapeHtml(t(`chat.assistant.${key}`, { title: values.title ?? '', question: values.question ?? '' }));
  switch (key) {
    case 'label': return `<p><em>${text.replace(/^\*(.*)\*$/, '$1')}</em></p>\n`;
    case 'passages': case 'related': return `<p><strong>${text}</strong></p>\n`;
    case 'askForum': {
      const url = safeUrl(values.url);
      return url ? `<p><a href="${escapeHtml(url)}">${text}</a></p>\n` : `<p>${text}</p>\n`;
    }
    default: return `<p>${text}</p>\n`;
  }
}

/** An answer's text with its framing in words of the reader's language (to copy, to read out, for a model). */
export function expandFraming(text: string, t: Translate): string {
  if (!text.includes('%%frame:')) return text;
  return text.split('\n').map((line) => {
    const m = MARKER.exec(line);
    const piece = m ? parse(m[1]!, m[2]) : null;
    return m ? (piece ? frameMarkdown(piece.key, piece.values, t) : '') : line;
  }).join('\n');
}

/** An answer's rendered HTML with its framing's paragraphs in the reader's language. */
export function expandFramingHtml(html: string, t: Translate): string {
  if (!html.includes('%%frame:')) return html;
  return html.replace(MARKER_HTML, (_whole, key: string, hex: string | undefined) => {
    const piece = parse(key, hex);
    return piece ? frameHtml(piece.key, piece.values, t) : '';
  });
}
