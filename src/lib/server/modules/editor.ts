// The editor module (modules/editor): the site's markdown editor, installed from the market like any
// module. Writing (posts, replies, docs pages) needs it installed (spec §5/§8: the forms say
// "Please install editor", the API "Editor required"); its client component is loaded only on the
// pages that edit markdown, and only when it runs here (from the hashed URL of its package).
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { moduleInstall } from '../db/schema';
import type { Runtime } from '../runtime';
import { AppError } from '../http';
import type { EditorClient, EditorState } from '../../shared/module-client';
import { translator } from '../../i18n';
import type { ActiveModule } from './active';
import { assetUrl } from './assets';
import { pageSlot } from './slots';

export const EDITOR_UID = 'editor';

/** Pixels reserved for the editor while it loads, when its manifest does not say. */
const DEFAULT_HEIGHT = 240;

/** The editor's wanted state: installed and enabled (read on every call: one indexed row). */
async function editorRow(db: Db): Promise<{ sha256: string; version: string } | null> {
  const [row] = await db.select({ sha256: moduleInstall.sha256, version: moduleInstall.version }).from(moduleInstall)
    .where(and(eq(moduleInstall.uid, EDITOR_UID), eq(moduleInstall.enabled, 1))).limit(1);
  return row ?? null;
}

/** Whether the editor module is installed and enabled. */
export async function editorInstalled(db: Db): Promise<boolean> {
  return (await editorRow(db)) !== null;
}

/** Writing markdown needs the editor module: refuses with "Editor required" otherwise. */
export async function requireEditor(runtime: Pick<Runtime, 'db'>): Promise<void> {
  if (!(await editorInstalled(runtime.db))) throw new AppError('validation.editorMissing');
}

/** The client component of an active module that provides the editor, as a page hands it to its islands. */
export function editorClientOf(m: ActiveModule): EditorClient | null {
  const { entry, contributes } = m.manifest;
  if (!contributes.editor || !entry.client) return null;
  return {
    url: assetUrl(m, entry.client),
    css: entry.css ? assetUrl(m, entry.css) : null,
    component: contributes.editor.component,
    height: contributes.editor.height ?? DEFAULT_HEIGHT,
    version: m.version,
  };
}

/**
 * The editor module as a page that edits markdown hands it to its islands (EditorSlot): installed or
 * not, and its client component when this instance runs it (null for a package without one, or one
 * that failed to activate: the forms then offer a plain box). When the wanted state names a package
 * this instance does not run yet (a bus message missed, an install by the CLI in another process),
 * the instance reconciles first rather than wait for the next message. Marks the page so its layout
 * writes the import map and the editor's stylesheet (Base.astro), and lists the running modules'
 * `editor.toolbar` components (their stylesheets in the head too).
 */
export async function pageEditor(locals: Pick<App.Locals, 'runtime' | 'editorModule' | 'locale' | 'moduleClient'>): Promise<EditorState> {
  const { runtime } = locals;
  const row = await editorRow(runtime.db);
  if (!row) {
    const t = translator(locals.locale, 'modules');
    return { installed: false, client: (locals.editorModule = null), notice: { title: t('modules.editor.notInstalled'), lead: t('modules.editor.notInstalledLead') } };
  }
  const running = (): ActiveModule | undefined => runtime.modules.list().find((m) => m.uid === EDITOR_UID && (!row.sha256 || m.sha256 === row.sha256));
  if (row.sha256 && !running() && !runtime.modules.safeMode) await runtime.modules.reconcile();
  const active = running();
  const client = (locals.editorModule = active ? editorClientOf(active) : null);
  // Other modules' toolbar components, only beside a running editor (the key is left out without
  // any, so a form's props keep their bytes).
  const toolbar = client ? pageSlot(locals, 'editor.toolbar') : [];
  return toolbar.length > 0 ? { installed: true, client, toolbar: { fills: toolbar, locale: locals.locale } } : { installed: true, client };
}
