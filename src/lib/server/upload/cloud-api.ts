// What the direct-upload API calls share: the settings of the moment, the store of the current
// mode, the per-member limits, and the image probe. Route files stay "authenticate → parse → call".
import type { APIContext } from 'astro';
import { AppError, rateLimitReply } from '../http';
import type { Runtime } from '../runtime';
import { parseSize } from '../site/config';
import { cloudSettingsProblem, readCloudSettings, type CloudSettings } from './cloud-settings';
import type { ImageProbe, ObjectStore, UploadSettings } from './cloud-store';
import { DEFAULT_SAVE_NAME } from './save-name';
import { S3Store } from './s3';
import { imageOfBytes } from './image-info';

/** The same per-minute limit as local uploads (`POST /api/ajax/upload`). */
export const UPLOADS_PER_MINUTE = 30;
/** Presign calls: a 1 GB file is 200 parts signed in windows, plus list/complete/abort. */
export const SIGNS_PER_MINUTE = 600;

export interface CloudContext {
  cloud: CloudSettings;
  rules: UploadSettings & { dailyQuota: number };
  store: ObjectStore;
}

/** An error code and message from `upload_params.error` (spec §5), or null. */
function paramsError(raw: string | undefined): { code: number; message: string } | null {
  try {
    const p = JSON.parse(raw || '{}') as { error?: unknown; message?: unknown } | null;
    const e = p && typeof p === 'object' ? p.error : undefined;
    const code = typeof e === 'number' ? e : typeof e === 'string' && /^-?\d+$/.test(e.trim()) ? Number(e) : NaN;
    return Number.isFinite(code) ? { code, message: typeof p!.message === 'string' ? p!.message : '' } : null;
  } catch {
    return null;
  }
}

/** The object store of a cloud mode: COS is reached through its S3-compatible API on the server side. */
export function storeFor(cloud: CloudSettings): ObjectStore {
  if (cloud.mode !== 'cos') return new S3Store(cloud, 's3');
  return new S3Store({
    ...cloud,
    endpoint: cloud.endpoint || `https://cos.${cloud.region}.myqcloud.com`,
    publicUrl: cloud.publicUrl || `https://${cloud.bucket}.cos.${cloud.region}.myqcloud.com`,
  }, 'cos');
}

/**
 * The settings of a direct upload. Refuses when uploads are paused by `upload_params.error`, when
 * the site is in local mode (or `expect` names another driver), or when the operator's settings are
 * incomplete (logged; the member sees a generic message).
 */
export async function cloudContext(runtime: Runtime, expect?: CloudSettings['mode']): Promise<CloudContext> {
  const cfg = await runtime.site.all();
  const paused = paramsError(cfg.get('upload_params'));
  if (paused) throw new AppError('upload.paused', { code: paused.code, values: { message: paused.message } });
  const cloud = readCloudSettings(cfg);
  if (cloud.mode === 'local' || (expect && cloud.mode !== expect)) throw new AppError('upload.driverNotSupported', { values: { driver: expect ?? cloud.mode } });
  const problem = cloudSettingsProblem(cloud);
  if (problem) {
    runtime.log.error('cloud upload settings', { problem });
    throw new AppError('upload.notConfigured');
  }
  return {
    cloud,
    rules: {
      maxSize: parseSize(cfg.get('upload_max_size') || '10mb'),
      allowedSuffixes: cfg.get('upload_allowed_suffixes') ?? '',
      allowedMimeTypes: cfg.get('upload_allowed_mime_types') ?? '',
      saveName: cfg.get('upload_save_name') || DEFAULT_SAVE_NAME,
      timeZone: cfg.get('time_zone') || 'UTC',
      dailyQuota: cloud.dailyQuota,
    },
    store: storeFor(cloud),
  };
}

/** The per-member limit of an upload call: the 429 reply, or null. */
export function uploadLimit(ctx: APIContext, userId: number, kind: 'upload' | 'sign'): Promise<Response | null> {
  return kind === 'upload'
    ? rateLimitReply(ctx, `upload:${userId}`, UPLOADS_PER_MINUTE, 60)
    : rateLimitReply(ctx, `upload-sign:${userId}`, SIGNS_PER_MINUTE, 60);
}

export const probeImage: ImageProbe = imageOfBytes;

/**
 * The object key (`uploads/…`) behind a public URL of the store, or null when the URL is not one of
 * its public URLs (another host, another prefix, a query, an encoding the store would not produce).
 */
export function keyOfPublicUrl(store: Pick<ObjectStore, 'publicUrl'>, url: string): string | null {
  const base = store.publicUrl('k').slice(0, -1);
  if (!url.startsWith(base)) return null;
  let key: string;
  try {
    key = url.slice(base.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    return null;
  }
  return key.startsWith('uploads/') && store.publicUrl(key) === url ? key : null;
}

/** The object store of the site's upload mode, or why there is none to reach (local mode, incomplete settings). */
export async function currentCloudStore(runtime: Pick<Runtime, 'site'>): Promise<{ store: ObjectStore; problem: null } | { store: null; problem: string }> {
  const cloud = readCloudSettings(await runtime.site.all());
  const problem = cloud.mode === 'local' ? 'the site is in local upload mode' : cloudSettingsProblem(cloud);
  return problem ? { store: null, problem } : { store: storeFor(cloud), problem: null };
}

/** What the market needs to accept cover and screenshot URLs of the current cloud mode (undefined in local mode). */
export async function cloudImages(runtime: Runtime): Promise<{ storage: string; keyOf(url: string): string | null } | undefined> {
  const { store } = await currentCloudStore(runtime);
  if (!store) return undefined;
  return { storage: store.driver, keyOf: (url) => keyOfPublicUrl(store, url) };
}
