import { readFile } from 'node:fs/promises';
import { api, AppError, rateLimitReply, readInput } from '../../../../lib/server/http';
import { recordDownload } from '../../../../lib/server/market/downloads';
import { readPackage } from '../../../../lib/server/upload/drivers';
import { memberOfToken, remoteGrant } from '../../../../lib/server/market/remote';
import { sha256Of } from '../../../../lib/server/modules/inspect';
import { RemotePackageInput } from '../../../../lib/shared/validation/market';
import { routeAccess, ANYONE, as } from '../../../../lib/shared/access';

/**
 * A reviewed package for another Atrium holding a member's API token, authorised as the member's
 * download (free, or bought within its updates) and counted as one. The bytes are served only while
 * they hash to the reviewed sha256; the connecting site checks them against the signed sha256.
 */
export const GET = api(async (ctx) => {
  const { runtime } = ctx.locals;
  const userId = await memberOfToken(runtime.db, ctx.request.headers.get('authorization'));
  const input = await readInput(ctx, RemotePackageInput);
  const limited = await rateLimitReply(ctx, `market:download:${userId}`, 30, 60);
  if (limited) return limited;
  const grant = await remoteGrant(runtime.db, userId, input.uid, input.version);
  const source = await readPackage(runtime, grant.packagePath, grant.size);
  if (!source) throw new AppError('market.packageMissing');
  const bytes = typeof source === 'string' ? await readFile(source) : source;
  if ((await sha256Of(bytes)) !== grant.reviewedSha256) {
    runtime.log.error('module package changed after review', { uid: input.uid, version: grant.version });
    throw new AppError('market.packageTampered', { values: { uid: input.uid, version: grant.version } });
  }
  if (grant.counted) await recordDownload(runtime.db, userId, grant);
  return new Response(new Uint8Array(bytes), {
    headers: {
      'content-type': 'application/zip',
      'content-length': String(bytes.length),
      'content-disposition': `attachment; filename="${grant.fileName}"`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    },
  });
});

/** Who may call this route: a session is not a token, so every actor of the matrix is refused. */
export const access = routeAccess({ GET: { ...as(ANYONE, 'refused'), input: RemotePackageInput } });
