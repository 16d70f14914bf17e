// What the console's Site modules section shows of an installed module at run time, besides its
// lifecycle: its settings form, its scheduled jobs with their last run, and which live instances
// have its package (an activation that went ahead without one is reported on the module's row).
import type { Locale } from '../../i18n';
import type { Db } from '../db/client';
import type { InstalledRow } from './lifecycle';
import { jobRows, type JobRow } from './jobs';
import { liveInstances } from './instances';
import { labelOf } from './manifest';
import { installedManifest, settingFields, storedSettings, type SettingField } from './settings';

export interface ModuleRuntimeView {
  fields: SettingField[];
  jobs: { name: string; label: string; every: number; row: JobRow | null }[];
  /** Live instances (several share a PostgreSQL site), and the labels of those without the package. */
  instances: { live: number; lacking: string[] };
}

/** The runtime view of one installed module with a package, or null (no package, no manifest). */
export async function moduleRuntimeView(db: Db, row: InstalledRow, locale: Locale, shared: boolean): Promise<ModuleRuntimeView | null> {
  if (!row.sha256) return null;
  const manifest = await installedManifest(db, row.uid);
  if (!manifest) return null;
  const stored = (await storedSettings(db, [row.uid])).get(row.uid) ?? {};
  const rows = new Map((await jobRows(db, [row.uid])).map((j) => [j.name, j]));
  const live = shared ? await liveInstances(db) : [];
  return {
    fields: settingFields(manifest, stored, locale),
    jobs: (manifest.contributes.jobs ?? []).map((j) => ({ name: j.name, label: labelOf(manifest, j.title, locale) || j.name, every: j.every, row: rows.get(j.name) ?? null })),
    instances: { live: live.length, lacking: live.filter((i) => !i.packages.includes(row.sha256)).map((i) => i.label) },
  };
}
