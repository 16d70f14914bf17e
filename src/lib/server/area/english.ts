// English names of China's divisions for the English interface: the official English names of
// the provinces, and Hanyu Pinyin (pinyin-pro, which reads polyphonic characters in context:
// 重庆 Chongqing, 六安 Lu'an) for cities and districts, with their kind in English
// (海淀区 → Haidian District). Codes never change; only the label does.
import { pinyin } from 'pinyin-pro';

const PROVINCES: Record<string, string> = {
  11: 'Beijing', 12: 'Tianjin', 13: 'Hebei', 14: 'Shanxi', 15: 'Inner Mongolia',
  21: 'Liaoning', 22: 'Jilin', 23: 'Heilongjiang',
  31: 'Shanghai', 32: 'Jiangsu', 33: 'Zhejiang', 34: 'Anhui', 35: 'Fujian', 36: 'Jiangxi', 37: 'Shandong',
  41: 'Henan', 42: 'Hubei', 43: 'Hunan', 44: 'Guangdong', 45: 'Guangxi', 46: 'Hainan',
  50: 'Chongqing', 51: 'Sichuan', 52: 'Guizhou', 53: 'Yunnan', 54: 'Tibet',
  61: 'Shaanxi', 62: 'Gansu', 63: 'Qinghai', 64: 'Ningxia', 65: 'Xinjiang',
  71: 'Taiwan', 81: 'Hong Kong', 82: 'Macao',
};

/** Whole names with a fixed English form (the statistics' grouping rows). */
const WHOLE: Record<string, string> = {
  市辖区: 'City districts',
  县: 'Counties',
  省直辖县级行政区划: 'County-level divisions under the province',
  自治区直辖县级行政区划: 'County-level divisions under the region',
};

/** Kinds of division, longest first so 自治县 wins over 县. */
const SUFFIXES: [string, string][] = [
  ['自治州', 'Autonomous Prefecture'], ['自治县', 'Autonomous County'], ['自治旗', 'Autonomous Banner'],
  ['地区', 'Prefecture'], ['林区', 'Forestry District'], ['新区', 'New Area'], ['矿区', 'Mining District'],
  ['特区', 'Special District'], ['街道', 'Subdistrict'], ['苏木', 'Sumu'],
  ['盟', 'League'], ['旗', 'Banner'], ['县', 'County'], ['区', 'District'], ['镇', 'Town'], ['乡', 'Township'],
  // A city's name alone is how English writes it: 广州市 → Guangzhou.
  ['市', ''],
];

/** 广州 → Guangzhou, 西安 → Xi'an: syllables joined, an apostrophe before one starting with a vowel. */
function romanise(chinese: string): string {
  const syllables = pinyin(chinese, { toneType: 'none', type: 'array', v: true, nonZh: 'consecutive' });
  const word = syllables.map((s, i) => (i > 0 && /^[aeo]/.test(s) && /[a-z]$/.test(syllables[i - 1] ?? '') ? `'${s}` : s)).join('');
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A division's English name from its code and Chinese name. */
export function englishAreaName(code: string, chinese: string): string {
  if (code.length === 2 && PROVINCES[code]) return PROVINCES[code];
  const whole = WHOLE[chinese];
  if (whole) return whole;
  for (const [suffix, english] of SUFFIXES) {
    if (chinese.length > suffix.length && chinese.endsWith(suffix)) {
      const base = romanise(chinese.slice(0, -suffix.length));
      return english ? `${base} ${english}` : base;
    }
  }
  return romanise(chinese);
}
