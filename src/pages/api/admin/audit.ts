import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { auditPage } from '../../../lib/server/admin/audit';
import { AuditInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** The audit log, newest first, filtered by action, actor or text. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'audit');
  return ok(await auditPage(ctx.locals.runtime.db, await readInput(ctx, AuditInput)));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/audit',
  GET: { ...ADMINS, input: AuditInput },
});
