// cos mode: Tencent Cloud COS through cos-js-sdk-v5, with temporary credentials from
// `/api/Cos/refreshToken` (reused by the SDK until 60 s before they expire). The SDK sends the
// parts itself and resumes on its own (ListMultipartUploads + ListParts): the key is remembered
// here so the same file chosen again after a reload lands on the same key.
import COS from 'cos-js-sdk-v5';
import { ApiError, request } from '../api';
import { fingerprintOf, QUEUE, type ResumeRecord } from '../../shared/upload-queue';
import { tu } from './messages';
import { findResume, forgetResumeRecord, saveResume } from './resume';
import { UploadFailure, type UploadedFile, type UploadJob } from './transports';

interface CosConfig { bucket?: string; region?: string; domain?: string }
interface Credentials { tmpSecretId: string; tmpSecretKey: string; sessionToken: string; startTime: number; expiredTime: number }

let client: COS | null = null;
let clientFor = '';

function cosClient(config: CosConfig): COS {
  const id = `${config.bucket}|${config.region}|${config.domain}`;
  if (client && clientFor === id) return client;
  const domain = config.domain ?? '';
  const protocol = /^http:\/\//.test(domain) || (!/^https:\/\//.test(domain) && location.protocol === 'http:' && domain !== '') ? 'http:' : 'https:';
  client = new COS({
    ...(domain ? { Domain: domain.replace(/^https?:\/\//, '') } : {}),
    Protocol: protocol,
    SliceSize: QUEUE.minPartSize,
    ChunkSize: QUEUE.partSize,
    ChunkParallelLimit: QUEUE.partParallel,
    FileParallelLimit: QUEUE.fileParallel,
    ChunkRetryTimes: QUEUE.partRetries,
    ProgressInterval: QUEUE.progressInterval,
    UploadIdCacheLimit: QUEUE.cachedUploads,
    CorrectClockSkew: true,
    getAuthorization(_options, callback) {
      request<Credentials>('/api/cos/refreshToken', { showErrorMessage: false }).then(({ data }) => callback({
        TmpSecretId: data.tmpSecretId, TmpSecretKey: data.tmpSecretKey, SecurityToken: data.sessionToken,
        StartTime: data.startTime, ExpiredTime: data.expiredTime,
      })).catch((err: unknown) => callback({ Authorization: '', SecurityToken: '', error: err } as never));
    },
  });
  clientFor = id;
  return client;
}

/** The SDK's error in the member's language: the spec's messages where it has one. */
function cosFailure(err: unknown): UploadFailure {
  const e = err as { statusCode?: number; code?: string; message?: string; error?: { Message?: string } };
  if (err instanceof ApiError) return new UploadFailure(err.message);
  if (e.statusCode === 0 || /network|CORS blocked/i.test(e.message ?? '')) return new UploadFailure(tu('upload.error.network'));
  if (e.code === 'RequestTimeTooSkewed' || e.code === 'ExpiredToken' || /expired/i.test(e.message ?? e.error?.Message ?? '')) return new UploadFailure(tu('upload.error.expired'));
  if (/ETag/.test(e.message ?? '')) return new UploadFailure(tu('upload.error.cors'));
  return new UploadFailure(tu('upload.error.store', { status: e.code || e.statusCode || '?' }));
}

export async function uploadCos(job: UploadJob, config: CosConfig): Promise<UploadedFile> {
  const cos = cosClient(config);
  const fingerprint = fingerprintOf(job.sha1, job.file.size, job.topic);
  let record = findResume(fingerprint, 'cos');
  if (!record) {
    let prepared: { key?: string; partSize?: number; file?: UploadedFile };
    try {
      prepared = (await request<typeof prepared>('/api/upload/prepare', {
        method: 'POST', showErrorMessage: false, signal: job.signal,
        data: { name: job.file.name, size: job.file.size, type: job.file.type, sha1: job.sha1, topic: job.topic },
      })).data;
    } catch (err) {
      throw cosFailure(err);
    }
    if (prepared.file) { job.onProgress(job.file.size); return prepared.file; }
    record = { fingerprint, driver: 'cos', key: prepared.key!, uploadId: '', partSize: prepared.partSize ?? QUEUE.partSize, time: Date.now() } satisfies ResumeRecord;
    saveResume(record);
  }
  const key = record.key;
  await new Promise<void>((resolve, reject) => {
    let taskId = '';
    const onAbort = (): void => { if (taskId) cos.pauseTask(taskId); reject(job.signal.reason); };
    job.signal.addEventListener('abort', onAbort, { once: true });
    cos.uploadFile({
      Bucket: config.bucket!, Region: config.region!, Key: key, Body: job.file, ChunkSize: record.partSize, SliceSize: QUEUE.minPartSize,
      ContentType: job.file.type || 'application/octet-stream',
      // The callback compares it with the sha1 the upload was prepared for.
      Headers: { 'x-cos-meta-sha1': job.sha1 },
      onTaskReady: (id) => { taskId = id; },
      onProgress: (info) => job.onProgress(info.loaded),
    }, (err) => {
      job.signal.removeEventListener('abort', onAbort);
      if (job.signal.aborted) return;
      if (err) reject(cosFailure(err));
      else resolve();
    });
  });
  job.stats.bytesSent += job.file.size;
  forgetResumeRecord(fingerprint);
  try {
    const reply = await request<{ file: UploadedFile }>('/api/cos/callback', {
      method: 'POST', showErrorMessage: false, signal: job.signal,
      data: { url: key, name: job.file.name, size: job.file.size, type: job.file.type, sha1: job.sha1, topic: job.topic },
    });
    return reply.data.file;
  } catch (err) {
    throw cosFailure(err);
  }
}

/** Cancel: the multipart upload of that key is aborted on the store. */
export async function abortCos(sha1: string, size: number, topic: string, config: CosConfig): Promise<void> {
  const fingerprint = fingerprintOf(sha1, size, topic);
  const record = findResume(fingerprint, 'cos');
  if (!record) return;
  forgetResumeRecord(fingerprint);
  await cosClient(config).abortUploadTask({ Bucket: config.bucket!, Region: config.region!, Key: record.key, Level: 'file' }).catch(() => undefined);
}
