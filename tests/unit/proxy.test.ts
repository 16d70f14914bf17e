import { describe, expect, it } from 'vitest';
import { forwardedClientIp, forwardedProto, parseTrustProxy } from '../../src/lib/server/proxy';

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
