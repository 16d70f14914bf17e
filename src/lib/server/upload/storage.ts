// The one storage interface every upload driver implements (local-store.ts; s3.ts for `s3`, and for
// `cos` through its S3 API), as Apache Answer's storage plugins share one. A stored file is named by
// its key: the attachment row's `url` without the leading slash (`storage/…` for local uploads,
// `uploads/<id>/…` and `private/<id>/…` in a bucket, `<yyyymm>/<sha1>.zip` for local packages).
// How a file gets there is each driver's extension: the local driver places a file the server
// received (`put`), an object store completes a browser's direct multipart upload (ObjectStore).
import type { attachment } from '../db/schema';
import { fileSuffix } from './check';

export type AttachmentRow = typeof attachment.$inferSelect;

export interface ObjectHead { size: number; contentType: string; sha1: string }

/** How a member who may have a private file gets it: a short-lived signed URL, or the bytes from the server. */
export type Delivery =
  | { kind: 'redirect'; url: string }
  | { kind: 'stream'; size: number; open(): ReadableStream<Uint8Array> };

export interface StorageDriver {
  /** The driver's name (`local`, `s3`, `cos`): what a public attachment row records as its storage. */
  readonly driver: string;
  /** Where a public file is shown. */
  publicUrl(key: string): string;
  /** Size (and, where the driver keeps them, type and sha1) of a stored file; null when it is not there. */
  head(key: string): Promise<ObjectHead | null>;
  /** The first `bytes` of a stored file, fewer at its end (image dimensions, package checks); throws when it is not there. */
  readHead(key: string, bytes: number): Promise<Buffer>;
  /**
   * A stored file's bytes to hash or inspect, null when they cannot be read. `size` is the recorded
   * size: an object store reads that many (one ranged GET), a local file is read whole.
   */
  read(key: string, size: number): Promise<Buffer | null>;
  /** A private file for a member already authorised; null when it is not there. */
  deliver(key: string, fileName: string, seconds: number): Promise<Delivery | null>;
}

/** The key of an attachment row's `url` (or a version's `packagePath`). */
export function keyOf(url: string): string {
  return url.replace(/^\/+/, '');
}

/** An attachment as an upload reply shows it (local, s3 and cos alike); private files have no public URL. */
export function fileReply(row: AttachmentRow, store: Pick<StorageDriver, 'publicUrl'>) {
  return {
    id: row.id, topic: row.topic, admin_id: row.adminId, user_id: row.userId, url: row.url,
    width: row.width, height: row.height, name: row.name, size: row.size, mimetype: row.mimetype,
    storage: row.storage, sha1: row.sha1, last_upload_time: row.lastUploadTime,
    suffix: fileSuffix(row.name), full_url: row.storage === 'private' ? '' : store.publicUrl(keyOf(row.url)),
  };
}
