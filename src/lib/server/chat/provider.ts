// Talking to an OpenAI-compatible model, and what its failures mean to the asker.
import { APICallError } from 'ai';
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

/** Tokens the provider says a reply used. */
export interface Usage { inputTokens?: number; outputTokens?: number }

export interface Generation {
  /** Text as it arrives. */
  deltas: AsyncIterable<string>;
  /** Usage reported by the provider, once the stream ended (null when it did not say). */
  usage(): Usage | null;
  /** The error that ended the stream, if any. */
  error(): unknown;
}

/**
 * Starts a streamed completion; the signal aborts the upstream request. The chat is text only (no
 * tools, steps or structured output), so it talks to the AI SDK's OpenAI-compatible model directly
 * (`doStream`, the provider interface `streamText` is built on): `streamText`'s own layers (a tee,
 * step and tool handling, a chain of transform streams per chunk) cost ~0.1 ms per chunk, which
 * 100 replies streaming at once on one core could not afford (bench/RESULTS.md, AI chat).
 */
export async function generate(model: ChatModelConfig, instructions: string, messages: { role: 'user' | 'assistant'; text: string }[], signal: AbortSignal): Promise<Generation> {
  const provider = createOpenAICompatible({ name: 'atrium', baseURL: model.baseUrl, apiKey: model.apiKey || undefined, includeUsage: true });
  const lm = provider.chatModel(model.modelId);
  type Prompt = Parameters<typeof lm.doStream>[0]['prompt'];
  const prompt: Prompt = [
    { role: 'system', content: instructions },
    ...messages.map((m): Prompt[number] => (m.role === 'user'
      ? { role: 'user', content: [{ type: 'text', text: m.text }] }
      : { role: 'assistant', content: [{ type: 'text', text: m.text }] })),
  ];
  const { stream } = await lm.doStream({ prompt, abortSignal: signal, includeRawChunks: false });
  let usage: Usage | null = null;
  let failure: unknown = null;
  async function* deltas(): AsyncIterable<string> {
    for await (const part of stream) {
      if (part.type === 'text-delta') yield part.delta;
      else if (part.type === 'finish') usage = { inputTokens: part.usage.inputTokens.total, outputTokens: part.usage.outputTokens.total };
      else if (part.type === 'error') { failure = part.error; return; }
    }
  }
  return { deltas: deltas(), usage: () => usage, error: () => failure };
}
