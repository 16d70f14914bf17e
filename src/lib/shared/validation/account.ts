// Validation of member input, shared by the API and the forms (spec §5). Messages are i18n keys of
// the `validation` group: the server and the browser say the same thing in the same words.
import { isTimeZone } from '../date';
import { z } from 'zod';
import { INT_MAX, NAME_SPOOF_CHARS } from './common';

export const USERNAME = /^[a-zA-Z][a-zA-Z0-9_]{2,14}$/;
export const PASSWORD = /^(?!.*[&<>"'\n\r]).{6,32}$/s;
export const MOBILE = /^1[3-9]\d{9}$/;
export const EMAIL = /^[^\s@<>"']{1,64}@[^\s@<>"']+\.[A-Za-z]{2,}$/;

export const username = z.string({ error: 'validation.required' }).trim().regex(USERNAME, { error: 'validation.username' });
export const password = z.string({ error: 'validation.required' }).regex(PASSWORD, { error: 'validation.password' });
export const email = z.string({ error: 'validation.required' }).trim().max(100, { error: 'validation.email' }).regex(EMAIL, { error: 'validation.email' });
export const mobile = z.string({ error: 'validation.required' }).trim().regex(MOBILE, { error: 'validation.mobile' });
export const code = z.string({ error: 'validation.required' }).trim().min(4, { error: 'validation.code' }).max(8, { error: 'validation.code' });

/** The kind of account a login name is: mobile, then e-mail, then username (BuildAdmin's order). */
export function accountKind(account: string): 'mobile' | 'email' | 'username' | null {
  if (MOBILE.test(account)) return 'mobile';
  if (EMAIL.test(account)) return 'email';
  if (USERNAME.test(account)) return 'username';
  return null;
}

export const CODE_EVENTS = ['user_register', 'user_retrieve_pwd', 'user_change_email', 'user_change_mobile', 'user_email_verify', 'user_mobile_verify'] as const;
export type CodeEvent = (typeof CODE_EVENTS)[number];

export const LoginInput = z.object({
  tab: z.literal('login'),
  username: z.string({ error: 'validation.required' }).trim().min(1, { error: 'validation.required' }).max(100),
  password: z.string({ error: 'validation.required' }).min(1, { error: 'validation.required' }).max(64),
  keep: z.union([z.boolean(), z.literal(0), z.literal(1), z.literal('0'), z.literal('1')]).optional(),
  captchaId: z.string().max(64).optional(),
  captchaInfo: z.string().max(200).optional(),
  /** A solved proof-of-work challenge (ALTCHA's payload), the captcha without pictures. */
  altcha: z.string().max(2000).optional(),
}).strict();

export const RegisterInput = z.object({
  tab: z.literal('register'),
  username,
  password,
  registerType: z.enum(['email', 'mobile']),
  email: z.string().trim().max(100).optional(),
  mobile: z.string().trim().max(11).optional(),
  captcha: code,
  keep: z.union([z.boolean(), z.literal(0), z.literal(1), z.literal('0'), z.literal('1')]).optional(),
}).strict().superRefine((v, ctx) => {
  if (v.registerType === 'email' && !EMAIL.test(v.email ?? '')) ctx.addIssue({ code: 'custom', path: ['email'], message: 'validation.email' });
  if (v.registerType === 'mobile' && !MOBILE.test(v.mobile ?? '')) ctx.addIssue({ code: 'custom', path: ['mobile'], message: 'validation.mobile' });
});

export const ChangePasswordInput = z.object({ oldPassword: z.string().min(1, { error: 'validation.required' }).max(64), newPassword: password }).strict();

/** Profile fields a member edits; `id` is accepted for BuildAdmin clients but the server uses the session's. */
export const ProfileInput = z.object({
  id: z.union([z.number(), z.string()]).optional(),
  // Only files this site stored: an uploaded path, never a traversal; in a cloud upload mode the
  // object's URL under a member prefix (the server checks the member uploaded it).
  avatar: z.string().trim().max(255).regex(/^(?:\/storage\/(?!.*\.\.)[^\s"'<>\\?#]+|https?:\/\/[^\s"'<>\\?#/]+\/(?!.*\.\.)(?:[^\s"'<>\\?#]*\/)?uploads\/\d+\/[^\s"'<>\\?#]+)?$/u, { error: 'validation.avatar' }).optional(),
  username: username.optional(),
  nickname: z.string({ error: 'validation.required' }).trim().min(1, { error: 'validation.nickname' }).max(50, { error: 'validation.nickname' })
    .regex(/^[^<>"'&\u0000-\u001f]+$/u, { error: 'validation.nickname' })
    // Bidi overrides and zero-width characters make one name read as another.
    .refine((v) => !NAME_SPOOF_CHARS.test(v), { error: 'validation.nameInvisible' }),
  gender: z.coerce.number().int().min(0).max(2).default(0),
  birthday: z.union([z.literal(''), z.null(), z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'validation.birthday' })]).optional(),
  motto: z.string().trim().max(255).optional(),
  /** An IANA zone to read times in, or '' for the site's. */
  time_zone: z.string().trim().max(64).refine((v) => v === '' || isTimeZone(v), { error: 'validation.timeZone' }).optional(),
}).strict();

export const RetrievePasswordInput = z.object({
  type: z.enum(['email', 'mobile']),
  account: z.string({ error: 'validation.required' }).trim().min(1, { error: 'validation.required' }).max(100),
  captcha: code,
  password,
}).strict().superRefine((v, ctx) => {
  if (v.type === 'email' && !EMAIL.test(v.account)) ctx.addIssue({ code: 'custom', path: ['account'], message: 'validation.email' });
  if (v.type === 'mobile' && !MOBILE.test(v.account)) ctx.addIssue({ code: 'custom', path: ['account'], message: 'validation.mobile' });
});

export const VerificationInput = z.object({ type: z.enum(['email', 'mobile']), captcha: code }).strict();

export const ChangeBindInput = z.object({
  type: z.enum(['email', 'mobile']),
  captcha: code,
  email: z.string().trim().max(100).optional(),
  mobile: z.string().trim().max(11).optional(),
  accountVerificationToken: z.string().max(100).optional(),
  password: z.string().max(64).optional(),
}).strict().superRefine((v, ctx) => {
  if (v.type === 'email' && !EMAIL.test(v.email ?? '')) ctx.addIssue({ code: 'custom', path: ['email'], message: 'validation.email' });
  if (v.type === 'mobile' && !MOBILE.test(v.mobile ?? '')) ctx.addIssue({ code: 'custom', path: ['mobile'], message: 'validation.mobile' });
});

export const InvoiceInput = z.object({
  /** Decimal string or number of yuan, e.g. "12.50". */
  amount: z.union([z.string(), z.number()]).transform((v) => String(v).trim())
    .pipe(z.string().regex(/^[+-]?(\d+(\.\d*)?|\.\d+)$/, { error: 'validation.float' }).regex(/^\d{1,9}(\.\d{1,2})?$/, { error: 'validation.amount' })),
  title: z.string({ error: 'validation.required' }).trim().min(2, { error: 'validation.invoiceTitle' }).max(120, { error: 'validation.invoiceTitle' }),
  tax_id: z.string().trim().max(30).regex(/^[0-9A-Z]{0,30}$/, { error: 'validation.taxId' }).optional(),
  email,
  /** A module order paid from the balance, when the request is for that order. */
  order_id: z.coerce.number().int().min(0).max(INT_MAX).optional(),
}).strict();
