// Image dimensions from the first bytes (png, jpeg, gif, webp, bmp), read by image-size: shared by
// every driver, from the bytes its readHead gives back (local.ts, and the cloud modes' probe in cloud-api.ts).
import { imageSize } from 'image-size';

export interface ImageInfo { mime: string; width: number; height: number }

/** Reads `length` bytes at `offset` (fewer at the end of the file). */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

/** As much of the file as image-size reads from a file itself: enough to pass EXIF blocks before a JPEG frame header. */
export const IMAGE_HEAD = 512 * 1024;
/** The types stored as images (the member's declared type is kept for anything else, SVG included). */
const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp' };

/** The image type by its bytes and its size, or null when the bytes are not a known image. */
export async function readImageInfo(read: ReadAt): Promise<ImageInfo | null> {
  const head = await read(0, IMAGE_HEAD);
  let found: ReturnType<typeof imageSize>;
  try { found = imageSize(head); } catch { return null; }
  const mime = found.type ? IMAGE_TYPES[found.type] : undefined;
  const { width, height } = found;
  if (!mime || !Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width < 0 || height < 0) return null;
  return { mime, width, height };
}

/** `readImageInfo` of bytes already read (a driver's `readHead`). */
export function imageOfBytes(head: Buffer): Promise<ImageInfo | null> {
  return readImageInfo(async (offset, length) => head.subarray(offset, offset + length));
}
