// The values a module runs with (`ctx.settings`): the stored ones (`module_setting`) over the
// manifest's defaults. Read by every instance on reconcile (site-modules.ts) and by the console.
import { inArray } from 'drizzle-orm';
import { moduleSetting } from '../db/schema';
import type { Db } from '../db/client';
import type { JsonValue } from './host/types';
import type { Manifest, ManifestSetting } from './manifest';

type Values = Record<string, JsonValue>;

/** A setting's default (a secret has none: ""). */
function defaultOf(s: ManifestSetting): JsonValue {
  return s.type === 'secret' ? '' : s.default;
}

/** The settings a module runs with: every declared key, the stored value or the default. */
export function effectiveSettings(manifest: Pick<Manifest, 'contributes'>, stored: Values): Values {
  const out: Values = {};
  for (const s of manifest.contributes.settings ?? []) out[s.key] = Object.hasOwn(stored, s.key) ? stored[s.key]! : defaultOf(s);
  return out;
}

/** The stored values of modules' settings, by uid (absent: never saved). */
export async function storedSettings(db: Db, uids: readonly string[]): Promise<Map<string, Values>> {
  if (!uids.length) return new Map();
  const rows = await db.select().from(moduleSetting).where(inArray(moduleSetting.moduleUid, [...uids]));
  return new Map(rows.map((r) => [r.moduleUid, (r.values ?? {}) as Values]));
}
