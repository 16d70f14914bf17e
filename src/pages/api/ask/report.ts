import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { report } from '../../../lib/server/ask/moderation';
import { writeLimit } from '../../../lib/server/ask/access';
import { ReportInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** A member reports a post or reply to the moderators. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, ReportInput);
  const limited = await writeLimit(ctx, member, 'report');
  if (limited) return limited;
  await report(ctx.locals.runtime.db, member.id, input);
  return ok(null, translateAny(ctx.locals.apiLocale, 'ask.report.sent'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'forum/interact',
  POST: { ...MEMBERS, input: ReportInput },
});
