// A small OpenAI-compatible chat-completions server for tests and benches: no internet, no model.
// It streams a reply in SSE chunks with a configurable pace, reports token usage, and fails on
// demand. The model id picks the behaviour:
//   mock            a reply that quotes the question and cites [1]
//   mock-401        401 invalid API key        mock-429  429 rate limited
//   mock-500        500 server error           mock-400-context  400 context_length_exceeded
//   mock-cut        stops mid-stream (socket destroyed)
//   mock-hang       accepts the request and never answers
// A model id may end in `@<ms>` to set the pause between chunks (default: the server's).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockRequest {
  model: string;
  messages: { role: string; content: unknown }[];
  authorization: string;
  /** The request's `max_tokens` (null: none). The reply's length does not follow it. */
  maxTokens: number | null;
  /** Set when the client closed the connection before the reply ended (a stop). */
  aborted: boolean;
  /** Set when the reply ended normally. */
  finished: boolean;
}

export interface MockOpenAI {
  url: string;
  requests: MockRequest[];
  close(): Promise<void>;
}

export interface MockOptions {
  /** Pause between chunks, ms. */
  delayMs?: number;
  /** Words of the reply (the reply repeats its sentence until it has this many). */
  words?: number;
  port?: number;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { text += c; });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p: { text?: string }) => p.text ?? '').join('');
  return '';
}

/** The words a reply streams: deterministic, so tests can assert on them. */
export function mockReplyWords(question: string, count: number): string[] {
  const sentence = `Answer to "${question.slice(0, 60)}": see the guide [1].`.split(' ');
  const words: string[] = [];
  while (words.length < count) words.push(...sentence);
  return words.slice(0, Math.max(count, sentence.length)).map((w, i) => (i === 0 ? w : ` ${w}`));
}

export async function startMockOpenAI(options: MockOptions = {}): Promise<MockOpenAI> {
  const requests: MockRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const input = JSON.parse(await body(req)) as { model: string; messages: MockRequest['messages']; stream?: boolean; max_tokens?: number };
    const entry: MockRequest = { model: input.model, messages: input.messages, authorization: req.headers.authorization ?? '', maxTokens: input.max_tokens ?? null, aborted: false, finished: false };
    requests.push(entry);
    res.on('close', () => { if (!entry.finished) entry.aborted = true; });
    const [kind = 'mock', pace] = input.model.split('@');
    const delay = pace ? Number(pace) : options.delayMs ?? 5;
    const fail = (status: number, message: string, code: string): void => {
      entry.finished = true;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type: code, code } }));
    };
    if (kind === 'mock-401') return fail(401, 'Incorrect API key provided', 'invalid_api_key');
    if (kind === 'mock-429') return fail(429, 'Rate limit reached', 'rate_limit_exceeded');
    if (kind === 'mock-500') return fail(500, 'The server had an error', 'server_error');
    if (kind === 'mock-400-context') return fail(400, "This model's maximum context length is 8192 tokens", 'context_length_exceeded');
    if (kind === 'mock-hang') return;
    const question = textOf(input.messages.filter((m) => m.role === 'user').at(-1)?.content);
    const prompt = input.messages.reduce((n, m) => n + Math.ceil(textOf(m.content).length / 4), 0);
    const words = mockReplyWords(question, options.words ?? 12);
    const id = `chatcmpl-${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: object, finish: string | null = null, usage?: object): string =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: input.model, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    res.write(chunk({ role: 'assistant', content: '' }));
    for (const [i, word] of words.entries()) {
      if (res.destroyed) return;
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      if (res.destroyed) return;
      if (kind === 'mock-cut' && i === Math.floor(words.length / 2)) { res.destroy(); return; }
      res.write(chunk({ content: word }));
    }
    res.write(chunk({}, 'stop'));
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: input.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: words.length, total_tokens: prompt + words.length } })}\n\n`);
    entry.finished = true;
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
