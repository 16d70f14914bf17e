// COS's request signature and the offline STS token check, as the COS-dialect gateway of the tests
// (cos-gateway.ts) and the tests themselves compute them; the product only issues credentials
// (src/lib/server/upload/cos.ts) and leaves signing to the browser's cos-js-sdk-v5.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { LocalClaim } from '../../src/lib/server/upload/cos';

const mac = (master: string, data: string): string => createHmac('sha256', master).update(data).digest('base64url');

/** encodeURIComponent plus the characters COS also escapes. */
export function cosEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The claim of a genuine, unexpired token; null for a forged, malformed or expired one. */
export function openLocalToken(master: string, sessionToken: string, now = Math.floor(Date.now() / 1000)): LocalClaim | null {
  const [payload, signature, extra] = sessionToken.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(master, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const claim = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LocalClaim;
    return typeof claim.exp === 'number' && claim.exp > now ? claim : null;
  } catch {
    return null;
  }
}

/** `a=1&b=2` of the given pairs: names lower-cased and sorted, both sides encoded. */
function canonical(pairs: Record<string, string>): { list: string; string: string } {
  const entries = Object.entries(pairs).map(([k, v]) => [cosEncode(k).toLowerCase(), cosEncode(v)] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { list: entries.map(([k]) => k).join(';'), string: entries.map(([k, v]) => `${k}=${v}`).join('&') };
}

export interface QSignInput {
  secretId: string;
  secretKey: string;
  method: string;
  /** `/<key>`, not encoded. */
  pathname: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** `start;end` in unix seconds. */
  keyTime: string;
}

/** The `Authorization` header value of a request, as cos-js-sdk-v5 computes it. */
export function qSign(input: QSignInput): string {
  const params = canonical(input.query);
  const headers = canonical(input.headers);
  const signKey = createHmac('sha1', input.secretKey).update(input.keyTime).digest('hex');
  const format = [input.method.toLowerCase(), input.pathname, params.string, headers.string, ''].join('\n');
  const toSign = ['sha1', input.keyTime, createHash('sha1').update(format).digest('hex'), ''].join('\n');
  const signature = createHmac('sha1', signKey).update(toSign).digest('hex');
  return [
    'q-sign-algorithm=sha1', `q-ak=${input.secretId}`, `q-sign-time=${input.keyTime}`, `q-key-time=${input.keyTime}`,
    `q-header-list=${headers.list}`, `q-url-param-list=${params.list}`, `q-signature=${signature}`,
  ].join('&');
}
