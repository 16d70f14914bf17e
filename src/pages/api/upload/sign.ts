import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { presignParts } from '../../../lib/server/upload/cloud-store';
import { SignInput } from '../../../lib/shared/validation/upload';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/** Presigned part PUTs (valid 900 s) of one multipart upload in the member's own prefix. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, SignInput);
  const limited = await uploadLimit(ctx, member.id, 'sign');
  if (limited) return limited;
  const { store } = await cloudContext(ctx.locals.runtime, 's3');
  return ok({ urls: await presignParts(store, member.id, input.key, input.uploadId, input.partNumbers) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: SignInput },
});
