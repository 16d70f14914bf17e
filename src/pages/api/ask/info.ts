import { z } from 'zod';
import { AppError, api, ok, readInput } from '../../../lib/server/http';
import { getPost } from '../../../lib/server/ask/posts';
import { listReplies, viewerState } from '../../../lib/server/ask/replies';
import { viewerOf } from '../../../lib/server/ask/access';
import { INT_MAX } from '../../../lib/shared/validation/common';
import { routeAccess, ANYONE } from '../../../lib/shared/access';

const Input = z.object({ id: z.coerce.number().int().positive().max(INT_MAX), page: z.coerce.number().int().min(1).max(10_000).default(1) });

/** A post with a page of its replies, and the viewer's own vote and collection. */
export const GET = api(async (ctx) => {
  const { id, page } = await readInput(ctx, Input);
  const { runtime, session, apiLocale } = ctx.locals;
  const viewer = await viewerOf(runtime, session?.row, apiLocale);
  const detail = await getPost(runtime.db, id, apiLocale, viewer);
  if (!detail) throw new AppError('ask.notFound', { status: 404 });
  const [replies, state] = await Promise.all([
    listReplies(runtime.db, id, { acceptedId: detail.post.acceptedReplyId, page, viewer, publishedCount: detail.post.replyCount }),
    viewer ? viewerState(runtime.db, id, viewer.id) : Promise.resolve({ myVote: 0, collected: false }),
  ]);
  return ok({ ...detail, replies, ...state });
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  GET: { ...ANYONE, input: Input },
});
