// Direct-upload input (prepare, sign, callback), shared by the API and the upload queue.
// Messages are keys of the `upload` and `validation` groups.
import { z } from 'zod';

const NO_CONTROL = /^[^\p{Cc}]*$/u;
const name = z.string({ error: 'upload.incomplete' }).trim().min(1, { error: 'upload.incomplete' }).max(255, { error: 'upload.incomplete' }).regex(NO_CONTROL, { error: 'upload.incomplete' });
/** attachment.size is a bigint; 1 TiB is beyond any store's single-object limit that matters here. */
const size = z.coerce.number({ error: 'upload.incomplete' }).int({ error: 'upload.incomplete' }).min(1, { error: 'upload.incomplete' }).max(2 ** 40, { error: 'upload.tooLarge' });
const type = z.string().trim().max(100).regex(NO_CONTROL).default('');
const sha1 = z.string({ error: 'upload.incomplete' }).trim().toLowerCase().regex(/^[0-9a-f]{40}$/, { error: 'upload.incomplete' });
const topic = z.string().trim().regex(/^[A-Za-z0-9_-]{1,20}$/, { error: 'upload.topicInvalid' }).default('default');
const key = z.string({ error: 'upload.foreignKey' }).min(1, { error: 'upload.foreignKey' }).max(250, { error: 'upload.foreignKey' }).regex(NO_CONTROL, { error: 'upload.foreignKey' });
const uploadId = z.string({ error: 'upload.noSuchUpload' }).min(1, { error: 'upload.noSuchUpload' }).max(1024, { error: 'upload.noSuchUpload' }).regex(/^[\x21-\x7e]+$/, { error: 'upload.noSuchUpload' });
const partNumber = z.coerce.number().int().min(1).max(10_000);

export const PrepareInput = z.object({ name, size, type, sha1, topic }).strict();

/** Presigned PUT URLs for up to 100 parts of one upload. */
export const SignInput = z.object({ key, uploadId, partNumbers: z.array(partNumber).min(1).max(100) }).strict();

/** Server-side steps of a multipart upload: list the parts on the store, complete, abort. */
export const MultipartInput = z.discriminatedUnion('op', [
  z.object({ op: z.literal('list'), key, uploadId }).strict(),
  z.object({ op: z.literal('complete'), key, uploadId, size, partSize: z.coerce.number().int().min(1024 * 1024).max(5 * 1024 ** 3) }).strict(),
  z.object({ op: z.literal('abort'), key, uploadId }).strict(),
]);

export const CallbackInput = z.object({ url: key, name, size, type, sha1, topic }).strict();
