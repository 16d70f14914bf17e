import { z } from 'zod';
import { eq } from 'drizzle-orm';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { groupList } from '../../../lib/server/admin/members';
import { userGroup } from '../../../lib/server/db/schema';
import { AppError } from '../../../lib/server/http';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

const Input = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647), rules: z.string().max(20_000).regex(/^(\d{1,9}(,\d{1,9})*)?$/) }).strict();

/** Groups with the rule tree each holds, as the member center reads it. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'groups');
  const { runtime, apiLocale } = ctx.locals;
  const groups = await groupList(runtime.db);
  return ok({ list: await Promise.all(groups.map(async (g) => ({ ...g, tree: await runtime.rules.forGroup(g.id, apiLocale) }))) });
});

/** Sets the rules of a group (not of an administrator group, whose rules are *). */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'groups');
  const input = await readInput(ctx, Input);
  const { runtime, apiLocale } = ctx.locals;
  const [group] = await runtime.db.select().from(userGroup).where(eq(userGroup.id, input.id));
  if (!group) throw new AppError('admin.member.noGroup', { status: 404 });
  if (group.rules.trim() === '*') throw new AppError('admin.groups.adminLocked');
  await runtime.db.update(userGroup).set({ rules: input.rules, updateTime: Math.floor(Date.now() / 1000) }).where(eq(userGroup.id, input.id));
  await runtime.rules.invalidate();
  await recordAction(runtime.db, actor, 'group:rules', group.name, group.rules, input.rules);
  return ok(null, translateAny(apiLocale, 'admin.groups.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: Input },
});
