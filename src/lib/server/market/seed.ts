import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { ServerConfig } from '../env';
import { module, moduleInstall, moduleVersion } from '../db/schema';
import { SITE_MODULES } from '../modules/installs';
import { moduleText } from './text';
import { publishBuilt, readBuilt } from './built';
import { registerSeed } from '../seeds';

/** Modules by developer 0 are Atrium's own: the market shows the site as their developer. */
export const FIRST_PARTY = 0;

/** The first-party modules this codebase ships, as the market lists them. */
const FIRST_PARTY_MODULES = [{
  uid: 'editor',
  name: 'Atrium 编辑器',
  nameEn: 'Atrium Editor',
  summary: '站点的 Markdown 编辑器：实时预览、粘贴/拖入图片上传、草稿自动保存。',
  summaryEn: 'The site\'s markdown editor with live preview, image paste/drop and drafts.',
  /** What the first listing said in both languages at once; a site still showing it gets the split text. */
  legacySummary: '站点的 Markdown 编辑器：实时预览、粘贴/拖入图片上传、草稿自动保存。The site\'s markdown editor with live preview, image paste/drop and drafts.',
  category: 'editor',
  tags: ['markdown', 'editor', '编辑器'],
  description: `社区发帖、回帖、文档编辑和开发者中心的模块表单用的就是这个编辑器。安装后，论坛的发帖表单、回复框和文档编辑器才会出现；卸载后这些位置会提示“请安装编辑器”，已保存的内容不受影响。它的代码只在安装后、只在需要编辑的页面上从它的安装包加载，站点自身的脚本里没有编辑器的代码。

- 工具栏：标题、粗体、斜体、链接、引用、代码、列表、任务列表、表格、图片
- 实时预览，与服务器使用同一套 Markdown 渲染，预览所见即发布所得
- 粘贴或拖入图片即上传（本地存储或对象存储）
- 快捷键：Ctrl+B、Ctrl+I、Ctrl+K、Ctrl+Enter 提交、Ctrl+S 保存文档
- 输入法安全：中文输入法选词时按回车不会误提交
- 草稿自动保存在浏览器里，刷新后恢复

安装：管理员在本页点击“安装到本站”，或运行 \`npm run atrium -- module:install editor\`。`,
  descriptionEn: `This is the editor behind new posts, replies, the docs editor and the developer studio's module forms. Once installed, the forum's post form, the reply box and the docs editor appear; uninstalled, those places say "Please install editor" and nothing already saved is lost. Its code is loaded from its package, only once installed and only on pages that edit: the site's own scripts hold none of it.

- Toolbar: headings, bold, italic, links, quotes, code, lists, task lists, tables, images
- Live preview rendered by the same markdown pipeline as the server: what you preview is what gets published
- Paste or drop an image to upload it (local storage or the object store)
- Shortcuts: Ctrl+B, Ctrl+I, Ctrl+K, Ctrl+Enter to submit, Ctrl+S to save a page
- IME-safe: Enter while choosing Chinese characters never submits
- Drafts autosave in the browser and come back after a reload

Install: an administrator clicks "Install on this site" on this page, or runs \`npm run atrium -- module:install editor\`.`,
  changelog: '首个版本：工具栏、实时预览、图片上传、快捷键、草稿。',
  changelogEn: 'First release: toolbar, live preview, image uploads, shortcuts, drafts.',
}] as const;

function split(m: (typeof FIRST_PARTY_MODULES)[number]) {
  return { name: m.name, nameEn: m.nameEn, summary: m.summary, summaryEn: m.summaryEn, description: m.description, descriptionEn: m.descriptionEn };
}

/**
 * Lists the first-party modules in the market on first start (and adds any a newer codebase
 * ships), each with the package built from `modules/<uid>` (dist/modules, built when missing) and
 * its sha256 pinned as reviewed. Existing rows are left alone, so an operator's edits survive; a
 * newer build of the codebase's version replaces the package (`withPackage`).
 */
export async function seedMarket(db: Db, config?: Pick<ServerConfig, 'root' | 'dataDir'>): Promise<string | null> {
  const added: string[] = [];
  for (const m of FIRST_PARTY_MODULES) {
    const [exists] = await db.select({ id: module.id, summary: module.summary }).from(module).where(eq(module.uid, m.uid)).limit(1);
    if (exists) {
      // The first listing joined both languages in one text: give it the text of each language.
      if (exists.summary === m.legacySummary) {
        await db.update(module).set({ ...split(m), ...(await moduleText({ ...m, tags: m.tags })) }).where(eq(module.id, exists.id));
        await db.update(moduleVersion).set({ changelog: m.changelog, changelogEn: m.changelogEn }).where(eq(moduleVersion.moduleId, exists.id));
        added.push(`${m.uid} (text per language)`);
      }
      continue;
    }
    const version = SITE_MODULES[m.uid]?.version ?? '1.0.0';
    const t = Math.floor(Date.now() / 1000);
    const text = await moduleText({ ...m, tags: m.tags });
    const [row] = await db.insert(module).values({
      uid: m.uid, developerId: FIRST_PARTY, ...split(m), category: m.category, tags: [...m.tags],
      siteModule: SITE_MODULES[m.uid] ? 1 : 0, status: 'published', latestVersion: version, publishTime: t, createTime: t, updateTime: t, ...text,
    }).onConflictDoNothing().returning({ id: module.id });
    if (!row) continue;
    await db.insert(moduleVersion).values({ moduleId: row.id, version, changelog: m.changelog, changelogEn: m.changelogEn, status: 'published', publishTime: t, createTime: t });
    added.push(m.uid);
  }
  if (config) for (const m of FIRST_PARTY_MODULES) added.push(...(await withPackage(db, config, m)));
  return added.length ? `market: listed ${added.join(', ')}` : null;
}

/**
 * Gives a first-party listing the package built from this codebase, and moves an install made
 * before the module had a package (the editor was once compiled into the site and installed by a
 * database row alone) onto it, so an upgraded site keeps its editor. An install of the same version
 * follows a newer build of it; an install of another version is left for the administrator.
 */
async function withPackage(db: Db, config: Pick<ServerConfig, 'root' | 'dataDir'>, m: (typeof FIRST_PARTY_MODULES)[number]): Promise<string[]> {
  const [listed] = await db.select({ id: module.id }).from(module).where(eq(module.uid, m.uid)).limit(1);
  if (!listed) return [];
  const built = await readBuilt(config.root, m.uid);
  if ('problem' in built) return [`${m.uid} without a package: ${built.problem}`];
  const { version } = built.inspected.manifest;
  const done = await publishBuilt({ db, config }, listed.id, built, { changelog: m.changelog, changelogEn: m.changelogEn }, { folder: 'first-party', repin: true });
  const { sha256 } = built.inspected;
  const moved = await db.update(moduleInstall).set({ sha256, version, reason: '', updateTime: Math.floor(Date.now() / 1000) })
    .where(and(eq(moduleInstall.uid, m.uid), eq(moduleInstall.enabled, 1), sql`(${moduleInstall.sha256} = '' or (${moduleInstall.version} = ${version} and ${moduleInstall.sha256} <> ${sha256}))`))
    .returning({ uid: moduleInstall.uid });
  return [
    ...(done ? [`${m.uid} ${version} package ${done} (sha256 ${sha256})`] : []),
    ...(moved.length ? [`${m.uid} install moved onto its package`] : []),
  ];
}

registerSeed({ name: 'market/first-party', order: 30, run: (db, ctx) => seedMarket(db, ctx.config) });
