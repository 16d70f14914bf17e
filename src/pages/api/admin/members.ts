import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { searchMembers } from '../../../lib/server/admin/members';
import { MemberSearchInput } from '../../../lib/shared/validation/admin';
import { readSelect, selectMembers, wantsSelect } from '../../../lib/server/admin/select';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Members matching a name, e-mail, mobile or id, 20 a page, newest first. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'members');
  if (wantsSelect(ctx)) return ok(await selectMembers(ctx.locals.runtime.db, await readSelect(ctx)));
  return ok(await searchMembers(ctx.locals.runtime.db, await readInput(ctx, MemberSearchInput)));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/members',
  GET: { ...ADMINS, input: MemberSearchInput },
});
