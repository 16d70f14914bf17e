// The `s3` upload driver: any S3-compatible store (AWS S3, Cloudflare R2, MinIO, Ceph, Swift's
// s3api). The server starts each multipart upload in the member's own prefix and presigns its part
// PUTs; the browser sends the parts straight to the store, the bytes never pass through here.
// Listing, completing and aborting are small calls the server makes itself. S3Store implements
// ObjectStore: the common StorageDriver (storage.ts) plus those multipart calls.
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, GetObjectCommand,
  HeadObjectCommand, ListPartsCommand, S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { CloudSettings } from './cloud-settings';
import type { ObjectStore, PresignOp, Presigned, StoredPart } from './cloud-store';
import type { Delivery, ObjectHead } from './storage';

/** Presigned calls and temporary credentials live at most this long (spec §9: signature validity 900 s). */
export const SIGN_TTL = 900;

const clients = new Map<string, S3Client>();

function clientFor(s: CloudSettings): S3Client {
  const id = [s.endpoint, s.region, s.accessKeyId, s.secretAccessKey].join('\n');
  let client = clients.get(id);
  if (!client) {
    if (clients.size > 8) clients.clear();
    client = new S3Client({
      region: s.region,
      // Path-style for self-hosted stores; COS's S3 API wants the bucket in the host name.
      ...(s.endpoint ? { endpoint: s.endpoint, forcePathStyle: !/\.myqcloud\.com$/.test(new URL(s.endpoint).hostname) } : {}),
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
      // Checksums the browser cannot compute per part would be signed into the URLs: only when required.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
    });
    clients.set(id, client);
  }
  return client;
}

function statusOf(err: unknown): number {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
}

export class S3Store implements ObjectStore {
  readonly #client: S3Client;

  /** `driver` is what attachment rows record: `s3`, or `cos` when COS is reached through its S3 API. */
  constructor(private readonly settings: CloudSettings, readonly driver: 's3' | 'cos' = 's3') {
    this.#client = clientFor(settings);
  }

  async createMultipart(key: string, meta: { contentType: string; sha1: string }): Promise<string> {
    const out = await this.#client.send(new CreateMultipartUploadCommand({
      Bucket: this.settings.bucket, Key: key, ContentType: meta.contentType, Metadata: { sha1: meta.sha1 },
    }));
    if (!out.UploadId) throw new Error('s3: CreateMultipartUpload returned no UploadId');
    return out.UploadId;
  }

  async presign(op: PresignOp): Promise<Presigned> {
    const command = new UploadPartCommand({ Bucket: this.settings.bucket, Key: op.key, UploadId: op.uploadId, PartNumber: op.partNumber });
    const url = await getSignedUrl(this.#client, command, { expiresIn: SIGN_TTL });
    return { method: 'PUT', url, expires: Math.floor(Date.now() / 1000) + SIGN_TTL };
  }

  async listParts(key: string, uploadId: string): Promise<StoredPart[] | null> {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    try {
      for (let page = 0; page < 20; page++) {
        const out = await this.#client.send(new ListPartsCommand({ Bucket: this.settings.bucket, Key: key, UploadId: uploadId, MaxParts: 1000, ...(marker ? { PartNumberMarker: marker } : {}) }));
        for (const p of out.Parts ?? []) parts.push({ partNumber: p.PartNumber ?? 0, size: Number(p.Size ?? 0), etag: p.ETag ?? '' });
        if (!out.IsTruncated || !out.NextPartNumberMarker) break;
        marker = out.NextPartNumberMarker;
      }
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
    return parts;
  }

  async complete(key: string, uploadId: string, parts: StoredPart[]): Promise<void> {
    await this.#client.send(new CompleteMultipartUploadCommand({
      Bucket: this.settings.bucket, Key: key, UploadId: uploadId,
      MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
    }));
  }

  async head(key: string): Promise<ObjectHead | null> {
    try {
      const out = await this.#client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return { size: Number(out.ContentLength ?? -1), contentType: out.ContentType ?? '', sha1: out.Metadata?.sha1 ?? '' };
    } catch (err) {
      if (statusOf(err) === 404 || statusOf(err) === 403) return null;
      throw err;
    }
  }

  async readHead(key: string, bytes: number): Promise<Buffer> {
    const out = await this.#client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key, Range: `bytes=0-${bytes - 1}` }));
    return Buffer.from(await out.Body!.transformToByteArray());
  }

  async read(key: string, size: number): Promise<Buffer | null> {
    const bytes = await this.readHead(key, Math.max(1, size)).catch(() => null);
    return bytes?.length ? bytes : null;
  }

  /** A private object is never streamed through the server: a signed GET URL instead. */
  async deliver(key: string, fileName: string, seconds: number): Promise<Delivery | null> {
    if (!(await this.head(key))) return null;
    return { kind: 'redirect', url: await this.signedGet(key, seconds, fileName) };
  }

  async signedGet(key: string, seconds: number, fileName: string): Promise<string> {
    return getSignedUrl(this.#client, new GetObjectCommand({
      Bucket: this.settings.bucket, Key: key,
      ResponseContentDisposition: `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
    }), { expiresIn: seconds });
  }

  async abort(key: string, uploadId: string): Promise<void> {
    await this.#client.send(new AbortMultipartUploadCommand({ Bucket: this.settings.bucket, Key: key, UploadId: uploadId })).catch((err: unknown) => {
      if (statusOf(err) !== 404) throw err;
    });
  }

  /** Public URL of an object: `publicUrl/key`, else the endpoint's path-style URL. */
  publicUrl(key: string): string {
    const s = this.settings;
    const path = key.split('/').map(encodeURIComponent).join('/');
    if (s.publicUrl) return `${s.publicUrl}/${path}`;
    if (s.endpoint) return `${s.endpoint}/${s.bucket}/${path}`;
    return `https://${s.bucket}.s3.${s.region}.amazonaws.com/${path}`;
  }
}
