// One streamed completion from an OpenAI-compatible model (POST {baseUrl}/chat/completions with
// `stream: true`), with its text gathered into frames. Runs in the chat worker thread
// (completion-worker.ts) or, where that file is not built (astro dev), on the request thread
// (provider.ts).
//
// The request is node:http(s) and the server-sent events are read by eventsource-parser (the parser
// the AI SDK's providers use). Not the SDK's provider (@ai-sdk/openai-compatible): its per-chunk
// layers (fetch's web stream, an SSE TransformStream, JSON and zod checks on a promise per chunk, the
// provider's own TransformStream) cost ~10 ms of CPU per 100-token reply against ~2.5 ms here, and
// 100 replies streaming at once on two cores fell behind the model's pacing because of it
// (bench/RESULTS.md, 2026-11-26). The chat reads three fields of each chunk: text, usage, error.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createParser } from 'eventsource-parser';

/** Longest a model's text waits to be sent with the text after it (the page redraws every 40 ms: useChat's throttle). */
export const FLUSH_MS = 50;

/** Where and what to ask: what a worker needs of a model (never its price or audience). */
export interface CompletionRequest {
  baseUrl: string;
  apiKey: string;
  modelId: string;
  instructions: string;
  messages: { role: 'user' | 'assistant'; text: string }[];
}

/** Tokens the provider says a reply used. */
export interface Usage { inputTokens?: number; outputTokens?: number }

/** What provider.ts's failureOf() reads of an error, as plain data (it crosses threads). */
export interface CompletionError { name: string; message: string; statusCode?: number; responseBody?: string; cause?: { code?: string } }

export interface CompletionEnd { usage: Usage | null; error: CompletionError | null }

/** Connections kept open between replies (idle ones do not keep the process alive). */
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
/** Most of a refusal's body kept for failureOf() (it reads "context length" and the like). */
const ERROR_BODY_MAX = 16 * 1024;

/** The request body: the system instructions, then the conversation, streamed with usage at the end. */
export function chatBody(req: Pick<CompletionRequest, 'modelId' | 'instructions' | 'messages'>): string {
  return JSON.stringify({
    model: req.modelId,
    messages: [{ role: 'system', content: req.instructions }, ...req.messages.map((m) => ({ role: m.role, content: m.text }))],
    stream: true,
    stream_options: { include_usage: true },
  });
}

/** What one chunk of the stream says: text, usage, or an error the provider sent inside the stream. */
export interface ChunkSays { text?: string; usage?: Usage; error?: string }

/** Reads one `data:` payload of an OpenAI-compatible stream; null for `[DONE]`, throws on bad JSON. */
export function readChunk(data: string): ChunkSays | null {
  if (data === '[DONE]') return null;
  const chunk = JSON.parse(data) as {
    choices?: { delta?: { content?: unknown } }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
    error?: { message?: unknown } | string;
  };
  const says: ChunkSays = {};
  const text = chunk.choices?.[0]?.delta?.content;
  if (typeof text === 'string' && text) says.text = text;
  const u = chunk.usage;
  if (u && typeof u === 'object') {
    says.usage = {
      ...(typeof u.prompt_tokens === 'number' ? { inputTokens: u.prompt_tokens } : {}),
      ...(typeof u.completion_tokens === 'number' ? { outputTokens: u.completion_tokens } : {}),
    };
  }
  if (chunk.error) says.error = typeof chunk.error === 'string' ? chunk.error : String(chunk.error.message ?? JSON.stringify(chunk.error));
  return says;
}

/** A refusal's message: the provider's `error.message` when the body is OpenAI's JSON, else the status line. */
function refusalMessage(res: IncomingMessage, body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string' && message) return message;
  } catch { /* not JSON */ }
  return `${res.statusCode} ${res.statusMessage ?? ''}`.trim();
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
 * Resolves when the stream ended (never rejects); the signal aborts the upstream request.
 */
export function complete(req: CompletionRequest, signal: AbortSignal, onText: (text: string) => void): Promise<CompletionEnd> {
  let usage: Usage | null = null;
  let failure: CompletionError | null = null;
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
  const take = (text: string): void => {
    pending += text;
    if (!timer) {
      const wait = flushed + FLUSH_MS - Date.now();
      if (wait <= 0) flush(); else timer = setTimeout(flush, wait);
    }
  };
  return new Promise<CompletionEnd>((resolve) => {
    let settled = false;
    const finish = (error: CompletionError | null): void => {
      if (settled) return;
      settled = true;
      failure ??= error;
      signal.removeEventListener('abort', onAbort);
      flush();
      resolve({ usage, error: failure });
    };
    let url: URL;
    try {
      url = new URL(`${req.baseUrl.replace(/\/+$/, '')}/chat/completions`);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`unsupported protocol ${url.protocol}`);
    } catch (err) {
      finish({ name: 'TypeError', message: `Cannot connect: ${(err as Error).message}` });
      return;
    }
    const body = chatBody(req);
    const secure = url.protocol === 'https:';
    let call: ReturnType<typeof httpRequest> | null = null;
    function onAbort(): void {
      failure ??= { name: 'AbortError', message: `aborted: ${String(signal.reason ?? 'abort')}` };
      call?.destroy();
      finish(null);
    }
    const open = (firstTry: boolean): void => {
      try {
        call = (secure ? httpsRequest : httpRequest)(url, {
          method: 'POST',
          agent: secure ? agents.https : agents.http,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            accept: 'text/event-stream',
            'user-agent': 'atrium-chat',
            ...(req.apiKey ? { authorization: `Bearer ${req.apiKey}` } : {}),
          },
        });
      } catch (err) {
        // Refused before sending, e.g. a key with a character a header cannot hold.
        finish(plainError(err));
        return;
      }
      const sent = call;
      sent.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed meanwhile: asked again once on a new one (Node's advice).
        if (firstTry && sent.reusedSocket && err.code === 'ECONNRESET' && !settled) { open(false); return; }
        finish({ name: err.name || 'Error', message: err.message || String(err), ...(err.code ? { cause: { code: err.code } } : {}) });
      });
      sent.on('response', (res) => read(res));
      sent.end(body);
    };
    const read = (res: IncomingMessage): void => {
      res.setEncoding('utf8');
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        let text = '';
        res.on('data', (d: string) => { if (text.length < ERROR_BODY_MAX) text += d; });
        res.on('end', () => finish({ name: 'APICallError', message: refusalMessage(res, text), statusCode: status, responseBody: text.slice(0, ERROR_BODY_MAX) }));
        res.on('close', () => finish({ name: 'APICallError', message: String(status), statusCode: status, responseBody: text.slice(0, ERROR_BODY_MAX) }));
        return;
      }
      const stop = (error: CompletionError): void => {
        failure = error;
        res.destroy();
        finish(null);
      };
      const parser = createParser({
        onEvent(event) {
          if (settled) return;
          let says: ChunkSays | null;
          try {
            says = readChunk(event.data);
          } catch {
            stop({ name: 'TypeError', message: `the model sent a chunk that is not JSON: ${event.data.slice(0, 200)}` });
            return;
          }
          if (!says) return;
          if (says.text) take(says.text);
          if (says.usage) usage = says.usage;
          if (says.error) stop({ name: 'Error', message: says.error });
        },
      });
      res.on('data', (d: string) => parser.feed(d));
      res.on('end', () => finish(null));
      // A stream the server broke off (closed before its end): the text so far is kept, the reply is "cut".
      res.on('close', () => { if (!res.complete) finish({ name: 'Error', message: 'terminated', cause: { code: 'ECONNRESET' } }); });
      res.on('error', () => undefined);
    };
    if (signal.aborted) { onAbort(); return; }
    signal.addEventListener('abort', onAbort, { once: true });
    open(true);
  });
}
