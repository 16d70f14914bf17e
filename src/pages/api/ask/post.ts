import { and, eq } from 'drizzle-orm';
import { api, AppError, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { createPost, updatePost } from '../../../lib/server/ask/posts';
import { requireEditor, sameSubmission, viewerOf, writeLimit } from '../../../lib/server/ask/access';
import { askCategory, askPost } from '../../../lib/server/db/schema';
import type { Db } from '../../../lib/server/db/client';
import { PostInput } from '../../../lib/shared/validation/ask';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, OWNER } from '../../../lib/shared/access';

/** Publishes a post, or saves an edit when `id` is given (the author or a moderator). */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { runtime, apiLocale } = ctx.locals;
  await requireEditor(runtime);
  const input = await readInput(ctx, PostInput);
  const viewer = await viewerOf(runtime, member, apiLocale);
  // Announcements are the site's voice: only members with the moderation rule post there.
  if (!viewer?.moderator && (await isAnnouncementCategory(runtime.db, input.category_id))) {
    throw new AppError('ask.announcementOnly', { fieldKeys: { category_id: 'ask.announcementOnly' } });
  }
  if (input.id) {
    await updatePost(runtime.db, viewer!, { ...input, id: input.id });
    return ok({ id: input.id }, translateAny(apiLocale, 'ask.post.saved'));
  }
  // A resubmitted form (same nonce) gets the post it already created, without meeting the limit.
  const nonce = input.nonce;
  const again = nonce
    ? await sameSubmission(runtime, `post:${member.id}:${nonce}`, async () => (await runtime.db.select({ id: askPost.id }).from(askPost).where(and(eq(askPost.userId, member.id), eq(askPost.nonce, nonce))))[0])
    : undefined;
  if (again) return ok({ id: again.id }, translateAny(apiLocale, 'ask.post.published'));
  const limited = await writeLimit(ctx, member, 'post');
  if (limited) return limited;
  const { id } = await createPost(runtime.db, member.id, input);
  return ok({ id }, translateAny(apiLocale, 'ask.post.published'));
});

async function isAnnouncementCategory(db: Db, id: number): Promise<boolean> {
  const [row] = await db.select({ type: askCategory.type }).from(askCategory).where(eq(askCategory.id, id));
  return row?.type === 'announcement';
}

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'forum/post',
  POST: { ...OWNER, other: 'denied', developer: 'denied', moderator: 'ok', admin: 'ok', input: PostInput },
});
