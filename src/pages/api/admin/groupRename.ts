import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { renameGroup } from '../../../lib/server/admin/groups';
import { GroupRenameInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Renames a group (its zh-cn and English names). */
export const POST = api(async (ctx) => {
  const { member, actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, GroupRenameInput);
  const { runtime, apiLocale } = ctx.locals;
  const { before, after } = await renameGroup(runtime, { groupId: member.groupId, memberId: member.id }, input.id, { name: input.name, nameEn: input.name_en });
  await recordAction(runtime.db, actor, 'group:rename', input.id, { name: before.name, name_en: before.nameEn }, { name: after.name, name_en: after.nameEn });
  return ok(null, translateAny(apiLocale, 'admin.groups.renamed'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/groups',
  POST: { ...ADMINS, input: GroupRenameInput },
});
