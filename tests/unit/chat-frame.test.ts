// The site assistant's framing in the reader's language (issue 29): stored as markers, worded when
// shown; answers stored before with the words of one language are recognised and worded again.
import { describe, expect, it } from 'vitest';
import { assistantAnswer } from '../../src/lib/server/chat/assistant';
import { expandFraming, expandFramingHtml, frameLine, framedText, type Translate } from '../../src/lib/shared/chat-frame';
import { renderMarkdown } from '../../src/lib/markdown/render';
import { translator } from '../../src/lib/i18n';

const en = translator('en', 'chat') as Translate;
const zh = translator('zh-cn', 'chat') as Translate;
const sources = [
  { n: 1, kind: 'doc' as const, title: 'Guide', heading: 'Back_ups <b>', url: '/md/guide/ops#backups', text: 'Copy the data directory while the server is stopped. Then restart.' },
  { n: 2, kind: 'post' as const, title: 'How to back up?', heading: '', url: '/ask/info/3', text: 'question' },
];

describe('the site assistant\'s framing', () => {
  it('is stored in no language, and reads in the reader\'s', () => {
    const answer = assistantAnswer('backup', sources, 'zh-cn', '/ask/post?title=backup');
    expect(answer).not.toMatch(/站点助手|Site assistant|最相关|closest match|相关段落|Relevant passages/);
    const inEnglish = expandFraming(answer, en);
    expect(inEnglish).toContain("*Site assistant: quoted from this site's docs and forum, not written by an AI model.*");
    expect(inEnglish).toContain('The closest match is “Back\\_ups \\<b\\>”:');
    expect(inEnglish).toContain('**Relevant passages**');
    expect(inEnglish).toContain('**Related questions in the forum**');
    expect(inEnglish).not.toContain('%%frame');
    const inChinese = expandFraming(answer, zh);
    expect(inChinese).toContain('*站点助手：以下内容摘自本站文档与社区，不是 AI 生成的。*');
    expect(inChinese).toContain('最相关的是《Back\\_ups \\<b\\>》：');
    // The content itself is the same in both.
    expect(inEnglish).toContain('Copy the data directory while the server is stopped. [1]');
    expect(inChinese).toContain('Copy the data directory while the server is stopped. [1]');
  });

  it('is worded in the rendered HTML too, its values escaped', () => {
    const answer = assistantAnswer('backup', sources, 'zh-cn', '/ask/post?title=backup');
    const html = renderMarkdown(answer, {}).html;
    expect(html).toContain('%%frame:label%%');
    const shown = expandFramingHtml(html, en);
    expect(shown).toContain("<p><em>Site assistant: quoted from this site&#39;s docs and forum, not written by an AI model.</em></p>");
    expect(shown).toContain('The closest match is “Back_ups &#60;b&#62;”:');
    expect(shown).toContain('<p><strong>Relevant passages</strong></p>');
    expect(shown).not.toContain('%%frame');
    expect(shown).not.toContain('<b>');
    const none = expandFramingHtml(renderMarkdown(assistantAnswer('zzz <i>', [], 'en', '/ask/post?title=zzz'), {}).html, zh);
    expect(none).toContain('<p>本站文档和社区里还没有与“zzz &#60;i&#62;”相关的内容。</p>');
    expect(none).toContain('<p><a href="/ask/post?title=zzz">到社区提问</a></p>');
    // A link that is not this site's path nor http(s) is left out.
    expect(expandFramingHtml(`<p>${frameLine('askForum', { url: 'javascript:alert(1)' })}</p>`, en)).toBe('<p>Ask the community</p>\n');
  });

  it('recognises an answer stored with Chinese words and reads it in English, quotes and code untouched', () => {
    const old = [
      '*站点助手：以下内容摘自本站文档与社区，不是 AI 生成的。*', '',
      '最相关的是《备份\\_数据》：', '', '先停服务再复制。 [1]', '',
      '**相关段落**', '', '[指南 › 备份](/md/guide/ops#b) [1]', '', '> **相关段落**', '>', '> 最相关的是《引用》：', '',
      '```', '**社区里的相关问题**', '```', '',
      '**社区里的相关问题**', '', '- [怎么备份？](/ask/info/3) [2]',
    ].join('\n');
    const english = expandFraming(framedText(old), en);
    expect(english).toContain("*Site assistant: quoted from this site's docs and forum, not written by an AI model.*");
    expect(english).toContain('The closest match is “备份\\_数据”:');
    expect(english).toContain('**Relevant passages**\n\n[指南 › 备份]');
    expect(english).toContain('**Related questions in the forum**\n\n- [怎么备份？]');
    // Quoted passages and code blocks are content, not framing.
    expect(english).toContain('> **相关段落**\n>\n> 最相关的是《引用》：');
    expect(english).toContain('```\n**社区里的相关问题**\n```');
    const nothing = framedText(["*Site assistant: quoted from this site's docs and forum, not written by an AI model.*", '', 'Nothing in this site\'s docs or forum matches “zz\\*z” yet.', '', '[Ask the community](/ask/post?title=zz)'].join('\n'));
    expect(expandFraming(nothing, zh)).toBe('*站点助手：以下内容摘自本站文档与社区，不是 AI 生成的。*\n\n本站文档和社区里还没有与“zz\\*z”相关的内容。\n\n[到社区提问](/ask/post?title=zz)');
    // Without the label line it is not the assistant's old answer: left as it is.
    expect(framedText('**相关段落**')).toBe('**相关段落**');
  });
});
