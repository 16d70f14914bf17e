import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext, uploadLimit } from '../../../lib/server/upload/cloud-api';
import { planCloudUpload } from '../../../lib/server/upload/cloud-store';
import { fileReply } from '../../../lib/server/upload/storage';
import { checkPackage, PACKAGE_TOPIC } from '../../../lib/server/upload/cloud-packages';
import { requireDeveloper } from '../../../lib/server/market/studio';
import { PrepareInput } from '../../../lib/shared/validation/upload';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/**
 * Before a direct upload: the file passes the upload rules and the daily quota; a file this member
 * already stored under the topic is answered at once (`file`), else the key in the member's prefix
 * and, for `s3`, the multipart upload the browser sends parts to. A module package (topic
 * `package`, approved developers only) goes to the private prefix through presigned parts in
 * both cloud modes (`driver: 's3'`).
 */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, PrepareInput);
  const limited = await uploadLimit(ctx, member.id, 'upload');
  if (limited) return limited;
  const { runtime } = ctx.locals;
  const { cloud, rules, store } = await cloudContext(runtime);
  if (input.topic === PACKAGE_TOPIC) {
    await requireDeveloper(runtime.db, member.id);
    const maxSize = await checkPackage(runtime, input);
    const plan = await planCloudUpload(runtime.db, store, member.id, input, { ...rules, maxSize, allowedSuffixes: 'zip', allowedMimeTypes: '' }, { storage: 'private', holds: runtime.limiter });
    if (plan.kind === 'done') return ok({ file: fileReply(plan.row, store) });
    return ok({ driver: 's3', key: plan.key, uploadId: plan.uploadId, partSize: plan.partSize });
  }
  const plan = await planCloudUpload(runtime.db, store, member.id, input, rules, { browserStarts: cloud.mode === 'cos', holds: runtime.limiter });
  if (plan.kind === 'done') return ok({ file: fileReply(plan.row, store) });
  return ok({ driver: cloud.mode, key: plan.key, uploadId: plan.uploadId, partSize: plan.partSize });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  POST: { ...as(MEMBERS, 'refused'), input: PrepareInput },
});
