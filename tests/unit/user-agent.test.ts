import { describe, expect, it } from 'vitest';
import { describeUserAgent } from '../../src/lib/shared/user-agent';

describe('describeUserAgent', () => {
  it('names the browser, its major version and the system', () => {
    expect(describeUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36')).toBe('Chrome 131 · Windows');
    expect(describeUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86')).toBe('Edge 131 · Windows');
    expect(describeUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1')).toBe('Safari 17 · iOS');
    expect(describeUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('Firefox 128 · Linux');
    expect(describeUserAgent('Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36')).toBe('Samsung Internet 25 · Android');
    expect(describeUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15')).toBe('Safari 17 · macOS');
    expect(describeUserAgent('Mozilla/5.0 (Linux; Android 14) MicroMessenger/8.0.47 Chrome/120.0.0.0 Mobile Safari/537.36')).toBe('WeChat 8 · Android');
    expect(describeUserAgent('Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36')).toBe('Chrome 120 · ChromeOS');
  });

  it('keeps tools short and unknown headers recognisable', () => {
    expect(describeUserAgent('curl/8.5.0')).toBe('curl 8');
    expect(describeUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36')).toBe('Headless Chrome 131 · Linux');
    expect(describeUserAgent('node')).toBe('Node.js');
    expect(describeUserAgent('SomeBot/2.0 (+https://example.com/bot-info-page-that-is-long)')).toBe('SomeBot/2.0 (+https://example.com/bot-in');
    expect(describeUserAgent('')).toBe('');
  });
});
