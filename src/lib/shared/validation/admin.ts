// Input of the first-start setup, password resets and the admin console: shared by the API and the
// forms so both say the same thing. Messages are i18n keys.
import { z } from 'zod';
import { email, password, username } from './account';

const NO_CONTROL = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/u;
const ID = z.coerce.number({ error: 'validation.required' }).int().min(1).max(2_147_483_647);
const text = (max: number) => z.string({ error: 'validation.required' }).trim().max(max).regex(NO_CONTROL, { error: 'admin.field.control' });
const required = (max: number) => text(max).min(1, { error: 'validation.required' });

export const InstallInput = z.object({
  token: z.string().min(1).max(100),
  username,
  email,
  password,
  site_name: required(50),
}).strict();

export const ResetPasswordInput = z.object({ token: z.string().min(1).max(100), password }).strict();

export const PageInput = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1) });

export const MemberSearchInput = PageInput.extend({ q: text(100).optional(), group: z.coerce.number().int().min(0).max(2_147_483_647).optional() });

export const MemberIdInput = z.object({ id: ID }).strict();

/** One member in the console; `login_page` pages their login history. */
export const MemberDetailInput = z.object({ id: ID, login_page: z.coerce.number().int().min(1).max(100_000).default(1) }).strict();

export const MemberGroupInput = z.object({ id: ID, group_id: ID }).strict();

export const MemberStatusInput = z.object({ id: ID, status: z.enum(['enable', 'disable']) }).strict();

export const MemberAdjustInput = z.object({
  id: ID,
  kind: z.enum(['money', 'score']),
  amount: z.string({ error: 'validation.required' }).trim().regex(/^-?\d{1,9}(\.\d{1,2})?$/, { error: 'admin.member.amountFormat' })
    .refine((v) => Number(v) !== 0, { error: 'admin.member.amountFormat' }),
  memo: required(100),
}).strict().superRefine((v, ctx) => {
  if (v.kind === 'score' && !/^-?\d+$/.test(v.amount)) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'admin.member.scoreWhole' });
});

export const SettingsInput = z.object({ values: z.record(z.string().max(30), z.string().max(20_000)) }).strict();

export const NoticeInput = z.object({ id: z.coerce.number().int().min(0).max(2_147_483_647).default(0), title: required(100), content: required(5000) }).strict();

export const NoticeStatusInput = z.object({ id: ID, status: z.coerce.number().int().min(0).max(1) }).strict();

export const DecideInput = z.object({
  id: ID,
  decision: z.enum(['approve', 'reject']),
  remark: text(200).default(''),
}).strict().superRefine((v, ctx) => {
  if (v.decision === 'reject' && !v.remark) ctx.addIssue({ code: 'custom', path: ['remark'], message: 'admin.reasonRequired' });
});

/**
 * Closes an open report (dismiss, or remove the content) or undoes a removal (`restore`, on a report
 * closed as resolved). `reason` is what the author is told; without it, the reporter's reason.
 */
export const ReportCloseInput = z.object({ id: ID, action: z.enum(['dismiss', 'remove', 'restore']), reason: text(300).default('') }).strict();

export const ModuleInput = z.object({ uid: z.string().trim().regex(/^[a-z][a-z0-9_-]{1,49}$/), install: z.coerce.number().int().min(0).max(1) }).strict();

export const AuditInput = PageInput.extend({
  action: text(60).optional(),
  actor: text(50).optional(),
  q: text(100).optional(),
});

/** A group's names: zh-cn (required) and English (empty: the zh-cn name is shown). */
const GroupNames = z.object({ name: required(50), name_en: text(50).default('') });
/** Rule ids, comma-separated (the rule picker's checked boxes). */
const RuleIds = z.string().max(20_000).regex(/^(\d{1,9}(,\d{1,9})*)?$/, { error: 'admin.groups.unknownRule' }).default('');

export const GroupCreateInput = GroupNames.extend({ rules: RuleIds }).strict();
export const GroupRenameInput = GroupNames.extend({ id: ID }).strict();
export const GroupCopyInput = GroupNames.extend({ id: ID }).strict();
export const GroupDeleteInput = z.object({ id: ID, move_to: ID }).strict();
export const GroupRulesInput = z.object({ id: ID, rules: RuleIds }).strict();

/** The ids of a RuleIds value. */
export function ruleIdList(rules: string): number[] {
  return rules ? rules.split(',').map(Number) : [];
}

/** A rule of the tree as the console edits it (BuildAdmin's field names). */
const SLUG = /^[A-Za-z0-9_][A-Za-z0-9_/.-]{0,49}$/;
/** An app path (`/md`, not `//host`) or an http(s) URL; empty: none. */
const TARGET = /^(\/(?!\/)[^\s]*|https?:\/\/[^\s/]+[^\s]*)?$/;
export const RuleInput = z.object({
  pid: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
  type: z.enum(['route', 'menu_dir', 'menu', 'nav_user_menu', 'nav', 'button']),
  title: required(50),
  title_en: text(50).default(''),
  name: text(50).regex(SLUG, { error: 'admin.rules.nameFormat' }),
  path: text(100).regex(/^[^\s]*$/, { error: 'admin.rules.pathFormat' }).default(''),
  icon: text(50).default(''),
  menu_type: z.enum(['tab', 'link', 'iframe']).default('tab'),
  url: text(255).regex(TARGET, { error: 'admin.rules.urlFormat' }).default(''),
  extend: z.enum(['none', 'add_rules_only', 'add_menu_only']).default('none'),
  redirect: text(255).regex(TARGET, { error: 'admin.rules.urlFormat' }).default(''),
  no_login_valid: z.coerce.number().int().min(0).max(1).default(0),
  remark: text(255).default(''),
});
export const RuleCreateInput = RuleInput.strict();
export const RuleEditInput = RuleInput.extend({ id: ID }).strict();
export const RuleIdInput = z.object({ id: ID }).strict();
export const RuleStatusInput = z.object({ id: ID, status: z.coerce.number().int().min(0).max(1) }).strict();
/** Siblings in their new order (the console's drag and its move up/down buttons send the same). */
export const RuleSortInput = z.object({ pid: z.coerce.number().int().min(0).max(2_147_483_647), ids: RuleIds }).strict();

/**
 * Select search (spec §7): any list URL with `select=true` and `quickSearch` answers the
 * remote-select shape `{list: [{id, label}], total}`, a page at a time (`page`, `limit` ≤ 50).
 */
export const SelectInput = z.object({
  select: z.enum(['true', '1']),
  quickSearch: text(100).default(''),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(50).default(10),
  extras: text(200).optional(),
});
