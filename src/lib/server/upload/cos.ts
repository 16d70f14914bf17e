// The `cos` upload driver's credentials: temporary keys the browser's cos-js-sdk-v5 signs with,
// allowed only the put and multipart calls on the member's own key prefix, valid 900 s at most.
// Production asks Tencent STS (qcloud-cos-sts, GetFederationToken); an offline site (COS_STS=local)
// mints keys of the same shape itself, which a COS-dialect gateway in front of its store checks.
import { createHmac, randomBytes } from 'node:crypto';
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

// COS's request signature (https://cloud.tencent.com/document/product/436/7778) is computed by the
// browser's cos-js-sdk-v5; the tests sign and check it with tests/helpers/cos-sign.ts.
