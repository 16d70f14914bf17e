import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Runtime } from '../runtime';
import { module, moduleVersion } from '../db/schema';
import { moduleText } from './text';
import { packageFile } from './packages';
import { FIRST_PARTY } from './seed';
import { storedZip } from './zip';
import { inspectPackage } from '../modules/inspect';
import { MANIFEST_FILE } from '../modules/manifest';

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
export async function seedMarketDemo(runtime: Pick<Runtime, 'db' | 'config'>): Promise<string[]> {
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
  const sha1 = createHash('sha1').update(zip).digest('hex');
  const packagePath = `demo/${sha1}.zip`;
  const file = packageFile(runtime, packagePath)!;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, zip);
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
