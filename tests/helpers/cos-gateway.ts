// A COS-dialect gateway in front of an S3 store (Swift + s3api) for tests: no S3 server accepts
// COS's q-sign Authorization, so this checks it the way COS does (signature, the temporary
// credentials' token and policy: bucket, key prefix, expiry) and forwards the request re-signed
// (AWS SigV2). Not a storage mock: multipart state, ETags, parts and errors all come from the store.
import { createHash, createHmac } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localSecretKey } from '../../src/lib/server/upload/cos';
import { openLocalToken, qSign } from './cos-sign';

export interface CosGateway {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Requests the gateway let through, for assertions (`METHOD key?query`). */
  passed: string[];
  refused: { status: number; code: string; path: string }[];
  /**
   * Seconds the store's clock runs ahead of the real one (tests change it at any time): credentials
   * and signatures expire that much sooner at the store, as when a browser holds them too long.
   */
  clockOffset: number;
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** The S3 endpoint behind (Swift). */
  backend: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The site's COS secret key: it signs the local STS tokens. */
  master: string;
}

function xmlError(res: ServerResponse, origin: string | undefined, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>gateway</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body), ...cors(origin) });
  res.end(body);
}

function cors(origin: string | undefined): Record<string, string> {
  return origin ? {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': 'ETag, Content-Length, x-cos-request-id, x-cos-meta-sha1',
    vary: 'Origin',
  } : {};
}

/** Bucket and key of a request: `{bucket}.localhost` hosts (virtual-hosted) or `/{bucket}/{key}` paths. */
function locate(req: IncomingMessage): { bucket: string; key: string; rawKey: string } {
  const host = (req.headers.host ?? '').split(':')[0]!;
  const path = (req.url ?? '/').split('?')[0]!;
  const virtual = /^([a-z0-9-]+)\.localhost$/.exec(host);
  if (virtual) return { bucket: virtual[1]!, rawKey: path.slice(1), key: decodeURIComponent(path.slice(1)) };
  const [, bucket = '', ...rest] = path.split('/');
  return { bucket, rawKey: rest.join('/'), key: decodeURIComponent(rest.join('/')) };
}

/** SigV2 for the store: `test:tester` signs what the member asked, after the gateway's checks. */
function signV2(method: string, resource: string, headers: Record<string, string>, secret: string): string {
  const amz = Object.keys(headers).filter((h) => h.startsWith('x-amz-')).sort().map((h) => `${h}:${headers[h]}\n`).join('');
  const toSign = `${method}\n${headers['content-md5'] ?? ''}\n${headers['content-type'] ?? ''}\n${headers.date}\n${amz}${resource}`;
  return createHmac('sha1', secret).update(toSign).digest('base64');
}

const SUBRESOURCES = ['partNumber', 'uploadId', 'uploads'];

export async function startCosGateway(options: GatewayOptions): Promise<CosGateway> {
  const passed: string[] = [];
  const refused: CosGateway['refused'] = [];
  const state = { clockOffset: 0 };
  const backend = new URL(options.backend);

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const origin = req.headers.origin;
    const url = new URL(req.url ?? '/', 'http://gateway');
    const { bucket, key, rawKey } = locate(req);
    const deny = (status: number, code: string, message: string): void => {
      refused.push({ status, code, path: `${req.method} ${key}${url.search}` });
      req.resume();
      xmlError(res, origin, status, code, message);
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(200, {
        ...cors(origin),
        'access-control-allow-methods': 'GET, HEAD, PUT, POST, DELETE',
        'access-control-allow-headers': String(req.headers['access-control-request-headers'] ?? '*'),
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }

    // 1. The temporary credentials: a genuine token, not expired, its key id in the signature.
    const auth = Object.fromEntries(new URLSearchParams(String(req.headers.authorization ?? '')));
    const token = String(req.headers['x-cos-security-token'] ?? '');
    if (!auth['q-signature']) return deny(403, 'AccessDenied', 'Access Denied.');
    const now = Math.floor(Date.now() / 1000) + state.clockOffset;
    // A genuine token past its expiry is told apart from a forged one, as the store does.
    const claim = openLocalToken(options.master, token, 0);
    if (!claim) return deny(403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
    if (claim.exp <= now) return deny(403, 'ExpiredToken', 'The provided token has expired.');
    if (auth['q-ak'] !== claim.ak) return deny(403, 'InvalidAccessKeyId', 'The access key Id format you provided is invalid.');
    const [start, end] = String(auth['q-key-time'] ?? '').split(';').map(Number);
    if (!start || !end || end < now) return deny(403, 'AccessDenied', 'Request has expired');
    if (start > now + 60) return deny(403, 'RequestTimeTooSkewed', 'The difference between the request time and the server\'s time is too large.');

    // 2. The signature, recomputed from what arrived, with the key derived from the token.
    const headerNames = String(auth['q-header-list'] ?? '').split(';').filter(Boolean);
    const paramNames = String(auth['q-url-param-list'] ?? '').split(';').filter(Boolean);
    const headers: Record<string, string> = {};
    for (const h of headerNames) headers[h] = String(req.headers[h] ?? '');
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) if (paramNames.includes(k.toLowerCase())) query[k] = v;
    const expected = qSign({
      secretId: claim.ak, secretKey: localSecretKey(options.master, token), method: req.method ?? 'GET',
      pathname: `/${key}`, query, headers, keyTime: String(auth['q-key-time']),
    });
    if (new URLSearchParams(expected).get('q-signature') !== auth['q-signature']) return deny(403, 'SignatureDoesNotMatch', 'The Signature you specified is invalid.');
    // Every query parameter must be signed (else a signed PUT could be replayed as another call).
    for (const k of url.searchParams.keys()) if (!paramNames.includes(k.toLowerCase())) return deny(403, 'SignatureDoesNotMatch', `Parameter ${k} is not signed.`);

    // 3. The policy: this bucket, keys under the prefix (ListMultipartUploads: its prefix parameter).
    if (bucket !== claim.bucket) return deny(403, 'AccessDenied', 'Access Denied.');
    const listing = key === '' && url.searchParams.has('uploads') && req.method === 'GET';
    const target = listing ? url.searchParams.get('prefix') ?? '' : key;
    if (!target.startsWith(claim.prefix) || target.length === claim.prefix.length || target.split('/').some((s) => s === '..' || s === '.')) {
      return deny(403, 'AccessDenied', 'Access Denied: outside policy prefix.');
    }
    if (key === '' && !listing) return deny(403, 'AccessDenied', 'Access Denied.');

    // 4. Forward to the store, re-signed; x-cos-meta-* become x-amz-meta-*, other x-cos-* stay behind.
    const out: Record<string, string> = { date: new Date().toUTCString(), host: backend.host };
    for (const [name, value] of Object.entries(req.headers)) {
      const v = Array.isArray(value) ? value.join(',') : String(value ?? '');
      if (name.startsWith('x-cos-meta-')) out[`x-amz-meta-${name.slice('x-cos-meta-'.length)}`] = v;
      else if (['content-type', 'content-length', 'content-md5', 'range'].includes(name) && v) out[name] = v;
    }
    const path = `/${bucket}${rawKey ? `/${rawKey}` : '/'}`;
    const sub = SUBRESOURCES.filter((s) => url.searchParams.has(s)).sort().map((s) => (url.searchParams.get(s) ? `${s}=${url.searchParams.get(s)}` : s));
    const resource = `${listing ? `/${bucket}/` : path}${sub.length ? `?${sub.join('&')}` : ''}`;
    out.authorization = `AWS ${options.accessKeyId}:${signV2(req.method ?? 'GET', resource, out, options.secretAccessKey)}`;
    passed.push(`${req.method} ${key}${url.search}`);
    const upstream = httpRequest({ host: backend.hostname, port: backend.port, method: req.method, path: `${path}${url.search}`, headers: out }, (up) => {
      const headersOut: Record<string, string | string[]> = { ...cors(origin) };
      for (const [name, value] of Object.entries(up.headers)) {
        if (value === undefined || name.startsWith('access-control-')) continue;
        headersOut[name.startsWith('x-amz-meta-') ? `x-cos-meta-${name.slice('x-amz-meta-'.length)}` : name] = value;
      }
      res.writeHead(up.statusCode ?? 502, headersOut);
      up.pipe(res);
    });
    upstream.on('error', () => { if (!res.headersSent) xmlError(res, origin, 502, 'BadGateway', 'store unreachable'); else res.destroy(); });
    req.pipe(upstream);
  };

  const server: Server = createServer((req, res) => {
    try { handle(req, res); } catch (err) { xmlError(res, req.headers.origin, 500, 'InternalError', (err as Error).message); }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, port, passed, refused,
    get clockOffset() { return state.clockOffset; },
    set clockOffset(seconds: number) { state.clockOffset = seconds; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** sha1 hex of a buffer (tests compare what came back). */
export const sha1Hex = (b: Buffer): string => createHash('sha1').update(b).digest('hex');
