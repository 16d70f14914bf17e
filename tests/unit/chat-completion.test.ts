// The model side of a reply (src/lib/server/chat/completion.ts), against the local test server:
// text gathered into frames, usage, failures as plain data (also an error sent inside the stream),
// abort reaching the upstream request, the request the OpenAI way.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complete, FLUSH_MS, type CompletionRequest } from '../../src/lib/server/chat/completion';
import { failureOf } from '../../src/lib/server/chat/provider';
import { mockReplyWords, startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';

let mock: MockOpenAI;
beforeAll(async () => { mock = await startMockOpenAI({ delayMs: 2, words: 40 }); });
afterAll(async () => { await mock.close(); });

const request = (modelId: string, question = 'How do I back up?'): CompletionRequest => ({
  baseUrl: mock.url, apiKey: 'test-key', modelId, instructions: 'Answer from the sources.', messages: [{ role: 'user', text: question }], maxOutputTokens: 2048,
});

describe('complete', () => {
  it('streams the whole reply in fewer frames than tokens, the first at once, and reports usage', async () => {
    const frames: { text: string; at: number }[] = [];
    const started = Date.now();
    const end = await complete(request('mock@5', 'Where is the data directory?'), new AbortController().signal, (text) => frames.push({ text, at: Date.now() - started }));
    const words = mockReplyWords('Where is the data directory?', 40);
    expect(end.error).toBeNull();
    expect(frames.map((f) => f.text).join('')).toBe(words.join(''));
    // The first token leaves alone, at once; then 5 ms between tokens, frames of up to FLUSH_MS.
    expect(frames[0]!.text).toBe(words[0]);
    expect(frames.length).toBeLessThan(words.length / 2);
    expect(frames.length).toBeGreaterThan(1);
    // Between frames at least FLUSH_MS (less a timer's jitter), but the last: the end sends what is left at once.
    for (let i = 1; i < frames.length - 1; i++) expect(frames[i]!.at - frames[i - 1]!.at).toBeGreaterThanOrEqual(FLUSH_MS - 5);
    expect(end.usage?.outputTokens).toBe(words.length);
    expect(end.usage?.inputTokens).toBeGreaterThan(0);
  });

  it('returns a provider refusal as plain data that failureOf maps', async () => {
    const auth = await complete(request('mock-401'), new AbortController().signal, () => undefined);
    expect(auth.error?.statusCode).toBe(401);
    expect(structuredClone(auth.error)).toEqual(auth.error);
    expect(failureOf(auth.error, false)).toBe('auth');
    const limited = await complete(request('mock-429'), new AbortController().signal, () => undefined);
    expect(failureOf(limited.error, false)).toBe('rateLimit');
    const context = await complete(request('mock-400-context'), new AbortController().signal, () => undefined);
    expect(failureOf(context.error, false)).toBe('context');
  });

  it('an abort ends the upstream request and keeps the text received so far', async () => {
    const controller = new AbortController();
    let text = '';
    const before = mock.requests.length;
    const done = complete(request('mock@20', 'Stop me'), controller.signal, (t) => {
      text += t;
      if (!controller.signal.aborted) setTimeout(() => controller.abort('stop'), 60);
    });
    const end = await done;
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(mockReplyWords('Stop me', 40).join('').length);
    expect(end.error).not.toBeNull();
    await expect.poll(() => mock.requests[before]?.aborted).toBe(true);
  });

  it('sends the system instructions, the conversation, the key and the longest reply the OpenAI way', async () => {
    const before = mock.requests.length;
    const req = { ...request('mock@1', 'Where?'), maxOutputTokens: 300, messages: [{ role: 'user' as const, text: 'First' }, { role: 'assistant' as const, text: 'Reply' }, { role: 'user' as const, text: 'Where?' }] };
    const end = await complete(req, new AbortController().signal, () => undefined);
    expect(end.error).toBeNull();
    expect(mock.requests[before]).toMatchObject({ model: 'mock@1', authorization: 'Bearer test-key', maxTokens: 300, finished: true });
    expect(mock.requests[before]!.messages).toEqual([
      { role: 'system', content: 'Answer from the sources.' }, { role: 'user', content: 'First' }, { role: 'assistant', content: 'Reply' }, { role: 'user', content: 'Where?' },
    ]);
  });

  it('maps a server error, a stream cut in the middle and a closed port to their failures', async () => {
    const server = await complete(request('mock-500'), new AbortController().signal, () => undefined);
    expect(server.error).toMatchObject({ statusCode: 500, message: 'The server had an error' });
    expect(failureOf(server.error, false)).toBe('server');
    let text = '';
    const cut = await complete(request('mock-cut@1'), new AbortController().signal, (t) => { text += t; });
    expect(text.length).toBeGreaterThan(0);
    expect(failureOf(cut.error, false)).toBe('cut');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const unreachable = await complete({ ...request('mock'), baseUrl: `http://127.0.0.1:${port}/v1` }, new AbortController().signal, () => undefined);
    expect(failureOf(unreachable.error, false)).toBe('unreachable');
    const badUrl = await complete({ ...request('mock'), baseUrl: 'ftp://example.invalid' }, new AbortController().signal, () => undefined);
    expect(failureOf(badUrl.error, false)).toBe('unreachable');
  });

  it('ends on an error the provider sends inside the stream, keeping the text before it', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n');
      res.write('data: {"choices":[{"delta":{"content":"lo"}}]}\n\n');
      setTimeout(() => res.end('data: {"error":{"message":"overloaded"}}\n\n'), 10);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      let text = '';
      const end = await complete({ ...request('any'), baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, new AbortController().signal, (t) => { text += t; });
      expect(text).toBe('Hello');
      expect(end.error?.message).toBe('overloaded');
      expect(failureOf(end.error, false)).toBe('server');
    } finally {
      server.close();
    }
  });
});
