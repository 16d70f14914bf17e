// Developer verification and market review input, shared by the API and the forms. Messages are
// keys of the `developer` and `validation` groups.
import { z } from 'zod';
import { email, mobile } from './account';
import { isValidIdNumber } from './idcard';
import { INT_MAX, NAME_SPOOF_CHARS } from './common';

/** Division codes as `/api/ajax/area` gives them: a province has 2 digits, its cities 4 starting with those 2. */
export const PROVINCE_CODE = /^\d{2}$/;
export const CITY_CODE = /^\d{4}$/;
export const MAX_REASON = 255;

export const DeveloperApplyInput = z.object({
  real_name: z.string({ error: 'developer.field.realName' }).trim()
    .min(2, { error: 'developer.field.realName' }).max(30, { error: 'developer.field.realName' })
    .regex(/^[^<>"'&`\u0000-\u001f]+$/u, { error: 'developer.field.realName' })
    .refine((v) => !NAME_SPOOF_CHARS.test(v), { error: 'validation.nameInvisible' }),
  id_number: z.string({ error: 'developer.field.idNumber' }).trim()
    .refine((v) => isValidIdNumber(v), { error: 'developer.field.idNumber' })
    .transform((v) => v.toUpperCase()),
  mobile,
  email,
  province: z.string({ error: 'developer.field.province' }).trim().regex(PROVINCE_CODE, { error: 'developer.field.province' }),
  city: z.string({ error: 'developer.field.city' }).trim().regex(CITY_CODE, { error: 'developer.field.city' }),
  intro: z.string({ error: 'developer.field.intro' }).trim().min(10, { error: 'developer.field.intro' }).max(1000, { error: 'developer.field.intro' }),
}).strict().superRefine((v, ctx) => {
  if (PROVINCE_CODE.test(v.province) && CITY_CODE.test(v.city) && v.city.slice(0, 2) !== v.province.slice(0, 2)) {
    ctx.addIssue({ code: 'custom', path: ['city'], message: 'developer.field.city' });
  }
});
export type DeveloperApply = z.output<typeof DeveloperApplyInput>;

export const REVIEW_TYPES = ['developer', 'module', 'version'] as const;
export type ReviewType = (typeof REVIEW_TYPES)[number];

/** An operator's decision: `id` is the member id for a developer, else the module or version id. */
export const ReviewDecisionInput = z.object({
  type: z.enum(REVIEW_TYPES),
  id: z.coerce.number({ error: 'validation.required' }).int().positive({ error: 'validation.required' }).max(INT_MAX),
  approve: z.boolean(),
  reason: z.string().trim().max(MAX_REASON, { error: 'developer.field.reasonLong' }).default(''),
}).strict().superRefine((v, ctx) => {
  if (!v.approve && !v.reason) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'developer.field.reason' });
});

/** A mainland mobile number as members see it: `138****8000`. */
export function maskMobile(value: string): string {
  return value.length === 11 ? `${value.slice(0, 3)}****${value.slice(-4)}` : '*'.repeat(value.length);
}
