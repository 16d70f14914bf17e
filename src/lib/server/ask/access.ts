import type { APIContext } from 'astro';
import type { Runtime } from '../runtime';
import type { Locale } from '../../i18n';
import { rateLimitReply } from '../http';
import { hasRule } from '../auth/guard';
import { MODERATE_RULE } from './moderation';
import type { UserRow } from '../account/users';

/** Who is looking, as the forum services need it. */
export async function viewerOf(runtime: Runtime, row: UserRow | undefined, locale: Locale): Promise<{ id: number; moderator: boolean } | null> {
  if (!row) return null;
  return { id: row.id, moderator: await hasRule(runtime, row.groupId, locale, MODERATE_RULE) };
}

/** Writing needs the editor module (spec §5/§8: 'Editor required'). */
export { requireEditor } from '../modules/editor';

/** Members younger than a day wait longer between posts (Discourse's new-user limits). */
const NEW_MEMBER_SECONDS = 86_400;

/**
 * The forum's write limits (peers.md: Discourse 15 s per topic, 5 s per post; new users 120 s / 30 s).
 * Returns the 429 reply to send, or null.
 */
export async function writeLimit(ctx: APIContext, member: UserRow, kind: 'post' | 'reply' | 'comment' | 'vote' | 'report'): Promise<Response | null> {
  const fresh = Math.floor(Date.now() / 1000) - member.joinTime < NEW_MEMBER_SECONDS;
  const [limit, seconds] = {
    post: fresh ? [1, 120] : [1, 15],
    reply: fresh ? [1, 30] : [1, 5],
    comment: fresh ? [1, 15] : [1, 5],
    vote: [60, 60],
    report: [20, 86_400],
  }[kind] as [number, number];
  return rateLimitReply(ctx, `ask:${kind}:${member.id}`, limit, seconds);
}

/**
 * The row a form with this one-time key already created, if any. When another request with the
 * same key is creating it right now (a double click reaching two handlers at once), waits for
 * that row (up to 3 s) instead of letting the second request meet the write limit.
 */
export async function sameSubmission<T>(runtime: Runtime, key: string, find: () => Promise<T | undefined>): Promise<T | undefined> {
  const found = await find();
  if (found) return found;
  const claim = await runtime.limiter.hit(`ask:nonce:${key}`, 1, 30);
  if (claim.allowed) return undefined;
  for (let waited = 0; waited < 3000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const row = await find();
    if (row) return row;
  }
  return undefined;
}
