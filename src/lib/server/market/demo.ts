import { and, eq, ne } from 'drizzle-orm';
import type { Runtime } from '../runtime';
import { module } from '../db/schema';
import { moduleText } from './text';
import { publishBuilt, readBuilt } from './built';
import { FIRST_PARTY } from './seed';
import { touched } from '../write-scope';
import { marketArea } from './cache-tags';

/** The README-only sample the first demo seeds published as their paid module, before `webhook` took its place. */
const OLD_SAMPLE_UID = 'sample-paid-module';

/**
 * `npm run seed -- --demo`: the modules built from this repository, published in the market so a
 * demo site can install them at once (`math` free, `webhook` paid: buying and installing are tried
 * together). The market lists no invented third-party modules. Idempotent.
 */
export async function seedMarketDemo(runtime: Pick<Runtime, 'db' | 'config'>): Promise<string[]> {
  const done = [...(await seedMath(runtime)), ...(await seedWebhook(runtime)), ...(await delistOldSample(runtime))];
  if (done.length) touched(marketArea);
  return done;
}

/**
 * A site seeded before `webhook` was the paid sample still lists the README-only one: taken off the
 * market (delisted, as a developer's withdrawn module is), its orders and reviews kept.
 */
async function delistOldSample(runtime: Pick<Runtime, 'db'>): Promise<string[]> {
  const gone = await runtime.db.update(module).set({ status: 'delisted', updateTime: Math.floor(Date.now() / 1000) })
    .where(and(eq(module.uid, OLD_SAMPLE_UID), eq(module.developerId, FIRST_PARTY), ne(module.status, 'delisted'))).returning({ id: module.id });
  return gone.length ? [`demo: the README-only ${OLD_SAMPLE_UID} delisted (webhook is the paid sample now)`] : [];
}

interface BuiltSpec {
  uid: string;
  summary: string;
  summaryEn: string;
  tags: string[];
  description: string;
  descriptionEn: string;
  changelog: string;
  changelogEn: string;
  category: string;
  /** Cents, and points (0 and 0: free). */
  price: number;
  scorePrice: number;
}

const MATH: BuiltSpec = {
  uid: 'math',
  category: 'content',
  price: 0,
  scorePrice: 0,
  summary: '在帖子、回复、文档和聊天中用 $…$、$$…$$ 写数学公式，渲染为浏览器原生显示的 MathML。',
  summaryEn: 'Write math with $…$ and $$…$$ in posts, replies, docs and chat, rendered as MathML that browsers show natively.',
  tags: ['markdown', 'math', 'tex', '数学'],
  description: `安装后，帖子、回复、文档和聊天中的 TeX 公式会渲染成 MathML：

- 行内公式：\`$E=mc^2$\`
- 独占一行的公式：上下各一行 \`$$\`，中间写公式
- 代码块：语言写 \`math\` 的围栏代码块

公式在发布时于服务器端渲染（用 [temml](https://temml.org)）并随内容保存，阅读页面不加载任何脚本，只加载一小段 CSS；编辑器的预览用同一套代码在浏览器里渲染，预览所见即发布所得。写错的公式会显示源码和错误提示，不影响页面其它部分。

这是 Atrium 仓库 \`modules/math\` 构建出的安装包，也是编写模块的示例（见文档“编写模块”）。`,
  descriptionEn: `Once installed, TeX in posts, replies, docs and chat renders as MathML:

- inline: \`$E=mc^2$\`
- display: a line with \`$$\` above and below the formula
- a fenced code block whose language is \`math\`

Formulas render on the server when the content is written (with [temml](https://temml.org)) and are stored with it: reading a page loads no script, only a small stylesheet. The editor's preview renders them in the browser with the same code, so the preview shows what will be posted. A formula with a mistake shows its source and the error, and the rest of the page is unaffected.

This package is built from \`modules/math\` in the Atrium repository, and is the example of the guide for module authors (docs/modules/authoring.md).`,
  changelog: '首个版本：行内、独行和 math 代码块公式，浏览器端预览。',
  changelogEn: 'First release: inline, display and math-fence formulas, with the browser preview.',
};

const WEBHOOK: BuiltSpec = {
  uid: 'webhook',
  category: 'tools',
  price: 100,
  scorePrice: 10,
  summary: '有新帖或新回复时，把它签名后 POST 到你设置的地址：通知聊天群，或同步到其他系统。',
  summaryEn: 'POSTs each new post and reply, signed, to the address you set: notify a chat room or keep another system in step.',
  tags: ['webhook', 'integration', '通知'],
  description: `安装后，每当有新帖或新回复，这个模块就把它以 JSON POST 到管理员设置的地址：

- 请求头 \`x-atrium-signature: sha256=…\` 是请求体在你的密钥下的 HMAC-SHA256，接收方可以验证来源；
- 投递失败（超时或非 2xx）时，站点会在 5 秒、30 秒、2 分钟、10 分钟后重试；
- 管理员在后台“站点模块”里设置地址、密钥、要发送的内容（新帖和新回复，或只发新帖）和每小时一次的心跳，用 \`GET /api/m/webhook/deliveries\` 查看最近 20 次投递。

它同时是一个使用站点设置、定时任务、路由、事件和模块存储的示例模块，源码在 Atrium 仓库的 \`modules/webhook\`。`,
  descriptionEn: `Once installed, every new post and reply is POSTed as JSON to the address an administrator set:

- the header \`x-atrium-signature: sha256=…\` is the HMAC-SHA256 of the body under your secret, so the receiver can check where it came from;
- a failed delivery (a timeout, or an answer other than 2xx) is retried after 5 s, 30 s, 2 min and 10 min;
- administrators set the address, the secret, what is sent (posts and replies, or posts only) and an hourly ping in the console's Site modules section, and see the last 20 deliveries at \`GET /api/m/webhook/deliveries\`.

It is also the example of a module using site settings, a scheduled job, routes, events and its own store: its source is \`modules/webhook\` in the Atrium repository.`,
  changelog: '首个版本：新帖和新回复的签名投递，失败重试，最近投递记录。',
  changelogEn: 'First release: signed deliveries of new posts and replies, retries, the latest deliveries.',
};

/**
 * A module built from this repository (modules/<uid> → dist/modules/<uid>-<version>.zip; `math`
 * free, `webhook` paid), published in the market with its package stored as an uploaded one is and its sha256 pinned
 * as reviewed, so a demo site can install it at once. Built first when a checkout has not built it;
 * skipped with a line saying why when it cannot be. A newer build adds its version. Idempotent.
 */
export function seedMath(runtime: Pick<Runtime, 'db' | 'config'>): Promise<string[]> {
  return seedBuilt(runtime, MATH);
}

/** The `webhook` module (modules/webhook), published as the demo's paid module with a package that runs. */
export function seedWebhook(runtime: Pick<Runtime, 'db' | 'config'>): Promise<string[]> {
  return seedBuilt(runtime, WEBHOOK);
}

async function seedBuilt(runtime: Pick<Runtime, 'db' | 'config'>, spec: BuiltSpec): Promise<string[]> {
  const { db, config } = runtime;
  const { uid } = spec;
  const built = await readBuilt(config.root, uid);
  if ('problem' in built) return [`demo: ${uid} not listed: ${built.problem}`];
  const { manifest, sha256 } = built.inspected;
  const [exists] = await db.select({ id: module.id }).from(module).where(eq(module.uid, spec.uid)).limit(1);
  let moduleId = exists?.id;
  if (!moduleId) {
    const t = Math.floor(Date.now() / 1000);
    const texts = {
      name: manifest.name['zh-cn'], nameEn: manifest.name.en, summary: spec.summary, summaryEn: spec.summaryEn,
      description: spec.description, descriptionEn: spec.descriptionEn,
    };
    const [row] = await db.insert(module).values({
      uid: spec.uid, developerId: FIRST_PARTY, ...texts, category: spec.category, tags: spec.tags, price: spec.price, scorePrice: spec.scorePrice, siteModule: 1,
      status: 'published', latestVersion: manifest.version, publishTime: t, createTime: t, updateTime: t, ...(await moduleText({ ...texts, tags: spec.tags })),
    }).onConflictDoNothing().returning({ id: module.id });
    if (!row) return [];
    moduleId = row.id;
  }
  const done = await publishBuilt(runtime, moduleId, built, { changelog: spec.changelog, changelogEn: spec.changelogEn });
  if (!done) return [];
  if (exists) return [`demo: ${uid} ${manifest.version} published (sha256 ${sha256})`];
  return [`demo: ${spec.price || spec.scorePrice ? 'paid' : 'free'} module ${uid} ${manifest.version} (sha256 ${sha256})`];
}
