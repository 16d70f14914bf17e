import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { config } from '../db/schema';

/**
 * The key tokens are hashed with. `TOKEN_SECRET` wins; otherwise one is made on first start and
 * kept in the database so every instance hashes alike.
 */
export async function tokenSecret(db: Db, env: string | undefined): Promise<string> {
  if (env) return env;
  const [row] = await db.select({ value: config.value }).from(config).where(eq(config.name, 'token_secret'));
  if (row?.value) return row.value;
  const value = randomBytes(32).toString('hex');
  await db.insert(config).values({ name: 'token_secret', group: 'security', title: 'Token secret', type: 'secret', value }).onConflictDoNothing();
  const [again] = await db.select({ value: config.value }).from(config).where(eq(config.name, 'token_secret'));
  return again?.value ?? value;
}
