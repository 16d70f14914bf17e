// Chat input, shared by the API and the chat page.
import { z } from 'zod';
import { legalChatTitle } from '../chat';

/** Chat and message ids the AI SDK makes (and the page's own). */
export const CHAT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const chatId = z.string().regex(CHAT_ID, { error: 'field.format' });
// No control characters except tab and line breaks.
const noControl = (s: string): boolean => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s);
/** Hard ceiling of a message's text; the site setting chat_max_question is lower. */
export const MAX_TEXT = 32_000;

const part = z.object({ type: z.string().max(40), text: z.string().max(MAX_TEXT).refine(noControl, { error: 'field.format' }).optional() }).loose();

export const UiMessage = z.object({
  id: chatId,
  role: z.enum(['user', 'assistant']),
  parts: z.array(part).max(50),
}).loose();

export const SendInput = z.object({
  id: chatId,
  messages: z.array(UiMessage).min(1).max(1000),
  model: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'field.format' }).optional(),
  trigger: z.string().max(40).optional(),
  messageId: z.string().max(64).optional(),
  /** The page's name for this send: a stop that names it stops this reply, even one not started yet. */
  turn: chatId.optional(),
}).loose();

export const ChatIdInput = z.object({ id: chatId });

/** Stopping: `turn` names the send whose reply to stop (it may not have started yet). */
export const StopInput = z.object({ id: chatId, turn: chatId.optional() });

/** Resuming: `after` is the last message the page has when it is a question waiting for its answer. */
export const ResumeInput = z.object({ id: chatId, after: chatId.optional() });

/** The branch a member picked (‹ 1/2 ›): the last message of the branch to show. */
export const BranchInput = z.object({ id: chatId, leafId: chatId });

export const RenameInput = z.object({
  id: chatId,
  title: z.string({ error: 'validation.illegal' }).refine(legalChatTitle, { error: 'validation.illegal' }).transform((s) => s.trim()),
});

export const ListInput = z.object({
  q: z.string().trim().max(100).refine(noControl, { error: 'field.format' }).default(''),
  page: z.coerce.number().int().min(1).max(1000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

export { textOfParts } from '../chat';
