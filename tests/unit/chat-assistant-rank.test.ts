// The site assistant's ranking and quoting (issue 29 item 15): pure functions of retrieve.ts and
// assistant.ts. Citation accuracy on real content is measured by `npm run bench -- assistant`.
import { describe, expect, it } from 'vitest';
import { explainPassages, holds, keywordsOf, scorePassages, sectionMarkdown, tableShare, type Scored } from '../../src/lib/server/chat/retrieve';
import { assistantAnswer, quoteMarkdown } from '../../src/lib/server/chat/assistant';

const doc = (heading: string, markdown: string, over: Partial<Scored> = {}): Scored => ({
  kind: 'doc', title: 'Configuration', heading, text: markdown.replace(/[|`#*-]/g, ' ').replace(/\s+/g, ' '), markdown, intro: false, sameLang: true, rank: 0.1, ...over,
});

describe('keywordsOf', () => {
  it('keeps a one-character stop word the segmenter cut off a word (上|传 → 上传), never a particle', () => {
    expect(keywordsOf('上传的文件存在哪里？')).toEqual(expect.arrayContaining(['上传', '文件']));
    expect(keywordsOf('上传的文件能存到腾讯云 COS 吗？')).toEqual(expect.arrayContaining(['上传', '腾讯云', 'cos']));
    expect(keywordsOf('上传的文件存在哪里？')).not.toContain('的');
  });
});

describe('holds', () => {
  it('matches a Latin word by its stem with a short ending, never a longer word it begins', () => {
    expect(holds('Uploaded files are stored here', 'upload')).toBe(1);
    expect(holds('the storage folder', 'stored')).toBe(1);
    expect(holds('site_name in the header', 'name')).toBe(1);
    expect(holds('PostgreSQL and Redis', 'post')).toBe(0);
  });

  it('matches a CJK word whole, or by the share of its two-character pieces', () => {
    expect(holds('站点设置保存在数据库里', '站点')).toBe(1);
    expect(holds('给会员发公告', '会员加')).toBe(0.5);
    expect(holds('站点设置', '名称')).toBe(0);
  });
});

describe('scorePassages', () => {
  const ENV_TABLE = '| Variable | Default | Meaning |\n|---|---|---|\n| `SITE_DOMAIN` | – | e.g. `example.com`: the site name\'s domain |\n| `SITE_URL` | – | The public origin |';
  const SETTINGS = 'Site settings live in the database. Change them with the operator command line:\n\n```bash\nnpm run atrium -- config:set site_name "Acme Community"\n```';

  it('puts the section whose heading and prose answer above a table fragment that mentions the words', () => {
    const passages = [doc('Site, speed and limits', ENV_TABLE), doc('Site settings', SETTINGS)];
    const [table, settings] = scorePassages('How do I change the site name?', ['change', 'site', 'name'], passages);
    expect(settings).toBeGreaterThan(table!);
  });

  it('puts a short section about the words above a long one that mentions each of them once among much else', () => {
    const filler = 'Modules add pages, settings and commands; each runs in its own host with the permissions it asked for. ';
    const hub = doc('Site modules', `${filler.repeat(6)}Reviews, the log and the version of each module are shown there. ${filler.repeat(6)}`);
    const logs = doc('Running it', 'Under systemd the log goes to the journal, and each line of it says the version.');
    const [long, short] = scorePassages('Where is the log, and how do I see the version?', ['version', 'log'], [hub, logs]);
    expect(short).toBeGreaterThan(long!);
  });

  it('ranks an accepted answer under a matching question title above an unsolved post and a weak docs match', () => {
    const q = 'How do I move from PGlite to PostgreSQL?';
    const words = ['postgresql', 'pglite', 'move'];
    const answer: Scored = { kind: 'answer', title: 'Moving from embedded PGlite to PostgreSQL and Redis', heading: '', text: 'Set DATABASE_URL; the data in data/db is not copied.', markdown: 'Set `DATABASE_URL`; the data in `data/db` is not copied.', intro: false, sameLang: true, rank: 0 };
    const post: Scored = { ...answer, kind: 'post', text: 'We run PGlite and want PostgreSQL. Is the data moved?' };
    const weak = doc('Requirements', 'Node 22 and disk space. PostgreSQL is optional.');
    const [a, p, w] = scorePassages(q, words, [answer, post, weak]);
    expect(a).toBeGreaterThan(p!);
    expect(a).toBeGreaterThan(w!);
  });

  it('leads with the accepted answer of a solved question whose title says what the reader asks', () => {
    const q = 'Is my data migrated when I move from PGlite to PostgreSQL?';
    const words = ['postgresql', 'migrated', 'pglite', 'data'];
    const answer: Scored = { kind: 'answer', title: 'Moving from PGlite to PostgreSQL: is my data migrated?', heading: '', text: 'No: set the connection string, then run the copy command once.', markdown: 'No: set the connection string, then run the copy command once.', intro: false, sameLang: true, rank: 0 };
    const prepare = doc('Prepare PostgreSQL', 'Create the PostgreSQL role and database. PGlite keeps its data in data/db; the data is migrated by the schema.', { title: 'PostgreSQL and Redis', rank: 0.5 });
    const [a, d] = scorePassages(q, words, [answer, prepare]);
    expect(a).toBeGreaterThan(d!);
  });

  it('does not lead with an accepted answer whose question is about something else', () => {
    const q = 'How do I configure an SMTP server for outgoing mail?';
    const words = ['configure', 'outgoing', 'server', 'smtp', 'mail'];
    const text = 'Expected: until SMTP_HOST is set, every e-mail is written to the outbox folder.';
    const answer: Scored = { kind: 'answer', title: 'Verification e-mails never arrive', heading: '', text, markdown: text, intro: false, sameLang: true, rank: 0 };
    const mail = doc('Mail and text messages', 'Verification codes go out by e-mail. Set SMTP_HOST to your mail server; outgoing mail then leaves through it.', { rank: 0.35 });
    const [a, m] = scorePassages(q, words, [answer, mail]);
    expect(m).toBeGreaterThan(a!);
  });

  it('explains each score by its parts, which add up to it', () => {
    const q = 'How do I change the site name?';
    const words = ['change', 'site', 'name'];
    const table = doc('Site, speed and limits', '| Variable | Default | Meaning |\n|---|---|---|\n| `SITE_DOMAIN` | – | the site name\'s domain |');
    const settings = doc('Site settings', 'Change them with the command line:\n\n```bash\nnpm run atrium -- config:set site_name "Acme"\n```', { sameLang: false });
    const parts = explainPassages(q, words, [table, settings]);
    expect(parts.map((p) => [p.table, p.how])).toEqual([[0.85, 0], [1, 0.25]]);
    expect(parts[1]!.heading).toBeCloseTo(1.5 * 1 / 3);
    parts.forEach((p, i) => {
      const sum = (p.text + p.heading + p.title + p.rank) * p.post * p.table + p.how + p.accepted;
      expect(p.score).toBeCloseTo((i === 0 ? 10 : 0) + sum);
    });
    expect(scorePassages(q, words, [table, settings])).toEqual(parts.map((p) => p.score));
  });

  it('keeps every passage in the question\'s language before any in the other language', () => {
    const own = doc('Backups', 'Copy the folder.', { sameLang: true });
    const other = doc('Backups', 'backup backup restore backup: npm run atrium -- backup', { sameLang: false, rank: 0.9 });
    const [o, t] = scorePassages('How do I back up?', ['backup'], [own, other]);
    expect(o).toBeGreaterThan(t!);
  });

  it('measures how much of a passage is table rows, code aside', () => {
    expect(tableShare(ENV_TABLE)).toBe(1);
    expect(tableShare(SETTINGS)).toBe(0);
  });
});

describe('sectionMarkdown', () => {
  it('splits a page at headings outside code fences, as the index does', () => {
    const page = '---\ntitle: T\n---\nIntro.\n\n## One\n\n```bash\n# not a heading\necho 1\n```\n\n## Two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';
    expect(sectionMarkdown(page, 0)).toBe('Intro.');
    expect(sectionMarkdown(page, 1)).toBe('```bash\n# not a heading\necho 1\n```');
    expect(sectionMarkdown(page, 2)).toBe('| a | b |\n|---|---|\n| 1 | 2 |');
    expect(sectionMarkdown(page, 3)).toBeNull();
  });
});

describe('quoteMarkdown', () => {
  it('keeps a fenced code block, a table and a list intact, line by line, in the quote', () => {
    const md = 'Change them with the command line:\n\n```bash\nnpm run atrium -- config:list\nnpm run atrium -- config:set site_name "Acme"\n```\n\n| Setting | Default |\n|---|---|\n| `site_name` | `Atrium` |\n\n- one\n- two';
    const quote = quoteMarkdown(md, 600);
    expect(quote).toBe([
      '> Change them with the command line:', '>',
      '> ```bash', '> npm run atrium -- config:list', '> npm run atrium -- config:set site_name "Acme"', '> ```', '>',
      '> | Setting | Default |', '> |---|---|', '> | `site_name` | `Atrium` |', '>',
      '> - one', '> - two',
    ].join('\n'));
  });

  it('cuts between blocks, and a long leading code block at a line, closing its fence', () => {
    const long = `\`\`\`bash\n${Array.from({ length: 40 }, (_, i) => `echo line-${i}`).join('\n')}\n\`\`\``;
    const quote = quoteMarkdown(`${long}\n\nAfter.`, 200);
    const lines = quote.split('\n');
    expect(lines[0]).toBe('> ```bash');
    expect(lines.filter((l) => l === '> ```')).toHaveLength(1);
    expect(lines.at(-1)).toBe('> …');
    expect(quote).not.toContain('After.');
    expect(quoteMarkdown('First paragraph.\n\nSecond paragraph that is much longer than the rest.', 20)).toBe('> First paragraph.\n>\n> …');
    // A long leading paragraph is shortened at the length, with an ellipsis.
    expect(quoteMarkdown(`${'word '.repeat(100)}end.`, 50)).toBe(`> ${'word '.repeat(10).trimEnd()}…`);
  });

  it('turns callout markers into their title and headings inside the passage into bold lines', () => {
    expect(quoteMarkdown('::: warning Careful\nOne process per folder.\n:::\n\n### Sub\n\nText.')).toBe('> Careful\n>\n> One process per folder.\n>\n> **Sub**\n>\n> Text.');
  });
});

describe('the site assistant\'s answer', () => {
  it('quotes the passage\'s markdown, and leads with its first sentence of prose, not a table', () => {
    const markdown = '| Variable | Default |\n|---|---|\n| `PORT` | `4321` |\n\nSet `PORT` to listen elsewhere. Zero picks a free port.';
    const answer = assistantAnswer('port', [{ n: 1, kind: 'doc', title: 'Configuration', heading: 'Server', url: '/md/guide-en/configuration#server', text: 'Variable Default PORT 4321 Set PORT to listen elsewhere. Zero picks a free port.', markdown }], 'en', '/ask/post?title=port');
    expect(answer).toContain('Set PORT to listen elsewhere. [1]');
    expect(answer).toContain('> | Variable | Default |\n> |---|---|\n> | `PORT` | `4321` |');
  });
});

describe('a quoted passage, rendered as the chat renders answers', () => {
  it('is a blockquote holding a real code block and a real table, not one line of text', async () => {
    const { renderMarkdown } = await import('../../src/lib/markdown/render');
    const { linkCitations } = await import('../../src/lib/shared/chat');
    const markdown = 'Change them with the command line:\n\n```bash\nnpm run atrium -- config:set site_name "Acme"\n```\n\n| Setting | Default |\n|---|---|\n| `site_name` | `Atrium` |';
    const source = { n: 1, kind: 'doc' as const, title: 'Configuration', heading: 'Site settings', url: '/md/guide-en/configuration#site-settings', text: 'Change them with the command line: npm run atrium -- config:set site_name "Acme" Setting Default site_name Atrium', markdown };
    const answer = assistantAnswer('How do I change the site name?', [source], 'en', '/ask/post');
    const html = renderMarkdown(linkCitations(answer, [{ n: 1, title: source.title, heading: source.heading, url: source.url }]), {}).html;
    const quote = /<blockquote>([\s\S]*?)<\/blockquote>/.exec(html)?.[1] ?? '';
    expect(quote).toMatch(/<pre[^>]*>[\s\S]*config:set site_name/);
    expect(quote).toMatch(/<table>[\s\S]*<td><code>site_name<\/code><\/td>/);
  });
});

describe('readerLang', () => {
  it('answers from the question\'s language, and from the reader\'s when the question is only names', async () => {
    const { readerLang } = await import('../../src/lib/server/chat/retrieve');
    expect(readerLang('怎么修改站点名称？', 'en')).toBe('zh-cn');
    expect(readerLang('How do I change the site name?', 'zh-cn')).toBe('en');
    expect(readerLang('SITE_URL?', 'zh-cn')).toBe('zh-cn');
    expect(readerLang('chat:add', 'zh-cn')).toBe('zh-cn');
    expect(readerLang('SITE_URL?', 'en')).toBe('en');
    expect(readerLang('SITE_URL?')).toBe('en');
  });
});
