// Module settings: what a value of each declared type must be before it is stored, what a module
// runs with (defaults filled in), and what the console shows (labels in the reader's language,
// never a secret's value).
import { describe, expect, it } from 'vitest';
import { Manifest, labelOf } from '../../src/lib/server/modules/manifest';
import { checkSetting, effectiveSettings, settingFields } from '../../src/lib/server/modules/settings';

const manifest = Manifest.parse({
  uid: 'demo', version: '1.0.0', name: { 'zh-cn': '演示', en: 'Demo' }, description: { 'zh-cn': '演示', en: 'Demo' }, atrium: '>=0.1.0',
  contributes: {
    settings: [
      { key: 'name', type: 'string', default: 'Ada', maxLength: 5, title: 'label.name' },
      { key: 'count', type: 'number', default: 3, min: 1, max: 10, integer: true, title: { 'zh-cn': '次数', en: 'Count' } },
      { key: 'ratio', type: 'number', default: 0.5, title: { 'zh-cn': '比例', en: 'Ratio' } },
      { key: 'on', type: 'boolean', default: false, title: { 'zh-cn': '开', en: 'On' } },
      { key: 'tone', type: 'select', default: 'calm', title: { 'zh-cn': '语气', en: 'Tone' }, options: [{ value: 'calm', title: 'label.calm' }, { value: 'loud', title: { 'zh-cn': '响亮', en: 'Loud' } }] },
      { key: 'home', type: 'url', default: '', title: { 'zh-cn': '主页', en: 'Home' } },
      { key: 'key', type: 'secret', title: { 'zh-cn': '密钥', en: 'Key' } },
    ],
    i18n: { 'zh-cn': { 'label.name': '名字', 'label.calm': '平和' }, en: { 'label.name': 'Name', 'label.calm': 'Calm' } },
  },
});
const setting = (key: string) => manifest.contributes.settings!.find((s) => s.key === key)!;

describe('a setting value', () => {
  it('is checked against its type and bounds, with a message key for each problem', () => {
    expect(checkSetting(setting('name'), ' Bob ')).toEqual({ value: 'Bob' });
    expect(checkSetting(setting('name'), 'Bobby!')).toEqual({ key: 'modules.settings.tooLong', values: { max: 5 } });
    expect(checkSetting(setting('name'), 5)).toEqual({ key: 'modules.settings.text' });
    expect(checkSetting(setting('count'), '7')).toEqual({ value: 7 });
    expect(checkSetting(setting('count'), 7.5)).toEqual({ key: 'modules.settings.integer', values: { min: 1, max: 10 } });
    expect(checkSetting(setting('count'), '11')).toEqual({ key: 'modules.settings.range', values: { min: 1, max: 10 } });
    expect(checkSetting(setting('count'), '')).toMatchObject({ key: 'modules.settings.integer' });
    expect(checkSetting(setting('ratio'), '0.25')).toEqual({ value: 0.25 });
    expect(checkSetting(setting('ratio'), 'Infinity')).toMatchObject({ key: 'modules.settings.number' });
    expect(checkSetting(setting('on'), '1')).toEqual({ value: true });
    expect(checkSetting(setting('on'), false)).toEqual({ value: false });
    expect(checkSetting(setting('on'), 'yes')).toEqual({ key: 'modules.settings.boolean' });
    expect(checkSetting(setting('tone'), 'loud')).toEqual({ value: 'loud' });
    expect(checkSetting(setting('tone'), 'angry')).toEqual({ key: 'modules.settings.choice' });
    expect(checkSetting(setting('home'), '')).toEqual({ value: '' });
    expect(checkSetting(setting('home'), 'https://example.com/a')).toEqual({ value: 'https://example.com/a' });
    for (const bad of ['javascript:alert(1)', 'ftp://example.com/', 'https://u:p@example.com/', 'example.com']) expect(checkSetting(setting('home'), bad)).toEqual({ key: 'modules.settings.url' });
    expect(checkSetting(setting('key'), 'x'.repeat(501))).toEqual({ key: 'modules.settings.tooLong', values: { max: 500 } });
  });
});

describe('what a module runs with and what the console shows', () => {
  it('fills every declared key with the stored value or the default (a secret never set is "")', () => {
    expect(effectiveSettings(manifest, { count: 9, key: 'k1', stray: 'x' })).toEqual({ name: 'Ada', count: 9, ratio: 0.5, on: false, tone: 'calm', home: '', key: 'k1' });
  });

  it('labels fields in the reader\'s language (text or a string key) and never gives a secret\'s value', () => {
    const en = settingFields(manifest, { key: 'k1' }, 'en');
    expect(en.map((f) => f.label)).toEqual(['Name', 'Count', 'Ratio', 'On', 'Tone', 'Home', 'Key']);
    expect(en.find((f) => f.key === 'tone')!.options).toEqual([{ value: 'calm', label: 'Calm' }, { value: 'loud', label: 'Loud' }]);
    expect(en.find((f) => f.key === 'key')).toMatchObject({ value: null, isSet: true });
    expect(JSON.stringify(en)).not.toContain('k1');
    const zh = settingFields(manifest, {}, 'zh-cn');
    expect(zh[0]).toMatchObject({ label: '名字', value: 'Ada' });
    expect(zh.find((f) => f.key === 'key')).toMatchObject({ value: null, isSet: false });
    expect(labelOf(manifest, 'label.calm', 'zh-cn')).toBe('平和');
  });
});
