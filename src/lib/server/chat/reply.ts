// One reply: checks, retrieval, the quota decision, then the stream (the site assistant's or a
// model's) as a resumable UI message stream that keeps running when the asker's tab goes away.
import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { UI_MESSAGE_STREAM_HEADERS, generateId, type UIMessage, type UIMessageStreamWriter } from 'ai';
import type { z } from 'zod';
import type { Runtime } from '../runtime';
import { chatReply } from '../db/schema';
import { AppError } from '../http';
import { translator, type Locale } from '../../i18n';
import { currentRenderSet, renderWithModules } from '../modules/markdown';
import { serverHighlight } from '../../markdown/highlight.server';
import { CHAT_KEY_HEADER, linkCitations, type ChatMetadata, type SourceMeta } from '../../shared/chat';
import { expandFraming, type Translate } from '../../shared/chat-frame';
import { textOfParts, type SendInput } from '../../shared/validation/chat';
import { chatSettings } from './settings';
import { mayUse, SITE_ASSISTANT, type ChatModelConfig } from './models';
import { estimateTokens, groundingInstructions, retrieve, type Source } from './retrieve';
import { assistantAnswer, pieces } from './assistant';
import { dayBounds, replyBudget, REPLY_MAX_SECONDS, reserveReply, settleReply, type Settlement } from './quota';
import { conversationOf, ensureConversation, setLeaf, storeAnswer, storeBranch, titleOf } from './conversations';
import { chatStreams, type FinishedReply } from './streams';
import { insertReplyRow } from './reply-rows';
import { failureOf, generate } from './provider';

/** SSE must reach the browser as it is written: `identity` keeps the server's on-the-fly compression (which buffers) away. */
const SSE_HEADERS = { ...UI_MESSAGE_STREAM_HEADERS, 'content-encoding': 'identity' };

export interface Asker {
  userId: number;
  groupId: number;
  ip: string;
  /** A visitor's key (`x-chat-key`, checked): their replies are stopped and resumed with it. Members': null. */
  key: string | null;
  locale: Locale;
  /** App path → link on this host. */
  link: (path: string) => string;
}

type Input = z.output<typeof SendInput>;

/** The model a reply uses: the named one if the asker may use it, else the site assistant when nothing is named. */
export async function pickModel(runtime: Runtime, asker: Pick<Asker, 'userId' | 'groupId'>, name: string | undefined): Promise<ChatModelConfig | null> {
  if (name === SITE_ASSISTANT) return null;
  const models = (await (await chatStreams(runtime)).models()).filter((m) => mayUse(m, asker));
  if (!name) {
    const preferred = (await chatSettings(runtime.site)).defaultModel;
    return models.find((m) => m.name === preferred) ?? models[0] ?? null;
  }
  const found = models.find((m) => m.name === name);
  if (!found) throw new AppError('chat.modelUnavailable', { status: 400 });
  return found;
}

function formatReset(end: number, timeZone: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : 'zh-CN', { timeZone, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(end * 1000);
}

// Sources come from the retrieval cache, the same objects for every question on a topic: what is
// derived from them alone is derived once (a burst of questions paid it per question).
const excerpts = new WeakMap<Source, string>();
const grounded = new WeakMap<Source[], Map<string, { text: string; tokens: number }>>();

function excerptOf(s: Source): string {
  let excerpt = excerpts.get(s);
  if (excerpt === undefined) {
    const chars = Array.from(s.text);
    excerpt = chars.length > 280 ? `${chars.slice(0, 280).join('')}…` : s.text;
    excerpts.set(s, excerpt);
  }
  return excerpt;
}

const sourceMeta = (s: Source, link: (p: string) => string): SourceMeta => ({
  n: s.n, kind: s.kind, title: s.title, heading: s.heading, url: link(s.url), excerpt: excerptOf(s),
});

/** The model's instructions for these sources and their token estimate. */
function instructionsFor(sources: Source[], siteName: string, locale: Locale): { text: string; tokens: number } {
  let byName = grounded.get(sources);
  if (!byName) grounded.set(sources, byName = new Map());
  const key = `${locale}:${siteName}`;
  let made = byName.get(key);
  if (!made) {
    const text = groundingInstructions(sources, siteName, locale);
    made = { text, tokens: estimateTokens(text) };
    // The site's name changes rarely: a few entries per list at most.
    if (byName.size >= 4) byName.clear();
    byName.set(key, made);
  }
  return made;
}

/** What a reply keeps of a visitor's key: its hash (a reader of the database cannot stop or resume with it). */
const ownerKeyOf = (key: string): string => createHash('sha256').update(key).digest('base64url');

/** Who a stop note is for: a member, or a visitor by their key's hash ('' when neither: no note). */
const ownerIdOf = (userId: number, ownerKey: string): string => (userId ? `u${userId}` : ownerKey ? `k${ownerKey}` : '');

/** One UI message chunk as an SSE frame, and the frame that ends a stream (what `JsonToSseTransformStream` writes). */
const sseFrame = (chunk: unknown): string => `data: ${JSON.stringify(chunk)}\n\n`;
const SSE_DONE = 'data: [DONE]\n\n';

/** Where a reply writes its UI message chunks. */
type ChunkWriter = Pick<UIMessageStreamWriter<UIMessage<ChatMetadata>>, 'write'>;

/**
 * One reply's UI message stream as SSE text: the bytes of the AI SDK's `createUIMessageStream`
 * piped through its `JsonToSseTransformStream` (`data: <chunk JSON>` per chunk, `data: [DONE]` at
 * the end; an error thrown by `execute` becomes an `error` chunk with `onError`'s text), written
 * into one stream. The SDK's pair is three web streams, each a promise hop per chunk: with 100
 * replies streaming at once they were a third of the request thread (bench/RESULTS.md,
 * 2026-11-26). Chunks written in one tick leave as one (the start of a reply, its end, the site
 * assistant's pieces); nothing waits longer than the tick it was written in.
 */
function uiMessageSse(execute: (writer: ChunkWriter) => Promise<void>, onError: () => string): ReadableStream<string> {
  let controller!: ReadableStreamDefaultController<string>;
  const sse = new ReadableStream<string>({ start(c) { controller = c; } });
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (!pending) return;
    const text = pending;
    pending = '';
    try { controller.enqueue(text); } catch { /* the reader went away: the reply goes on */ }
  };
  const writer: ChunkWriter = {
    write(chunk) {
      pending += sseFrame(chunk);
      if (!scheduled) { scheduled = true; setImmediate(flush); }
    },
  };
  void (async () => {
    try {
      await execute(writer);
    } catch {
      writer.write({ type: 'error', errorText: onError() });
    }
    pending += SSE_DONE;
    flush();
    try { controller.close(); } catch { /* already closed */ }
  })();
  return sse;
}

/**
 * A reply's stream before it is a Response: the Node server writes the text to the socket as it
 * comes (src/server/chat-send.ts); the Astro route and resumes answer `toResponse()`.
 */
export class ReplyStream {
  constructor(readonly sse: ReadableStream<string>, readonly headers: Record<string, string>) {}

  toResponse(): Response {
    return new Response(this.sse.pipeThrough(new TextEncoderStream()), { headers: this.headers });
  }
}

/** Rendered answers by their markdown: the site assistant says the same thing to the same question. */
const rendered = new LRUCache<string, string>({ max: 200 });

/** Markdown of an answer with its citations linked, rendered and highlighted as every page is. */
export async function answerHtml(text: string, sources: SourceMeta[]): Promise<string> {
  const markdown = linkCitations(text, sources);
  // The cache is keyed by the modules' set too: an answer rendered before math was installed is not reused after.
  const key = `${currentRenderSet()}\u0000${markdown}`;
  const hit = rendered.get(key);
  if (hit !== undefined) return hit;
  const html = (await renderWithModules(markdown, { highlight: await serverHighlight(markdown) }, { kind: 'chat', locale: '' })).html;
  rendered.set(key, html);
  return html;
}

/** Starts a reply and answers the UI message stream. */
export async function sendReply(runtime: Runtime, asker: Asker, input: Input): Promise<ReplyStream> {
  const t = translator(asker.locale, 'chat');
  const settings = await chatSettings(runtime.site);
  const model = await pickModel(runtime, asker, input.model);
  const modelName = model?.name ?? SITE_ASSISTANT;
  const last = input.messages.at(-1)!;
  if (last.role !== 'user') throw new AppError('chat.noQuestion', { status: 400 });
  const question = textOfParts(last.parts).trim();
  if (!question) throw new AppError('chat.noQuestion', { status: 400, fieldKeys: { text: 'chat.noQuestion' } });
  if (Array.from(question).length > settings.maxQuestion) {
    throw new AppError('chat.questionTooLong', { status: 400, values: { max: settings.maxQuestion }, fieldKeys: { text: 'chat.questionTooLong' } });
  }
  if (input.messages.length > settings.maxMessages) throw new AppError('chat.conversationTooLong', { status: 400, values: { max: settings.maxMessages } });

  // History: a member's stored answers replace whatever the browser sent for them.
  let history = input.messages.map((m) => ({ id: m.id, role: m.role, text: textOfParts(m.parts) }));
  const member = asker.userId > 0;
  const streams = await chatStreams(runtime);
  // Reads that do not depend on each other run together; retrieval mostly comes from memory.
  const [conversation, timeZone, siteName, sources] = await Promise.all([
    member ? conversationOf(runtime.db, input.id) : null,
    runtime.site.get('time_zone', 'Asia/Shanghai'),
    runtime.site.get('site_name', 'Atrium'),
    retrieve(runtime.db, question, { member, tokenBudget: settings.retrievalTokens, locale: asker.locale }, streams.retrieval),
  ]);
  let title = titleOf(question);
  if (conversation) {
    if (conversation.userId !== asker.userId) throw new AppError('chat.notFound', { status: 404 });
    if (conversation.messages.length >= settings.maxMessages) throw new AppError('chat.conversationTooLong', { status: 400, values: { max: settings.maxMessages } });
    const stored = new Map(conversation.messages.map((m) => [m.id, m]));
    history = history.filter((m) => m.role === 'user' || stored.has(m.id)).map((m) => (m.role === 'assistant' ? { ...m, text: stored.get(m.id)!.text } : m));
    title = conversation.title;
  } else if (!member) {
    title = question.slice(0, 40);
  }
  // Today's bounds are needed only by a priced model's quota (formatting them costs).
  let day: { start: number; end: number } | null = null;
  const today = (): { start: number; end: number } => (day ??= dayBounds(timeZone));
  const { text: instructions, tokens: instructionTokens } = instructionsFor(sources, siteName, asker.locale);

  // Keep the newest history that fits the model's context with the instructions and room to answer.
  // An answer stopped before its first word says nothing to the model.
  let modelHistory = history.some((m) => m.role === 'assistant' && !m.text) ? history.filter((m) => m.role === 'user' || m.text) : history;
  if (model) {
    // The site assistant's answers reach a model with their framing in words (the asker's language).
    const words: Translate = (key, values) => t(key as 'chat.assistant.label', values);
    modelHistory = modelHistory.map((m) => (m.role === 'assistant' && m.text.includes('%%frame:') ? { ...m, text: expandFraming(m.text, words) } : m));
    let budget = model.contextWindow - instructionTokens - Math.min(2048, Math.floor(model.contextWindow / 4));
    const kept: typeof history = [];
    for (const m of [...modelHistory].reverse()) {
      budget -= estimateTokens(m.text) + 4;
      if (budget < 0 && kept.length) break;
      kept.unshift(m);
    }
    modelHistory = kept;
  }
  const promptTokens = instructionTokens + modelHistory.reduce((n, m) => n + estimateTokens(m.text) + 4, 0);

  // A visitor's reply is theirs by their browser's key: one is made for a send without it.
  const issuedKey = member || asker.key ? null : randomBytes(24).toString('base64url');
  const visitorKey = asker.key ?? issuedKey;
  const replyId = generateId();
  const createTime = Math.floor(Date.now() / 1000);
  const ownerKey = visitorKey ? ownerKeyOf(visitorKey) : '';
  const row = { id: replyId, chatId: input.id, userId: asker.userId, ip: asker.ip, ownerKey, model: modelName, free: 1, createTime };

  // The quota is decided, and what the reply may use reserved, before the provider is called: a
  // refusal never reaches it, and parallel questions queue for the same points and free replies.
  let free = true;
  let reserved = false;
  if (model) {
    const decision = await reserveReply(runtime.db, model, { userId: asker.userId, ip: asker.ip }, promptTokens, () => today().start, row);
    if (!decision.ok) {
      const { end: dayEnd } = today();
      const resets = formatReset(dayEnd, timeZone, asker.locale);
      throw new AppError(decision.reason === 'points' ? 'chat.noPoints' : 'chat.signInToContinue', {
        status: 402, values: { estimate: decision.estimate, score: decision.score, resets }, data: { resets: dayEnd, estimate: decision.estimate, score: decision.score },
      });
    }
    ({ free, reserved } = decision);
  }

  const controller = new AbortController();
  const turn = input.turn;
  const untrack = streams.track({ replyId, chatId: input.id, userId: asker.userId, ownerKey, turn }, controller);
  // Stop pressed right after sending can reach the server before the question: its note stops the
  // reply as it starts (tracked first, so a stop that comes after this look finds it running).
  const owner = ownerIdOf(asker.userId, ownerKey);
  if (turn && owner && await streams.stopWanted(input.id, turn, owner).catch(() => false)) controller.abort('stop');
  // The writes that record the question (and a free reply's row) run beside the provider's first
  // token: a free reply's row is only needed to settle it (and to find it from another instance),
  // so nothing waits for them before the stream starts. Settling waits for them; a failed write
  // stops the reply. A reply that reserved wrote its row already. The site assistant's answer is
  // written in milliseconds and costs nothing: its row is written once, as it ended.
  const persisted = (async () => {
    if (member) {
      await ensureConversation(runtime.db, asker.userId, input.id, question, modelName);
      await storeBranch(runtime.db, input.id, history);
    }
    if (model && !reserved) await insertReplyRow(runtime.db, row);
    if (member) await setLeaf(runtime.db, input.id, last.id, modelName);
  })();
  persisted.catch((err: unknown) => {
    runtime.log.error('chat reply not recorded', { replyId, err: String(err) });
    controller.abort('failed');
  });
  const metaSources = sources.map((s) => sourceMeta(s, asker.link));
  const memo = t('chat.memo', { title });

  const sse = uiMessageSse(async (writer) => {
    writer.write({ type: 'start', messageId: replyId, messageMetadata: { model: modelName, sources: metaSources, createTime } });
    let text = '';
    let end: Settlement = { status: 'done', promptTokens: 0, completionTokens: 0 };
    let errorKey: string | null = null;
    try {
      if (!model) {
        text = await streamAssistant(writer, assistantAnswer(question, sources, asker.locale, asker.link(`/ask/post?title=${encodeURIComponent(question.slice(0, 150))}`)), controller.signal);
        end = { status: controller.signal.aborted ? 'stopped' : 'done', promptTokens: 0, completionTokens: 0 };
      } else {
        ({ text, end, errorKey } = await streamModel(writer, model, instructions, modelHistory, controller, runtime.config.chat.timeoutSeconds, promptTokens));
      }
    } finally {
      untrack();
    }
    const recorded = await persisted.then(() => true, () => false);
    // Not recorded: the server failed, the asker pays nothing (a reservation is released).
    if (!recorded) { end = { status: 'failed', promptTokens: 0, completionTokens: 0 }; errorKey = 'chat.error.server'; }
    if (errorKey) writer.write({ type: 'error', errorText: t(errorKey as 'chat.error.server') });
    // A reply nobody pays for settles with one statement, beside the rendering of its HTML.
    const [points, html] = await Promise.all([
      (!recorded && !reserved ? Promise.resolve(0)
        : model ? settleReply(runtime.db, replyId, model, end, memo, free || !member, { key: 'chat.memo', params: { title } })
          : insertReplyRow(runtime.db, { ...row, status: end.status, finishTime: Math.floor(Date.now() / 1000) }).then(() => 0)
      ).catch((err: unknown) => {
        runtime.log.error('chat settle failed', { replyId, err: String(err) });
        return 0;
      }),
      text ? answerHtml(text, metaSources) : '',
    ]);
    runtime.countChatReply?.({ model: modelName, status: end.status, promptTokens: end.promptTokens, completionTokens: end.completionTokens, points: points ?? 0 });
    const metadata: ChatMetadata = { model: modelName, sources: metaSources, html, status: end.status, points: points ?? 0, tokens: end.promptTokens + end.completionTokens, createTime };
    // A stopped reply is kept even empty (stopped before its first word): the page shows it so.
    if (text || end.status === 'stopped') {
      // Members' answers join their stored conversation; a visitor's is kept a day, so a reload
      // after its end (the conversation lives in their browser) still shows it.
      const kept = member
        ? storeAnswer(runtime.db, input.id, { id: replyId, parentId: last.id, role: 'assistant', text, metadata: metadata as Record<string, unknown> })
        : streams.remember({ replyId, chatId: input.id, userId: 0, ownerKey, parentId: last.id, text, metadata: { ...metadata, html: undefined } as Record<string, unknown> });
      await kept.catch((err: unknown) => runtime.log.error('chat store failed', { replyId, err: String(err) }));
    }
    writer.write({ type: 'finish', messageMetadata: metadata, finishReason: end.status === 'done' ? 'stop' : 'other' });
  }, () => t('chat.error.server'));

  const body = await streams.context.createNewResumableStream(replyId, () => sse);
  return new ReplyStream(body ?? sse, { ...SSE_HEADERS, 'x-chat-reply': replyId, ...(issuedKey ? { [CHAT_KEY_HEADER]: issuedKey } : {}) });
}

async function streamAssistant(writer: ChunkWriter, answer: string, signal: AbortSignal): Promise<string> {
  writer.write({ type: 'text-start', id: 'text' });
  let text = '';
  let batch = '';
  let n = 0;
  // A few words per delta: it still streams, without a chunk (and its SSE frame) per word.
  const flush = (): void => {
    if (!batch) return;
    text += batch;
    writer.write({ type: 'text-delta', id: 'text', delta: batch });
    batch = '';
  };
  for (const piece of pieces(answer)) {
    if (signal.aborted) break;
    batch += piece;
    if (batch.length < 120) continue;
    flush();
    // Let other requests run between pieces of a long answer (each tick's pieces leave as one write).
    if (++n % 4 === 0) await new Promise((r) => setImmediate(r));
  }
  if (!signal.aborted) flush();
  writer.write({ type: 'text-end', id: 'text' });
  return text;
}

async function streamModel(
  writer: ChunkWriter, model: ChatModelConfig, instructions: string, history: { id: string; role: 'user' | 'assistant'; text: string }[],
  controller: AbortController, timeoutSeconds: number, promptEstimate: number,
): Promise<{ text: string; end: Settlement; errorKey: string | null }> {
  // The provider has `timeoutSeconds` to start and between chunks, and REPLY_MAX_SECONDS in all
  // (what a reply holds lapses then: quota.ts): one timer, pushed back lazily (a timer per chunk
  // costs more than the chunk).
  let timedOut = false;
  let last = Date.now();
  const limit = timeoutSeconds * 1000;
  const deadline = last + REPLY_MAX_SECONDS * 1000;
  let timer: NodeJS.Timeout | null = null;
  const check = (): void => {
    const now = Date.now();
    const idle = now - last;
    if (idle >= limit || now >= deadline) { timedOut = true; controller.abort('timeout'); return; }
    timer = setTimeout(check, Math.min(limit - idle, deadline - now));
  };
  timer = setTimeout(check, limit);
  let text = '';
  let started = false;
  let caught: unknown = null;
  let generation: Awaited<ReturnType<typeof generate>> | null = null;
  // Stopped before the provider was asked: nothing was used, nothing is charged.
  if (controller.signal.aborted && controller.signal.reason === 'stop') {
    if (timer) clearTimeout(timer);
    return { text, end: { status: 'stopped', promptTokens: 0, completionTokens: 0 }, errorKey: null };
  }
  try {
    // Text arrives gathered into frames (completion.ts): one UI chunk, SSE frame and socket write each.
    // No longer than the history trimming left room for, and what the reply's hold was priced at.
    generation = await generate(model, instructions, history, replyBudget(model), controller.signal);
    for await (const delta of generation.deltas) {
      last = Date.now();
      if (!started) { writer.write({ type: 'text-start', id: 'text' }); started = true; }
      text += delta;
      writer.write({ type: 'text-delta', id: 'text', delta });
    }
  } catch (err) {
    caught = err;
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (started) writer.write({ type: 'text-end', id: 'text' });
  const usage = generation?.usage();
  const error = caught ?? generation?.error() ?? null;
  const stopped = controller.signal.aborted && controller.signal.reason === 'stop';
  const completionTokens = usage?.outputTokens ?? estimateTokens(text);
  const promptTokens = usage?.inputTokens ?? promptEstimate;
  if (stopped) return { text, end: { status: 'stopped', promptTokens, completionTokens }, errorKey: null };
  if (error || timedOut || (controller.signal.aborted)) {
    const failure = failureOf(error, timedOut);
    return { text, end: { status: 'failed', promptTokens: text ? promptTokens : 0, completionTokens: text ? completionTokens : 0 }, errorKey: `chat.error.${failure}` };
  }
  if (!usage && !text) return { text, end: { status: 'failed', promptTokens: 0, completionTokens: 0 }, errorKey: 'chat.error.cut' };
  return { text, end: { status: 'done', promptTokens, completionTokens }, errorKey: null };
}

/**
 * A member's reply is theirs by their account; a visitor's by the key their browser sent with the
 * question (visitors behind one address are otherwise alike), whatever address it comes from now.
 */
const owns = (asker: Pick<Asker, 'userId' | 'key'>, reply: { userId: number; ownerKey: string }): boolean =>
  reply.userId === asker.userId && (reply.userId !== 0 || (asker.key !== null && reply.ownerKey !== '' && reply.ownerKey === ownerKeyOf(asker.key)));

/** The replies being written in a chat: this instance knows its own, the database every instance's. */
async function runningReplies(runtime: Runtime, chatId: string): Promise<{ id: string; userId: number; ownerKey: string }[]> {
  const local = (await chatStreams(runtime)).runningIn(chatId);
  if (local) return [{ id: local.replyId, userId: local.userId, ownerKey: local.ownerKey }];
  return runtime.db.select({ id: chatReply.id, userId: chatReply.userId, ownerKey: chatReply.ownerKey }).from(chatReply)
    .where(and(eq(chatReply.chatId, chatId), eq(chatReply.status, 'streaming'))).orderBy(desc(chatReply.createTime));
}

/** A finished reply sent again as the stream it was: start, its text, finish. */
function replayFinished(done: FinishedReply): ReadableStream<string> {
  const metadata = done.metadata as ChatMetadata;
  const chunks = [
    { type: 'start', messageId: done.replyId, messageMetadata: metadata },
    { type: 'text-start', id: 'text' },
    { type: 'text-delta', id: 'text', delta: done.text },
    { type: 'text-end', id: 'text' },
    { type: 'finish', messageMetadata: metadata, finishReason: metadata.status === 'done' ? 'stop' : 'other' },
  ];
  const text = chunks.map(sseFrame).join('') + SSE_DONE;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(text);
      controller.close();
    },
  });
}

/**
 * The running reply of a chat the asker owns, resumed from its start; null when none runs. `after`
 * (the last message the page has, a question) also finds a visitor's reply to it that finished
 * while the page was away, since their conversations live only in their browser.
 */
export async function resumeReply(runtime: Runtime, asker: Pick<Asker, 'userId' | 'key'>, chatId: string, after?: string): Promise<Response | null> {
  const streams = await chatStreams(runtime);
  const [row] = await runningReplies(runtime, chatId);
  if (row && !owns(asker, row)) return null;
  if (row) {
    const body = await streams.context.resumeExistingStream(row.id);
    if (body) return new ReplyStream(body, { ...SSE_HEADERS, 'x-chat-reply': row.id }).toResponse();
  }
  if (after && asker.userId === 0) {
    const done = await streams.recall(chatId);
    if (done && owns(asker, done) && done.parentId === after) {
      return new ReplyStream(replayFinished(done), { ...SSE_HEADERS, 'x-chat-reply': done.replyId }).toResponse();
    }
  }
  return null;
}

/**
 * Stops the running reply of a chat the asker owns; false when none runs. `turn` (the page's name
 * for its send) also stops that send's reply if it has not started yet, as it starts.
 */
export async function stopReply(runtime: Runtime, asker: Pick<Asker, 'userId' | 'key'>, chatId: string, turn?: string): Promise<boolean> {
  const streams = await chatStreams(runtime);
  const owner = ownerIdOf(asker.userId, asker.key ? ownerKeyOf(asker.key) : '');
  if (turn && owner) await streams.stopTurn(chatId, turn, owner);
  const mine = (await runningReplies(runtime, chatId)).filter((r) => owns(asker, r));
  for (const r of mine) await streams.stop(r.id);
  return mine.length > 0;
}
