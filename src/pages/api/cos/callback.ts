import type { APIContext } from 'astro';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, probeImage, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { finishCloudUpload, StoreRefused } from '../../../lib/server/upload/cloud-store';
import { fileReply } from '../../../lib/server/upload/storage';
import { checkPackage, checkStoredPackage, PACKAGE_TOPIC } from '../../../lib/server/upload/cloud-packages';
import { requireDeveloper } from '../../../lib/server/market/studio';
import { CallbackInput } from '../../../lib/shared/validation/upload';
import { translateAny, translator } from '../../../lib/i18n';

/**
 * `POST /api/Cos/callback` (and `/api/s3/callback`): records a finished direct upload after the
 * store shows the object under this member's prefix with the declared size; same reply as local uploads.
 * A module package (topic `package`) must lie in the member's private prefix and be a zip archive.
 */
export const POST = api((ctx) => recordUpload(ctx).catch((err: unknown) => {
  if (err instanceof StoreRefused) ctx.locals.runtime.log.error('cloud store refused the upload callback', { error: err.reason instanceof Error ? err.reason.message : String(err.reason) });
  throw err;
}));

async function recordUpload(ctx: APIContext): Promise<Response> {
  const member = requireUser(ctx);
  const input = await readInput(ctx, CallbackInput);
  const limited = await uploadLimit(ctx, member.id, 'sign');
  if (limited) return limited;
  const { runtime, apiLocale } = ctx.locals;
  const { rules, store } = await cloudContext(runtime);
  if (input.topic === PACKAGE_TOPIC) {
    await requireDeveloper(runtime.db, member.id);
    const maxSize = await checkPackage(runtime, input);
    const packageRules = { ...rules, maxSize, allowedSuffixes: 'zip', allowedMimeTypes: '' };
    const row = await finishCloudUpload(runtime.db, store, member.id, input, packageRules, probeImage, 'private', (key) => checkStoredPackage(store, key, input.size, apiLocale));
    return ok({ file: fileReply(row, store) }, translateAny(apiLocale, 'devstudio.package.uploaded'));
  }
  const row = await finishCloudUpload(runtime.db, store, member.id, input, rules, probeImage);
  return ok({ file: fileReply(row, store) }, translator(apiLocale, 'upload')('upload.success'));
}

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: CallbackInput },
});
