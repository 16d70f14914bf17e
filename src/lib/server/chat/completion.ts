// One streamed completion from an OpenAI-compatible model through the AI SDK, with its text
// gathered into frames. Runs in the chat worker thread (completion-worker.ts) or, where that file
// is not built (astro dev), on the request thread (provider.ts).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { LRUCache } from 'lru-cache';

/** Longest a model's text waits to be sent with the text after it (the page redraws every 40 ms: useChat's throttle). */
export const FLUSH_MS = 50;

/** Where and what to ask: what a worker needs of a model (never its price or audience). */
export interface CompletionRequest {
  baseUrl: string;
  apiKey: string;
  modelId: string;
  instructions: string;
  messages: { role: 'user' | 'assistant'; text: string }[];
  /** The longest reply (the provider's `max_tokens`). */
  maxOutputTokens: number;
}

/** Tokens the provider says a reply used. */
export interface Usage { inputTokens?: number; outputTokens?: number }

/** What provider.ts's failureOf() reads of an error, as plain data (it crosses threads). */
export interface CompletionError { name: string; message: string; statusCode?: number; responseBody?: string; cause?: { code?: string } }

export interface CompletionEnd { usage: Usage | null; error: CompletionError | null }

type LanguageModel = ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>;
/**
 * A model object per connection: it builds its response schemas once, not per reply. Connections
 * change rarely; a removed one's object is dropped once 32 others were used since.
 */
const languageModels = new LRUCache<string, LanguageModel>({ max: 32 });

function languageModel(req: Pick<CompletionRequest, 'baseUrl' | 'apiKey' | 'modelId'>): LanguageModel {
  const key = JSON.stringify([req.baseUrl, req.apiKey, req.modelId]);
  let lm = languageModels.get(key);
  if (!lm) {
    lm = createOpenAICompatible({ name: 'atrium', baseURL: req.baseUrl, apiKey: req.apiKey || undefined, includeUsage: true }).chatModel(req.modelId);
    languageModels.set(key, lm);
  }
  return lm;
}

export function plainError(error: unknown): CompletionError {
  const e = (error ?? {}) as { name?: unknown; message?: unknown; statusCode?: unknown; responseBody?: unknown; cause?: { code?: unknown } };
  return {
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : String(error),
    ...(typeof e.statusCode === 'number' ? { statusCode: e.statusCode } : {}),
    ...(typeof e.responseBody === 'string' ? { responseBody: e.responseBody.slice(0, 2000) } : {}),
    ...(typeof e.cause?.code === 'string' ? { cause: { code: e.cause.code } } : {}),
  };
}

/**
 * Streams a completion: `onText` gets the first text at once and later text gathered for up to
 * FLUSH_MS (one frame, one SSE event and one socket write downstream instead of one per token).
 * Resolves when the stream ended; the signal aborts the upstream request. The chat is text only
 * (no tools, steps or structured output), so it talks to the AI SDK's OpenAI-compatible model
 * directly (`doStream`, the provider interface `streamText` is built on): `streamText`'s own layers
 * cost ~0.1 ms per chunk, which 100 replies streaming at once could not afford (bench/RESULTS.md).
 */
export async function complete(req: CompletionRequest, signal: AbortSignal, onText: (text: string) => void): Promise<CompletionEnd> {
  const lm = languageModel(req);
  type Prompt = Parameters<typeof lm.doStream>[0]['prompt'];
  const prompt: Prompt = [
    { role: 'system', content: req.instructions },
    ...req.messages.map((m): Prompt[number] => (m.role === 'user'
      ? { role: 'user', content: [{ type: 'text', text: m.text }] }
      : { role: 'assistant', content: [{ type: 'text', text: m.text }] })),
  ];
  let usage: Usage | null = null;
  let failure: unknown = null;
  let pending = '';
  let timer: NodeJS.Timeout | null = null;
  let flushed = 0;
  const flush = (): void => {
    if (timer) { clearTimeout(timer); timer = null; }
    if (!pending) return;
    const text = pending;
    pending = '';
    flushed = Date.now();
    onText(text);
  };
  try {
    const { stream } = await lm.doStream({ prompt, maxOutputTokens: req.maxOutputTokens, abortSignal: signal, includeRawChunks: false });
    for await (const part of stream) {
      if (part.type === 'text-delta') {
        pending += part.delta;
        if (!timer) {
          const wait = flushed + FLUSH_MS - Date.now();
          if (wait <= 0) flush(); else timer = setTimeout(flush, wait);
        }
      } else if (part.type === 'finish') {
        usage = { inputTokens: part.usage.inputTokens.total, outputTokens: part.usage.outputTokens.total };
      } else if (part.type === 'error') {
        failure = part.error;
        break;
      }
    }
  } catch (err) {
    failure = err;
  } finally {
    flush();
  }
  return { usage, error: failure ? plainError(failure) : null };
}
