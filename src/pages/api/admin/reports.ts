import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { reportPage } from '../../../lib/server/ask/moderation';
import { closeReport } from '../../../lib/server/admin/content';
import { ReportCloseInput } from '../../../lib/shared/validation/admin';
import { routeAccess, MODERATORS } from '../../../lib/shared/access';

const ListInput = z.object({ status: z.enum(['open', 'resolved', 'dismissed']).default('open'), page: z.coerce.number().int().min(1).max(10_000).default(1) });

/** Reports by state, newest first. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'reports');
  const { status, page } = await readInput(ctx, ListInput);
  return ok(await reportPage(ctx.locals.runtime.db, status, page));
});

/** Closes an open report (dismissed, or the reported content removed) or restores removed content; the author and reporters are told. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'reports');
  const input = await readInput(ctx, ReportCloseInput);
  const done = await closeReport(ctx.locals.runtime, member.id, input.id, input.action, input.reason);
  await recordAction(ctx.locals.runtime.db, actor, `report:${input.action}`, input.id, input.action === 'restore' ? 'resolved' : 'open', { ...done, reason: input.reason });
  return ok(null, translateAny(ctx.locals.apiLocale, input.action === 'restore' ? 'admin.reports.restored' : 'admin.reports.closed'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/reports',
  GET: { ...MODERATORS, input: ListInput },
  POST: { ...MODERATORS, input: ReportCloseInput },
});
