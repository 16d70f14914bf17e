import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { isApprovedDeveloper } from '../../../lib/server/market/developers';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { abortUpload, areaOfKey, completeUpload, listUploadedParts } from '../../../lib/server/upload/cloud-store';
import { MultipartInput } from '../../../lib/shared/validation/upload';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/**
 * The steps of a member's multipart upload that carry no file bytes, made by the server on the
 * store: `list` (the parts already there, to resume), `complete`, `abort` (cancel). `s3` mode, and
 * module packages (the private prefix) in both cloud modes.
 */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, MultipartInput);
  const limited = await uploadLimit(ctx, member.id, 'sign');
  if (limited) return limited;
  const area = areaOfKey(input.key);
  // Only approved developers write to their private prefix (module packages).
  if (area === 'private' && !(await isApprovedDeveloper(ctx.locals.runtime.db, member.id))) throw new AppError('upload.foreignKey', { status: 403 });
  const { store } = await cloudContext(ctx.locals.runtime, area === 'private' ? undefined : 's3');
  if (input.op === 'list') return ok({ parts: await listUploadedParts(store, member.id, input.key, input.uploadId, area) });
  if (input.op === 'complete') {
    await completeUpload(store, member.id, input, area);
    return ok({ key: input.key });
  }
  await abortUpload(store, member.id, input.key, input.uploadId, area);
  return ok({ key: input.key });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: MultipartInput },
});
