// One-time links: the first-start setup link and password-reset links. The link carries a random
// token; only its HMAC is stored, and using it deletes the row, so it works once.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, or } from 'drizzle-orm';
import type { Db } from '../db/client';
import { adminToken, user, userGroup } from '../db/schema';
import { hashToken } from '../auth/sessions';

export type TokenKind = 'install' | 'reset';
/** Reset links last a day; the setup link lasts until used. */
export const RESET_TTL = 24 * 3600;

const now = (): number => Math.floor(Date.now() / 1000);

/** Whether any enabled member belongs to a group whose rules are `*`. */
export async function hasAdministrator(db: Db): Promise<boolean> {
  const [row] = await db.select({ id: user.id }).from(user)
    .innerJoin(userGroup, eq(userGroup.id, user.groupId))
    .where(and(eq(userGroup.rules, '*'), eq(user.status, 'enable'))).limit(1);
  return Boolean(row);
}

/** A new token of `kind` (replacing earlier setup tokens; a member's earlier reset links too). */
export async function issueToken(db: Db, secret: string, kind: TokenKind, userId = 0): Promise<string> {
  const value = randomBytes(24).toString('base64url');
  await db.transaction(async (tx) => {
    await tx.delete(adminToken).where(and(eq(adminToken.kind, kind), eq(adminToken.userId, userId)));
    await tx.insert(adminToken).values({ kind, userId, tokenHash: hashToken(secret, value), createTime: now(), expireTime: kind === 'reset' ? now() + RESET_TTL : 0 });
  });
  return value;
}

/** The token's row when it is valid (not used, not expired), else null. Does not use it. */
export async function findToken(db: Db, secret: string, kind: TokenKind, value: string): Promise<{ id: number; userId: number } | null> {
  if (!value || value.length > 100) return null;
  const [row] = await db.select({ id: adminToken.id, userId: adminToken.userId }).from(adminToken)
    .where(and(eq(adminToken.kind, kind), eq(adminToken.tokenHash, hashToken(secret, value)), or(eq(adminToken.expireTime, 0), gt(adminToken.expireTime, now()))));
  return row ?? null;
}

/** Uses a token: true exactly once, for the first caller. */
export async function consumeToken(db: Db | Parameters<Parameters<Db['transaction']>[0]>[0], id: number): Promise<boolean> {
  const gone = await db.delete(adminToken).where(eq(adminToken.id, id)).returning({ id: adminToken.id });
  return gone.length === 1;
}
