import { routeAccess, ADMINS } from '../../../lib/shared/access';
import { z } from 'zod';
import { api, AppError, ok, rateLimitReply, readInput } from '../../../lib/server/http';
import { requireSection } from '../../../lib/server/admin/guard';
import { recordAction } from '../../../lib/server/admin/audit';
import { translateAny } from '../../../lib/i18n';
import { mobile } from '../../../lib/shared/validation/account';

const Input = z.object({ to: mobile }).strict();

/** Sends a test text message with the configured SMS provider (SMS_HTTP_URL, or the outbox folder). */
export const POST = api(async (ctx) => {
  const { actor } = await requireSection(ctx, 'settings');
  // Each test costs the operator a real message: a few per ten minutes is plenty for checking a provider.
  const limited = await rateLimitReply(ctx, `admin-test-sms:${actor.id}`, 5, 600);
  if (limited) return limited;
  const { to } = await readInput(ctx, Input);
  const { runtime, apiLocale } = ctx.locals;
  const site = await runtime.site.get('site_name', 'Atrium');
  try {
    await runtime.mailer.sendSms(to, 'admin_test', `【${site}】${translateAny(apiLocale, 'admin.settings.smsTestBody')}`);
  } catch (err) {
    // The provider's refusal is what the operator came to find out: say it, and keep it in the audit log.
    const reason = err instanceof Error ? err.message : String(err);
    await recordAction(runtime.db, actor, 'sms:test', to, '', { error: reason });
    throw new AppError('admin.settings.smsTestFailed', { values: { reason } });
  }
  await recordAction(runtime.db, actor, 'sms:test', to);
  return ok(null, translateAny(apiLocale, runtime.mailer.smsOutbox ? 'admin.settings.smsTestOutbox' : 'admin.settings.smsTestSent'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'admin/settings',
  POST: { ...ADMINS, input: Input },
});
