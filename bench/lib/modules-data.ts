// The modules benchmark's site (bench/modules.mjs, issue 26 budgets), written straight into a
// PGlite database before the server starts. bench/modules.mjs bundles this file with esbuild (it
// imports the app's TypeScript) and runs it with node:
//
//   node modules-data.mjs seed <dataDir> <posts> <mathPosts> <out.json>
//       migrates and seeds a site, makes the member the load test logs in as (login captcha off),
//       publishes the math module in the site's market (seedMath: dist/modules/math-<v>.zip, built
//       by `npm run build`) without installing it, and writes <posts> forum posts, <mathPosts> of
//       them with `$…$` / `$$…$$` formulas, each rendered as the site renders it with no markdown
//       module (renderBody: render_set ''), as if written before math existed.
//   node modules-data.mjs check <dataDir> <out.json>
//       render_set of every stored render (posts, replies, docs pages), counted per table and set,
//       and whether the math posts' HTML holds MathML. Opens the database only (not the runtime,
//       whose module reconcile would start a re-render of its own).
//   node modules-data.mjs render <dataDir> <renders> <out.json>
//       opens the site (math installed: its module host starts with the first render) and times
//       renderBody of a typical post with 5 formulas, once with the site's markdown provider (math
//       through the host) and once with none (the same parser without modules), interleaved,
//       <renders> of each after a warm-up.
//   node modules-data.mjs pg-site <databaseUrl> <dataDir> <out.json>
//       the install-to-effective bench's site on PostgreSQL (an empty database): migrates and seeds
//       it, makes an administrator (login captcha off), publishes math in the market without
//       installing it and writes one post with formulas (rendered without modules).
import { readFileSync, writeFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/lib/server/db/client';
import { readConfig } from '../../src/lib/server/env';
import { createRuntime } from '../../src/lib/server/boot/runtime';
import { createUser } from '../../src/lib/server/account/users';
import { seedMath } from '../../src/lib/server/market/demo';
import { askPost } from '../../src/lib/server/db/schema';
import { createPost, titleVectorOf, vectorOf } from '../../src/lib/server/ask/posts';
import { ADMIN_GROUP } from '../../src/lib/server/site/seed';
import { renderBody } from '../../src/lib/server/ask/render';
import { setMarkdownProvider, type MarkdownProvider } from '../../src/lib/server/modules/markdown';
import { seededRandom } from './random';

export const MEMBER = { username: 'benchmember', email: 'benchmember@example.com', password: 'benchpass1' };
export const ADMIN = { username: 'benchadmin', email: 'benchadmin@example.com', password: 'benchpass1' };
/** The post the install-to-effective bench watches: two formulas, source text until math runs. */
const WATCHED = 'Einstein wrote $E=mc^2$ in 1905.\n\n$$\\int_0^1 x\\,dx = \\frac{1}{2}$$';
const YEAR = 365 * 86400;
const BATCH = 500;

const { random, int, pick } = seededRandom(0x51ab_26e1);

const EN = `the a server page module render cache query index post reply forum member site database
request response latency budget process memory thread worker queue batch pause install upgrade
rollback package manifest review market editor preview browser style script build deploy
instance cluster proxy nginx redis postgres pglite backup restore search ranking excerpt title
tag category answer question vote comment draft publish hidden deleted notice setting console
operator command socket timeout retry limit error warning log metric chart report`.split(/\s+/);
const ZH = `服务器 页面 模块 渲染 缓存 查询 索引 帖子 回复 论坛 会员 站点 数据库 请求 响应 延迟 预算 进程 内存
线程 队列 批次 暂停 安装 升级 回滚 安装包 清单 审核 市场 编辑器 预览 浏览器 样式 脚本 构建 部署 实例 集群
代理 备份 恢复 搜索 排序 摘要 标题 标签 分类 答案 问题 投票 评论 草稿 发布 设置 控制台 命令 超时 重试`.split(/\s+/);
const INLINE = ['E=mc^2', 'a^2+b^2=c^2', '\\frac{1}{n}\\sum_{i=1}^{n} x_i', '\\sqrt{2}', 'O(n \\log n)', '\\alpha + \\beta = \\gamma', 'p \\le 0.05', 'e^{i\\pi} + 1 = 0'];
const BLOCK = ['\\int_0^1 x\\,dx = \\frac{1}{2}', '\\sum_{k=0}^{\\infty} \\frac{x^k}{k!} = e^x', '\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}', 'f(x) = \\begin{cases} x & x \\ge 0 \\\\ -x & x < 0 \\end{cases}'];

function sentence(zh: boolean): string {
  const n = int(6, 16);
  const words = Array.from({ length: n }, () => pick(zh ? ZH : EN));
  if (zh) return `${words.join('')}。`;
  const s = words.join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

function paragraph(zh: boolean): string {
  return Array.from({ length: int(2, 5) }, () => sentence(zh)).join(zh ? '' : ' ');
}

/** A plain post: paragraphs, now and then a list, bold words or inline code. No code fences. */
function plainBody(zh: boolean): string {
  const parts: string[] = [];
  for (let i = int(2, 4); i > 0; i--) parts.push(paragraph(zh));
  if (random() < 0.3) parts.push(Array.from({ length: int(2, 4) }, () => `- ${sentence(zh)}`).join('\n'));
  if (random() < 0.3) parts[0] = `**${pick(zh ? ZH : EN)}** ${parts[0]} \`${pick(EN)}\``;
  return parts.join('\n\n');
}

/** A post with formulas: a plain post with inline `$…$` in its paragraphs and sometimes a `$$…$$` block. */
function mathBody(zh: boolean): string {
  const parts = [`${paragraph(zh)} $${pick(INLINE)}$ ${sentence(zh)}`, paragraph(zh)];
  if (random() < 0.5) parts.push(`$$\n${pick(BLOCK)}\n$$`);
  parts.push(`${sentence(zh)} $${pick(INLINE)}$, $${pick(INLINE)}$.`);
  return parts.join('\n\n');
}

/** A typical post with 5 formulas (3 inline, 2 display), for the render timing. */
export const TYPICAL = `We measured the cache after the upgrade. For a hit rate $h$ and a miss penalty $m$, the mean cost
of a request is

$$
\\bar{t} = h\\,t_{hit} + (1-h)(t_{hit} + m) = t_{hit} + (1-h)\\,m
$$

so halving the misses matters more than a faster hit. The page renders in two steps:

- the query, which is **indexed** and stays under a millisecond;
- the markdown, rendered once when the post is written and stored with its \`render_set\`.

With batches of $n$ posts and a pause between them, re-rendering every post takes at least

$$
T \\ge \\frac{N}{n} \\cdot p + \\sum_{i=1}^{N} r_i
$$

Any questions about the figures are welcome below.`;

async function seed(dataDir: string, posts: number, mathPosts: number, out: string): Promise<void> {
  const started = performance.now();
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: process.env.ATRIUM_ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PGLITE_WORKER: '0' }));
  try {
    await rt.site.set('user_login_captcha', '0');
    const member = await createUser(rt.db, { username: MEMBER.username, email: MEMBER.email, password: MEMBER.password });
    const published = (await seedMath(rt)).join('; ');
    if (!/math \d+\.\d+\.\d+/.test(published)) throw new Error(`math is not published: ${published || '(nothing seeded)'}`);
    if (rt.modules.currentRenderSet !== '') throw new Error(`a markdown module is already active: ${rt.modules.currentRenderSet}`);
    const categories = ((await rt.db.execute(sql`select id from ask_category order by id`)) as unknown as { rows: { id: number }[] }).rows.map((r) => Number(r.id));
    if (!categories.length) throw new Error('no forum category');
    const every = Math.max(1, Math.floor(posts / Math.max(1, mathPosts)));
    const now = Math.floor(Date.now() / 1000);
    let withMath = 0;
    for (let start = 0; start < posts; start += BATCH) {
      const rows: (typeof askPost.$inferInsert)[] = [];
      for (let i = start; i < Math.min(posts, start + BATCH); i++) {
        const zh = random() < 0.5;
        const math = withMath < mathPosts && i % every === every - 1;
        if (math) withMath++;
        const body = math ? mathBody(zh) : plainBody(zh);
        const title = sentence(zh).slice(0, 80).replace(/[.。]$/, '');
        const rendered = await renderBody(body);
        if (rendered.renderSet !== '') throw new Error(`rendered with modules: ${rendered.renderSet}`);
        const t = now - YEAR + Math.floor((i / posts) * YEAR);
        rows.push({
          categoryId: categories[i % categories.length]!, userId: member.id, title, body, html: rendered.html, renderSet: '', excerpt: rendered.excerpt,
          lastActivityTime: t, searchVector: vectorOf(title, rendered.text, []), titleVector: titleVectorOf(title, []), createTime: t, updateTime: t,
        });
      }
      await rt.db.transaction(async (tx) => { await tx.insert(askPost).values(rows); });
    }
    await rt.db.execute(sql`update ask_category c set post_count = (select count(*) from ask_post p where p.category_id = c.id and p.status = 'published')`);
    await rt.db.execute(sql`update ask_post set hot = sign(up_count - down_count + reply_count + collect_count) * log(greatest(abs(up_count - down_count + reply_count + collect_count), 1)) + create_time / 45000.0`);
    await rt.db.execute(sql`vacuum analyze ask_post`);
    const counts = await renderSets(rt.db);
    writeFileSync(out, JSON.stringify({ posts, mathPosts: withMath, published, member: MEMBER, counts, seedMs: Math.round(performance.now() - started) }));
  } finally {
    await rt.close();
  }
}

type Queryable = Pick<Awaited<ReturnType<typeof openDatabase>>['db'], 'execute'>;

/** Rows per table and render_set, and how many math posts hold MathML. */
async function renderSets(db: Queryable): Promise<{ table: string; set: string; rows: number }[]> {
  const out: { table: string; set: string; rows: number }[] = [];
  for (const table of ['ask_post', 'ask_reply', 'md_page']) {
    const rows = ((await db.execute(sql.raw(`select render_set as set, count(*)::int as n from ${table} group by render_set order by 2 desc`))) as unknown as { rows: { set: string; n: number }[] }).rows;
    for (const r of rows) out.push({ table, set: r.set, rows: Number(r.n) });
  }
  return out;
}

async function check(dataDir: string, out: string): Promise<void> {
  const database = await openDatabase({ databaseUrl: null, dataDir });
  try {
    const counts = await renderSets(database.db);
    const [math] = ((await database.db.execute(sql`select count(*)::int as total, count(*) filter (where html like '%<math%')::int as mathml from ask_post where body like '%$%'`)) as unknown as { rows: { total: number; mathml: number }[] }).rows;
    writeFileSync(out, JSON.stringify({ counts, mathPosts: Number(math?.total ?? 0), mathml: Number(math?.mathml ?? 0) }));
  } finally {
    await database.close();
  }
}

/**
 * A process's CPU time and time spent runnable but waiting for a CPU (ms, /proc/<pid>/schedstat):
 * on a loaded machine a call to another process waits for it to be scheduled, and back.
 */
function sched(pid: number | string): { cpu: number; wait: number } | null {
  try {
    const [cpu, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { cpu: cpu! / 1e6, wait: wait! / 1e6 };
  } catch {
    return null;
  }
}

/** VmRSS / VmHWM of a process in MB, or null. */
function mem(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function render(dataDir: string, renders: number, out: string): Promise<void> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: process.env.ATRIUM_ROOT, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PGLITE_WORKER: '0' }), { migrate: false, seed: false });
  try {
    if (!rt.modules.currentRenderSet.includes('math@')) throw new Error(`math is not active (render set "${rt.modules.currentRenderSet}")`);
    // The site's provider (SiteModules keeps it in a field); cleared for the renders without modules.
    const provider = (rt.modules as unknown as { provider: MarkdownProvider }).provider;
    const withMath = async (): Promise<number> => {
      setMarkdownProvider(provider);
      const t0 = performance.now();
      const r = await renderBody(TYPICAL);
      const ms = performance.now() - t0;
      if (!r.renderSet.includes('math@') || (r.html.match(/<math/g) ?? []).length !== 5) throw new Error(`math did not render 5 formulas: ${r.renderSet} ${r.html.slice(0, 400)}`);
      return ms;
    };
    const without = async (): Promise<number> => {
      setMarkdownProvider(null);
      const t0 = performance.now();
      const r = await renderBody(TYPICAL);
      const ms = performance.now() - t0;
      if (r.renderSet !== '' || r.html.includes('<math')) throw new Error('rendered with modules while none was set');
      return ms;
    };
    const t0 = performance.now();
    await withMath();
    const coldMs = performance.now() - t0;
    const hostPid = rt.modules.status('math')?.pid ?? null;
    for (let i = 0; i < 100; i++) { await withMath(); await without(); }
    const a: number[] = [];
    const b: number[] = [];
    const hostBefore = hostPid ? sched(hostPid) : null;
    const selfBefore = sched('self');
    for (let i = 0; i < renders; i++) {
      // Interleaved, the order of each pair alternating: drift on the machine meets both alike.
      if (i % 2) { a.push(await withMath()); b.push(await without()); } else { b.push(await without()); a.push(await withMath()); }
    }
    setMarkdownProvider(provider);
    const hostAfter = hostPid ? sched(hostPid) : null;
    const selfAfter = sched('self');
    const per = (x: { cpu: number; wait: number } | null, y: { cpu: number; wait: number } | null, n: number): { cpu: number; wait: number } | null =>
      x && y ? { cpu: (y.cpu - x.cpu) / n, wait: (y.wait - x.wait) / n } : null;
    const schedPerPair = { host: per(hostBefore, hostAfter, renders), bench: per(selfBefore, selfAfter, renders) };
    const hostMem = hostPid ? mem(hostPid) : null;
    a.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    const stats = (s: number[]): { p50: number; p95: number; p99: number; mean: number } => ({ p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), mean: s.reduce((x, y) => x + y, 0) / s.length });
    writeFileSync(out, JSON.stringify({ renders, coldMs, hostPid, hostMem, schedPerPair, math: stats(a), plain: stats(b), formulas: 5, chars: TYPICAL.length }));
  } finally {
    await rt.close();
  }
}

async function pgSite(databaseUrl: string, dataDir: string, out: string): Promise<void> {
  const rt = await createRuntime(readConfig({ ATRIUM_ROOT: process.env.ATRIUM_ROOT, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }), { background: false });
  try {
    await rt.site.set('user_login_captcha', '0');
    const admin = await createUser(rt.db, { ...ADMIN, groupId: ADMIN_GROUP });
    const published = (await seedMath(rt)).join('; ');
    if (!/math \d+\.\d+\.\d+/.test(published)) throw new Error(`math is not published: ${published || '(nothing seeded)'}`);
    const categories = ((await rt.db.execute(sql`select id from ask_category order by id`)) as unknown as { rows: { id: number }[] }).rows.map((r) => Number(r.id));
    const post = await createPost(rt.db, admin.id, { title: 'Mass and energy', content: WATCHED, category_id: categories[0]!, tags: [] } as never);
    writeFileSync(out, JSON.stringify({ admin: ADMIN, postId: post.id, published }));
  } finally {
    await rt.close();
  }
}

const [cmd, ...args] = process.argv.slice(2);
const main = cmd === 'seed' ? () => seed(args[0]!, Number(args[1]), Number(args[2]), args[3]!)
  : cmd === 'check' ? () => check(args[0]!, args[1]!)
    : cmd === 'render' ? () => render(args[0]!, Number(args[1]), args[2]!)
      : cmd === 'pg-site' ? () => pgSite(args[0]!, args[1]!, args[2]!)
        : null;
if (!main) {
  console.error('usage: modules-data.mjs seed <dataDir> <posts> <mathPosts> <out.json> | check <dataDir> <out.json> | render <dataDir> <renders> <out.json> | pg-site <databaseUrl> <dataDir> <out.json>');
  process.exit(2);
}
main().then(() => process.exit(0), (err: unknown) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
