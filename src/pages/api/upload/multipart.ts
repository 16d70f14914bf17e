import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { abortUpload, completeUpload, listUploadedParts } from '../../../lib/server/upload/cloud-store';
import { MultipartInput } from '../../../lib/shared/validation/upload';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/**
 * The steps of a member's multipart upload that carry no file bytes, made by the server on the
 * store: `list` (the parts already there, to resume), `complete`, `abort` (cancel).
 */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, MultipartInput);
  const limited = await uploadLimit(ctx, member.id, 'sign');
  if (limited) return limited;
  const { store } = await cloudContext(ctx.locals.runtime, 's3');
  if (input.op === 'list') return ok({ parts: await listUploadedParts(store, member.id, input.key, input.uploadId) });
  if (input.op === 'complete') {
    await completeUpload(store, member.id, input);
    return ok({ key: input.key });
  }
  await abortUpload(store, member.id, input.key, input.uploadId);
  return ok({ key: input.key });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: MultipartInput },
});
