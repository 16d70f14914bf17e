// Forum input, shared by the API and the forms. Messages are keys of the `validation` group.
import { z } from 'zod';
import { INT_MAX } from './common';

/** Longest markdown body accepted for a post or reply (characters). */
export const MAX_BODY = 30_000;
export const MAX_COMMENT = 1_000;
export const MAX_TAGS = 5;
export const TAG = /^[\p{L}\p{N}][\p{L}\p{N}+#.\-]{0,29}$/u;

const nonce = z.string().trim().regex(/^[A-Za-z0-9_-]{8,40}$/).optional();
const id = z.coerce.number({ error: 'validation.required' }).int().positive({ error: 'validation.required' }).max(INT_MAX);
/**
 * A body: a post's or reply's is written in the site editor, and empty it is the spec's "Editor
 * required" (§5); a comment is a plain line, and empty it is "Content cannot be empty".
 */
const body = (max: number) => {
  const empty = max === MAX_COMMENT ? 'validation.content' : 'validation.editorRequired';
  return z.string({ error: empty }).trim()
    .min(1, { error: empty })
    .max(max, { error: max === MAX_COMMENT ? 'validation.commentTooLong' : 'validation.bodyTooLong' });
};

export const PostInput = z.object({
  id: id.optional(),
  title: z.string({ error: 'validation.required' }).trim().min(4, { error: 'validation.postTitle' }).max(150, { error: 'validation.postTitle' }),
  category_id: id,
  content: body(MAX_BODY),
  tags: z.array(z.string().trim().regex(TAG, { error: 'validation.tag' })).max(MAX_TAGS, { error: 'validation.tags' }).default([]),
  nonce,
}).strict();

export const ReplyInput = z.object({
  post_id: id,
  /** A reply's id to comment on it; 0 or absent replies to the post. */
  parent_id: z.coerce.number().int().min(0).max(INT_MAX).default(0),
  content: z.string().optional(),
  nonce,
}).strict().transform((v, ctx) => {
  const parsed = body(v.parent_id ? MAX_COMMENT : MAX_BODY).safeParse(v.content ?? '');
  if (!parsed.success) {
    ctx.addIssue({ code: 'custom', path: ['content'], message: parsed.error.issues[0]?.message ?? 'validation.editorRequired' });
    return z.NEVER;
  }
  return { ...v, content: parsed.data };
});

export const VoteInput = z.object({
  type: z.enum(['post', 'reply']),
  id,
  value: z.coerce.number().int().refine((v) => v === 1 || v === -1),
}).strict();

export const TargetInput = z.object({ type: z.enum(['post', 'reply']), id }).strict();
export const PostIdInput = z.object({ post_id: id }).strict();
export const ReplyIdInput = z.object({ reply_id: id }).strict();

export const ReportInput = z.object({
  type: z.enum(['post', 'reply']),
  id,
  reason: z.string({ error: 'validation.reportReason' }).trim().min(2, { error: 'validation.reportReason' }).max(500, { error: 'validation.reportReason' }),
}).strict();

export const MODERATE_ACTIONS = ['hide', 'show', 'delete', 'restore', 'pin', 'unpin', 'feature', 'unfeature', 'move'] as const;
export const ModerateInput = z.object({
  post_id: id,
  action: z.enum(MODERATE_ACTIONS),
  category_id: id.optional(),
}).strict();

export const ReportDecisionInput = z.object({ id, status: z.enum(['resolved', 'dismissed']) }).strict();

export const ASK_TABS = ['latest', 'hot', 'unsolved', 'featured'] as const;
export type AskTab = (typeof ASK_TABS)[number];

export const ListInput = z.object({
  tab: z.enum(ASK_TABS).default('latest'),
  category: z.coerce.number().int().positive().max(INT_MAX).optional(),
  tag: z.coerce.number().int().positive().max(INT_MAX).optional(),
  user: z.coerce.number().int().positive().max(INT_MAX).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});

export const SearchInput = z.object({
  keywords: z.string().trim().max(100).default(''),
  category: z.coerce.number().int().positive().max(INT_MAX).optional(),
  tag: z.coerce.number().int().positive().max(INT_MAX).optional(),
  sort: z.enum(['relevance', 'date']).default('relevance'),
  page: z.coerce.number().int().min(1).max(500).default(1),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});
