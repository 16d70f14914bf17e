// One reply: checks, retrieval, the quota decision, then the stream (the site assistant's or a
// model's) as a resumable UI message stream that keeps running when the asker's tab goes away.
import { and, desc, eq } from 'drizzle-orm';
import { createUIMessageStream, JsonToSseTransformStream, UI_MESSAGE_STREAM_HEADERS, generateId, type UIMessage, type UIMessageStreamWriter } from 'ai';
import type { z } from 'zod';
import type { Runtime } from '../runtime';
import { chatReply } from '../db/schema';
import { AppError } from '../http';
import { translator, type Locale } from '../../i18n';
import { renderMarkdown } from '../../markdown/render';
import { serverHighlight } from '../../markdown/highlight.server';
import { linkCitations, type ChatMetadata, type SourceMeta } from '../../shared/chat';
import { textOfParts, type SendInput } from '../../shared/validation/chat';
import { chatSettings } from './settings';
import { allModels, mayUse, SITE_ASSISTANT, type ChatModelConfig } from './models';
import { estimateTokens, groundingInstructions, retrieve, type Source } from './retrieve';
import { assistantAnswer, pieces } from './assistant';
import { dayBounds, decideQuota, settleReply, type Settlement } from './quota';
import { conversationOwner, ensureConversation, messageCount, messagesOf, setLeaf, storeAnswer, storeBranch } from './conversations';
import { chatStreams } from './streams';
import { failureOf, generate } from './provider';

/** SSE must reach the browser as it is written: `identity` keeps the server's on-the-fly compression (which buffers) away. */
const SSE_HEADERS = { ...UI_MESSAGE_STREAM_HEADERS, 'content-encoding': 'identity' };

export interface Asker {
  userId: number;
  groupId: number;
  ip: string;
  locale: Locale;
  /** App path → link on this host. */
  link: (path: string) => string;
}

type Input = z.output<typeof SendInput>;

/** The model a reply uses: the named one if the asker may use it, else the site assistant when nothing is named. */
export async function pickModel(runtime: Runtime, asker: Pick<Asker, 'userId' | 'groupId'>, name: string | undefined): Promise<ChatModelConfig | null> {
  if (name === SITE_ASSISTANT) return null;
  const models = (await allModels(runtime.db, runtime.config.chat.model)).filter((m) => mayUse(m, asker));
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

const sourceMeta = (s: Source, link: (p: string) => string): SourceMeta => ({
  n: s.n, kind: s.kind, title: s.title, heading: s.heading, url: link(s.url),
  excerpt: Array.from(s.text).length > 280 ? `${Array.from(s.text).slice(0, 280).join('')}…` : s.text,
});

/** Markdown of an answer with its citations linked, rendered and highlighted as every page is. */
export async function answerHtml(text: string, sources: SourceMeta[]): Promise<string> {
  return renderMarkdown(linkCitations(text, sources), { highlight: await serverHighlight() }).html;
}

/** Starts a reply and answers the UI message stream. */
export async function sendReply(runtime: Runtime, asker: Asker, input: Input): Promise<Response> {
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
  let title = '';
  const member = asker.userId > 0;
  if (member) {
    const owner = await conversationOwner(runtime.db, input.id);
    if (owner !== null && owner !== asker.userId) throw new AppError('chat.notFound', { status: 404 });
    if (await messageCount(runtime.db, input.id) >= settings.maxMessages) throw new AppError('chat.conversationTooLong', { status: 400, values: { max: settings.maxMessages } });
    const stored = new Map((await messagesOf(runtime.db, input.id)).map((m) => [m.id, m]));
    history = history.filter((m) => m.role === 'user' || stored.has(m.id)).map((m) => (m.role === 'assistant' ? { ...m, text: stored.get(m.id)!.text } : m));
  } else {
    title = question.slice(0, 40);
  }

  const timeZone = await runtime.site.get('time_zone', 'Asia/Shanghai');
  const day = dayBounds(timeZone);
  const streams = await chatStreams(runtime);
  const sources = await retrieve(runtime.db, question, { member, tokenBudget: settings.retrievalTokens }, streams.retrieval);
  const instructions = groundingInstructions(sources, await runtime.site.get('site_name', 'Atrium'), asker.locale);

  // Keep the newest history that fits the model's context with the instructions and room to answer.
  let modelHistory = history;
  if (model) {
    let budget = model.contextWindow - estimateTokens(instructions) - Math.min(2048, Math.floor(model.contextWindow / 4));
    const kept: typeof history = [];
    for (const m of [...history].reverse()) {
      budget -= estimateTokens(m.text) + 4;
      if (budget < 0 && kept.length) break;
      kept.unshift(m);
    }
    modelHistory = kept;
  }
  const promptTokens = estimateTokens(instructions) + modelHistory.reduce((n, m) => n + estimateTokens(m.text) + 4, 0);

  let free = true;
  if (model) {
    const decision = await decideQuota(runtime.db, model, { userId: asker.userId, ip: asker.ip }, promptTokens, day.start);
    if (!decision.ok) {
      const resets = formatReset(day.end, timeZone, asker.locale);
      throw new AppError(decision.reason === 'points' ? 'chat.noPoints' : 'chat.signInToContinue', {
        status: 402, values: { estimate: decision.estimate, score: decision.score, resets }, data: { resets: day.end, estimate: decision.estimate, score: decision.score },
      });
    }
    free = decision.free;
  }

  if (member) {
    ({ title } = await ensureConversation(runtime.db, asker.userId, input.id, question, modelName));
    await storeBranch(runtime.db, input.id, history);
  }
  const replyId = generateId();
  const createTime = Math.floor(Date.now() / 1000);
  await runtime.db.insert(chatReply).values({ id: replyId, chatId: input.id, userId: asker.userId, ip: asker.ip, model: modelName, free: free ? 1 : 0, createTime });
  if (member) await setLeaf(runtime.db, input.id, last.id, modelName);

  const controller = new AbortController();
  const untrack = streams.track(replyId, controller);
  const metaSources = sources.map((s) => sourceMeta(s, asker.link));
  const memo = t('chat.memo', { title });

  const stream = createUIMessageStream<UIMessage<ChatMetadata>>({
    onError: () => t('chat.error.server'),
    execute: async ({ writer }) => {
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
      if (errorKey) writer.write({ type: 'error', errorText: t(errorKey as 'chat.error.server') });
      const points = await settleReply(runtime.db, replyId, model, end, memo).catch((err: unknown) => {
        runtime.log.error('chat settle failed', { replyId, err: String(err) });
        return 0;
      });
      const html = text ? await answerHtml(text, metaSources) : '';
      const metadata: ChatMetadata = { model: modelName, sources: metaSources, html, status: end.status, points: points ?? 0, tokens: end.promptTokens + end.completionTokens, createTime };
      if (member && text) {
        await storeAnswer(runtime.db, input.id, { id: replyId, parentId: last.id, role: 'assistant', text, metadata: metadata as Record<string, unknown> })
          .catch((err: unknown) => runtime.log.error('chat store failed', { replyId, err: String(err) }));
      }
      writer.write({ type: 'finish', messageMetadata: metadata, finishReason: end.status === 'done' ? 'stop' : 'other' });
    },
  });

  const sse = stream.pipeThrough(new JsonToSseTransformStream());
  const body = await streams.context.createNewResumableStream(replyId, () => sse);
  return new Response((body ?? sse).pipeThrough(new TextEncoderStream()), { headers: { ...SSE_HEADERS, 'x-chat-reply': replyId } });
}

async function streamAssistant(writer: UIMessageStreamWriter, answer: string, signal: AbortSignal): Promise<string> {
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
    if (batch.length < 48) continue;
    flush();
    // Let other requests run between pieces of a long answer.
    if (++n % 8 === 0) await new Promise((r) => setImmediate(r));
  }
  if (!signal.aborted) flush();
  writer.write({ type: 'text-end', id: 'text' });
  return text;
}

async function streamModel(
  writer: UIMessageStreamWriter, model: ChatModelConfig, instructions: string, history: { id: string; role: 'user' | 'assistant'; text: string }[],
  controller: AbortController, timeoutSeconds: number, promptEstimate: number,
): Promise<{ text: string; end: Settlement; errorKey: string | null }> {
  let timedOut = false;
  let timer: NodeJS.Timeout | null = null;
  const arm = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => { timedOut = true; controller.abort('timeout'); }, timeoutSeconds * 1000);
  };
  arm();
  let text = '';
  let started = false;
  let caught: unknown = null;
  let generation: Awaited<ReturnType<typeof generate>> | null = null;
  try {
    generation = await generate(model, instructions, history.map((m) => ({ id: m.id, role: m.role, parts: [{ type: 'text', text: m.text }] })), controller.signal);
    for await (const delta of generation.deltas) {
      arm();
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

/** The running reply of a chat the asker owns, resumed from its start; null when none runs. */
export async function resumeReply(runtime: Runtime, asker: Pick<Asker, 'userId' | 'ip'>, chatId: string): Promise<Response | null> {
  const [row] = await runtime.db.select({ id: chatReply.id, userId: chatReply.userId, ip: chatReply.ip }).from(chatReply)
    .where(and(eq(chatReply.chatId, chatId), eq(chatReply.status, 'streaming'))).orderBy(desc(chatReply.createTime)).limit(1);
  if (!row || row.userId !== asker.userId || (row.userId === 0 && row.ip !== asker.ip)) return null;
  const streams = await chatStreams(runtime);
  const body = await streams.context.resumeExistingStream(row.id);
  if (!body) return null;
  return new Response(body.pipeThrough(new TextEncoderStream()), { headers: { ...SSE_HEADERS, 'x-chat-reply': row.id } });
}

/** Stops the running reply of a chat the asker owns; false when none runs. */
export async function stopReply(runtime: Runtime, asker: Pick<Asker, 'userId' | 'ip'>, chatId: string): Promise<boolean> {
  const rows = await runtime.db.select({ id: chatReply.id, userId: chatReply.userId, ip: chatReply.ip }).from(chatReply)
    .where(and(eq(chatReply.chatId, chatId), eq(chatReply.status, 'streaming')));
  const mine = rows.filter((r) => r.userId === asker.userId && (r.userId !== 0 || r.ip === asker.ip));
  const streams = await chatStreams(runtime);
  for (const r of mine) await streams.stop(r.id);
  return mine.length > 0;
}
