// The html-validate configuration the accessibility sweep uses: what it lets through is only what its
// comments justify (framework serialisation, token colours), and real errors still fail.
import { describe, expect, it } from 'vitest';
import { htmlErrors } from '../e2e/html-validate';

const page = (body: string): string => `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;

describe('html-validate as the sweep runs it', () => {
  it("accepts React's and Astro's serialisation, shiki's colours and the island stylesheet", async () => {
    expect(await htmlErrors(page([
      '<main><div><style>astro-island{display:contents}</style>',
      '<form noValidate=""><label>Name <input type="text" autoComplete="name" name="n" value=""/></label>',
      '<label><input type="checkbox" checked=""/> ok</label><button type="submit">Send</button></form>',
      '<pre><code><span style="color:#032F62;--shiki-dark:#9ECBFF">x</span></code></pre>',
      '<span style="--hue:197">t</span><p id="_r1R_d_tw" hidden="">x</p></div>',
      '<details><summary><style>astro-island{display:contents}</style>Menu</summary>x</details>',
      '<form><label><input type="checkbox" name="rules" value="1"> a</label><label><input type="checkbox" name="rules" value="2"> b</label><button type="submit">Save</button></form></main>',
    ].join('')), 'ok')).toEqual([]);
  });

  it('refuses an input without a type, layout in a style attribute, and bad nesting', async () => {
    const errors = await htmlErrors(page('<main><label>Name <input name="n"></label><form style="margin-bottom:1rem"></form><p><div>x</div></p></main>'), 'bad');
    expect(errors.map((e) => e.split(':')[0])).toEqual(expect.arrayContaining(['no-implicit-input-type', 'no-inline-style']));
    expect(errors.some((e) => /<div>|close-order|element-permitted-content/.test(e))).toBe(true);
  });
});
