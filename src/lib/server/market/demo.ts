import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import semver from 'semver';
import type { Runtime } from '../runtime';
import { module, moduleVersion } from '../db/schema';
import { moduleText } from './text';
import { packageFile } from './packages';
import { FIRST_PARTY } from './seed';
import { storedZip } from './zip';
import { inspectPackage } from '../modules/inspect';
import { MANIFEST_FILE } from '../modules/manifest';
import { touched } from '../write-scope';
import { marketArea } from './cache-tags';

const SAMPLE = {
  uid: 'sample-paid-module',
  name: '示例付费模块',
  nameEn: 'Sample paid module',
  summary: '【演示】演示数据添加的示例，用来体验购买、下载和评价。',
  summaryEn: 'A sample from the demo seed, to try buying, downloading and reviewing.',
  /** What the first demo seed wrote in both languages at once; a site still showing it gets the split text. */
  legacyName: '示例付费模块 · Sample paid module',
  tags: ['sample', '示例'],
  description: `这是 \`npm run seed -- --demo\` 添加的**示例模块**，不是真正的功能模块。它让你不用先成为开发者，就能体验模块市场的完整流程：

1. 运营者给会员加一点余额或积分：\`npm run atrium -- user:money <账户> 5 "试用"\`
2. 会员在本页用余额（¥1.00）或积分（10）购买，订单出现在“模块订单”里
3. 下载安装包（一个只含说明文件的 zip）
4. 写一条评价`,
  descriptionEn: `This is a **sample module** added by \`npm run seed -- --demo\`; it adds no feature. It lets you try the market's whole flow without becoming a developer first:

1. The operator gives a member some balance or points: \`npm run atrium -- user:money <account> 5 "trial"\`
2. The member buys it here with balance (¥1.00) or points (10); the order shows under Module orders
3. Download the package (a zip holding only a read-me)
4. Write a review`,
  changelog: '示例版本。',
  changelogEn: 'Sample version.',
  /** Its `atrium.json`: a module that asks for nothing and contributes nothing. */
  manifest: {
    uid: 'sample-paid-module',
    version: '1.0.0',
    name: { 'zh-cn': '示例付费模块', en: 'Sample paid module' },
    description: { 'zh-cn': '演示数据的示例模块，不包含代码。', en: 'A sample from the demo seed; it holds no code.' },
    atrium: '>=0.1.0',
  },
  readme: `# Sample paid module

This package comes from Atrium's demo seed (\`npm run seed -- --demo\`). It contains no code:
it exists so that buying, downloading and reviewing can be tried on a demo site.

这个安装包来自 Atrium 的演示数据，不包含任何代码，只用于在演示站点上体验购买、下载和评价。
`,
};

/**
 * `npm run seed -- --demo`: one sample paid module, said to be a sample in its name, summary and
 * package, so a demo site can try buying (the market lists no invented third-party modules).
 * Idempotent.
 */
/** Stores a package the demo publishes where uploaded packages go (`demo/<sha1>.zip`). */
async function storeDemoPackage(runtime: Pick<Runtime, 'config'>, zip: Buffer): Promise<{ sha1: string; packagePath: string }> {
  const sha1 = createHash('sha1').update(zip).digest('hex');
  const packagePath = `demo/${sha1}.zip`;
  const file = packageFile(runtime, packagePath)!;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, zip);
  return { sha1, packagePath };
}

export async function seedMarketDemo(runtime: Pick<Runtime, 'db' | 'config'>): Promise<string[]> {
  const done = [...(await seedSample(runtime)), ...(await seedMath(runtime)), ...(await seedWebhook(runtime))];
  if (done.length) touched(marketArea);
  return done;
}

async function seedSample(runtime: Pick<Runtime, 'db' | 'config'>): Promise<string[]> {
  const { db } = runtime;
  const [exists] = await db.select({ id: module.id, name: module.name }).from(module).where(eq(module.uid, SAMPLE.uid)).limit(1);
  const texts = { name: SAMPLE.name, nameEn: SAMPLE.nameEn, summary: SAMPLE.summary, summaryEn: SAMPLE.summaryEn, description: SAMPLE.description, descriptionEn: SAMPLE.descriptionEn };
  if (exists) {
    // The first demo seed joined both languages in one text: give it the text of each language.
    if (exists.name !== SAMPLE.legacyName) return [];
    await db.update(module).set({ ...texts, ...(await moduleText({ ...texts, tags: SAMPLE.tags })) }).where(eq(module.id, exists.id));
    await db.update(moduleVersion).set({ changelog: SAMPLE.changelog, changelogEn: SAMPLE.changelogEn }).where(eq(moduleVersion.moduleId, exists.id));
    return [`demo: sample module ${SAMPLE.uid} written per language`];
  }
  // Dated like `module:pack` dates entries, so every demo site's sample has the same sha256.
  const zip = await storedZip([{ name: 'README.md', text: SAMPLE.readme }, { name: MANIFEST_FILE, text: `${JSON.stringify(SAMPLE.manifest, null, 2)}\n` }], new Date(1980, 0, 1));
  const inspected = await inspectPackage(zip);
  if (!inspected.ok) throw new Error(`demo package: ${inspected.problems.map((p) => p.key).join(', ')}`);
  const { sha1, packagePath } = await storeDemoPackage(runtime, zip);
  const t = Math.floor(Date.now() / 1000);
  const text = await moduleText({ ...texts, tags: SAMPLE.tags });
  const [row] = await db.insert(module).values({
    uid: SAMPLE.uid, developerId: FIRST_PARTY, ...texts, category: 'tools',
    tags: SAMPLE.tags, price: 100, scorePrice: 10, status: 'published', latestVersion: '1.0.0', publishTime: t, createTime: t, updateTime: t, ...text,
  }).onConflictDoNothing().returning({ id: module.id });
  if (!row) return [];
  await db.insert(moduleVersion).values({
    moduleId: row.id, version: '1.0.0', changelog: SAMPLE.changelog, changelogEn: SAMPLE.changelogEn, packagePath, packageName: `${SAMPLE.uid}-1.0.0.zip`,
    packageSize: zip.length, sha1, status: 'published', publishTime: t, createTime: t,
    // Published by the site itself: what it packed is what is reviewed.
    sha256: inspected.sha256, reviewedSha256: inspected.sha256, manifest: inspected.manifest, files: inspected.files,
  });
  return [`demo: sample paid module ${SAMPLE.uid}`];
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
- 管理员用 \`POST /api/m/webhook/config\`（\`url\`、\`secret\`）设置，用 \`GET /api/m/webhook/deliveries\` 查看最近 20 次投递。

它同时是一个使用路由、事件和模块存储的示例模块，源码在 Atrium 仓库的 \`modules/webhook\`。`,
  descriptionEn: `Once installed, every new post and reply is POSTed as JSON to the address an administrator set:

- the header \`x-atrium-signature: sha256=…\` is the HMAC-SHA256 of the body under your secret, so the receiver can check where it came from;
- a failed delivery (a timeout, or an answer other than 2xx) is retried after 5 s, 30 s, 2 min and 10 min;
- administrators set it with \`POST /api/m/webhook/config\` (\`url\`, \`secret\`) and see the last 20 deliveries at \`GET /api/m/webhook/deliveries\`.

It is also the example of a module using routes, events and its own store: its source is \`modules/webhook\` in the Atrium repository.`,
  changelog: '首个版本：新帖和新回复的签名投递，失败重试，最近投递记录。',
  changelogEn: 'First release: signed deliveries of new posts and replies, retries, the latest deliveries.',
};

/** The newest `<uid>-<version>.zip` in dist/modules, or null. */
function builtPackage(root: string, uid: string): string | null {
  const dir = join(root, 'dist', 'modules');
  if (!existsSync(dir)) return null;
  const versions = readdirSync(dir).map((f) => new RegExp(`^${uid}-(\\d+\\.\\d+\\.\\d+)\\.zip$`).exec(f)?.[1]).filter((v): v is string => Boolean(v));
  const newest = versions.sort(semver.rcompare)[0];
  return newest ? join(dir, `${uid}-${newest}.zip`) : null;
}

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
  let zipPath = builtPackage(config.root, uid);
  const script = join(config.root, 'scripts', 'build-modules.mjs');
  if (!zipPath && existsSync(script) && existsSync(join(config.root, 'modules', uid, 'atrium.json'))) {
    spawnSync(process.execPath, [script, join(config.root, 'modules', uid)], { cwd: config.root, stdio: 'ignore' });
    zipPath = builtPackage(config.root, uid);
  }
  if (!zipPath) return [`demo: ${uid} not listed: dist/modules/${uid}-<version>.zip is missing (run npm run build)`];
  const zip = await readFile(zipPath);
  const inspected = await inspectPackage(zip);
  if (!inspected.ok) return [`demo: ${uid} not listed: ${zipPath} is not a valid package (${inspected.problems.map((p) => p.key).join(', ')})`];
  const { manifest } = inspected;

  const [exists] = await db.select({ id: module.id }).from(module).where(eq(module.uid, spec.uid)).limit(1);
  if (exists) {
    const [known] = await db.select({ id: moduleVersion.id }).from(moduleVersion).where(and(eq(moduleVersion.moduleId, exists.id), eq(moduleVersion.version, manifest.version))).limit(1);
    if (known) return [];
  }
  const { sha1, packagePath } = await storeDemoPackage(runtime, zip);
  const t = Math.floor(Date.now() / 1000);
  let moduleId = exists?.id;
  if (!moduleId) {
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
  await db.insert(moduleVersion).values({
    moduleId, version: manifest.version, changelog: spec.changelog, changelogEn: spec.changelogEn, packagePath, packageName: `${spec.uid}-${manifest.version}.zip`,
    packageSize: zip.length, sha1, minAtrium: semver.minVersion(manifest.atrium)?.version ?? '', status: 'published', publishTime: t, createTime: t,
    // Built and published by the site itself: what it built is what is reviewed.
    sha256: inspected.sha256, reviewedSha256: inspected.sha256, manifest, files: inspected.files,
  }).onConflictDoNothing();
  if (exists) {
    const [current] = await db.select({ latest: module.latestVersion }).from(module).where(eq(module.id, moduleId)).limit(1);
    if (current && (!semver.valid(current.latest) || semver.gt(manifest.version, current.latest))) {
      await db.update(module).set({ latestVersion: manifest.version, updateTime: t }).where(eq(module.id, moduleId));
    }
    return [`demo: ${uid} ${manifest.version} published (sha256 ${inspected.sha256})`];
  }
  return [`demo: ${spec.price || spec.scorePrice ? 'paid' : 'free'} module ${uid} ${manifest.version} (sha256 ${inspected.sha256})`];
}
