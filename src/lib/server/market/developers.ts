import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { developer } from '../db/schema';

export type DeveloperRow = typeof developer.$inferSelect;

/** The member's developer application, if any. */
export async function developerOf(db: Db, userId: number): Promise<DeveloperRow | null> {
  const [row] = await db.select().from(developer).where(eq(developer.userId, userId)).limit(1);
  return row ?? null;
}

/** Whether the member may use the developer pages and APIs. */
export async function isApprovedDeveloper(db: Db, userId: number): Promise<boolean> {
  return (await developerOf(db, userId))?.status === 'approved';
}
