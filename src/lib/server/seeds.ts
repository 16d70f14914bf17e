// What a new site starts with, registered by the areas that own it instead of listed in one file:
// the default settings (rows of the `config` table) and the area seeds (forum categories, the
// guide's books, the first-party modules). site/seed.ts writes the settings, the rule tree and the
// groups; boot/ then runs the area seeds. The order is deterministic: by `order`, then by
// registration (boot/areas.ts loads the areas in a fixed order).
import type { Db } from './db/client';
import type { config } from './db/schema';
import type { ServerConfig } from './env';
import { registry } from '../shared/registry';

export type ConfigSeed = Pick<typeof config.$inferInsert, 'name' | 'group' | 'title' | 'type' | 'value' | 'tip'>;

export interface SettingsSeed {
  /** Who registers them (one registration per name; a later one replaces it). */
  name: string;
  /** Position among the registrations (the rows' weight on a new site follows it). */
  order: number;
  rows: readonly ConfigSeed[];
}

export interface AreaSeed {
  name: string;
  order: number;
  /** Adds what is missing (never touches an operator's rows); a line for the log, or null. */
  run(db: Db, ctx: { root: string; config: Pick<ServerConfig, 'root' | 'dataDir'> }): Promise<string | null>;
}

const settings = registry<SettingsSeed>('settings', (s) => s.name);
const seeds = registry<AreaSeed>('seeds', (s) => s.name);

const byOrder = <T extends { order: number }>(list: T[]): T[] => list.map((v, i) => ({ v, i })).sort((a, b) => a.v.order - b.v.order || a.i - b.i).map((x) => x.v);

export function registerSettings(seed: SettingsSeed): void {
  settings.add(seed);
}

/** Every default setting, in order. */
export function defaultConfig(): ConfigSeed[] {
  return byOrder(settings.list()).flatMap((s) => s.rows);
}

export function registerSeed(seed: AreaSeed): void {
  seeds.add(seed);
}

/** The area seeds, in order. */
export function areaSeeds(): AreaSeed[] {
  return byOrder(seeds.list());
}
