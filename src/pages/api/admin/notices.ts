import { api, ok, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { allNotices, saveNotice } from '../../../lib/server/admin/content';
import { NoticeInput } from '../../../lib/shared/validation/admin';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

/** Every site notice, published or not. */
export const GET = api(async (ctx) => {
  await requireSection(ctx, 'notices');
  return ok({ list: await allNotices(ctx.locals.runtime.db) });
});

/** Publishes a notice (id 0) or edits one. */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'notices');
  const input = await readInput(ctx, NoticeInput);
  const saved = await saveNotice(ctx.locals.runtime.db, input);
  await recordAction(ctx.locals.runtime.db, actor, input.id ? 'notice:edit' : 'notice:add', saved.id, saved.before ?? '', { title: input.title, content: input.content });
  return ok({ id: saved.id }, translateAny(ctx.locals.apiLocale, 'admin.notices.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/notices',
  GET: { ...ADMINS },
  POST: { ...ADMINS, input: NoticeInput },
});
