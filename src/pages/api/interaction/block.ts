import { api, ok, readInput } from '../../../lib/server/http';
import { requireUser } from '../../../lib/server/auth/guard';
import { setBlock } from '../../../lib/server/messages/dialog';
import { BlockInput } from '../../../lib/shared/validation/messages';
import { translateAny } from '../../../lib/i18n';
import { routeAccess, MEMBERS } from '../../../lib/shared/access';

/** Blocks (`block` true, the default) or unblocks `user_id`: a blocked member's messages and mentions stop reaching the caller. */
export const POST = api(async (ctx) => {
  const member = requireUser(ctx);
  const { user_id, block } = await readInput(ctx, BlockInput);
  await setBlock(ctx.locals.runtime.db, member.id, user_id, block);
  return ok({ blocked: block }, translateAny(ctx.locals.apiLocale, block ? 'messages.blockDone' : 'messages.unblockDone'));
});

/** Who may call this route (tests/integration/authz-matrix.test.ts). */
export const access = routeAccess({
  rule: 'messageCenter',
  POST: { ...MEMBERS, input: BlockInput },
});
