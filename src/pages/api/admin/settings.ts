import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { saveSettings, settingFields, settingGroups } from '../../../lib/server/admin/settings';
import { SettingsInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Every setting `config:*` manages, grouped, with its default. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'settings');
  const fields = await settingFields(ctx.locals.runtime.db, ctx.locals.apiLocale);
  return ok({ groups: settingGroups(fields), fields });
});

/** Saves settings after checking every value; every instance sees the change at once (bus). */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'settings');
  const { values } = await readInput(ctx, SettingsInput);
  const changed = await saveSettings(ctx.locals.runtime, ctx.locals.apiLocale, values);
  for (const [name, [before, after]] of Object.entries(changed)) await recordAction(ctx.locals.runtime.db, actor, 'config:set', name, before, after);
  return ok({ changed: Object.keys(changed) }, translateAny(ctx.locals.apiLocale, 'admin.settings.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/settings',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: SettingsInput },
});
