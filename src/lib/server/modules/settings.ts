// A module's settings (`contributes.settings`), set by administrators in the console's Site modules
// section and stored in `module_setting` (the database, so every instance reads the same). Values
// are checked here against the manifest's types, with messages in the administrator's language;
// each change is audited (secrets masked) and announced on the bus, and every instance hands the
// new values to the module's next call (`ctx.settings`, site-modules.ts). A secret is never sent
// back: the console only learns whether it is set.
import { and, eq } from 'drizzle-orm';
import { translateAny, type Locale } from '../../i18n';
import { module, moduleInstall, moduleSetting, moduleVersion } from '../db/schema';
import type { Db } from '../db/client';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { recordAction, type Actor } from '../admin/audit';
import type { JsonValue } from './host/types';
import { isWebAddress, labelOf, type Manifest, type ManifestSetting } from './manifest';
import { effectiveSettings, storedSettings } from './settings-store';
import { MODULES_CHANNEL } from './site-modules';

type Values = Record<string, JsonValue>;

/** What the console shows of one setting: its label and help in the reader's language, its value (never a secret's). */
export interface SettingField {
  key: string;
  type: ManifestSetting['type'];
  label: string;
  help: string;
  /** The current value; null for a secret. */
  value: string | number | boolean | null;
  /** For a secret: whether one is set. */
  isSet: boolean;
  options: { value: string; label: string }[];
  min: number | null;
  max: number | null;
}

const now = (): number => Math.floor(Date.now() / 1000);

export { effectiveSettings, storedSettings };

/** The manifest of the version installed on this site, or null (not installed, or no package). */
export async function installedManifest(db: Db, uid: string): Promise<Manifest | null> {
  const [row] = await db.select({ manifest: moduleVersion.manifest }).from(moduleInstall)
    .innerJoin(module, eq(module.uid, moduleInstall.uid))
    .innerJoin(moduleVersion, and(eq(moduleVersion.moduleId, module.id), eq(moduleVersion.version, moduleInstall.version)))
    .where(eq(moduleInstall.uid, uid)).limit(1);
  return (row?.manifest as Manifest | null | undefined) ?? null;
}

/** The settings form of an installed module, in `locale`. */
export function settingFields(manifest: Manifest, stored: Values, locale: Locale): SettingField[] {
  const current = effectiveSettings(manifest, stored);
  return (manifest.contributes.settings ?? []).map((s) => ({
    key: s.key,
    type: s.type,
    label: labelOf(manifest, s.title, locale),
    help: labelOf(manifest, s.description, locale),
    value: s.type === 'secret' ? null : (current[s.key] as string | number | boolean),
    isSet: s.type === 'secret' && current[s.key] !== '',
    options: s.type === 'select' ? s.options.map((o) => ({ value: o.value, label: labelOf(manifest, o.title, locale) })) : [],
    min: s.type === 'number' ? (s.min ?? null) : null,
    max: s.type === 'number' ? (s.max ?? null) : null,
  }));
}

/** What is wrong with `raw` for setting `s` (a message key and its values), or the value to store. */
export function checkSetting(s: ManifestSetting, raw: unknown): { value: JsonValue } | { key: string; values?: Record<string, string | number> } {
  const text = (max: number): { value: string } | { key: string; values?: Record<string, string | number> } => {
    if (typeof raw !== 'string') return { key: 'modules.settings.text' };
    if (raw.length > max) return { key: 'modules.settings.tooLong', values: { max } };
    return { value: s.type === 'text' ? raw : raw.trim() };
  };
  switch (s.type) {
    case 'string': return text(s.maxLength ?? 2000);
    case 'text': return text(20_000);
    case 'secret': return text(500);
    case 'url': {
      const r = text(500);
      if (!('value' in r) || r.value === '') return r;
      return isWebAddress(r.value) ? r : { key: 'modules.settings.url' };
    }
    case 'boolean':
      if (raw === true || raw === '1' || raw === 'true') return { value: true };
      if (raw === false || raw === '0' || raw === 'false') return { value: false };
      return { key: 'modules.settings.boolean' };
    case 'select':
      return typeof raw === 'string' && s.options.some((o) => o.value === raw) ? { value: raw } : { key: 'modules.settings.choice' };
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
      const range = { min: s.min ?? '−∞', max: s.max ?? '∞' };
      if (!Number.isFinite(n) || (s.integer && !Number.isInteger(n))) return { key: s.integer ? 'modules.settings.integer' : 'modules.settings.number', values: range };
      if ((s.min !== undefined && n < s.min) || (s.max !== undefined && n > s.max)) return { key: 'modules.settings.range', values: range };
      return { value: n };
    }
  }
}

/**
 * Saves an installed module's settings after checking every value (every problem at once, beside
 * its field `values.<key>`). A secret left empty keeps the one set; `clear` lists secrets to remove.
 * Returns the keys that changed.
 */
export async function saveModuleSettings(
  rt: Pick<Runtime, 'db' | 'bus'>, locale: Locale, actor: Actor,
  input: { uid: string; values: Record<string, unknown>; clear?: readonly string[] },
): Promise<string[]> {
  const manifest = await installedManifest(rt.db, input.uid);
  const declared = manifest?.contributes.settings ?? [];
  if (!manifest || !declared.length) throw new AppError('modules.settings.none', { values: { uid: input.uid } });
  const stored = (await storedSettings(rt.db, [input.uid])).get(input.uid) ?? {};
  const before = effectiveSettings(manifest, stored);
  const next: Values = { ...stored };
  const fields: Record<string, string> = {};
  for (const key of Object.keys(input.values)) {
    if (!declared.some((s) => s.key === key)) fields[`values.${key}`] = translateAny(locale, 'modules.settings.unknown', { key });
  }
  for (const s of declared) {
    if (s.type === 'secret' && input.clear?.includes(s.key)) {
      delete next[s.key];
      continue;
    }
    if (!Object.hasOwn(input.values, s.key)) continue;
    const raw = input.values[s.key];
    if (s.type === 'secret' && raw === '') continue;
    const r = checkSetting(s, raw);
    if ('value' in r) next[s.key] = r.value;
    else fields[`values.${s.key}`] = translateAny(locale, r.key as never, r.values);
  }
  if (Object.keys(fields).length) throw new AppError('api.invalidInput', { fields });
  const after = effectiveSettings(manifest, next);
  const changed = declared.filter((s) => JSON.stringify(before[s.key]) !== JSON.stringify(after[s.key])).map((s) => s.key);
  if (!changed.length) return [];
  await rt.db.insert(moduleSetting).values({ moduleUid: input.uid, values: next, updateTime: now() })
    .onConflictDoUpdate({ target: moduleSetting.moduleUid, set: { values: next, updateTime: now() } });
  const shown = (v: Values): Record<string, JsonValue> => Object.fromEntries(changed.map((k) => [k, declared.find((s) => s.key === k)!.type === 'secret' ? (v[k] ? '(set)' : '(not set)') : v[k]!]));
  await recordAction(rt.db, actor, 'module:settings', input.uid, shown(before), shown(after));
  // Every instance re-reads the settings on its next reconcile: the module's next call has them.
  await rt.bus.publish(MODULES_CHANNEL, { uid: input.uid, change: 'settings' });
  return changed;
}
