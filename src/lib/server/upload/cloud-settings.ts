// Settings of direct (browser → object store) uploads: the site settings `upload_mode` and
// `upload_params` (bucket, region, endpoint, publicUrl) say where; the keys come from the
// environment only, so they are never stored in the database or shown in the admin console.
import { parseSize } from '../site/config';

export type UploadMode = 'local' | 's3' | 'cos';
export const UPLOAD_MODES: readonly UploadMode[] = ['local', 's3', 'cos'];

/** Bucket `name-digits` and region rules of spec §5 (COS); S3 buckets follow the DNS-name rule. */
export const COS_BUCKET = /^([a-z\d-]+)-(\d+)$/;
export const COS_REGION = /^([a-z\d-]+)$/;
export const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
export const S3_REGION = /^[a-z0-9-]{1,40}$/;

export interface CloudSettings {
  mode: UploadMode;
  bucket: string;
  region: string;
  /** `https://s3.example.com` (S3: required except for AWS itself; COS: empty = the regional host). */
  endpoint: string;
  /** Base URL files are read from (CDN or the bucket's public URL), without a trailing slash. */
  publicUrl: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Bytes a member may upload per day; 0 = no limit. */
  dailyQuota: number;
}

/** Reads the cloud settings: site settings first, environment as the fallback (and for keys). */
export function readCloudSettings(cfg: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv = process.env): CloudSettings {
  const mode = (cfg.get('upload_mode') || 'local') as UploadMode;
  let params: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(cfg.get('upload_params') || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) params = parsed as Record<string, unknown>;
  } catch { /* a broken JSON value counts as no parameters */ }
  const str = (key: string): string => (typeof params[key] === 'string' ? (params[key] as string).trim() : '');
  const isCos = mode === 'cos';
  const e = (s3: string, cos: string): string => (isCos ? env[cos] : env[s3])?.trim() ?? '';
  return {
    mode: UPLOAD_MODES.includes(mode) ? mode : 'local',
    bucket: str('bucket') || e('S3_BUCKET', 'COS_BUCKET'),
    region: str('region') || e('S3_REGION', 'COS_REGION') || (isCos ? '' : 'us-east-1'),
    endpoint: (str('endpoint') || e('S3_ENDPOINT', 'COS_ENDPOINT')).replace(/\/+$/, ''),
    publicUrl: (str('publicUrl') || e('S3_PUBLIC_URL', 'COS_PUBLIC_URL')).replace(/\/+$/, ''),
    accessKeyId: e('S3_ACCESS_KEY_ID', 'COS_SECRET_ID'),
    secretAccessKey: e('S3_SECRET_ACCESS_KEY', 'COS_SECRET_KEY'),
    dailyQuota: parseSize(cfg.get('upload_daily_quota') || '0'),
  };
}

/**
 * What is wrong with the cloud settings, as `missing param X` / format messages (spec §5), or null.
 * These are operator errors: the API answers them with a generic message and logs this text.
 */
export function cloudSettingsProblem(s: CloudSettings): string | null {
  if (s.mode === 'local') return null;
  if (!s.bucket) return 'missing param Bucket';
  if (!s.region) return 'missing param Region';
  if (s.mode === 'cos') {
    if (!COS_BUCKET.test(s.bucket)) return 'Bucket should format as "test-1250000000".';
    if (s.region.startsWith('cos.')) return 'param Region should not be start with "cos."';
    if (!COS_REGION.test(s.region)) return 'Region format error.';
  } else {
    if (!S3_BUCKET.test(s.bucket)) return 'Bucket name format error.';
    if (!S3_REGION.test(s.region)) return 'Region format error.';
  }
  if (s.endpoint && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(s.endpoint)) return 'Endpoint must be an http(s) URL.';
  if (s.publicUrl && !/^(https?:)?\/\/[^\s/]+(\/[^\s]*)?$/.test(s.publicUrl)) return 'Public URL must be an http(s) URL.';
  if (!s.accessKeyId) return s.mode === 'cos' ? 'missing param SecretId' : 'missing param AccessKeyId';
  if (!s.secretAccessKey) return s.mode === 'cos' ? 'missing param SecretKey' : 'missing param SecretAccessKey';
  return null;
}

/** The key prefix a member may write: `uploads/<id>/` (public files) or `private/<id>/` (packages). */
export function memberPrefix(userId: number, area: 'uploads' | 'private' = 'uploads'): string {
  return `${area}/${userId}/`;
}

/** Whether `key` is a plain object key strictly inside `prefix` (no `..`, empty or hidden segments). */
export function keyInPrefix(key: string, prefix: string): boolean {
  if (!key.startsWith(prefix) || key.length > 250 || /[\\\0\p{Cc}]/u.test(key)) return false;
  const rest = key.slice(prefix.length).split('/');
  return rest.length > 0 && rest.every((s) => s !== '' && s !== '.' && s !== '..' && !s.startsWith('.'));
}
