// The settings page reads the same rows `config:*` manages (the `config` table: name, group, title,
// type, tip), so a setting another feature seeds appears here, in its group, with no further work.
// Values are checked by type (and by name for sizes and known choices); the seeded value is the
// default shown. Saving goes through ConfigStore, which tells every instance through the bus.
import { asc } from 'drizzle-orm';
import type { Db } from '../db/client';
import { config } from '../db/schema';
import { defaultConfig } from '../seeds';
import { parseSize } from '../site/config';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { lookup, type Locale } from '../../i18n';
import { CAPTCHA_TYPES } from '../captcha/consume';

/** Groups in the order the page shows them; groups nobody listed here follow, by name. */
export const SETTING_GROUP_ORDER = ['basics', 'user', 'upload', 'mail', 'ask', 'market', 'messages', 'chat', 'backup'];
/** Rows that are not settings an operator edits here. */
const HIDDEN_TYPES = new Set(['secret']);
const HIDDEN_GROUPS = new Set(['security']);
const READ_ONLY = new Set(['version']);
/** Choices of settings whose value is one of a few words. */
export const SETTING_CHOICES: Record<string, readonly string[]> = { upload_mode: ['local', 's3', 'cos'], user_captcha_types: CAPTCHA_TYPES };

export interface SettingField {
  name: string;
  group: string;
  title: string;
  tip: string;
  type: string;
  value: string;
  defaultValue: string | null;
  readOnly: boolean;
  choices: readonly string[] | null;
}


function titleOf(locale: Locale, name: string, fallback: string): string {
  return lookup(locale, 'admin', `admin.setting.${name}`) ?? fallback;
}

export async function settingFields(db: Db, locale: Locale): Promise<SettingField[]> {
  const defaults = new Map(defaultConfig().map((c) => [c.name, c.value ?? '']));
  const rows = await db.select().from(config).orderBy(asc(config.group), asc(config.weigh), asc(config.id));
  return rows
    .filter((r) => !HIDDEN_TYPES.has(r.type) && !HIDDEN_GROUPS.has(r.group))
    .sort((a, b) => b.weigh - a.weigh || a.id - b.id)
    .map((r) => ({
      name: r.name, group: r.group, title: titleOf(locale, r.name, r.title || r.name), tip: lookup(locale, 'admin', `admin.setting.${r.name}.tip`) ?? r.tip,
      type: r.type, value: r.value, defaultValue: defaults.get(r.name) ?? null, readOnly: READ_ONLY.has(r.name), choices: SETTING_CHOICES[r.name] ?? null,
    }));
}

/** The groups present, in page order (mail is always there: its test button lives in it). */
export function settingGroups(fields: readonly SettingField[]): string[] {
  const present = new Set([...fields.map((f) => f.group), 'mail']);
  const known = SETTING_GROUP_ORDER.filter((g) => present.has(g));
  return [...known, ...[...present].filter((g) => !SETTING_GROUP_ORDER.includes(g)).sort()];
}

/** The message key of what is wrong with `value` for a setting, or null. */
export function checkSetting(field: Pick<SettingField, 'name' | 'type'>, value: string): string | null {
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u.test(value)) return 'admin.field.control';
  if (field.type === 'number' && !/^-?\d+(\.\d+)?$/.test(value.trim())) return 'admin.settings.number';
  if (field.type === 'switch' && value !== '0' && value !== '1') return 'admin.settings.switch';
  if (field.type === 'json') {
    try { JSON.parse(value); } catch { return 'admin.settings.json'; }
  }
  if (/_size$/.test(field.name) && parseSize(value) <= 0) return 'admin.settings.size';
  const choices = SETTING_CHOICES[field.name];
  if (choices && !choices.includes(value)) return 'validation.required';
  return null;
}

/** Saves changed values after checking all of them; returns {name: [before, after]} of what changed. */
export async function saveSettings(rt: Runtime, locale: Locale, values: Record<string, string>): Promise<Record<string, [string, string]>> {
  const fields = new Map((await settingFields(rt.db, locale)).map((f) => [f.name, f]));
  const errors: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    const field = fields.get(name);
    if (!field || field.readOnly) { errors[`values.${name}`] = 'admin.settings.unknown'; continue; }
    const problem = checkSetting(field, field.type === 'number' ? value.trim() : value);
    if (problem) errors[`values.${name}`] = problem;
  }
  if (Object.keys(errors).length) throw new AppError('api.invalidInput', { fieldKeys: errors });
  const changed: Record<string, [string, string]> = {};
  for (const [name, raw] of Object.entries(values)) {
    const field = fields.get(name)!;
    const value = field.type === 'number' ? raw.trim() : raw;
    if (value === field.value) continue;
    await rt.site.set(name, value);
    changed[name] = [field.value, value];
  }
  return changed;
}
