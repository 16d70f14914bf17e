// The captcha without pictures, server side: the challenge is signed with keys derived from the
// site's secret, a solution verifies, tampering and another site's key do not, and the difficulty
// rises with an address's challenges and failures (counted in the shared limiter).
import { describe, expect, it } from 'vitest';
import { solveChallenge, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { createMemoryLimiter } from '../../src/lib/server/rate-limit';
import {
  countPowFailure, createPowChallenge, nextPowLevel, POW_BASE_MAX, POW_BASE_MIN, POW_COST, POW_FREE, POW_MAX_LEVEL, POW_TTL,
  powCounterRange, powLevel, powSecrets,
} from '../../src/lib/server/captcha/pow-captcha';
import { scaled } from '../helpers/time-scale.mjs';

const secrets = powSecrets('a'.repeat(64));

async function solve(challenge: Challenge): Promise<{ counter: number; derivedKey: string }> {
  const solution = await solveChallenge({ challenge, deriveKey, timeout: 60_000 });
  if (!solution) throw new Error('not solved');
  return solution;
}

describe('proof-of-work keys', () => {
  it('derives two different keys from the token secret, neither being the secret itself', () => {
    const a = powSecrets('site-one-secret');
    expect(a.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(a.key).toMatch(/^[0-9a-f]{64}$/);
    expect(a.signature).not.toBe(a.key);
    expect([a.signature, a.key]).not.toContain('site-one-secret');
    expect(powSecrets('site-one-secret')).toEqual(a);
    expect(powSecrets('site-two-secret').signature).not.toBe(a.signature);
  });
});

describe('proof-of-work challenge', () => {
  it('is signed, expires after the TTL, and its solution verifies', async () => {
    const now = Math.floor(Date.now() / 1000);
    const challenge = await createPowChallenge(secrets, 0, now);
    expect(challenge.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(challenge.parameters).toMatchObject({ algorithm: 'SHA-256', cost: POW_COST, expiresAt: now + POW_TTL });
    expect(challenge.parameters.keySignature).toMatch(/^[0-9a-f]{64}$/);
    const solution = await solve(challenge);
    // The secret counter lies in the range of level 0: the work is bounded and not trivial.
    expect(solution.counter).toBeGreaterThanOrEqual(POW_BASE_MIN);
    expect(solution.counter).toBeLessThanOrEqual(POW_BASE_MAX);
    const ok = await verifySolution({ challenge, solution, deriveKey, hmacSignatureSecret: secrets.signature, hmacKeySignatureSecret: secrets.key });
    expect(ok).toMatchObject({ verified: true, expired: false });
  });

  it('refuses a wrong counter, changed parameters, another site\'s key and an expired challenge', async () => {
    const challenge = await createPowChallenge(secrets, 0);
    const solution = await solve(challenge);
    const check = (c: Challenge, s: typeof solution, keys = secrets) =>
      verifySolution({ challenge: c, solution: s, deriveKey, hmacSignatureSecret: keys.signature, hmacKeySignatureSecret: keys.key });
    expect((await check(challenge, { ...solution, derivedKey: '00'.repeat(32) })).verified).toBe(false);
    // Lowering the cost after the fact breaks the signature.
    expect(await check({ ...challenge, parameters: { ...challenge.parameters, cost: 1 } }, solution)).toMatchObject({ verified: false, invalidSignature: true });
    expect(await check(challenge, solution, powSecrets('another-site'))).toMatchObject({ verified: false, invalidSignature: true });
    const old = await createPowChallenge(secrets, 0, Math.floor(Date.now() / 1000) - POW_TTL - 1);
    expect(await check(old, await solve(old))).toMatchObject({ verified: false, expired: true });
  });

  it('hides a larger counter at a higher level', async () => {
    const challenge = await createPowChallenge(secrets, 2);
    const solution = await solve(challenge);
    expect(solution.counter).toBeGreaterThanOrEqual(POW_BASE_MIN * 4);
    expect(solution.counter).toBeLessThanOrEqual(POW_BASE_MAX * 4);
  }, scaled(60_000));
});

describe('proof-of-work difficulty', () => {
  it('stays at level 0 up to the free allowance, then doubles the work each time the load doubles', () => {
    expect(powLevel(0, 0)).toBe(0);
    expect(powLevel(POW_FREE, 0)).toBe(0);
    expect(powLevel(POW_FREE + 1, 0)).toBe(1);
    expect(powLevel(2 * POW_FREE, 0)).toBe(2);
    expect(powLevel(4 * POW_FREE, 0)).toBe(3);
    expect(powLevel(1_000_000, 0)).toBe(POW_MAX_LEVEL);
    // A failure weighs more than a challenge asked for.
    expect(powLevel(1, 4)).toBe(1);
    expect(powCounterRange(0)).toEqual({ min: POW_BASE_MIN, max: POW_BASE_MAX });
    expect(powCounterRange(3)).toEqual({ min: POW_BASE_MIN * 8, max: POW_BASE_MAX * 8 });
    expect(powCounterRange(99)).toEqual(powCounterRange(POW_MAX_LEVEL));
    expect(powCounterRange(POW_MAX_LEVEL).max).toBeLessThan(2 ** 32);
  });

  it('counts one address\'s challenges and failures in the limiter, apart from other addresses', async () => {
    const limiter = createMemoryLimiter();
    try {
      const levels: number[] = [];
      for (let i = 0; i < POW_FREE + 2; i++) levels.push(await nextPowLevel(limiter, '203.0.113.1'));
      expect(levels.slice(0, POW_FREE)).toEqual(Array(POW_FREE).fill(0));
      expect(levels.slice(POW_FREE)).toEqual([1, 1]);
      expect(await nextPowLevel(limiter, '203.0.113.2')).toBe(0);
      for (let i = 0; i < 4; i++) await countPowFailure(limiter, '203.0.113.3');
      expect(await nextPowLevel(limiter, '203.0.113.3')).toBe(1);
      for (let i = 0; i < 10; i++) await countPowFailure(limiter, '203.0.113.3');
      expect(await nextPowLevel(limiter, '203.0.113.3')).toBe(3);
    } finally {
      await limiter.close();
    }
  });
});
