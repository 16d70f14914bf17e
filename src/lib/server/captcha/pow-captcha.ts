// The captcha without pictures (WCAG 2.2 3.3.8): an ALTCHA proof-of-work challenge (altcha-lib, v2
// "deterministic" mode). The server picks a secret counter; the browser finds it by trying every
// counter from 0 up, each try costing `POW_COST` SHA-256 rounds, so the work grows with the counter.
//
// What it is not: proof-of-work does not tell a person from a script. It makes every attempt cost
// CPU, and costs more for an address that asks often or fails often; it works together with the
// per-address and per-account limits and the e-mail/SMS code, never alone.
import { createHash, createHmac } from 'node:crypto';
import { lt } from 'drizzle-orm';
import { z } from 'zod';
import { createChallenge, randomInt, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { captcha } from '../db/schema';
import type { Db } from '../db/client';
import type { RateLimiter } from '../rate-limit';

export const POW_ALGORITHM = 'SHA-256';
/** SHA-256 rounds per counter tried. */
export const POW_COST = 20;
/** The secret counter's range at the lowest difficulty: at most this many tries. */
export const POW_BASE_MIN = 2_000;
export const POW_BASE_MAX = 8_000;
/** Seconds a challenge stays valid (and its used signature is kept). */
export const POW_TTL = 300;
/** The window, in seconds, in which one address's challenges and failures are counted. */
export const POW_WINDOW = 600;
/** Challenges one address may ask for in a window before the difficulty rises. */
export const POW_FREE = 10;
/** A failed or replayed solution weighs as much as this many issued challenges. */
export const POW_FAILURE_WEIGHT = 3;
/** Each level doubles the counter's range; this is the highest (×64). */
export const POW_MAX_LEVEL = 6;

export type PowCheck = 'ok' | 'wrong' | 'expired' | 'used';

/** The two HMAC keys, derived from the site's token secret so they are never in the code or the config. */
export interface PowSecrets {
  signature: string;
  key: string;
}

export function powSecrets(tokenSecret: string): PowSecrets {
  const derive = (label: string): string => createHmac('sha256', tokenSecret).update(`altcha:${label}`).digest('hex');
  return { signature: derive('challenge'), key: derive('derived-key') };
}

/**
 * The difficulty level for an address that asked for `issued` challenges and failed `failed` times
 * in the current window: 0 up to `POW_FREE`, then one more level each time the load doubles.
 */
export function powLevel(issued: number, failed: number): number {
  const load = issued + POW_FAILURE_WEIGHT * failed;
  if (load <= POW_FREE) return 0;
  return Math.min(POW_MAX_LEVEL, Math.floor(Math.log2(load / POW_FREE)) + 1);
}

/** The secret counter's range at a level. */
export function powCounterRange(level: number): { min: number; max: number } {
  const factor = 2 ** Math.min(Math.max(0, Math.floor(level)), POW_MAX_LEVEL);
  return { min: POW_BASE_MIN * factor, max: POW_BASE_MAX * factor };
}

const issuedKey = (ip: string): string => `pow-issued:${ip}`;
const failedKey = (ip: string): string => `pow-failed:${ip}`;

/** Counts one challenge for `ip` and returns the level the new one gets (shared across instances through the limiter). */
export async function nextPowLevel(limiter: RateLimiter, ip: string): Promise<number> {
  await limiter.hit(issuedKey(ip), Number.MAX_SAFE_INTEGER, POW_WINDOW);
  const [issued, failed] = await Promise.all([limiter.count(issuedKey(ip)), limiter.count(failedKey(ip))]);
  return powLevel(issued, failed);
}

/** Counts a failed or replayed solution from `ip`, which raises its next challenges' difficulty. */
export async function countPowFailure(limiter: RateLimiter, ip: string): Promise<void> {
  await limiter.hit(failedKey(ip), Number.MAX_SAFE_INTEGER, POW_WINDOW);
}

/** A signed challenge at `level`, expiring `POW_TTL` seconds after `nowSeconds`. */
export function createPowChallenge(secrets: PowSecrets, level: number, nowSeconds = Math.floor(Date.now() / 1000)): Promise<Challenge> {
  const { min, max } = powCounterRange(level);
  return createChallenge({
    algorithm: POW_ALGORITHM,
    cost: POW_COST,
    counter: randomInt(max, min),
    deriveKey,
    expiresAt: nowSeconds + POW_TTL,
    hmacSignatureSecret: secrets.signature,
    hmacKeySignatureSecret: secrets.key,
  });
}

const hex = z.string().max(256).regex(/^[0-9a-f]*$/);
/** What the browser sends back: ALTCHA's payload, base64 of `{challenge, solution}`. */
const PayloadSchema = z.object({
  challenge: z.object({
    parameters: z.object({
      algorithm: z.literal(POW_ALGORITHM),
      nonce: hex,
      salt: hex,
      cost: z.number().int().positive().max(1_000_000),
      keyLength: z.number().int().positive().max(64),
      keyPrefix: hex,
      keySignature: hex,
      expiresAt: z.number().int().positive(),
    }).strict(),
    signature: hex,
  }).strict(),
  solution: z.object({
    counter: z.number().int().nonnegative(),
    derivedKey: hex,
    time: z.number().optional(),
  }).strict(),
}).strict();

/** The most a payload may weigh: a real one is under 1 kB. */
export const POW_PAYLOAD_MAX = 2_000;
export const powPayloadSchema = z.string().min(1).max(POW_PAYLOAD_MAX);

function parsePayload(payload: string): z.infer<typeof PayloadSchema> | null {
  if (payload.length > POW_PAYLOAD_MAX || !/^[A-Za-z0-9+/]+=*$/.test(payload)) return null;
  try {
    const parsed = PayloadSchema.safeParse(JSON.parse(Buffer.from(payload, 'base64').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The row key of a used challenge: a hash of its signature, apart from click captchas and codes. */
export function powUsedKey(signature: string): string {
  return createHash('sha256').update(`pow:${signature}`).digest('hex');
}

/**
 * Checks a solved challenge and uses it up: the signature, the expiry and the solution are checked
 * by altcha-lib, then the challenge's signature is claimed in the database (one insert that fails
 * when it is there already), so each solved challenge passes once, on whichever instance.
 */
export async function consumePowSolution(db: Db, secrets: PowSecrets, payload: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<PowCheck> {
  const parsed = parsePayload(payload);
  if (!parsed) return 'wrong';
  const { challenge, solution } = parsed;
  // altcha-lib compares with the wall clock; the check here lets callers (and tests) pass the time.
  if (challenge.parameters.expiresAt < nowSeconds) return 'expired';
  const result = await verifySolution({
    challenge, solution, deriveKey, hmacSignatureSecret: secrets.signature, hmacKeySignatureSecret: secrets.key,
  });
  if (result.expired) return 'expired';
  if (!result.verified) return 'wrong';
  await db.delete(captcha).where(lt(captcha.expireTime, nowSeconds));
  const claimed = await db.insert(captcha)
    .values({ key: powUsedKey(challenge.signature), createTime: nowSeconds, expireTime: challenge.parameters.expiresAt })
    .onConflictDoNothing({ target: captcha.key })
    .returning({ key: captcha.key });
  return claimed.length === 1 ? 'ok' : 'used';
}

