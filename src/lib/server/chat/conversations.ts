// Members' conversations: a tree of messages (edit-and-resend starts a branch beside the old one),
// the branch shown remembered as its last message.
import { and, asc, desc, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { chatConversation, chatMessage } from '../db/schema';
import { AppError } from '../http';

export interface StoredMessage {
  id: string;
  parentId: string;
  role: 'user' | 'assistant';
  text: string;
  metadata: Record<string, unknown>;
  createTime: number;
}

export interface ConversationSummary {
  id: string;
  title: string;
  model: string;
  updateTime: number;
}

const now = (): number => Math.floor(Date.now() / 1000);

/** The member's conversation, or an error that reads the same whether it is missing or someone else's. */
export async function ownConversation(db: Db, userId: number, id: string): Promise<typeof chatConversation.$inferSelect> {
  const [row] = await db.select().from(chatConversation).where(and(eq(chatConversation.id, id), eq(chatConversation.userId, userId)));
  if (!row) throw new AppError('chat.notFound', { status: 404 });
  return row;
}

/** Whether a conversation id is taken by another member. */
export async function conversationOwner(db: Db, id: string): Promise<number | null> {
  const [row] = await db.select({ userId: chatConversation.userId }).from(chatConversation).where(eq(chatConversation.id, id));
  return row?.userId ?? null;
}

/** A conversation with its messages, for a question asked in it; null when it does not exist yet. */
export async function conversationOf(db: Db, id: string): Promise<{ userId: number; title: string; messages: StoredMessage[] } | null> {
  const [[row], messages] = await Promise.all([
    db.select({ userId: chatConversation.userId, title: chatConversation.title }).from(chatConversation).where(eq(chatConversation.id, id)),
    messagesOf(db, id),
  ]);
  return row ? { ...row, messages } : null;
}

export async function messagesOf(db: Db, conversationId: string): Promise<StoredMessage[]> {
  const rows = await db.select({
    id: chatMessage.id, parentId: chatMessage.parentId, role: chatMessage.role, text: chatMessage.text, metadata: chatMessage.metadata, createTime: chatMessage.createTime,
  }).from(chatMessage).where(eq(chatMessage.conversationId, conversationId)).orderBy(asc(chatMessage.seq));
  return rows.map((r) => ({ ...r, role: r.role as StoredMessage['role'], metadata: (r.metadata ?? {}) as Record<string, unknown> }));
}

/** Title of a new conversation: the start of its first question on one line. */
export function titleOf(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  const chars = Array.from(line);
  return chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : line || '…';
}

/** Creates the conversation on its first question. */
export async function ensureConversation(db: Db, userId: number, id: string, question: string, model: string): Promise<{ title: string; created: boolean }> {
  const owner = await conversationOwner(db, id);
  if (owner !== null && owner !== userId) throw new AppError('chat.notFound', { status: 404 });
  if (owner === userId) {
    const row = await ownConversation(db, userId, id);
    return { title: row.title, created: false };
  }
  const title = titleOf(question);
  await db.insert(chatConversation).values({ id, userId, title, model, createTime: now(), updateTime: now() }).onConflictDoNothing();
  return { title, created: true };
}

/** Stores the user messages of a branch not stored yet, each after the one before it. */
export async function storeBranch(db: Db, conversationId: string, branch: { id: string; role: string; text: string }[]): Promise<void> {
  if (!branch.length) return;
  const known = new Set((await db.select({ id: chatMessage.id }).from(chatMessage)
    .where(and(eq(chatMessage.conversationId, conversationId), inArray(chatMessage.id, branch.map((m) => m.id))))).map((r) => r.id));
  const fresh = branch.map((m, i) => ({ ...m, parentId: i ? branch[i - 1]!.id : '' })).filter((m) => !known.has(m.id) && m.role === 'user');
  if (fresh.length) {
    await db.insert(chatMessage).values(fresh.map((m) => ({
      id: m.id, conversationId, parentId: m.parentId, role: 'user', text: m.text, metadata: {}, createTime: now(),
    }))).onConflictDoNothing();
  }
}

export async function storeAnswer(db: Db, conversationId: string, message: Omit<StoredMessage, 'createTime'>): Promise<void> {
  await db.insert(chatMessage).values({ ...message, conversationId, createTime: now() }).onConflictDoUpdate({
    target: [chatMessage.conversationId, chatMessage.id], set: { text: message.text, metadata: message.metadata },
  });
  await db.update(chatConversation).set({ leafId: message.id, updateTime: now() }).where(eq(chatConversation.id, conversationId));
}

export async function setLeaf(db: Db, conversationId: string, leafId: string, model: string): Promise<void> {
  await db.update(chatConversation).set({ leafId, model, updateTime: now() }).where(eq(chatConversation.id, conversationId));
}

/** Remembers the branch a member picked: `leafId` must be a message of this conversation of theirs. */
export async function chooseBranch(db: Db, userId: number, id: string, leafId: string): Promise<void> {
  await ownConversation(db, userId, id);
  const [known] = await db.select({ id: chatMessage.id }).from(chatMessage).where(and(eq(chatMessage.conversationId, id), eq(chatMessage.id, leafId)));
  if (!known) throw new AppError('chat.branchNotFound', { status: 400, fieldKeys: { leafId: 'chat.branchNotFound' } });
  await db.update(chatConversation).set({ leafId }).where(and(eq(chatConversation.id, id), eq(chatConversation.userId, userId)));
}

/** A member's conversations, newest first; `q` searches titles and message text. */
export async function listConversations(db: Db, userId: number, q: string, page: number, limit: number): Promise<{ list: ConversationSummary[]; total: number }> {
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const where = q
    ? and(eq(chatConversation.userId, userId), or(ilike(chatConversation.title, pattern),
      sql`exists (select 1 from ${chatMessage} where ${chatMessage.conversationId} = ${chatConversation.id} and ${chatMessage.text} ilike ${pattern})`))
    : eq(chatConversation.userId, userId);
  const [list, [{ total } = { total: 0 }]] = await Promise.all([
    db.select({ id: chatConversation.id, title: chatConversation.title, model: chatConversation.model, updateTime: chatConversation.updateTime })
      .from(chatConversation).where(where).orderBy(desc(chatConversation.updateTime), desc(chatConversation.createTime)).limit(limit).offset((page - 1) * limit),
    db.select({ total: sql<number>`count(*)::int` }).from(chatConversation).where(where),
  ]);
  return { list, total };
}

export async function renameConversation(db: Db, userId: number, id: string, title: string): Promise<void> {
  await ownConversation(db, userId, id);
  await db.update(chatConversation).set({ title, updateTime: now() }).where(eq(chatConversation.id, id));
}

export async function deleteConversation(db: Db, userId: number, id: string): Promise<void> {
  await ownConversation(db, userId, id);
  await db.transaction(async (tx) => {
    await tx.delete(chatMessage).where(eq(chatMessage.conversationId, id));
    await tx.delete(chatConversation).where(eq(chatConversation.id, id));
  });
}

/** Messages in a conversation, to hold the conversation-length limit. */
export async function messageCount(db: Db, conversationId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(chatMessage).where(eq(chatMessage.conversationId, conversationId));
  return row?.n ?? 0;
}
