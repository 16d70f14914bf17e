import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { mailKinds, setMailKinds } from '../../../lib/server/messages/mail-job';
import { MailPrefInput } from '../../../lib/shared/validation/messages';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Which kinds of message also reach the member by e-mail. */
export const GET = api(async (ctx) => {
  const member = requireUser(ctx);
  return ok({ kinds: await mailKinds(ctx.locals.runtime.db, member.id) });
});

export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { kinds } = await readInput(ctx, MailPrefInput);
  await setMailKinds(ctx.locals.runtime.db, member.id, kinds);
  return ok({ kinds }, translateAny(ctx.locals.apiLocale, 'messages.prefs.saved'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  GET: { ...MEMBERS },
  POST: { ...MEMBERS, input: MailPrefInput },
});
