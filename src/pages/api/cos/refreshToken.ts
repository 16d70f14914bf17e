import { api, ok, rateLimitReply } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { cloudContext } from '../../../lib/server/upload/cloud-api';
import { memberPrefix } from '../../../lib/server/upload/cloud-settings';
import { issueCosCredentials } from '../../../lib/server/upload/cos';
import { routeAccess, MEMBERS, as } from '../../../lib/shared/access';

/**
 * `GET /api/Cos/refreshToken`: temporary COS credentials for the member's own prefix only
 * (`uploads/<id>/`), for the put and multipart calls, valid 900 s; the SDK reuses them until 60 s before expiry.
 */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const limited = await rateLimitReply(ctx, `cos-token:${member.id}`, 60, 60);
  if (limited) return limited;
  const { cloud } = await cloudContext(ctx.locals.runtime, 'cos');
  return ok(await issueCosCredentials(cloud, memberPrefix(member.id)));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...as(MEMBERS, 'refused') },
});
