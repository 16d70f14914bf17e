// The forum benchmark's data set, written straight into a migrated Atrium database. bench/forum.mjs
// bundles this file with esbuild (it imports the app's TypeScript) and runs it with node:
//
//   node forum-data.mjs generate <dataDir> <posts> <replies> <manifest.json>   (PGlite in <dataDir>/db)
//   node forum-data.mjs copy <dataDir> <postgres url>                         (PGlite → PostgreSQL)
//
// `generate` writes members, tags, posts (Chinese, English and both), replies and comments with
// multi-row INSERTs inside transactions, the secondary indexes dropped meanwhile and rebuilt from
// their own definitions at the end. Derived columns come from the app's code: the search vector
// from vectorOf() (src/lib/server/ask/posts.ts, in a worker thread), the HTML from renderMarkdown()
// (the bulk bodies have no code fences, so highlighting would change nothing) and the excerpt from
// plainText(). Twenty planted posts (FIXTURES) go through renderBody(), shiki included, and the
// manifest lists the queries that must find them. reply_count, comment_count, accepted answers and
// last activity follow the generated replies; category and tag post_count and `hot` (refreshHot()'s
// formula, one UPDATE) are set from the rows at the end, and consistency() checks all of them.
// The same size gives the same rows; only the times move with the day it runs.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { sql, type SQL } from 'drizzle-orm';
import { openDatabase, type Database, type Db } from '../../src/lib/server/db/client';
import { titleVectorOf, vectorOf } from '../../src/lib/server/ask/posts';
import { renderBody } from '../../src/lib/server/ask/render';
import { plainText } from '../../src/lib/server/search/text';
import { renderMarkdown } from '../../src/lib/markdown/render';
import { DUMMY_HASH } from '../../src/lib/server/auth/password';
import { seededRandom } from './random';

const MEMBERS = 100;
const TAGS = 200;
const BATCH = 1000;
/** Batches per transaction. */
const BATCHES_PER_TX = 10;
const YEAR = 365 * 86400;
const MAX_REPLIES_PER_POST = 400;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

const { random, int, pick, zipf } = seededRandom(0x2f6b_1d3a);

/**
 * A sampler of ranks 0…n-1 where rank k has weight 1/(k + offset): Zipf's curve with a flattened
 * head, so that the most frequent word of a list is not in every post.
 */
function ranked(n: number, offset: number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cumulative[k] = sum += 1 / (k + offset);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

// ---------------------------------------------------------------------------------------------
// Vocabulary. None of it contains the fixtures' distinctive words (连接池, 复制延迟, 分布式锁, 死锁,
// connection, pool, replication, lag, deadlock, …), so the fixture queries find the planted posts
// and few others; the common queries (数据库, performance, …) match thousands of posts.

const ZH_WORDS = `数据库 服务器 性能 优化 前端 后端 部署 容器 缓存 索引 查询 事务 日志 监控 版本 升级 插件 主题 用户 权限 接口 文档 测试 配置
问题 方法 框架 组件 路由 模板 样式 脚本 编译 构建 依赖 安装 环境 变量 参数 函数 对象 数组 字符串 类型 错误 异常 调试 内存 线程 进程 网络 请求
响应 超时 负载 集群 节点 备份 恢复 存储 文件 目录 上传 下载 图片 视频 安全 加密 认证 会话 令牌 浏览器 移动端 页面 布局 表单 按钮 弹窗 通知
消息 评论 回复 社区 论坛 项目 团队 开发 运维 架构 设计 需求 功能 体验 效率 速度 稳定性 兼容性 更新 发布 上线 回滚 分支 合并 提交 代码 仓库
开源 许可证 服务 微服务 网关 代理 域名 证书 端口 防火墙 系统 内核 驱动 硬件 磁盘 分区 队列 任务 调度 批处理 报表 统计 分析 算法 模型 训练
推理 向量 搜索 排序 分页 过滤 字段 表结构 主键 外键 视图 存储过程 触发器 序列化 反序列化 协程 异步 同步 回调 事件 订阅 发布者 消费者 生产者
限流 熔断 降级 重试 幂等 灰度 容灾 扩容 缩容 镜像 编排 流水线 自动化 脚手架 工具链 包管理 类库 单元测试 集成测试 覆盖率 重构 注释 规范
格式化 国际化 本地化 时区 编码 乱码 字体 图标 动画 渲染 首屏 白屏 兼容 适配 响应式 暗色模式 快捷键 输入法 剪贴板 拖拽 滚动 分享 收藏 点赞
积分 会员 订单 支付 退款 发票 客服 工单 邮件 短信 验证码 头像 昵称 签名 个人中心 后台 管理员 版主 审核 举报 置顶 精华 标签 分类 草稿`.split(/\s+/);
const ZH_GLUE = `我 我们 你 大家 他们 这个 那个 一个 一些 所有 已经 还是 但是 因为 所以 如果 然后 可以 需要 应该 使用 通过 进行 发现 觉得 知道 看到
遇到 尝试 实现 支持 提供 出现 没有 不是 非常 比较 特别 其实 直接 终于 还 也 就 都 很 的 了 是 在 和 有 把 被 对 从 到 给 让 用 又 再`.split(/\s+/);
const ZH_ENDS = ['吗', '呢', '吧', '啊'];
/** Latin terms that Chinese posts mention. */
const TECH = `Docker Nginx Redis MySQL PostgreSQL React Vue Astro TypeScript JavaScript Python Go Linux Windows macOS GitHub API JSON YAML
HTTP HTTPS WebSocket GraphQL Node.js npm pnpm Vite ESLint Kubernetes Prometheus Grafana Elasticsearch Kafka RabbitMQ SQLite PHP Java
Spring Django Flask Rails Tailwind CSS HTML SSR CDN DNS TLS JWT SSH Git CI CD`.split(/\s+/);
const EN_WORDS = `database server performance optimize frontend backend deploy container cache index query transaction log monitor version upgrade
plugin theme user permission interface document test config issue method framework component route template style script compile
build dependency install environment variable parameter function object array string type error exception debug memory thread
process network request response timeout load cluster node backup restore storage file directory upload download image video
security encrypt authentication session token browser mobile page layout form button dialog notification message comment reply
community forum project team develop operations architecture design feature experience speed stable compatible update release
rollback branch merge commit code repository license service gateway proxy domain certificate port firewall system kernel driver
hardware disk partition queue task schedule batch report statistics analysis algorithm model training inference vector search sort
filter field schema column row view trigger serialize async sync callback event subscribe publish consumer producer retry
idempotent canary scale image pipeline automation scaffold toolchain package library coverage refactor lint format locale timezone
encoding font icon animation render layout responsive shortcut clipboard scroll share bookmark score member order payment refund
invoice ticket email captcha avatar nickname signature dashboard admin moderator review report pin category draft`.split(/\s+/);
const EN_GLUE = `the a an is are was were be have has had do does did not with without for from to in on at by of and or but if when then because so
this that these those it we you they my our your their can could should would will might must need want try tried use used using
work works working fine still again after before while during about into over under between through just only also very really
some any every each all most other same new old first last next better faster slower simple hard easy`.split(/\s+/);
const NAMES_ZH = '张伟 王芳 李娜 刘洋 陈静 杨帆 赵磊 黄丽 周杰 吴敏 徐强 孙悦 马超 朱琳 胡斌 郭涛 何欣 高远 林峰 罗婷'.split(' ');
const NAMES_EN = 'Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor Walter Yves'.split(' ');

// ---------------------------------------------------------------------------------------------
// Text. Every post has a topic, a handful of words its text and replies keep coming back to, as
// real threads do: a word is then frequent in some posts and absent from most, and the most common
// word of the vocabulary (数据库, database) ends up in about one post in eight, not in all of them.

type Lang = 'zh' | 'en' | 'mixed';
interface Topic { zh: string[]; en: string[]; tech: string[] }

const zhRank = ranked(ZH_WORDS.length, 30);
const enRank = ranked(EN_WORDS.length, 30);
const techRank = ranked(TECH.length, 10);

function topic(): Topic {
  return {
    zh: Array.from({ length: 8 }, () => ZH_WORDS[zhRank()]!),
    en: Array.from({ length: 8 }, () => EN_WORDS[enRank()]!),
    tech: Array.from({ length: 2 }, () => TECH[techRank()]!),
  };
}

const zhWord = (t: Topic): string => (random() < 0.9 ? pick(t.zh) : pick(ZH_WORDS));
const enWord = (t: Topic): string => (random() < 0.9 ? pick(t.en) : pick(EN_WORDS));
const techWord = (t: Topic): string => (random() < 0.8 ? pick(t.tech) : pick(TECH));

function zhSentence(t: Topic, mixed: boolean): string {
  let s = '';
  const words = int(5, 14);
  for (let i = 0; i < words; i++) {
    const r = random();
    if (mixed && r < 0.15) s += ` ${techWord(t)} `;
    else if (r < 0.45) s += pick(ZH_GLUE);
    else s += zhWord(t);
    if (i > 2 && i < words - 1 && random() < 0.12) s += '，';
  }
  return s.trim() + (random() < 0.15 ? `${pick(ZH_ENDS)}？` : '。');
}

function enSentence(t: Topic): string {
  const words: string[] = [];
  const n = int(6, 18);
  for (let i = 0; i < n; i++) {
    const r = random();
    if (r < 0.06) words.push(techWord(t));
    else if (r < 0.5) words.push(pick(EN_GLUE));
    else words.push(enWord(t));
  }
  if (random() < 0.1) words.splice(int(0, words.length - 1), 0, `\`${enWord(t)}()\``);
  const s = words.join(' ');
  return s[0]!.toUpperCase() + s.slice(1) + (random() < 0.15 ? '?' : '.');
}

const sentence = (t: Topic, lang: Lang): string => (lang === 'en' || (lang === 'mixed' && random() < 0.4) ? enSentence(t) : zhSentence(t, lang === 'mixed'));

/** Markdown of about `length` characters: paragraphs, now and then a list or a bold phrase. */
function markdown(t: Topic, lang: Lang, length: number): string {
  const paragraphs: string[] = [];
  let total = 0;
  while (total < length) {
    let p = '';
    const target = Math.min(length - total, int(80, 500));
    if (paragraphs.length > 0 && random() < 0.1) {
      const items = int(2, 4);
      for (let i = 0; i < items; i++) p += `- ${sentence(t, lang)}\n`;
      p = p.trimEnd();
    } else {
      while (p.length < target) p += (lang === 'zh' || p === '' ? '' : ' ') + sentence(t, lang);
      if (random() < 0.1) p = `**${sentence(t, lang)}** ${p}`;
    }
    paragraphs.push(p);
    total += p.length + 2;
  }
  return paragraphs.join('\n\n');
}

function title(t: Topic, lang: Lang): string {
  for (;;) {
    let s: string;
    if (lang === 'en' || (lang === 'mixed' && random() < 0.3)) {
      const words = Array.from({ length: int(3, 7) }, () => (random() < 0.2 ? techWord(t) : enWord(t)));
      s = pick([`How to ${words.join(' ')}`, `${words.join(' ')} not working`, `Best way to ${words.join(' ')}?`, words.join(' ')]);
      s = s[0]!.toUpperCase() + s.slice(1);
    } else {
      const w = (): string => zhWord(t);
      const tech = lang === 'mixed' || random() < 0.3 ? `${techWord(t)} ` : '';
      s = pick([`如何${tech}${w()}${w()}`, `${tech}${w()}${w()}的问题`, `${w()}${w()}出现${w()}怎么办`, `关于${w()}和${w()}的${w()}`, `${tech}${w()}${w()}${w()}求助`, `分享一个${w()}${w()}的${w()}方案`]);
    }
    if (s.length >= 10 && s.length <= 40) return s;
  }
}

// ---------------------------------------------------------------------------------------------
// The planted posts and the queries that must find them (indices into FIXTURES)

interface Fixture { title: string; body: string; tags: string[]; category: string }
const FIXTURES: Fixture[] = [
  { category: 'question', tags: ['数据库', 'PostgreSQL'], title: '如何配置数据库连接池', body: '生产环境的数据库连接池应该设多大？我们用 PgBouncer 做 connection pooling，高峰期连接池经常被占满。\n\n```ini\n[pgbouncer]\npool_mode = transaction\ndefault_pool_size = 20\n```\n\n有没有推荐的计算方法？' },
  { category: 'question', tags: ['PostgreSQL'], title: 'PostgreSQL replication lag keeps growing', body: 'Our streaming replication standby falls behind by minutes during nightly batch jobs, and the lag only shrinks after the jobs finish. 流复制的复制延迟在夜间批处理时很高。\n\nWhat should we check first: network, disk or `max_wal_senders`?' },
  { category: 'question', tags: ['数据库'], title: '连接池耗尽导致接口超时', body: '服务重启后一切正常，运行两天左右连接池就耗尽了，所有请求都在等待。排查发现有事务没有提交，connections 一直被占用。最后加上了超时回收。' },
  { category: 'discussion', tags: ['serverless'], title: 'Tuning connection pooling for serverless', body: 'Every cold start opens new database connections and we hit the max connections limit quickly. Is an external pooler like PgBouncer the answer, or should each function keep a small pool?' },
  { category: 'question', tags: ['PostgreSQL', '运维'], title: '流复制从库延迟很高怎么办', body: '主库写入量大的时候从库的复制延迟能到几十秒，查询 pg_stat_replication 看到 replay_lag 很大。从库的磁盘是机械盘，是不是这个原因？' },
  { category: 'share', tags: ['PostgreSQL'], title: 'Logical replication slots filling up the disk', body: 'After a subscriber went offline the logical replication slot kept retaining WAL and the primary disk filled up overnight. How do you monitor slot size and drop abandoned slots safely?' },
  { category: 'share', tags: ['搜索'], title: '全文检索的中文分词方案对比', body: '论坛要做中文全文检索，对比了 zhparser、jieba 分词和 n-gram 三种方案。bigram 不需要词典，召回率最高，但是索引会更大。' },
  { category: 'question', tags: ['Kubernetes'], title: 'Kubernetes ingress returns 502 intermittently', body: 'About one request in fifty fails with 502 from the ingress controller. The pods are healthy and the readiness probe passes. Could it be keep-alive timeouts between the ingress and the upstream?' },
  { category: 'share', tags: ['Redis'], title: '用 Redis 实现分布式锁的正确姿势', body: '看了很多文章，分布式锁要考虑过期时间、续期和误删的问题。Redlock 算法在时钟漂移时并不安全，我们最后用了带 fencing token 的方案。' },
  { category: 'question', tags: ['Rust'], title: 'Rust borrow checker errors with async closures', body: 'The borrow checker rejects my async closure because it captures `&mut self` across an await point. Borrowing the field separately fixed one error but introduced another. Is there an idiomatic pattern?' },
  { category: 'question', tags: ['小程序'], title: '微信小程序登录态失效后如何静默续期', body: '小程序的登录态保存在 storage 里，过期后用户每次都要重新授权。想在后台静默刷新 session，同时不影响正在进行的请求。' },
  { category: 'discussion', tags: ['MySQL', 'PostgreSQL'], title: 'Migrating from MySQL to PostgreSQL with zero downtime', body: 'We are migrating a 2 TB MySQL database to PostgreSQL. The plan is dual writes plus logical replication for the backfill, then a short read-only window for the switch. Has anyone done this with zero downtime?' },
  { category: 'share', tags: ['前端'], title: '前端打包体积优化实践', body: '通过 tree shaking、按需加载和压缩图片，我们把首页的打包体积从 1.2 MB 降到了 300 KB。这里记录每一步的效果。' },
  { category: 'share', tags: ['Astro'], title: 'Astro islands: hydration on first interaction', body: 'A reader who never clicks should not pay for the framework. With a custom client directive the island hydrates on the first pointerdown or focus, and the component code loads only then.' },
  { category: 'share', tags: ['前端'], title: '图片懒加载与占位符的最佳实践', body: '长列表里的图片使用原生 `loading="lazy"` 懒加载，再配合固定宽高的占位符避免布局抖动。' },
  { category: 'question', tags: ['Node.js'], title: 'Debugging memory leaks in Node.js worker threads', body: 'Heap snapshots show detached buffers growing in every worker. The leak disappears when we stop transferring ArrayBuffers. Any tools to find what is leaking faster than comparing snapshots by hand?' },
  { category: 'discussion', tags: ['运维'], title: '定时任务重复执行的排查过程', body: '部署了两个实例之后，每个定时任务都执行了两次。最后用数据库的 advisory lock 保证同一时刻只有一个实例在执行。' },
  { category: 'discussion', tags: ['安全'], title: 'OAuth2 refresh token rotation and reuse detection', body: 'When a refresh token is used twice we revoke the whole token family. Rotation works, but mobile clients on flaky networks sometimes retry and get logged out.' },
  { category: 'question', tags: ['数据库'], title: '数据库死锁分析与解决', body: '两个事务以相反的顺序更新同一批行，就会出现死锁。PostgreSQL 的日志里可以看到 deadlock detected，按主键排序后再更新就好了。' },
  { category: 'share', tags: ['PostgreSQL', '运维'], title: 'Point-in-time recovery with WAL archiving', body: 'We archive WAL to object storage every minute and take a base backup nightly. Restoring to a point in time worked in staging; the archived segments must be complete or recovery stops early.' },
];

const FIXTURE_QUERIES: { q: string; lang: 'zh' | 'en'; expect: number[] }[] = [
  { lang: 'zh', q: '连接池', expect: [0, 2] },
  { lang: 'zh', q: '数据库连接池', expect: [0] },
  { lang: 'zh', q: '流复制', expect: [1, 4] },
  { lang: 'zh', q: '复制延迟', expect: [1, 4] },
  { lang: 'zh', q: '分词', expect: [6] },
  { lang: 'zh', q: '全文检索', expect: [6] },
  { lang: 'zh', q: '分布式锁', expect: [8] },
  { lang: 'zh', q: 'Redis 分布式锁', expect: [8] },
  { lang: 'zh', q: '小程序', expect: [10] },
  { lang: 'zh', q: '登录态', expect: [10] },
  { lang: 'zh', q: '打包体积', expect: [12] },
  { lang: 'zh', q: '懒加载', expect: [14] },
  { lang: 'zh', q: '定时任务', expect: [16] },
  { lang: 'zh', q: '死锁', expect: [18] },
  { lang: 'en', q: 'connections', expect: [0, 2, 3] },
  { lang: 'en', q: 'pooling', expect: [0, 3] },
  { lang: 'en', q: 'replicat', expect: [1, 4, 5, 11] },
  { lang: 'en', q: 'replication lag', expect: [1, 4] },
  { lang: 'en', q: 'PostgreSQL replication', expect: [1, 11] },
  { lang: 'en', q: 'hydration', expect: [13] },
  { lang: 'en', q: 'leaks', expect: [15] },
  { lang: 'en', q: 'deadlock', expect: [18] },
  { lang: 'en', q: 'downtime', expect: [11] },
  { lang: 'en', q: 'rotation', expect: [17] },
  { lang: 'en', q: 'archiving', expect: [19] },
  { lang: 'en', q: 'borrow', expect: [9] },
  { lang: 'en', q: 'ingress', expect: [7] },
];

/** Everyday queries that match a large share of the posts: the expensive end of search. */
const COMMON_QUERIES = { zh: ['数据库', '性能优化', '服务器', '缓存', '前端框架'], en: ['database', 'performance', 'docker deploy', 'cache', 'error'] };

// ---------------------------------------------------------------------------------------------
// SQL literals

const str = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const num = (n: number | null): string => (n === null ? 'null' : String(n));

/**
 * Drops the secondary indexes of `tables` (not primary keys or constraints) and returns their
 * definitions: a bulk load runs several times faster without them, and an index built once over
 * all rows is what a REINDEX would give. rebuild() recreates them from these exact definitions.
 */
async function dropIndexes(db: Db, tables: string[]): Promise<string[]> {
  const rows = await select<{ name: string; def: string }>(db, sql.raw(
    `select c.relname as name, pg_get_indexdef(x.indexrelid) as def from pg_index x join pg_class c on c.oid = x.indexrelid
     join pg_class t on t.oid = x.indrelid join pg_namespace n on n.oid = t.relnamespace
     where n.nspname = 'public' and t.relname in (${tables.map(str).join(', ')}) and not x.indisprimary
       and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid)`,
  ));
  for (const r of rows) await db.execute(sql.raw(`drop index "${r.name}"`));
  return rows.map((r) => r.def);
}

async function rebuild(db: Db, definitions: string[]): Promise<void> {
  await db.execute(sql`set maintenance_work_mem = '128MB'`);
  for (const def of definitions) await db.execute(sql.raw(def));
}

/** Rows of a query: drizzle types execute() per driver, and both drivers answer `{ rows }`. */
async function select<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

let dbMs = 0;
async function inTransactions(db: Db, statements: string[]): Promise<void> {
  const t0 = performance.now();
  for (let i = 0; i < statements.length; i += BATCHES_PER_TX) {
    await db.transaction(async (tx) => {
      for (const s of statements.slice(i, i + BATCHES_PER_TX)) await tx.execute(sql.raw(s));
    });
  }
  dbMs += performance.now() - t0;
}

/** Collects rows for `insert into <table> (<columns>) values …`, BATCH rows per statement. */
class Inserter {
  readonly #rows: string[] = [];
  readonly #statements: string[] = [];
  constructor(private readonly db: Db, private readonly head: string) {}

  add(values: string): void {
    this.#rows.push(`(${values})`);
    if (this.#rows.length >= BATCH) this.#cut();
  }

  /** Writes the full statements collected so far; `all` writes the last partial one too. */
  async write(all = false): Promise<void> {
    if (all && this.#rows.length) this.#cut();
    await inTransactions(this.db, this.#statements.splice(0));
  }

  #cut(): void {
    this.#statements.push(`${this.head} values ${this.#rows.join(',')}`);
    this.#rows.length = 0;
  }
}

/**
 * The app's searchVector() is the costliest part of the generation (Intl.Segmenter on every CJK
 * run): a worker thread computes one batch's vectors while this thread writes the previous batch.
 */
class VectorWorker {
  readonly #worker = new Worker(fileURLToPath(import.meta.url));
  readonly #jobs = new Map<number, (vectors: string[]) => void>();
  #next = 0;

  constructor() {
    this.#worker.on('message', ({ id, vectors }: { id: number; vectors: string[] }) => {
      this.#jobs.get(id)?.(vectors);
      this.#jobs.delete(id);
    });
    this.#worker.on('error', (err) => {
      console.error(`[forum-data] vector worker failed: ${err.stack}`);
      process.exit(1);
    });
  }

  run(items: VectorInput[]): Promise<string[]> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#jobs.set(id, resolve);
      this.#worker.postMessage({ id, items });
    });
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

type VectorInput = [title: string, text: string, tags: string[]];

// ---------------------------------------------------------------------------------------------
// generate

interface Manifest {
  posts: number; replies: number; comments: number; members: number; tags: number; tagLinks: number;
  maxPostId: number; unpublished: number[]; generatedMs: number; checks: Record<string, number>;
  fixtures: { id: number; title: string }[];
  queries: { q: string; lang: 'zh' | 'en'; expect: number[] }[];
  common: { zh: string[]; en: string[] };
}

const now = Math.floor(Date.now() / 1000);

/**
 * Reply counts per post, summing to `total`: about one post in eight has none, most have a few, and
 * a Pareto tail gives long threads (median ~3, 99th percentile ~40, a few at MAX_REPLIES_PER_POST).
 */
function replyCounts(posts: number, total: number): Int32Array {
  const weights = Float64Array.from({ length: posts }, () => (random() < 0.12 ? 0 : Math.pow(1 - random(), -0.7)));
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = new Int32Array(posts);
  let given = 0;
  for (let i = 0; i < posts; i++) {
    counts[i] = Math.min(MAX_REPLIES_PER_POST, Math.floor((weights[i]! / sum) * total));
    given += counts[i]!;
  }
  for (let i = 0; given < total; i = (i + 7919) % posts) {
    if (weights[i]! > 0 && counts[i]! < MAX_REPLIES_PER_POST) {
      counts[i]!++;
      given++;
    }
  }
  return counts;
}

async function generate(dataDir: string, posts: number, replies: number, manifestPath: string): Promise<void> {
  const started = performance.now();
  const database = await openDatabase({ databaseUrl: null, dataDir });
  const { db } = database;
  try {
    const [{ n: existing } = { n: 0 }] = await select<{ n: number }>(db, sql`select count(*)::int as n from ask_post`);
    if (existing) throw new Error(`ask_post already has ${existing} rows: generate wants a freshly migrated database`);
    const categories = new Map((await select<{ id: number; slug: string }>(db, sql`select id, slug from ask_category`)).map((r) => [r.slug, r.id]));
    if (categories.size !== 4) throw new Error(`expected the 4 seeded categories, found ${categories.size}`);
    const catIds = ['question', 'discussion', 'share', 'announcement'].map((s) => categories.get(s)!);
    const progress = (what: string): void => console.log(`[forum-data] ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);

    // Members: ids after whatever the seed made (none, usually).
    const [{ m: maxUser } = { m: 0 }] = await select<{ m: number }>(db, sql`select coalesce(max(id), 0)::int as m from "user"`);
    const users: number[] = [];
    const members = new Inserter(db, 'insert into "user" (id, username, nickname, email, password, motto, join_time, create_time, update_time)');
    for (let i = 1; i <= MEMBERS; i++) {
      const id = maxUser + i;
      users.push(id);
      const nickname = i % 2 ? `${pick(NAMES_ZH)}${i}` : `${pick(NAMES_EN)} ${i}`;
      const t = now - YEAR - int(0, YEAR);
      members.add([id, str(`bench_member_${i}`), str(nickname), str(`bench_member_${i}@example.com`), str(DUMMY_HASH), str(i % 3 ? '' : sentence(topic(), 'zh').slice(0, 60)), t, t, t].join(','));
    }
    await members.write(true);

    // Tags: the fixture tags first, then topic names; lower(name) is unique.
    const tagNames = [...new Set(FIXTURES.flatMap((f) => f.tags))];
    const candidates = [...TECH, ...ZH_WORDS, ...EN_WORDS];
    for (let i = 0; tagNames.length < TAGS; i++) {
      const name = candidates[i % candidates.length]! + (i >= candidates.length ? `-${Math.floor(i / candidates.length)}` : '');
      if (!tagNames.some((t) => t.toLowerCase() === name.toLowerCase())) tagNames.push(name);
    }
    const tagRank = ranked(tagNames.length, 10);
    const tagIdOf = new Map<string, number>();
    const tags = new Inserter(db, 'insert into ask_tag (id, name, post_count, create_time)');
    for (const [i, name] of tagNames.entries()) {
      tagIdOf.set(name, i + 1);
      tags.add([i + 1, str(name), 0, now - YEAR].join(','));
    }
    await tags.write(true);
    progress(`${MEMBERS} members, ${tagNames.length} tags`);

    const indexes = await dropIndexes(db, ['ask_post', 'ask_post_tag', 'ask_reply']);
    // Posts, their tags, replies and comments, in id order (ids grow with the creation time).
    const counts = replyCounts(posts, replies);
    const fixtureAt = new Map(FIXTURES.map((_, k) => [Math.floor(((k + 0.5) * posts) / FIXTURES.length), k]));
    const fixtureIds: number[] = [];
    const unpublished: number[] = [];
    const postRows = new Inserter(db, 'insert into ask_post (id, category_id, user_id, title, body, html, excerpt, status, pinned, featured, views, reply_count, accepted_reply_id, last_reply_user_id, last_activity_time, search_vector, title_vector, create_time, update_time)');
    const linkRows = new Inserter(db, 'insert into ask_post_tag (post_id, tag_id)');
    const replyRows = new Inserter(db, 'insert into ask_reply (id, post_id, parent_id, user_id, body, html, status, comment_count, create_time, update_time)');
    let replyId = 0;
    let comments = 0;
    let links = 0;
    const start = now - YEAR;
    const vectors = new VectorWorker();
    let batch: { head: string; tail: string }[] = [];
    let inputs: VectorInput[] = [];
    let waiting: { rows: { head: string; tail: string }[]; job: Promise<string[]> } | null = null;
    const writeWaiting = async (): Promise<void> => {
      if (!waiting) return;
      const computed = await waiting.job;
      waiting.rows.forEach((r, k) => postRows.add(`${r.head},${computed[k]!},${r.tail}`));
      await postRows.write();
      await linkRows.write();
      await replyRows.write();
    };
    for (let i = 0; i < posts; i++) {
      const id = i + 1;
      const fixture = fixtureAt.get(i);
      const f = fixture === undefined ? null : FIXTURES[fixture]!;
      const lang: Lang = random() < 0.5 ? 'zh' : random() < 0.6 ? 'en' : 'mixed';
      const subject = topic();
      const createTime = start + Math.floor((i / posts) * (YEAR - 3600)) + int(0, 600);
      const userId = users[zipf(users.length, 0.7)]!;
      const categoryId = f ? categories.get(f.category)! : catIds[random() < 0.5 ? 0 : random() < 0.6 ? 1 : random() < 0.95 ? 2 : 3]!;
      const status = f ? 'published' : random() < 0.015 ? (random() < 0.33 ? 'deleted' : 'hidden') : 'published';
      if (status !== 'published') unpublished.push(id);
      let postTitle: string;
      let body: string;
      let html: string;
      let text: string;
      let postTags: string[];
      if (f) {
        const rendered = await renderBody(f.body);
        [postTitle, body, html, text, postTags] = [f.title, f.body, rendered.html, rendered.text, f.tags];
        fixtureIds.push(id);
      } else {
        postTitle = title(subject, lang);
        body = markdown(subject, lang, int(300, 1500));
        html = renderMarkdown(body).html;
        text = plainText(body);
        postTags = [...new Set(Array.from({ length: random() < 0.2 ? 0 : 1 + zipf(5) }, () => tagNames[tagRank()]!))];
      }
      for (const name of postTags) {
        linkRows.add(`${id},${tagIdOf.get(name)!}`);
        links++;
      }

      // Replies: times after the post, ascending with the id; about one in five is a comment.
      const n = counts[i]!;
      const times = Array.from({ length: n }, () => createTime + Math.floor((now - createTime) * Math.pow(random(), 4))).sort((a, b) => a - b);
      const topLevel: { id: number; comments: number; published: boolean; row: (string | number)[] }[] = [];
      let lastActivity = createTime;
      let lastReplyUser: number | null = null;
      for (let k = 0; k < n; k++) {
        replyId++;
        const author = users[zipf(users.length, 0.8)]!;
        const replyLang: Lang = lang === 'mixed' ? (random() < 0.5 ? 'zh' : 'en') : lang;
        const isComment = topLevel.length > 0 && random() < 0.2;
        const replyBody = isComment ? sentence(subject, replyLang).slice(0, 140) : markdown(subject, replyLang, int(30, 600));
        const replyStatus = random() < 0.01 ? 'hidden' : 'published';
        const row: (string | number)[] = [replyId, id, 0, author, str(replyBody), str(renderMarkdown(replyBody).html), str(replyStatus), 0, times[k]!, times[k]!];
        if (isComment) {
          const parent = topLevel[Math.floor(random() * topLevel.length)]!;
          row[2] = parent.id;
          if (replyStatus === 'published') parent.comments++;
          comments++;
          replyRows.add(row.join(','));
        } else {
          topLevel.push({ id: replyId, comments: 0, published: replyStatus === 'published', row });
          if (replyStatus === 'published') {
            lastActivity = times[k]!;
            lastReplyUser = author;
          }
        }
      }
      for (const r of topLevel) {
        r.row[7] = r.comments;
        replyRows.add(r.row.join(','));
      }
      const published = topLevel.filter((r) => r.published);
      const accepted = categoryId === catIds[0] && published.length > 0 && random() < 0.4 ? published[0]!.id : null;
      const pinned = !f && i >= posts - 200 && i % 60 === 0 && status === 'published' ? 1 : 0;
      batch.push({
        head: [
          id, categoryId, userId, str(postTitle), str(body), str(html), str(text.slice(0, 280)), str(status), pinned, random() < 0.01 ? 1 : 0,
          Math.floor(Math.pow(random(), 3) * 5000), published.length, num(accepted), num(lastReplyUser), lastActivity,
        ].join(','),
        tail: `${createTime},${createTime}`,
      });
      inputs.push([postTitle, text, postTags]);
      if (batch.length === BATCH || i === posts - 1) {
        const job = vectors.run(inputs);
        await writeWaiting();
        waiting = { rows: batch, job };
        batch = [];
        inputs = [];
      }
      if ((i + 1) % 10_000 === 0) progress(`${i + 1} posts, ${replyId} replies`);
    }
    await writeWaiting();
    await vectors.close();
    await postRows.write(true);
    await linkRows.write(true);
    await replyRows.write(true);
    progress(`${posts} posts, ${replyId} replies (${comments} comments), ${links} tag links written`);

    // Counters from the rows, as the services keep them: only published posts count.
    await db.execute(sql`update ask_category c set post_count = (select count(*) from ask_post p where p.category_id = c.id and p.status = 'published')`);
    await db.execute(sql`update ask_tag t set post_count = x.n from (select pt.tag_id, count(*)::int as n from ask_post_tag pt join ask_post p on p.id = pt.post_id and p.status = 'published' group by pt.tag_id) x where x.tag_id = t.id`);
    // refreshHot()'s formula (src/lib/server/ask/posts.ts) for every post at once.
    await db.execute(sql`update ask_post set hot = sign(up_count - down_count + reply_count + collect_count) * log(greatest(abs(up_count - down_count + reply_count + collect_count), 1)) + create_time / 45000.0`);
    for (const table of ['user', 'ask_tag', 'ask_post', 'ask_reply']) {
      await db.execute(sql.raw(`select setval(pg_get_serial_sequence('"${table}"', 'id'), (select max(id) from "${table}"))`));
    }
    progress(`counters and hot set (database time so far ${(dbMs / 1000).toFixed(1)} s)`);
    // The hot UPDATE left a dead version of every post: compact the table while it has no
    // secondary indexes (the GIN index would have taken every lexeme twice), then build them.
    await db.execute(sql`vacuum full ask_post`);
    await rebuild(db, indexes);
    progress(`${indexes.length} indexes rebuilt`);
    await db.execute(sql`vacuum analyze`);
    await db.execute(sql`checkpoint`);
    progress('vacuumed');

    const checks = await consistency(db);
    const manifest: Manifest = {
      posts, replies: replyId, comments, members: MEMBERS, tags: tagNames.length, tagLinks: links, maxPostId: posts, unpublished,
      generatedMs: Math.round(performance.now() - started), checks,
      fixtures: fixtureIds.map((id, k) => ({ id, title: FIXTURES[k]!.title })),
      queries: FIXTURE_QUERIES.map((q) => ({ ...q, expect: q.expect.map((k) => fixtureIds[k]!) })),
      common: COMMON_QUERIES,
    };
    writeFileSync(manifestPath, JSON.stringify(manifest));
    progress(`done; checks ${JSON.stringify(checks)}`);
  } finally {
    await database.close();
  }
}

/** Rows whose stored counters disagree with the data (all must be 0). */
async function consistency(db: Db): Promise<Record<string, number>> {
  const one = async (query: string): Promise<number> => (await select<{ n: number }>(db, sql.raw(query)))[0]?.n ?? -1;
  return {
    replyCount: await one(`select count(*)::int as n from ask_post p left join (select post_id, count(*) as c from ask_reply where parent_id = 0 and status = 'published' group by post_id) r on r.post_id = p.id where p.reply_count <> coalesce(r.c, 0)`),
    commentCount: await one(`select count(*)::int as n from ask_reply p left join (select parent_id, count(*) as c from ask_reply where parent_id <> 0 and status = 'published' group by parent_id) r on r.parent_id = p.id where p.parent_id = 0 and p.comment_count <> coalesce(r.c, 0)`),
    categoryCount: await one(`select count(*)::int as n from ask_category c left join (select category_id, count(*) as c from ask_post where status = 'published' group by category_id) p on p.category_id = c.id where c.post_count <> coalesce(p.c, 0)`),
    tagCount: await one(`select count(*)::int as n from ask_tag t left join (select pt.tag_id, count(*) as c from ask_post_tag pt join ask_post p on p.id = pt.post_id and p.status = 'published' group by pt.tag_id) x on x.tag_id = t.id where t.post_count <> coalesce(x.c, 0)`),
    hot: await one(`select count(*)::int as n from ask_post where abs(hot - (sign(up_count - down_count + reply_count + collect_count) * log(greatest(abs(up_count - down_count + reply_count + collect_count), 1)) + create_time / 45000.0)) > 1e-9`),
  };
}

// ---------------------------------------------------------------------------------------------
// copy: the same rows into a migrated PostgreSQL database

/** The tables generate() writes, parents first; the seeded categories are replaced with their counted copies. */
const COPIED = ['user', 'ask_category', 'ask_tag', 'ask_post', 'ask_post_tag', 'ask_reply'];

async function copy(dataDir: string, url: string): Promise<void> {
  const started = performance.now();
  let source: Database | null = null;
  let target: Database | null = null;
  try {
    source = await openDatabase({ databaseUrl: null, dataDir });
    target = await openDatabase({ databaseUrl: url, dataDir });
    const from = source.db;
    const to = target.db;
    await to.execute(sql.raw(`truncate ${COPIED.map((t) => `"${t}"`).join(', ')} restart identity`));
    const indexes = await dropIndexes(to, ['ask_post', 'ask_post_tag', 'ask_reply']);
    for (const table of COPIED) {
      // Pages of ids as JSON, inserted with json_populate_recordset: no column list to keep in step
      // with the schema. PostgreSQL inserts one page while PGlite reads the next.
      const key = table === 'ask_post_tag' ? 'post_id' : 'id';
      const span = table === 'ask_post_tag' ? BATCH / 5 : BATCH;
      const [{ m: max } = { m: 0 }] = await select<{ m: number }>(from, sql.raw(`select coalesce(max(${key}), 0)::int as m from "${table}"`));
      // The source's columns by name: a column that only the target has (a newer migration) takes its default.
      const columns = (await select<{ c: string }>(from, sql.raw(`select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as c from information_schema.columns where table_schema = 'public' and table_name = '${table}'`)))[0]!.c;
      let rows = 0;
      let writing: Promise<unknown> = Promise.resolve();
      for (let after = 0; after < max; after += span) {
        const [page] = await select<{ j: string | null; n: number }>(from, sql.raw(
          `select json_agg(t)::text as j, count(*)::int as n from "${table}" t where ${key} > ${after} and ${key} <= ${after + span}`,
        ));
        if (!page?.n || !page.j) continue;
        await writing;
        // Drizzle runs a query each time its result is awaited: Promise.resolve() makes it run once.
        writing = Promise.resolve(to.execute(sql.raw(`insert into "${table}" (${columns}) select ${columns} from json_populate_recordset(null::"${table}", ${str(page.j)}::json)`)));
        writing.catch(() => undefined); // awaited (and thrown) at the next page; no unhandled rejection meanwhile
        rows += page.n;
      }
      await writing;
      if (table !== 'ask_post_tag') await to.execute(sql.raw(`select setval(pg_get_serial_sequence('"${table}"', 'id'), greatest((select max(id) from "${table}"), 1))`));
      console.log(`[forum-data] ${table}: ${rows} rows copied (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
    await rebuild(to, indexes);
    console.log(`[forum-data] ${indexes.length} indexes rebuilt (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    await to.execute(sql`vacuum analyze`);
    const checks = await consistency(to);
    console.log(`[forum-data] copied to PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s; checks ${JSON.stringify(checks)}`);
    if (Object.values(checks).some((n) => n !== 0)) throw new Error(`the copy's counters disagree with its rows: ${JSON.stringify(checks)}`);
  } finally {
    await target?.close();
    await source?.close();
  }
}

if (!isMainThread) {
  parentPort!.on('message', ({ id, items }: { id: number; items: VectorInput[] }) => {
    // Both vectors travel as one string: the search vector, then the title vector, as SQL literals.
    parentPort!.postMessage({ id, vectors: items.map(([t, text, tags]) => `${str(vectorOf(t, text, tags))},${str(titleVectorOf(t, tags))}`) });
  });
} else {
  const [command, ...args] = process.argv.slice(2);
  const run = command === 'generate' ? generate(args[0]!, Number(args[1]), Number(args[2]), args[3]!)
    : command === 'copy' ? copy(args[0]!, args[1]!)
      : Promise.reject(new Error('usage: forum-data.mjs generate <dataDir> <posts> <replies> <manifest> | copy <dataDir> <postgres url>'));
  run.then(() => process.exit(0), (err: unknown) => {
    // Drizzle's message holds the whole statement (megabytes here): the database's own error is the cause.
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : null;
    console.error(`[forum-data] error: ${cause ? `${cause.message}\n${String(err).slice(0, 300)}…` : err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  });
}
