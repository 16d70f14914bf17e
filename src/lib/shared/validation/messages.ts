// Message-center input, shared by the API and the islands. Messages are keys of the `validation`
// and `messages` groups.
import { z } from 'zod';
import { MAIL_KINDS, MAX_PRIVATE, MESSAGE_TABS } from '../messages';

/** A serial column's range. */
const id = z.coerce.number({ error: 'validation.required' }).int().positive({ error: 'validation.required' }).max(2_147_483_647);
const ids = z.array(id).min(1, { error: 'validation.required' }).max(200);
const page = z.coerce.number().int().min(1).max(100_000).default(1);
const flag = z.union([z.boolean(), z.enum(['0', '1', 'true', 'false'])]).transform((v) => v === true || v === '1' || v === 'true');
/** Control characters other than newline and tab. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

export const MessageListInput = z.object({
  tab: z.enum(MESSAGE_TABS).default('all'),
  unread: flag.default(false),
  page,
}).strict();

export const MarkReadInput = z.union([
  z.object({ ids }).strict(),
  z.object({ all: z.literal(true), tab: z.enum(MESSAGE_TABS).default('all') }).strict(),
]);

export const DelMessageInput = z.object({ ids }).strict();

export const DialogInput = z.object({
  user_id: id,
  /** Id of the oldest message shown: the page before it. */
  before: id.optional(),
}).strict();

export const SendMessageInput = z.object({
  user_id: id,
  content: z.string({ error: 'messages.content.required' })
    .refine((v) => v.trim().length > 0, { error: 'messages.content.required' })
    .refine((v) => [...v].length <= MAX_PRIVATE, { error: 'messages.content.tooLong' })
    .refine((v) => !CONTROL.test(v), { error: 'messages.content.control' }),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{8,40}$/).optional(),
}).strict();

export const RecentInput = z.object({ page }).strict();
export const UserCardInput = z.object({ user_id: id }).strict();
export const BlockInput = z.object({ user_id: id, block: flag.default(true) }).strict();
export const MailPrefInput = z.object({ kinds: z.array(z.enum(MAIL_KINDS)).max(MAIL_KINDS.length) }).strict();
export const CountInput = z.object({ push: flag.optional() }).strict();
