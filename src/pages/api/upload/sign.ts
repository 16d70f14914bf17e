import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { presignCall, presignParts } from '../../../lib/server/upload/cloud-store';
import { SignInput } from '../../../lib/shared/validation/upload';

/** Presigned calls (parts, list parts, complete, abort) of one multipart upload in the member's own prefix. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, SignInput);
  const limited = await uploadLimit(ctx, member.id, 'sign');
  if (limited) return limited;
  const { store } = await cloudContext(ctx.locals.runtime, 's3');
  if (input.op === 'part') {
    if (!input.partNumbers) throw new AppError('api.invalidInput', { fieldKeys: { partNumbers: 'validation.required' } });
    return ok({ urls: await presignParts(store, member.id, input.key, input.uploadId, input.partNumbers) });
  }
  const op = input.op === 'list' ? { op: input.op, key: input.key, uploadId: input.uploadId, marker: input.marker } : { op: input.op, key: input.key, uploadId: input.uploadId };
  return ok(await presignCall(store, member.id, op));
});
