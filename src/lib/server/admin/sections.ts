// The admin console's sections. Adding one is one entry here (its rule, title key, group) plus its
// view in src/components/admin/ and its line in src/pages/admin/[...section].astro's VIEWS map;
// the rule is seeded on the next start and administrators (rules `*`) hold it at once.

export type SectionGroup = 'overview' | 'people' | 'site' | 'content' | 'records';

export interface AdminSection {
  /** URL segment: /admin/<name>. */
  name: string;
  /** The rule (user_rule name) a group must hold to see the section and call its API. */
  rule: string;
  /** i18n key (group `admin`) of the title. */
  title: string;
  group: SectionGroup;
  /** Title of the seeded rule (as the member center's rule tree shows it). */
  ruleTitle: string;
}

export const ADMIN_ROOT_RULE = 'admin';

export const ADMIN_SECTIONS: readonly AdminSection[] = [
  { name: 'dashboard', rule: 'admin/dashboard', title: 'admin.section.dashboard', group: 'overview', ruleTitle: '控制台' },
  { name: 'members', rule: 'admin/members', title: 'admin.section.members', group: 'people', ruleTitle: '会员管理' },
  { name: 'groups', rule: 'admin/groups', title: 'admin.section.groups', group: 'people', ruleTitle: '分组与权限' },
  { name: 'settings', rule: 'admin/settings', title: 'admin.section.settings', group: 'site', ruleTitle: '站点设置' },
  { name: 'notices', rule: 'admin/notices', title: 'admin.section.notices', group: 'content', ruleTitle: '站内公告' },
  { name: 'reports', rule: 'admin/reports', title: 'admin.section.reports', group: 'content', ruleTitle: '举报与审核' },
  { name: 'books', rule: 'admin/books', title: 'admin.section.books', group: 'content', ruleTitle: '文档书籍' },
  // The market review existed before the console (rule market/review); it keeps its rule.
  { name: 'market', rule: 'market/review', title: 'admin.section.market', group: 'content', ruleTitle: '市场审核' },
  { name: 'finance', rule: 'admin/finance', title: 'admin.section.finance', group: 'content', ruleTitle: '发票与提现' },
  { name: 'modules', rule: 'admin/modules', title: 'admin.section.modules', group: 'content', ruleTitle: '站点模块' },
  { name: 'audit', rule: 'admin/audit', title: 'admin.section.audit', group: 'records', ruleTitle: '操作日志' },
];

export const SECTION_GROUPS: readonly SectionGroup[] = ['overview', 'people', 'site', 'content', 'records'];

export function findSection(name: string): AdminSection | null {
  return ADMIN_SECTIONS.find((s) => s.name === name) ?? null;
}

/** Rule names the console seeds (members never get them by default). */
export const ADMIN_RULE_NAMES: readonly string[] = [ADMIN_ROOT_RULE, ...ADMIN_SECTIONS.map((s) => s.rule).filter((r) => r.startsWith('admin/'))];
