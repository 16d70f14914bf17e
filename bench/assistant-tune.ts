// Tuning tool of the site assistant's ranking (issue 29 item 15), for the TUNING half only: for each
// question of bench/assistant-eval.json with half "tune", the candidate passages as the retrieval
// scores them (retrieve.ts's candidates()), in the order the assistant cites them (docs sections
// and accepted answers first, as assistant.ts does), with their scores, and whether the expected
// source leads. It never reads the held-out half: that one is measured only through
// `npm run bench -- assistant`, once per candidate design, and every such measurement goes in
// bench/RESULTS.md.
//   npm run build && node scripts/node.mjs tsx bench/assistant-tune.ts [--misses] [--top N] [filter]
// The demo site (the guide in both languages and the demo forum) is seeded once into
// bench/.tmp/assistant-tune with the built server (`--migrate-only --demo`); delete that folder
// after the guide or the demo forum changes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { openDatabase } from '../src/lib/server/db/client';
import { candidates, explainPassages, keywordsOf, readerLang, type ScoreParts } from '../src/lib/server/chat/retrieve';

const ROOT = join(import.meta.dirname, '..');
const dataDir = join(ROOT, 'bench', '.tmp', 'assistant-tune');
const args = process.argv.slice(2);
const missesOnly = args.includes('--misses');
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 5;
const filter = args.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1))[0];

type Q = { question: string; locale: 'zh-cn' | 'en'; expect: string | string[]; half: 'tune' | 'held' };
const tuning = (JSON.parse(readFileSync(join(ROOT, 'bench', 'assistant-eval.json'), 'utf8')) as Q[]).filter((q) => q.half === 'tune');

const matches = (cited: string, expect: string | string[]): boolean =>
  Array.isArray(expect) ? expect.some((e) => matches(cited, e)) : expect.includes('#') ? cited === expect : cited.split('#')[0] === expect;

if (!existsSync(join(dataDir, 'db'))) {
  const env = { ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' };
  const seeded = spawnSync(process.execPath, [join(ROOT, 'dist', 'atrium.mjs'), '--migrate-only', '--demo'], { cwd: ROOT, env, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seeding the demo site failed: ${seeded.stderr}`);
}
const database = await openDatabase({ databaseUrl: null, dataDir });
let top1 = 0;
let top3 = 0;
try {
  for (const q of tuning) {
    if (filter && !q.question.includes(filter)) continue;
    const words = keywordsOf(q.question);
    const lang = readerLang(q.question, q.locale);
    const all = await candidates(database.db, q.question, words, lang, false);
    const parts = explainPassages(q.question, words, all);
    const f = (x: number): string => x.toFixed(2);
    const explain = (x: ScoreParts): string => `text ${f(x.text)} head ${f(x.heading)} title ${f(x.title)} rank ${f(x.rank)}${x.post !== 1 ? ` ×${x.post}` : ''}${x.table !== 1 ? ` table×${x.table}` : ''}${x.how ? ` how+${x.how}` : ''}${x.accepted ? ` accepted+${x.accepted}` : ''}`;
    const why = (p: (typeof all)[number]): string => `\n            ${explain(parts[all.indexOf(p)]!)}`;
    // The order the assistant cites: the first six distinct passages, docs and answers before posts.
    const seen = new Set<string>();
    const six = all.filter((p) => !seen.has(p.url) && seen.add(p.url)).slice(0, 6);
    const order = [...six.filter((p) => p.kind !== 'post'), ...six.filter((p) => p.kind === 'post')];
    const decoded = (u: string): string => decodeURIComponent(u);
    const rank = order.findIndex((p) => matches(decoded(p.url), q.expect));
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 3) top3++;
    if (missesOnly && rank === 0) continue;
    console.log(`${rank === 0 ? 'ok ' : rank > 0 ? `#${rank + 1} ` : 'no '} [${q.locale}] ${q.question}   words: ${words.join(' ')}\n     expect ${[q.expect].flat().join(' | ')}`);
    for (const p of order.slice(0, top)) console.log(`     ${p.score.toFixed(3)} ${p.kind.padEnd(6)} ${decoded(p.url)}  «${p.title}${p.heading && p.heading !== p.title ? ` › ${p.heading}` : ''}» rank ${p.rank.toFixed(3)}${why(p)}`);
    const exp = all.find((p) => matches(decoded(p.url), q.expect));
    if (rank !== 0) console.log(exp ? `     expected scored ${exp.score.toFixed(3)} (${decoded(exp.url)})${why(exp)}` : '     expected not among the candidates');
  }
} finally {
  await database.close();
}
if (!filter) console.log(`\ntuning half: top-1 ${top1}/${tuning.length}, top-3 ${top3}/${tuning.length}`);
