// Module packages in a cloud upload mode. A package is private: it goes to the member's `private/<id>/`
// prefix (never under the public base URL), uploaded through server-presigned part PUTs in both cloud
// modes (the browser's COS credentials only ever cover `uploads/<id>/`), and read back only through
// `/api/modules/download`, which answers an authorised member with a short-lived signed GET URL
// (the store's `deliver`, reached through drivers.ts `deliverPackage` as a local package is).
import { and, eq, like, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { attachment } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { parseSize } from '../site/config';
import { fileSuffix } from './check';
import type { CloudFileInput, ObjectStore } from './cloud-store';
import { inspectPackage, packageRefused } from '../modules/inspect';
import type { Locale } from '../../i18n';

/** Seconds a signed package URL stays valid: long enough to start the download, too short to share. */
export const PACKAGE_URL_TTL = 300;

/** The attachment topic of module packages (the local handler records the same). */
export const PACKAGE_TOPIC = 'package';

/** Default `market_package_max_size` (the local handler's too). */
export const DEFAULT_PACKAGE_MAX = '20mb';

/** A version's `packagePath` that names an object in the store's private prefix (local ones are relative paths). */
export function isCloudPackage(packagePath: string): boolean {
  return packagePath.startsWith('/private/');
}

function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** The package rules before any byte moves: a `.zip` of at most `market_package_max_size`. */
export async function checkPackage(runtime: Pick<Runtime, 'site'>, input: Pick<CloudFileInput, 'name' | 'size'>): Promise<number> {
  const maxSize = parseSize(await runtime.site.get('market_package_max_size', DEFAULT_PACKAGE_MAX)) || parseSize(DEFAULT_PACKAGE_MAX);
  if (fileSuffix(input.name) !== 'zip') throw new AppError('devstudio.package.notZipName');
  if (input.size > maxSize) throw new AppError('devstudio.package.tooLarge', { values: { limit: sizeLabel(maxSize) } });
  return maxSize;
}

/**
 * After the callback: the object is a module package (a zip with a valid `atrium.json` naming files
 * it holds). The whole object is read back (at most `market_package_max_size`) and inspected as a
 * local upload is; every problem is in the refusal (in its message too: the upload queue shows
 * only that), in the developer's language.
 */
export async function checkStoredPackage(store: ObjectStore, key: string, size: number, locale: Locale): Promise<void> {
  const bytes = size > 0 ? await store.readHead(key, size).catch(() => Buffer.alloc(0)) : Buffer.alloc(0);
  const inspected = await inspectPackage(bytes);
  if (!inspected.ok) throw packageRefused(inspected.problems, locale, { listInMessage: true });
}

/** Whether a cloud package row of this member already exists for this content (dedupe, as locally). */
export async function cloudPackageRow(db: Db, userId: number, sha1: string) {
  const [row] = await db.select().from(attachment).where(and(
    eq(attachment.userId, userId), eq(attachment.sha1, sha1), eq(attachment.topic, PACKAGE_TOPIC), eq(attachment.storage, 'private'),
    like(attachment.url, '/private/%'),
  )).orderBy(sql`${attachment.id}`).limit(1);
  return row ?? null;
}
