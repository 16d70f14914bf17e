// Market input (buying, downloads, reviews, installs), shared by the API and the page scripts.
// Messages are keys of the `market` and `validation` groups.
import { z } from 'zod';
import { MODULE_UID, SEMVER } from '../market';
import { INT_MAX } from './common';

export const MAX_REVIEW = 2_000;
export const MAX_REVIEW_REPLY = 1_000;

const uid = z.string({ error: 'validation.required' }).trim().regex(MODULE_UID, { error: 'market.notFound' });

export const BuyInput = z.object({
  uid,
  pay_type: z.enum(['balance', 'score'], { error: 'market.payType' }),
  nonce: z.string({ error: 'validation.required' }).trim().regex(/^[A-Za-z0-9_-]{8,40}$/, { error: 'validation.required' }),
}).strict();

export const DownloadInput = z.object({
  uid,
  version: z.string().trim().regex(SEMVER, { error: 'market.noPackage' }).optional().or(z.literal('').transform(() => undefined)),
});

export const ReviewInput = z.object({
  uid,
  // A number, or digits from a form; `true`, `[]` or `""` are not ratings (z.coerce would make them 1 or 0).
  rating: z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)], { error: 'market.rating' })
    .pipe(z.number().int({ error: 'market.rating' }).min(1, { error: 'market.rating' }).max(5, { error: 'market.rating' })),
  content: z.string().trim().max(MAX_REVIEW, { error: 'market.reviewLength' }).default(''),
}).strict();

export const ReviewReplyInput = z.object({
  review_id: z.coerce.number({ error: 'validation.required' }).int().positive({ error: 'validation.required' }).max(INT_MAX),
  content: z.string({ error: 'market.replyLength' }).trim().min(1, { error: 'market.replyLength' }).max(MAX_REVIEW_REPLY, { error: 'market.replyLength' }),
}).strict();

export const ReviewsInput = z.object({ uid, page: z.coerce.number().int().min(1).max(10_000).default(1) });

export const UidInput = z.object({ uid }).strict();

/** A lifecycle step on an installed module: `version` for an install or upgrade to a given one. */
export const ModuleStepInput = z.object({
  uid,
  action: z.enum(['install', 'upgrade', 'rollback', 'enable', 'disable', 'uninstall', 'purge']),
  version: z.string().trim().max(20).regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/).optional(),
}).strict();

/**
 * An installed module's settings from the console: `values` by setting key (checked against the
 * manifest by the service); a secret sent empty keeps the one set, `clear` removes secrets (a list,
 * or the console's comma-joined checkboxes).
 */
export const ModuleSettingsInput = z.object({
  uid,
  values: z.record(z.string().max(40), z.union([z.string().max(20_000), z.number(), z.boolean()])).default({}),
  clear: z.union([z.array(z.string().max(40)).max(100), z.string().max(4100).transform((v) => (v ? v.split(',') : []))]).optional(),
}).strict();

export const PageInput = z.object({ page: z.coerce.number().int().min(1).max(10_000).default(1) });

/** `GET /api/market/remote/package`: a version is named (what the list signed). */
export const RemotePackageInput = z.object({ uid, version: z.string().trim().regex(SEMVER, { error: 'market.noPackage' }) });

/** The member center's API tokens: make one (a name to recognise it by) or revoke one. */
export const ApiTokenInput = z.discriminatedUnion('action', [
  z.object({ action: z.literal('create'), name: z.string().trim().min(1, { error: 'market.remote.tokenName' }).max(60, { error: 'market.remote.tokenName' }) }).strict(),
  z.object({ action: z.literal('revoke'), id: z.coerce.number().int().min(1).max(2_147_483_647) }).strict(),
]);

const marketUrl = z.string({ error: 'market.remote.badUrl' }).trim().min(1, { error: 'market.remote.badUrl' }).max(255, { error: 'market.remote.badUrl' });

/**
 * The console's remote markets (`POST /api/admin/remoteMarkets`): read a market's key fingerprint
 * (nothing stored), connect with a member's token pinning the fingerprint the administrator saw,
 * or disconnect one.
 */
export const RemoteMarketInput = z.discriminatedUnion('action', [
  z.object({ action: z.literal('key'), url: marketUrl }).strict(),
  z.object({
    action: z.literal('connect'),
    url: marketUrl,
    token: z.string({ error: 'market.remote.tokenField' }).trim().min(1, { error: 'market.remote.tokenField' }).max(128, { error: 'market.remote.tokenField' }),
    fingerprint: z.string({ error: 'market.remote.fingerprintField' }).trim().toLowerCase().regex(/^[0-9a-f]{64}$/, { error: 'market.remote.fingerprintField' }),
  }).strict(),
  z.object({ action: z.literal('disconnect'), id: z.coerce.number().int().min(1).max(INT_MAX) }).strict(),
]);

/** Install or upgrade a module from a connected market (`POST /api/admin/remoteModules`): the newest offered, or `version`. */
export const RemoteInstallInput = z.object({ uid, version: z.string().trim().regex(SEMVER, { error: 'market.noPackage' }).optional() }).strict();
