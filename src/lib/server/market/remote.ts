// This market seen from another Atrium (issue 26 item 7). The market signs what its reviewers
// approved with its own ed25519 key (made once, kept in `market_key`; the private half never leaves
// the server), a member makes an API token in their member center, and a site holding that token
// lists what the member may install here (free modules, bought ones within their updates) and
// downloads the packages, counted as downloads. The site that connects pins the public key, so a
// package served by this server is believed only with a signature the pinned key checks.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { marketKey, memberApiToken, module, moduleVersion, user } from '../db/schema';
import { AppError } from '../http';
import { compareVersions } from '../../shared/market';
import { authoriseDownload } from './downloads';

const now = (): number => Math.floor(Date.now() / 1000);

/** JSON with object keys sorted at every depth: the bytes a signature covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What a market signs for a reviewed version. */
export interface SignedRelease {
  uid: string;
  version: string;
  sha256: string;
  manifest: unknown;
}

/** The bytes signed for a release: the canonical JSON of `{uid, version, sha256, manifest}`. */
export function releaseBytes(r: SignedRelease): Buffer {
  return Buffer.from(canonicalJson({ uid: r.uid, version: r.version, sha256: r.sha256, manifest: r.manifest }), 'utf8');
}

/** The fingerprint of a public key (base64 SPKI DER): the sha256 of its DER bytes, hex. */
export function keyFingerprint(publicKey: string): string {
  return createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex');
}

/** Whether `signature` (base64) is the ed25519 signature of `release` under `publicKey` (base64 SPKI DER). */
export function verifyRelease(publicKey: string, release: SignedRelease, signature: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    return verify(null, releaseBytes(release), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

interface KeyPair { publicKey: string; privateKey: string }
const cached = new WeakMap<Db, KeyPair>();

/** This market's key pair, made the first time it is asked for (two instances racing keep the first one written). */
async function keyPair(db: Db): Promise<KeyPair> {
  const known = cached.get(db);
  if (known) return known;
  let [row] = await db.select().from(marketKey).where(eq(marketKey.id, 1)).limit(1);
  if (!row) {
    const pair = generateKeyPairSync('ed25519');
    await db.insert(marketKey).values({
      id: 1,
      publicKey: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      privateKey: pair.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      createTime: now(),
    }).onConflictDoNothing();
    [row] = await db.select().from(marketKey).where(eq(marketKey.id, 1)).limit(1);
  }
  const pair = { publicKey: row!.publicKey, privateKey: row!.privateKey };
  cached.set(db, pair);
  return pair;
}

/** The market's public key as `GET /api/market/key` serves it. */
export async function marketPublicKey(db: Db): Promise<{ publicKey: string; fingerprint: string; algorithm: 'ed25519' }> {
  const { publicKey } = await keyPair(db);
  return { publicKey, fingerprint: keyFingerprint(publicKey), algorithm: 'ed25519' };
}

/** The market's signature (base64) of a reviewed release. */
export async function signRelease(db: Db, release: SignedRelease): Promise<string> {
  const { privateKey } = await keyPair(db);
  const key = createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  return sign(null, releaseBytes(release), key).toString('base64');
}

// ---- Member API tokens ------------------------------------------------------------------------

const TOKEN_PREFIX = 'atm_';
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
/** At most this many tokens per member. */
export const MAX_TOKENS = 20;

export interface ApiTokenRow { id: number; name: string; createTime: number; lastUseTime: number }

/** A member's tokens (never the token itself: only its hash is kept), newest first. */
export async function listApiTokens(db: Db, userId: number): Promise<ApiTokenRow[]> {
  return db.select({ id: memberApiToken.id, name: memberApiToken.name, createTime: memberApiToken.createTime, lastUseTime: memberApiToken.lastUseTime })
    .from(memberApiToken).where(eq(memberApiToken.userId, userId)).orderBy(desc(memberApiToken.id));
}

/** Makes a token for the member; the token is returned this once and kept only as its sha256. */
export async function createApiToken(db: Db, userId: number, name: string): Promise<{ id: number; token: string }> {
  if ((await listApiTokens(db, userId)).length >= MAX_TOKENS) throw new AppError('market.remote.tooManyTokens', { values: { n: MAX_TOKENS } });
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const [row] = await db.insert(memberApiToken).values({ userId, name, tokenHash: hashToken(token), createTime: now() }).returning({ id: memberApiToken.id });
  return { id: row!.id, token };
}

/** Revokes one of the member's tokens; another member's token is answered as not found. */
export async function revokeApiToken(db: Db, userId: number, id: number): Promise<void> {
  const gone = await db.delete(memberApiToken).where(and(eq(memberApiToken.id, id), eq(memberApiToken.userId, userId))).returning({ id: memberApiToken.id });
  if (!gone.length) throw new AppError('market.remote.tokenNotFound');
}

/**
 * The member a request's `authorization: Bearer <token>` names (an enabled member holding that
 * token); refused otherwise. Accepted only by the remote-market routes, never as a session.
 */
export async function memberOfToken(db: Db, header: string | null): Promise<number> {
  const m = /^Bearer\s+(atm_[A-Za-z0-9_-]{43})\s*$/.exec(header ?? '');
  if (!m) throw new AppError('market.remote.tokenRequired', { status: 401 });
  const [row] = await db.select({ id: memberApiToken.id, userId: memberApiToken.userId, status: user.status })
    .from(memberApiToken).innerJoin(user, eq(user.id, memberApiToken.userId)).where(eq(memberApiToken.tokenHash, hashToken(m[1]!))).limit(1);
  if (!row || row.status !== 'enable') throw new AppError('market.remote.tokenRequired', { status: 401 });
  await db.update(memberApiToken).set({ lastUseTime: now() }).where(eq(memberApiToken.id, row.id));
  return row.userId;
}

// ---- What a token's member may install -------------------------------------------------------

export interface RemoteRelease extends SignedRelease { signature: string; size: number }
export interface RemoteModule { uid: string; name: string; nameEn: string; free: boolean; latest: string; versions: RemoteRelease[] }

/**
 * Every published module with a reviewed package the member may install: free ones, and bought
 * ones at the versions their updates cover; each version signed by the market.
 */
export async function remoteList(db: Db, userId: number): Promise<RemoteModule[]> {
  const rows = await db.select({ uid: module.uid, name: module.name, nameEn: module.nameEn, price: module.price, scorePrice: module.scorePrice, v: moduleVersion })
    .from(module).innerJoin(moduleVersion, and(eq(moduleVersion.moduleId, module.id), eq(moduleVersion.status, 'published')))
    .where(eq(module.status, 'published'));
  const byUid = new Map<string, typeof rows>();
  for (const r of rows) if (r.v.packagePath && r.v.manifest && r.v.reviewedSha256) byUid.set(r.uid, [...(byUid.get(r.uid) ?? []), r]);
  const out: RemoteModule[] = [];
  for (const [uid, versions] of [...byUid].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const grant = await authoriseDownload(db, { userId, uid, reviewer: false }).catch((e: unknown) => {
      if (e instanceof AppError) return null;
      throw e;
    });
    if (!grant) continue;
    const allowed = versions.filter((r) => compareVersions(r.v.version, grant.version) <= 0).sort((a, b) => compareVersions(b.v.version, a.v.version));
    if (!allowed.length) continue;
    const first = allowed[0]!;
    const releases: RemoteRelease[] = [];
    for (const r of allowed) {
      const release = { uid, version: r.v.version, sha256: r.v.reviewedSha256, manifest: r.v.manifest };
      releases.push({ ...release, size: r.v.packageSize, signature: await signRelease(db, release) });
    }
    out.push({ uid, name: first.name, nameEn: first.nameEn, free: !(first.price > 0 || first.scorePrice > 0), latest: first.v.version, versions: releases });
  }
  return out;
}

/** The reviewed version a member may download through the remote API (the package route's check). */
export async function remoteGrant(db: Db, userId: number, uid: string, version: string) {
  const grant = await authoriseDownload(db, { userId, uid, version, reviewer: false });
  const [v] = await db.select({ status: moduleVersion.status, reviewedSha256: moduleVersion.reviewedSha256 }).from(moduleVersion).where(eq(moduleVersion.id, grant.versionId)).limit(1);
  if (!v || v.status !== 'published' || !v.reviewedSha256) throw new AppError('market.noPackage');
  return { ...grant, reviewedSha256: v.reviewedSha256 };
}
