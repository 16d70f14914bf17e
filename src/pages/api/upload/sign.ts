import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { isApprovedDeveloper } from '../../../lib/server/market/developers';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { areaOfKey, presignParts } from '../../../lib/server/upload/cloud-store';
import { SignInput } from '../../../lib/shared/validation/upload';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/**
 * Presigned part PUTs (valid 900 s) of one multipart upload in the member's own prefix: `s3` mode,
 * and module packages (the private prefix) in both cloud modes.
 */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, SignInput);
  const limited = await uploadLimit(ctx, member.id, 'sign');
  if (limited) return limited;
  const area = areaOfKey(input.key);
  // Only approved developers write to their private prefix (module packages).
  if (area === 'private' && !(await isApprovedDeveloper(ctx.locals.runtime.db, member.id))) throw new AppError('upload.foreignKey', { status: 403 });
  const { store } = await cloudContext(ctx.locals.runtime, area === 'private' ? undefined : 's3');
  return ok({ urls: await presignParts(store, member.id, input.key, input.uploadId, input.partNumbers, area) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: SignInput },
});
