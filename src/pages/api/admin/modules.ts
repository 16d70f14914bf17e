import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { SITE_MODULES, installedModules } from '../../../lib/server/modules/installs';
import { toggleModule } from '../../../lib/server/admin/content';
import { ModuleInput } from '../../../lib/shared/validation/admin';
import { readSelect, selectModules, wantsSelect } from '../../../lib/server/admin/select';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Site modules this codebase ships and which are installed. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'modules');
  if (wantsSelect(ctx)) return ok(await selectModules(ctx.locals.runtime.db, await readSelect(ctx)));
  const installed = new Map((await installedModules(ctx.locals.runtime.db)).map((m) => [m.uid, m.version]));
  return ok({ list: Object.entries(SITE_MODULES).map(([uid, m]) => ({ uid, version: m.version, installed: installed.get(uid) ?? null })) });
});

/** Installs (install 1) or uninstalls a site module. */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'modules');
  const input = await readInput(ctx, ModuleInput);
  const result = await toggleModule(ctx.locals.runtime, input.uid, input.install === 1, member.id);
  await recordAction(ctx.locals.runtime.db, actor, input.install ? 'module:install' : 'module:uninstall', input.uid, '', result);
  return ok(null, translateAny(ctx.locals.apiLocale, 'admin.modules.done'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/modules',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: ModuleInput },
});
