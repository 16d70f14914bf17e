import { api, ok } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { allRules } from '../../../lib/server/admin/rules';
import { titleOf } from '../../../lib/server/site/rules';
import { readSelect, selectRules, wantsSelect } from '../../../lib/server/admin/select';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Every rule (enabled or not), flat in tree order, with BuildAdmin's field names and the title in the reply's language. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'groups');
  const { runtime, apiLocale } = ctx.locals;
  if (wantsSelect(ctx)) return ok(await selectRules(runtime.db, apiLocale, await readSelect(ctx)));
  const list = (await allRules(runtime.db)).map((r) => ({
    id: r.id, pid: r.pid, type: r.type, name: r.name, title: r.title, title_en: r.titleEn, shown_title: titleOf(r, apiLocale),
    path: r.path, icon: r.icon, menu_type: r.menuType, url: r.url, extend: r.extend, redirect: r.redirect,
    no_login_valid: r.noLoginValid, remark: r.remark, weigh: r.weigh, status: r.status, system: r.system,
  }));
  return ok({ list, total: list.length });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  GET: { ...ADMINS },
});
