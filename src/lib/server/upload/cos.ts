// The `cos` upload driver's credentials: temporary keys the browser's cos-js-sdk-v5 signs with,
// allowed only the put and multipart calls on the member's own key prefix, valid 900 s at most.
// Production asks Tencent STS (qcloud-cos-sts, GetFederationToken); an offline site (COS_STS=local)
// mints keys of the same shape itself, which a COS-dialect gateway in front of its store checks.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CloudSettings } from './cloud-settings';

/** Spec §9: signatures and temporary credentials live 900 s. */
export const COS_CREDENTIAL_TTL = 900;

/** The calls a browser upload needs (simple put, multipart with resume, and abort on cancel). */
export const COS_UPLOAD_ACTIONS = [
  'name/cos:PutObject',
  'name/cos:PostObject',
  'name/cos:InitiateMultipartUpload',
  'name/cos:ListMultipartUploads',
  'name/cos:ListParts',
  'name/cos:UploadPart',
  'name/cos:CompleteMultipartUpload',
  'name/cos:AbortMultipartUpload',
] as const;

export interface CosCredentials {
  tmpSecretId: string;
  tmpSecretKey: string;
  sessionToken: string;
  startTime: number;
  expiredTime: number;
}

/** The CAM policy of a member's credentials: the upload actions on `<bucket>/<prefix>*` only. */
export function cosPolicy(bucket: string, region: string, prefix: string): { version: string; statement: unknown[] } {
  const appId = bucket.slice(bucket.lastIndexOf('-') + 1);
  return {
    version: '2.0',
    statement: [{
      action: [...COS_UPLOAD_ACTIONS],
      effect: 'allow',
      principal: { qcs: ['*'] },
      resource: [`qcs::cos:${region}:uid/${appId}:${bucket}/${prefix}*`],
    }],
  };
}

// ---------------------------------------------------------------------------------------------
// Offline STS: a token that carries its own policy, signed with the site's COS secret key.

export interface LocalClaim {
  /** The temporary SecretId. */
  ak: string;
  bucket: string;
  prefix: string;
  /** Unix seconds. */
  exp: number;
  actions: string[];
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

function mac(master: string, data: string): string {
  return createHmac('sha256', master).update(data).digest('base64url');
}

/** The temporary key of a token: derived, never stored (the gateway derives it the same way). */
export function localSecretKey(master: string, sessionToken: string): string {
  return mac(master, `key:${sessionToken}`);
}

export function issueLocalCredentials(master: string, bucket: string, prefix: string, now = Math.floor(Date.now() / 1000), ttl = COS_CREDENTIAL_TTL): CosCredentials {
  const claim: LocalClaim = { ak: `AKIDlocal${randomBytes(12).toString('hex')}`, bucket, prefix, exp: now + ttl, actions: [...COS_UPLOAD_ACTIONS] };
  const payload = b64url(JSON.stringify(claim));
  const sessionToken = `${payload}.${mac(master, payload)}`;
  return { tmpSecretId: claim.ak, tmpSecretKey: localSecretKey(master, sessionToken), sessionToken, startTime: now, expiredTime: claim.exp };
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

/**
 * Temporary credentials for one member's prefix: Tencent STS in production, the local issuer when
 * `COS_STS=local` (offline sites and tests, behind the COS-dialect gateway).
 */
export async function issueCosCredentials(cloud: CloudSettings, prefix: string, env: NodeJS.ProcessEnv = process.env): Promise<CosCredentials> {
  if (env.COS_STS === 'local') return issueLocalCredentials(cloud.secretAccessKey, cloud.bucket, prefix);
  const { default: STS } = await import('qcloud-cos-sts');
  const data = await STS.getCredential({
    secretId: cloud.accessKeyId,
    secretKey: cloud.secretAccessKey,
    region: cloud.region,
    durationSeconds: COS_CREDENTIAL_TTL,
    policy: cosPolicy(cloud.bucket, cloud.region, prefix),
    ...(env.COS_STS_ENDPOINT ? { endpoint: env.COS_STS_ENDPOINT } : {}),
  });
  return { ...data.credentials, startTime: data.startTime, expiredTime: data.expiredTime };
}

// ---------------------------------------------------------------------------------------------
// q-sign: COS's request signature (https://cloud.tencent.com/document/product/436/7778)

/** encodeURIComponent plus the characters COS also escapes. */
export function cosEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
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
