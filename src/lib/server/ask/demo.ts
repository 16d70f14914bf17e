import { randomBytes } from 'node:crypto';
import type { Db } from '../db/client';
import { askCategory } from '../db/schema';
import { createUser, findByAccount } from '../account/users';
import { installModule } from '../modules/installs';
import { createPost } from './posts';
import { acceptReply, createReply } from './replies';
import { moderatePost } from './moderation';
import { DEMO_POSTS } from './demo-content';

const AUTHORS = {
  guide: { username: 'atrium_guide', nickname: 'Atrium Guide' },
  helper: { username: 'atrium_helper', nickname: 'Atrium Helper' },
} as const;

/**
 * `npm run seed -- --demo`: Atrium's own forum posts (both languages) by two demo authors, with
 * replies, an accepted answer, a pinned and a featured post, and the editor module installed so
 * the forum can be tried at once. Idempotent: every post and reply carries a fixed nonce.
 */
export async function seedDemo(db: Db): Promise<string[]> {
  const done: string[] = [];
  const authors: Record<string, number> = {};
  for (const [key, a] of Object.entries(AUTHORS)) {
    const existing = await findByAccount(db, a.username);
    // The demo authors get a random password nobody knows: an operator can reset it if needed.
    authors[key] = existing?.id ?? (await createUser(db, { username: a.username, nickname: a.nickname, password: randomBytes(18).toString('base64url') })).id;
    if (!existing) done.push(`demo: member ${a.username}`);
  }
  if (await installModule(db, 'editor', 0)) done.push('demo: editor module installed');
  const categories = new Map((await db.select({ id: askCategory.id, slug: askCategory.slug }).from(askCategory)).map((c) => [c.slug, c.id]));
  let posts = 0;
  for (const [i, demo] of DEMO_POSTS.entries()) {
    const categoryId = categories.get(demo.category);
    if (!categoryId) continue;
    const { id, created } = await createPost(db, authors[demo.author]!, {
      title: demo.title, category_id: categoryId, content: demo.body, tags: demo.tags, nonce: `demo-post-${i}`,
    });
    if (!created) continue;
    posts++;
    if (demo.pinned) await moderatePost(db, 0, { post_id: id, action: 'pin' });
    if (demo.featured) await moderatePost(db, 0, { post_id: id, action: 'feature' });
    for (const [j, reply] of (demo.replies ?? []).entries()) {
      const r = await createReply(db, authors[reply.author]!, { post_id: id, parent_id: 0, content: reply.body, nonce: `demo-reply-${i}-${j}` });
      for (const [k, comment] of (reply.comments ?? []).entries()) {
        await createReply(db, authors[comment.author]!, { post_id: id, parent_id: r.id, content: comment.body, nonce: `demo-comment-${i}-${j}-${k}` });
      }
      if (reply.accepted && reply.author !== demo.author) await acceptReply(db, authors[demo.author]!, r.id);
    }
  }
  if (posts) done.push(`demo: ${posts} forum posts`);
  return done;
}
