import { describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { highlight, plainText, searchQuery, searchVector, snippet, stripCalloutMarkers } from '../../src/lib/server/search/text';
import { scaled } from '../helpers/time-scale.mjs';

/** Lexeme → its `pos+weight` entries, read back from a tsvector literal. */
function parseVector(vector: string): Map<string, string[]> {
  const lexemes = new Map<string, string[]>();
  for (const m of vector.matchAll(/'((?:[^'\\]|''|\\.)*)':([0-9A-D,]+)/g)) {
    lexemes.set(m[1]!.replace(/''/g, "'").replace(/\\(.)/g, '$1'), m[2]!.split(','));
  }
  return lexemes;
}

function lexemesOf(text: string): string[] {
  return [...parseVector(searchVector([{ text, weight: 'D' }])).keys()];
}

/** The lexemes a query needs, without operators. */
function queryLexemes(input: string): string[] {
  return [...(searchQuery(input)?.query ?? '').matchAll(/'([^']*)'/g)].map((m) => m[1]!);
}

describe('searchVector', () => {
  it('indexes CJK runs as bigrams plus the last character, Latin runs as words', () => {
    expect(lexemesOf('MySQL数据库')).toEqual(['mysql', '数据', '据库', '库']);
    expect(lexemesOf('用 Redis 缓存')).toEqual(['用', 'redis', '缓存', '存']);
  });

  it('adds whole CJK words of three or more characters from the segmenter', () => {
    const lexemes = lexemesOf('中华人民共和国');
    expect(lexemes).toContain('共和国');
    expect(lexemes).toEqual(expect.arrayContaining(['中华', '华人', '人民', '民共', '共和', '和国', '国']));
  });

  it('treats Japanese and Korean as CJK runs', () => {
    expect(lexemesOf('東京タワー')).toEqual(expect.arrayContaining(['東京', '京タ', 'タワ', 'ワー', 'ー']));
    expect(lexemesOf('데이터 연결')).toEqual(expect.arrayContaining(['데이', '이터', '터', '연결', '결']));
  });

  it('normalises width and case, and splits on punctuation, _ , - and apostrophes', () => {
    expect(lexemesOf('ＡＢＣ１２３ Snake_case kebab-case it’s')).toEqual(['abc123', 'snake', 'snak', 'case', 'kebab', 'it', 's']);
  });

  it('emits the word and its stem at the same position', () => {
    const lexemes = parseVector(searchVector([{ text: 'pool connections queries running', weight: 'D' }]));
    expect(lexemes.get('connections')).toEqual(['2']);
    expect(lexemes.get('connection')).toEqual(['2']);
    expect(lexemes.get('queries')).toEqual(['3']);
    expect(lexemes.get('query')).toEqual(['3']);
    expect(lexemes.get('run')).toEqual(['4']);
  });

  it('marks title lexemes A and body lexemes B, positions running on across fields', () => {
    const vector = searchVector([
      { text: '数据库', weight: 'A' },
      { text: '数据 backup', weight: 'B' },
    ]);
    const lexemes = parseVector(vector);
    expect(lexemes.get('数据')).toEqual(['1A', '4B']);
    expect(lexemes.get('据库')).toEqual(['2A']);
    expect(lexemes.get('backup')).toEqual(['6B']);
    expect(vector).toContain("'数据':1A,4B");
  });

  it('leaves nothing for quotes and backslashes to break out of', () => {
    const vector = searchVector([{ text: "it's a'b\\c '; drop table x; --", weight: 'A' }]);
    expect([...parseVector(vector).keys()]).toEqual(['it', 's', 'a', 'b', 'c', 'drop', 'table', 'tabl', 'x']);
    expect(vector).not.toMatch(/\\|''/);
  });

  it('is empty for text with nothing to index', () => {
    expect(searchVector([{ text: '  ***  —— !!', weight: 'A' }])).toBe('');
    expect(searchVector([])).toBe('');
  });

  it('caps input, positions, positions per lexeme and lexeme length', () => {
    const huge = `${'x'.repeat(300)} ${'数据库连接池 '.repeat(20_000)} tail`;
    const lexemes = parseVector(searchVector([{ text: huge, weight: 'B' }]));
    expect(lexemes.has('x'.repeat(100))).toBe(true);
    expect([...lexemes.keys()].every((l) => Array.from(l).length <= 100)).toBe(true);
    expect(lexemes.has('tail')).toBe(false); // past the 60,000-character budget
    const positions = lexemes.get('数据')!;
    expect(positions).toHaveLength(256);
    const all = [...lexemes.values()].flat().map((p) => Number.parseInt(p, 10));
    expect(Math.max(...all)).toBeLessThanOrEqual(16383);
  });

  it('keeps the budget across fields', () => {
    const vector = searchVector([
      { text: 'a '.repeat(40_000), weight: 'A' },
      { text: 'later', weight: 'B' },
    ]);
    expect(parseVector(vector).has('later')).toBe(false);
  });
});

describe('searchQuery', () => {
  it('AND-s CJK bigrams and prefix-matches the last lone character', () => {
    expect(searchQuery('数据库')).toEqual({ query: "'数据' & '据库'", terms: ['数据库'] });
    expect(searchQuery('库')).toEqual({ query: "'库':*", terms: ['库'] });
    expect(searchQuery('连接池')?.query).toBe("'连接' & '接池'");
  });

  it('prefix-matches Latin stems and keeps the words as typed for highlighting', () => {
    expect(searchQuery('Connections')).toEqual({ query: "'connection':*", terms: ['connections'] });
    expect(searchQuery('queries')?.query).toBe("'query':*");
    expect(searchQuery('connect')?.query).toBe("'connect':*");
  });

  it('mixes scripts, dedupes terms and matches one-letter words exactly', () => {
    expect(searchQuery('MySQL 数据库 mysql c')).toEqual({ query: "'mysql':* & '数据' & '据库' & 'c'", terms: ['mysql', '数据库', 'c'] });
  });

  it('lets a whole CJK word stand in for its bigrams without changing what matches', () => {
    expect(searchQuery('共和国')?.query).toBe("( '共和' & '和国' | '共和国' )");
  });

  it('is null when nothing searchable remains', () => {
    expect(searchQuery('')).toBeNull();
    expect(searchQuery('   ')).toBeNull();
    expect(searchQuery('!!! --- ，。？ *')).toBeNull();
  });

  it('keeps quotes and backslashes out of the literal', () => {
    expect(searchQuery("it's")?.query).toBe("'it':* & 's'");
    expect(searchQuery('a\'b\\c')?.query).toBe("'a' & 'b' & 'c'");
    expect(searchQuery("'; drop table users; --")?.query).toBe("'drop':* & 'tabl':* & 'user':*");
  });

  it('caps the number of terms at 12', () => {
    const result = searchQuery(Array.from({ length: 30 }, (_, i) => `word${i}`).join(' '));
    expect(result?.terms).toHaveLength(12);
    expect(result?.query.split(' & ')).toHaveLength(12);
  });
});

describe('stemming', () => {
  it('brings inflections to one stem', () => {
    const stem = (word: string): string => queryLexemes(word)[0]!;
    expect(stem('connections')).toBe('connection');
    expect(stem('queries')).toBe('query');
    expect(stem('running')).toBe('run');
    expect(stem('stopped')).toBe('stop');
    expect(stem('called')).toBe('call');
    expect(stem('quickly')).toBe('quick');
    expect(stem('deployment')).toBe('deploy');
    expect(stem('configure')).toBe(stem('configuring'));
    expect(stem('databases')).toBe(stem('database'));
  });

  it('never goes below three letters or touches non-inflections', () => {
    const stem = (word: string): string => queryLexemes(word)[0]!;
    for (const word of ['using', 'used', 'need', 'string', 'status', 'class', 'this', 'apply', 'comment', 'café', 'v2']) {
      expect(stem(word)).toBe(word);
    }
  });
});

describe('plainText', () => {
  it('keeps the words and drops the markup', () => {
    const md = [
      '# Title #',
      '',
      'Some **bold**er _text_, ~~gone~~ and [a link](http://x.com "t") ![alt text](a.png) `a*b*c`',
      '',
      '```js',
      'const a = 1;',
      '```',
      '',
      '- [ ] task',
      '1. item',
      '',
      '> quoted',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '<div class="x">html <b>tag</b></div>',
      '',
      'x &amp; y<br>z',
    ].join('\n');
    expect(plainText(md)).toBe('Title Some bolder text, gone and a link a*b*c const a = 1; task item quoted a b 1 2 html tag x & y z');
  });

  it('shows a callout\'s words and title, not its ::: markers (outside code fences only)', () => {
    const md = ['Before', '', '::: warning Mind the data', 'Back up **first**.', ':::', '', '::: tip', 'Short.', ':::', '', '```', '::: kept in code', '```'].join('\n');
    expect(plainText(md)).toBe('Before Mind the data Back up first. Short. ::: kept in code');
    expect(stripCalloutMarkers('a ::: warning b ::: c')).toBe('a b c');
  });

  it('handles Chinese text and plain text unchanged', () => {
    expect(plainText('## 如何配置\n\n**数据库**连接池。')).toBe('如何配置 数据库连接池。');
    expect(plainText('just  some\n\ttext')).toBe('just some text');
  });
});

describe('snippet', () => {
  const long = `${'plain filler words before '.repeat(20)}the database connection pool is configured here ${'more filler text '.repeat(20)}`;

  it('cuts around the first match with ellipses and marks every match', () => {
    const result = snippet(long, ['connections', 'pool']);
    expect(result.startsWith('…')).toBe(true);
    expect(result.endsWith('…')).toBe(true);
    expect(result).toContain('database <mark>connection</mark> <mark>pool</mark> is');
    expect(result.replace(/<\/?mark>/g, '').length).toBeLessThanOrEqual(162);
  });

  it('starts at the beginning when nothing matches', () => {
    const result = snippet(long, ['zebra']);
    expect(result.startsWith('plain filler')).toBe(true);
    expect(result.endsWith('…')).toBe(true);
    expect(result).not.toContain('<mark>');
  });

  it('matches CJK anywhere and Latin as word prefixes, case-insensitively', () => {
    expect(snippet('如何配置数据库连接池 — Configuring pools', ['数据库', 'configure', 'pool'])).toBe(
      '如何配置<mark>数据库</mark>连接池 — <mark>Configuring</mark> <mark>pools</mark>',
    );
    expect(snippet('reconnect connect', ['connect'])).toBe('reconnect <mark>connect</mark>');
  });

  it('escapes the text and ignores markup in terms', () => {
    expect(snippet('<script>alert("x")</script> & 数据', ['<script>', '数据'])).toBe(
      '&lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; <mark>数据</mark>',
    );
    expect(snippet('<img src=x onerror=alert(1)>', [])).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(snippet("it's", ["'"])).toBe('it&#39;s');
  });

  it('cuts CJK text around the match without splitting a character', () => {
    const text = `${'𠀀'.repeat(200)}数据库${'字'.repeat(200)}`;
    const result = snippet(text, ['数据库'], 40);
    expect(result).toContain('<mark>数据库</mark>');
    expect(result).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('highlight', () => {
  it('marks CJK and Latin matches in the whole escaped text', () => {
    expect(highlight('MySQL 数据库连接池 <Connections>', ['连接', 'connect'])).toBe(
      'MySQL 数据库<mark>连接</mark>池 &lt;<mark>Connections</mark>&gt;',
    );
  });

  it('marks full-width and accented text by its folded form', () => {
    expect(highlight('ＭｙＳＱＬ Café', ['mysql', 'CAFÉ'])).toBe('<mark>ＭｙＳＱＬ</mark> <mark>Café</mark>');
    expect(highlight('Cafe\u0301 ok', ['café'])).toBe('<mark>Cafe\u0301</mark> ok');
  });

  it('marks one-letter terms only as whole words', () => {
    expect(highlight('C and cpp', ['c'])).toBe('<mark>C</mark> and cpp');
  });

  it('escapes text with no terms', () => {
    expect(highlight('a < b & "c"', [])).toBe('a &lt; b &amp; &quot;c&quot;');
  });
});

describe('PostgreSQL literals (PGlite)', () => {
  it('cast cleanly and match as designed', async () => {
    const pg = new PGlite();
    try {
      const match = async (fields: Parameters<typeof searchVector>[0], input: string): Promise<boolean> => {
        const query = searchQuery(input);
        if (!query) throw new Error(`no query for ${input}`);
        const { rows } = await pg.query<{ hit: boolean }>('select $1::tsvector @@ $2::tsquery as hit', [searchVector(fields), query.query]);
        return rows[0]!.hit;
      };
      const doc = [
        { text: '如何配置数据库连接池', weight: 'A' as const },
        { text: 'MySQL connections and queries keep running. 中华人民共和国 東京タワー 데이터베이스', weight: 'B' as const },
      ];
      const hits = ['数据库', '连接', '连接池', '如何配置', '库', '池', '配', '据库连', 'connect', 'connection', 'connections', 'query', 'queries', 'run', 'mysql 连接', '共和国', '人民共和', 'タワー', '데이터', 'MySQL数据库'];
      const misses = ['数据连接', '库池', '配置池', 'connector', 'postgres', '连接 postgres', '东京', 'q'];
      for (const input of hits) expect(await match(doc, input), input).toBe(true);
      for (const input of misses) expect(await match(doc, input), input).toBe(false);

      // Every substring of two or more CJK characters is found.
      const sentence = '数据库连接池配置';
      const chars = Array.from(sentence);
      for (let i = 0; i < chars.length; i++) {
        for (let j = i + 2; j <= chars.length; j++) {
          const part = chars.slice(i, j).join('');
          expect(await match([{ text: sentence, weight: 'D' }], part), part).toBe(true);
        }
      }

      const weird = searchVector([{ text: "it's a'b\\c '; drop table x; --", weight: 'A' }]);
      const { rows } = await pg.query<{ n: number; hit: boolean }>('select length($1::tsvector) as n, $1::tsvector @@ $2::tsquery as hit', [
        weird,
        searchQuery("'; DROP TABLE")!.query,
      ]);
      expect(rows[0]).toEqual({ n: 9, hit: true });

      // The largest vector the caps allow (hardly a bigram repeats) still casts.
      let seed = 1;
      const random = (): number => (seed = (seed * 48271) % 2147483647) % 20_000;
      const big = searchVector([{ text: Array.from({ length: 70_000 }, () => String.fromCodePoint(0x4e00 + random())).join(''), weight: 'B' }]);
      const size = await pg.query<{ n: number }>('select length($1::tsvector) as n', [big]);
      expect(size.rows[0]!.n).toBeGreaterThan(50_000);
    } finally {
      await pg.close();
    }
  }, scaled(30_000));
});

describe('highlight positions with full-width punctuation (the fast fold path)', () => {
  it('marks the right characters when the text folds unit for unit', () => {
    expect(highlight('数据库，连接池（Pool）：配置', ['连接', 'pool'])).toBe('数据库，<mark>连接</mark>池（<mark>Pool</mark>）：配置');
  });

  it('falls back to graphemes when a character folds to two (a ligature) or merges (a combining mark)', () => {
    expect(highlight('ﬁle，连接', ['连接'])).toBe('ﬁle，<mark>连接</mark>');
    expect(highlight('cafe\u0301，连接', ['连接'])).toBe('cafe\u0301，<mark>连接</mark>');
  });
});
