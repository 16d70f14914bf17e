// Pure pieces of the admin console: setting checks, chart days, metric route labels, backup pruning,
// the section registry and the JSON log line.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkSetting, settingGroups, type SettingField } from '../../src/lib/server/admin/settings';
import { lastDays } from '../../src/lib/server/admin/dashboard';
import { routeLabel } from '../../src/lib/server/metrics';
import { pruneBackups } from '../../src/lib/server/admin/backup';
import { adminRuleNames, adminSections, findSection } from '../../src/lib/server/admin/sections';
import { createLogger } from '../../src/lib/server/log';
import { DICTIONARIES } from '../../src/lib/i18n';

describe('setting checks', () => {
  it('checks values by type and by name', () => {
    expect(checkSetting({ name: 'sign_in_score', type: 'number' }, '12')).toBeNull();
    expect(checkSetting({ name: 'sign_in_score', type: 'number' }, 'ten')).toBe('admin.settings.number');
    expect(checkSetting({ name: 'user_login_captcha', type: 'switch' }, '2')).toBe('admin.settings.switch');
    expect(checkSetting({ name: 'head_nav', type: 'json' }, '[{"url":"/ask"}]')).toBeNull();
    expect(checkSetting({ name: 'head_nav', type: 'json' }, '[')).toBe('admin.settings.json');
    expect(checkSetting({ name: 'upload_max_size', type: 'string' }, '10mb')).toBeNull();
    expect(checkSetting({ name: 'upload_max_size', type: 'string' }, 'big')).toBe('admin.settings.size');
    expect(checkSetting({ name: 'upload_mode', type: 'string' }, 'ftp')).toBe('validation.required');
    expect(checkSetting({ name: 'site_name', type: 'string' }, 'a\u0007b')).toBe('admin.field.control');
  });

  it('orders groups, keeps groups another feature adds, and always has mail', () => {
    const field = (group: string): SettingField => ({ name: group, group, title: '', tip: '', type: 'string', value: '', defaultValue: null, readOnly: false, choices: null });
    expect(settingGroups([field('market'), field('chat'), field('basics'), field('messages')])).toEqual(['basics', 'mail', 'market', 'messages', 'chat']);
    expect(settingGroups([field('market'), field('zeta'), field('basics')])).toEqual(['basics', 'mail', 'market', 'zeta']);
  });
});

describe('dashboard days', () => {
  it('gives 30 calendar days in the site time zone, oldest first', () => {
    const at = Date.UTC(2026, 10, 25, 20, 0); // 04:00 on the 26th in Shanghai
    const days = lastDays('Asia/Shanghai', 30, at);
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toBe('2026-11-26');
    expect(days[0]).toBe('2026-10-28');
    expect(lastDays('UTC', 30, at).at(-1)).toBe('2026-11-25');
  });
});

describe('metric route labels', () => {
  it('uses route names and API paths, never raw ids', () => {
    expect(routeLabel('/ask/info/123', 200)).toBe('askInfo');
    expect(routeLabel('/api/admin/settings', 200)).toBe('/api/admin/settings');
    expect(routeLabel('/api/nope/x', 404)).toBe('api:unknown');
    expect(routeLabel('/storage/a/b.png', 200)).toBe('storage');
    expect(routeLabel('/_astro/x.js', 200)).toBe('static');
    expect(routeLabel('/admin/members/5', 200)).toBe('adminSection');
    expect(routeLabel('/no/such/page/here', 404)).toBe('other');
  });
});

describe('nightly backups', () => {
  const dirs: string[] = [];
  afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

  it('keeps the newest N nightly files and never touches other backups', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prune-'));
    dirs.push(dir);
    for (const d of ['20261120', '20261121', '20261122', '20261123']) writeFileSync(join(dir, `atrium-nightly-${d}T030000Z.backup.gz`), '');
    writeFileSync(join(dir, 'atrium-20261101T120000Z.backup.gz'), '');
    expect(pruneBackups(dir, 2)).toEqual(['atrium-nightly-20261121T030000Z.backup.gz', 'atrium-nightly-20261120T030000Z.backup.gz']);
    expect(readdirSync(dir).sort()).toEqual(['atrium-20261101T120000Z.backup.gz', 'atrium-nightly-20261122T030000Z.backup.gz', 'atrium-nightly-20261123T030000Z.backup.gz']);
  });
});

describe('section registry', () => {
  it('names a rule and a title in both languages for every section', () => {
    for (const s of adminSections()) {
      expect(findSection(s.name)).toBe(s);
      for (const locale of ['zh-cn', 'en'] as const) expect((DICTIONARIES[locale].admin as Record<string, string>)[s.title], `${locale} ${s.title}`).toBeTruthy();
    }
    expect(adminRuleNames()).toContain('admin');
    expect(adminRuleNames()).toContain('admin/reports');
    // The market review keeps the rule it had before the console.
    expect(adminRuleNames()).not.toContain('market/review');
  });
});

describe('structured logs', () => {
  it('writes one JSON object per line with LOG_FORMAT=json', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      createLogger('info', 'json').warn('slow request', { requestId: 'r1', route: 'askInfo' });
      createLogger('info', 'json').debug('hidden');
      expect(write).toHaveBeenCalledTimes(1);
      const line = JSON.parse(String(write.mock.calls[0]![0])) as Record<string, unknown>;
      expect(line).toMatchObject({ level: 'warn', msg: 'slow request', requestId: 'r1', route: 'askInfo' });
      expect(typeof line.time).toBe('string');
    } finally {
      write.mockRestore();
    }
  });
});
