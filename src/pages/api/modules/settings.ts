import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { translateAny } from '../../../lib/i18n';
import { installedManifest, saveModuleSettings, settingFields, storedSettings } from '../../../lib/server/modules/settings';
import { ModuleSettingsInput, UidInput } from '../../../lib/shared/validation/market';
import { routeAccess, ADMINS, as } from '../../../lib/shared/access';

/** An installed module's settings form, in the reader's language (a secret only says whether it is set). */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'modules');
  const { uid } = await readInput(ctx, UidInput);
  const { runtime, apiLocale } = ctx.locals;
  const manifest = await installedManifest(runtime.db, uid);
  if (!manifest?.contributes.settings?.length) throw new AppError('modules.settings.none', { values: { uid } });
  const stored = (await storedSettings(runtime.db, [uid])).get(uid) ?? {};
  return ok({ uid, fields: settingFields(manifest, stored, apiLocale) });
});

/** Saves an installed module's settings (checked, audited); every instance uses them from the module's next call. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'modules');
  const input = await readInput(ctx, ModuleSettingsInput);
  const { runtime, apiLocale } = ctx.locals;
  const changed = await saveModuleSettings(runtime, apiLocale, actor, input);
  return ok({ changed }, translateAny(apiLocale, changed.length ? 'modules.settings.saved' : 'modules.settings.unchanged'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts): the sample names no installed module, so admins are refused past the permission check. */
export const access = routeAccess({
  rule: 'admin/modules',
  GET: { ...as(ADMINS, 'refused'), input: UidInput },
  POST: { ...as(ADMINS, 'refused'), input: ModuleSettingsInput },
});
