import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { addVersion, requireDeveloper } from '../../../lib/server/market/studio';
import { inspectSubmission } from '../../../lib/server/market/package-review';
import { VersionInput } from '../../../lib/shared/validation/studio';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, DEVELOPERS } from '../../../lib/shared/access';
import { requireEditor } from '../../../lib/server/modules/editor';

/**
 * Adds a version to one of the developer's modules, for review: a semantic version above every
 * earlier one, a changelog, and the package uploaded through `POST /api/developer/package`, whose
 * `atrium.json` must be this module's at this version.
 */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  await requireDeveloper(runtime.db, member.id);
  // The description and the changelog are written in the editor module (spec §5/§8: "Editor required" without it).
  await requireEditor(runtime);
  const input = await readInput(ctx, VersionInput);
  const limited = await rateLimitReply(ctx, `studio:version:${member.id}`, 10, 60);
  if (limited) return limited;
  const result = await addVersion(runtime.db, member.id, input, (pkg, expected) => inspectSubmission(runtime, pkg, expected, apiLocale));
  return ok(result, translateAny(apiLocale, 'devstudio.version.added'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'developer/modules',
  POST: { ...DEVELOPERS, developer: 'notfound', input: VersionInput },
});
