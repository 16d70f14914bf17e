import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { applyDeveloper, developerOf, maskedApplication } from '../../../lib/server/market/developers';
import { DeveloperApplyInput } from '../../../lib/shared/validation/developer';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** The member's developer application with its status and reason (ID number and mobile masked), or null. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const row = await developerOf(ctx.locals.runtime.db, member.id);
  return ok(row ? maskedApplication(row, ctx.locals.apiLocale) : null);
});

/** Applies to become a developer, or corrects a pending or rejected application (back to pending). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, DeveloperApplyInput);
  const limited = await rateLimitReply(ctx, `developer:apply:${member.id}`, 5, 3600);
  if (limited) return limited;
  const row = await applyDeveloper(ctx.locals.runtime.db, member.id, input);
  return ok(maskedApplication(row, ctx.locals.apiLocale), translateAny(ctx.locals.apiLocale, 'developer.apply.sent'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/verif',
  GET: { ...MEMBERS },
  // Approved developers (the first member is one) cannot apply again.
  POST: { ...MEMBERS, member: 'refused', developer: 'refused', input: DeveloperApplyInput },
});
