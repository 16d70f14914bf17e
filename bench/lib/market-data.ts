// The market benchmark's data, written straight into a migrated Atrium database. bench/market.mjs
// bundles this file with esbuild (it imports the app's TypeScript) and runs it with node:
//
//   node market-data.mjs generate <dataDir> <modules> <manifest.json>        (PGlite in <dataDir>/db)
//   node market-data.mjs copy <dataDir> <postgres url>                      (PGlite → PostgreSQL)
//   node market-data.mjs stampede <dataDir> <postgres url|-> <buyers> <setup.json>
//   node market-data.mjs verify <dataDir> <postgres url|-> <setup.json> <checks.json>
//
// `generate` writes DEVELOPERS members with approved developer applications and `modules` published
// modules (Chinese, English and bilingual names and summaries from the word lists below, a markdown
// description, tags, a price mix of free, cents and points, downloads and ratings with a long tail,
// publish times over two years), each with one published version. The derived columns come from the
// app's moduleText() (src/lib/server/market/text.ts): the description's HTML and both search vectors.
// The same size gives the same rows; only the times move with the day it runs.
//
// `stampede` prepares the purchase test on a database the server is not running on (PGlite allows one
// process per directory): a developer, a paid module (999 cents or 50 points), `buyers` members half of
// whom pay with balance and half with points, one more member who will double-submit, all created
// with the app's createUser() and topped up through its ledger (adjustMoney/adjustScore), and one
// session each from startSession(), hashed with the secret the server will use. `verify` reads what
// the purchases left behind, once the server has stopped.
import { writeFileSync, readFileSync } from 'node:fs';
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { openDatabase, type Db } from '../../src/lib/server/db/client';
import { developer, module, moduleVersion, user } from '../../src/lib/server/db/schema';
import { moduleText } from '../../src/lib/server/market/text';
import { searchQuery } from '../../src/lib/server/search/text';
import { DUMMY_HASH } from '../../src/lib/server/auth/password';
import { createUser } from '../../src/lib/server/account/users';
import { adjustMoney, adjustScore } from '../../src/lib/server/account/ledger';
import { startSession } from '../../src/lib/server/auth/sessions';
import { tokenSecret } from '../../src/lib/server/auth/secret';
import { commissionOf } from '../../src/lib/server/market/orders';
import { translateAny } from '../../src/lib/i18n';
import { DEFAULT_COMMISSION, MODULE_CATEGORIES, type ModuleCategory } from '../../src/lib/shared/market';
import { seededRandom } from './random';

const DEVELOPERS = 100;
const BATCH = 500;
const DAY = 86_400;
const TWO_YEARS = 730 * DAY;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

const { random, int, pick, zipf } = seededRandom(0x5eed_3a71);

/** A few distinct entries of a list, the first ones more often. */
function some<T>(list: readonly T[], count: number, skew = 1): T[] {
  const out = new Set<T>();
  for (let i = 0; out.size < Math.min(count, list.length) && i < count * 10; i++) out.add(list[zipf(list.length, skew)]!);
  return [...out];
}

// ---------------------------------------------------------------------------------------------
// Vocabulary: what each category's modules are called, do and are tagged with.

interface Kind {
  /** Chinese and English product nouns ("编辑器", "Editor"), paired by index. */
  zh: string[]; en: string[];
  /** Features, paired by index: "实时预览" / "live preview". */
  fzh: string[]; fen: string[];
  tags: string[];
}

const KINDS: Record<ModuleCategory, Kind> = {
  editor: {
    zh: ['Markdown 编辑器', '富文本编辑器', '代码编辑器', '表格编辑器', '公式编辑器', '流程图编辑器', '思维导图', '图片编辑器', '排版工具', '协同编辑器'],
    en: ['Markdown Editor', 'Rich Text Editor', 'Code Editor', 'Table Editor', 'Math Editor', 'Diagram Editor', 'Mind Map', 'Image Editor', 'Typesetter', 'Collaborative Editor'],
    fzh: ['实时预览', '粘贴上传图片', '草稿自动保存', '快捷键', '语法高亮', 'LaTeX 公式', '拖拽排序', '多人协同', '版本历史', '全屏写作', '字数统计', '表格合并单元格'],
    fen: ['live preview', 'image paste upload', 'draft autosave', 'keyboard shortcuts', 'syntax highlighting', 'LaTeX formulas', 'drag-and-drop ordering', 'real-time collaboration', 'revision history', 'distraction-free mode', 'word count', 'merged table cells'],
    tags: ['markdown', '编辑器', 'editor', '富文本', 'wysiwyg', '写作', 'latex', '协同'],
  },
  content: {
    zh: ['文章系统', '专题页', '内容采集器', 'SEO 优化', '站点地图', '文档中心', '知识库', '图集相册', '视频点播', '下载中心'],
    en: ['Article System', 'Landing Pages', 'Content Importer', 'SEO Toolkit', 'Sitemap Generator', 'Docs Center', 'Knowledge Base', 'Photo Gallery', 'Video on Demand', 'Download Center'],
    fzh: ['自定义字段', '定时发布', '多级栏目', '伪静态链接', '站点地图生成', '关键词内链', '批量导入', '水印', '阅读权限', '目录树', '全文检索', '相关推荐'],
    fen: ['custom fields', 'scheduled publishing', 'nested sections', 'clean URLs', 'sitemap generation', 'keyword internal links', 'bulk import', 'watermarks', 'reading permissions', 'table of contents', 'full-text search', 'related articles'],
    tags: ['cms', '内容管理', 'seo', '文档', '知识库', 'sitemap', '相册', '视频'],
  },
  community: {
    zh: ['问答社区', '签到打卡', '积分商城', '勋章系统', '私信', '活动报名', '投票', '会员等级', '邀请注册', '用户主页'],
    en: ['Q&A Community', 'Daily Check-in', 'Points Shop', 'Badges', 'Private Messages', 'Event Signup', 'Polls', 'Membership Levels', 'Invitations', 'Member Profiles'],
    fzh: ['悬赏问答', '连续签到奖励', '积分兑换', '勋章墙', '消息提醒', '报名审核', '匿名投票', '等级特权', '邀请码', '关注与粉丝', '内容举报', '@提及'],
    fen: ['bounty questions', 'streak rewards', 'points redemption', 'badge wall', 'notifications', 'signup approval', 'anonymous voting', 'level perks', 'invite codes', 'follows and followers', 'content reports', '@mentions'],
    tags: ['社区', 'community', '积分', '签到', '会员', '论坛', 'forum', '互动'],
  },
  commerce: {
    zh: ['在线商城', '微信支付', '支付宝支付', '优惠券', '分销系统', '会员充值', '发票管理', '订单导出', '虚拟商品', '拼团'],
    en: ['Online Shop', 'WeChat Pay', 'Alipay', 'Coupons', 'Affiliate System', 'Wallet Top-up', 'Invoicing', 'Order Export', 'Digital Goods', 'Group Buying'],
    fzh: ['扫码支付', '退款处理', '满减活动', '佣金结算', '余额充值', '电子发票', 'Excel 导出', '卡密自动发货', '库存预警', '购物车', '物流查询', '对账单'],
    fen: ['QR code payments', 'refunds', 'spend-and-save offers', 'commission payouts', 'balance top-ups', 'e-invoices', 'Excel export', 'automatic key delivery', 'low-stock alerts', 'shopping cart', 'shipment tracking', 'reconciliation reports'],
    tags: ['支付', 'payment', '商城', 'shop', '微信', 'alipay', '电商', '优惠券'],
  },
  storage: {
    zh: ['对象存储', '阿里云 OSS', '腾讯云 COS', '七牛云存储', '数据备份', '图片压缩', 'CDN 加速', '附件管理', '大文件上传', '云盘'],
    en: ['Object Storage', 'Aliyun OSS', 'Tencent COS', 'Qiniu Storage', 'Backup', 'Image Compression', 'CDN Accelerator', 'Attachment Manager', 'Large File Upload', 'Cloud Drive'],
    fzh: ['分片上传', '断点续传', '定时备份', '一键恢复', 'WebP 转换', '缩略图', '防盗链', '直传签名', '存储用量统计', '过期清理', '秒传', '私有读写'],
    fen: ['multipart upload', 'resumable transfers', 'scheduled backups', 'one-click restore', 'WebP conversion', 'thumbnails', 'hotlink protection', 'signed direct uploads', 'storage usage stats', 'expiry cleanup', 'instant dedup upload', 'private buckets'],
    tags: ['存储', 'storage', 'oss', 'backup', '备份', 'cdn', '上传', 's3'],
  },
  ai: {
    zh: ['AI 写作助手', '智能客服', '内容审核', '图片生成', '语音转文字', '智能翻译', '摘要生成', '知识问答', '标签推荐', '向量检索'],
    en: ['AI Writing Assistant', 'AI Chatbot', 'Content Moderation', 'Image Generation', 'Speech to Text', 'Smart Translation', 'Summarizer', 'Knowledge QA', 'Tag Suggestions', 'Vector Search'],
    fzh: ['大模型接入', '多轮对话', '敏感词过滤', '提示词模板', '流式输出', '中英互译', '自动摘要', '文档问答', '用量配额', '私有化部署', '图片识别', '相似内容推荐'],
    fen: ['LLM integration', 'multi-turn chat', 'sensitive word filtering', 'prompt templates', 'streaming output', 'Chinese-English translation', 'automatic summaries', 'document Q&A', 'usage quotas', 'self-hosted models', 'image recognition', 'similar content suggestions'],
    tags: ['ai', '人工智能', 'gpt', 'llm', '客服', '翻译', 'chatbot', '审核'],
  },
  tools: {
    zh: ['数据导入导出', '计划任务', '日志查看器', '邮件模板', '短信通知', '站点统计', '缓存清理', '数据库优化', '接口文档', '二维码生成'],
    en: ['Data Import/Export', 'Task Scheduler', 'Log Viewer', 'Email Templates', 'SMS Notifications', 'Site Analytics', 'Cache Cleaner', 'Database Optimizer', 'API Docs', 'QR Code Generator'],
    fzh: ['CSV 导入', '定时执行', '日志搜索', '模板变量', '验证码短信', '访问统计', '一键清理缓存', '慢查询分析', '在线调试', '批量生成', '命令行工具', '告警通知'],
    fen: ['CSV import', 'cron scheduling', 'log search', 'template variables', 'verification texts', 'visitor stats', 'one-click cache purge', 'slow query analysis', 'online API console', 'batch generation', 'command-line tools', 'alerting'],
    tags: ['工具', 'tools', '运维', 'devops', 'api', '统计', '邮件', 'cli'],
  },
  theme: {
    zh: ['暗色主题', '简约主题', '企业官网主题', '博客主题', '杂志主题', '文档主题', '游戏社区主题', '节日皮肤', '移动端主题', '极客主题'],
    en: ['Dark Theme', 'Minimal Theme', 'Corporate Theme', 'Blog Theme', 'Magazine Theme', 'Docs Theme', 'Gaming Community Theme', 'Holiday Skin', 'Mobile Theme', 'Geek Theme'],
    fzh: ['暗色模式', '响应式布局', '自定义配色', '首页轮播', '字体设置', '卡片布局', '瀑布流', '页脚定制', '多语言切换', '无障碍对比度', '动画效果', '图标库'],
    fen: ['dark mode', 'responsive layout', 'custom colours', 'home page carousel', 'font settings', 'card layout', 'masonry grid', 'custom footer', 'language switcher', 'accessible contrast', 'subtle animations', 'icon set'],
    tags: ['主题', 'theme', '暗色', 'dark', '响应式', 'responsive', '皮肤', 'ui'],
  },
};
/** Tags any module may carry besides its category's. */
const COMMON_TAGS = ['开源', 'typescript', 'vue', 'react', '免费', '插件', 'plugin', '国产化', 'mysql', 'postgresql', 'redis', 'docker', '小程序', 'uniapp', 'api'];

const ZH_ADJ = ['轻量', '极速', '智能', '专业版', '全能', '简洁', '高级', '安全', '多站点', '企业级', '可视化', '一站式'];
const EN_ADJ = ['Lite', 'Fast', 'Smart', 'Pro', 'Ultimate', 'Simple', 'Advanced', 'Secure', 'Multisite', 'Enterprise', 'Visual', 'All-in-One'];
const ZH_BENEFIT = ['开箱即用，无需改动模板', '配置简单，五分钟上手', '兼容 PGlite 和 PostgreSQL', '支持中英文界面', '性能开销极低', '适合中小型社区', '大型站点验证过', '升级不丢数据'];
const EN_BENEFIT = ['works out of the box, no template changes', 'set up in five minutes', 'runs on PGlite and PostgreSQL', 'ships Chinese and English interfaces', 'adds almost no overhead', 'made for small and medium communities', 'proven on large sites', 'upgrades keep your data'];
const ZH_STEPS = ['在模块市场购买或下载', '管理员在后台上传安装包', '在设置页填写参数', '刷新页面即可看到效果'];
const EN_STEPS = ['buy or download it in the module market', 'upload the package in the admin area', 'fill in the settings page', 'reload the page to see it'];
const STUDIOS_ZH = ['云帆', '青木', '星河', '墨客', '极光', '麦田', '北辰', '飞鱼', '松果', '蓝鲸'];
const STUDIOS_EN = ['Nimbus', 'Acorn', 'Lighthouse', 'Maple', 'Orbit', 'Pixel', 'Quartz', 'Harbor', 'Summit', 'Willow'];
const CENTS = [990, 1990, 2900, 3900, 4900, 6900, 9900, 19900, 29900, 49900];
const POINTS = [50, 100, 200, 300, 500, 800, 1000, 2000];

type Lang = 'zh' | 'en' | 'both';

function listZh(items: string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join('、')}和${items.at(-1)}` : items[0] ?? '';
}
function listEn(items: string[]): string {
  return items.length > 2 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : items.join(' and ');
}
const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1);
const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
/** Cut to `max` code points (names and summaries have column limits). */
const clip = (s: string, max: number): string => (Array.from(s).length > max ? Array.from(s).slice(0, max - 1).join('') + '…' : s);

interface Generated {
  uid: string; name: string; summary: string; description: string; changelog: string; category: ModuleCategory; tags: string[];
  price: number; scorePrice: number; downloads: number; purchases: number; ratingSum: number; ratingCount: number; rating: number;
  version: string; publishTime: number; createTime: number; updateTime: number;
}

function oneModule(i: number, now: number): Generated {
  // Categories are not equally popular: tools and content lead, themes trail.
  const category = MODULE_CATEGORIES[[6, 1, 0, 2, 3, 5, 4, 7][zipf(8, 0.6)]!]!;
  const k = KINDS[category];
  const lang: Lang = random() < 0.45 ? 'zh' : random() < 0.7 ? 'en' : 'both';
  const n = zipf(k.zh.length, 0.8);
  const a = int(0, ZH_ADJ.length - 1);
  const features = some(k.fzh.map((_, j) => j), int(3, 6), 0.9);
  const fz = features.map((j) => k.fzh[j]!);
  const fe = features.map((j) => k.fen[j]!);
  const studio = int(0, STUDIOS_ZH.length - 1);
  const useStudio = random() < 0.25;
  const zhName = `${useStudio ? STUDIOS_ZH[studio] : ''}${random() < 0.6 ? ZH_ADJ[a] : ''}${k.zh[n]}`;
  const enName = `${useStudio ? `${STUDIOS_EN[studio]} ` : ''}${random() < 0.6 ? `${EN_ADJ[a]} ` : ''}${k.en[n]}`;
  const name = clip(lang === 'zh' ? zhName : lang === 'en' ? enName : `${zhName} ${enName}`, 60);
  const b = int(0, ZH_BENEFIT.length - 1);
  const zhSummary = `为站点提供${listZh(fz.slice(0, 3))}，${ZH_BENEFIT[b]}。`;
  const enSummary = `Adds ${listEn(fe.slice(0, 3))} to your site; ${EN_BENEFIT[b]}.`;
  const summary = clip(lang === 'zh' ? zhSummary : lang === 'en' ? enSummary : `${zhSummary} ${enSummary}`, 150);

  const parts: string[] = [];
  if (lang !== 'en') {
    parts.push(`${zhName}为 Atrium 站点提供${listZh(fz)}。${ZH_BENEFIT[b]}，${pick(ZH_BENEFIT)}。`);
    parts.push(fz.map((f) => `- **${f}**：${pick(['后台一键开启', '可按用户组设置', '支持自定义样式', '默认关闭，按需启用', '与站内搜索联动'])}`).join('\n'));
    parts.push(`安装步骤：\n\n${ZH_STEPS.map((s, j) => `${j + 1}. ${s}`).join('\n')}`);
  }
  if (lang !== 'zh') {
    parts.push(`${enName} brings ${listEn(fe)} to Atrium. It ${EN_BENEFIT[b]}, and ${pick(EN_BENEFIT)}.`);
    parts.push(fe.map((f) => `- **${cap(f)}**: ${pick(['switched on in one click', 'configurable per member group', 'styled with your theme', 'off by default, on when you need it', 'indexed by the site search'])}`).join('\n'));
    parts.push(`Installation:\n\n${EN_STEPS.map((s, j) => `${j + 1}. ${cap(s)}`).join('\n')}`);
  }
  const description = parts.join('\n\n');

  const tags = [...new Set([...some(k.tags, int(1, 3), 0.7), ...(random() < 0.6 ? some(COMMON_TAGS, int(1, 2), 0.8) : [])])].slice(0, 5);
  const r = random();
  const [price, scorePrice] = r < 0.45 ? [0, 0] : r < 0.7 ? [pick(CENTS), 0] : r < 0.85 ? [0, pick(POINTS)] : [pick(CENTS), pick(POINTS)];
  // Downloads: a long tail (median ~60 for paid modules, ~140 for free ones, a few above 100,000).
  const downloads = Math.min(500_000, Math.floor(Math.pow(1 - random(), -1.25) * (price || scorePrice ? 25 : 60)) - 1);
  const purchases = price || scorePrice ? Math.floor(downloads * (0.3 + random() * 0.5)) : 0;
  const ratingCount = random() < 0.3 ? 0 : Math.floor(downloads * (0.005 + random() * 0.04));
  const average = 5 - Math.pow(random(), 1.8) * 3.2;
  const ratingSum = Math.min(5 * ratingCount, Math.max(ratingCount, Math.round(average * ratingCount)));
  const publishTime = now - Math.floor(random() * TWO_YEARS);
  const createTime = publishTime - int(600, 30 * DAY);
  const updateTime = Math.min(now, publishTime + (random() < 0.5 ? 0 : int(DAY, 200 * DAY)));
  const version = random() < 0.2 ? `0.${int(1, 9)}.${int(0, 12)}` : `${int(1, 4)}.${int(0, 12)}.${int(0, 20)}`;
  const changelog = lang === 'en' ? `- ${cap(pick(fe))}\n- Bug fixes` : `- 新增${pick(fz)}\n- 修复若干问题`;
  const base = slug(k.en[n]!) || category;
  return {
    uid: `${base.slice(0, 30)}-${i + 1}`, name, summary, description, changelog, category, tags, price, scorePrice, downloads, purchases,
    ratingSum, ratingCount, rating: ratingCount ? ratingSum / ratingCount : 0, version, publishTime, createTime, updateTime,
  };
}

/** An 18-character resident ID number with a valid check character (GB 11643). */
function idNumber(birth: Date): string {
  const area = pick(['110105', '310104', '440305', '330106', '510107', '420106', '320102', '610113']);
  const date = birth.toISOString().slice(0, 10).replace(/-/g, '');
  const body = `${area}${date}${String(int(0, 999)).padStart(3, '0')}`;
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...body].reduce((s, d, j) => s + Number(d) * weights[j]!, 0);
  return body + '10X98765432'[sum % 11]!;
}

// ---------------------------------------------------------------------------------------------

/** Rows of a query: drizzle types execute() per driver, and both drivers answer `{ rows }`. */
async function select<T>(db: Db, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}
const one = async (db: Db, query: SQL): Promise<number> => Number((await select<{ n: number | string | null }>(db, query))[0]?.n ?? NaN);
const str = (s: string): string => `'${s.replace(/'/g, "''")}'`;

interface Manifest {
  modules: number; published: number; developers: number; generatedMs: number;
  categories: Record<string, number>; prices: Record<string, number>;
  tags: { tag: string; count: number }[];
  searches: { q: string; lang: 'zh' | 'en'; matches: number }[];
  checks: Record<string, number>;
}

/** Search words a visitor types, each matching a different share of the modules. */
const SEARCHES: { q: string; lang: 'zh' | 'en' }[] = [
  { q: '编辑器', lang: 'zh' }, { q: '支付', lang: 'zh' }, { q: '暗色主题', lang: 'zh' }, { q: '备份', lang: 'zh' }, { q: '智能客服', lang: 'zh' },
  { q: 'markdown', lang: 'en' }, { q: 'payment', lang: 'en' }, { q: 'backup', lang: 'en' }, { q: 'dark theme', lang: 'en' }, { q: 'seo', lang: 'en' },
];

async function generate(dataDir: string, count: number, manifestPath: string): Promise<void> {
  const started = performance.now();
  const database = await openDatabase({ databaseUrl: null, dataDir });
  const { db } = database;
  const progress = (what: string): void => console.log(`[market-data] ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  try {
    const existing = await one(db, sql`select count(*)::int as n from module where developer_id > 0`);
    if (existing) throw new Error(`module already has ${existing} rows: generate wants a freshly migrated database`);
    const now = Math.floor(Date.now() / 1000);

    // Developers: members with an approved application; ids after whatever the seed made.
    const maxUser = await one(db, sql`select coalesce(max(id), 0)::int as n from "user"`);
    const devIds: number[] = [];
    const users: (typeof user.$inferInsert)[] = [];
    const apps: (typeof developer.$inferInsert)[] = [];
    for (let i = 1; i <= DEVELOPERS; i++) {
      const id = maxUser + i;
      devIds.push(id);
      const zh = i % 2 === 1;
      const studio = `${zh ? STUDIOS_ZH[i % STUDIOS_ZH.length] : STUDIOS_EN[i % STUDIOS_EN.length]}${zh ? '工作室' : ' Labs'} ${i}`;
      const t = now - TWO_YEARS - int(DAY, 365 * DAY);
      users.push({ id, username: `bench_dev_${i}`, nickname: studio, email: `bench_dev_${i}@example.com`, password: DUMMY_HASH, joinTime: t, createTime: t, updateTime: t });
      apps.push({
        userId: id, realName: zh ? pick(['张伟', '王芳', '李娜', '刘洋', '陈静', '杨帆', '赵磊', '黄丽']) : pick(['李明', '周杰', '吴敏', '徐强']),
        idNumber: idNumber(new Date(Date.UTC(int(1970, 2000), int(0, 11), int(1, 28)))), mobile: `13${String(int(0, 999_999_999)).padStart(9, '0')}`,
        email: `bench_dev_${i}@example.com`, province: '110000', city: '110100', intro: zh ? `${studio}，专注 Atrium 模块开发。` : `${studio} builds Atrium modules.`,
        status: 'approved', reviewerId: 0, reviewTime: t + DAY, createTime: t, updateTime: t + DAY,
      });
    }
    await db.insert(user).values(users);
    await db.insert(developer).values(apps);
    await db.execute(sql.raw(`select setval(pg_get_serial_sequence('"user"', 'id'), (select max(id) from "user"))`));
    progress(`${DEVELOPERS} developers`);

    // Modules and their versions, BATCH at a time in one transaction each.
    const categories: Record<string, number> = {};
    const prices = { free: 0, cents: 0, points: 0, both: 0 };
    const devRank = (): number => devIds[zipf(devIds.length, 0.75)]!;
    let textMs = 0;
    for (let from = 0; from < count; from += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, count - from) }, (_, j) => oneModule(from + j, now));
      const t0 = performance.now();
      const texts = await Promise.all(batch.map((m) => moduleText({ name: m.name, summary: m.summary, tags: m.tags, description: m.description })));
      textMs += performance.now() - t0;
      const rows = batch.map((m, j) => {
        categories[m.category] = (categories[m.category] ?? 0) + 1;
        prices[m.price && m.scorePrice ? 'both' : m.price ? 'cents' : m.scorePrice ? 'points' : 'free']++;
        const { changelog: _c, version, ...rest } = m;
        return { ...rest, ...texts[j]!, developerId: devRank(), status: 'published', latestVersion: version, siteModule: 0 };
      });
      await db.transaction(async (tx) => {
        const ids = await tx.insert(module).values(rows).returning({ id: module.id });
        await tx.insert(moduleVersion).values(batch.map((m, j) => ({
          moduleId: ids[j]!.id, version: m.version, changelog: m.changelog, status: 'published', publishTime: m.updateTime, createTime: m.updateTime,
        })));
      });
      if ((from + BATCH) % 2000 === 0 || from + BATCH >= count) progress(`${Math.min(from + BATCH, count)} modules (moduleText ${(textMs / 1000).toFixed(1)} s)`);
    }
    await db.execute(sql`vacuum analyze`);
    await db.execute(sql`checkpoint`);

    const tags = (await select<{ tag: string; count: number }>(db, sql`select tag, count(*)::int as count from (select unnest(tags) as tag from module where status = 'published') t group by tag order by count(*) desc, tag limit 20`));
    const searches = [];
    for (const s of SEARCHES) {
      const parsed = searchQuery(s.q);
      const matches = parsed ? await one(db, sql`select count(*)::int as n from module where status = 'published' and search_vector @@ ${parsed.query}::tsquery`) : 0;
      searches.push({ ...s, matches });
    }
    const checks = await consistency(db);
    const manifest: Manifest = {
      modules: count, published: await one(db, sql`select count(*)::int as n from module where status = 'published'`), developers: DEVELOPERS,
      generatedMs: Math.round(performance.now() - started), categories, prices, tags, searches, checks,
    };
    writeFileSync(manifestPath, JSON.stringify(manifest));
    progress(`done; top tags ${tags.slice(0, 5).map((t) => `${t.tag} ${t.count}`).join(', ')}; checks ${JSON.stringify(checks)}`);
  } finally {
    await database.close();
  }
}

/** Rows that disagree with themselves (all must be 0). */
async function consistency(db: Db): Promise<Record<string, number>> {
  return {
    versions: await one(db, sql`select count(*)::int as n from module m where m.developer_id > 0 and not exists (select 1 from module_version v where v.module_id = m.id and v.status = 'published' and v.version = m.latest_version)`),
    rating: await one(db, sql`select count(*)::int as n from module where abs(rating - case when rating_count > 0 then rating_sum::float8 / rating_count else 0 end) > 1e-9`),
    developers: await one(db, sql`select count(*)::int as n from module m where m.developer_id > 0 and not exists (select 1 from developer d where d.user_id = m.developer_id and d.status = 'approved')`),
  };
}

// ---------------------------------------------------------------------------------------------
// copy: the same rows into a migrated PostgreSQL database (as forum-data.ts copies the forum)

/** The tables generate() writes; the seeded first-party module and its version come along. */
const COPIED: [table: string, key: string][] = [['user', 'id'], ['developer', 'user_id'], ['module', 'id'], ['module_version', 'id']];

async function copy(dataDir: string, url: string): Promise<void> {
  const started = performance.now();
  const source = await openDatabase({ databaseUrl: null, dataDir });
  try {
    const target = await openDatabase({ databaseUrl: url, dataDir });
    try {
      const from = source.db;
      const to = target.db;
      await to.execute(sql.raw(`truncate ${COPIED.map(([t]) => `"${t}"`).join(', ')} restart identity`));
      for (const [table, key] of COPIED) {
        const max = await one(from, sql.raw(`select coalesce(max(${key}), 0)::int as n from "${table}"`));
        const columns = (await select<{ c: string }>(from, sql.raw(`select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as c from information_schema.columns where table_schema = 'public' and table_name = '${table}'`)))[0]!.c;
        let rows = 0;
        for (let after = 0; after < max; after += BATCH) {
          const [page] = await select<{ j: string | null; n: number }>(from, sql.raw(`select json_agg(t)::text as j, count(*)::int as n from "${table}" t where ${key} > ${after} and ${key} <= ${after + BATCH}`));
          if (!page?.n || !page.j) continue;
          await to.execute(sql.raw(`insert into "${table}" (${columns}) select ${columns} from json_populate_recordset(null::"${table}", ${str(page.j)}::json)`));
          rows += page.n;
        }
        if (key === 'id') await to.execute(sql.raw(`select setval(pg_get_serial_sequence('"${table}"', 'id'), greatest((select max(id) from "${table}"), 1))`));
        console.log(`[market-data] ${table}: ${rows} rows copied (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      }
      await to.execute(sql`vacuum analyze`);
      const checks = await consistency(to);
      const counts = [await one(from, sql`select count(*)::int as n from module`), await one(to, sql`select count(*)::int as n from module`)];
      console.log(`[market-data] copied to PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s; modules ${counts[1]} of ${counts[0]}; checks ${JSON.stringify(checks)}`);
      if (counts[0] !== counts[1] || Object.values(checks).some((n) => n !== 0)) throw new Error(`the copy disagrees with its source: ${JSON.stringify({ counts, checks })}`);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

// ---------------------------------------------------------------------------------------------
// stampede / verify: the purchase test's setup and its checks

/** Balance and points given to each buyer: enough for one purchase, and for a second one too (a double debit would show). */
const TOP_UP = { money: 2_000, score: 120 };
const RUSH = { price: 999, scorePrice: 50 };

interface Setup {
  uid: string; moduleId: number; developerId: number; commission: number; topUp: typeof TOP_UP; price: number; scorePrice: number;
  buyers: { id: number; token: string; payType: 'balance' | 'score' }[];
  doubler: { id: number; token: string };
  messages: { owned: string; paid: string };
  setupMs: number;
}

const target = (dataDir: string, url: string) => openDatabase({ databaseUrl: url && url !== '-' ? url : null, dataDir });

async function stampede(dataDir: string, url: string, buyers: number, setupPath: string): Promise<void> {
  const started = performance.now();
  const database = await target(dataDir, url);
  const { db } = database;
  try {
    const secret = await tokenSecret(db, process.env.TOKEN_SECRET || undefined);
    const tag = Date.now().toString(36).slice(-6);
    const password = 'bench-rush-1';
    const dev = await createUser(db, { username: `rushdev_${tag}`, password, nickname: '抢购开发者 Rush Dev' });
    const uid = `bench-rush-${tag}`;
    const description = '并发购买测试用的付费模块。A paid module for the concurrent purchase test.';
    const t = Math.floor(Date.now() / 1000);
    const [row] = await db.insert(module).values({
      uid, developerId: dev.id, name: '抢购模块 Rush Module', summary: '200 位会员同时购买 / 200 members buying at once', description, category: 'tools', tags: ['bench'],
      price: RUSH.price, scorePrice: RUSH.scorePrice, status: 'published', latestVersion: '1.0.0', publishTime: t, createTime: t, updateTime: t,
      ...(await moduleText({ name: '抢购模块 Rush Module', summary: '', tags: ['bench'], description })),
    }).returning({ id: module.id });
    await db.insert(moduleVersion).values({ moduleId: row!.id, version: '1.0.0', changelog: 'First', status: 'published', publishTime: t, createTime: t });

    // Members through the app's createUser (scrypt, so a few at a time), then top-ups and sessions.
    const people: { id: number; payType: 'balance' | 'score' }[] = [];
    for (let i = 0; i <= buyers; i += 20) {
      const made = await Promise.all(Array.from({ length: Math.min(20, buyers + 1 - i) }, (_, j) => createUser(db, { username: `rush_${tag}_${i + j}`, password })));
      // The last one made is the double-submitter; buyers alternate balance and points.
      made.forEach((u, j) => people.push({ id: u.id, payType: (i + j) % 2 ? 'score' : 'balance' }));
    }
    const doublerRow = people.pop()!;
    for (const p of people) {
      if (p.payType === 'balance') await adjustMoney(db, p.id, TOP_UP.money, 'bench top-up');
      else await adjustScore(db, p.id, TOP_UP.score, 'bench top-up');
    }
    await adjustMoney(db, doublerRow.id, TOP_UP.money, 'bench top-up');
    const sessions: string[] = [];
    for (const p of [...people, doublerRow]) sessions.push((await startSession(db, secret, p.id, false)).token);
    const configured = (await select<{ value: string }>(db, sql`select value from config where name = 'market_commission'`))[0]?.value;
    const setup: Setup = {
      uid, moduleId: row!.id, developerId: dev.id, commission: Number(configured ?? DEFAULT_COMMISSION), topUp: TOP_UP, ...RUSH,
      buyers: people.map((p, j) => ({ ...p, token: sessions[j]! })),
      doubler: { id: doublerRow.id, token: sessions.at(-1)! },
      messages: { owned: translateAny('en', 'market.owned'), paid: translateAny('en', 'market.paid') },
      setupMs: Math.round(performance.now() - started),
    };
    writeFileSync(setupPath, JSON.stringify(setup));
    console.log(`[market-data] stampede: module ${uid} (#${row!.id}) by member #${dev.id}; ${people.length} buyers and a double-submitter (#${doublerRow.id}) with sessions, in ${(setup.setupMs / 1000).toFixed(1)} s`);
  } finally {
    await database.close();
  }
}

interface Check { name: string; expected: number | string; actual: number | string; ok: boolean }

async function verify(dataDir: string, url: string, setupPath: string, outPath: string): Promise<void> {
  const setup = JSON.parse(readFileSync(setupPath, 'utf8')) as Setup;
  const database = await target(dataDir, url);
  const { db } = database;
  try {
    const checks: Check[] = [];
    const check = (name: string, expected: number | string, actual: number | string): void => { checks.push({ name, expected, actual, ok: expected === actual }); };
    const m = setup.moduleId;
    const orders = await select<{ user_id: number; pay_type: string; amount: number; commission: number; status: string }>(db,
      sql`select user_id, pay_type, amount, commission, status from module_order where module_id = ${m}`);
    const paid = orders.filter((o) => o.status === 'paid');
    const buyers = setup.buyers.length;
    check('paid orders for the module (buyers + the double-submitter once)', buyers + 1, paid.length);
    check('orders of any status for the module', buyers + 1, orders.length);
    const perUser = new Map<number, number>();
    for (const o of paid) perUser.set(o.user_id, (perUser.get(o.user_id) ?? 0) + 1);
    check('members with more than one paid order', 0, [...perUser.values()].filter((n) => n > 1).length);
    check('buyers without their order', 0, setup.buyers.filter((b) => !perUser.has(b.id)).length);
    check('double-submitter: paid orders', 1, perUser.get(setup.doubler.id) ?? 0);
    const debits = await one(db, sql`select count(*)::int as n from user_money_log where user_id = ${setup.doubler.id} and money < 0`);
    check('double-submitter: debits in the money log', 1, debits);
    const [d] = await db.select({ money: user.money, score: user.score }).from(user).where(eq(user.id, setup.doubler.id));
    check('double-submitter: balance (top-up − price)', setup.topUp.money - setup.price, Number(d?.money));
    // Every buyer paid exactly once, the right amount, by the way they chose.
    const funds = new Map((await select<{ id: number; money: number; score: number }>(db, sql`select id, money::int as money, score from "user" where id in (${sql.join(setup.buyers.map((b) => sql`${b.id}`), sql`, `)})`)).map((r) => [Number(r.id), r]));
    check('buyers whose balance or points are not top-up − price', 0, setup.buyers.filter((b) => {
      const f = funds.get(b.id);
      return !f || (b.payType === 'balance' ? f.money !== setup.topUp.money - setup.price || f.score !== 0 : f.score !== setup.topUp.score - setup.scorePrice || f.money !== 0);
    }).length);
    check('orders whose pay type or amount disagree with the buyer\'s choice', 0, paid.filter((o) => {
      const b = setup.buyers.find((x) => x.id === o.user_id);
      const payType = b?.payType ?? 'balance';
      return o.pay_type !== payType || o.amount !== (payType === 'balance' ? setup.price : setup.scorePrice);
    }).length);
    // Ledgers: every member's balance and points equal the sum of their logs (all members, not only the buyers).
    check('members whose balance ≠ sum of their money log', 0, await one(db, sql`select count(*)::int as n from "user" u left join (select user_id, sum(money) as s from user_money_log group by user_id) l on l.user_id = u.id where u.money <> coalesce(l.s, 0)`));
    check('members whose points ≠ sum of their points log', 0, await one(db, sql`select count(*)::int as n from "user" u left join (select user_id, sum(score) as s from user_score_log group by user_id) l on l.user_id = u.id where u.score <> coalesce(l.s, 0)`));
    // The developer: earnings equal the sales net of commission, one earning row per paid order.
    const commissionWrong = paid.filter((o) => o.commission !== commissionOf(o.amount, setup.commission)).length;
    check(`orders whose commission ≠ round(amount × ${setup.commission} / 100)`, 0, commissionWrong);
    for (const kind of ['money', 'score'] as const) {
      const sales = paid.filter((o) => (o.pay_type === 'balance') === (kind === 'money'));
      const expected = sales.reduce((a, o) => a + o.amount - commissionOf(o.amount, setup.commission), 0);
      const earned = await one(db, sql`select coalesce(sum(amount), 0)::int as n from developer_earning where developer_id = ${setup.developerId} and kind = ${kind}`);
      check(`developer earnings (${kind === 'money' ? 'cents' : 'points'}) = sales − commission`, expected, earned);
    }
    check('developer earning rows (one per paid order)', paid.length, await one(db, sql`select count(*)::int as n from developer_earning where developer_id = ${setup.developerId}`));
    check('module.purchases', buyers + 1, await one(db, sql`select purchases as n from module where id = ${m}`));
    const [mod] = await db.select({ status: module.status }).from(module).where(and(eq(module.id, m)));
    check('module still published', 'published', mod?.status ?? '?');
    writeFileSync(outPath, JSON.stringify({ checks }));
  } finally {
    await database.close();
  }
}

const [command, ...args] = process.argv.slice(2);
const run = command === 'generate' ? generate(args[0]!, Number(args[1]), args[2]!)
  : command === 'copy' ? copy(args[0]!, args[1]!)
    : command === 'stampede' ? stampede(args[0]!, args[1]!, Number(args[2]), args[3]!)
      : command === 'verify' ? verify(args[0]!, args[1]!, args[2]!, args[3]!)
        : Promise.reject(new Error('usage: market-data.mjs generate <dataDir> <modules> <manifest> | copy <dataDir> <postgres url> | stampede <dataDir> <url|-> <buyers> <setup.json> | verify <dataDir> <url|-> <setup.json> <checks.json>'));
run.then(() => process.exit(0), (err: unknown) => {
  // Drizzle's message holds the whole statement (large here): the database's own error is the cause.
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : null;
  console.error(`[market-data] error: ${cause ? `${cause.message}\n${String(err).slice(0, 300)}…` : err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
