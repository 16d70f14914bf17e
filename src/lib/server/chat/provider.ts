// Talking to an OpenAI-compatible model, and what its failures mean to the asker.
import { APICallError, convertToModelMessages, streamText, type UIMessage, type LanguageModelUsage } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ChatModelConfig } from './models';

export type ProviderFailure = 'auth' | 'rateLimit' | 'timeout' | 'context' | 'unreachable' | 'server' | 'cut';

/** Which failure an error from the provider call is (the chat.error.* message key). */
export function failureOf(error: unknown, timedOut: boolean): ProviderFailure {
  if (timedOut) return 'timeout';
  const err = error as { statusCode?: number; responseBody?: string; message?: string; cause?: { code?: string } } | null;
  if (APICallError.isInstance(error) || typeof err?.statusCode === 'number') {
    const status = err?.statusCode ?? 0;
    const body = `${err?.responseBody ?? ''} ${err?.message ?? ''}`;
    // A stream that began (200) and then broke off.
    if (status >= 200 && status < 300) return 'cut';
    if (status === 401 || status === 403) return 'auth';
    if (status === 429) return 'rateLimit';
    if (status === 408 || status === 504) return 'timeout';
    if ((status === 400 || status === 413) && /context|too long|maximum.*tokens|token limit/i.test(body)) return 'context';
    if (!status) return 'unreachable';
    return 'server';
  }
  const text = `${err?.message ?? ''} ${err?.cause?.code ?? ''}`;
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|fetch failed|Cannot connect/i.test(text)) return 'unreachable';
  if (/terminated|ECONNRESET|socket|premature|aborted/i.test(text)) return 'cut';
  return 'server';
}

export interface Generation {
  /** Text as it arrives. */
  deltas: AsyncIterable<string>;
  /** Usage reported by the provider, once the stream ended (null when it did not say). */
  usage(): LanguageModelUsage | null;
  /** The error that ended the stream, if any. */
  error(): unknown;
}

/** Starts a streamed completion; the signal aborts the upstream request. */
export async function generate(model: ChatModelConfig, instructions: string, messages: UIMessage[], signal: AbortSignal): Promise<Generation> {
  const provider = createOpenAICompatible({ name: 'atrium', baseURL: model.baseUrl, apiKey: model.apiKey || undefined, includeUsage: true });
  let usage: LanguageModelUsage | null = null;
  let failure: unknown = null;
  const result = streamText({
    model: provider.chatModel(model.modelId),
    instructions,
    messages: await convertToModelMessages(messages),
    abortSignal: signal,
    maxRetries: 0,
    // Failures reach the asker as a message (failureOf); the SDK need not print them too.
    onError: () => undefined,
  });
  async function* deltas(): AsyncIterable<string> {
    for await (const part of result.stream) {
      if (part.type === 'text-delta') yield part.text;
      else if (part.type === 'finish') usage = part.totalUsage;
      else if (part.type === 'error') { failure = part.error; return; }
      else if (part.type === 'abort') return;
    }
  }
  return { deltas: deltas(), usage: () => usage, error: () => failure };
}
