// The admin console's sections, as a registry: one registration carries the section's URL name, the
// rule a group must hold, its title key, its menu group and the component that draws it (under
// src/components, read by src/pages/admin/[...path].astro). Adding one is one registerAdminSection
// plus its component; the rule is seeded on the next start and administrators (rules `*`) hold it
// at once. A module registers its own at run time.
import { registry } from '../../shared/registry';
import type { SlotName } from '../../shared/module-slots';

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
  /** The view: a component under src/components, without `.astro` (e.g. `admin/Members`). */
  component: string;
  /** The view of one record (/admin/<name>/<id>); without it a second segment answers 404. */
  detail?: string;
  /** A module slot the view holds: the page lists its fills first and hands them to the view as `fills`. */
  slot?: SlotName;
}

export const ADMIN_ROOT_RULE = 'admin';

const sections = registry<AdminSection>('admin-sections', (s) => s.name);

/** Adds a section (a later registration of the same name replaces it). */
export function registerAdminSection(section: AdminSection): void {
  sections.add(section);
}

/** Every section, in registration order (the console's menu order within a group). */
export function adminSections(): AdminSection[] {
  return sections.list();
}

registerAdminSection({ name: 'dashboard', rule: 'admin/dashboard', title: 'admin.section.dashboard', group: 'overview', ruleTitle: '控制台', component: 'admin/Dashboard' });
registerAdminSection({ name: 'members', rule: 'admin/members', title: 'admin.section.members', group: 'people', ruleTitle: '会员管理', component: 'admin/Members', detail: 'admin/Member' });
registerAdminSection({ name: 'groups', rule: 'admin/groups', title: 'admin.section.groups', group: 'people', ruleTitle: '分组与权限', component: 'admin/Groups' });
registerAdminSection({ name: 'settings', rule: 'admin/settings', title: 'admin.section.settings', group: 'site', ruleTitle: '站点设置', component: 'admin/Settings', detail: 'admin/Settings' });
registerAdminSection({ name: 'notices', rule: 'admin/notices', title: 'admin.section.notices', group: 'content', ruleTitle: '站内公告', component: 'admin/Notices' });
registerAdminSection({ name: 'reports', rule: 'admin/reports', title: 'admin.section.reports', group: 'content', ruleTitle: '举报与审核', component: 'admin/Reports' });
registerAdminSection({ name: 'books', rule: 'admin/books', title: 'admin.section.books', group: 'content', ruleTitle: '文档书籍', component: 'admin/Books' });
// The market review existed before the console (rule market/review); it keeps its rule and view.
registerAdminSection({ name: 'market', rule: 'market/review', title: 'admin.section.market', group: 'content', ruleTitle: '市场审核', component: 'user/market/Review' });
registerAdminSection({ name: 'finance', rule: 'admin/finance', title: 'admin.section.finance', group: 'content', ruleTitle: '发票与提现', component: 'admin/Finance' });
registerAdminSection({ name: 'modules', rule: 'admin/modules', title: 'admin.section.modules', group: 'content', ruleTitle: '站点模块', component: 'admin/Modules', slot: 'admin.section' });
registerAdminSection({ name: 'audit', rule: 'admin/audit', title: 'admin.section.audit', group: 'records', ruleTitle: '操作日志', component: 'admin/Audit' });

export const SECTION_GROUPS: readonly SectionGroup[] = ['overview', 'people', 'site', 'content', 'records'];

export function findSection(name: string): AdminSection | null {
  return sections.get(name) ?? null;
}

/** Rule names the console seeds (members never get them by default). */
export function adminRuleNames(): string[] {
  return [ADMIN_ROOT_RULE, ...adminSections().map((s) => s.rule).filter((r) => r.startsWith('admin/'))];
}
