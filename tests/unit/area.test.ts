import { describe, expect, it } from 'vitest';
import { areaName, cities, districts, provinces } from '../../src/lib/server/area/area';

const labels = (list: readonly { label: string }[]): string[] => list.map((o) => o.label);

describe('provinces', () => {
  it('lists every province-level division once, with 2-digit codes', () => {
    const list = provinces();
    expect(list.length).toBeGreaterThanOrEqual(31);
    expect(list.length).toBeLessThanOrEqual(34);
    expect(list.every((o) => /^\d{2}$/.test(o.value))).toBe(true);
    expect(new Set(list.map((o) => o.value)).size).toBe(list.length);
    expect(list).toContainEqual({ value: '44', label: '广东省' });
    expect(list).toContainEqual({ value: '65', label: '新疆维吾尔自治区' });
  });

  it('gives the same read-only list on every call', () => {
    expect(provinces()).toBe(provinces());
    expect(Object.isFrozen(provinces())).toBe(true);
  });
});

describe('cities', () => {
  it('lists the cities of a province with 4-digit codes under it', () => {
    const list = cities('44');
    expect(list).toContainEqual({ value: '4401', label: '广州市' });
    expect(list).toContainEqual({ value: '4403', label: '深圳市' });
    expect(list.every((o) => /^44\d{2}$/.test(o.value))).toBe(true);
    expect(list).toHaveLength(21);
  });

  it('gives municipalities the statistical city level', () => {
    expect(cities('11')).toEqual([{ value: '1101', label: '市辖区' }]);
    expect(labels(cities('50'))).toEqual(['市辖区', '县']);
  });

  it('is empty for an unknown province', () => {
    expect(cities('99')).toEqual([]);
    expect(cities('')).toEqual([]);
  });
});

describe('districts', () => {
  it('lists the districts of a city with 6-digit codes', () => {
    const list = districts('44', '4403');
    expect(list).toContainEqual({ value: '440305', label: '南山区' });
    expect(list.every((o) => /^4403\d{2}$/.test(o.value))).toBe(true);
  });

  it('lists the districts of Beijing under its 市辖区', () => {
    const list = districts('11', '1101');
    expect(list).toHaveLength(16);
    expect(list).toContainEqual({ value: '110105', label: '朝阳区' });
    expect(list).toContainEqual({ value: '110108', label: '海淀区' });
  });

  it('lists towns for a city without districts', () => {
    const list = districts('44', '4419');
    expect(list.length).toBeGreaterThan(20);
    expect(list.every((o) => /^441900\d{3}$/.test(o.value))).toBe(true);
  });

  it('is empty when the city is not in that province, or unknown', () => {
    expect(districts('11', '4403')).toEqual([]);
    expect(districts('44', '4499')).toEqual([]);
    expect(districts('99', '9901')).toEqual([]);
  });
});

describe('areaName', () => {
  it.each([
    ['11', '北京市'], ['1101', '市辖区'], ['110108', '海淀区'], ['44', '广东省'], ['4403', '深圳市'], ['440305', '南山区'], ['441900003', '东城街道'],
  ])('%s is %s', (code, name) => {
    expect(areaName(code)).toBe(name);
  });

  it.each(['', '99', '9999', '999999', 'abc'])('%j is unknown', (code) => {
    expect(areaName(code)).toBeNull();
  });
});

describe('English names', () => {
  it('uses the official English province names and keeps the codes', () => {
    const en = provinces('en');
    expect(en.map((o) => o.value)).toEqual(provinces().map((o) => o.value));
    expect(en).toContainEqual({ value: '44', label: 'Guangdong' });
    expect(en).toContainEqual({ value: '15', label: 'Inner Mongolia' });
    expect(en).toContainEqual({ value: '61', label: 'Shaanxi' });
    expect(en).toContainEqual({ value: '14', label: 'Shanxi' });
    expect(en.every((o) => !/[\u4e00-\u9fff]/.test(o.label))).toBe(true);
  });

  it('writes cities and districts in pinyin with their kind, polyphonic characters read in context', () => {
    expect(cities('44', 'en')).toContainEqual({ value: '4401', label: 'Guangzhou' });
    expect(cities('61', 'en')).toContainEqual({ value: '6101', label: "Xi'an" });
    expect(cities('34', 'en')).toContainEqual({ value: '3415', label: "Lu'an" });
    expect(cities('50', 'en')[0]).toEqual({ value: '5001', label: 'City districts' });
    expect(districts('11', '1101', 'en')).toContainEqual({ value: '110108', label: 'Haidian District' });
    expect(areaName('2224', 'en')).toBe('Yanbianchaoxianzu Autonomous Prefecture');
    expect(areaName('4401', 'en')).toBe('Guangzhou');
    expect(areaName('4401')).toBe('广州市');
  });

  it('has no Chinese left in any English name', () => {
    for (const p of provinces('en')) {
      for (const c of cities(p.value, 'en')) {
        expect(c.label).not.toMatch(/[\u4e00-\u9fff]/);
        for (const d of districts(p.value, c.value, 'en')) expect(d.label).not.toMatch(/[\u4e00-\u9fff]/);
      }
    }
  });
});
