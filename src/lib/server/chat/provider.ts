// Talking to an OpenAI-compatible model, and what its failures mean to the asker.
import { APICallError } from 'ai';
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
 * Starts a streamed completion (OpenAI chat-completions with `stream: true`); the signal aborts the
 * upstream request. The chat is text only, so this is a fetch and an SSE line parser: the AI SDK's
 * `streamText` and its `@ai-sdk/openai-compatible` model cost ~11 ms of CPU per 100-chunk reply more
 * (a chain of transform streams and a zod validation of every chunk), which 100 replies streaming
 * at once on one core could not afford (bench/RESULTS.md, AI chat). Errors keep the SDK's shape
 * (`APICallError`), so failureOf() reads them the same way.
 */
export async function generate(model: ChatModelConfig, instructions: string, messages: { role: 'user' | 'assistant'; text: string }[], signal: AbortSignal): Promise<Generation> {
  const url = `${model.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const body = { model: model.modelId, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'system', content: instructions }, ...messages.map((m) => ({ role: m.role, content: m.text }))] };
  const res = await fetch(url, { method: 'POST', signal, headers: { 'content-type': 'application/json', ...(model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {}) }, body: JSON.stringify(body) });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    throw new APICallError({ message: text.slice(0, 500), url, requestBodyValues: {}, statusCode: res.status, responseBody: text });
  }
  let usage: Usage | null = null;
  let failure: unknown = null;
  const stream = res.body;
  async function* deltas(): AsyncIterable<string> {
    const decoder = new TextDecoder();
    let buf = '';
    for await (const bytes of stream) {
      buf += decoder.decode(bytes, { stream: true });
      let nl: number;
      let out = '';
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') continue;
        const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number }; error?: unknown };
        if (chunk.error) { failure = chunk.error; return; }
        const c = chunk.choices?.[0]?.delta?.content;
        if (c) out += c;
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
      }
      if (out) yield out;
    }
  }
  return { deltas: deltas(), usage: () => usage, error: () => failure };
}
