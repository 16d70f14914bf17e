// The guide shipped in docs/ (the `guide` and `guide-en` books, which the site assistant quotes)
// describes the product as it is: no page of it announces as future what the code already does.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function pages(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
}

/** Ways of saying "not yet, later", in the guide's two languages. */
const FUTURE = [
  /\b(?:in|with|until) a (?:later|future|coming) (?:release|version)\b/i,
  /\barrives? (?:in|with) a later\b/i,
  /\bcoming soon\b/i,
  /\b(?:not|isn't|aren't) (?:yet )?(?:available|implemented|supported|built|shipped) yet\b/i,
  /\bwill (?:arrive|come|be added|be available|be implemented|read|show)\b/i,
  /\bnot (?:available|implemented) yet\b/i,
  /后续版本|以后的版本|将来的版本|未来的版本|即将(?:推出|上线|提供|支持)|敬请期待|尚未(?:实现|提供|上线|支持)|功能上线后|暂未(?:开放|提供|实现)/,
];

describe('the shipped guide', () => {
  const files = [...pages('docs/en'), ...pages('docs/zh-cn')];

  it('has pages in both languages', () => {
    expect(files.filter((f) => f.includes('/en/')).length).toBeGreaterThan(5);
    expect(files.filter((f) => f.includes('/zh-cn/')).length).toBeGreaterThan(5);
  });

  it('announces nothing as a later release: every feature it names is described as it works today', () => {
    const found: string[] = [];
    for (const file of files) {
      readFileSync(join(ROOT, file), 'utf8').split('\n').forEach((line, i) => {
        for (const pattern of FUTURE) {
          const hit = pattern.exec(line);
          if (hit) found.push(`${file}:${i + 1}: ${hit[0]}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('describes the message center that exists, with its tabs, in both languages', () => {
    const en = readFileSync(join(ROOT, 'docs/en/index.md'), 'utf8');
    const zh = readFileSync(join(ROOT, 'docs/zh-cn/index.md'), 'utf8');
    expect(en).toMatch(/\| Message center \| `\/user\/messageCenter` \| [^|]*likes[^|]*private messages[^|]*\|/);
    expect(zh).toMatch(/\| 消息中心 \| `\/user\/messageCenter` \| [^|]*赞[^|]*私信[^|]*\|/);
  });
});
