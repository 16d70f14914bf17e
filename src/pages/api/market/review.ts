import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireRule } from '../../../lib/server/auth/guard';
import { decideDeveloper, developerList } from '../../../lib/server/market/developers';
import { REVIEW_RULE, decideModule, decideVersion, pendingModules } from '../../../lib/server/market/review';
import { checkUnchanged } from '../../../lib/server/market/package-review';
import { ReviewDecisionInput } from '../../../lib/shared/validation/developer';
import { translateAny } from '../../../lib/i18n';
import { recordAction } from '../../../lib/server/admin/audit';
import { actorOf } from '../../../lib/server/admin/guard';
import { routeAccess, ADMINS, as } from '../../../lib/shared/access';

const ListInput = z.object({ page: z.coerce.number().int().min(1).max(10_000).default(1) });

/** What waits for a reviewer: developer applications (in full), modules submitted and new versions. */
export const GET = api(async (ctx) => {
  await requireRule(ctx, REVIEW_RULE);
  const { page } = await readInput(ctx, ListInput);
  const { db } = ctx.locals.runtime;
  const [developers, pending] = await Promise.all([developerList(db, { status: 'pending', page }, 20, ctx.locals.apiLocale), pendingModules(db)]);
  return ok({ developers, ...pending });
});

/** Approves or rejects (with a reason) a developer application, a module submission or a version. */
export const POST = api(async (ctx) => {
  const member = await requireRule(ctx, REVIEW_RULE);
  const input = await readInput(ctx, ReviewDecisionInput);
  const { runtime, apiLocale } = ctx.locals;
  const decision = { approve: input.approve, reason: input.reason, reviewerId: member.id };
  let after: unknown;
  if (input.type === 'developer') {
    const row = await decideDeveloper(runtime.db, { ...decision, userId: input.id });
    after = { status: row.status, reason: row.reason };
  } else {
    if (input.approve) await checkUnchanged(runtime, { type: input.type, id: input.id });
    after = input.type === 'module'
      ? await decideModule(runtime.db, { ...decision, moduleId: input.id })
      : await decideVersion(runtime.db, { ...decision, versionId: input.id });
  }
  // The market decisions are console actions too: in the audit log as `market:<type>:approve|reject`.
  await recordAction(runtime.db, actorOf(ctx, member), `market:${input.type}:${input.approve ? 'approve' : 'reject'}`, input.id, 'review', after);
  return ok(null, translateAny(apiLocale, input.approve ? 'developer.review.approved' : 'developer.review.rejected'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'market/approve',
  GET: { ...ADMINS, input: ListInput },
  POST: { ...as(ADMINS, 'refused'), input: ReviewDecisionInput },
});
