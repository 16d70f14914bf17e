import { and, eq } from 'drizzle-orm';
import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { createReply } from '../../../lib/server/ask/replies';
import { requireEditor, sameSubmission, writeLimit } from '../../../lib/server/ask/access';
import { askReply } from '../../../lib/server/db/schema';
import { ReplyInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Replies to a post, or comments on a reply (`parent_id`). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  const input = await readInput(ctx, ReplyInput);
  if (!input.parent_id) await requireEditor(runtime);
  const nonce = input.nonce;
  const again = nonce
    ? await sameSubmission(runtime, `reply:${member.id}:${nonce}`, async () => (await runtime.db.select({ id: askReply.id }).from(askReply).where(and(eq(askReply.userId, member.id), eq(askReply.nonce, nonce))))[0])
    : undefined;
  if (again) return ok({ id: again.id, post_id: input.post_id }, translateAny(apiLocale, 'ask.reply.sent'));
  const limited = await writeLimit(ctx, member, input.parent_id ? 'comment' : 'reply');
  if (limited) return limited;
  const { id } = await createReply(runtime.db, member.id, input);
  return ok({ id, post_id: input.post_id }, translateAny(apiLocale, 'ask.reply.sent'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'forum/post',
  POST: { ...MEMBERS, input: ReplyInput },
});
