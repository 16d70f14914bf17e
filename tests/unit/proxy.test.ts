import { describe, expect, it } from 'vitest';
import { exposedTrustProblem, forwardedClientIp, forwardedProto, parseTrustProxy } from '../../src/lib/server/proxy';

describe('TRUST_PROXY', () => {
  it('reads off, a number of proxies, or proxy addresses', () => {
    expect(parseTrustProxy(undefined)).toBeNull();
    expect(parseTrustProxy('0')).toBeNull();
    expect(parseTrustProxy('1')).toMatchObject({ hops: 1, addresses: null });
    expect(parseTrustProxy('true')).toMatchObject({ hops: 1, addresses: null });
    expect(parseTrustProxy('2')).toMatchObject({ hops: 2, addresses: null });
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8, ::1')?.addresses).not.toBeNull();
    expect(() => parseTrustProxy('yes please')).toThrow(/TRUST_PROXY/);
  });
});

describe('the client address behind proxies', () => {
  it('takes the entry the nearest proxy added, not what the client wrote on the left', () => {
    expect(forwardedClientIp('6.6.6.6, 203.0.113.9', '127.0.0.1', parseTrustProxy('1'))).toBe('203.0.113.9');
    expect(forwardedClientIp('6.6.6.6, 203.0.113.9, 10.0.0.2', '127.0.0.1', parseTrustProxy('2'))).toBe('203.0.113.9');
    expect(forwardedClientIp('203.0.113.9', '127.0.0.1', true)).toBe('203.0.113.9');
  });

  it('ignores the header when proxies are not trusted, or when it is not an address', () => {
    expect(forwardedClientIp('6.6.6.6', '192.0.2.1', null)).toBe('192.0.2.1');
    expect(forwardedClientIp('6.6.6.6', '192.0.2.1', false)).toBe('192.0.2.1');
    expect(forwardedClientIp('unknown', '192.0.2.1', true)).toBe('192.0.2.1');
  });

  it('with proxy addresses, walks from the right past trusted proxies and believes nothing from others', () => {
    const trust = parseTrustProxy('127.0.0.1,10.0.0.0/8');
    expect(forwardedClientIp('6.6.6.6, 203.0.113.9, 10.1.2.3', '127.0.0.1', trust)).toBe('203.0.113.9');
    expect(forwardedClientIp('6.6.6.6', '::ffff:192.0.2.1', trust)).toBe('::ffff:192.0.2.1');
    expect(forwardedProto('https', '192.0.2.1', trust)).toBeNull();
    expect(forwardedProto('https', '::ffff:127.0.0.1', trust)).toBe('https');
  });

  it('reads X-Forwarded-Proto only from trusted proxies', () => {
    expect(forwardedProto('https', '127.0.0.1', null)).toBeNull();
    expect(forwardedProto('https', '127.0.0.1', true)).toBe('https');
    expect(forwardedProto('gopher', '127.0.0.1', true)).toBeNull();
  });
});

describe('a count of proxies on an address beyond loopback', () => {
  const problem = (value: string, host: string): string | null => exposedTrustProblem(value, parseTrustProxy(value), host);

  it('is refused off loopback, with the fix named', () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10', '10.0.0.5', 'example.com']) {
      expect(problem('1', host), host).toMatch(/^TRUST_PROXY=1 believes X-Forwarded-For from any peer, and HOST=/);
      expect(problem('1', host)).toContain('TRUST_PROXY=127.0.0.1');
    }
    expect(problem('true', '0.0.0.0')).toMatch(/^TRUST_PROXY=true /);
    expect(problem('2', '0.0.0.0')).toMatch(/^TRUST_PROXY=2 /);
  });

  it('is allowed on loopback, and proxy addresses are allowed anywhere', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(problem('1', host), host).toBeNull();
    expect(problem('127.0.0.1', '0.0.0.0')).toBeNull();
    expect(problem('172.30.57.10', '::')).toBeNull();
    expect(problem('0', '0.0.0.0')).toBeNull();
    expect(problem('', '0.0.0.0')).toBeNull();
  });
});
