import { z } from 'zod';
import { api, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { email } from '../../../lib/shared/validation/account';
import { routeAccess, ADMINS } from '../../../lib/shared/access';

const Input = z.object({ to: email }).strict();

/** Sends a test e-mail with the configured mailer (SMTP, or the outbox folder). */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'settings');
  const limited = await rateLimitReply(ctx, `admin-test-mail:${actor.id}`, 5, 600);
  if (limited) return limited;
  const { to } = await readInput(ctx, Input);
  const { runtime, apiLocale } = ctx.locals;
  await runtime.mailer.sendMail({ to, subject: translateAny(apiLocale, 'admin.settings.testSubject'), text: translateAny(apiLocale, 'admin.settings.testBody') });
  await recordAction(runtime.db, actor, 'mail:test', to);
  return ok(null, translateAny(apiLocale, runtime.mailer.outbox ? 'admin.settings.testOutbox' : 'admin.settings.testSent'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/settings',
  POST: { ...ADMINS, input: Input },
});
