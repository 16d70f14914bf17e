// The citable targets of the site assistant's evaluation (bench/assistant-eval.json): every docs
// section of the demo site's guide (book/page#anchor with its heading) and every forum thread
// (/ask/info/N with its title), and, with --check, every expectation of the set that names none of
// them. For writing questions and checking the set; it scores nothing.
//   npm run build && node scripts/node.mjs tsx bench/assistant-targets.ts [--check]
// Uses the demo site of bench/assistant-tune.ts (bench/.tmp/assistant-tune, seeded when missing).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { asc, eq } from 'drizzle-orm';
import { openDatabase } from '../src/lib/server/db/client';
import { askPost, mdBook, mdPage, mdSection } from '../src/lib/server/db/schema';

const ROOT = join(import.meta.dirname, '..');
const dataDir = join(ROOT, 'bench', '.tmp', 'assistant-tune');
if (!existsSync(join(dataDir, 'db'))) {
  const env = { ...process.env, ATRIUM_ROOT: ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' };
  const seeded = spawnSync(process.execPath, [join(ROOT, 'dist', 'atrium.mjs'), '--migrate-only', '--demo'], { cwd: ROOT, env, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seeding the demo site failed: ${seeded.stderr}`);
}
const database = await openDatabase({ databaseUrl: null, dataDir });
try {
  const sections = await database.db.select({ book: mdBook.name, page: mdPage.name, anchor: mdSection.anchor, heading: mdSection.heading })
    .from(mdSection).innerJoin(mdPage, eq(mdPage.id, mdSection.pageId)).innerJoin(mdBook, eq(mdBook.id, mdPage.bookId))
    .orderBy(asc(mdBook.name), asc(mdPage.name), asc(mdSection.id));
  const posts = await database.db.select({ id: askPost.id, title: askPost.title }).from(askPost).orderBy(asc(askPost.id));
  const targets = new Map<string, string>();
  for (const s of sections) targets.set(`/md/${s.book}/${s.page}${s.anchor ? `#${s.anchor}` : ''}`, s.heading);
  for (const p of posts) targets.set(`/ask/info/${p.id}`, p.title);
  if (process.argv.includes('--check')) {
    type Q = { question: string; expect: string | string[] };
    const set = JSON.parse(readFileSync(join(ROOT, 'bench', 'assistant-eval.json'), 'utf8')) as Q[];
    const pages = new Set([...targets.keys()].map((t) => t.split('#')[0]));
    let bad = 0;
    for (const q of set) {
      for (const e of [q.expect].flat()) {
        if (e.includes('#') ? targets.has(e) : pages.has(e)) continue;
        bad++;
        console.log(`no such target: ${e}   (${q.question})`);
      }
    }
    console.log(`${set.length} questions, ${bad} expectations name no target`);
    process.exitCode = bad ? 1 : 0;
  } else {
    for (const [url, heading] of targets) console.log(`${url}\t${heading}`);
  }
} finally {
  await database.close();
}
