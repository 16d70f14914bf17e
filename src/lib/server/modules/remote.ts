// Installing from another Atrium's market (issue 26 item 7). An administrator connects this site to
// a remote market with a member's API token made there; the market's ed25519 public key is pinned
// then. Installing fetches the list the token's member may install, the package, and believes it
// only when the pinned key verifies the market's signature over {uid, version, sha256, manifest},
// the bytes hash to the signed sha256 and the package's manifest is the signed one for an Atrium
// this one is. The release is then recorded in this site's market as published and reviewed (the
// signed sha256 pinned) and installed through the ordinary lifecycle (lifecycle.ts), so every
// instance unpacks it from the database's copy and runs it as any other package.
import { createHash, createPublicKey } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { and, eq, ne } from 'drizzle-orm';
import { module, moduleRemote, moduleRemoteSource, moduleVersion } from '../db/schema';
import { AppError } from '../http';
import type { Runtime } from '../runtime';
import { CLI_ACTOR, recordAction, type Actor } from '../admin/audit';
import { ATRIUM_VERSION } from '../market/package-review';
import { packageFile } from '../market/packages';
import { canonicalJson, keyFingerprint, verifyRelease, type RemoteModule, type RemoteRelease } from '../market/remote';
import { moduleText } from '../market/text';
import { FIRST_PARTY } from '../market/seed';
import { inspectPackage } from './inspect';
import { worksWith, type Manifest } from './manifest';
import { installPackaged } from './lifecycle';

type Rt = Pick<Runtime, 'db' | 'config' | 'site' | 'log' | 'bus' | 'invalidation'>;
export type RemoteRow = typeof moduleRemote.$inferSelect;

const now = (): number => Math.floor(Date.now() / 1000);
const TIMEOUT_MS = 15_000;
/** The largest package fetched from a remote market. */
const MAX_PACKAGE = 64 * 1024 * 1024;

/** `https://host[:port][/path]` without a trailing slash, or refused. */
export function marketUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new AppError('market.remote.badUrl');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) throw new AppError('market.remote.badUrl');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** One call to the remote market's API: its envelope's `data`, or the bytes; refused with the reason. */
async function call(url: string, path: string, token: string | null, kind: 'json'): Promise<unknown>;
async function call(url: string, path: string, token: string | null, kind: 'bytes'): Promise<Buffer>;
async function call(url: string, path: string, token: string | null, kind: 'json' | 'bytes'): Promise<unknown> {
  const fail = (reason: string): never => { throw new AppError('market.remote.unreachable', { values: { url, reason } }); };
  const res = await fetch(`${url}${path}`, {
    headers: { accept: kind === 'json' ? 'application/json' : 'application/zip', 'think-lang': 'en', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    redirect: 'error',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
  const type = res.headers.get('content-type') ?? '';
  if (kind === 'bytes' && res.ok && type.startsWith('application/zip')) {
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > MAX_PACKAGE) fail(`package of ${length} bytes`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length > MAX_PACKAGE) fail(`package of ${bytes.length} bytes`);
    return bytes;
  }
  if (!type.includes('json')) fail(`HTTP ${res.status}, ${type || 'no content type'}`);
  const body = (await res.json().catch(() => null)) as { code?: number; msg?: string; data?: unknown } | null;
  if (!body || typeof body.code !== 'number') fail(`HTTP ${res.status}, not an Atrium envelope`);
  if (body!.code !== 1) fail(body!.msg || `code ${body!.code}`);
  return body!.data;
}

/** The key the market serves now, checked to be an ed25519 key whose fingerprint is what it says. */
export async function servedKey(url: string): Promise<{ publicKey: string; fingerprint: string }> {
  const data = (await call(url, '/api/market/key', null, 'json')) as { publicKey?: unknown; fingerprint?: unknown } | null;
  const publicKey = typeof data?.publicKey === 'string' ? data.publicKey : '';
  // A key that verifies nothing is no key: check it parses as ed25519 SPKI.
  if (!publicKey || keyFingerprint(publicKey) !== data?.fingerprint || !isEd25519(publicKey)) throw new AppError('market.remote.badKey', { values: { url } });
  return { publicKey, fingerprint: data.fingerprint as string };
}

function isEd25519(publicKey: string): boolean {
  try {
    return createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' }).asymmetricKeyType === 'ed25519';
  } catch {
    return false;
  }
}

export async function fetchList(remote: Pick<RemoteRow, 'url' | 'token'>): Promise<RemoteModule[]> {
  const data = (await call(remote.url, '/api/market/remote/list', remote.token, 'json')) as { modules?: unknown } | null;
  if (!Array.isArray(data?.modules)) throw new AppError('market.remote.unreachable', { values: { url: remote.url, reason: 'no module list' } });
  return data.modules as RemoteModule[];
}

/**
 * Connects to (or reconnects) a remote market: pins the key it serves now (or refuses when it is
 * not the `expectFingerprint` given) after the token lists what its member may install.
 */
export async function connectRemote(rt: Rt, input: { url: string; token: string; expectFingerprint?: string }, actor: Actor = CLI_ACTOR): Promise<{ remote: RemoteRow; modules: RemoteModule[] }> {
  const url = marketUrl(input.url);
  const token = input.token.trim();
  const key = await servedKey(url);
  const expected = input.expectFingerprint?.trim().toLowerCase();
  if (expected && expected !== key.fingerprint) throw new AppError('market.remote.fingerprintMismatch', { values: { url, found: key.fingerprint, expected } });
  const modules = await fetchList({ url, token });
  const [remote] = await rt.db.insert(moduleRemote).values({ url, token, publicKey: key.publicKey, fingerprint: key.fingerprint, createTime: now() })
    .onConflictDoUpdate({ target: moduleRemote.url, set: { token, publicKey: key.publicKey, fingerprint: key.fingerprint } }).returning();
  // The CLI writes its own row for every command (as for the lifecycle).
  if (actor !== CLI_ACTOR) await recordAction(rt.db, actor, 'module:remote:connect', url, '', `key ${key.fingerprint}`);
  return { remote: remote!, modules };
}

/** The markets this site is connected to (a disconnected one keeps its row without a token). */
export async function remotes(rt: Pick<Rt, 'db'>): Promise<RemoteRow[]> {
  return rt.db.select().from(moduleRemote).where(ne(moduleRemote.token, '')).orderBy(moduleRemote.id);
}

/**
 * Disconnects a market: its token is forgotten (nothing more is listed or installed from it), the
 * modules installed from it keep running from this site's copy. The row stays so that connecting
 * the same market again (pinning the key shown then) takes their upgrades from it again.
 */
export async function disconnectRemote(rt: Pick<Rt, 'db'>, id: number, actor: Actor = CLI_ACTOR): Promise<RemoteRow> {
  const [gone] = await rt.db.update(moduleRemote).set({ token: '' }).where(and(eq(moduleRemote.id, id), ne(moduleRemote.token, ''))).returning();
  if (!gone) throw new AppError('market.remote.notConnected');
  if (actor !== CLI_ACTOR) await recordAction(rt.db, actor, 'module:remote:disconnect', gone.url, `key ${gone.fingerprint}`, '');
  return gone;
}

/** What each connected market offers this site's token. */
export async function listRemote(rt: Pick<Rt, 'db'>): Promise<{ remote: RemoteRow; modules: RemoteModule[] }[]> {
  const all = await remotes(rt);
  if (!all.length) throw new AppError('market.remote.notConnected');
  const out = [];
  for (const remote of all) out.push({ remote, modules: await fetchList(remote) });
  return out;
}

/**
 * Checks a release fetched from `remote` against its pinned key: the signature, the bytes' sha256,
 * the manifest inside the package, this Atrium's version. Returns the inspected package.
 */
export async function verifyRemoteRelease(remote: Pick<RemoteRow, 'url' | 'publicKey'>, release: RemoteRelease, bytes: Buffer) {
  const values = { uid: release.uid, version: release.version, url: remote.url };
  const signed = { uid: release.uid, version: release.version, sha256: release.sha256, manifest: release.manifest };
  if (typeof release.signature !== 'string' || !verifyRelease(remote.publicKey, signed, release.signature)) throw new AppError('market.remote.badSignature', { values });
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== release.sha256) throw new AppError('market.remote.hashMismatch', { values: { ...values, actual, signed: release.sha256 } });
  const inspected = await inspectPackage(bytes);
  if (!inspected.ok || inspected.sha256 !== release.sha256 || canonicalJson(inspected.manifest) !== canonicalJson(release.manifest)
    || inspected.manifest.uid !== release.uid || inspected.manifest.version !== release.version) {
    throw new AppError('market.remote.manifestMismatch', { values });
  }
  if (!worksWith(inspected.manifest.atrium, ATRIUM_VERSION)) {
    throw new AppError('market.packageAtrium', { values: { uid: release.uid, version: release.version, range: inspected.manifest.atrium, atrium: ATRIUM_VERSION } });
  }
  return inspected;
}

/**
 * Records a verified remote release in this site's market: the module (once, delisted so this
 * site's members cannot download what another market's member got), the version published with
 * the signed sha256 pinned as reviewed.
 */
async function recordRelease(rt: Rt, remote: RemoteRow, offered: RemoteModule, release: RemoteRelease, bytes: Buffer, inspected: Extract<Awaited<ReturnType<typeof inspectPackage>>, { ok: true }>): Promise<void> {
  const { uid, version } = release;
  const manifest = inspected.manifest as Manifest;
  const [local] = await rt.db.select({ id: module.id }).from(module).where(eq(module.uid, uid)).limit(1);
  const [source] = await rt.db.select().from(moduleRemoteSource).where(eq(moduleRemoteSource.uid, uid)).limit(1);
  if (local && source?.remoteId !== remote.id) throw new AppError('market.remote.localConflict', { values: { uid } });
  const t = now();
  const packagePath = `remote/${release.sha256}.zip`;
  const file = packageFile(rt, packagePath)!;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
  let moduleId = local?.id;
  if (!moduleId) {
    const texts = {
      name: (manifest.name['zh-cn'] || offered.name || uid).slice(0, 60), nameEn: (manifest.name.en || offered.nameEn || '').slice(0, 60),
      summary: (manifest.description['zh-cn']).slice(0, 150), summaryEn: manifest.description.en.slice(0, 150),
      description: '', descriptionEn: '',
    };
    const [row] = await rt.db.insert(module).values({
      uid, developerId: FIRST_PARTY, ...texts, category: 'tools', tags: [], price: 0, scorePrice: 0, siteModule: 1,
      // Delisted: installable here (lifecycle.ts accepts a module with a remote source), never listed, sold or downloaded from this market.
      status: 'delisted', latestVersion: version, publishTime: t, createTime: t, updateTime: t, ...(await moduleText({ ...texts, tags: [] })),
    }).returning({ id: module.id });
    moduleId = row!.id;
    await rt.db.insert(moduleRemoteSource).values({ uid, remoteId: remote.id, createTime: t }).onConflictDoUpdate({ target: moduleRemoteSource.uid, set: { remoteId: remote.id } });
  }
  const [known] = await rt.db.select({ reviewedSha256: moduleVersion.reviewedSha256 }).from(moduleVersion)
    .where(and(eq(moduleVersion.moduleId, moduleId), eq(moduleVersion.version, version))).limit(1);
  if (known && known.reviewedSha256 !== release.sha256) throw new AppError('market.remote.versionConflict', { values: { uid, version } });
  if (!known) {
    await rt.db.insert(moduleVersion).values({
      moduleId, version, changelog: '', packagePath, packageName: `${uid}-${version}.zip`, packageSize: bytes.length,
      sha1: createHash('sha1').update(bytes).digest('hex'), status: 'published', publishTime: t, createTime: t,
      // Reviewed on the remote market: its signature over this sha256 is what this site pins.
      sha256: release.sha256, reviewedSha256: release.sha256, manifest, files: inspected.files,
    });
    await rt.db.update(module).set({ latestVersion: version, updateTime: t }).where(eq(module.id, moduleId));
  }
}

/**
 * Installs (or upgrades to) `uid` at `version` (default: the newest the token's member may have)
 * from the connected market offering it. Refused, saying why, when the market's key changed since
 * connecting, the signature does not verify with the pinned key, or the bytes are not the signed ones.
 */
export async function installRemote(rt: Rt, uid: string, version?: string, actor: Actor = CLI_ACTOR): Promise<{ version: string; url: string }> {
  const all = await remotes(rt);
  if (!all.length) throw new AppError('market.remote.notConnected');
  for (const remote of all) {
    const modules = await fetchList(remote);
    const offered = modules.find((m) => m.uid === uid);
    const release = offered?.versions.find((v) => v.version === (version ?? offered.latest));
    if (!offered || !release) continue;
    const key = await servedKey(remote.url);
    if (key.fingerprint !== remote.fingerprint) {
      throw new AppError('market.remote.keyChanged', { values: { url: remote.url, found: key.fingerprint, pinned: remote.fingerprint } });
    }
    const bytes = await call(remote.url, `/api/market/remote/package?uid=${encodeURIComponent(uid)}&version=${encodeURIComponent(release.version)}`, remote.token, 'bytes');
    let inspected;
    try {
      inspected = await verifyRemoteRelease(remote, release, bytes);
    } catch (e) {
      rt.log.error('remote module refused', { uid, version: release.version, url: remote.url, reason: e instanceof AppError ? e.key : String(e) });
      throw e;
    }
    await recordRelease(rt, remote, offered, release, bytes, inspected);
    return { version: await installPackaged(rt, uid, actor, release.version), url: remote.url };
  }
  throw new AppError('market.remote.notListed', { values: { uid } });
}
