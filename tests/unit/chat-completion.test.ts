// The model side of a reply (src/lib/server/chat/completion.ts), against the local test server:
// text gathered into frames, usage, failures as plain data, abort reaching the upstream request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complete, FLUSH_MS, type CompletionRequest } from '../../src/lib/server/chat/completion';
import { failureOf } from '../../src/lib/server/chat/provider';
import { mockReplyWords, startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai';

let mock: MockOpenAI;
beforeAll(async () => { mock = await startMockOpenAI({ delayMs: 2, words: 40 }); });
afterAll(async () => { await mock.close(); });

const request = (modelId: string, question = 'How do I back up?'): CompletionRequest => ({
  baseUrl: mock.url, apiKey: 'test-key', modelId, instructions: 'Answer from the sources.', messages: [{ role: 'user', text: question }],
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
});
