import { z } from 'zod';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { markNoticesRead, noticePage } from '../../../lib/server/account/notices';
import { PageInput } from '../../../lib/server/account/ledger-api';
import { INT_MAX } from '../../../lib/shared/validation/common';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

export const ReadInput = z.object({ ids: z.array(z.number().int().positive().max(INT_MAX)).min(1).max(100) }).strict();

/** The site notices, newest first, with the member's read state. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const { page, limit } = await readInput(ctx, PageInput);
  return ok(await noticePage(ctx.locals.runtime.db, member.id, page, limit));
});

/** Marks notices read (`{ids}`); only the caller's own read state changes. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { ids } = await readInput(ctx, ReadInput);
  return ok({ marked: await markNoticesRead(ctx.locals.runtime.db, member.id, ids) });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'account/notice',
  GET: { ...MEMBERS, input: PageInput },
  POST: { ...MEMBERS, input: ReadInput },
});
