import { routeAccess, MEMBERS } from '../../../lib/shared/access';
import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { hasRule, requireUser } from '../../../lib/server/auth/guard';
import { authoriseDownload, recordDownload } from '../../../lib/server/market/downloads';
import { REVIEW_RULE } from '../../../lib/server/market/review';
import { DownloadInput } from '../../../lib/shared/validation/market';
import { PACKAGE_URL_TTL } from '../../../lib/server/upload/cloud-packages';
import { deliverPackage } from '../../../lib/server/upload/drivers';

/**
 * A module's package as an attachment, authorised per request (free module, paid order within its
 * update period, the developer, a reviewer). Packages live outside /storage: no URL bypasses this.
 * The driver holding the package says how it is delivered: a local one is streamed; one stored in
 * the cloud (private prefix) is answered with a redirect to a signed GET URL
 * valid 300 s (PACKAGE_URL_TTL); `?envelope=1` gives that URL in the envelope instead
 * (`data.url`, `data.expires`), for scripts that cannot follow a redirect. The developer's and a
 * reviewer's downloads are not counted as public ones.
 */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  const input = await readInput(ctx, DownloadInput);
  const limited = await rateLimitReply(ctx, `market:download:${member.id}`, 30, 60);
  if (limited) return limited;
  const { runtime, locale } = ctx.locals;
  const reviewer = await hasRule(runtime, member.groupId, locale, REVIEW_RULE);
  const grant = await authoriseDownload(runtime.db, { userId: member.id, uid: input.uid, version: input.version, reviewer });
  const delivery = await deliverPackage(runtime, grant.packagePath, grant.fileName);
  if (grant.counted) await recordDownload(runtime.db, member.id, grant);
  if (delivery.kind === 'redirect') {
    if (new URL(ctx.request.url).searchParams.get('envelope') === '1') {
      return ok({ url: delivery.url, expires: Math.floor(Date.now() / 1000) + PACKAGE_URL_TTL, name: grant.fileName, size: grant.size });
    }
    return new Response(null, { status: 302, headers: { location: delivery.url, 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer' } });
  }
  return new Response(delivery.open(), {
    headers: {
      'content-type': 'application/zip',
      'content-length': String(delivery.size),
      'content-disposition': `attachment; filename="${grant.fileName}"`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    },
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: ['account/moduleOrders', 'market/approve'],
  GET: { ...MEMBERS, other: 'refused', moderator: 'refused', input: DownloadInput },
});
