import { api, ok } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { backupNow } from '../../../lib/server/admin/nightly';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Writes a backup now (DATA_DIR/backups); the audit log records it and the dashboard shows it. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'dashboard');
  const done = await backupNow(ctx.locals.runtime, null, actor);
  return ok({ file: done.file, bytes: done.bytes }, translateAny(ctx.locals.apiLocale, 'admin.dash.backupDone', { file: done.file }));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/dashboard',
  POST: { ...ADMINS },
});
