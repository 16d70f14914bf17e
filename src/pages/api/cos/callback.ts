import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, probeImage, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { cloudFileReply, finishCloudUpload } from '../../../lib/server/upload/cloud-store';
import { CallbackInput } from '../../../lib/shared/validation/upload';
import { translator } from '../../../lib/i18n';

/**
 * `POST /api/Cos/callback` (and `/api/s3/callback`): records a finished direct upload after the
 * store shows the object under this member's prefix with the declared size; same reply as local uploads.
 */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, CallbackInput);
  const limited = await uploadLimit(ctx, member.id, 'sign');
  if (limited) return limited;
  const { rules, store } = await cloudContext(ctx.locals.runtime);
  const row = await finishCloudUpload(ctx.locals.runtime.db, store, member.id, input, rules, probeImage);
  return ok({ file: cloudFileReply(row, store) }, translator(ctx.locals.apiLocale, 'upload')('upload.success'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: CallbackInput },
});
