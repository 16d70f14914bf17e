import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { config, userGroup, userRule } from '../db/schema';
import { ADMIN_ROOT_RULE, adminRuleNames, adminSections } from '../admin/sections';
import { defaultConfig, registerSettings, type ConfigSeed } from '../seeds';
import { memberMenus, memberModeratorRules, memberPages, type MemberPage } from '../../shared/member-pages';

export const VERSION = 'v0.1.0';
/** Group ids every site has: new members join MEMBER_GROUP; ADMIN_GROUP's rules are `*`. */
export const MEMBER_GROUP = 1;
export const ADMIN_GROUP = 2;

/** The head navigation a new site starts with: titles per locale, app paths. */
export const DEFAULT_HEAD_NAV = [
  { title: { 'zh-cn': '社区', en: 'Community' }, url: '/ask' },
  { title: { 'zh-cn': '文档', en: 'Docs' }, url: '/md' },
  { title: { 'zh-cn': '模块市场', en: 'Modules' }, url: '/modules' },
  { title: { 'zh-cn': 'AI 对话', en: 'AI Chat' }, url: '/chat' },
];

/** The site's own settings and those of the areas that predate the settings registry (lib/server/seeds.ts). */
const SITE_CONFIG: ConfigSeed[] = [
  { name: 'site_name', group: 'basics', title: 'Site name', type: 'string', value: 'Atrium' },
  { name: 'record_number', group: 'basics', title: 'Record number', type: 'string', value: '' },
  { name: 'version', group: 'basics', title: 'Version', type: 'string', value: VERSION },
  { name: 'time_zone', group: 'basics', title: 'Time zone', type: 'string', value: 'Asia/Shanghai' },
  { name: 'cdn_url', group: 'basics', title: 'CDN URL', type: 'string', value: '', tip: 'Empty: this host' },
  { name: 'api_url', group: 'basics', title: 'API URL', type: 'string', value: '', tip: 'Empty: this host' },
  { name: 'head_nav', group: 'basics', title: 'Head navigation', type: 'json', value: JSON.stringify(DEFAULT_HEAD_NAV) },
  { name: 'open_member_center', group: 'basics', title: 'Member center open', type: 'switch', value: '1' },
  { name: 'open_source_star_dialog', group: 'basics', title: 'Open-source star dialog', type: 'switch', value: '0' },
  { name: 'open_source_star_url', group: 'basics', title: 'Repository the star dialog links to', type: 'string', value: '' },
  { name: 'user_iframe_allow', group: 'user', title: 'Origins member-center iframe menus may embed', type: 'string', value: '', tip: 'Comma-separated, e.g. https://docs.example.com' },
  { name: 'sign_in_score', group: 'user', title: 'Points for a daily check-in', type: 'number', value: '10' },
  { name: 'reg_score', group: 'user', title: 'Points for signing up', type: 'number', value: '0' },
  { name: 'ask_post_score', group: 'ask', title: 'Points for publishing a post', type: 'number', value: '2' },
  { name: 'ask_accept_score', group: 'ask', title: 'Points for an accepted answer', type: 'number', value: '15' },
  { name: 'market_commission', group: 'market', title: 'Platform commission on module sales (percent)', type: 'number', value: '15' },
  { name: 'market_withdraw_min', group: 'market', title: 'Smallest withdrawal a developer may request (yuan)', type: 'string', value: '100.00' },
  { name: 'market_package_max_size', group: 'market', title: 'Largest module package', type: 'string', value: '20mb' },
  { name: 'user_login_captcha', group: 'user', title: 'Captcha at login', type: 'switch', value: '1' },
  { name: 'user_captcha_types', group: 'user', title: 'Captchas offered', type: 'string', value: 'both', tip: 'both, click or pow' },
  { name: 'upload_mode', group: 'upload', title: 'Upload mode', type: 'string', value: 'local' },
  { name: 'upload_max_size', group: 'upload', title: 'Maximum upload size', type: 'string', value: '10mb' },
  { name: 'upload_allowed_suffixes', group: 'upload', title: 'Allowed suffixes', type: 'string', value: 'jpg,png,bmp,jpeg,gif,webp,zip,rar,wav,mp4,mp3' },
  { name: 'upload_allowed_mime_types', group: 'upload', title: 'Allowed MIME types', type: 'string', value: '' },
  { name: 'upload_save_name', group: 'upload', title: 'Save name template', type: 'string', value: '/storage/{topic}/{year}{mon}{day}/{fileName}{fileSha1}{.suffix}' },
  { name: 'backup_keep', group: 'backup', title: 'Nightly backups kept (0: no nightly backup)', type: 'number', value: '0', tip: 'Written to DATA_DIR/backups after 03:00 site time' },
  { name: 'upload_params', group: 'upload', title: 'Upload parameters', type: 'json', value: '{}', tip: 'A numeric "error" (with "message") rejects every upload with that code' },
];
registerSettings({ name: 'site', order: 10, rows: SITE_CONFIG });
// The messages (order 20, messages/settings.ts) and chat (30, chat/settings.ts) settings come
// between; this one was added after them.
registerSettings({ name: 'upload-quota', order: 40, rows: [
  { name: 'upload_daily_quota', group: 'upload', title: 'Upload quota per member per day (cloud modes)', type: 'string', value: '0', tip: 'e.g. 2gb; 0 = no limit' },
] });

interface RuleSeed {
  type: (typeof userRule.$inferInsert)['type'];
  extend?: string;
  name: string;
  title: string;
  path?: string;
  menuType?: string;
  icon?: string;
  children?: RuleSeed[];
}

/** The member center's rules, from the registered pages (lib/shared/member-pages/): each menu folder with its pages, then the pages of no folder. */
export function memberCenterRules(): RuleSeed[] {
  const pageRule = (p: MemberPage): RuleSeed => ({
    type: p.kind ?? 'menu', name: p.path, title: p.title, path: p.path, ...(p.icon ? { icon: p.icon } : {}),
    ...(p.buttons?.length ? { children: p.buttons.map((b): RuleSeed => ({ type: 'button', name: b.name, title: b.title, path: '' })) } : {}),
  });
  const pages = memberPages();
  return [
    ...memberMenus().map((m): RuleSeed => ({ type: 'menu_dir', name: m.name, title: m.title, path: m.name, icon: m.icon, children: pages.filter((p) => p.menu === m.name).map(pageRule) })),
    ...pages.filter((p) => !p.menu).map(pageRule),
  ];
}

/**
 * The rule tree: the member-center menu (one entry per /user child of spec §2, as registered when
 * the seed runs), then the rules of what members do elsewhere.
 */
const defaultRules = (): RuleSeed[] => [
  ...memberCenterRules(),
  // Creating docs books and running one's own from /md/edit (administrators hold it through `*`).
  { type: 'route', name: 'md/book', title: '创建与管理文档书籍', path: '/md/edit', extend: 'add_rules_only' },
  // The admin console (/admin): one rule per section, never shown as member-center menus.
  { type: 'route', name: ADMIN_ROOT_RULE, title: '管理后台', path: '/admin', extend: 'add_rules_only', children: adminSections()
    .filter((s) => s.rule.startsWith('admin/'))
    .map((s) => ({ type: 'route' as const, name: s.rule, title: s.ruleTitle, path: `/admin/${s.name}`, extend: 'add_rules_only' })) },
  // What members do outside the member center, each a rule API routes declare (access.rule): a
  // group without one gets 401 from those calls. Never shown as menus.
  { type: 'route', name: 'forum', title: '社区互动', path: '/ask', extend: 'add_rules_only', children: [
    { type: 'route', name: 'forum/post', title: '发帖与回复', path: '/ask/post', extend: 'add_rules_only' },
    { type: 'route', name: 'forum/interact', title: '点赞、收藏与举报', path: '/ask', extend: 'add_rules_only' },
  ] },
  { type: 'route', name: 'docs', title: '文档', path: '/md', extend: 'add_rules_only', children: [
    { type: 'route', name: 'docs/edit', title: '编辑文档', path: '/md/edit', extend: 'add_rules_only' },
  ] },
  { type: 'route', name: 'chat', title: 'AI 对话', path: '/chat', extend: 'add_rules_only', children: [
    { type: 'route', name: 'chat/history', title: '保存的对话', path: '/chat', extend: 'add_rules_only' },
  ] },
  { type: 'nav_user_menu', name: 'userCenter', title: '会员中心', path: '/user', menuType: 'tab' },
  { type: 'nav_user_menu', name: 'messageCenter', title: '消息中心', path: '/user/messageCenter', menuType: 'tab' },
];

const now = (): number => Math.floor(Date.now() / 1000);

/** Rules members do not get by default: the report list, the moderation button, the market review, creating books, the console. */
export const moderatorRules = (): string[] => [...memberModeratorRules(), 'md/book', ...adminRuleNames()];

/**
 * Fills an empty database with the defaults a new site needs. Idempotent: existing rows are
 * never touched, so an operator's changes survive. Returns one line per thing it did.
 */
export async function seedDefaults(db: Db): Promise<string[]> {
  const done: string[] = [];
  const existing = new Set((await db.select({ name: config.name }).from(config)).map((r) => r.name));
  const missing = defaultConfig().filter((c) => !existing.has(c.name));
  if (missing.length) {
    await db.insert(config).values(missing.map((c, i) => ({ ...c, weigh: 100 - i, updateTime: now() }))).onConflictDoNothing();
    done.push(`config: added ${missing.map((c) => c.name).join(', ')}`);
  }
  // The rule tree: a new site gets all of it; an existing one gets the rules a newer version added
  // (matched by name), without touching the operator's changes to the others.
  const existingRules = new Map((await db.select({ id: userRule.id, name: userRule.name, type: userRule.type }).from(userRule)).map((r) => [`${r.type}:${r.name}`, r.id]));
  const fresh = existingRules.size === 0;
  const addedRules: { id: number; name: string; pid: number }[] = [];
  const insertTree = async (nodes: RuleSeed[], pid: number): Promise<void> => {
    for (const [i, node] of nodes.entries()) {
      let id = existingRules.get(`${node.type}:${node.name}`);
      if (id === undefined) {
        const [row] = await db.insert(userRule).values({
          pid, type: node.type, name: node.name, title: node.title, path: node.path ?? node.name,
          icon: node.icon ?? '', menuType: node.menuType ?? 'tab', weigh: 100 - i, status: 1, extend: node.extend ?? 'none', system: 1,
          createTime: now(), updateTime: now(),
        }).returning({ id: userRule.id });
        id = row!.id;
        addedRules.push({ id, name: node.name, pid });
      }
      if (node.children) await insertTree(node.children, id);
    }
  };
  await insertTree(defaultRules(), 0);
  if (addedRules.length) done.push(fresh ? `user_rule: added the member-center menu (${addedRules.length} rules)` : `user_rule: added ${addedRules.map((r) => r.name).join(', ')}`);
  const MODERATOR_RULES = moderatorRules();
  if (!fresh && addedRules.length) {
    // What a newer version adds keeps what each group could do (BuildAdmin's rule): a new rule goes
    // to every group holding its parent, and a new top-level rule (a capability that was open to
    // every member before it had a rule, like posting or saved chats) to every group. Moderator
    // rules stay with the groups an operator chose; the member group gets every other new rule.
    const groups = await db.select({ id: userGroup.id, rules: userGroup.rules }).from(userGroup);
    for (const group of groups) {
      if (group.rules.trim() === '*') continue;
      const held = new Set(group.rules.split(',').map((r) => Number(r)).filter((n) => n > 0));
      const add: number[] = [];
      for (const rule of addedRules) {
        if (MODERATOR_RULES.includes(rule.name)) continue;
        if (group.id === MEMBER_GROUP || rule.pid === 0 || held.has(rule.pid)) {
          add.push(rule.id);
          held.add(rule.id);
        }
      }
      if (add.length) await db.update(userGroup).set({ rules: [group.rules, ...add].filter(Boolean).join(','), updateTime: now() }).where(eq(userGroup.id, group.id));
    }
  }
  const [{ count: groupCount } = { count: 0 }] = await db.select({ count: sql<number>`count(*)::int` }).from(userGroup);
  if (groupCount === 0) {
    // Members get the rules that exist now, by id, except moderation; administrators get every
    // rule, present and future.
    const ids = (await db.select({ id: userRule.id, name: userRule.name }).from(userRule))
      .filter((r) => !MODERATOR_RULES.includes(r.name)).map((r) => r.id).join(',');
    await db.insert(userGroup).values([
      { id: MEMBER_GROUP, name: '默认分组', nameEn: 'Members', rules: ids, status: 1, createTime: now(), updateTime: now() },
      { id: ADMIN_GROUP, name: '管理员', nameEn: 'Administrators', rules: '*', status: 1, createTime: now(), updateTime: now() },
    ]);
    await db.execute(sql`select setval(pg_get_serial_sequence('user_group', 'id'), (select max(id) from user_group))`);
    done.push('user_group: added the member group and the administrator group');
  }
  return done;
}
