import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { MODERATE_RULE, decideReport, reportPage } from '../../../lib/server/ask/moderation';
import { ReportDecisionInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MODERATORS } from '../../../lib/shared/access';

const ListInput = z.object({ status: z.enum(['open', 'resolved', 'dismissed']).default('open'), page: z.coerce.number().int().min(1).max(10_000).default(1) });

/** The moderators' report list. */
export const GET = api(async (ctx) => {
  await requireRule(ctx, MODERATE_RULE);
  const { status, page } = await readInput(ctx, ListInput);
  return ok(await reportPage(ctx.locals.runtime.db, status, page));
});

/** Closes a report as resolved or dismissed. */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, MODERATE_RULE);
  const input = await readInput(ctx, ReportDecisionInput);
  await decideReport(ctx.locals.runtime.db, member.id, input.id, input.status);
  return ok(null, translateAny(ctx.locals.apiLocale, 'ask.report.closed'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'ask/moderate',
  GET: { ...MODERATORS, input: ListInput },
  POST: { ...MODERATORS, input: ReportDecisionInput },
});
