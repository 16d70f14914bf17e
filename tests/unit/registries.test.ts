// Registries instead of switchboards (issue 25, item 3): member-center pages, admin sections,
// default settings and area seeds are registered by their areas. The registrations hold what the
// central lists held (same rules, same order, same settings), every component a registration names
// exists, and a page registered at run time (as a module will) is routed and seeded.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import '../../src/lib/server/boot/areas';
import { DICTIONARIES } from '../../src/lib/i18n';
import { findMemberPage, memberPages, memberPageTitleKey } from '../../src/lib/shared/member-pages';
import { registerMemberPage, unregisterMemberPage } from '../../src/lib/shared/member-center';
import { matchRoute, USER_CHILDREN } from '../../src/lib/shared/routes';
import { adminSections, findSection, registerAdminSection } from '../../src/lib/server/admin/sections';
import { memberCenterRules, moderatorRules } from '../../src/lib/server/site/seed';
import { areaSeeds, defaultConfig } from '../../src/lib/server/seeds';
import { registry } from '../../src/lib/shared/registry';

const ROOT = join(import.meta.dirname, '..', '..');
const component = (name: string): string => join(ROOT, 'src/components', `${name}.astro`);

type Node = { type: string; name: string; icon?: string; children?: Node[] };
const outline = (nodes: Node[]): unknown[] => nodes.map((n) => [n.type, n.name, n.icon ?? '', ...(n.children ? [outline(n.children)] : [])]);

describe('member-center pages', () => {
  afterEach(() => { unregisterMemberPage('test/extra'); });

  it('are the twenty pages of before and API tokens, each with a component that exists and a title in both languages', () => {
    expect([...USER_CHILDREN].sort()).toEqual([
      'account/apiTokens', 'account/balance', 'account/changePassword', 'account/integral', 'account/invoice', 'account/moduleOrders',
      'account/notice', 'account/overview', 'account/profile', 'account/signIn',
      'ask/collect', 'ask/comment', 'ask/myReports', 'ask/post', 'ask/reports',
      'developer/earnings', 'developer/modules', 'developer/orders', 'developer/verif',
      'market/review', 'messageCenter',
    ]);
    for (const p of memberPages()) {
      expect(p.component ?? p.redirect, p.path).toBeTruthy();
      for (const c of [p.component, p.wrap]) if (c) expect(existsSync(component(c)), `${p.path}: ${c}`).toBe(true);
      for (const locale of ['zh-cn', 'en'] as const) expect((DICTIONARIES[locale].user as Record<string, string>)[memberPageTitleKey(p)], `${locale} ${p.path}`).toBeTruthy();
    }
  });

  it('seed the rule tree of before: folders, pages, buttons and icons in the same order', () => {
    expect(outline(memberCenterRules() as Node[])).toEqual([
      ['menu_dir', 'account', 'user', [
        ['menu', 'account/overview', 'home'], ['menu', 'account/profile', 'id-card'], ['menu', 'account/changePassword', 'key'],
        ['menu', 'account/integral', 'star'], ['menu', 'account/balance', 'wallet', [['button', 'account/balance/export', '']]],
        ['menu', 'account/signIn', 'calendar'], ['menu', 'account/invoice', 'receipt'], ['menu', 'account/moduleOrders', 'package'],
        ['menu', 'account/apiTokens', 'key'], ['menu', 'account/notice', 'bell'],
      ]],
      ['menu_dir', 'ask', 'chat', [
        ['menu', 'ask/post', 'edit'], ['menu', 'ask/comment', 'reply'], ['menu', 'ask/collect', 'bookmark'], ['menu', 'ask/myReports', 'flag'],
        ['menu', 'ask/reports', 'flag', [['button', 'ask/moderate', '']]],
      ]],
      ['menu_dir', 'developer', 'code', [
        ['menu', 'developer/verif', 'badge'], ['menu', 'developer/modules', 'package'], ['menu', 'developer/orders', 'list'], ['menu', 'developer/earnings', 'chart'],
      ]],
      ['menu_dir', 'market', 'shield', [['menu', 'market/review', 'check', [['button', 'market/approve', ''], ['button', 'market/install', '']]]]],
      ['route', 'messageCenter', ''],
    ]);
    expect([...moderatorRules()].sort()).toEqual(['admin', ...adminSections().map((s) => s.rule).filter((r) => r.startsWith('admin/')),
      'ask/moderate', 'ask/reports', 'market', 'market/approve', 'market/install', 'market/review', 'md/book'].sort());
  });

  it('route and seed a page registered at run time, with its own rule', () => {
    expect(matchRoute('/user/test/extra')).toBeNull();
    registerMemberPage({ path: 'test/extra', menu: 'account', title: '额外', icon: 'star', component: 'user/Notices' });
    expect(findMemberPage('test/extra')?.title).toBe('额外');
    expect(matchRoute('/user/test/extra')?.route).toMatchObject({ name: 'user/test/extra', layout: 'user', rule: 'test/extra', middleware: ['user-mount', 'auth'] });
    const account = (memberCenterRules() as Node[]).find((n) => n.name === 'account')!;
    expect(account.children!.at(-1)).toMatchObject({ type: 'menu', name: 'test/extra', icon: 'star' });
    unregisterMemberPage('test/extra');
    expect(matchRoute('/user/test/extra')).toBeNull();
  });
});

describe('admin sections', () => {
  it('name a component that exists for every section and record view', () => {
    expect(adminSections().map((s) => s.name)).toEqual(['dashboard', 'members', 'groups', 'settings', 'notices', 'reports', 'books', 'market', 'finance', 'modules', 'audit']);
    for (const s of adminSections()) for (const c of [s.component, s.detail]) if (c) expect(existsSync(component(c)), `${s.name}: ${c}`).toBe(true);
    expect(adminSections().filter((s) => s.detail).map((s) => s.name)).toEqual(['members', 'settings']);
  });

  it('takes a section registered at run time, seeded under the console rule', () => {
    registerAdminSection({ name: 'extra', rule: 'admin/extra', title: 'admin.section.audit', group: 'records', ruleTitle: '额外', component: 'admin/Audit' });
    try {
      expect(findSection('extra')?.rule).toBe('admin/extra');
      expect(moderatorRules()).toContain('admin/extra');
    } finally {
      registry('admin-sections', (s: { name: string }) => s.name).remove('extra');
    }
  });
});

describe('settings and area seeds', () => {
  it('are the settings of before, in the same order (their weight on a new site follows it)', () => {
    expect(defaultConfig().map((c) => c.name)).toEqual([
      'site_name', 'record_number', 'version', 'time_zone', 'cdn_url', 'api_url', 'head_nav', 'open_member_center', 'open_source_star_dialog',
      'open_source_star_url', 'user_iframe_allow', 'sign_in_score', 'reg_score', 'ask_post_score', 'ask_accept_score', 'market_commission',
      'market_withdraw_min', 'market_package_max_size', 'user_login_captcha', 'user_captcha_types', 'upload_mode', 'upload_max_size',
      'upload_allowed_suffixes', 'upload_allowed_mime_types', 'upload_save_name', 'backup_keep', 'upload_params',
      'message_poll_interval', 'message_poll_connected', 'message_mail_delay', 'message_retention_days',
      'chat_max_question', 'chat_max_messages', 'chat_rate_member', 'chat_rate_ip', 'chat_retrieval_tokens', 'chat_default_model',
      'upload_daily_quota',
    ]);
    expect(areaSeeds().map((s) => s.name)).toEqual(['ask/categories', 'md/guide', 'market/first-party']);
  });
});
