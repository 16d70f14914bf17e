import { api, ok } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { parseSize } from '../../../lib/server/site/config';
import { readCloudSettings } from '../../../lib/server/upload/cloud-settings';
import { partSizeFor, QUEUE } from '../../../lib/shared/upload-queue';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** What the upload queue needs to know before it sends anything: the mode, the rules, the store's coordinates. */
export const GET = api(async (ctx) => {
  requireUser(ctx);
  const cfg = await ctx.locals.runtime.site.all();
  const cloud = readCloudSettings(cfg);
  let domain = '';
  try {
    const p = JSON.parse(cfg.get('upload_params') || '{}') as { domain?: unknown };
    if (typeof p.domain === 'string') domain = p.domain;
  } catch { /* no domain */ }
  return ok({
    mode: cloud.mode,
    maxSize: parseSize(cfg.get('upload_max_size') || '10mb'),
    allowedSuffixes: cfg.get('upload_allowed_suffixes') ?? '',
    allowedMimeTypes: cfg.get('upload_allowed_mime_types') ?? '',
    partSize: partSizeFor(0, QUEUE.partSize),
    ...(cloud.mode === 'cos' ? { bucket: cloud.bucket, region: cloud.region, domain } : {}),
  });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...MEMBERS },
});
