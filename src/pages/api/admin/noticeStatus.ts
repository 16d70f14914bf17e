import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { setNoticeStatus } from '../../../lib/server/admin/content';
import { NoticeStatusInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Unpublishes a notice (status 0) or publishes it again (1). */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'notices');
  const input = await readInput(ctx, NoticeStatusInput);
  const before = await setNoticeStatus(ctx.locals.runtime.db, input.id, input.status);
  await recordAction(ctx.locals.runtime.db, actor, 'notice:status', input.id, before, input.status);
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/notices',
  POST: { ...ADMINS, input: NoticeStatusInput },
});
